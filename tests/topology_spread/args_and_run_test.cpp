// PodTopologySpread's args (upstream's ValidatePodTopologySpreadArgs messages), the SDK's
// topology helpers, and end-to-end `schedhost run`s: replicas spread across three zones, and
// pods with two constraints on one topology key (counted per constraint, as upstream 1.35).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <schedhost/k8s/label_selector.hpp>
#include <schedhost/k8s/topology.hpp>

#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "support/fixtures.hpp"
#include "support/process.hpp"
#include "topology_spread_runner.hpp"

namespace schedhost {
namespace {

using ::testing::HasSubstr;
using testing::Json;
using testing::PluginHarness;

class PodTopologySpreadArgs : public ::testing::Test {
 protected:
  std::string error(const Json& args) {
    return harness_.create_error("PodTopologySpread", args.dump());
  }
  PluginHarness harness_{"pod_topology_spread.so"};
};

// `schedhost run -o json --seed 1` with the default profile on the cluster text.
Json run_default_profile(const testing::ScratchDir& dir, const std::string& cluster) {
  const testing::ProcessResult r = testing::run_schedhost(
      {"run", "--config", std::string(SCHEDHOST_SOURCE_DIR) + "/configs/default-profile.yaml",
       "--cluster", dir.write("cluster.yaml", cluster), "-o", "json", "--seed", "1"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.exit_code == 0 ? Json::parse(r.out) : Json{{"pods", Json::array()}};
}

Json constraint(const Json& max_skew, const char* key, const char* when) {
  Json c = Json::object();
  if (!max_skew.is_null()) c["maxSkew"] = max_skew;
  if (key != nullptr) c["topologyKey"] = key;
  if (when != nullptr) c["whenUnsatisfiable"] = when;
  return c;
}

TEST_F(PodTopologySpreadArgs, AcceptsUpstreamArgs) {
  EXPECT_EQ(error(Json::object()), "<no error>");
  EXPECT_EQ(error({{"defaultingType", "System"}}), "<no error>");
  EXPECT_EQ(error({{"apiVersion", "kubescheduler.config.k8s.io/v1"},
                   {"kind", "PodTopologySpreadArgs"},
                   {"defaultingType", "List"},
                   {"defaultConstraints",
                    {constraint(1, "zone", "DoNotSchedule"),
                     constraint(3, "kubernetes.io/hostname", "ScheduleAnyway"),
                     constraint(2, "zone", "ScheduleAnyway")}}}),
            "<no error>");
  EXPECT_EQ(error({{"defaultingType", "List"}}), "<no error>");
}

TEST_F(PodTopologySpreadArgs, RefusesWithUpstreamMessages) {
  const std::string p = "plugin \"PodTopologySpread\": ";
  EXPECT_EQ(error({{"defaultingType", "Foo"}}),
            p + "defaultingType: Unsupported value: \"Foo\": supported values: \"System\", "
                "\"List\"");
  EXPECT_EQ(error({{"defaultConstraints", {constraint(1, "zone", "DoNotSchedule")}}}),
            p + "defaultingType: Invalid value: \"System\": when .defaultConstraints are not "
                "empty");
  EXPECT_EQ(error({{"defaultingType", "List"},
                   {"defaultConstraints", {constraint(-1, "zone", "DoNotSchedule")}}}),
            p + "defaultConstraints[0].maxSkew: Invalid value: -1: not in valid range (0, inf)");
  EXPECT_EQ(error({{"defaultingType", "List"},
                   {"defaultConstraints", {constraint(1, nullptr, "DoNotSchedule")}}}),
            p + "defaultConstraints[0].topologyKey: Required value: can not be empty");
  EXPECT_EQ(
      error({{"defaultingType", "List"}, {"defaultConstraints", {constraint(1, "zone", nullptr)}}}),
      p + "defaultConstraints[0].whenUnsatisfiable: Required value: can not be empty");
  EXPECT_EQ(error({{"defaultingType", "List"},
                   {"defaultConstraints", {constraint(1, "zone", "Sometimes")}}}),
            p + "defaultConstraints[0].whenUnsatisfiable: Unsupported value: \"Sometimes\": "
                "supported values: \"DoNotSchedule\", \"ScheduleAnyway\"");
  Json with_selector = constraint(1, "zone", "DoNotSchedule");
  with_selector["labelSelector"] = {{"matchLabels", {{"app", "web"}}}};
  EXPECT_EQ(error({{"defaultingType", "List"}, {"defaultConstraints", {with_selector}}}),
            p + "defaultConstraints[0].labelSelector: Forbidden: constraint must not define a "
                "selector, as they deduced for each pod");
  EXPECT_EQ(
      error({{"defaultingType", "List"},
             {"defaultConstraints",
              {constraint(1, "zone", "DoNotSchedule"), constraint(2, "zone", "DoNotSchedule")}}}),
      p + "defaultConstraints[1]: Duplicate value: \"{zone, DoNotSchedule}\"");
  EXPECT_THAT(error({{"defaultingType", "List"},
                     {"defaultConstraints", {constraint(1, "a/b/c", "DoNotSchedule")}}}),
              HasSubstr(p + "defaultConstraints[0].topologyKey: Invalid value: \"a/b/c\": a "
                            "qualified name must consist of"));
  // Several problems at once: aggregated, in upstream's order.
  EXPECT_EQ(error({{"defaultingType", "System"},
                   {"defaultConstraints", {constraint(0, "", "Sometimes")}}}),
            p + "[defaultingType: Invalid value: \"System\": when .defaultConstraints are not "
                "empty, defaultConstraints[0].maxSkew: Invalid value: 0: not in valid range (0, "
                "inf), defaultConstraints[0].topologyKey: Required value: can not be empty, "
                "defaultConstraints[0].whenUnsatisfiable: Unsupported value: \"Sometimes\": "
                "supported values: \"DoNotSchedule\", \"ScheduleAnyway\"]");
  // Shapes the API would refuse.
  EXPECT_EQ(error({{"defaultingTyp", "List"}}),
            p + "unknown field \"defaultingTyp\": PodTopologySpread args have defaultingType "
                "and defaultConstraints");
  EXPECT_EQ(error({{"defaultingType", 1}}), p + "defaultingType: must be a string, got 1");
  EXPECT_EQ(error({{"defaultingType", "List"}, {"defaultConstraints", {{{"maxSkew", "1"}}}}}),
            p + "defaultConstraints[0].maxSkew: must be an integer, got \"1\"");
}

// ---- sdk/include/schedhost/k8s/topology.hpp on plain types -------------------------------

struct FakePod {
  std::map<std::string, std::string> labels;
  std::string ns;
  bool deleting = false;
  std::optional<std::string_view> label(std::string_view k) const {
    const auto it = labels.find(std::string(k));
    if (it == labels.end()) return std::nullopt;
    return std::string_view(it->second);
  }
  std::string_view namespace_name() const { return ns; }
  bool terminating() const { return deleting; }
};

struct FakeNode {
  std::map<std::string, std::string> labels;
  std::vector<FakePod> pod_list;
  std::optional<std::string_view> label(std::string_view k) const {
    const auto it = labels.find(std::string(k));
    if (it == labels.end()) return std::nullopt;
    return std::string_view(it->second);
  }
  const std::vector<FakePod>& pods() const { return pod_list; }
};

TEST(TopologyHelpers, PairsKeysAndCounts) {
  namespace k8s = schedhost::k8s;
  const FakePod web{{{"app", "web"}}, "prod"};
  const FakePod web_other_ns{{{"app", "web"}}, "dev"};
  const FakePod web_deleting{{{"app", "web"}}, "prod", true};
  const FakePod db{{{"app", "db"}}, "prod"};
  const std::vector<FakeNode> nodes = {
      {{{k8s::kLabelTopologyZone.data(), "z1"}, {"kubernetes.io/hostname", "n1"}}, {web, web, db}},
      {{{k8s::kLabelTopologyZone.data(), "z1"}}, {web, web_other_ns, web_deleting}},
      {{{k8s::kLabelTopologyZone.data(), "z2"}}, {db}},
      {{}, {web, web}}};
  EXPECT_EQ(k8s::topology_pair(nodes[0], k8s::kLabelTopologyZone),
            (k8s::TopologyPair{"topology.kubernetes.io/zone", "z1"}));
  EXPECT_EQ(k8s::topology_pair(nodes[3], k8s::kLabelTopologyZone), std::nullopt);
  const std::vector<std::string> keys = {"topology.kubernetes.io/zone", "kubernetes.io/hostname"};
  EXPECT_TRUE(k8s::has_all_topology_keys(nodes[0], keys));
  EXPECT_FALSE(k8s::has_all_topology_keys(nodes[1], keys));

  const auto selector = k8s::LabelSelector::parse(Json{{"matchLabels", {{"app", "web"}}}});
  EXPECT_EQ(k8s::count_matching_pods(nodes[1].pods(), selector, "prod"), 1);
  const auto per_zone =
      k8s::count_pods_per_domain(nodes, k8s::kLabelTopologyZone, selector, "prod");
  EXPECT_EQ(per_zone, (std::map<std::string, int, std::less<>>{{"z1", 3}, {"z2", 0}}));
  const auto only_first = k8s::count_pods_per_domain(
      nodes, k8s::kLabelTopologyZone, selector, "prod",
      [](const FakeNode& n) { return n.label("kubernetes.io/hostname").has_value(); });
  EXPECT_EQ(only_first, (std::map<std::string, int, std::less<>>{{"z1", 2}}));
}

// ---- end to end ------------------------------------------------------------------------

TEST(PodTopologySpreadRun, SpreadsReplicasAcrossThreeZones) {
  testing::ScratchDir dir;
  std::string cluster;
  for (const char* zone : {"a", "b", "c"}) {
    for (int i = 1; i <= 2; ++i) {
      const std::string name = std::string("node-") + zone + std::to_string(i);
      cluster += "apiVersion: v1\nkind: Node\nmetadata:\n  name: ";
      cluster += name;
      cluster += "\n  labels:\n    kubernetes.io/hostname: ";
      cluster += name;
      cluster += "\n    topology.kubernetes.io/zone: zone-";
      cluster += zone;
      cluster += "\nstatus:\n  allocatable: {cpu: \"4\", memory: 8Gi, pods: \"110\"}\n---\n";
    }
  }
  auto pod = [](const std::string& name, const std::string& node) {
    std::string p = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: " + name +
                    "\n  namespace: default\n  labels: {app: web}\nspec:\n";
    if (!node.empty()) p += "  nodeName: " + node + "\n";
    p += "  topologySpreadConstraints:\n"
         "  - maxSkew: 1\n    topologyKey: topology.kubernetes.io/zone\n"
         "    whenUnsatisfiable: DoNotSchedule\n    labelSelector: {matchLabels: {app: web}}\n"
         "  containers:\n  - name: c\n    image: nginx\n"
         "    resources: {requests: {cpu: 100m, memory: 64Mi}}\n---\n";
    return p;
  };
  // Two replicas already run in zone-a; seven more are pending. Each can only go to a zone with
  // the fewest replicas (count + 1 - min <= maxSkew 1), so they end up 3/3/3.
  cluster += pod("web-0", "node-a1") + pod("web-1", "node-a2");
  for (int i = 2; i <= 8; ++i)
    cluster += pod("web-" + std::to_string(i), "");
  // A pod of another namespace does not count against the web replicas.
  cluster +=
      "apiVersion: v1\nkind: Pod\nmetadata: {name: other, namespace: other, labels: {app: web}}\n"
      "spec:\n  nodeName: node-b1\n  containers: [{name: c, image: nginx}]\n";
  // A pod spreading over a key no node has fits nowhere.
  cluster +=
      "---\napiVersion: v1\nkind: Pod\nmetadata: {name: racked, namespace: default}\nspec:\n"
      "  topologySpreadConstraints:\n"
      "  - {maxSkew: 1, topologyKey: rack, whenUnsatisfiable: DoNotSchedule, labelSelector: {}}\n"
      "  containers: [{name: c, image: nginx}]\n";
  const Json out = run_default_profile(dir, cluster);
  std::map<std::string, int> per_zone = {{"zone-a", 2}};
  int scheduled = 0;
  for (const Json& p : out.at("pods")) {
    if (p.at("pod") == "default/racked") {
      EXPECT_EQ(p.at("result"), "Unschedulable");
      EXPECT_EQ(p.at("message"),
                "0/6 nodes are available: 6 node(s) didn't match pod topology spread constraints "
                "(missing required label). no new claims to deallocate, preemption: 0/6 nodes are "
                "available: 6 Preemption is "
                "not helpful for scheduling.");
      continue;
    }
    ASSERT_EQ(p.at("result"), "Scheduled") << p.dump();
    const std::string node = p.at("node").get<std::string>();
    ++per_zone["zone-" + node.substr(5, 1)];
    ++scheduled;
  }
  EXPECT_EQ(scheduled, 7);
  EXPECT_EQ(per_zone, (std::map<std::string, int>{{"zone-a", 3}, {"zone-b", 3}, {"zone-c", 3}}));
  EXPECT_EQ(out.at("summary").at("scheduled"), 7);
  EXPECT_EQ(out.at("summary").at("unschedulable"), 1);
}

// Two DoNotSchedule constraints on topology.kubernetes.io/zone with different selectors. Counted
// per constraint (upstream 1.35), app=a is 2/0 over z1/z2 and app=b 0/2: the pod (app=a) would
// skew app=a in z1 (2 + 1 - 0 > 1) and app=b in z2 (2 + 0 - 0 > 1), so it fits nowhere. The real
// kube-scheduler v1.35.4 leaves it unschedulable with "0/2 nodes are available: 2 node(s) didn't
// match pod topology spread constraints." 1.28's one count per key (the last constraint's,
// app=b: 0/2) let it bind to z1.
TEST(PodTopologySpreadRun, TwoDoNotScheduleConstraintsOnTheZoneKeyAreCheckedEachOnItsOwn) {
  testing::ScratchDir dir;
  std::string cluster;
  for (const char* zone : {"z1", "z2"}) {
    cluster += std::string("apiVersion: v1\nkind: Node\nmetadata: {name: ") + zone +
               ", labels: {kubernetes.io/hostname: " + zone +
               ", topology.kubernetes.io/zone: " + zone +
               "}}\nstatus: {allocatable: {cpu: \"4\", memory: 4Gi, pods: \"110\"}, capacity: "
               "{cpu: \"4\", memory: 4Gi, pods: \"110\"}}\n---\n";
  }
  for (const char* name : {"a1", "a2", "b1", "b2"}) {
    cluster += std::string("apiVersion: v1\nkind: Pod\nmetadata: {name: ") + name +
               ", namespace: default, labels: {app: " + std::string(1, name[0]) +
               "}}\nspec: {nodeName: " + (name[0] == 'a' ? "z1" : "z2") +
               ", containers: [{name: c, image: x}]}\n---\n";
  }
  cluster +=
      "apiVersion: v1\nkind: Pod\nmetadata: {name: spread-dup-key, namespace: default, labels: "
      "{app: a}}\nspec:\n  topologySpreadConstraints:\n"
      "  - {maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: "
      "DoNotSchedule, labelSelector: {matchLabels: {app: a}}}\n"
      "  - {maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: "
      "DoNotSchedule, labelSelector: {matchLabels: {app: b}}}\n"
      "  containers: [{name: c, image: x}]\n";
  const Json out = run_default_profile(dir, cluster);
  ASSERT_EQ(out.at("pods").size(), 1U) << out.dump();
  const Json& pod = out.at("pods")[0];
  EXPECT_EQ(pod.at("pod"), "default/spread-dup-key");
  EXPECT_EQ(pod.at("result"), "Unschedulable") << pod.dump();
  // A plain Unschedulable: preemption tries both nodes and finds no lower-priority pod.
  EXPECT_EQ(pod.at("message"),
            "0/2 nodes are available: 2 node(s) didn't match pod topology spread constraints. no "
            "new claims to deallocate, preemption: 0/2 nodes are available: 2 No preemption "
            "victims found for incoming pod.");
  EXPECT_EQ(out.at("summary").at("unschedulable"), 1);
}

// Pods with hard and soft constraints sharing the zone key, scheduled one after the other: the
// per-constraint counts kept from pod to pod and caught up from the snapshot's journal decide
// exactly what recounting everything for each pod decides (a host without the journal,
// SCHEDHOST_EMULATE_ABI_MINOR=1). With maxSkew 1 for app=a and 2 for app=b, 31 of the 40
// pending pods bind before the cpu runs out; with 1 and 1 the spread constraints leave 38
// unschedulable. (The real kube-scheduler v1.35.4 binds the same pods of this cluster.)
TEST(PodTopologySpreadRun, KeptPerConstraintCountsDecideAsARecount) {
  auto cluster = [](int skew_a, int skew_b) {
    std::string out;
    for (int i = 0; i < 9; ++i) {
      const std::string name = "node-" + std::to_string(i);
      out += "apiVersion: v1\nkind: Node\nmetadata: {name: ";
      out += name;
      out += ", labels: {kubernetes.io/hostname: ";
      out += name;
      out += ", topology.kubernetes.io/zone: zone-";
      out += std::to_string(i % 3);
      out += "}}\nstatus: {allocatable: {cpu: \"2\", memory: 8Gi, pods: \"110\"}}\n---\n";
    }
    // A pinned pod asks for zone-0 and counts every zone (nodeAffinityPolicy Ignore).
    auto pod = [&](const std::string& name, const char* app, const std::string& node, bool pinned) {
      std::string p = "apiVersion: v1\nkind: Pod\nmetadata: {name: " + name +
                      ", namespace: shop, labels: {app: " + app + "}}\nspec:\n";
      if (!node.empty()) p += "  nodeName: " + node + "\n";
      if (pinned) p += "  nodeSelector: {topology.kubernetes.io/zone: zone-0}\n";
      p += "  topologySpreadConstraints:\n";
      for (const auto& [selected, skew] : {std::pair{"a", skew_a}, std::pair{"b", skew_b}}) {
        p += "  - {maxSkew: " + std::to_string(skew) +
             ", topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule, "
             "labelSelector: {matchLabels: {app: " +
             selected + "}}" + (pinned ? ", nodeAffinityPolicy: Ignore" : "") + "}\n";
        p += std::string(
                 "  - {maxSkew: 1, topologyKey: topology.kubernetes.io/zone, "
                 "whenUnsatisfiable: ScheduleAnyway, labelSelector: {matchLabels: {app: ") +
             selected + "}}}\n";
      }
      p += "  containers: [{name: c, image: x, resources: {requests: {cpu: 500m}}}]\n---\n";
      return p;
    };
    // app=a starts 3/0/0 over the zones, app=b 0/0/2.
    out += pod("a-0", "a", "node-0", false) + pod("a-1", "a", "node-3", false) +
           pod("a-2", "a", "node-6", false) + pod("b-0", "b", "node-2", false) +
           pod("b-1", "b", "node-5", false);
    for (int i = 0; i < 40; ++i) {
      out += pod("pending-" + std::to_string(i), i % 3 == 2 ? "b" : "a", "", i % 4 == 3);
    }
    return out;
  };
  struct Variant {
    int skew_a;
    int skew_b;
    int scheduled;
  };
  for (const Variant& v : {Variant{1, 2, 31}, Variant{1, 1, 2}}) {
    const auto [skew_a, skew_b, scheduled] = v;
    SCOPED_TRACE("maxSkew " + std::to_string(skew_a) + "/" + std::to_string(skew_b));
    testing::ScratchDir dir;
    const std::string cluster_path = dir.file("cluster.yaml");
    std::ofstream(cluster_path) << cluster(skew_a, skew_b);
    const std::vector<std::string> args = {
        "run",
        "--config",
        std::string(SCHEDHOST_SOURCE_DIR) + "/configs/default-profile.yaml",
        "--cluster",
        cluster_path,
        "-o",
        "json",
        "--explain",
        "--seed",
        "1"};
    const testing::ProcessResult kept = testing::run_schedhost(args);
    const testing::ProcessResult recounted =
        testing::run_schedhost(args, {"SCHEDHOST_EMULATE_ABI_MINOR=1"});
    ASSERT_EQ(kept.exit_code, 0) << kept.err;
    ASSERT_EQ(recounted.exit_code, 0) << recounted.err;
    const Json out = Json::parse(kept.out);
    EXPECT_EQ(out, Json::parse(recounted.out));
    EXPECT_EQ(out.at("summary").at("scheduled"), scheduled);
    EXPECT_EQ(out.at("summary").at("unschedulable"), 40 - scheduled);
  }
}

}  // namespace
}  // namespace schedhost
