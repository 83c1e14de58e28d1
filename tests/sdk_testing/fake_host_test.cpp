// The SDK's fake host (schedhost/testing.hpp) driving a real plugin, Probe (fixtures/), whose
// source is linked into this test: every hook, with exact codes, reasons, scores and side
// results, and the host API answers they depend on.
#include <gtest/gtest.h>
#include <schedhost/testing.hpp>

#include <chrono>
#include <cstddef>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using schedhost::Code;
using namespace schedhost::testing;

using Strings = std::vector<std::string>;

class FakeHostTest : public ::testing::Test {
 protected:
  FakeHostTest() {
    host_
        .add_node(FakeNode("node-a")
                      .allocatable("cpu", "4")
                      .image("nginx:1.25", 100)
                      .pod(FakePod("running-1").request("cpu", "3")))
        .add_node(FakeNode("node-b").allocatable("cpu", "8").image("nginx:1.25", 100))
        .add_node(
            FakeNode("node-c").allocatable("cpu", "8").taint("dedicated", "gpu", "NoSchedule"))
        .add_namespace("prod", {{"team", "blue"}});
  }
  FakeHost host_{schedhost_plugin_library_v1()};
  FakeCycleState state_;
  FakePod pod_ = FakePod("web-1", "prod").request("cpu", "1500m");
};

TEST_F(FakeHostTest, LoadsTheLibraryAndListsEveryExtensionPoint) {
  EXPECT_STREQ(host_.library().name, "probe");
  EXPECT_STREQ(host_.library().version, "1.2.3");
  FakePlugin plugin = host_.create("Probe");
  EXPECT_EQ(plugin.extension_points(),
            (Strings{"PreEnqueue", "QueueSort", "PreFilter", "PreFilterExtensions", "Filter",
                     "PostFilter", "PreScore", "Score", "NormalizeScore", "Reserve", "Unreserve",
                     "Permit", "PreBind", "Bind", "PostBind"}));
}

TEST_F(FakeHostTest, CreateReportsRefusedArgsAsTheHostPrintsThem) {
  EXPECT_EQ(host_.create_error("Probe", R"({"minFree": -1})"), "minFree must not be negative");
  EXPECT_EQ(host_.create_error("Probe", R"({"minFree": 1})"), "");
  try {
    host_.create("Probe", R"({"minFree": -1})");
    FAIL() << "create accepted bad args";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "plugin \"Probe\": minFree must not be negative");
  }
  EXPECT_THROW(host_.create("NoSuchPlugin"), std::invalid_argument);
}

TEST_F(FakeHostTest, PreEnqueueAndQueueSort) {
  FakePlugin plugin = host_.create("Probe");
  EXPECT_EQ(plugin.pre_enqueue(pod_).code, Code::Success);
  const HookResult gated = plugin.pre_enqueue(FakePod("gated").label("gated", "yes"));
  EXPECT_EQ(gated.code, Code::Unschedulable);
  EXPECT_EQ(gated.reasons, Strings{"pod is gated"});
  EXPECT_TRUE(plugin.less(FakePod("high").priority(10), FakePod("low").priority(1)));
  EXPECT_FALSE(plugin.less(FakePod("low").priority(1), FakePod("high").priority(10)));
  EXPECT_TRUE(plugin.less(FakePod("a"), FakePod("b"), 1, 2));
}

TEST_F(FakeHostTest, PreFilterWritesStateThatFilterReads) {
  FakePlugin plugin = host_.create("Probe");
  const HookResult pre = plugin.pre_filter(state_, pod_);
  EXPECT_EQ(pre.code, Code::Success);
  EXPECT_EQ(pre.node_names, std::nullopt);
  EXPECT_TRUE(state_.contains("PreFilterProbe"));
  ASSERT_EQ(host_.logs().size(), 1U);
  EXPECT_EQ(host_.logs()[0].plugin, "Probe");
  EXPECT_EQ(host_.logs()[0].level, SCHEDHOST_LOG_INFO);
  EXPECT_EQ(host_.logs()[0].message,
            "PreFilter web-1 sees 3 nodes, pods on [node-a], anti-affinity on []");

  const HookResult busy = plugin.filter(state_, pod_, "node-a");  // 1 core free, 1.5 asked
  EXPECT_EQ(busy.code, Code::Unschedulable);
  EXPECT_EQ(busy.reasons, (Strings{"Insufficient cpu", "too busy"}));
  EXPECT_EQ(busy.message(), "Insufficient cpu, too busy");
  EXPECT_EQ(plugin.filter(state_, pod_, "node-b").code, Code::Success);
  const HookResult tainted = plugin.filter(state_, pod_, "node-c");
  EXPECT_EQ(tainted.code, Code::UnschedulableAndUnresolvable);
  EXPECT_EQ(tainted.reasons, Strings{"node(s) had taint dedicated"});
  EXPECT_THROW(plugin.filter(state_, pod_, "node-z"), std::invalid_argument);
}

TEST(FakeHostNodesWithPods, ListsTheNodesHoldingPodsOfAKindAlsoOnAnOlderHost) {
  const nlohmann::json anti = {{{"topologyKey", "kubernetes.io/hostname"}}};
  FakeHost host(schedhost_plugin_library_v1());
  host.add_node(FakeNode("empty"))
      .add_node(FakeNode("plain").pod(FakePod("p")))
      .add_node(FakeNode("spread").pod(FakePod("q").json(
          "/spec/affinity/podAntiAffinity/requiredDuringSchedulingIgnoredDuringExecution", anti)));
  const std::string expected =
      "PreFilter w sees 3 nodes, pods on [plain,spread], anti-affinity on [spread]";
  FakeCycleState state;
  host.create("Probe").pre_filter(state, FakePod("w"));
  // A host older than ABI 1.1 lacks the lists: the wrapper walks every node instead.
  host.set_api_struct_size(offsetof(schedhost_host_api_t, snapshot_nodes_with_pods_count));
  FakeCycleState older_state;
  host.create("Probe").pre_filter(older_state, FakePod("w"));
  ASSERT_EQ(host.logs().size(), 2U);
  EXPECT_EQ(host.logs()[0].message, expected);
  EXPECT_EQ(host.logs()[1].message, expected);
}

TEST_F(FakeHostTest, FilterWithoutPreFilterIsAnError) {
  FakePlugin plugin = host_.create("Probe");
  const HookResult r = plugin.filter(state_, pod_, "node-b");
  EXPECT_EQ(r.code, Code::Error);
  EXPECT_EQ(r.reasons, Strings{"no PreFilter state"});
}

TEST_F(FakeHostTest, PreFilterNarrowsNodesAndSkips) {
  FakePlugin plugin = host_.create("Probe");
  const HookResult only = plugin.pre_filter(state_, FakePod("p").label("only", "node-b"));
  EXPECT_EQ(only.node_names, Strings{"node-b"});
  EXPECT_EQ(plugin.pre_filter(state_, FakePod("p").label("skip", "")).code, Code::Skip);
}

TEST_F(FakeHostTest, AddPodAndRemovePodChangeTheirStateCopy) {
  FakePlugin plugin = host_.create("Probe", R"({"minFree": 0})");
  plugin.pre_filter(state_, pod_);
  ASSERT_EQ(plugin.filter(state_, pod_, "node-b").code, Code::Success);
  const FakePod other = FakePod("other").request("cpu", "7");
  EXPECT_EQ(plugin.add_pod(state_, pod_, other, "node-b").code, Code::Success);
  EXPECT_EQ(plugin.filter(state_, pod_, "node-b").code, Code::Unschedulable);  // 8.5 of 8
  EXPECT_EQ(plugin.remove_pod(state_, pod_, other, "node-b").code, Code::Success);
  EXPECT_EQ(plugin.filter(state_, pod_, "node-b").code, Code::Success);
}

TEST_F(FakeHostTest, StateIsReadOnlyDuringFilterAndScore) {
  FakeCycleState state;
  int destroyed = 0;
  static int* counter = nullptr;
  counter = &destroyed;
  static const schedhost_state_ops_t ops = {sizeof(schedhost_state_ops_t), nullptr,
                                            [](void*) { ++*counter; }};
  int value = 1;
  state.set_read_only(true);
  EXPECT_FALSE(host_.api()->state_write(state.handle(), {"k", 1}, &value, &ops));
  EXPECT_EQ(destroyed, 1);  // refused, but freed: the host owns what it is given
  state.set_read_only(false);
  EXPECT_TRUE(host_.api()->state_write(state.handle(), {"k", 1}, &value, &ops));
  EXPECT_EQ(host_.api()->state_read(state.handle(), {"k", 1}, &ops), &value);
  static const schedhost_state_ops_t other_ops = ops;
  EXPECT_EQ(host_.api()->state_read(state.handle(), {"k", 1}, &other_ops), nullptr);
}

TEST_F(FakeHostTest, PostFilterNominatesTheFirstResolvableNode) {
  FakePlugin plugin = host_.create("Probe");
  const HookResult r = plugin.post_filter(
      state_, pod_,
      {{"node-c", Code::UnschedulableAndUnresolvable, "Probe", "node(s) had taint dedicated"},
       {"node-a", Code::Unschedulable, "Probe", "Insufficient cpu"}});
  EXPECT_EQ(r.code, Code::Success);
  EXPECT_EQ(r.nominated_node, "node-a");
  const HookResult none = plugin.post_filter(state_, pod_, {});
  EXPECT_EQ(none.code, Code::Unschedulable);
  EXPECT_EQ(none.nominated_node, std::nullopt);
}

TEST_F(FakeHostTest, ScoresAreNormalized) {
  FakePlugin plugin = host_.create("Probe");
  EXPECT_EQ(plugin.pre_score(state_, pod_, Strings{"node-a", "node-b"}).code, Code::Success);
  EXPECT_EQ(plugin.score(state_, pod_, "node-a").score, 2);  // 1 free core + 1 image
  const HookResult r = plugin.scores(state_, pod_);
  ASSERT_TRUE(r.ok()) << r;
  EXPECT_EQ(r.scores, (std::vector<NodeScore>{{"node-a", 22}, {"node-b", 100}, {"node-c", 88}}));
}

TEST_F(FakeHostTest, ReserveUnreserveAndLogs) {
  FakePlugin plugin = host_.create("Probe");
  EXPECT_EQ(plugin.reserve(state_, pod_, "node-b").code, Code::Success);
  ASSERT_EQ(host_.logs().size(), 1U);
  EXPECT_EQ(host_.logs()[0].message, "reserved web-1 on node-b");
  const HookResult full = plugin.reserve(state_, pod_, "full");
  EXPECT_EQ(full.code, Code::Unschedulable);
  EXPECT_EQ(full.reasons, Strings{"node is full"});
  const HookResult un = plugin.unreserve(state_, pod_, "node-b");
  EXPECT_EQ(un.reasons, Strings{"unreserve failed"});  // the wrapper's exception barrier

  host_.clear_logs();
  host_.set_log_level(SCHEDHOST_LOG_INFO);  // debug lines are now disabled
  plugin.reserve(state_, pod_, "node-b");
  EXPECT_TRUE(host_.logs().empty());
}

TEST_F(FakeHostTest, PermitWaitsThenAllowsTheWaitingGang) {
  FakePlugin plugin = host_.create("Probe");
  const FakePod member = FakePod("m-1", "prod").label("gang", "g").annotation("min", "3");
  const HookResult wait = plugin.permit(state_, member, "node-b");
  EXPECT_EQ(wait.code, Code::Wait);
  EXPECT_EQ(wait.timeout, std::chrono::seconds(10));

  host_.add_waiting_pod(member).add_waiting_pod(FakePod("m-2", "prod").label("gang", "g"));
  host_.add_waiting_pod(FakePod("other", "prod").label("gang", "h"));
  const HookResult last = plugin.permit(
      state_, FakePod("m-3", "prod").label("gang", "g").annotation("min", "3"), "node-b");
  EXPECT_EQ(last.code, Code::Success);
  ASSERT_EQ(host_.waiting_pod_decisions().size(), 2U);
  EXPECT_EQ(host_.waiting_pod_decisions()[0].uid, "prod/m-1");
  EXPECT_EQ(host_.waiting_pod_decisions()[0].plugin, "Probe");
  EXPECT_TRUE(host_.waiting_pod_decisions()[0].allowed);
  EXPECT_EQ(host_.waiting_pod_decisions()[1].uid, "prod/m-2");
  EXPECT_EQ(host_.waiting_pod_uids(), Strings{"prod/other"});
}

TEST_F(FakeHostTest, PreBindPreFlightSaysWhetherPreBindWillWork) {
  FakePlugin plugin = host_.create("Probe");
  EXPECT_EQ(plugin.pre_bind_pre_flight(state_, FakePod("p").label("team", "blue"), "node-b").code,
            Code::Success);
  EXPECT_EQ(plugin.pre_bind_pre_flight(state_, FakePod("p"), "node-b").code, Code::Skip);
  const HookResult broken = plugin.pre_bind_pre_flight(state_, FakePod("p"), "broken");
  EXPECT_EQ(broken.code, Code::Error);
  EXPECT_EQ(broken.reasons, Strings{"node broken cannot be prepared"});
}

TEST_F(FakeHostTest, SignPodGivesTheFragmentsAsCompactJson) {
  FakePlugin plugin = host_.create("Probe");
  const HookResult signed_pod =
      plugin.sign_pod(FakePod("p")
                          .request("cpu", "1500m")
                          .toleration({"gpu", "Exists", "", "NoSchedule", std::nullopt})
                          .toleration({"dedicated", "Equal", "db", "NoExecute", 30}));
  EXPECT_EQ(signed_pod.code, Code::Success);
  EXPECT_EQ(
      signed_pod.signature,
      (std::map<std::string, std::string>{
          {"v1.Pod.Spec.ContainerRequestsAndOverheads()",
           R"({"nonzero":{"cpu":1500,"memory":209715200},"requests":{"cpu":1500}})"},
          {"v1.Pod.Spec.Tolerations",
           R"([["dedicated","Equal","db","NoExecute",30],["gpu","Exists","","NoSchedule",null]])"}}));
  // The same tolerations in another order sign the same.
  const HookResult reordered =
      plugin.sign_pod(FakePod("q")
                          .request("cpu", "1500m")
                          .toleration({"dedicated", "Equal", "db", "NoExecute", 30})
                          .toleration({"gpu", "Exists", "", "NoSchedule", std::nullopt}));
  EXPECT_EQ(reordered.signature, signed_pod.signature);
  const HookResult refused = plugin.sign_pod(FakePod("p").label("unsignable", "true"));
  EXPECT_EQ(refused.code, Code::Unschedulable);
  EXPECT_EQ(refused.reasons, Strings{"not signable"});
  EXPECT_TRUE(refused.signature.empty());
}

TEST_F(FakeHostTest, BindingHooksReadNamespacesAndJson) {
  FakePlugin plugin = host_.create("Probe");
  EXPECT_EQ(plugin.pre_bind(state_, FakePod("p", "prod").label("team", "blue"), "node-b").code,
            Code::Success);
  const HookResult mismatch = plugin.pre_bind(state_, FakePod("p", "dev"), "node-b");
  EXPECT_EQ(mismatch.code, Code::Success);  // no Namespace object, no team label: both absent
  const HookResult red = plugin.pre_bind(state_, FakePod("p", "prod").label("team", "red"), "n");
  EXPECT_EQ(red.code, Code::Error);
  EXPECT_EQ(red.reasons, Strings{"namespace team mismatch"});

  EXPECT_EQ(plugin.bind(state_, pod_, "node-b").code, Code::Skip);
  EXPECT_EQ(plugin.bind(state_, FakePod("p").json("/spec/bindHere", true), "node-b").code,
            Code::Success);
  EXPECT_EQ(plugin.post_bind(state_, pod_, "node-b").code, Code::Success);
  EXPECT_EQ(host_.logs().back().message, "bound web-1 to node-b");
}

}  // namespace
