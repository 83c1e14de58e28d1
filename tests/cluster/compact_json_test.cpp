// compact_json_at against the tree it stands in for: for every value of real objects, the text
// found in dump() must be exactly the dump() of that value, and every miss a miss.
#include <cstddef>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cluster/compact_json.hpp"
#include "cluster/json_pointer_cache.hpp"
#include "cluster/json_pointer_token.hpp"
#include "cluster/pod.hpp"
#include "cluster/yaml_documents.hpp"
#include "cluster/yaml_to_json.hpp"
#include "test_yaml.hpp"

namespace schedhost::cluster {
namespace {

using nlohmann::json;

// Every pointer that names something in `value`, depth first.
void collect(const json& value, const std::string& at, std::vector<std::string>& out) {
  out.push_back(at);
  if (value.is_object()) {
    for (const auto& [key, member] : value.items()) {
      std::string pointer = at + "/";
      append_pointer_token(pointer, key);
      collect(member, pointer, out);
    }
  } else if (value.is_array()) {
    for (std::size_t i = 0; i < value.size(); ++i)
      collect(value[i], at + "/" + std::to_string(i), out);
  }
}

// The same answer as the tree, for every pointer in it and for some that miss or are malformed.
void expect_same_as_tree(const json& object) {
  const std::string text = object.dump();
  std::vector<std::string> pointers;
  collect(object, "", pointers);
  const std::size_t hits = pointers.size();
  for (std::size_t i = 0; i < hits; ++i) {
    pointers.push_back(pointers[i] + "/missing");
    pointers.push_back(pointers[i] + "/0");
    pointers.push_back(pointers[i] + "/01");
    pointers.push_back(pointers[i] + "/-");
    pointers.push_back(pointers[i] + "/~2");
    pointers.push_back(pointers[i] + "/");
  }
  pointers.insert(pointers.end(), {"metadata", "//", "/~", "/metadata/"});
  const JsonPointerCache cache;
  for (std::size_t i = 0; i < pointers.size(); ++i) {
    const std::string& pointer = pointers[i];
    const std::optional<std::string_view> expected = cache.get(object, pointer);
    const std::optional<std::string_view> found = compact_json_at(text, pointer);
    ASSERT_EQ(found, expected) << "pointer \"" << pointer << "\" in " << text;
    if (i < hits) {
      ASSERT_TRUE(found.has_value()) << pointer;
      EXPECT_GE(found->data(), text.data());  // a view into the text, not a copy
      EXPECT_LE(found->data() + found->size(), text.data() + text.size());
    }
  }
  // The same answers when each lookup skips the containers earlier ones scanned, whichever
  // lookups came before: in order, then in reverse order over the ends kept so far.
  ContainerEnds ends;
  for (std::size_t round = 0; round < 2; ++round) {
    for (std::size_t k = 0; k < pointers.size(); ++k) {
      const std::string& pointer = pointers[round == 0 ? k : pointers.size() - 1 - k];
      ASSERT_EQ(compact_json_at(text, pointer, &ends), cache.get(object, pointer))
          << "pointer \"" << pointer << "\" after " << k << " lookups, round " << round;
    }
  }
}

TEST(CompactJsonAt, EveryValueOfTheExampleClusterAsTheTreeGivesIt) {
  std::ifstream in(std::string(SCHEDHOST_SOURCE_DIR) + "/configs/cluster.yaml");
  std::stringstream text;
  text << in.rdbuf();
  int objects = 0;
  for (const YAML::Node& document : parse_yaml_documents(text.str(), "cluster.yaml")) {
    const json object = yaml_to_json(document, "cluster.yaml");
    if (!object.is_object()) continue;
    expect_same_as_tree(object);
    ++objects;
  }
  EXPECT_GT(objects, 10);
}

TEST(CompactJsonAt, KeysThatNeedEscapingAndEveryKindOfValue) {
  json object = json::parse(R"({
    "a/b": 1, "m~n": [true, false, null], "quo\"te": {"back\\slash": "x"},
    "tab\there": -1.5e-7, "ctl\u0001": "\u0002", "é": "ü", "😀": ["😀", {}],
    "": {"": []}, "nested": [[[1, [2]], {"k": [{"z": "}]{["}]}]], "str": "a\"b\\c/d\n"
  })");
  expect_same_as_tree(object);
  // Escapes in the text (written by dump) are read as the characters they stand for.
  EXPECT_EQ(compact_json_at(object.dump(), "/quo\"te/back\\slash"), "\"x\"");
  EXPECT_EQ(compact_json_at(object.dump(), "/ctl\x01"), "\"\\u0002\"");
  EXPECT_EQ(compact_json_at(object.dump(), "/a~1b"), "1");
}

TEST(CompactJsonAt, ScalarsAndEmptyContainersAtTheTop) {
  for (const char* text : {"5", "\"s\"", "null", "[]", "{}", "[1]", "{\"a\":{}}"})
    expect_same_as_tree(json::parse(text));
}

// Text that is not JSON (cut short anywhere) gives nothing or a view inside it; never a read
// outside it (ASan would say).
TEST(CompactJsonAt, TextCutShortAnywhereStaysInside) {
  const std::string full =
      json::parse(R"({"metadata":{"name":"web","labels":{"a":"b\"c"}},"spec":{"x":[1,[2,{}]]}})")
          .dump();
  for (std::size_t size = 0; size < full.size(); ++size) {
    const std::string cut = full.substr(0, size);
    ContainerEnds ends;
    for (const char* pointer : {"", "/metadata/name", "/metadata/labels/a", "/spec/x/1/1", "/z"}) {
      for (ContainerEnds* kept : {static_cast<ContainerEnds*>(nullptr), &ends}) {
        const std::optional<std::string_view> found = compact_json_at(cut, pointer, kept);
        if (found) {
          EXPECT_GE(found->data(), cut.data());
          EXPECT_LE(found->data() + found->size(), cut.data() + cut.size());
        }
      }
    }
  }
}

// A Pod kept as text and patched by bound_to / nominated_to: pointers on the patched field's way
// see the patch, all others read the text.
TEST(CompactJsonAt, APodKeptAsTextSeesItsPatch) {
  const json object = testing::yaml(
      "metadata: {name: web, uid: u1}\nspec: {containers: [{name: c}]}\nstatus: {phase: Pending}");
  const Pod pod(object, std::make_shared<const std::string>(object.dump()));
  const std::shared_ptr<const Pod> bound = pod.bound_to("node-b");
  const std::shared_ptr<const Pod> both = bound->nominated_to("node-n");
  EXPECT_EQ(pod.json_at("/spec/nodeName"), std::nullopt);
  EXPECT_EQ(bound->json_at("/spec/nodeName"), "\"node-b\"");
  EXPECT_EQ(bound->json_at("/spec"), R"({"containers":[{"name":"c"}],"nodeName":"node-b"})");
  EXPECT_EQ(bound->json_at("/spec/containers/0/name"), "\"c\"");
  EXPECT_EQ(bound->json_at("/metadata/name")->data(), pod.json_at("/metadata/name")->data());
  EXPECT_EQ(both->json_at("/status"), R"({"nominatedNodeName":"node-n","phase":"Pending"})");
  EXPECT_EQ(both->json_at("/spec/nodeName"), "\"node-b\"");
  EXPECT_EQ(both->json().at("spec").at("nodeName"), "node-b");
  EXPECT_EQ(*both->json_tree(), both->json());
  EXPECT_EQ(pod.json(), object);  // the source never sees a patch
}

// Pods kept as text and read in turns by one thread, each pointer several times: the ends a
// thread records for one text are never used for another (a Pod's reads after another Pod's
// start over), whichever order the reads come in.
TEST(CompactJsonAt, PodsKeptAsTextReadInTurnsByOneThread) {
  std::vector<json> objects = {
      testing::yaml("metadata: {name: a, labels: {x: '1'}}\n"
                    "spec: {containers: [{name: c, ports: [{containerPort: 80}]}], "
                    "tolerations: [{key: k}], priority: 5}"),
      testing::yaml("metadata: {name: bb, annotations: {y: '[{'}}\n"
                    "spec: {affinity: {nodeAffinity: {}}, containers: [{name: d}, {name: e}]}"),
      testing::yaml("spec: {containers: []}\nstatus: {phase: Running}")};
  std::vector<std::unique_ptr<Pod>> pods;
  for (const json& object : objects) {
    pods.push_back(
        std::make_unique<Pod>(object, std::make_shared<const std::string>(object.dump())));
  }
  const std::vector<std::string> pointers = {"/spec/affinity",
                                             "/spec/containers/1/name",
                                             "/spec/priority",
                                             "/metadata/labels",
                                             "/status/phase",
                                             "/spec/tolerations/0/key",
                                             "/metadata",
                                             "/spec/containers",
                                             "/metadata/name/x",
                                             "",
                                             "/spec/containers/0/ports/0/containerPort"};
  const std::vector<JsonPointerCache> caches(objects.size());  // one per object, as each Pod's
  for (int round = 0; round < 3; ++round) {
    for (std::size_t k = 0; k < pointers.size() * pods.size(); ++k) {
      // Round 0 reads each pod's pointers in a row, the others switch pods at every read.
      const std::size_t p = round == 0 ? k / pointers.size() : (k + round) % pods.size();
      const std::string& pointer = pointers[(k * (round + 1)) % pointers.size()];
      ASSERT_EQ(pods[p]->json_at(pointer), caches[p].get(objects[p], pointer))
          << "pod " << p << " pointer \"" << pointer << "\" round " << round;
    }
  }
}

// Pods made and dropped one after the other, their texts of one size but not of one shape, so
// that a text is likely to get the address of the one before it: ends recorded for a dropped text
// must never be used for the next.
TEST(CompactJsonAt, ATextAtTheAddressOfADroppedOneIsReadAfresh) {
  for (int i = 0; i < 64; ++i) {
    // Of one length, both with metadata at the same place, ending at different places.
    const json object = i % 2 == 0
                            ? json::parse(R"({"metadata":{"name":"[{}]"},"spec":{"priority":1}})")
                            : json::parse(R"({"metadata":{"labels":{}},"spec":{"priority":222}})");
    const JsonPointerCache cache;
    const Pod pod(object, std::make_shared<const std::string>(object.dump()));
    for (const char* pointer : {"/spec/priority", "/metadata", "/spec/priority", "/spec"}) {
      ASSERT_EQ(pod.json_at(pointer), cache.get(object, pointer)) << i << " " << pointer;
    }
  }
}

}  // namespace
}  // namespace schedhost::cluster
