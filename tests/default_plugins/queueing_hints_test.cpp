// The built-in plugins' EnqueueExtensions as kube-scheduler v1.35.4 has them (queueing hints,
// InPlacePodVerticalScaling and DynamicResourceAllocation on): each .so from the built-in plugin
// directory, loaded by the SDK's fake host, its registrations compared exactly and its hint asked
// about the cases of upstream's unit tests (Test...EventsToRegister, Test_isSchedulableAfter...
// beside each plugin in pkg/scheduler/framework/plugins).
#include <gtest/gtest.h>
#include <schedhost/testing.hpp>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "plugins/plugin_harness.hpp"

namespace schedhost::testing {
namespace {

using Registrations = std::vector<EventRegistration>;
using Event = FakeClusterEvent;

constexpr std::int32_t kQueue = SCHEDHOST_QUEUE;
constexpr std::int32_t kSkip = SCHEDHOST_QUEUE_SKIP;

// One built-in plugin library on its own fake host, and one instance of its plugin.
class BuiltIn {
 public:
  BuiltIn(const std::string& library, const std::string& plugin, const std::string& args = "{}")
      : host_(std::make_unique<FakeHost>(FakeHost::open_library(built_plugin(library)))),
        plugin_(std::make_unique<FakePlugin>(host_->create(plugin, args))) {}
  ~BuiltIn() { plugin_.reset(); }  // before the host's deinit

  Registrations events() const { return plugin_->events().value_or(Registrations{}); }
  std::int32_t hint(const FakePod& pod, const Event& event) {
    return plugin_->queueing_hint(pod, event).answer;
  }

 private:
  std::unique_ptr<FakeHost> host_;
  std::unique_ptr<FakePlugin> plugin_;
};

struct HintCase {
  const char* name;
  FakePod pod;
  Event event;
  std::int32_t expected;
};

void expect_hints(BuiltIn& plugin, const std::vector<HintCase>& cases) {
  for (const HintCase& c : cases) {
    EXPECT_EQ(plugin.hint(c.pod, c.event), c.expected) << c.name;
  }
}

FakeToleration toleration(std::string key, std::string op, std::string value, std::string effect) {
  return {std::move(key), std::move(op), std::move(value), std::move(effect), std::nullopt};
}

FakeNode node(const std::string& name) {
  return FakeNode(name).allocatable("pods", 110);
}

// ---- NodeName -------------------------------------------------------------------------------

TEST(QueueingHints, NodeNameRegistersNodeAddWithoutHint) {
  BuiltIn plugin("node_name.so", "NodeName");
  EXPECT_EQ(plugin.events(), (Registrations{{"Node", SCHEDHOST_ACTION_ADD}}));
  EXPECT_EQ(plugin.hint(FakePod("p").node_name("n1"), Event::node_add(node("n2"))), kQueue);
}

// ---- NodeUnschedulable ----------------------------------------------------------------------

TEST(QueueingHints, NodeUnschedulable) {
  BuiltIn plugin("node_unschedulable.so", "NodeUnschedulable");
  EXPECT_EQ(plugin.events(),
            (Registrations{{"Node", SCHEDHOST_ACTION_ADD | SCHEDHOST_ACTION_UPDATE_NODE_TAINT},
                           {"Pod", SCHEDHOST_ACTION_UPDATE_POD_TOLERATION}}));
  const FakePod pod("pod1");
  const FakeToleration tolerates_unschedulable =
      toleration("node.kubernetes.io/unschedulable", "Exists", "", "NoSchedule");
  // TestIsSchedulableAfterNodeChange
  expect_hints(plugin, {{"backoff-wrong-new-object / node added schedulable", pod,
                         Event::node_add(node("n")), kQueue},
                        {"skip-queue-on-unschedulable-node-added", pod,
                         Event::node_add(node("n").unschedulable()), kSkip},
                        {"queue-on-unschedulable-field-change", pod,
                         Event::node_update(SCHEDHOST_ACTION_UPDATE_NODE_TAINT,
                                            node("n").unschedulable(), node("n")),
                         kQueue},
                        {"skip-unrelated-change", pod,
                         Event::node_update(SCHEDHOST_ACTION_UPDATE_NODE_TAINT, node("n"),
                                            node("n").taint("k", "v", "NoSchedule")),
                         kSkip},
                        {"skip-unrelated-change-that-keeps-pod-schedulable", pod,
                         Event::node_update(SCHEDHOST_ACTION_UPDATE_NODE_TAINT,
                                            node("n").unschedulable(), node("n").unschedulable()),
                         kSkip}});
  // TestIsSchedulableAfterPodTolerationChange
  expect_hints(
      plugin,
      {{"pod-updated-with-matching-toleration", pod,
        Event::unscheduled_pod_update(FakePod("pod1"),
                                      FakePod("pod1").toleration(tolerates_unschedulable),
                                      SCHEDHOST_ACTION_UPDATE_POD_TOLERATION),
        kQueue},
       {"pod-updated-with-unrelated-toleration", pod,
        Event::unscheduled_pod_update(
            FakePod("pod1"), FakePod("pod1").toleration(toleration("foo", "Exists", "", "")),
            SCHEDHOST_ACTION_UPDATE_POD_TOLERATION),
        kSkip},
       {"other-pod-updated", pod,
        Event::assigned_pod_update(
            FakePod("pod2").node_name("n"),
            FakePod("pod2").node_name("n").toleration(tolerates_unschedulable),
            SCHEDHOST_ACTION_UPDATE_POD_TOLERATION),
        kSkip}});
}

// ---- TaintToleration ------------------------------------------------------------------------

TEST(QueueingHints, TaintToleration) {
  BuiltIn plugin("taint_toleration.so", "TaintToleration");
  EXPECT_EQ(plugin.events(),
            (Registrations{{"Node", SCHEDHOST_ACTION_ADD | SCHEDHOST_ACTION_UPDATE_NODE_TAINT},
                           {"Pod", SCHEDHOST_ACTION_UPDATE_POD_TOLERATION}}));
  const FakePod tolerant =
      FakePod("pod-1").toleration(toleration("foo", "Equal", "bar", "NoSchedule"));
  // TestIsSchedulableAfterNodeChange
  expect_hints(plugin,
               {{"node updated to have the taint the pod tolerates", tolerant,
                 Event::node_update(SCHEDHOST_ACTION_UPDATE_NODE_TAINT, node("nodeA"),
                                    node("nodeA").taint("foo", "bar", "NoSchedule")),
                 kSkip},
                {"node updated to remove the taint the pod doesn't tolerate", FakePod("pod-1"),
                 Event::node_update(SCHEDHOST_ACTION_UPDATE_NODE_TAINT,
                                    node("nodeA").taint("foo", "bar", "NoSchedule"), node("nodeA")),
                 kQueue},
                {"node added with the taint the pod tolerates", tolerant,
                 Event::node_add(node("nodeA").taint("foo", "bar", "NoSchedule")), kQueue},
                {"node added with a taint the pod doesn't tolerate", FakePod("pod-1"),
                 Event::node_add(node("nodeA").taint("foo", "bar", "NoSchedule")), kSkip},
                {"node updated: the untolerated taint changed to a tolerated one", tolerant,
                 Event::node_update(SCHEDHOST_ACTION_UPDATE_NODE_TAINT,
                                    node("nodeA").taint("foo", "baz", "NoSchedule"),
                                    node("nodeA").taint("foo", "bar", "NoSchedule")),
                 kQueue}});
  // Test_isSchedulableAfterPodTolerationChange
  const FakePod pod = FakePod("pod1");
  expect_hints(
      plugin,
      {{"the updated pod is the unschedulable pod", pod,
        Event::unscheduled_pod_update(
            FakePod("pod1"), FakePod("pod1").toleration(toleration("foo", "Exists", "", "")),
            SCHEDHOST_ACTION_UPDATE_POD_TOLERATION),
        kQueue},
       {"the updated pod is another pod", pod,
        Event::assigned_pod_update(
            FakePod("pod2").node_name("n"),
            FakePod("pod2").node_name("n").toleration(toleration("foo", "Exists", "", "")),
            SCHEDHOST_ACTION_UPDATE_POD_TOLERATION),
        kSkip}});
}

// ---- NodePorts ------------------------------------------------------------------------------

TEST(QueueingHints, NodePorts) {
  BuiltIn plugin("node_ports.so", "NodePorts");
  EXPECT_EQ(plugin.events(),
            (Registrations{{"Pod", SCHEDHOST_ACTION_DELETE}, {"Node", SCHEDHOST_ACTION_ADD}}));
  const FakePod pod = FakePod("p").host_port(8080);
  // Test_isSchedulableAfterPodDeleted
  expect_hints(
      plugin,
      {{"backoff-wrong-old-object / node add has no hint", pod, Event::node_add(node("n")), kQueue},
       {"skip-queue-on-unscheduled", pod, Event::assigned_pod_delete(FakePod("q").host_port(8080)),
        kSkip},
       {"skip-queue-on-non-hostport", pod, Event::assigned_pod_delete(FakePod("q").node_name("n")),
        kSkip},
       {"skip-queue-on-unrelated-hostport", pod,
        Event::assigned_pod_delete(FakePod("q").node_name("n").host_port(8081)), kSkip},
       {"queue-on-released-hostport", pod,
        Event::assigned_pod_delete(FakePod("q").node_name("n").host_port(8080)), kQueue},
       {"queue-on-released-hostport of a nominated pod", pod,
        Event::assigned_pod_delete(FakePod("q").nominated_node_name("n").host_port(8080)), kQueue},
       {"skip-queue on another protocol", pod,
        Event::assigned_pod_delete(FakePod("q").node_name("n").host_port(8080, "UDP")), kSkip}});
}

// ---- NodeAffinity ---------------------------------------------------------------------------

nlohmann::json required_label(const char* key, const char* value) {
  return {{"nodeSelectorTerms",
           {{{"matchExpressions", {{{"key", key}, {"operator", "In"}, {"values", {value}}}}}}}}};
}
constexpr const char* kRequired =
    "/spec/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution";

TEST(QueueingHints, NodeAffinity) {
  BuiltIn plugin("node_affinity.so", "NodeAffinity");
  EXPECT_EQ(plugin.events(),
            (Registrations{{"Node", SCHEDHOST_ACTION_ADD | SCHEDHOST_ACTION_UPDATE_NODE_LABEL}}));
  const FakePod pod = FakePod("p").json(kRequired, required_label("foo", "bar"));
  const FakePod bad_term = FakePod("p").json(
      kRequired,
      {{"nodeSelectorTerms", {{{"matchExpressions", {{{"key", "foo"}, {"operator", "Bad"}}}}}}}});
  const auto label_update = [](FakeNode before, FakeNode after) {
    return Event::node_update(SCHEDHOST_ACTION_UPDATE_NODE_LABEL, std::move(before),
                              std::move(after));
  };
  // Test_isSchedulableAfterNodeChange
  expect_hints(
      plugin,
      {{"skip-queue-on-add / node doesn't match", pod, Event::node_add(node("n")), kSkip},
       {"queue-on-add", pod, Event::node_add(node("n").label("foo", "bar")), kQueue},
       {"skip-unrelated-changes", pod,
        label_update(node("n").label("foo", "bar"), node("n").label("foo", "bar").label("a", "b")),
        kSkip},
       {"queue-on-labels-change-makes-pod-schedulable", pod,
        label_update(node("n"), node("n").label("foo", "bar")), kQueue},
       {"skip-queue-on-labels-change-makes-pod-unschedulable", pod,
        label_update(node("n").label("foo", "bar"), node("n")), kSkip},
       {"queue on a term that does not parse (Match error)", bad_term,
        Event::node_add(node("n").label("foo", "bar")), kQueue},
       {"nodeSelector: queue-on-add", FakePod("p").node_selector("foo", "bar"),
        Event::node_add(node("n").label("foo", "bar")), kQueue},
       {"nodeSelector: skip-queue-on-add", FakePod("p").node_selector("foo", "bar"),
        Event::node_add(node("n").label("foo", "baz")), kSkip}});

  BuiltIn enforced("node_affinity.so", "NodeAffinity",
                   R"({"addedAffinity": {"requiredDuringSchedulingIgnoredDuringExecution":
                       {"nodeSelectorTerms": [{"matchExpressions":
                       [{"key": "zone", "operator": "In", "values": ["z1"]}]}]}}})");
  expect_hints(enforced,
               {{"skip-queue-on-add-scheduler-enforced-node-affinity", pod,
                 Event::node_add(node("n").label("foo", "bar")), kSkip},
                {"queue-on-add-scheduler-enforced-node-affinity", pod,
                 Event::node_add(node("n").label("foo", "bar").label("zone", "z1")), kQueue}});
}

// ---- SchedulingGates ------------------------------------------------------------------------

TEST(QueueingHints, SchedulingGates) {
  BuiltIn plugin("scheduling_gates.so", "SchedulingGates");
  EXPECT_EQ(plugin.events(),
            (Registrations{{"Pod", SCHEDHOST_ACTION_UPDATE_POD_SCHEDULING_GATES_ELIMINATED}}));
  const FakePod gated = FakePod("p").json("/spec/schedulingGates", {{{"name", "foo"}}});
  // Test_isSchedulableAfterPodChange
  expect_hints(plugin,
               {{"update the pod itself", gated,
                 Event::unscheduled_pod_update(
                     gated, FakePod("p"), SCHEDHOST_ACTION_UPDATE_POD_SCHEDULING_GATES_ELIMINATED),
                 kQueue},
                {"update another pod", gated,
                 Event::unscheduled_pod_update(
                     FakePod("q").json("/spec/schedulingGates", {{{"name", "foo"}}}), FakePod("q"),
                     SCHEDHOST_ACTION_UPDATE_POD_SCHEDULING_GATES_ELIMINATED),
                 kSkip}});
}

// ---- NodeResourcesFit -----------------------------------------------------------------------

TEST(QueueingHints, NodeResourcesFitEventsToRegister) {
  BuiltIn plugin("node_resources_fit.so", "NodeResourcesFit");
  // TestEventsToRegister: InPlacePodVerticalScaling and queueing hints on.
  EXPECT_EQ(
      plugin.events(),
      (Registrations{{"Pod", SCHEDHOST_ACTION_DELETE | SCHEDHOST_ACTION_UPDATE_POD_SCALE_DOWN},
                     {"Node", SCHEDHOST_ACTION_ADD | SCHEDHOST_ACTION_UPDATE_NODE_ALLOCATABLE}}));
}

TEST(QueueingHints, NodeResourcesFitPodChange) {
  BuiltIn plugin("node_resources_fit.so", "NodeResourcesFit");
  const FakePod pod1 = FakePod("pod1").request("cpu", 1000);
  const auto scale_down = [](FakePod before, FakePod after) {
    return Event::assigned_pod_update(std::move(before), std::move(after),
                                      SCHEDHOST_ACTION_UPDATE_POD_SCALE_DOWN);
  };
  // Test_isSchedulableAfterPodChange
  expect_hints(
      plugin,
      {{"queue-on-other-pod-deleted", pod1,
        Event::assigned_pod_delete(FakePod("pod2").request("cpu", 1000).node_name("fake")), kQueue},
       {"skip-queue-on-unscheduled-pod-deleted", FakePod("p"),
        Event::assigned_pod_delete(FakePod("q")), kSkip},
       {"skip-queue-on-other-unscheduled-pod", pod1,
        scale_down(FakePod("pod2").request("cpu", 2000), FakePod("pod2").request("cpu", 1000)),
        kSkip},
       {"skip-queue-on-other-pod-unrelated-resource-scaled-down", pod1,
        scale_down(FakePod("pod2").request("memory", 2).node_name("fake"),
                   FakePod("pod2").request("memory", 1).node_name("fake")),
        kSkip},
       {"queue-on-other-pod-some-resource-scale-down", pod1,
        scale_down(FakePod("pod2").request("cpu", 2000).node_name("fake"),
                   FakePod("pod2").request("cpu", 1000).node_name("fake")),
        kQueue},
       {"queue-on-target-pod-some-resource-scale-down", pod1,
        Event::unscheduled_pod_update(FakePod("pod1").request("cpu", 2000),
                                      FakePod("pod1").request("cpu", 1000),
                                      SCHEDHOST_ACTION_UPDATE_POD_SCALE_DOWN),
        kQueue}});
}

TEST(QueueingHints, NodeResourcesFitNodeChange) {
  BuiltIn plugin("node_resources_fit.so", "NodeResourcesFit");
  const std::string a = "example.com/aaa";
  const std::string b = "example.com/bbb";
  const FakePod pod = FakePod("p").request("memory", 2).request(a, 1);
  const auto allocatable = [](FakeNode before, FakeNode after) {
    return Event::node_update(SCHEDHOST_ACTION_UPDATE_NODE_ALLOCATABLE, std::move(before),
                              std::move(after));
  };
  // Test_isSchedulableAfterNodeChange
  expect_hints(
      plugin,
      {{"skip-queue-on-node-add-without-sufficient-resources", FakePod("p").request("memory", 2),
        Event::node_add(node("n").allocatable("memory", 1)), kSkip},
       {"skip-queue-on-node-add-without-required-resource-type", FakePod("p").request(a, 1),
        Event::node_add(node("n").allocatable(b, 1)), kSkip},
       {"queue-on-node-add-with-sufficient-resources", pod,
        Event::node_add(node("n").allocatable("memory", 4).allocatable(a, 2)), kQueue},
       {"skip-queue-on-node-unrelated-changes", pod,
        allocatable(node("n").allocatable("memory", 2).allocatable(a, 2),
                    node("n").allocatable("memory", 2).allocatable(a, 1).allocatable(b, 2)),
        kSkip},
       {"queue-on-pod-requested-resources-increase", pod,
        allocatable(node("n").allocatable("memory", 2).allocatable(a, 1),
                    node("n").allocatable("memory", 2).allocatable(a, 2)),
        kQueue},
       {"skip-queue-on-node-changes-from-suitable-to-unsuitable", pod,
        allocatable(node("n").allocatable("memory", 4).allocatable(a, 2),
                    node("n").allocatable("memory", 1).allocatable(a, 2)),
        kSkip},
       {"queue-on-node-changes-from-unsuitable-to-suitable", pod,
        allocatable(node("n").allocatable("memory", 1).allocatable(a, 2),
                    node("n").allocatable("memory", 4).allocatable(a, 2)),
        kQueue},
       {"the pods on the new node do not count (upstream's isFit sees the Node alone)", pod,
        Event::node_add(node("n")
                            .allocatable("memory", 4)
                            .allocatable(a, 2)
                            .pod(FakePod("big").node_name("n").request("memory", 4))),
        kQueue}});
}

// ---- InterPodAffinity -----------------------------------------------------------------------

nlohmann::json pod_terms(const char* key, const char* value, const char* topology_key) {
  return {{{"labelSelector",
            {{"matchExpressions", {{{"key", key}, {"operator", "In"}, {"values", {value}}}}}}},
           {"topologyKey", topology_key}}};
}
constexpr const char* kAffinity =
    "/spec/affinity/podAffinity/requiredDuringSchedulingIgnoredDuringExecution";
constexpr const char* kAntiAffinity =
    "/spec/affinity/podAntiAffinity/requiredDuringSchedulingIgnoredDuringExecution";

TEST(QueueingHints, InterPodAffinity) {
  BuiltIn plugin("inter_pod_affinity.so", "InterPodAffinity");
  EXPECT_EQ(plugin.events(),
            (Registrations{{"Pod", SCHEDHOST_ACTION_ADD | SCHEDHOST_ACTION_UPDATE_POD_LABEL |
                                       SCHEDHOST_ACTION_DELETE},
                           {"Node", SCHEDHOST_ACTION_ADD | SCHEDHOST_ACTION_UPDATE_NODE_LABEL}}));
  const FakePod affinity =
      FakePod("p").json(kAffinity, pod_terms("service", "securityscan", "zone"));
  const FakePod anti =
      FakePod("p").json(kAntiAffinity, pod_terms("service", "securityscan", "zone"));
  const FakePod matching = FakePod("q").node_name("n").label("service", "securityscan");
  const FakePod other = FakePod("q").node_name("n").label("aaa", "a");
  const auto relabel = [](FakePod before, FakePod after) {
    return Event::assigned_pod_update(std::move(before), std::move(after),
                                      SCHEDHOST_ACTION_UPDATE_POD_LABEL);
  };
  // Test_isSchedulableAfterPodChange
  expect_hints(
      plugin,
      {{"add a pod which matches the pod affinity", affinity, Event::assigned_pod_add(matching),
        kQueue},
       {"add an un-scheduled pod", affinity,
        Event::assigned_pod_add(FakePod("q").label("service", "securityscan")), kSkip},
       {"add a pod which doesn't match the pod affinity", affinity, Event::assigned_pod_add(other),
        kSkip},
       {"update a pod from non-match to match pod affinity", affinity, relabel(other, matching),
        kQueue},
       {"the updating pod matches target pod's affinity both before and after label changes",
        affinity, relabel(matching, FakePod(matching).label("extra", "x")), kSkip},
       {"update an un-scheduled pod", affinity,
        relabel(FakePod("q").label("aaa", "a"), FakePod("q").label("service", "securityscan")),
        kSkip},
       {"update a pod from match to non-match the pod anti-affinity", anti,
        relabel(matching, other), kQueue},
       {"the updating pod does not match target pod's anti-affinity both before and after", anti,
        relabel(other, FakePod(other).label("bbb", "b")), kSkip},
       {"delete a pod which doesn't match pod's anti-affinity", anti,
        Event::assigned_pod_delete(other), kSkip},
       {"delete a pod which matches pod's anti-affinity", anti,
        Event::assigned_pod_delete(matching), kQueue}});
  // Test_isSchedulableAfterNodeChange
  const auto relabel_node = [](FakeNode before, FakeNode after) {
    return Event::node_update(SCHEDHOST_ACTION_UPDATE_NODE_LABEL, std::move(before),
                              std::move(after));
  };
  expect_hints(
      plugin,
      {{"add a new node with matched pod affinity topologyKey", affinity,
        Event::node_add(node("n").label("zone", "zone1")), kQueue},
       {"add a new node without matched topologyKey", affinity,
        Event::node_add(node("n").label("region", "r1")), kSkip},
       {"update node topologyKey", affinity,
        relabel_node(node("n").label("zone", "zone1"), node("n").label("zone", "zone2")), kQueue},
       {"update node label but not topologyKey", affinity,
        relabel_node(node("n").label("aaa", "a"), node("n").label("aaa", "b")), kSkip},
       {"update node label that isn't related to the pod affinity", affinity,
        relabel_node(node("n").label("zone", "zone1").label("aaa", "a"),
                     node("n").label("zone", "zone1").label("aaa", "b")),
        kSkip},
       {"update node with different affinity topologyKey", affinity,
        relabel_node(node("n").label("region", "r1"), node("n").label("zone", "zone1")), kQueue},
       {"add a new node with matched pod anti-affinity topologyKey", anti,
        Event::node_add(node("n").label("zone", "zone1")), kQueue},
       {"add a new node without the anti-affinity topologyKey", anti, Event::node_add(node("n")),
        kQueue},
       {"update node with different anti-affinity topologyKey", anti,
        relabel_node(node("n").label("zone", "zone1"), node("n").label("region", "r1")), kQueue},
       {"update node anti-affinity topologyKey value", anti,
        relabel_node(node("n").label("zone", "zone1"), node("n").label("zone", "zone2")), kQueue},
       {"update node gaining the anti-affinity topologyKey", anti,
        relabel_node(node("n"), node("n").label("zone", "zone1")), kSkip},
       {"a term that does not parse queues",
        FakePod("p").json(
            kAffinity,
            {{{"labelSelector", {{"matchExpressions", {{{"key", "k"}, {"operator", "Bad"}}}}}},
              {"topologyKey", "zone"}}}),
        Event::node_add(node("n")), kQueue}});
}

// ---- PodTopologySpread ----------------------------------------------------------------------

nlohmann::json spread(const char* topology_key, const char* label_key,
                      nlohmann::json extra = nlohmann::json::object()) {
  nlohmann::json c = {
      {"maxSkew", 1},
      {"topologyKey", topology_key},
      {"whenUnsatisfiable", "DoNotSchedule"},
      {"labelSelector", {{"matchExpressions", {{{"key", label_key}, {"operator", "Exists"}}}}}}};
  c.update(extra);
  return c;
}

TEST(QueueingHints, PodTopologySpreadNodeChange) {
  BuiltIn plugin("pod_topology_spread.so", "PodTopologySpread");
  EXPECT_EQ(
      plugin.events(),
      (Registrations{
          {"Pod", SCHEDHOST_ACTION_ADD | SCHEDHOST_ACTION_UPDATE_POD_LABEL |
                      SCHEDHOST_ACTION_UPDATE_POD_TOLERATION | SCHEDHOST_ACTION_DELETE},
          {"Node", SCHEDHOST_ACTION_ADD | SCHEDHOST_ACTION_DELETE |
                       SCHEDHOST_ACTION_UPDATE_NODE_LABEL | SCHEDHOST_ACTION_UPDATE_NODE_TAINT}}));
  const FakePod pod = FakePod("p").label("foo", "").json(
      "/spec/topologySpreadConstraints", {spread("zone", "foo"), spread("node", "foo")});
  const auto update = [](std::uint32_t action, FakeNode before, FakeNode after) {
    return Event::node_update(action, std::move(before), std::move(after));
  };
  constexpr std::uint32_t kLabel = SCHEDHOST_ACTION_UPDATE_NODE_LABEL;
  constexpr std::uint32_t kTaint = SCHEDHOST_ACTION_UPDATE_NODE_TAINT;
  const FakeNode both = node("node-a").label("zone", "zone1").label("node", "node1");
  // Test_isSchedulableAfterNodeChange
  expect_hints(
      plugin,
      {{"node updates label which matches topologyKey", pod,
        update(kLabel, both, node("node-a").label("zone", "zone2").label("node", "node1")), kQueue},
       {"node that doesn't match topologySpreadConstraints updates non-related label", pod,
        update(kLabel, node("node-a").label("foo", "bar"), node("node-a").label("foo", "bar2")),
        kSkip},
       {"node that match topologySpreadConstraints adds non-related label", pod,
        update(kLabel, both, FakeNode(both).label("foo", "bar")), kSkip},
       {"create node with non-related labels", pod,
        Event::node_add(node("node-a").label("foo", "bar")), kSkip},
       {"create node with related labels", pod, Event::node_add(both), kQueue},
       {"delete node with non-related labels", pod,
        Event::node_delete(node("node-a").label("foo", "bar")), kSkip},
       {"delete node with related labels", pod, Event::node_delete(both), kQueue},
       {"add node with related labels that only match one of topologySpreadConstraints", pod,
        Event::node_add(node("node-a").label("zone", "zone1")), kSkip},
       {"update node with related labels that only match one of topologySpreadConstraints", pod,
        update(kLabel, node("node-a").label("zone", "zone1"),
               node("node-a").label("zone", "zone2")),
        kSkip},
       {"update node with related labels that match all of topologySpreadConstraints", pod,
        update(kLabel, node("node-a").label("zone", "zone1"), both), kQueue},
       {"update node with different taints that match all of topologySpreadConstraints", pod,
        update(kTaint, FakeNode(both).taint("aaa", "bbb", "NoSchedule"),
               FakeNode(both).taint("ccc", "bbb", "NoSchedule")),
        kQueue},
       {"update node with different taints that only match one of topologySpreadConstraints", pod,
        update(kTaint, node("node-a").label("zone", "zone1").taint("aaa", "bbb", "NoSchedule"),
               node("node-a").label("zone", "zone1").taint("ccc", "bbb", "NoSchedule")),
        kSkip}});
}

TEST(QueueingHints, PodTopologySpreadPodChange) {
  BuiltIn plugin("pod_topology_spread.so", "PodTopologySpread");
  const FakePod pod = FakePod("p").label("foo", "").json("/spec/topologySpreadConstraints",
                                                         {spread("zone", "foo")});
  const FakePod honoring = FakePod("p").label("foo", "").json(
      "/spec/topologySpreadConstraints", {spread("zone", "foo", {{"nodeTaintsPolicy", "Honor"}})});
  const auto scheduled = [](const char* name) { return FakePod(name).node_name("fake-node"); };
  const auto relabel = [](FakePod before, FakePod after) {
    return Event::assigned_pod_update(std::move(before), std::move(after),
                                      SCHEDHOST_ACTION_UPDATE_POD_LABEL);
  };
  // Test_isSchedulableAfterPodChange
  expect_hints(
      plugin,
      {{"add pod with labels match topologySpreadConstraints selector", pod,
        Event::assigned_pod_add(scheduled("q").label("foo", "")), kQueue},
       {"add un-scheduled pod", pod, Event::assigned_pod_add(FakePod("q").label("foo", "")), kSkip},
       {"update un-scheduled pod", pod,
        relabel(FakePod("q").label("foo", ""), FakePod("q").label("bar", "")), kSkip},
       {"delete un-scheduled pod", pod, Event::assigned_pod_delete(FakePod("q").label("foo", "")),
        kSkip},
       {"add pod with different namespace", pod,
        Event::assigned_pod_add(FakePod("q", "ns1").node_name("fake-node").label("foo", "")),
        kSkip},
       {"add pod with labels don't match topologySpreadConstraints selector", pod,
        Event::assigned_pod_add(scheduled("q").label("bar", "")), kSkip},
       {"delete pod with labels that match topologySpreadConstraints selector", pod,
        Event::assigned_pod_delete(scheduled("q").label("foo", "")), kQueue},
       {"delete pod with labels that don't match topologySpreadConstraints selector", pod,
        Event::assigned_pod_delete(scheduled("q").label("bar", "")), kSkip},
       {"update pod's non-related label", pod,
        relabel(scheduled("q").label("foo", "").label("bar", "bar1"),
                scheduled("q").label("foo", "").label("bar", "bar2")),
        kSkip},
       {"add pod's label that matches topologySpreadConstraints selector", pod,
        relabel(scheduled("q"), scheduled("q").label("foo", "")), kQueue},
       {"delete pod label that matches topologySpreadConstraints selector", pod,
        relabel(scheduled("q").label("foo", ""), scheduled("q")), kQueue},
       {"change pod's label that matches topologySpreadConstraints selector", pod,
        relabel(scheduled("q").label("foo", "foo1"), scheduled("q").label("foo", "foo2")), kSkip},
       {"the unschedulable pod gets a toleration, NodeTaintsPolicy Honor", honoring,
        Event::unscheduled_pod_update(
            FakePod(honoring),
            FakePod(honoring).toleration(toleration("foo", "Exists", "", "NoSchedule")),
            SCHEDHOST_ACTION_UPDATE_POD_TOLERATION),
        kQueue},
       {"the unschedulable pod gets a toleration, NodeTaintsPolicy Ignore", pod,
        Event::unscheduled_pod_update(
            FakePod(pod), FakePod(pod).toleration(toleration("foo", "Exists", "", "NoSchedule")),
            SCHEDHOST_ACTION_UPDATE_POD_TOLERATION),
        kSkip}});
}

// ---- DynamicResources -----------------------------------------------------------------------

TEST(QueueingHints, DynamicResources) {
  BuiltIn plugin("dynamic_resources.so", "DynamicResources");
  constexpr std::uint32_t kAddOrUpdate = SCHEDHOST_ACTION_ADD | SCHEDHOST_ACTION_ANY_UPDATE;
  EXPECT_EQ(plugin.events(),
            (Registrations{{"Node", SCHEDHOST_ACTION_ADD | SCHEDHOST_ACTION_UPDATE_NODE_LABEL |
                                        SCHEDHOST_ACTION_UPDATE_NODE_ALLOCATABLE},
                           {"resource.k8s.io/ResourceClaim", kAddOrUpdate},
                           {"Pod", SCHEDHOST_ACTION_UPDATE_POD_GENERATED_RESOURCE_CLAIM},
                           {"resource.k8s.io/DeviceClass", kAddOrUpdate},
                           {"resource.k8s.io/ResourceSlice", kAddOrUpdate}}));
  const FakePod templated = FakePod("p").json(
      "/spec/resourceClaims", {{{"name", "c"}, {"resourceClaimTemplateName", "t"}}});
  const FakePod generated = FakePod(templated).json(
      "/status/resourceClaimStatuses", {{{"name", "c"}, {"resourceClaimName", "p-c"}}});
  constexpr std::uint32_t kGenerated = SCHEDHOST_ACTION_UPDATE_POD_GENERATED_RESOURCE_CLAIM;
  // Test_isSchedulableAfterPodChange
  expect_hints(plugin,
               {{"other-pod", templated,
                 Event::unscheduled_pod_update(FakePod("q"), FakePod("q"), kGenerated), kSkip},
                {"no-claims", FakePod("p"),
                 Event::unscheduled_pod_update(FakePod("p"), FakePod("p"), kGenerated), kQueue},
                {"claim-not-generated-yet", templated,
                 Event::unscheduled_pod_update(templated, templated, kGenerated), kSkip},
                {"claim-generated", templated,
                 Event::unscheduled_pod_update(templated, generated, kGenerated), kQueue},
                {"a node event has no hint", templated, Event::node_add(node("n")), kQueue}});
}

}  // namespace
}  // namespace schedhost::testing
