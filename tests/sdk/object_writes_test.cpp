// The in-memory API semantics run and the fake host share (schedhost/detail/object_writes.hpp):
// a collection GET parses ?labelSelector= once, for every store, and a selector that does not
// parse is the API server's 400.
#include <gtest/gtest.h>
#include <schedhost/detail/object_writes.hpp>

#include <string>
#include <vector>

namespace schedhost::object_writes_test {
namespace {

using nlohmann::json;

json widget(const std::string& name, json labels) {
  return {{"apiVersion", "example.com/v1"},
          {"kind", "Widget"},
          {"metadata", {{"name", name}, {"namespace", "shop"}, {"labels", std::move(labels)}}}};
}

struct Widgets {
  std::vector<json> objects = {widget("w1", {{"size", "small"}}),
                               widget("w2", {{"size", "large"}})};
  object_writes::Store store;
  Widgets() {
    store.list = [this](std::string_view, const k8s::LabelSelectorText& selector,
                        std::vector<const json*>& out) {
      for (const json& o : objects) {
        const json& labels = o["metadata"]["labels"];
        const auto label = [&](std::string_view key) -> std::optional<std::string_view> {
          const auto it = labels.find(std::string(key));
          if (it == labels.end()) return std::nullopt;
          return std::string_view(it->get_ref<const std::string&>());
        };
        if (selector.matches(label)) out.push_back(&o);
      }
    };
  }
  object_writes::Reply get(const std::string& path) {
    const object_writes::Resource resource{"example.com", "v1", "widgets", "Widget", true};
    return object_writes::apply(
        store, resource, *object_writes::parse_path(path), "GET", "", "",
        [] { return std::string("7"); }, [] { return std::string("uid"); }, "2026-12-05T00:00:00Z");
  }
};

TEST(ObjectWrites, ACollectionGetListsWhatTheSelectorMatches) {
  Widgets w;
  const object_writes::Reply r =
      w.get("/apis/example.com/v1/namespaces/shop/widgets?labelSelector=size%3Dlarge");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body["kind"], "WidgetList");
  ASSERT_EQ(r.body["items"].size(), 1u);
  EXPECT_EQ(r.body["items"][0]["metadata"]["name"], "w2");
}

TEST(ObjectWrites, ASelectorThatDoesNotParseIsTheApiServers400) {
  Widgets w;
  const object_writes::Reply r =
      w.get("/apis/example.com/v1/namespaces/shop/widgets?labelSelector=size%20in%20(");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(r.body["reason"], "BadRequest");
  EXPECT_EQ(r.body["message"],
            "unable to parse requirement: label selector \"size in (\": expected \")\" at "
            "column 10");
}

}  // namespace
}  // namespace schedhost::object_writes_test
