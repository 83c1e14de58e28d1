// The C++ wrapper through the real ABI: a library built with plugin.hpp, loaded by the loader,
// each hook called the way the framework calls it. Statuses, reasons, results and args must
// arrive exactly; an exception must become an Error carrying its message.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "common/input_error.hpp"
#include "framework/call.hpp"
#include "framework/cycle_state.hpp"
#include "framework/plugin_instance.hpp"
#include "loader/plugin_registry.hpp"
#include "support/log_capture.hpp"

namespace schedhost {
namespace {

using framework::Call;
using framework::CycleState;
using framework::PluginInstance;
using ::testing::ElementsAre;

std::string wrapper_fixture() {
  return std::string(SCHEDHOST_TEST_FIXTURE_DIR) + "/sdk/wrapper_fixture.so";
}

class Wrapper : public ::testing::Test {
 protected:
  void SetUp() override {
    registry_.load_file(wrapper_fixture());
    ASSERT_TRUE(registry_.failures().empty()) << registry_.failures()[0].message;
  }
  std::unique_ptr<PluginInstance> create(const std::string& plugin, const std::string& args) {
    const loader::PluginDefinition* def = registry_.find(plugin);
    EXPECT_NE(def, nullptr) << plugin;
    return PluginInstance::create(*def, args);
  }
  loader::PluginRegistry registry_;
};

std::vector<std::string> point_names(const ExtensionPointSet& points) {
  std::vector<std::string> out;
  for (ExtensionPoint p : kAllExtensionPoints) {
    if (points.contains(p)) out.emplace_back(to_string(p));
  }
  return out;
}

TEST_F(Wrapper, RegistersExactlyTheMethodsEachClassHas) {
  const loader::LoadedLibrary& lib = registry_.libraries()[0]->info;
  EXPECT_EQ(lib.name, "wrapper-fixture");
  EXPECT_EQ(lib.version, "2.3.4");
  EXPECT_THAT(lib.build_info, ::testing::StartsWith("schedhost C++ SDK built by "));
  ASSERT_EQ(lib.plugins.size(), 6u);
  EXPECT_EQ(point_names(lib.plugins[0].points).size(), kExtensionPointCount);
  EXPECT_THAT(point_names(registry_.find("ArgsEcho")->points), ElementsAre("Filter"));
  EXPECT_THAT(point_names(registry_.find("NoArgs")->points), ElementsAre("Filter"));
  EXPECT_THAT(point_names(registry_.find("StateCounter")->points),
              ElementsAre("PreFilter", "PreFilterExtensions", "Filter"));
  EXPECT_THAT(point_names(registry_.find("ObjectInspector")->points), ElementsAre("Filter"));
}

// Calls every status-returning hook of Scripted and returns {code, reasons} of each.
struct HookResult {
  std::string hook;
  schedhost_code_t code;
  std::vector<std::string> reasons;
};

std::vector<HookResult> call_every_hook(const PluginInstance& p) {
  const schedhost_plugin_vtable_t& v = p.vtable();
  void* self = p.self();
  std::vector<HookResult> out;
  auto record = [&out](const char* hook, schedhost_code_t code, const Call& call) {
    out.push_back({hook, code, call.reasons()});
  };
  CycleState state;
  const schedhost_str_t node{"node-a", 6};
  {
    Call c;
    record("PreEnqueue", v.pre_enqueue(self, c.handle(), nullptr), c);
  }
  {
    Call c;
    record("PreFilter", v.pre_filter(self, c.handle(), state.handle(), nullptr), c);
  }
  {
    Call c;
    record("AddPod", v.add_pod(self, c.handle(), state.handle(), nullptr, nullptr, nullptr), c);
  }
  {
    Call c;
    record("RemovePod", v.remove_pod(self, c.handle(), state.handle(), nullptr, nullptr, nullptr),
           c);
  }
  {
    Call c;
    record("Filter", v.filter(self, c.handle(), state.handle(), nullptr, nullptr), c);
  }
  {
    Call c;
    int64_t score = 0;
    record("Score", v.score(self, c.handle(), state.handle(), nullptr, nullptr, &score), c);
  }
  {
    Call c;
    record("NormalizeScore",
           v.normalize_score(self, c.handle(), state.handle(), nullptr, nullptr, 0), c);
  }
  {
    Call c;
    record("Reserve", v.reserve(self, c.handle(), state.handle(), nullptr, node), c);
  }
  {
    Call c;
    uint32_t timeout = 0;
    record("Permit", v.permit(self, c.handle(), state.handle(), nullptr, node, &timeout), c);
  }
  {
    Call c;
    record("PreBind", v.pre_bind(self, c.handle(), state.handle(), nullptr, node), c);
  }
  return out;
}

TEST_F(Wrapper, EveryHookReturnsItsStatusAndReasons) {
  const std::pair<const char*, schedhost_code_t> codes[] = {
      {"Success", SCHEDHOST_SUCCESS},
      {"Error", SCHEDHOST_ERROR},
      {"Unschedulable", SCHEDHOST_UNSCHEDULABLE},
      {"UnschedulableAndUnresolvable", SCHEDHOST_UNSCHEDULABLE_AND_UNRESOLVABLE},
      {"Wait", SCHEDHOST_WAIT},
      {"Skip", SCHEDHOST_SKIP}};
  for (const auto& [name, code] : codes) {
    auto p = create("Scripted", std::string(R"({"code":")") + name +
                                    R"(","reasons":["first reason","second"]})");
    const std::vector<HookResult> results = call_every_hook(*p);
    ASSERT_EQ(results.size(), 10u);
    for (const HookResult& r : results) {
      EXPECT_EQ(r.code, code) << r.hook << " " << name;
      EXPECT_THAT(r.reasons, ElementsAre("first reason", "second")) << r.hook << " " << name;
    }
  }
}

TEST_F(Wrapper, AThrowBecomesAnErrorCarryingItsMessage) {
  auto p = create("Scripted", R"({"throw":"disk quota exceeded"})");
  for (const HookResult& r : call_every_hook(*p)) {
    EXPECT_EQ(r.code, SCHEDHOST_ERROR) << r.hook;
    EXPECT_THAT(r.reasons, ElementsAre("disk quota exceeded")) << r.hook;
  }
  // Hooks without a status still catch, and hand the message to the host.
  CycleState state;
  Call unreserve;
  p->vtable().unreserve(p->self(), unreserve.handle(), state.handle(), nullptr, {"n", 1});
  EXPECT_THAT(unreserve.reasons(), ElementsAre("disk quota exceeded"));
  Call post_bind;
  p->vtable().post_bind(p->self(), post_bind.handle(), state.handle(), nullptr, {"n", 1});
  EXPECT_THAT(post_bind.reasons(), ElementsAre("disk quota exceeded"));
  // A throwing QueueSort comparator answers false (keeps the current order).
  schedhost_queued_pod_t a{nullptr, 1, 0}, b{nullptr, 2, 0};
  EXPECT_FALSE(p->vtable().queue_sort_less(p->self(), &a, &b));
}

TEST_F(Wrapper, ResultsReachTheHost) {
  auto p = create(
      "Scripted",
      R"({"code":"Success","score":42,"timeoutMs":1500,"nodes":["n1","n2"],"nominate":"n3"})");
  const schedhost_plugin_vtable_t& v = p->vtable();
  CycleState state;

  Call pre_filter;
  EXPECT_EQ(v.pre_filter(p->self(), pre_filter.handle(), state.handle(), nullptr),
            SCHEDHOST_SUCCESS);
  ASSERT_TRUE(pre_filter.node_names().has_value());
  EXPECT_THAT(*pre_filter.node_names(), ElementsAre("n1", "n2"));

  Call score_call;
  int64_t score = -1;
  EXPECT_EQ(v.score(p->self(), score_call.handle(), state.handle(), nullptr, nullptr, &score),
            SCHEDHOST_SUCCESS);
  EXPECT_EQ(score, 42);

  schedhost_node_score_t scores[] = {{{"a", 1}, 10}, {{"b", 1}, 35}};
  Call normalize;
  EXPECT_EQ(v.normalize_score(p->self(), normalize.handle(), state.handle(), nullptr, scores, 2),
            SCHEDHOST_SUCCESS);
  EXPECT_EQ(scores[0].score, 20);
  EXPECT_EQ(scores[1].score, 70);

  Call permit;
  uint32_t timeout = 0;
  EXPECT_EQ(v.permit(p->self(), permit.handle(), state.handle(), nullptr, {"n1", 2}, &timeout),
            SCHEDHOST_SUCCESS);
  EXPECT_EQ(timeout, 1500u);

  const schedhost_node_status_t statuses[] = {
      {{"n1", 2}, SCHEDHOST_UNSCHEDULABLE, {"NodeResourcesFit", 16}, {"Insufficient cpu", 16}}};
  Call post_filter;
  EXPECT_EQ(v.post_filter(p->self(), post_filter.handle(), state.handle(), nullptr, statuses, 1),
            SCHEDHOST_SUCCESS);
  EXPECT_EQ(post_filter.nominated_node(), "n3");
  EXPECT_THAT(post_filter.reasons(), ElementsAre("n1/NodeResourcesFit: Insufficient cpu"));

  Call bind;
  EXPECT_EQ(v.bind(p->self(), bind.handle(), state.handle(), nullptr, {"node-7", 6}),
            SCHEDHOST_SUCCESS);
  EXPECT_THAT(bind.reasons(), ElementsAre("bind to node-7"));

  Call no_narrowing;
  auto q = create("Scripted", "{}");
  EXPECT_EQ(q->vtable().pre_filter(q->self(), no_narrowing.handle(), state.handle(), nullptr),
            SCHEDHOST_SUCCESS);
  EXPECT_FALSE(no_narrowing.node_names().has_value());
}

std::vector<std::string> echoed_args(const PluginInstance& p) {
  Call call;
  CycleState state;
  EXPECT_EQ(p.vtable().filter(p.self(), call.handle(), state.handle(), nullptr, nullptr),
            SCHEDHOST_UNSCHEDULABLE);
  return call.reasons();
}

TEST_F(Wrapper, ArgsArriveExactly) {
  auto p =
      create("ArgsEcho", R"({"q":"500m","b":[1,2.5,"3",-7],"a":{"nested":{"deep":true}},"n":null,)"
                         R"("big":9007199254740993,"s":"caf\u00e9"})");
  EXPECT_THAT(echoed_args(*p),
              ElementsAre(R"({"a":{"nested":{"deep":true}},"b":[1,2.5,"3",-7],)"
                          R"("big":9007199254740993,"n":null,"q":"500m","s":"café"})"));
}

TEST_F(Wrapper, AbsentArgsArriveAsAnEmptyObject) {
  testing::LogCapture log;
  auto p = create("ArgsEcho", "");
  EXPECT_THAT(echoed_args(*p), ElementsAre("{}"));
  EXPECT_THAT(log.lines(), ElementsAre("plugin \"ArgsEcho\": created with {}"));
}

TEST_F(Wrapper, RefusedArgsNameThePluginAndTheReason) {
  auto expect_refused = [this](const std::string& plugin, const std::string& args,
                               const std::string& message) {
    try {
      create(plugin, args);
      ADD_FAILURE() << "expected " << plugin << " to refuse " << args;
    } catch (const InputError& e) {
      EXPECT_EQ(e.what(), message);
    }
  };
  expect_refused("Scripted", R"({"code":"Maybe"})", "plugin \"Scripted\": unknown code \"Maybe\"");
  expect_refused("NoArgs", R"({"x":1})", "plugin \"NoArgs\": this plugin takes no args");
  expect_refused("ArgsEcho", "{not json",
                 "plugin \"ArgsEcho\": [json.exception.parse_error.101] parse error at line 1, "
                 "column 3: syntax error while parsing object key - invalid literal; last read: "
                 "'{no'; expected string literal");
  EXPECT_NO_THROW(create("NoArgs", "{}"));
}

TEST_F(Wrapper, CycleStateIsTypedAndClonesAreIndependent) {
  auto p = create("StateCounter", R"({"start":5})");
  const schedhost_plugin_vtable_t& v = p->vtable();
  CycleState state;
  Call missing;
  EXPECT_EQ(v.filter(p->self(), missing.handle(), state.handle(), nullptr, nullptr),
            SCHEDHOST_ERROR);
  EXPECT_THAT(missing.reasons(), ElementsAre("PreFilterStateCounter not found"));

  Call pre_filter;
  EXPECT_EQ(v.pre_filter(p->self(), pre_filter.handle(), state.handle(), nullptr),
            SCHEDHOST_SUCCESS);
  std::unique_ptr<CycleState> copy = state.clone();
  ASSERT_NE(copy, nullptr);
  Call add;
  EXPECT_EQ(v.add_pod(p->self(), add.handle(), copy->handle(), nullptr, nullptr, nullptr),
            SCHEDHOST_SUCCESS);

  Call original_filter, copy_filter;
  v.filter(p->self(), original_filter.handle(), state.handle(), nullptr, nullptr);
  v.filter(p->self(), copy_filter.handle(), copy->handle(), nullptr, nullptr);
  EXPECT_THAT(original_filter.reasons(), ElementsAre("counter 5"));
  EXPECT_THAT(copy_filter.reasons(), ElementsAre("counter 6"));
}

}  // namespace
}  // namespace schedhost
