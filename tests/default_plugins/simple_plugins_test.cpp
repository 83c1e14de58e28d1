// NodeUnschedulable, NodeName, NodePorts and SchedulingGates: the real built-in .so files, with
// the cases of upstream's unit tests (kubernetes 1.28 pkg/scheduler/framework/plugins/
// nodeunschedulable, nodename, nodeports, schedulinggates) and exact codes and reasons.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "hook_runner.hpp"

namespace schedhost {
namespace {

using testing::Cycle;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
using testing::Json;
using testing::node_with;
using testing::PluginHarness;
using testing::pod_with_spec;

constexpr schedhost_code_t kSuccessCode = SCHEDHOST_SUCCESS;
constexpr schedhost_code_t kError = SCHEDHOST_ERROR;
constexpr schedhost_code_t kUnschedulable = SCHEDHOST_UNSCHEDULABLE;
constexpr schedhost_code_t kUnresolvableCode = SCHEDHOST_UNSCHEDULABLE_AND_UNRESOLVABLE;

// ---------------------------------------------------------------------------------------------
// NodeUnschedulable

TEST(NodeUnschedulable, FiltersLikeUpstream) {
  PluginHarness harness("node_unschedulable.so");
  auto plugin = harness.create("NodeUnschedulable", "{}");
  struct Case {
    const char* name;
    Json pod_spec;
    bool unschedulable;
    schedhost_code_t code;
    std::vector<std::string> reasons;
  };
  const std::vector<Case> cases = {
      {"does not schedule a pod to an unschedulable node",
       Json::object(),
       true,
       kUnresolvableCode,
       {"node(s) were unschedulable"}},
      {"schedules a pod to a normal node", Json::object(), false, kSuccessCode, {}},
      {"schedules a pod tolerating the unschedulable taint to an unschedulable node",
       {{"tolerations", {{{"key", "node.kubernetes.io/unschedulable"}, {"effect", "NoSchedule"}}}}},
       true,
       kSuccessCode,
       {}},
      {"an Exists toleration with an empty key tolerates it too",
       {{"tolerations", {{{"operator", "Exists"}}}}},
       true,
       kSuccessCode,
       {}},
      {"a toleration for another effect does not",
       {{"tolerations", {{{"key", "node.kubernetes.io/unschedulable"}, {"effect", "NoExecute"}}}}},
       true,
       kUnresolvableCode,
       {"node(s) were unschedulable"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Json spec = Json::object();
    if (c.unschedulable) spec["unschedulable"] = true;
    Cycle cycle(*plugin, cluster::Snapshot({node_with("n", Json::object(), spec)}, {}),
                pod_with_spec(c.pod_spec));
    const auto out = cycle.filter("n");
    EXPECT_EQ(out.code, c.code);
    EXPECT_EQ(out.reasons, c.reasons);
  }
}

TEST(NodeUnschedulable, TakesNoArgs) {
  PluginHarness harness("node_unschedulable.so");
  EXPECT_EQ(harness.create_error("NodeUnschedulable", R"({"x":1})"),
            "plugin \"NodeUnschedulable\": this plugin takes no args");
  const auto& def = harness.definition("NodeUnschedulable");
  EXPECT_NE(def.vtable.filter, nullptr);
  EXPECT_EQ(def.vtable.pre_filter, nullptr);
  EXPECT_EQ(def.vtable.score, nullptr);
}

// ---------------------------------------------------------------------------------------------
// NodeName

TEST(NodeName, FiltersLikeUpstream) {
  PluginHarness harness("node_name.so");
  auto plugin = harness.create("NodeName", "{}");
  const cluster::Snapshot snapshot({node_with("foo")}, {});
  {
    SCOPED_TRACE("no host specified");
    Cycle cycle(*plugin, snapshot, pod_with_spec(Json::object()));
    EXPECT_EQ(cycle.filter("foo").code, kSuccessCode);
  }
  {
    SCOPED_TRACE("host matches");
    Cycle cycle(*plugin, snapshot, pod_with_spec({{"nodeName", "foo"}}));
    const auto out = cycle.filter("foo");
    EXPECT_EQ(out.code, kSuccessCode);
    EXPECT_THAT(out.reasons, IsEmpty());
  }
  {
    SCOPED_TRACE("host doesn't match");
    Cycle cycle(*plugin, snapshot, pod_with_spec({{"nodeName", "bar"}}));
    const auto out = cycle.filter("foo");
    EXPECT_EQ(out.code, kUnresolvableCode);
    EXPECT_THAT(out.reasons, ElementsAre("node(s) didn't match the requested node name"));
  }
}

// ---------------------------------------------------------------------------------------------
// NodePorts

// A pod spec with one container holding "PROTO/IP/PORT" host ports (upstream's newPod).
Json ports_spec(const std::vector<std::string>& ports) {
  Json list = Json::array();
  for (const std::string& p : ports) {
    const auto a = p.find('/');
    const auto b = p.find('/', a + 1);
    Json port = {{"containerPort", 80},
                 {"hostPort", std::stoi(p.substr(b + 1))},
                 {"protocol", p.substr(0, a)}};
    if (b > a + 1) port["hostIP"] = p.substr(a + 1, b - a - 1);
    list.push_back(port);
  }
  return {{"containers", {{{"name", "c"}, {"image", "busybox"}, {"ports", list}}}}};
}

TEST(NodePorts, FiltersLikeUpstream) {
  PluginHarness harness("node_ports.so");
  auto plugin = harness.create("NodePorts", "{}");
  struct Case {
    const char* name;
    std::vector<std::string> wanted;
    std::vector<std::string> used;  // empty: nothing running
    schedhost_code_t code;
  };
  const std::vector<Case> cases = {
      {"nothing running", {}, {}, kSuccessCode},
      {"other port", {"UDP/127.0.0.1/8080"}, {"UDP/127.0.0.1/9090"}, kSuccessCode},
      {"same udp port", {"UDP/127.0.0.1/8080"}, {"UDP/127.0.0.1/8080"}, kUnschedulable},
      {"same tcp port", {"TCP/127.0.0.1/8080"}, {"TCP/127.0.0.1/8080"}, kUnschedulable},
      {"different host ip", {"TCP/127.0.0.1/8080"}, {"TCP/127.0.0.2/8080"}, kSuccessCode},
      {"different protocol", {"UDP/127.0.0.1/8080"}, {"TCP/127.0.0.1/8080"}, kSuccessCode},
      {"second udp port conflict",
       {"UDP/127.0.0.1/8000", "UDP/127.0.0.1/8080"},
       {"UDP/127.0.0.1/8080"},
       kUnschedulable},
      {"first tcp port conflict",
       {"TCP/127.0.0.1/8001", "UDP/127.0.0.1/8080"},
       {"TCP/127.0.0.1/8001", "UDP/127.0.0.1/8081"},
       kUnschedulable},
      {"first tcp port conflict due to 0.0.0.0 hostIP",
       {"TCP/0.0.0.0/8001"},
       {"TCP/127.0.0.1/8001"},
       kUnschedulable},
      {"TCP hostPort conflict due to 0.0.0.0 hostIP",
       {"TCP/10.0.10.10/8001", "TCP/0.0.0.0/8001"},
       {"TCP/127.0.0.1/8001"},
       kUnschedulable},
      {"second tcp port conflict to 0.0.0.0 hostIP",
       {"TCP/127.0.0.1/8001"},
       {"TCP/0.0.0.0/8001"},
       kUnschedulable},
      {"second different protocol", {"UDP/127.0.0.1/8001"}, {"TCP/0.0.0.0/8001"}, kSuccessCode},
      {"UDP hostPort conflict due to 0.0.0.0 hostIP",
       {"UDP/127.0.0.1/8001"},
       {"TCP/0.0.0.0/8001", "UDP/0.0.0.0/8001"},
       kUnschedulable},
      {"an empty hostIP is 0.0.0.0", {"TCP//8001"}, {"TCP/127.0.0.1/8001"}, kUnschedulable},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    std::vector<std::shared_ptr<const cluster::Pod>> running;
    if (!c.used.empty()) running.push_back(pod_with_spec(ports_spec(c.used), "running", "m1"));
    Cycle cycle(*plugin, cluster::Snapshot({node_with("m1")}, running),
                pod_with_spec(c.wanted.empty() ? Json::object() : ports_spec(c.wanted)));
    const auto pre = cycle.pre_filter();
    ASSERT_EQ(pre.code, kSuccessCode);
    EXPECT_FALSE(pre.node_names.has_value());
    const auto out = cycle.filter("m1");
    EXPECT_EQ(out.code, c.code);
    if (c.code == kSuccessCode) {
      EXPECT_THAT(out.reasons, IsEmpty());
    } else {
      EXPECT_THAT(out.reasons,
                  ElementsAre("node(s) didn't have free ports for the requested pod ports"));
    }
  }
}

TEST(NodePorts, FilterWithoutPreFilterStateIsAnError) {
  PluginHarness harness("node_ports.so");
  auto plugin = harness.create("NodePorts", "{}");
  Cycle cycle(*plugin, cluster::Snapshot({node_with("n")}, {}), pod_with_spec(Json::object()));
  const auto out = cycle.filter("n");
  EXPECT_EQ(out.code, kError);
  EXPECT_THAT(out.reasons,
              ElementsAre("reading \"PreFilterNodePorts\" from cycleState: not found"));
}

TEST(NodePorts, ImplementsPreFilterAndFilterOnly) {
  PluginHarness harness("node_ports.so");
  const auto& def = harness.definition("NodePorts");
  EXPECT_NE(def.vtable.pre_filter, nullptr);
  EXPECT_NE(def.vtable.filter, nullptr);
  EXPECT_EQ(def.vtable.add_pod, nullptr);
  EXPECT_EQ(def.vtable.score, nullptr);
}

// ---------------------------------------------------------------------------------------------
// SchedulingGates

TEST(SchedulingGates, PreEnqueueLikeUpstream) {
  PluginHarness harness("scheduling_gates.so");
  auto plugin = harness.create("SchedulingGates", "{}");
  const cluster::Snapshot snapshot({node_with("n")}, {});
  {
    SCOPED_TRACE("pod does not carry scheduling gates");
    Cycle cycle(*plugin, snapshot, pod_with_spec(Json::object()));
    const auto out = cycle.pre_enqueue();
    EXPECT_EQ(out.code, kSuccessCode);
    EXPECT_THAT(out.reasons, IsEmpty());
  }
  {
    SCOPED_TRACE("an empty list of gates");
    Cycle cycle(*plugin, snapshot, pod_with_spec({{"schedulingGates", Json::array()}}));
    EXPECT_EQ(cycle.pre_enqueue().code, kSuccessCode);
  }
  {
    SCOPED_TRACE("pod carries scheduling gates");
    Cycle cycle(*plugin, snapshot,
                pod_with_spec({{"schedulingGates", {{{"name", "foo"}}, {{"name", "bar"}}}}}));
    const auto out = cycle.pre_enqueue();
    EXPECT_EQ(out.code, kUnresolvableCode);
    EXPECT_THAT(out.reasons, ElementsAre("waiting for scheduling gates: [foo bar]"));
  }
  {
    SCOPED_TRACE("one gate");
    Cycle cycle(*plugin, snapshot,
                pod_with_spec({{"schedulingGates", {{{"name", "example.com/gate"}}}}}));
    EXPECT_THAT(cycle.pre_enqueue().reasons,
                ElementsAre("waiting for scheduling gates: [example.com/gate]"));
  }
}

TEST(SchedulingGates, ImplementsPreEnqueueOnly) {
  PluginHarness harness("scheduling_gates.so");
  const auto& def = harness.definition("SchedulingGates");
  EXPECT_NE(def.vtable.pre_enqueue, nullptr);
  EXPECT_EQ(def.vtable.filter, nullptr);
  EXPECT_EQ(harness.create_error("SchedulingGates", R"({"a":1})"),
            "plugin \"SchedulingGates\": this plugin takes no args");
}

}  // namespace
}  // namespace schedhost
