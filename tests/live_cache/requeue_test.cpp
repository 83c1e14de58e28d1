// Which cluster events retry a rejected pod (upstream's isPodWorthRequeuing, ABI 1.3): the built-in
// plugins' registrations (upstream's 1.28 table), a third-party .so's registrations and queueing
// hint, the defaults for a plugin without EnqueueExtensions or with no events, and the refusal of a
// registration that names no resource. Real plugins, loaded from their .so files.
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

using framework::cluster_event;
using framework::ClusterEvent;
using nlohmann::json;

class RequeueTest : public ::testing::Test {
 protected:
  RequeueTest() {
    registry_.load_directories({{testing::builtin_plugin_dir(), true},
                                {std::string(SCHEDHOST_TEST_FIXTURE_DIR) + "/events", true},
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
  static ClusterEvent node_event(const std::string& label, const json& labels = json::object()) {
    ClusterEvent e = cluster_event(label);
    e.node = node(labels);
    return e;
  }
  static ClusterEvent pod_event(const std::string& label) {
    ClusterEvent e = cluster_event(label);
    auto other = std::make_shared<const cluster::Pod>(
        json{{"apiVersion", "v1"},
             {"kind", "Pod"},
             {"metadata", {{"name", "other"}, {"namespace", "default"}, {"uid", "u2"}}},
             {"spec", {{"nodeName", "n1"}, {"containers", json::array()}}}});
    (label == "AssignedPodDelete" ? e.old_pod : e.pod) = other;
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

TEST_F(RequeueTest, TheBuiltInsRegisterUpstreamsEvents) {
  // NodeResourcesFit: Pod Delete; Node Add | Update.
  EXPECT_TRUE(retries({"NodeResourcesFit"}, node_event("NodeAdd")));
  EXPECT_TRUE(retries({"NodeResourcesFit"}, node_event("NodeAllocatableChange")));
  EXPECT_TRUE(retries({"NodeResourcesFit"}, node_event("NodeLabelChange")));
  EXPECT_TRUE(retries({"NodeResourcesFit"}, pod_event("AssignedPodDelete")));
  EXPECT_FALSE(retries({"NodeResourcesFit"}, pod_event("AssignedPodAdd")));
  EXPECT_FALSE(retries({"NodeResourcesFit"}, pod_event("AssignedPodUpdate")));
  EXPECT_FALSE(retries({"NodeResourcesFit"}, node_event("NodeAnnotationChange")));
  // NodeUnschedulable: Node Add | UpdateNodeTaint (a node made schedulable counts as a taint).
  EXPECT_TRUE(retries({"NodeUnschedulable"}, node_event("NodeSpecUnschedulableChange")));
  EXPECT_TRUE(retries({"NodeUnschedulable"}, node_event("NodeTaintChange")));
  EXPECT_FALSE(retries({"NodeUnschedulable"}, node_event("NodeLabelChange")));
  EXPECT_FALSE(retries({"NodeUnschedulable"}, pod_event("AssignedPodDelete")));
  // TaintToleration: Node Add | Update only.
  EXPECT_TRUE(retries({"TaintToleration"}, node_event("NodeConditionChange")));
  EXPECT_FALSE(retries({"TaintToleration"}, pod_event("AssignedPodDelete")));
  // InterPodAffinity: Pod All; Node Add | UpdateNodeLabel.
  EXPECT_TRUE(retries({"InterPodAffinity"}, pod_event("AssignedPodAdd")));
  EXPECT_TRUE(retries({"InterPodAffinity"}, pod_event("AssignedPodUpdate")));
  EXPECT_FALSE(retries({"InterPodAffinity"}, node_event("NodeTaintChange")));
  // PodTopologySpread registers Node Delete too (upstream moves nothing on it: no such event).
  EXPECT_TRUE(retries({"PodTopologySpread"}, node_event("NodeLabelChange")));
  EXPECT_FALSE(retries({"PodTopologySpread"}, node_event("NodeAllocatableChange")));
  // Any of the rejecting plugins is enough.
  EXPECT_TRUE(retries({"NodeUnschedulable", "NodeResourcesFit"}, pod_event("AssignedPodDelete")));
}

TEST_F(RequeueTest, NoRejectingPluginOrTheWildcardRetriesEveryPod) {
  auto fw = framework_with({"NodeUnschedulable"});
  EXPECT_TRUE(fw->worth_requeuing(pod_, {}, node_event("NodeLabelChange")));
  EXPECT_TRUE(
      fw->worth_requeuing(pod_, {"NodeUnschedulable"}, cluster_event("UnschedulableTimeout")));
  // A rejection by something that is not a plugin of the profile: retried, to be safe.
  EXPECT_TRUE(fw->worth_requeuing(pod_, {"PreEnqueue"}, node_event("NodeLabelChange")));
}

TEST_F(RequeueTest, AThirdPartyHintDecidesForTheEventsItRegistered) {
  const std::set<std::string> gpu = {"GpuLabelFilter"};
  EXPECT_TRUE(retries(gpu, node_event("NodeLabelChange", {{"accelerator", "gpu"}})));
  EXPECT_FALSE(retries(gpu, node_event("NodeLabelChange", {{"accelerator", "tpu"}})));
  EXPECT_TRUE(retries(gpu, node_event("NodeAdd", {{"accelerator", "gpu"}})));
  EXPECT_FALSE(retries(gpu, node_event("NodeAdd")));
  // Not registered: the hint is not even asked.
  EXPECT_FALSE(retries(gpu, node_event("NodeTaintChange", {{"accelerator", "gpu"}})));
  EXPECT_FALSE(retries(gpu, pod_event("AssignedPodDelete")));
}

TEST_F(RequeueTest, AHintThatAnswersGarbageOrThrowsRetriesAndIsLoggedOnce) {
  auto fw = framework_with({"GpuLabelFilter"});
  testing::LogCapture log;
  EXPECT_TRUE(fw->worth_requeuing(pod_, {"GpuLabelFilter"},
                                  node_event("NodeLabelChange", {{"accelerator", "odd"}})));
  EXPECT_TRUE(fw->worth_requeuing(pod_, {"GpuLabelFilter"},
                                  node_event("NodeLabelChange", {{"accelerator", "odd"}})));
  EXPECT_EQ(log.lines(),
            std::vector<std::string>{
                "plugin \"GpuLabelFilter\": queueing hint for default/p on "
                "NodeLabelChange: answered 7, which is neither SKIP (0) nor QUEUE (1); the pod is "
                "tried again (logged once per plugin)"});
  auto other = framework_with({"GpuLabelFilter"});
  testing::LogCapture thrown;
  EXPECT_TRUE(other->worth_requeuing(pod_, {"GpuLabelFilter"},
                                     node_event("NodeAdd", {{"accelerator", "throw"}})));
  EXPECT_EQ(thrown.lines(),
            std::vector<std::string>{"plugin \"GpuLabelFilter\": queueing hint for "
                                     "default/p on NodeAdd: failed: hint failed; the pod is "
                                     "tried again (logged once per plugin)"});
}

TEST_F(RequeueTest, NoEnqueueExtensionsMeansEveryEventAndNoEventsMeansNone) {
  for (const ClusterEvent& e : {node_event("NodeAdd"), node_event("NodeAnnotationChange"),
                                pod_event("AssignedPodAdd"), pod_event("AssignedPodDelete")}) {
    EXPECT_TRUE(retries({"NoEnqueueExtensions"}, e)) << e.label;
    EXPECT_FALSE(retries({"RegistersNothing"}, e)) << e.label;
  }
  EXPECT_TRUE(retries({"RegistersNothing"}, cluster_event("UnschedulableTimeout")));
}

TEST_F(RequeueTest, APluginBuiltForAbi10IsWokenByEveryEvent) {
  // FrozenKind: built against the frozen 1.0 header, so its vtable ends before the 1.3 hooks.
  auto fw = framework_with({"FrozenKind"});
  for (const ClusterEvent& e : {node_event("NodeAnnotationChange"), pod_event("AssignedPodAdd"),
                                pod_event("AssignedPodDelete"), node_event("NodeTaintChange")}) {
    EXPECT_TRUE(fw->worth_requeuing(pod_, {"FrozenKind"}, e)) << e.label;
  }
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
              "storage.k8s.io/CSIStorageCapacity, \"*\", or \"<plural>.<version>.<group>\" for "
              "another kind");
  }
}

}  // namespace schedhost::live::requeue_test
