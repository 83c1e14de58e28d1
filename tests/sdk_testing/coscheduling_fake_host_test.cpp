// The Coscheduling example (plugins/examples/coscheduling, linked in) on the SDK's fake host, as
// its author unit-tests it: the PodGroup custom resource it declares (ABI 1.9) added as objects,
// its status writes applied to them as `schedhost run` applies them, its Events and metrics
// recorded by the fake host.
#include <gtest/gtest.h>
#include <schedhost/testing.hpp>

#include <chrono>
#include <string>
#include <vector>

namespace {

using namespace schedhost::testing;
using schedhost::Code;
using Strings = std::vector<std::string>;

const std::string kPodGroupsName = "podgroups.v1alpha1.scheduling.x-k8s.io";
const std::string kPodGroupPath =
    "/apis/scheduling.x-k8s.io/v1alpha1/namespaces/batch/podgroups/train";

nlohmann::json podgroup_object(int min_member, int timeout_seconds) {
  return {{"apiVersion", "scheduling.x-k8s.io/v1alpha1"},
          {"kind", "PodGroup"},
          {"metadata", {{"name", "train"}, {"namespace", "batch"}, {"resourceVersion", "7"}}},
          {"spec", {{"minMember", min_member}, {"scheduleTimeoutSeconds", timeout_seconds}}}};
}

FakePod gang_member(const std::string& name) {
  return FakePod(name, "batch").uid("uid-" + name).label("scheduling.x-k8s.io/pod-group", "train");
}

class CoschedulingFakeHostTest : public ::testing::Test {
 protected:
  FakeHost host_{schedhost_plugin_library_v1()};
  FakeCycleState state_;
};

TEST_F(CoschedulingFakeHostTest, DeclaresThePodGroupResourceAndItsMetrics) {
  const schedhost_plugin_descriptor_t& d = host_.descriptor("Coscheduling");
  ASSERT_EQ(d.resource_count, 1u);
  EXPECT_STREQ(d.resources[0].group, "scheduling.x-k8s.io");
  EXPECT_STREQ(d.resources[0].version, "v1alpha1");
  EXPECT_STREQ(d.resources[0].plural, "podgroups");
  EXPECT_STREQ(d.resources[0].kind, "PodGroup");
  EXPECT_TRUE(d.resources[0].namespaced);
  ASSERT_EQ(d.metric_count, 2u);
  EXPECT_STREQ(d.metrics[0].name, "gangs_rejected_total");
  EXPECT_EQ(d.metrics[0].kind, SCHEDHOST_METRIC_COUNTER);
  EXPECT_STREQ(d.metrics[1].name, "gang_wait_seconds");
  EXPECT_EQ(d.metrics[1].kind, SCHEDHOST_METRIC_HISTOGRAM);
}

TEST_F(CoschedulingFakeHostTest, AMemberWithoutItsPodGroupIsUnresolvable) {
  FakePlugin plugin = host_.create("Coscheduling");
  const HookResult r = plugin.pre_filter(state_, gang_member("train-0"));
  EXPECT_EQ(r.code, Code::UnschedulableAndUnresolvable);
  EXPECT_EQ(r.reasons, Strings{"PodGroup batch/train not found"});
  // A pod without the label is not the plugin's.
  EXPECT_EQ(plugin.pre_filter(state_, FakePod("web", "batch")).code, Code::Success);
}

TEST_F(CoschedulingFakeHostTest, MembersWaitForMinMemberThenTheLastOneAllowsThemAll) {
  host_.add_object(kPodGroupsName, podgroup_object(2, 30));
  host_.add_node(FakeNode("node-a"));
  FakePlugin plugin = host_.create("Coscheduling");
  const HookResult first = plugin.permit(state_, gang_member("train-0"), "node-a");
  EXPECT_EQ(first.code, Code::Wait);
  EXPECT_EQ(first.timeout, std::chrono::seconds(30));  // the PodGroup's scheduleTimeoutSeconds
  // The first member now waits, placed on node-a: the second completes the gang.
  FakeHost complete{schedhost_plugin_library_v1()};
  complete.add_object(kPodGroupsName, podgroup_object(2, 30));
  complete.add_node(FakeNode("node-a").pod(gang_member("train-0")));
  complete.add_waiting_pod(gang_member("train-0"));
  FakePlugin second = complete.create("Coscheduling");
  EXPECT_EQ(second.permit(state_, gang_member("train-1"), "node-a").code, Code::Success);
  ASSERT_EQ(complete.waiting_pod_decisions().size(), 1u);
  EXPECT_EQ(complete.waiting_pod_decisions()[0].uid, "uid-train-0");
  EXPECT_TRUE(complete.waiting_pod_decisions()[0].allowed);
}

// PostBind reads the PodGroup and patches its status on its resourceVersion; with no API server
// the fake host applies the writes to its objects, as run does.
TEST_F(CoschedulingFakeHostTest, PostBindWritesThePodGroupsStatus) {
  host_.add_object(kPodGroupsName, podgroup_object(2, 30));
  host_.add_node(FakeNode("node-a").pod(gang_member("train-0")).pod(gang_member("train-1")));
  FakePlugin plugin = host_.create("Coscheduling");
  EXPECT_EQ(plugin.post_bind(state_, gang_member("train-1"), "node-a").code, Code::Success);
  const auto& sent = host_.api_requests();
  ASSERT_EQ(sent.size(), 2u);
  EXPECT_EQ(sent[0].verb, "GET");
  EXPECT_EQ(sent[0].path, kPodGroupPath);
  EXPECT_EQ(sent[1].verb, "PATCH");
  EXPECT_EQ(sent[1].path, kPodGroupPath + "/status");
  EXPECT_EQ(sent[1].content_type, "application/merge-patch+json");
  EXPECT_EQ(nlohmann::json::parse(sent[1].body),
            nlohmann::json::parse(R"({"metadata": {"resourceVersion": "7"},
                                      "status": {"phase": "Scheduled", "scheduled": 2}})"));
  // The object as the write left it, for the next hook to read: a second PostBind patches on
  // the resourceVersion the first write gave it.
  EXPECT_EQ(plugin.post_bind(state_, gang_member("train-1"), "node-a").code, Code::Success);
  ASSERT_EQ(host_.api_requests().size(), 4u);
  EXPECT_EQ(nlohmann::json::parse(host_.api_requests()[3].body)["metadata"]["resourceVersion"],
            "1");
  EXPECT_TRUE(host_.events().empty());
}

// A member given up rejects the gang's other waiting members, records an Event about itself and
// counts the gang in its metric; the gang stays rejected at PreFilter until its PodGroup changes.
TEST_F(CoschedulingFakeHostTest, AnUnreservedMemberRejectsTheGangWithAnEvent) {
  host_.add_object(kPodGroupsName, podgroup_object(3, 30));
  host_.add_node(FakeNode("node-a").pod(gang_member("train-1")));
  host_.add_waiting_pod(gang_member("train-1"));
  FakePlugin plugin = host_.create("Coscheduling");
  EXPECT_EQ(plugin.unreserve(state_, gang_member("train-0"), "node-a").code, Code::Success);
  ASSERT_EQ(host_.waiting_pod_decisions().size(), 1u);
  EXPECT_FALSE(host_.waiting_pod_decisions()[0].allowed);
  EXPECT_EQ(host_.waiting_pod_decisions()[0].message,
            "pod group batch/train was rejected: member train-0 was unreserved");
  ASSERT_EQ(host_.events().size(), 1u);
  EXPECT_EQ(host_.events()[0].plugin, "Coscheduling");
  EXPECT_EQ(host_.events()[0].pod, "batch/train-0");
  EXPECT_EQ(host_.events()[0].type, "Warning");
  EXPECT_EQ(host_.events()[0].reason, "GangRejected");
  EXPECT_EQ(host_.events()[0].message,
            "PodGroup batch/train rejected: member train-0 was unreserved (1 other member(s) "
            "placed, minMember 3)");
  EXPECT_EQ(host_.metric("Coscheduling", "gangs_rejected_total").total, 1);
  const HookResult again = plugin.pre_filter(state_, gang_member("train-2"));
  EXPECT_EQ(again.code, Code::UnschedulableAndUnresolvable);
  EXPECT_EQ(again.reasons, Strings{"pod group batch/train was rejected earlier: member train-0 "
                                   "was unreserved"});
  // Its PodGroup changed (another resourceVersion): the gang is tried again.
  nlohmann::json changed = podgroup_object(2, 30);
  changed["metadata"]["resourceVersion"] = "8";
  host_.add_object(kPodGroupsName, changed);
  EXPECT_EQ(plugin.pre_filter(state_, gang_member("train-2")).code, Code::Success);
}

}  // namespace
