// EnqueueExtensions (ABI 1.3) on the fake host: the events a plugin registers, checked by the
// host's rule with the host's messages, and its queueing hint called on fake cluster events whose
// pods and nodes it reads through the usual accessors. The plugins are C++ classes declared with
// schedhost::hook:: tags (and one hand-written C vtable), in a library of this file's own.
#include <gtest/gtest.h>
#include <schedhost/plugin.hpp>
#include <schedhost/testing.hpp>

#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace schedhost::testing::events_fake_host_test {

using schedhost::ClusterEvent;
using schedhost::EventRegistry;
using schedhost::QueueingHint;
using schedhost::Status;
namespace action = schedhost::action;
namespace resource = schedhost::resource;

using Registrations = std::vector<EventRegistration>;

// Every plugin below needs one extension point besides its events: a Filter that passes.
#define EVENTS_TEST_FILTER                                                                \
  Status Filter(schedhost::Context&, const schedhost::CycleState&, const schedhost::Pod&, \
                const schedhost::NodeInfo&) const {                                       \
    return {};                                                                            \
  }

// Rejects nodes without gpu=true; a pod it rejected may fit after a node is added or relabelled,
// or after a pod is deleted; the hint queues it only when the new node has gpu=true.
class GpuWatcher {
 public:
  Status Filter(schedhost::Context&, const schedhost::CycleState&, const schedhost::Pod&,
                const schedhost::NodeInfo& node) const {
    if (node.label("gpu") != "true") return Status::UnschedulableAndUnresolvable("no gpu");
    return {};
  }
  void EventsToRegister(EventRegistry& events) {
    events.add(resource::kNode, action::kAdd | action::kUpdateNodeLabel);
    events.add(resource::kPod, action::kDelete);
  }
  QueueingHint IsSchedulableAfter(const schedhost::Pod&, const ClusterEvent& event) {
    if (event.new_node && event.new_node->label("gpu") == "true") return QueueingHint::kQueue;
    return QueueingHint::kSkip;
  }
};

// Logs everything its hint can read of the pod and the event, and queues.
class EventEcho {
 public:
  explicit EventEcho(const nlohmann::json&, const schedhost::Host& host) : host_(host) {}
  EVENTS_TEST_FILTER
  void EventsToRegister(EventRegistry& events) {
    events.add(resource::kAny, action::kAll);
    events.add("widgets.v1.example.com", action::kAdd);
  }
  QueueingHint IsSchedulableAfter(const schedhost::Pod& pod, const ClusterEvent& event) {
    std::string line = "pod " + std::string(pod.namespace_name()) + "/" + std::string(pod.name()) +
                       ", " + std::string(event.label) + " " + std::string(event.resource) + "/" +
                       std::to_string(event.actions);
    if (event.old_pod) line += ", old pod " + std::string(event.old_pod->name());
    if (event.new_pod) {
      line += ", new pod " + std::string(event.new_pod->name()) + " on " +
              std::string(event.new_pod->node_name());
    }
    const auto node = [&](const char* which, const std::optional<schedhost::NodeInfo>& n) {
      if (!n) return;
      line += std::string(", ") + which + " node " + std::string(n->name()) +
              " gpu=" + std::string(n->label("gpu").value_or("-")) +
              " pods=" + std::to_string(n->pods().size()) +
              " cpu=" + std::to_string(n->requested("cpu"));
    };
    node("old", event.old_node);
    node("new", event.new_node);
    host_.info(line);
    return QueueingHint::kQueue;
  }

 private:
  schedhost::Host host_;
};

class ThrowingHint {
 public:
  EVENTS_TEST_FILTER
  void EventsToRegister(EventRegistry& events) { events.add(resource::kNode, action::kAdd); }
  QueueingHint IsSchedulableAfter(const schedhost::Pod& pod, const ClusterEvent&) {
    throw std::runtime_error("cannot judge " + std::string(pod.name()));
  }
};

// EnqueueExtensions without a hint: every registered event queues.
class NoHint {
 public:
  EVENTS_TEST_FILTER
  void EventsToRegister(EventRegistry& events) { events.add(resource::kNode, action::kUpdate); }
};

// Registers nothing: only the periodic flush retries what it rejected.
class NothingRegistered {
 public:
  EVENTS_TEST_FILTER
  void EventsToRegister(EventRegistry&) {}
};

class NoEvents {
 public:
  EVENTS_TEST_FILTER
};

class BadResource {
 public:
  EVENTS_TEST_FILTER
  void EventsToRegister(EventRegistry& events) {
    events.add(resource::kPod, action::kAdd);
    events.add("Nodes", action::kAdd);
  }
};

class BadActions {
 public:
  EVENTS_TEST_FILTER
  void EventsToRegister(EventRegistry& events) { events.add(resource::kNode, 8192); }
};

class NoActions {
 public:
  EVENTS_TEST_FILTER
  void EventsToRegister(EventRegistry& events) { events.add("widgets.v1.example.com", 0); }
};

class ThrowingRegistration {
 public:
  EVENTS_TEST_FILTER
  void EventsToRegister(EventRegistry&) { throw std::runtime_error("no events today"); }
};

#undef EVENTS_TEST_FILTER

// A C plugin whose hint answers 7 plus what the snapshot functions see (nothing, in a hint).
const schedhost_host_api_t* raw_api = nullptr;
int raw_instance = 0;
schedhost_code_t raw_create(const schedhost_host_api_t* api, const schedhost_host_t*,
                            schedhost_str_t, schedhost_call_t*, void** out_self) {
  raw_api = api;
  *out_self = &raw_instance;
  return SCHEDHOST_SUCCESS;
}
void raw_destroy(void*) {}
schedhost_code_t raw_filter(void*, schedhost_call_t*, const schedhost_cycle_state_t*,
                            const schedhost_pod_t*, const schedhost_node_t*) {
  return SCHEDHOST_SUCCESS;
}
schedhost_code_t raw_events(void*, schedhost_call_t* call) {
  raw_api->register_event(call, {"Node", 4}, SCHEDHOST_ACTION_ADD);
  return SCHEDHOST_SUCCESS;
}
schedhost_queueing_hint_t raw_hint(void*, schedhost_call_t* call, const schedhost_pod_t*,
                                   const schedhost_cluster_event_t*) {
  return static_cast<schedhost_queueing_hint_t>(7 + raw_api->snapshot_node_count(call) +
                                                raw_api->namespace_count(call) +
                                                raw_api->waiting_pod_count(call));
}
schedhost_code_t raw_failing_events(void*, schedhost_call_t*) {
  return SCHEDHOST_UNSCHEDULABLE;
}

schedhost_plugin_vtable_t raw_vtable(bool failing) {
  schedhost_plugin_vtable_t v{};
  v.struct_size = sizeof v;
  v.create = &raw_create;
  v.destroy = &raw_destroy;
  v.filter = &raw_filter;
  v.events_to_register = failing ? &raw_failing_events : &raw_events;
  v.queueing_hint = failing ? nullptr : &raw_hint;
  return v;
}
const schedhost_plugin_vtable_t kRawHint = raw_vtable(false);
const schedhost_plugin_vtable_t kRawFailing = raw_vtable(true);

const schedhost_library_t* events_library() {
  using schedhost::hook::EnqueueExtensions;
  using schedhost::hook::Filter;
  static const schedhost::detail::Library library(
      "events", "1.0.0",
      {schedhost::plugin<GpuWatcher, Filter, EnqueueExtensions>("GpuWatcher", ""),
       schedhost::plugin<EventEcho, Filter, EnqueueExtensions>("EventEcho", ""),
       schedhost::plugin<ThrowingHint, Filter, EnqueueExtensions>("ThrowingHint", ""),
       schedhost::plugin<NoHint, Filter, EnqueueExtensions>("NoHint", ""),
       schedhost::plugin<NothingRegistered, Filter, EnqueueExtensions>("NothingRegistered", ""),
       schedhost::plugin<NoEvents, Filter>("NoEvents", ""),
       schedhost::plugin<BadResource, Filter, EnqueueExtensions>("BadResource", ""),
       schedhost::plugin<BadActions, Filter, EnqueueExtensions>("BadActions", ""),
       schedhost::plugin<NoActions, Filter, EnqueueExtensions>("NoActions", ""),
       schedhost::plugin<ThrowingRegistration, Filter, EnqueueExtensions>("ThrowingRegistration",
                                                                          ""),
       {"RawHint", "", &kRawHint},
       {"RawFailing", "", &kRawFailing}});
  return library.get();
}

// The message events() throws, or "" when it does not.
std::string events_error(const FakePlugin& plugin) {
  try {
    (void)plugin.events();
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

class EventsFakeHostTest : public ::testing::Test {
 protected:
  EventsFakeHostTest() {
    host_.add_node(FakeNode("node-a"))
        .add_node(FakeNode("node-gpu")
                      .label("gpu", "true")
                      .allocatable("cpu", "8")
                      .pod(FakePod("trainer").request("cpu", "2")))
        .add_namespace("prod");
    host_.add_waiting_pod(FakePod("waiting"));
  }
  FakeHost host_{events_library()};
  FakePod pod_ = FakePod("web-1", "prod");
};

TEST_F(EventsFakeHostTest, ReportsTheExactRegistrations) {
  FakePlugin gpu = host_.create("GpuWatcher");
  EXPECT_EQ(gpu.events(),
            (Registrations{{"Node", SCHEDHOST_ACTION_ADD | SCHEDHOST_ACTION_UPDATE_NODE_LABEL},
                           {"Pod", SCHEDHOST_ACTION_DELETE}}));
  EXPECT_EQ(host_.create("EventEcho").events(),
            (Registrations{{"*", SCHEDHOST_ACTION_ANY}, {"widgets.v1.example.com", 1}}));
  EXPECT_EQ(host_.create("NothingRegistered").events(), Registrations{});
  EXPECT_EQ(host_.create("RawHint").events(), (Registrations{{"Node", SCHEDHOST_ACTION_ADD}}));
  // EnqueueExtensions is not an extension point of profiles: `schedhost plugins` does not list it.
  EXPECT_EQ(gpu.extension_points(), std::vector<std::string>{"Filter"});
}

TEST_F(EventsFakeHostTest, APluginWithoutEventsToRegisterHasNoneAndAlwaysQueues) {
  FakePlugin plugin = host_.create("NoEvents");
  EXPECT_EQ(plugin.events(), std::nullopt);
  const HintResult r = plugin.queueing_hint(pod_, FakeClusterEvent::node_add("node-a"));
  EXPECT_EQ(r.answer, SCHEDHOST_QUEUE);
  EXPECT_TRUE(r.reasons.empty());
}

TEST_F(EventsFakeHostTest, AnOlderHostTableNeverAsksForEvents) {
  host_.set_api_struct_size(offsetof(schedhost_host_api_t, register_event));
  EXPECT_EQ(host_.create("GpuWatcher").events(), std::nullopt);
  EXPECT_EQ(events_error(host_.create("BadResource")), "");
}

TEST_F(EventsFakeHostTest, TheHintQueuesOnlyForANewNodeWithAGpu) {
  FakePlugin plugin = host_.create("GpuWatcher");
  const auto hint = [&](const FakeClusterEvent& e) { return plugin.queueing_hint(pod_, e).answer; };
  EXPECT_EQ(hint(FakeClusterEvent::node_add("node-gpu")), SCHEDHOST_QUEUE);
  EXPECT_EQ(hint(FakeClusterEvent::node_add("node-a")), SCHEDHOST_QUEUE_SKIP);
  EXPECT_EQ(hint(FakeClusterEvent::node_add(FakeNode("new").label("gpu", "true"))),
            SCHEDHOST_QUEUE);
  EXPECT_EQ(hint(FakeClusterEvent::node_add(FakeNode("new").label("gpu", "false"))),
            SCHEDHOST_QUEUE_SKIP);
  // The label just appeared on node-gpu; and a relabelling that took it away.
  EXPECT_EQ(hint(FakeClusterEvent::node_update(SCHEDHOST_ACTION_UPDATE_NODE_LABEL,
                                               FakeNode("node-gpu"), "node-gpu")),
            SCHEDHOST_QUEUE);
  EXPECT_EQ(hint(FakeClusterEvent::node_update(SCHEDHOST_ACTION_UPDATE_NODE_LABEL,
                                               FakeNode("node-a").label("gpu", "true"), "node-a")),
            SCHEDHOST_QUEUE_SKIP);
  EXPECT_EQ(hint(FakeClusterEvent::assigned_pod_delete(FakePod("trainer").node_name("node-gpu"))),
            SCHEDHOST_QUEUE_SKIP);
  const HintResult r = plugin.queueing_hint(pod_, FakeClusterEvent::node_add("node-gpu"));
  EXPECT_TRUE(r.queue());
  EXPECT_TRUE(r.reasons.empty());
}

TEST_F(EventsFakeHostTest, TheHintReadsThePodAndTheEventsObjectsThroughTheAccessors) {
  FakePlugin plugin = host_.create("EventEcho");
  host_.clear_logs();
  EXPECT_EQ(plugin
                .queueing_hint(pod_, FakeClusterEvent::node_update(
                                         SCHEDHOST_ACTION_UPDATE_NODE_LABEL,
                                         FakeNode("node-gpu").label("gpu", "false"), "node-gpu"))
                .answer,
            SCHEDHOST_QUEUE);
  EXPECT_EQ(plugin
                .queueing_hint(pod_, FakeClusterEvent::assigned_pod_update(
                                         FakePod("db").node_name("node-a"),
                                         FakePod("db").node_name("node-a").label("v", "2")))
                .answer,
            SCHEDHOST_QUEUE);
  EXPECT_EQ(plugin.queueing_hint(pod_, FakeClusterEvent::assigned_pod_delete(FakePod("db"))).answer,
            SCHEDHOST_QUEUE);
  FakeClusterEvent custom;
  custom.resource = "widgets.v1.example.com";
  custom.actions = SCHEDHOST_ACTION_ADD;
  custom.label = "WidgetAdd";
  EXPECT_EQ(plugin.queueing_hint(pod_, custom).answer, SCHEDHOST_QUEUE);
  std::vector<std::string> lines;
  for (const LogLine& l : host_.logs())
    lines.push_back(l.plugin + ": " + l.message);
  // A node of the host comes with its pods and their requests; the event's own FakeNode without.
  EXPECT_EQ(lines, (std::vector<std::string>{
                       "EventEcho: pod prod/web-1, NodeUpdateNodeLabel Node/8, old node node-gpu "
                       "gpu=false pods=0 cpu=0, new node node-gpu gpu=true pods=1 cpu=2000",
                       "EventEcho: pod prod/web-1, AssignedPodUpdate Pod/8188, old pod db, new pod "
                       "db on node-a",
                       "EventEcho: pod prod/web-1, AssignedPodDelete Pod/2, old pod db",
                       "EventEcho: pod prod/web-1, WidgetAdd widgets.v1.example.com/1"}));
}

TEST_F(EventsFakeHostTest, AHintThatThrowsQueuesWithTheExceptionAsItsReason) {
  FakePlugin plugin = host_.create("ThrowingHint");
  const HintResult r = plugin.queueing_hint(pod_, FakeClusterEvent::node_add("node-a"));
  EXPECT_EQ(r.answer, SCHEDHOST_QUEUE);
  EXPECT_EQ(r.reasons, std::vector<std::string>{"cannot judge web-1"});
  EXPECT_EQ(r.message(), "cannot judge web-1");
}

TEST_F(EventsFakeHostTest, WithoutAHintEveryEventQueues) {
  FakePlugin plugin = host_.create("NoHint");
  EXPECT_EQ(plugin.events(), (Registrations{{"Node", SCHEDHOST_ACTION_ANY_UPDATE}}));
  EXPECT_EQ(plugin.queueing_hint(pod_, FakeClusterEvent::node_add("node-a")).answer,
            SCHEDHOST_QUEUE);
}

// The raw answer comes back as the plugin gave it (the host counts 7 as QUEUE and logs it), and
// the hint's call has no snapshot, namespaces or waiting pods, as in the host.
TEST_F(EventsFakeHostTest, TheRawAnswerIsKeptAndTheHintSeesNoSnapshot) {
  FakePlugin plugin = host_.create("RawHint");
  const HintResult r = plugin.queueing_hint(pod_, FakeClusterEvent::node_add("node-a"));
  EXPECT_EQ(r.answer, 7);
  EXPECT_TRUE(r.queue());
}

TEST_F(EventsFakeHostTest, AnEventOnANodeTheHostDoesNotHaveIsAnError) {
  FakePlugin plugin = host_.create("GpuWatcher");
  EXPECT_THROW(plugin.queueing_hint(pod_, FakeClusterEvent::node_add("node-z")),
               std::invalid_argument);
  EXPECT_THROW(FakeClusterEvent::node_update(SCHEDHOST_ACTION_ADD, "node-a", "node-a"),
               std::invalid_argument);
}

// The host refuses these plugins when it creates them, with exactly these lines.
TEST_F(EventsFakeHostTest, ARegistrationTheHostRefusesThrowsItsMessage) {
  EXPECT_EQ(events_error(host_.create("BadResource")),
            "plugin \"BadResource\": registers events for \"Nodes\", which is not a resource: use "
            "one of Pod, Node, PersistentVolume, PersistentVolumeClaim, "
            "storage.k8s.io/StorageClass, storage.k8s.io/CSINode, storage.k8s.io/CSIDriver, "
            "storage.k8s.io/CSIStorageCapacity, resource.k8s.io/ResourceClaim, "
            "resource.k8s.io/ResourceSlice, resource.k8s.io/DeviceClass, \"*\", or "
            "\"<plural>.<version>.<group>\" for another kind");
  EXPECT_EQ(events_error(host_.create("BadActions")),
            "plugin \"BadActions\": registers events for \"Node\" with action bits 8192: use "
            "SCHEDHOST_ACTION_* bits (1 to 8191)");
  EXPECT_EQ(
      events_error(host_.create("NoActions")),
      "plugin \"NoActions\": registers events for \"widgets.v1.example.com\" with action bits "
      "0: use SCHEDHOST_ACTION_* bits (1 to 8191)");
  EXPECT_EQ(events_error(host_.create("ThrowingRegistration")),
            "plugin \"ThrowingRegistration\": events_to_register() failed: no events today");
  EXPECT_EQ(events_error(host_.create("RawFailing")),
            "plugin \"RawFailing\": events_to_register() failed with code 2");
  EXPECT_EQ(events_error(host_.create("GpuWatcher")), "");
}

// The rule itself (schedhost/detail/library_rules.hpp), which the host applies too.
TEST(EventRegistrationRule, AcceptsUpstreamsResourcesAndCustomOnes) {
  namespace rules = schedhost::library_rules;
  for (const char* ok :
       {"Pod", "Node", "PersistentVolume", "PersistentVolumeClaim", "storage.k8s.io/StorageClass",
        "storage.k8s.io/CSINode", "storage.k8s.io/CSIDriver", "storage.k8s.io/CSIStorageCapacity",
        "resource.k8s.io/ResourceClaim", "resource.k8s.io/ResourceSlice",
        "resource.k8s.io/DeviceClass", "*", "widgets.v1.example.com", "a.b.c",
        "configmaps.v1."}) {  // the core group's, as upstream spells it
    EXPECT_EQ(rules::check_event_registration(ok, SCHEDHOST_ACTION_ADD), "") << ok;
    EXPECT_EQ(rules::check_event_registration(ok, SCHEDHOST_ACTION_ANY), "") << ok;
  }
  for (const char* bad : {"", "Nodes", "pod", "widgets.example", ".a.b", "a.", "a..b",
                          "example.com/v1/widgets", "storage.k8s.io/Other"}) {
    EXPECT_NE(rules::check_event_registration(bad, SCHEDHOST_ACTION_ADD), "") << bad;
  }
  EXPECT_EQ(rules::check_event_registration("Pod", 0),
            "registers events for \"Pod\" with action bits 0: use SCHEDHOST_ACTION_* bits (1 to "
            "8191)");
  EXPECT_NE(rules::check_event_registration("Pod", SCHEDHOST_ACTION_ANY + 1), "");
}

}  // namespace schedhost::testing::events_fake_host_test
