#include "differential/random_cluster.hpp"

#include <random>

namespace schedhost::testing::differential {

using nlohmann::json;

namespace {

const char* const kZones[] = {"zone-a", "zone-b", "zone-c"};
const char* const kApps[] = {"web", "db", "cache"};
const char* const kTiers[] = {"front", "back"};

class Draw {
 public:
  explicit Draw(std::uint32_t seed) : engine_(seed) {}
  // True with probability percent/100.
  bool chance(int percent) { return std::uniform_int_distribution<int>(0, 99)(engine_) < percent; }
  int between(int low, int high) { return std::uniform_int_distribution<int>(low, high)(engine_); }
  template <typename T, std::size_t N>
  const T& pick(const T (&options)[N]) {
    return options[std::uniform_int_distribution<std::size_t>(0, N - 1)(engine_)];
  }

 private:
  std::mt19937 engine_;
};

json make_node(Draw& draw, int index) {
  const std::string name = "node-" + std::to_string(index);
  json labels = {{"kubernetes.io/hostname", name},
                 {"topology.kubernetes.io/zone", draw.pick(kZones)}};
  if (draw.chance(50)) labels["disktype"] = draw.chance(50) ? "ssd" : "hdd";
  const char* const cpus[] = {"2", "4", "8"};
  const char* const memories[] = {"4Gi", "8Gi", "16Gi"};
  const json resources = {{"cpu", draw.pick(cpus)},
                          {"memory", draw.pick(memories)},
                          {"pods", draw.chance(10) ? "3" : "110"}};
  json node = {{"apiVersion", "v1"},
               {"kind", "Node"},
               {"metadata", {{"name", name}, {"labels", labels}}},
               {"spec", json::object()},
               {"status", {{"allocatable", resources}, {"capacity", resources}}}};
  json taints = json::array();
  if (draw.chance(15))
    taints.push_back({{"key", "dedicated"}, {"value", "gpu"}, {"effect", "NoSchedule"}});
  if (draw.chance(15))
    taints.push_back({{"key", "spot"}, {"value", "true"}, {"effect", "PreferNoSchedule"}});
  if (!taints.empty()) node["spec"]["taints"] = taints;
  if (draw.chance(8)) node["spec"]["unschedulable"] = true;
  return node;
}

// One pause container, its requests either in the container or at pod level.
json make_pod(Draw& draw, const std::string& name, const std::string& ns, bool big) {
  const char* const small_cpus[] = {"100m", "250m", "500m", "1", "1500m"};
  const char* const big_cpus[] = {"100m", "500m", "1", "2", "3", "6"};
  const char* const small_memories[] = {"128Mi", "256Mi", "1Gi"};
  const char* const big_memories[] = {"128Mi", "1Gi", "3Gi", "12Gi"};
  json requests = {{"cpu", big ? draw.pick(big_cpus) : draw.pick(small_cpus)}};
  if (draw.chance(80))
    requests["memory"] = big ? draw.pick(big_memories) : draw.pick(small_memories);
  json container = {{"name", "c"}, {"image", "registry.k8s.io/pause:3.10"}};
  json spec = {{"containers", json::array()}};
  if (draw.chance(20)) {
    spec["resources"] = {{"requests", requests}};  // pod-level, the container requests nothing
  } else if (draw.chance(90)) {
    container["resources"] = {{"requests", requests}};
  }  // else: a pod that requests nothing
  if (draw.chance(15)) {
    container["ports"] =
        json::array({{{"containerPort", 8080}, {"hostPort", 8080}, {"protocol", "TCP"}}});
  }
  spec["containers"].push_back(container);
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata",
           {{"name", name},
            {"namespace", ns},
            {"labels", {{"app", draw.pick(kApps)}, {"tier", draw.pick(kTiers)}}}}},
          {"spec", spec}};
}

// The status of a pod resized in place: allocated and actual resources that differ from the
// spec, or a resize the node cannot do (PodResizePending, Infeasible: the spec is not counted).
json resized_status(Draw& draw) {
  const char* const cpus[] = {"250m", "750m", "1500m"};
  const std::string allocated = draw.pick(cpus);
  json status = {{"containerStatuses",
                  json::array({{{"name", "c"},
                                {"image", "registry.k8s.io/pause:3.10"},
                                {"imageID", ""},
                                {"ready", false},
                                {"restartCount", 0},
                                {"state", {{"waiting", {{"reason", "ContainerCreating"}}}}},
                                {"allocatedResources", {{"cpu", allocated}}},
                                {"resources", {{"requests", {{"cpu", allocated}}}}}}})}};
  if (draw.chance(30)) {
    status["conditions"] = json::array({{{"type", "PodResizePending"},
                                         {"status", "True"},
                                         {"reason", "Infeasible"},
                                         {"message", "Node didn't have enough capacity"}}});
  }
  return status;
}

void add_scheduling_constraints(Draw& draw, json& pod) {
  json& spec = pod["spec"];
  const std::string app = pod["metadata"]["labels"]["app"];
  if (draw.chance(15)) spec["nodeSelector"] = {{"disktype", "ssd"}};
  json affinity = json::object();
  if (draw.chance(15)) {
    json zones = json::array({draw.pick(kZones)});
    if (draw.chance(50)) zones.push_back(draw.pick(kZones));
    affinity["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] = {
        {"nodeSelectorTerms",
         json::array({{{"matchExpressions", json::array({{{"key", "topology.kubernetes.io/zone"},
                                                          {"operator", "In"},
                                                          {"values", zones}}})}}})}};
  }
  if (draw.chance(25)) {
    affinity["nodeAffinity"]["preferredDuringSchedulingIgnoredDuringExecution"] = json::array(
        {{{"weight", draw.between(1, 100)},
          {"preference",
           {{"matchExpressions",
             json::array({{{"key", "disktype"}, {"operator", "In"}, {"values", {"ssd"}}}})}}}}});
  }
  if (draw.chance(15)) {
    json term = {{"topologyKey", "kubernetes.io/hostname"},
                 {"labelSelector", {{"matchLabels", {{"app", app}}}}}};
    if (draw.chance(50)) term["matchLabelKeys"] = json::array({"tier"});
    affinity["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] =
        json::array({term});
  }
  if (draw.chance(10)) {
    json term = {{"topologyKey", "topology.kubernetes.io/zone"},
                 {"labelSelector", {{"matchLabels", {{"app", draw.pick(kApps)}}}}}};
    if (draw.chance(50)) term["mismatchLabelKeys"] = json::array({"tier"});
    affinity["podAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] = json::array({term});
  }
  if (draw.chance(20)) {
    json term = {{"topologyKey", "topology.kubernetes.io/zone"},
                 {"labelSelector", {{"matchLabels", {{"app", draw.pick(kApps)}}}}}};
    if (draw.chance(50)) term["matchLabelKeys"] = json::array({"tier"});
    const char* which = draw.chance(50) ? "podAffinity" : "podAntiAffinity";
    affinity[which]["preferredDuringSchedulingIgnoredDuringExecution"] =
        json::array({{{"weight", draw.between(1, 100)}, {"podAffinityTerm", term}}});
  }
  if (!affinity.empty()) spec["affinity"] = affinity;
  if (draw.chance(25)) {
    json constraint = {
        {"maxSkew", draw.between(1, 2)},
        {"topologyKey", draw.chance(60) ? "topology.kubernetes.io/zone" : "kubernetes.io/hostname"},
        {"whenUnsatisfiable", draw.chance(50) ? "DoNotSchedule" : "ScheduleAnyway"},
        {"labelSelector", {{"matchLabels", {{"app", app}}}}}};
    if (draw.chance(40)) constraint["matchLabelKeys"] = json::array({"tier"});
    if (draw.chance(20)) constraint["nodeTaintsPolicy"] = "Honor";
    spec["topologySpreadConstraints"] = json::array({constraint});
  }
  if (draw.chance(25)) {
    spec["tolerations"] = json::array({{{"key", "dedicated"},
                                        {"operator", "Equal"},
                                        {"value", "gpu"},
                                        {"effect", "NoSchedule"}}});
  }
  if (draw.chance(10)) spec["preemptionPolicy"] = "Never";
}

}  // namespace

RandomCluster make_random_cluster(std::uint32_t seed, int probe_count) {
  Draw draw(seed);
  RandomCluster cluster;
  const int node_count = draw.between(5, 10);
  for (int i = 0; i < node_count; ++i)
    cluster.nodes.push_back(make_node(draw, i));
  int running_index = 0;
  for (const json& node : cluster.nodes) {
    for (int k = draw.between(0, 4); k > 0; --k) {
      const std::string ns = draw.chance(30) ? "team" : "default";
      RunningPod running{make_pod(draw, "running-" + std::to_string(running_index++), ns, false),
                         json::object()};
      running.pod["spec"]["nodeName"] = node["metadata"]["name"];
      const json& container = running.pod["spec"]["containers"][0];
      if (container.contains("resources") && draw.chance(25)) running.status = resized_status(draw);
      cluster.running.push_back(std::move(running));
    }
  }
  for (int i = 0; i < probe_count; ++i) {
    json probe =
        make_pod(draw, "probe-" + std::to_string(i), draw.chance(20) ? "team" : "default", true);
    add_scheduling_constraints(draw, probe);
    cluster.probes.push_back(std::move(probe));
  }
  return cluster;
}

}  // namespace schedhost::testing::differential
