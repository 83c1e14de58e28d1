// schedhost/testing.hpp - unit-test a plugin without a host process: a fake host that implements
// the host API table of abi.h over fake pods and nodes, and calls a plugin's hooks one by one.
// Header-only; needs nothing but the SDK (and GoogleTest or any test framework you like).
//
//   #include <schedhost/testing.hpp>
//   using namespace schedhost::testing;
//
//   // The plugin's sources are compiled into the test, so its entry function is right here.
//   // (For a built .so: FakeHost host(FakeHost::open_library("build/my_plugin.so")).)
//   FakeHost host(schedhost_plugin_library_v1());
//   host.add_node(FakeNode("node-a").label("pool", "batch").allocatable("cpu", "4"));
//   FakePlugin plugin = host.create("NodeLabelFilter", R"({"requiredLabel": "pool"})");
//   FakeCycleState state;
//   HookResult r = plugin.filter(state, FakePod("web-1").request("cpu", "500m"), "node-a");
//   EXPECT_EQ(r.code, schedhost::Code::Success);
//
// A HookResult carries the code, the reasons (add_reason), and per hook the score, the PreFilter
// node names, the PostFilter nomination or the Permit timeout. Logs go to host.logs(); what
// plugins do to pods waiting at Permit goes to host.waiting_pod_decisions(). The events a plugin
// registers (ABI 1.3) are plugin.events(); its queueing hint is
// plugin.queueing_hint(pod, FakeClusterEvent::node_add("node-a")). Declare the
// FakeHost before its FakePlugins: a plugin instance must be destroyed before the host.
#pragma once

#include <schedhost/testing/fake_cluster_event.hpp>
#include <schedhost/testing/fake_cycle_state.hpp>
#include <schedhost/testing/fake_host.hpp>
#include <schedhost/testing/fake_objects.hpp>
#include <schedhost/testing/fake_plugin.hpp>
#include <schedhost/testing/quantity.hpp>
