// `schedhost run` end to end with PodTopologySpread's default constraints: a ReplicaSet in the
// cluster file selects its pods, so the pods without constraints of their own spread as upstream
// v1.35 spreads them (the system defaults, or defaultingType List); and the
// MatchLabelKeysInPodTopologySpread feature gate of --feature-gates.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

#include "support/fixtures.hpp"
#include "support/process.hpp"

namespace schedhost {
namespace {

using Json = nlohmann::json;

// Three nodes of 4 cpus and 4000Mi in two zones: node-a1 and node-a2 in zone-a, node-b1 in zone-b.
std::string nodes() {
  std::string out;
  for (const auto& [name, zone] : std::vector<std::pair<std::string, std::string>>{
           {"node-a1", "zone-a"}, {"node-a2", "zone-a"}, {"node-b1", "zone-b"}}) {
    out += "apiVersion: v1\nkind: Node\nmetadata:\n  name: " + name +
           "\n  labels: {kubernetes.io/hostname: " + name +
           ", topology.kubernetes.io/zone: " + zone +
           "}\nstatus:\n  allocatable: {cpu: \"4\", memory: 4000Mi, pods: \"110\"}\n---\n";
  }
  return out;
}

// A pod requesting 100m and 100Mi (so BalancedAllocation is 100 everywhere and
// NodeResourcesFit's LeastAllocated is floor(100 - 2.5 * pods on the node, this one included)).
// extra: more metadata (one line, two spaces in) and spec lines.
std::string pod(const std::string& name, const std::string& ns, const std::string& labels,
                const std::string& node, const std::string& metadata = "",
                const std::string& spec = "") {
  std::string p = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: " + name + "\n  namespace: " + ns +
                  "\n  labels: " + labels + "\n" + metadata + "spec:\n";
  if (!node.empty()) p += "  nodeName: " + node + "\n";
  p += spec;
  p += "  containers:\n  - name: c\n    image: nginx\n"
       "    resources: {requests: {cpu: 100m, memory: 100Mi}}\n---\n";
  return p;
}

// A pod of ReplicaSet web.
std::string web_pod(const std::string& name, const std::string& node) {
  return pod(name, "default", "{app: web}", node,
             "  ownerReferences:\n  - {apiVersion: apps/v1, kind: ReplicaSet, name: web, uid: "
             "uid-web, controller: true}\n");
}

// The ReplicaSet, three of its pods on node-a2, pods it does not select on node-a1 (another app;
// app=web in another namespace) and node-b1, and four more of its pods pending.
std::string replica_set_cluster() {
  std::string out = nodes();
  out +=
      "apiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {name: web, namespace: default, uid: "
      "uid-web}\nspec:\n  replicas: 7\n  selector: {matchLabels: {app: web}}\n  template:\n"
      "    metadata: {labels: {app: web}}\n    spec: {containers: [{name: c, image: nginx}]}\n"
      "---\n";
  for (int i = 0; i < 3; ++i)
    out += web_pod("web-" + std::to_string(i), "node-a2");
  out += pod("cache-0", "default", "{app: cache}", "node-a1");
  out += pod("web-elsewhere", "other", "{app: web}", "node-a1");
  out += pod("db-0", "default", "{app: db}", "node-b1");
  for (int i = 3; i < 7; ++i)
    out += web_pod("web-" + std::to_string(i), "");
  return out;
}

struct Placement {
  std::string pod;
  std::string node;
  Json spread_scores;  // node -> PodTopologySpread's score, from --explain
};

// `schedhost run -o json --explain --seed 1` on the cluster with args; an arg "config:<text>" is
// the configuration (--config), configs/default-profile.yaml (upstream's default profile) when
// there is none. The pods in order.
std::vector<Placement> run(const std::string& cluster, const std::vector<std::string>& args) {
  testing::ScratchDir dir;
  std::vector<std::string> argv = {"run",    "--cluster", dir.write("cluster.yaml", cluster),
                                   "-o",     "json",      "--explain",
                                   "--seed", "1"};
  bool config = false;
  for (const std::string& a : args) {
    if (a.rfind("config:", 0) == 0) {
      argv.push_back("--config");
      argv.push_back(dir.write("config.yaml", a.substr(7)));
      config = true;
    } else {
      argv.push_back(a);
    }
  }
  if (!config) {
    argv.push_back("--config");
    argv.push_back(std::string(SCHEDHOST_SOURCE_DIR) + "/configs/default-profile.yaml");
  }
  const testing::ProcessResult r = testing::run_schedhost(argv);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  std::vector<Placement> out;
  if (r.exit_code != 0) return out;
  const Json result = Json::parse(r.out);
  for (const Json& p : result.at("pods")) {
    Placement placement{p.at("pod"), p.value("node", ""), Json::object()};
    EXPECT_EQ(p.at("result"), "Scheduled") << p.dump();
    for (const auto& [node, e] : p.at("explain").at("nodes").items()) {
      if (e.contains("scores"))
        placement.spread_scores[node] = e.at("scores").value("PodTopologySpread", -1);
    }
    out.push_back(std::move(placement));
  }
  return out;
}

std::vector<std::string> nodes_of(const std::vector<Placement>& placements) {
  std::vector<std::string> out;
  for (const Placement& p : placements)
    out.push_back(p.pod + " -> " + p.node);
  return out;
}

// The default profile (configs/default-profile.yaml): PodTopologySpread with defaultingType System,
// hostname maxSkew 3 and zone maxSkew 5, ScheduleAnyway, counting the pods ReplicaSet web's
// selector (app=web) matches in namespace default: node-a2 has 3, the others none (cache-0 is
// another app, web-elsewhere another namespace).
//
// upstream's Score: round(sum over constraints of count * ln(#domains + 2) + maxSkew - 1), the
// hostname weight ln(3 + 2) = 1.609 (3 feasible nodes), the zone weight ln(2 + 2) = 1.386;
// NormalizeScore: 100 * (max + min - score) / max. PodTopologySpread weighs 2 in the profile;
// NodeResourcesFit (weight 1) gives floor(100 - 2.5 * pods) with the incoming one (node-a1 has 2
// other pods, node-b1 1); the other scores are equal on every node.
//   web-3: counts a1 0, a2 3, b1 0; zones a 3, b 0. Raw a1 0 + 2 + 3*1.386 + 4 = 10.16 -> 10,
//     a2 3*1.609 + 2 + 4.159 + 4 = 14.99 -> 15, b1 2 + 0 + 4 = 6. Normalized (max 15, min 6):
//     a1 100*11/15 = 73, a2 100*6/15 = 40, b1 100. Totals a1 2*73 + 92 = 238, a2 80 + 90 = 170,
//     b1 200 + 95 = 295: node-b1 (fewest matching pods, alone in its zone).
//   web-4: b1 1, zone b 1. Raw a1 10, a2 15, b1 1.609 + 2 + 1.386 + 4 = 9.0 -> 9. Normalized
//     (15, 9): a1 100*14/15 = 93, a2 60, b1 100. Totals a1 186 + 92 = 278, a2 210, b1 200 + 92
//     = 292: node-b1 again (zone b still has 2 fewer).
//   web-5: b1 2, zone b 2. Raw a1 10, a2 15, b1 3.219 + 2 + 2.773 + 4 = 11.99 -> 12. Normalized
//     (15, 10): a1 100*15/15 = 100, a2 66, b1 100*13/15 = 86. Totals a1 200 + 92 = 292, a2 222,
//     b1 172 + 90 = 262: node-a1 (no matching pod on the node outweighs zone a's 3).
//   web-6: a1 1, zone a 4. Raw a1 1.609 + 2 + 5.545 + 4 = 13.15 -> 13, a2 4.828 + 2 + 5.545 + 4 =
//     16.37 -> 16, b1 12. Normalized (16, 12): a1 100*15/16 = 93, a2 75, b1 100. Totals a1 186 +
//     90 = 276, a2 240, b1 200 + 90 = 290: node-b1.
// Without default spreading (nothing selecting the pods) NodeResourcesFit alone would put web-3
// on node-b1, web-4 on node-a1, ...: the spread decides here.
TEST(DefaultSpreadingRun, SystemDefaultsSpreadTheReplicaSet) {
  const std::vector<std::string> expected = {"default/web-3 -> node-b1", "default/web-4 -> node-b1",
                                             "default/web-5 -> node-a1",
                                             "default/web-6 -> node-b1"};
  const std::vector<Json> spread = {{{"node-a1", 73}, {"node-a2", 40}, {"node-b1", 100}},
                                    {{"node-a1", 93}, {"node-a2", 60}, {"node-b1", 100}},
                                    {{"node-a1", 100}, {"node-a2", 66}, {"node-b1", 86}},
                                    {{"node-a1", 93}, {"node-a2", 75}, {"node-b1", 100}}};
  const std::string system =
      "config:apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
      "profiles:\n- schedulerName: default-scheduler\n  pluginConfig:\n"
      "  - name: PodTopologySpread\n    args: {defaultingType: System}\n";
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{}, std::vector<std::string>{system}}) {
    SCOPED_TRACE(args.empty() ? "configs/default-profile.yaml" : "defaultingType: System");
    const std::vector<Placement> placed = run(replica_set_cluster(), args);
    EXPECT_EQ(nodes_of(placed), expected);
    ASSERT_EQ(placed.size(), spread.size());
    for (std::size_t i = 0; i < placed.size(); ++i)
      EXPECT_EQ(placed[i].spread_scores, spread[i]) << placed[i].pod;
  }
}

// defaultingType List: zone maxSkew 1 DoNotSchedule and hostname maxSkew 1 ScheduleAnyway, with
// the ReplicaSet's selector. Zone a has 3 matching pods, zone b 0: web-3, web-4 and web-5 each
// fit only node-b1 (zone a: 3 + 1 - min > 1 while min < 3), and a single feasible node is
// taken without scoring (as upstream's schedulePod). For web-6 both zones have 3, every node fits;
// the hostname constraint alone scores (weight ln(3 + 2)): raw a1 0, a2 3*1.609 = 4.83 -> 5, b1 5;
// normalized (max 5, min 0) a1 100, a2 0, b1 0: node-a1 (totals a1 200 + 92, a2 0 + 90, b1 0 + 87).
TEST(DefaultSpreadingRun, ListDefaultConstraintsSpreadTheReplicaSet) {
  const std::string list =
      "config:apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
      "profiles:\n- schedulerName: default-scheduler\n  pluginConfig:\n"
      "  - name: PodTopologySpread\n    args:\n      defaultingType: List\n"
      "      defaultConstraints:\n"
      "      - {maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: "
      "DoNotSchedule}\n"
      "      - {maxSkew: 1, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: "
      "ScheduleAnyway}\n";
  const std::vector<Placement> placed = run(replica_set_cluster(), {list});
  EXPECT_EQ(nodes_of(placed),
            (std::vector<std::string>{"default/web-3 -> node-b1", "default/web-4 -> node-b1",
                                      "default/web-5 -> node-b1", "default/web-6 -> node-a1"}));
  ASSERT_EQ(placed.size(), 4U);
  for (std::size_t i = 0; i < 3; ++i)
    EXPECT_EQ(placed[i].spread_scores, Json::object()) << placed[i].pod;  // nothing scored
  EXPECT_EQ(placed[3].spread_scores, (Json{{"node-a1", 100}, {"node-a2", 0}, {"node-b1", 0}}));
}

// A pod spreading app=api over zones (maxSkew 1, DoNotSchedule) with matchLabelKeys [version].
// Running: app=api version=v1 on node-a1 (2 pods), app=api version=v2 on node-b1 (1 pod).
// Gate on (v1.35's default): the selector is app=api,version=v2, zone a 0, zone b 1: zone b would
// be 1 + 1 - 0 = 2 > 1, so zone a; node-a2 over node-a1 by NodeResourcesFit (97 against 92; the
// pod has its own constraints, none ScheduleAnyway, so PodTopologySpread does not score).
// Gate off: matchLabelKeys are ignored, app=api: zone a 2, zone b 1; zone a 2 + 1 - 1 = 2 > 1,
// zone b 1 + 1 - 1 = 1: node-b1.
TEST(DefaultSpreadingRun, MatchLabelKeysFeatureGate) {
  std::string cluster = nodes();
  cluster += pod("api-v1-0", "default", "{app: api, version: v1}", "node-a1");
  cluster += pod("api-v1-1", "default", "{app: api, version: v1}", "node-a1");
  cluster += pod("api-v2-0", "default", "{app: api, version: v2}", "node-b1");
  cluster += pod("api-v2-1", "default", "{app: api, version: v2}", "", "",
                 "  topologySpreadConstraints:\n"
                 "  - maxSkew: 1\n    topologyKey: topology.kubernetes.io/zone\n"
                 "    whenUnsatisfiable: DoNotSchedule\n"
                 "    labelSelector: {matchLabels: {app: api}}\n"
                 "    matchLabelKeys: [version]\n");
  EXPECT_EQ(nodes_of(run(cluster, {})), (std::vector<std::string>{"default/api-v2-1 -> node-a2"}));
  EXPECT_EQ(nodes_of(run(cluster, {"--feature-gates", "MatchLabelKeysInPodTopologySpread=true"})),
            (std::vector<std::string>{"default/api-v2-1 -> node-a2"}));
  EXPECT_EQ(nodes_of(run(cluster, {"--feature-gates", "MatchLabelKeysInPodTopologySpread=false"})),
            (std::vector<std::string>{"default/api-v2-1 -> node-b1"}));
}

}  // namespace
}  // namespace schedhost
