// The fake host's side of the plugin handle (ABI 1.9), on the fixture .so as a plugin author
// would open it: objects of a declared kind listed by label selector, writes from PreBind
// applied to them (and recorded), a write from Filter refused as the host refuses it.
#include <gtest/gtest.h>
#include <schedhost/testing.hpp>

#include <string>
#include <vector>

namespace schedhost::plugin_handle_test {
namespace {

using schedhost::Code;
using namespace schedhost::testing;
using Strings = std::vector<std::string>;

const std::string kWidgets = "widgets.v1.example.com";

nlohmann::json widget(const std::string& name, nlohmann::json labels) {
  return {{"apiVersion", "example.com/v1"},
          {"kind", "Widget"},
          {"metadata", {{"name", name}, {"namespace", "shop"}, {"labels", labels}}},
          {"spec", nlohmann::json::object()}};
}

class FakeHostHandleTest : public ::testing::Test {
 protected:
  FakeHostHandleTest() {
    host_.add_node(FakeNode("node-a"));
    host_.add_object(kWidgets, widget("w1", {{"size", "small"}}));
    host_.add_object(kWidgets, widget("w2", {{"size", "large"}}));
    host_.add_object(kWidgets, widget("doomed", nlohmann::json::object()));
  }
  FakeHost host_{FakeHost::open_library(std::string(SCHEDHOST_TEST_FIXTURE_DIR) +
                                        "/plugin_handle/plugin_handle_fixture.so")};
  FakeCycleState state_;
};

TEST_F(FakeHostHandleTest, ListsObjectsByLabelSelector) {
  FakePlugin reader = host_.create("WidgetReader");
  const auto filtered = [&](const std::string& selector) {
    return reader.filter(state_, FakePod("p", "shop").annotation("select", selector), "node-a");
  };
  EXPECT_EQ(filtered("").reasons, Strings{"widgets: doomed w1 w2"});
  EXPECT_EQ(filtered("size=small").reasons, Strings{"widgets: w1"});
  EXPECT_EQ(filtered("size,size notin (small)").reasons, Strings{"widgets: w2"});
  EXPECT_EQ(filtered("!size").reasons, Strings{"widgets: doomed"});
  const HookResult bad = filtered("size in (");
  EXPECT_EQ(bad.code, Code::Error);
  EXPECT_EQ(bad.reasons, Strings{"label selector \"size in (\": expected \")\" at column 10"});
}

TEST_F(FakeHostHandleTest, RefusesAWriteFromFilter) {
  const HookResult r =
      host_.create("WidgetReader")
          .filter(state_, FakePod("p", "shop").annotation("write-from-filter", "1"), "node-a");
  EXPECT_EQ(r.reasons,
            Strings{"api_request: refused from Filter: only PreBind, Bind, PostBind and Unreserve "
                    "may send requests to the API server (the hooks upstream lets block); Filter "
                    "and Score must not wait on it"});
  EXPECT_TRUE(host_.api_requests().empty());
}

// Without answer_api the fake host applies writes on a declared resource to its objects, as run
// does, and records them; the plugin reads the answers (here, as Events).
TEST_F(FakeHostHandleTest, AppliesPreBindsWritesToTheObjectsAsRunDoes) {
  FakePlugin writer = host_.create("WidgetWriter");
  const FakePod pod =
      FakePod("writer", "shop").annotation("writes", "create,status,jsonpatch,conflict,delete");
  EXPECT_EQ(writer.pre_bind(state_, pod, "node-a").code, Code::Success);
  Strings answers;
  for (const FakeHost::RecordedEvent& e : host_.events())
    answers.push_back(e.message);
  EXPECT_EQ(answers,
            (Strings{"create 201", "status 200", "jsonpatch 200", "conflict 409", "delete 200"}));
  Strings verbs;
  for (const auto& request : host_.api_requests())
    verbs.push_back(request.verb + " " + request.path);
  const std::string base = "/apis/example.com/v1/namespaces/shop/widgets";
  EXPECT_EQ(verbs, (Strings{"POST " + base, "PATCH " + base + "/made-by-writer/status",
                            "PATCH " + base + "/made-by-writer", "PUT " + base + "/made-by-writer",
                            "DELETE " + base + "/doomed"}));
  // What the writes left: a reader lists the new Widget, relabelled, and not the deleted one.
  FakePlugin reader = host_.create("WidgetReader");
  EXPECT_EQ(reader.filter(state_, FakePod("p", "shop").annotation("select", ""), "node-a").reasons,
            Strings{"widgets: made-by-writer w1 w2"});
  EXPECT_EQ(reader.filter(state_, FakePod("p", "shop").annotation("select", "size=large"), "node-a")
                .reasons,
            Strings{"widgets: made-by-writer w2"});
}

}  // namespace
}  // namespace schedhost::plugin_handle_test
