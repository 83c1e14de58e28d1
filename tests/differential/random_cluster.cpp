#include "differential/random_cluster.hpp"

#include <random>

namespace schedhost::testing::differential {

using nlohmann::json;

namespace {

const char* const kZones[] = {"zone-a", "zone-b", "zone-c"};
const char* const kApps[] = {"web", "db", "cache"};
const char* const kTiers[] = {"front", "back"};
const char* const kCsiDriver = "disk.csi.example.com";
const char* const kDisks[] = {"pd-1", "pd-2"};

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

// ---- volumes (issue 19) ----

json storage_class(const std::string& name, const std::string& mode) {
  return {{"apiVersion", "storage.k8s.io/v1"},
          {"kind", "StorageClass"},
          {"metadata", {{"name", name}}},
          {"provisioner", "kubernetes.io/no-provisioner"},
          {"volumeBindingMode", mode}};
}

// A volume claimed by default/<claim>, of 10Gi; `source` is its one volume source.
json persistent_volume(const std::string& name, const std::string& claim, const std::string& mode,
                       json source) {
  json spec = {{"capacity", {{"storage", "10Gi"}}},
               {"accessModes", json::array({mode})},
               {"storageClassName", "local"},
               {"claimRef", {{"namespace", "default"}, {"name", claim}}}};
  spec.update(source);
  return {{"apiVersion", "v1"},
          {"kind", "PersistentVolume"},
          {"metadata", {{"name", name}}},
          {"spec", spec}};
}

json node_affinity(const std::string& key, const std::string& value) {
  return {{"required",
           {{"nodeSelectorTerms",
             json::array(
                 {{{"matchExpressions", json::array({{{"key", key},
                                                      {"operator", "In"},
                                                      {"values", json::array({value})}}})}}})}}}};
}

// A claim in default; bound (to `volume`, with the PV controller's annotation) unless volume is "".
json claim(const std::string& name, const std::string& class_name, const std::string& mode,
           const std::string& volume) {
  json c = {{"apiVersion", "v1"},
            {"kind", "PersistentVolumeClaim"},
            {"metadata", {{"name", name}, {"namespace", "default"}}},
            {"spec",
             {{"accessModes", json::array({mode})},
              {"resources", {{"requests", {{"storage", "10Gi"}}}}},
              {"storageClassName", class_name}}}};
  if (!volume.empty()) {
    c["spec"]["volumeName"] = volume;
    c["metadata"]["annotations"] = {{"pv.kubernetes.io/bind-completed", "yes"}};
  }
  return c;
}

// The claims a pod in default may mount, by what they test.
struct Claims {
  std::vector<std::string> zonal;  // bound to a volume of one zone (VolumeZone, node affinity)
  std::vector<std::string> local;  // bound to a volume of one node
  std::vector<std::string> csi;    // bound to a CSI volume (NodeVolumeLimits)
  std::vector<std::string> rwop;   // ReadWriteOncePod, the first one used by a running pod
  std::vector<std::string> unbound = {"instant-0", "later-0", "missing-0"};
};

Claims add_volumes(Draw& draw, const std::vector<json>& nodes, std::vector<json>& objects) {
  Claims claims;
  objects.push_back(storage_class("local", "WaitForFirstConsumer"));
  objects.push_back(storage_class("instant", "Immediate"));
  auto bound = [&](const std::string& name, const std::string& mode, json source) {
    objects.push_back(persistent_volume("pv-" + name, name, mode, std::move(source)));
    objects.push_back(claim(name, "local", mode, "pv-" + name));
  };
  for (int i = 0; i < 3; ++i) {
    const std::string name = "zonal-" + std::to_string(i);
    const std::string zone = draw.pick(kZones);
    // Every other one has only the zone label, for VolumeZone to judge (with node affinity too,
    // VolumeBinding, which filters first, would reject the other zones before it).
    json source = {{"hostPath", {{"path", "/mnt/" + name}}}};
    if (i % 2 == 0) source["nodeAffinity"] = node_affinity("topology.kubernetes.io/zone", zone);
    bound(name, "ReadWriteOnce", std::move(source));
    objects[objects.size() - 2]["metadata"]["labels"] = {{"topology.kubernetes.io/zone", zone}};
    claims.zonal.push_back(name);
  }
  for (int i = 0; i < 2; ++i) {
    const std::string name = "local-" + std::to_string(i);
    const json& node = nodes[static_cast<std::size_t>(draw.between(0, int(nodes.size()) - 1))];
    bound(name, "ReadWriteOnce",
          {{"local", {{"path", "/mnt/disks/" + name}}},
           {"nodeAffinity",
            node_affinity("kubernetes.io/hostname", node["metadata"]["name"].get<std::string>())}});
    claims.local.push_back(name);
  }
  for (int i = 0; i < 4; ++i) {
    const std::string name = "csi-" + std::to_string(i);
    bound(name, "ReadWriteOnce",
          {{"csi", {{"driver", kCsiDriver}, {"volumeHandle", "handle-" + std::to_string(i)}}}});
    claims.csi.push_back(name);
  }
  for (int i = 0; i < 2; ++i) {
    const std::string name = "rwop-" + std::to_string(i);
    bound(name, "ReadWriteOncePod", {{"hostPath", {{"path", "/mnt/" + name}}}});
    claims.rwop.push_back(name);
  }
  // An Immediate claim nothing binds, and a WaitForFirstConsumer one no volume is free for
  // (every "local" volume is claimed); "missing-0" does not exist.
  objects.push_back(claim("instant-0", "instant", "ReadWriteOnce", ""));
  objects.push_back(claim("later-0", "local", "ReadWriteOnce", ""));
  for (const json& node : nodes) {
    if (!draw.chance(60)) continue;
    const std::string name = node["metadata"]["name"];
    objects.push_back(
        {{"apiVersion", "storage.k8s.io/v1"},
         {"kind", "CSINode"},
         {"metadata", {{"name", name}}},
         {"spec",
          {{"drivers", json::array({{{"name", kCsiDriver},
                                     {"nodeID", name},
                                     {"allocatable", {{"count", draw.between(1, 2)}}}}})}}}});
  }
  return claims;
}

json claim_volume(const std::string& claim_name) {
  return {{"name", "data-" + claim_name}, {"persistentVolumeClaim", {{"claimName", claim_name}}}};
}

json disk_volume(Draw& draw) {
  return {{"name", "disk"},
          {"gcePersistentDisk", {{"pdName", draw.pick(kDisks)}, {"readOnly", draw.chance(50)}}}};
}

// A running pod's volume, sometimes: one of the bound claims or a disk.
void add_running_volume(Draw& draw, const Claims& claims, json& pod) {
  if (pod["metadata"]["namespace"] != "default" || !draw.chance(40)) return;
  json volume;
  switch (draw.between(0, 6)) {  // mostly CSI volumes, to reach the nodes' attach limits
    case 0:
    case 1:
    case 2:
      volume = claim_volume(claims.csi[static_cast<std::size_t>(draw.between(0, 3))]);
      break;
    case 3:
      volume = claim_volume(claims.zonal[static_cast<std::size_t>(draw.between(0, 2))]);
      break;
    case 4:
      volume = claim_volume(claims.rwop[0]);
      break;
    default:
      volume = disk_volume(draw);
  }
  pod["spec"]["volumes"] = json::array({volume});
}

// A probe's volumes, sometimes: one or two of any kind, the claims that cannot bind included.
void add_probe_volumes(Draw& draw, const Claims& claims, json& pod) {
  if (pod["metadata"]["namespace"] != "default" || !draw.chance(40)) return;
  json volumes = json::array();
  for (int n = draw.chance(20) ? 2 : 1; n > 0; --n) {
    const auto any = [&](const std::vector<std::string>& of) {
      return claim_volume(of[static_cast<std::size_t>(draw.between(0, int(of.size()) - 1))]);
    };
    json volume;
    switch (draw.between(0, 9)) {
      case 0:
      case 1:
        volume = any(claims.zonal);
        break;
      case 2:
        volume = any(claims.local);
        break;
      case 3:
      case 4:
        volume = any(claims.csi);
        break;
      case 5:
        volume = any(claims.rwop);
        break;
      case 6:
        volume = any(claims.unbound);
        break;
      default:
        volume = disk_volume(draw);
    }
    volume["name"] = volume["name"].get<std::string>() + "-" + std::to_string(n);
    volumes.push_back(volume);
  }
  pod["spec"]["volumes"] = volumes;
}

// ---- the objects behind PodTopologySpread's system defaults ----

void add_spreading_owners(std::vector<json>& objects) {
  for (const std::string app : {"web", "db"}) {
    objects.push_back(
        {{"apiVersion", "apps/v1"},
         {"kind", "ReplicaSet"},
         {"metadata", {{"name", app + "-rs"}, {"namespace", "default"}}},
         {"spec",
          {{"replicas", 0},
           {"selector", {{"matchLabels", {{"app", app}}}}},
           {"template",
            {{"metadata", {{"labels", {{"app", app}}}}},
             {"spec",
              {{"containers",
                json::array({{{"name", "c"}, {"image", "registry.k8s.io/pause:3.10"}}})}}}}}}}});
  }
  objects.push_back({{"apiVersion", "v1"},
                     {"kind", "Service"},
                     {"metadata", {{"name", "cache"}, {"namespace", "default"}}},
                     {"spec",
                      {{"selector", {{"app", "cache"}}},
                       {"ports", json::array({{{"port", 80}, {"protocol", "TCP"}}})}}}});
}

// A pod of app web or db in default, sometimes: controlled by its app's ReplicaSet.
void maybe_owned(Draw& draw, json& pod) {
  const std::string app = pod["metadata"]["labels"]["app"];
  if (pod["metadata"]["namespace"] != "default" || app == "cache" || !draw.chance(50)) return;
  pod["metadata"]["ownerReferences"] = json::array({{{"apiVersion", "apps/v1"},
                                                     {"kind", "ReplicaSet"},
                                                     {"name", app + "-rs"},
                                                     {"uid", ""},
                                                     {"controller", true}}});
}

}  // namespace

RandomCluster make_random_cluster(std::uint32_t seed, int probe_count) {
  Draw draw(seed);
  RandomCluster cluster;
  const int node_count = draw.between(5, 10);
  for (int i = 0; i < node_count; ++i)
    cluster.nodes.push_back(make_node(draw, i));
  const Claims claims = add_volumes(draw, cluster.nodes, cluster.objects);
  add_spreading_owners(cluster.objects);
  int running_index = 0;
  for (const json& node : cluster.nodes) {
    for (int k = draw.between(0, 4); k > 0; --k) {
      const std::string ns = draw.chance(30) ? "team" : "default";
      RunningPod running{make_pod(draw, "running-" + std::to_string(running_index++), ns, false),
                         json::object()};
      running.pod["spec"]["nodeName"] = node["metadata"]["name"];
      add_running_volume(draw, claims, running.pod);
      maybe_owned(draw, running.pod);
      const json& container = running.pod["spec"]["containers"][0];
      if (container.contains("resources") && draw.chance(25)) running.status = resized_status(draw);
      cluster.running.push_back(std::move(running));
    }
  }
  for (int i = 0; i < probe_count; ++i) {
    json probe =
        make_pod(draw, "probe-" + std::to_string(i), draw.chance(20) ? "team" : "default", true);
    add_scheduling_constraints(draw, probe);
    add_probe_volumes(draw, claims, probe);
    maybe_owned(draw, probe);
    cluster.probes.push_back(std::move(probe));
  }
  return cluster;
}

}  // namespace schedhost::testing::differential
