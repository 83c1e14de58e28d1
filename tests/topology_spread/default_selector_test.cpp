// The selector PodTopologySpread's default constraints count with: the SDK's
// k8s::default_selector (sdk/include/schedhost/k8s/default_selector.hpp, upstream's
// helper.DefaultSelector and GetPodServices in pkg/scheduler/framework/plugins/helper/spread.go)
// over the fake host's objects, printed as upstream's labels.Selector.String() prints it; then
// the real pod_topology_spread.so on the fake host: which pods its default constraints count,
// when they apply at all, the queueing hint, and the MatchLabelKeysInPodTopologySpread gate.
#include <gtest/gtest.h>
#include <schedhost/k8s/default_selector.hpp>
#include <schedhost/testing.hpp>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "plugins/plugin_harness.hpp"

namespace schedhost::testing {
namespace {

namespace k8s = schedhost::k8s;
using nlohmann::json;

// labels.Requirement.String(), joined by "," as labels.internalSelector.String() does (requirements
// sorted by key); "<everything>" for the empty selector, "<nothing>" for labels.Nothing().
std::string describe(const k8s::LabelSelector& s) {
  if (s.matches_nothing()) return "<nothing>";
  if (s.matches_everything()) return "<everything>";
  std::string out;
  for (const k8s::Requirement& r : s.requirements()) {
    if (!out.empty()) out += ",";
    std::string values;
    for (const std::string& v : r.values())
      values += (values.empty() ? "" : ",") + v;
    switch (r.op()) {
      case k8s::Operator::Equals:
        out += r.key() + "=" + values;
        break;
      case k8s::Operator::In:
        out += r.key() + " in (" + values + ")";
        break;
      case k8s::Operator::NotIn:
        out += r.key() + " notin (" + values + ")";
        break;
      case k8s::Operator::Exists:
        out += r.key();
        break;
      case k8s::Operator::DoesNotExist:
        out += "!" + r.key();
        break;
      case k8s::Operator::Gt:
        out += r.key() + ">" + values;
        break;
      case k8s::Operator::Lt:
        out += r.key() + "<" + values;
        break;
    }
  }
  return out;
}

json metadata(const std::string& name, const std::string& ns) {
  return {{"name", name}, {"namespace", ns}, {"uid", "uid-" + name}};
}

// A Service; selector "absent" leaves spec.selector out.
json service(const std::string& name, const json& selector, const std::string& ns = "default") {
  json spec = json::object();
  if (selector != "absent") spec["selector"] = selector;
  return {
      {"apiVersion", "v1"}, {"kind", "Service"}, {"metadata", metadata(name, ns)}, {"spec", spec}};
}

json replication_controller(const std::string& name, const json& selector,
                            const std::string& ns = "default") {
  return {{"apiVersion", "v1"},
          {"kind", "ReplicationController"},
          {"metadata", metadata(name, ns)},
          {"spec", {{"selector", selector}}}};
}

// A ReplicaSet or StatefulSet (kind) with spec.selector (a metav1.LabelSelector).
json workload(const std::string& kind, const std::string& name, const json& selector,
              const std::string& ns = "default") {
  json spec = json::object();
  if (selector != "absent") spec["selector"] = selector;
  return {
      {"apiVersion", "apps/v1"}, {"kind", kind}, {"metadata", metadata(name, ns)}, {"spec", spec}};
}

json owner(const std::string& api_version, const std::string& kind, const std::string& name,
           const json& controller = true) {
  json o = {{"apiVersion", api_version}, {"kind", kind}, {"name", name}, {"uid", "uid-" + name}};
  if (!controller.is_null()) o["controller"] = controller;
  return o;
}

FakePod web_pod(const std::string& name = "web-1", const std::string& ns = "default") {
  return FakePod(name, ns).label("app", "web").label("tier", "fe").label("pod-template-hash", "7c");
}

FakePod owned(FakePod pod, json owners) {
  return pod.json("/metadata/ownerReferences", std::move(owners));
}

// The fake host's snapshot, and default_selector / pod_services over it as a plugin sees them.
class Selector : public ::testing::Test {
 protected:
  std::string selector_of(const FakePod& pod) {
    detail::CallRecord call{&host_, "test", {}, {}, {}, {}, true};
    const Context ctx(host_.api(), call.handle());
    return describe(k8s::default_selector(ctx, Pod(host_.api(), host_.keep_pod(pod))));
  }
  std::vector<std::string> services_of(const FakePod& pod) {
    detail::CallRecord call{&host_, "test", {}, {}, {}, {}, true};
    const Context ctx(host_.api(), call.handle());
    std::vector<std::string> names;
    for (const Object& s : k8s::pod_services(ctx, Pod(host_.api(), host_.keep_pod(pod))))
      names.emplace_back(s.name());
    return names;
  }
  FakeHost host_;
};

TEST_F(Selector, NothingSelectsThePod) {
  EXPECT_EQ(selector_of(web_pod()), "<everything>");
}

TEST_F(Selector, ServiceMatchingThePodsLabels) {
  host_.add_object("Service", service("web", {{"app", "web"}}));
  EXPECT_EQ(services_of(web_pod()), (std::vector<std::string>{"web"}));
  EXPECT_EQ(selector_of(web_pod()), "app=web");
}

TEST_F(Selector, ServiceNotMatchingThePod) {
  host_.add_object("Service", service("web", {{"app", "web"}, {"tier", "be"}}));
  host_.add_object("Service", service("db", {{"app", "db"}}));
  EXPECT_EQ(services_of(web_pod()), std::vector<std::string>{});
  EXPECT_EQ(selector_of(web_pod()), "<everything>");
}

TEST_F(Selector, ServiceOfAnotherNamespace) {
  host_.add_object("Service", service("web", {{"app", "web"}}, "prod"));
  EXPECT_EQ(selector_of(web_pod()), "<everything>");
  EXPECT_EQ(selector_of(web_pod("web-1", "prod")), "app=web");
}

// Go decodes a missing or null spec.selector as a nil map: such a Service selects nothing and is
// skipped. {} is an empty map: it selects every pod (GetPodServices returns it) but adds no label.
TEST_F(Selector, NilAndEmptyServiceSelectors) {
  host_.add_object("Service", service("a-absent", "absent"));
  host_.add_object("Service", service("b-null", nullptr));
  host_.add_object("Service", service("c-empty", json::object()));
  EXPECT_EQ(services_of(web_pod()), (std::vector<std::string>{"c-empty"}));
  EXPECT_EQ(services_of(FakePod("bare")), (std::vector<std::string>{"c-empty"}));
  EXPECT_EQ(selector_of(web_pod()), "<everything>");
  host_.add_object("Service", service("d-tier", {{"tier", "fe"}}));
  EXPECT_EQ(services_of(web_pod()), (std::vector<std::string>{"c-empty", "d-tier"}));
  EXPECT_EQ(selector_of(web_pod()), "tier=fe");
}

TEST_F(Selector, ServicesMergeIntoOneLabelSet) {
  host_.add_object("Service", service("web", {{"app", "web"}}));
  host_.add_object("Service", service("web-fe", {{"app", "web"}, {"tier", "fe"}}));
  EXPECT_EQ(selector_of(web_pod()), "app=web,tier=fe");
}

// The controller's selector is not checked against the pod's labels (upstream does not).
TEST_F(Selector, ReplicationControllerOwner) {
  host_.add_object("ReplicationController",
                   replication_controller("rc", {{"app", "web"}, {"release", "r1"}}));
  EXPECT_EQ(selector_of(owned(web_pod(), {owner("v1", "ReplicationController", "rc")})),
            "app=web,release=r1");
  // With a Service: its labels and the controller's in one set.
  host_.add_object("Service", service("fe", {{"tier", "fe"}}));
  EXPECT_EQ(selector_of(owned(web_pod(), {owner("v1", "ReplicationController", "rc")})),
            "app=web,release=r1,tier=fe");
  // schema.ParseGroupVersion reads "/v1" as the core group's v1.
  EXPECT_EQ(selector_of(owned(web_pod(), {owner("/v1", "ReplicationController", "rc")})),
            "app=web,release=r1,tier=fe");
  // A null selector merges nothing.
  host_.add_object("ReplicationController", replication_controller("rc-null", nullptr));
  EXPECT_EQ(selector_of(owned(web_pod(), {owner("v1", "ReplicationController", "rc-null")})),
            "tier=fe");
}

TEST_F(Selector, ReplicaSetOwnerMatchLabelsAndMatchExpressions) {
  host_.add_object("apps/ReplicaSet",
                   workload("ReplicaSet", "web-7c",
                            {{"matchLabels", {{"app", "web"}, {"pod-template-hash", "7c"}}},
                             {"matchExpressions",
                              {{{"key", "tier"}, {"operator", "In"}, {"values", {"fe", "be"}}},
                               {{"key", "canary"}, {"operator", "DoesNotExist"}},
                               {{"key", "zone"}, {"operator", "NotIn"}, {"values", {"z9"}}},
                               {{"key", "app"}, {"operator", "Exists"}}}}}));
  EXPECT_EQ(selector_of(owned(web_pod(), {owner("apps/v1", "ReplicaSet", "web-7c")})),
            "app=web,app,!canary,pod-template-hash=7c,tier in (be,fe),zone notin (z9)");
}

TEST_F(Selector, StatefulSetOwner) {
  host_.add_object(
      "apps/StatefulSet",
      workload("StatefulSet", "db",
               {{"matchExpressions", {{{"key", "app"}, {"operator", "In"}, {"values", {"db"}}}}}}));
  EXPECT_EQ(selector_of(
                owned(FakePod("db-0").label("app", "db"), {owner("apps/v1", "StatefulSet", "db")})),
            "app in (db)");
}

// Only the owner with controller: true counts, and only the first such one.
TEST_F(Selector, OnlyTheControllerOwnerCounts) {
  host_.add_object("apps/ReplicaSet",
                   workload("ReplicaSet", "a", {{"matchLabels", {{"app", "web"}}}}));
  host_.add_object("apps/ReplicaSet",
                   workload("ReplicaSet", "b", {{"matchLabels", {{"tier", "fe"}}}}));
  EXPECT_EQ(selector_of(owned(web_pod(), {owner("apps/v1", "ReplicaSet", "a", false)})),
            "<everything>");
  EXPECT_EQ(selector_of(owned(web_pod(), {owner("apps/v1", "ReplicaSet", "a", nullptr)})),
            "<everything>");
  EXPECT_EQ(selector_of(owned(web_pod(), {owner("apps/v1", "ReplicaSet", "a", false),
                                          owner("apps/v1", "ReplicaSet", "b")})),
            "tier=fe");
  EXPECT_EQ(selector_of(owned(web_pod(), {owner("apps/v1", "ReplicaSet", "b"),
                                          owner("apps/v1", "ReplicaSet", "a")})),
            "tier=fe");
}

// Kinds upstream does not know, and apiVersions other than the controllers' own.
TEST_F(Selector, OtherKindsAndVersionsAreIgnored) {
  host_.add_object("Service", service("web", {{"app", "web"}}));
  host_.add_object("apps/ReplicaSet",
                   workload("ReplicaSet", "rs", {{"matchLabels", {{"tier", "fe"}}}}));
  EXPECT_EQ(selector_of(owned(web_pod(), {owner("apps/v1", "ReplicaSet", "rs")})),
            "app=web,tier=fe");
  for (const auto& [api_version, kind] :
       std::vector<std::pair<std::string, std::string>>{{"apps/v1beta2", "ReplicaSet"},
                                                        {"extensions/v1beta1", "ReplicaSet"},
                                                        {"v1", "ReplicaSet"},
                                                        {"apps/v1", "replicaset"},
                                                        {"apps/v1", "Deployment"},
                                                        {"batch/v1", "Job"},
                                                        {"a/b/c", "ReplicaSet"}}) {
    EXPECT_EQ(selector_of(owned(web_pod(), {owner(api_version, kind, "rs")})), "app=web")
        << api_version << " " << kind;
  }
}

// An owner that is not in the snapshot (or in another namespace) adds nothing.
TEST_F(Selector, MissingOwnerObject) {
  host_.add_object("Service", service("web", {{"app", "web"}}));
  host_.add_object("apps/ReplicaSet",
                   workload("ReplicaSet", "rs", {{"matchLabels", {{"tier", "fe"}}}}, "prod"));
  EXPECT_EQ(selector_of(owned(web_pod(), {owner("apps/v1", "ReplicaSet", "rs")})), "app=web");
  EXPECT_EQ(selector_of(owned(web_pod(), {owner("apps/v1", "StatefulSet", "rs")})), "app=web");
  EXPECT_EQ(selector_of(owned(web_pod(), {owner("v1", "ReplicationController", "rs")})), "app=web");
  EXPECT_EQ(selector_of(owned(FakePod("p"), {owner("apps/v1", "ReplicaSet", "gone")})),
            "<everything>");
}

// A workload's nil selector (labels.Nothing(): no requirements to add), {} (labels.Everything())
// and one that does not parse add nothing to the Services' labels.
TEST_F(Selector, WorkloadSelectorsThatAddNothing) {
  host_.add_object("Service", service("web", {{"app", "web"}}));
  host_.add_object("apps/ReplicaSet", workload("ReplicaSet", "absent", "absent"));
  host_.add_object("apps/ReplicaSet", workload("ReplicaSet", "null", nullptr));
  host_.add_object("apps/ReplicaSet", workload("ReplicaSet", "empty", json::object()));
  host_.add_object(
      "apps/ReplicaSet",
      workload("ReplicaSet", "bad",
               {{"matchLabels", {{"tier", "fe"}}},
                {"matchExpressions", {{{"key", "app"}, {"operator", "Foo"}, {"values", {"x"}}}}}}));
  for (const char* name : {"absent", "null", "empty", "bad"}) {
    EXPECT_EQ(selector_of(owned(web_pod(), {owner("apps/v1", "ReplicaSet", name)})), "app=web")
        << name;
    EXPECT_EQ(selector_of(owned(FakePod("p"), {owner("apps/v1", "ReplicaSet", name)})),
              "<everything>")
        << name;
  }
}

// Services' labels, then the ReplicaSet's requirements added (a key both have appears twice, as
// in upstream's selector).
TEST_F(Selector, ServiceAndReplicaSetMerged) {
  host_.add_object("Service", service("web", {{"app", "web"}}));
  host_.add_object("Service", service("all", json::object()));
  host_.add_object("apps/ReplicaSet",
                   workload("ReplicaSet", "web-7c",
                            {{"matchLabels", {{"app", "web"}, {"pod-template-hash", "7c"}}},
                             {"matchExpressions", {{{"key", "tier"}, {"operator", "Exists"}}}}}));
  EXPECT_EQ(selector_of(owned(web_pod(), {owner("apps/v1", "ReplicaSet", "web-7c")})),
            "app=web,app=web,pod-template-hash=7c,tier");
}

TEST(DefaultSelectorHelpers, ParseGroupVersion) {
  using GV = k8s::GroupVersion;
  EXPECT_EQ(k8s::parse_group_version(""), GV{});
  EXPECT_EQ(k8s::parse_group_version("/"), GV{});
  EXPECT_EQ(k8s::parse_group_version("v1"), (GV{"", "v1"}));
  EXPECT_EQ(k8s::parse_group_version("/v1"), (GV{"", "v1"}));
  EXPECT_EQ(k8s::parse_group_version("apps/v1"), (GV{"apps", "v1"}));
  EXPECT_EQ(k8s::parse_group_version("apps/"), (GV{"apps", ""}));
  EXPECT_EQ(k8s::parse_group_version("a/b/c"), std::nullopt);
}

// ---- the plugin's default constraints, on the fake host ---------------------------------------

constexpr const char* kZone = "topology.kubernetes.io/zone";
constexpr const char* kHostname = "kubernetes.io/hostname";

FakeNode zone_node(const std::string& name, const std::string& zone) {
  return FakeNode(name).label(kHostname, name).label(kZone, zone).allocatable("pods", 110);
}

// pod_topology_spread.so on its own fake host: nodes n1, n2 in zone z1 and n3 in z2. Running:
// on n1 two app=web pods, on n2 one app=web pod of namespace "other" and one app=db pod, on n3
// one app=web,tier=be pod.
class DefaultConstraints : public ::testing::Test {
 protected:
  void SetUp() override {
    host_ =
        std::make_unique<FakeHost>(FakeHost::open_library(built_plugin("pod_topology_spread.so")));
    host_->add_node(zone_node("n1", "z1")
                        .pod(FakePod("w1").label("app", "web"))
                        .pod(FakePod("w2").label("app", "web")));
    host_->add_node(zone_node("n2", "z1")
                        .pod(FakePod("w3", "other").label("app", "web"))
                        .pod(FakePod("d1").label("app", "db")));
    host_->add_node(
        zone_node("n3", "z2").pod(FakePod("w4").label("app", "web").label("tier", "be")));
  }
  void TearDown() override {
    plugin_.reset();
    host_.reset();
  }
  FakePlugin& create(const json& args = json::object()) {
    plugin_ = std::make_unique<FakePlugin>(host_->create("PodTopologySpread", args.dump()));
    return *plugin_;
  }
  // PreScore over every node, then Score and NormalizeScore: "Skip" or the normalized scores.
  std::string scores(const FakePod& pod) {
    FakeCycleState state;
    const HookResult pre = plugin_->pre_score(state, pod);
    if (pre.code != Code::Success) {
      return to_string(pre.code) + (pre.reasons.empty() ? "" : " " + pre.message());
    }
    const HookResult r = plugin_->scores(state, pod);
    std::string out;
    for (const NodeScore& s : r.scores)
      out += (out.empty() ? "" : " ") + s.node + ":" + std::to_string(s.score);
    return out;
  }
  std::unique_ptr<FakeHost> host_;
  std::unique_ptr<FakePlugin> plugin_;
};

// System defaulting: hostname maxSkew 3, zone maxSkew 5, ScheduleAnyway, counting the pods of
// the pod's namespace that the deduced selector matches.
TEST_F(DefaultConstraints, SystemDefaultsCountWhatTheReplicaSetSelects) {
  create();
  const FakePod pod =
      owned(FakePod("new").label("app", "web"), {owner("apps/v1", "ReplicaSet", "web")});
  // Nothing selects the pod yet (its ReplicaSet is not in the snapshot): no default constraints.
  EXPECT_EQ(scores(pod), "Skip");
  FakeCycleState state;
  EXPECT_EQ(plugin_->pre_filter(state, pod).code, Code::Skip);  // no DoNotSchedule defaults

  host_->add_object("apps/ReplicaSet",
                    workload("ReplicaSet", "web", {{"matchLabels", {{"app", "web"}}}}));
  // app=web in "default": n1 2, n2 0 (w3 is in "other"), n3 1; zones z1 2, z2 1. Weights: ln(3 + 2)
  // for hostname (3 nodes), ln(2 + 2) for zone (2 zones). Raw (count * weight + maxSkew - 1):
  // n1 2*1.609+2 + 2*1.386+4 = 11.99 -> 12; n2 0+2 + 2.773+4 = 8.77 -> 9; n3 1.609+2 + 1.386+4 =
  // 8.996 -> 9. Normalized 100 * (max + min - s) / max: n1 100*9/12 = 75, n2 and n3 100*12/12.
  EXPECT_EQ(scores(pod), "n1:75 n2:100 n3:100");
  EXPECT_EQ(plugin_->pre_filter(state, pod).code, Code::Skip);

  // The ReplicaSet now selects app=web,tier=be (whatever the pod's own labels): only w4 counts.
  // Raw: n1 and n2 0 + 2 + 0 + 4 = 6 (zone z1 has none), n3 1.609 + 2 + 1.386 + 4 = 9.0 -> 9.
  // Normalized: n1, n2 100 * (9 + 6 - 6) / 9 = 100, n3 100 * 6 / 9 = 66.
  host_->add_object(
      "apps/ReplicaSet",
      workload("ReplicaSet", "web", {{"matchLabels", {{"app", "web"}, {"tier", "be"}}}}));
  EXPECT_EQ(scores(pod), "n1:100 n2:100 n3:66");

  // A Service selecting app=web, and a pod it selects without an owner: app=web again.
  host_->add_object("Service", service("web", {{"app", "web"}}));
  EXPECT_EQ(scores(FakePod("svc-only").label("app", "web")), "n1:75 n2:100 n3:100");
  // A Service of another namespace selects no pod of "default".
  host_->add_object("Service", service("db", {{"app", "db"}}, "other"));
  EXPECT_EQ(scores(FakePod("db-2").label("app", "db")), "Skip");
  EXPECT_EQ(scores(FakePod("db-2", "other").label("app", "db")), "n1:100 n2:100 n3:100");
}

// Nodes without a zone still get hostname spreading under the system defaults (upstream's
// requireAllTopologies is false), and are ignored under List defaulting.
TEST_F(DefaultConstraints, NodesWithoutZoneUnderSystemAndList) {
  host_->add_node(FakeNode("n4").label(kHostname, "n4").allocatable("pods", 110));
  host_->add_object("Service", service("web", {{"app", "web"}}));
  const FakePod pod = FakePod("new").label("app", "web");
  create();
  // Zone weight: the filtered nodes' zone values are z1, z2 and "" (n4): ln(3 + 2). Hostname:
  // ln(4 + 2). n1 2*1.792+2 + 2*1.609+4 = 12.80 -> 13; n2 0+2 + 3.219+4 = 9.22 -> 9; n3 1.792+2
  // + 1.609+4 = 9.40 -> 9; n4 (no zone label: the zone constraint adds nothing) 0+2 = 2.
  // Normalized: n1 100*(15-13)/13 = 15, n2 and n3 100*6/13 = 46, n4 100*13/13 = 100.
  EXPECT_EQ(scores(pod), "n1:15 n2:46 n3:46 n4:100");
  create({{"defaultingType", "List"},
          {"defaultConstraints",
           {{{"maxSkew", 1}, {"topologyKey", kZone}, {"whenUnsatisfiable", "ScheduleAnyway"}}}}});
  // Only the zone constraint, n4 ignored (0): weight ln(2 + 2); n1 and n2 2*1.386 = 2.77 -> 3,
  // n3 1.39 -> 1. Normalized: n1, n2 100*(3+1-3)/3 = 33, n3 100*3/3 = 100.
  EXPECT_EQ(scores(pod), "n1:33 n2:33 n3:100 n4:0");
}

// List defaulting with a DoNotSchedule constraint: Filter counts the deduced selector's pods; a
// pod nothing selects has no constraints at all. matchLabelKeys of a default constraint never
// apply: the deduced selector replaces the constraint's.
TEST_F(DefaultConstraints, ListDefaultsFilterWithTheDeducedSelector) {
  create({{"defaultingType", "List"},
          {"defaultConstraints",
           {{{"maxSkew", 1},
             {"topologyKey", kZone},
             {"whenUnsatisfiable", "DoNotSchedule"},
             {"matchLabelKeys", {"tier"}}}}}});
  host_->add_object("Service", service("web", {{"app", "web"}}));
  const FakePod pod = FakePod("new").label("app", "web").label("tier", "fe");
  FakeCycleState state;
  ASSERT_EQ(plugin_->pre_filter(state, pod).code, Code::Success);
  // app=web: z1 2, z2 1; the pod matches: z1 2 + 1 - 1 = 2 > 1, z2 1 + 1 - 1 = 1.
  for (const char* node : {"n1", "n2"}) {
    const HookResult r = plugin_->filter(state, pod, node);
    EXPECT_EQ(r.code, Code::Unschedulable) << node;
    EXPECT_EQ(r.message(), "node(s) didn't match pod topology spread constraints") << node;
  }
  EXPECT_EQ(plugin_->filter(state, pod, "n3").code, Code::Success);

  // The pod's own constraints win over the defaults.
  const FakePod own = FakePod("own")
                          .label("app", "web")
                          .json("/spec/topologySpreadConstraints",
                                {{{"maxSkew", 1},
                                  {"topologyKey", kZone},
                                  {"whenUnsatisfiable", "DoNotSchedule"},
                                  {"labelSelector", {{"matchLabels", {{"app", "db"}}}}}}});
  FakeCycleState own_state;
  ASSERT_EQ(plugin_->pre_filter(own_state, own).code, Code::Success);
  // app=db: z1 1, z2 0; the pod (app=web) does not match: z1 1 - 0 = 1, z2 0.
  EXPECT_EQ(plugin_->filter(own_state, own, "n1").code, Code::Success);

  // Nothing selects this one: no constraints, PreFilter skips.
  FakeCycleState other_state;
  EXPECT_EQ(plugin_->pre_filter(other_state, FakePod("lone").label("app", "cache")).code,
            Code::Skip);
}

// Queueing hints have no snapshot, so no objects to deduce a selector from: with DoNotSchedule
// defaults (List) a pod without constraints of its own is queued by any event; with the system
// defaults (ScheduleAnyway only) upstream's answers stay.
TEST_F(DefaultConstraints, QueueingHintWithoutASnapshot) {
  const FakePod pod = FakePod("new").label("app", "web");
  const auto unrelated_add =
      FakeClusterEvent::assigned_pod_add(FakePod("x").label("app", "cache").node_name("n1"));
  create();
  EXPECT_EQ(plugin_->queueing_hint(pod, unrelated_add).answer, SCHEDHOST_QUEUE_SKIP);
  create({{"defaultingType", "List"},
          {"defaultConstraints",
           {{{"maxSkew", 1}, {"topologyKey", kZone}, {"whenUnsatisfiable", "DoNotSchedule"}}}}});
  EXPECT_EQ(plugin_->queueing_hint(pod, unrelated_add).answer, SCHEDHOST_QUEUE);
  // A pod of another namespace is still skipped first, as upstream.
  EXPECT_EQ(plugin_
                ->queueing_hint(
                    pod, FakeClusterEvent::assigned_pod_add(FakePod("y", "other").node_name("n1")))
                .answer,
            SCHEDHOST_QUEUE_SKIP);
}

// SignPod: any default constraint refuses a pod without constraints of its own (upstream), so it
// needs no snapshot; without defaults (List, none) such a pod is signed.
TEST_F(DefaultConstraints, SignPod) {
  create();
  const HookResult r = plugin_->sign_pod(FakePod("p"));
  EXPECT_EQ(r.code, Code::Unschedulable);
  EXPECT_EQ(r.message(), "pods with default topology constraints are not signable");
  create({{"defaultingType", "List"}});
  EXPECT_EQ(plugin_->sign_pod(FakePod("p")).code, Code::Success);
}

// MatchLabelKeysInPodTopologySpread, read when the plugin is created: on (v1.35's default) the
// pod's version label is ANDed into the selector; off, matchLabelKeys are ignored.
TEST_F(DefaultConstraints, MatchLabelKeysFeatureGate) {
  host_->add_node(zone_node("n5", "z2")
                      .pod(FakePod("v2-a").label("app", "web").label("version", "v2"))
                      .pod(FakePod("v2-b").label("app", "web").label("version", "v2")));
  host_->add_node(zone_node("n6", "z1")
                      .pod(FakePod("v1-a").label("app", "web").label("version", "v1"))
                      .pod(FakePod("v1-b").label("app", "web").label("version", "v1"))
                      .pod(FakePod("v1-c").label("app", "web").label("version", "v1")));
  // app=web: z1 5 (n1 2, n6 3), z2 3 (n3 1, n5 2); app=web,version=v2: z1 0, z2 2.
  const FakePod pod = FakePod("new")
                          .label("app", "web")
                          .label("version", "v2")
                          .json("/spec/topologySpreadConstraints",
                                {{{"maxSkew", 1},
                                  {"topologyKey", kZone},
                                  {"whenUnsatisfiable", "DoNotSchedule"},
                                  {"labelSelector", {{"matchLabels", {{"app", "web"}}}}},
                                  {"matchLabelKeys", {"version"}}}});
  auto verdicts = [&] {
    FakeCycleState state;
    EXPECT_EQ(plugin_->pre_filter(state, pod).code, Code::Success);
    std::string out;
    for (const char* node : {"n1", "n3"})
      out += std::string(node) + ":" + to_string(plugin_->filter(state, pod, node).code) + " ";
    return out;
  };
  create();
  // Counting app=web,version=v2: z1 0 + 1 - 0 = 1 fits, z2 2 + 1 - 0 = 3 does not.
  EXPECT_EQ(verdicts(), "n1:Success n3:Unschedulable ");
  host_->set_feature_gate("MatchLabelKeysInPodTopologySpread", false);
  EXPECT_EQ(verdicts(), "n1:Success n3:Unschedulable ");  // the instance read the gate when made
  create();
  // Counting app=web: z1 5 + 1 - 3 = 3 does not fit, z2 3 + 1 - 3 = 1 does.
  EXPECT_EQ(verdicts(), "n1:Unschedulable n3:Success ");
  host_->set_feature_gate("MatchLabelKeysInPodTopologySpread", true);
  create();
  EXPECT_EQ(verdicts(), "n1:Success n3:Unschedulable ");
}

}  // namespace
}  // namespace schedhost::testing
