// Which cluster events retry a rejected pod (upstream's isPodWorthRequeuing, ABI 1.3, v1.35's
// events since 1.7): the built-in plugins' registrations (upstream v1.35's; their hints have their
// own tables in tests/default_plugins), a third-party .so's registrations and queueing hint, the
// defaults for a plugin without EnqueueExtensions or with no events, upstream's NodeAdd ->
// UpdateNodeTaint fallback, a library built for ABI 1.6, and the refusal of a registration that
// names no resource. Real plugins, loaded from their .so files.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <memory>
#include <set>
#include <string>

#include "common/input_error.hpp"
#include "config/scheduler_configuration.hpp"
#include "framework/framework.hpp"
#include "loader/plugin_registry.hpp"
#include "support/fixtures.hpp"
#include "support/log_capture.hpp"

namespace schedhost::live::requeue_test {

using framework::ClusterEvent;
using nlohmann::json;

class RequeueTest : public ::testing::Test {
 protected:
  RequeueTest() {
    registry_.load_directories({{testing::builtin_plugin_dir(), true},
                                {std::string(SCHEDHOST_TEST_FIXTURE_DIR) + "/events", true},
                                {std::string(SCHEDHOST_TEST_FIXTURE_DIR) + "/legacy_events", true},
                                {std::string(SCHEDHOST_TEST_FIXTURE_DIR) + "/abi_compat", true}});
  }

  // A profile whose Filter plugins are `filters`.
  std::unique_ptr<framework::Framework> framework_with(const std::set<std::string>& filters) {
    config::Profile profile;
    profile.scheduler_name = "default-scheduler";
    for (const std::string& name : filters) {
      profile.enabled[static_cast<std::size_t>(ExtensionPoint::Filter)].push_back({name, 1, {}});
    }
    return std::make_unique<framework::Framework>(profile, registry_);
  }

  static std::shared_ptr<const cluster::NodeInfo> node(const json& labels) {
    json n = {{"apiVersion", "v1"},
              {"kind", "Node"},
              {"metadata", {{"name", "n1"}, {"labels", labels}}},
              {"status", {{"allocatable", {{"cpu", "4"}, {"pods", "110"}}}}}};
    return std::make_shared<const cluster::NodeInfo>(std::make_shared<const cluster::Node>(n));
  }
  static ClusterEvent node_event(schedhost_action_t action, const json& labels = json::object()) {
    ClusterEvent e = framework::node_event(action);
    e.node = node(labels);
    if (action != SCHEDHOST_ACTION_ADD) e.old_node = node(json::object());
    if (action == SCHEDHOST_ACTION_DELETE) e.node = nullptr;
    return e;
  }
  static std::shared_ptr<const cluster::Pod> other_pod() {
    return std::make_shared<const cluster::Pod>(
        json{{"apiVersion", "v1"},
             {"kind", "Pod"},
             {"metadata", {{"name", "other"}, {"namespace", "default"}, {"uid", "u2"}}},
             {"spec", {{"nodeName", "n1"}, {"containers", json::array()}}}});
  }
  static ClusterEvent pod_event(schedhost_action_t action) {
    ClusterEvent e = framework::assigned_pod_event(action);
    if (action != SCHEDHOST_ACTION_ADD) e.old_pod = other_pod();
    if (action != SCHEDHOST_ACTION_DELETE) e.pod = other_pod();
    return e;
  }
  static ClusterEvent wildcard(const std::string& label) {
    ClusterEvent e;
    e.label = label;
    e.resource = std::string(framework::kAnyResource);
    e.actions = SCHEDHOST_ACTION_ANY;
    return e;
  }

  // Whether the event retries a pod that `rejected_by` rejected, in a profile with all of them.
  bool retries(const std::set<std::string>& rejected_by, const ClusterEvent& event) {
    auto fw = framework_with(rejected_by);
    return fw->worth_requeuing(pod_, rejected_by, event);
  }

  loader::PluginRegistry registry_;
  const cluster::Pod pod_{
      json{{"apiVersion", "v1"},
           {"kind", "Pod"},
           {"metadata", {{"name", "p"}, {"namespace", "default"}, {"uid", "u1"}}},
           {"spec", {{"containers", json::array()}}}}};
};

TEST_F(RequeueTest, TheBuiltInsRegisterUpstreamV135sEvents) {
  // NodeResourcesFit: Pod Delete | UpdatePodScaleDown; Node Add | UpdateNodeAllocatable.
  EXPECT_TRUE(retries({"NodeResourcesFit"}, node_event(SCHEDHOST_ACTION_ADD)));
  EXPECT_TRUE(retries({"NodeResourcesFit"}, pod_event(SCHEDHOST_ACTION_DELETE)));
  EXPECT_FALSE(retries({"NodeResourcesFit"}, pod_event(SCHEDHOST_ACTION_ADD)));
  EXPECT_FALSE(retries({"NodeResourcesFit"}, pod_event(SCHEDHOST_ACTION_ANY_UPDATE)));
  EXPECT_FALSE(retries({"NodeResourcesFit"}, node_event(SCHEDHOST_ACTION_UPDATE_NODE_LABEL)));
  EXPECT_FALSE(retries({"NodeResourcesFit"}, node_event(SCHEDHOST_ACTION_UPDATE_NODE_ANNOTATION)));
  // NodeName: Node Add, no hint; upstream adds Node UpdateNodeTaint (answered Queue) to a plugin
  // that registered NodeAdd without it.
  EXPECT_TRUE(retries({"NodeName"}, node_event(SCHEDHOST_ACTION_ADD)));
  EXPECT_TRUE(retries({"NodeName"}, node_event(SCHEDHOST_ACTION_UPDATE_NODE_TAINT)));
  EXPECT_FALSE(retries({"NodeName"}, node_event(SCHEDHOST_ACTION_UPDATE_NODE_LABEL)));
  EXPECT_FALSE(retries({"NodeName"}, pod_event(SCHEDHOST_ACTION_DELETE)));
  // InterPodAffinity: Pod Add | UpdatePodLabel | Delete; an update of no kind is none of them.
  // Node Add | UpdateNodeLabel, and so the UpdateNodeTaint fallback.
  EXPECT_FALSE(retries({"InterPodAffinity"}, pod_event(SCHEDHOST_ACTION_ANY_UPDATE)));
  EXPECT_TRUE(retries({"InterPodAffinity"}, node_event(SCHEDHOST_ACTION_UPDATE_NODE_TAINT)));
  EXPECT_FALSE(retries({"InterPodAffinity"}, node_event(SCHEDHOST_ACTION_UPDATE_NODE_CONDITION)));
  // Any of the rejecting plugins is enough.
  EXPECT_TRUE(retries({"NodeName", "NodeResourcesFit"}, pod_event(SCHEDHOST_ACTION_DELETE)));
}

TEST_F(RequeueTest, NoRejectingPluginOrTheWildcardRetriesEveryPod) {
  auto fw = framework_with({"NodeUnschedulable"});
  EXPECT_TRUE(fw->worth_requeuing(pod_, {}, node_event(SCHEDHOST_ACTION_UPDATE_NODE_LABEL)));
  EXPECT_TRUE(fw->worth_requeuing(pod_, {"NodeUnschedulable"}, wildcard("UnschedulableTimeout")));
  // A rejection by something that is not a plugin of the profile: retried, to be safe.
  EXPECT_TRUE(
      fw->worth_requeuing(pod_, {"PreEnqueue"}, node_event(SCHEDHOST_ACTION_UPDATE_NODE_LABEL)));
}

TEST_F(RequeueTest, AThirdPartyHintDecidesForTheEventsItRegistered) {
  const std::set<std::string> gpu = {"GpuLabelFilter"};
  EXPECT_TRUE(
      retries(gpu, node_event(SCHEDHOST_ACTION_UPDATE_NODE_LABEL, {{"accelerator", "gpu"}})));
  EXPECT_FALSE(
      retries(gpu, node_event(SCHEDHOST_ACTION_UPDATE_NODE_LABEL, {{"accelerator", "tpu"}})));
  EXPECT_TRUE(retries(gpu, node_event(SCHEDHOST_ACTION_ADD, {{"accelerator", "gpu"}})));
  EXPECT_FALSE(retries(gpu, node_event(SCHEDHOST_ACTION_ADD)));
  // Not registered: the hint is not even asked.
  EXPECT_FALSE(
      retries(gpu, node_event(SCHEDHOST_ACTION_UPDATE_NODE_ALLOCATABLE, {{"accelerator", "gpu"}})));
  // Upstream's fallback for a plugin that registered NodeAdd but not UpdateNodeTaint: a taint
  // change retries the pod without asking the hint (which would say Skip here).
  EXPECT_TRUE(retries(gpu, node_event(SCHEDHOST_ACTION_UPDATE_NODE_TAINT)));
  EXPECT_FALSE(retries(gpu, pod_event(SCHEDHOST_ACTION_DELETE)));
}

TEST_F(RequeueTest, AHintThatAnswersGarbageOrThrowsRetriesAndIsLoggedOnce) {
  auto fw = framework_with({"GpuLabelFilter"});
  testing::LogCapture log;
  EXPECT_TRUE(fw->worth_requeuing(
      pod_, {"GpuLabelFilter"},
      node_event(SCHEDHOST_ACTION_UPDATE_NODE_LABEL, {{"accelerator", "odd"}})));
  EXPECT_TRUE(fw->worth_requeuing(
      pod_, {"GpuLabelFilter"},
      node_event(SCHEDHOST_ACTION_UPDATE_NODE_LABEL, {{"accelerator", "odd"}})));
  EXPECT_EQ(
      log.lines(),
      std::vector<std::string>{
          "plugin \"GpuLabelFilter\": queueing hint for default/p on "
          "NodeUpdateNodeLabel: answered 7, which is neither SKIP (0) nor QUEUE (1); the pod is "
          "tried again (logged once per plugin)"});
  auto other = framework_with({"GpuLabelFilter"});
  testing::LogCapture thrown;
  EXPECT_TRUE(other->worth_requeuing(pod_, {"GpuLabelFilter"},
                                     node_event(SCHEDHOST_ACTION_ADD, {{"accelerator", "throw"}})));
  EXPECT_EQ(thrown.lines(),
            std::vector<std::string>{"plugin \"GpuLabelFilter\": queueing hint for "
                                     "default/p on NodeAdd: failed: hint failed; the pod is "
                                     "tried again (logged once per plugin)"});
}

TEST_F(RequeueTest, NoEnqueueExtensionsMeansEveryEventAndNoEventsMeansNone) {
  for (const ClusterEvent& e :
       {node_event(SCHEDHOST_ACTION_ADD), node_event(SCHEDHOST_ACTION_UPDATE_NODE_ANNOTATION),
        pod_event(SCHEDHOST_ACTION_ADD), pod_event(SCHEDHOST_ACTION_DELETE)}) {
    EXPECT_TRUE(retries({"NoEnqueueExtensions"}, e)) << e.label;
    EXPECT_FALSE(retries({"RegistersNothing"}, e)) << e.label;
  }
  EXPECT_TRUE(retries({"RegistersNothing"}, wildcard("UnschedulableTimeout")));
}

TEST_F(RequeueTest, APluginBuiltForAbi10IsWokenByEveryEvent) {
  // FrozenKind: built against the frozen 1.0 header, so its vtable ends before the 1.3 hooks.
  auto fw = framework_with({"FrozenKind"});
  for (const ClusterEvent& e :
       {node_event(SCHEDHOST_ACTION_UPDATE_NODE_ANNOTATION), pod_event(SCHEDHOST_ACTION_ADD),
        pod_event(SCHEDHOST_ACTION_DELETE), node_event(SCHEDHOST_ACTION_UPDATE_NODE_TAINT)}) {
    EXPECT_TRUE(fw->worth_requeuing(pod_, {"FrozenKind"}, e)) << e.label;
  }
}

TEST_F(RequeueTest, ALibraryBuiltForAbi16IsReadAndToldAsBefore) {
  const std::set<std::string> legacy = {"LegacyEvents"};
  // Pod Update (1.3's 60) still means every pod update; its hint sees UPDATE, "AssignedPodUpdate".
  EXPECT_TRUE(retries(legacy, pod_event(SCHEDHOST_ACTION_UPDATE_POD_LABEL)));
  EXPECT_TRUE(retries(legacy, pod_event(SCHEDHOST_ACTION_ANY_UPDATE)));
  EXPECT_FALSE(retries(legacy, pod_event(SCHEDHOST_ACTION_DELETE)));
  // Node All (1.3's 127) is every node event; the hint sees v1.28's labels.
  EXPECT_TRUE(retries(legacy, node_event(SCHEDHOST_ACTION_UPDATE_NODE_LABEL)));
  EXPECT_TRUE(retries(legacy, node_event(SCHEDHOST_ACTION_ADD)));
  EXPECT_FALSE(retries(legacy, node_event(SCHEDHOST_ACTION_UPDATE_NODE_TAINT)));  // its hint: Skip
  // It was never told of the pending pod's own updates: they retry the pod, as they did.
  ClusterEvent own = framework::pending_pod_event(SCHEDHOST_ACTION_UPDATE_POD_TOLERATION);
  own.pod = own.old_pod = std::make_shared<const cluster::Pod>(pod_);
  EXPECT_TRUE(retries(legacy, own));
}

TEST_F(RequeueTest, APendingPodsOwnUpdateIsAskedOfItsRejectorsHints) {
  const auto tolerating = [&](const std::string& key) {
    json p = pod_.json();
    p["spec"]["tolerations"] = {{{"key", key}, {"operator", "Exists"}, {"effect", "NoSchedule"}}};
    ClusterEvent e = framework::pending_pod_event(SCHEDHOST_ACTION_UPDATE_POD_TOLERATION);
    e.old_pod = std::make_shared<const cluster::Pod>(pod_);
    e.pod = std::make_shared<const cluster::Pod>(p);
    return e;
  };
  // NodeUnschedulable's hint: the pod now tolerates the unschedulable taint.
  EXPECT_TRUE(retries({"NodeUnschedulable"}, tolerating("node.kubernetes.io/unschedulable")));
  EXPECT_FALSE(retries({"NodeUnschedulable"}, tolerating("gpu")));
  EXPECT_FALSE(retries({"NodeResourcesFit"}, tolerating("node.kubernetes.io/unschedulable")))
      << "not registered";
  // A plugin without EnqueueExtensions takes every event, the pod's own updates too.
  EXPECT_TRUE(retries({"NoEnqueueExtensions"}, tolerating("gpu")));
}

TEST_F(RequeueTest, AProfileIsInterestedInTheEventsItsRejectingPluginsRegistered) {
  // Upstream's isEventOfInterest: without one, serve does not even walk the waiting pods.
  auto fit = framework_with({"NodeResourcesFit"});
  EXPECT_TRUE(fit->interested_in(node_event(SCHEDHOST_ACTION_ADD)));
  EXPECT_FALSE(fit->interested_in(node_event(SCHEDHOST_ACTION_UPDATE_NODE_ANNOTATION)));
  EXPECT_FALSE(fit->interested_in(pod_event(SCHEDHOST_ACTION_ANY_UPDATE)));
  EXPECT_TRUE(fit->interested_in(wildcard("UnschedulableTimeout")));
  // A plugin without EnqueueExtensions counts as registering everything...
  EXPECT_TRUE(framework_with({"NoEnqueueExtensions"})
                  ->interested_in(node_event(SCHEDHOST_ACTION_UPDATE_NODE_ANNOTATION)));
  // ...but only if it can reject a pod: a Score-only plugin (ImageLocality) never does.
  config::Profile scoring;
  scoring.scheduler_name = "default-scheduler";
  scoring.enabled[static_cast<std::size_t>(ExtensionPoint::Score)].push_back(
      {"ImageLocality", 1, {}});
  EXPECT_FALSE(framework::Framework(scoring, registry_)
                   .interested_in(node_event(SCHEDHOST_ACTION_UPDATE_NODE_ANNOTATION)));
}

TEST_F(RequeueTest, ARegistrationForNoResourceRefusesThePlugin) {
  try {
    framework_with({"MisnamedEvents"});
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "plugin \"MisnamedEvents\": registers events for \"Nodes\", which is not a "
              "resource: use one of Pod, Node, PersistentVolume, PersistentVolumeClaim, "
              "storage.k8s.io/StorageClass, storage.k8s.io/CSINode, storage.k8s.io/CSIDriver, "
              "storage.k8s.io/CSIStorageCapacity, resource.k8s.io/ResourceClaim, "
              "resource.k8s.io/ResourceSlice, resource.k8s.io/DeviceClass, \"*\", or "
              "\"<plural>.<version>.<group>\" for another kind");
  }
}

}  // namespace schedhost::live::requeue_test
