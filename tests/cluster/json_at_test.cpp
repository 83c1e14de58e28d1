#include <set>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "cluster/node.hpp"
#include "cluster/pod.hpp"
#include "test_yaml.hpp"

namespace schedhost::cluster {
namespace {

using testing::yaml;

// Every pointer test runs on both forms a Pod or Node keeps its JSON in: the tree (replays) and
// compact text only (serve), where json_at reads the text instead of dumping from the tree.
class JsonAtTest : public ::testing::TestWithParam<bool> {
 protected:
  static bool kept_as_text() { return GetParam(); }
  static Pod make_pod(const nlohmann::json& object) {
    if (!kept_as_text()) return Pod(object);
    return Pod(object, std::make_shared<const std::string>(object.dump()));
  }
  static Node make_node(const nlohmann::json& object) {
    if (!kept_as_text()) return Node(object);
    return Node(object, std::make_shared<const std::string>(object.dump()));
  }
};

const char* kPod = R"(
metadata:
  name: web
  annotations: {example.com/owner: team-a, "a~b": tilde}
spec:
  containers:
  - name: app
    resources: {requests: {cpu: 100m}}
  - name: log
)";

TEST_P(JsonAtTest, Hits) {
  const Pod pod = make_pod(yaml(kPod));
  EXPECT_EQ(pod.json_at("/metadata/name"), "\"web\"");
  EXPECT_EQ(pod.json_at("/spec/containers/0/resources"), R"({"requests":{"cpu":"100m"}})");
  EXPECT_EQ(pod.json_at("/spec/containers/1"), R"({"name":"log"})");
}

TEST_P(JsonAtTest, WholeObject) {
  const Pod pod = make_pod(yaml(kPod));
  EXPECT_EQ(pod.json_at(""), pod.json().dump());
}

TEST_P(JsonAtTest, EscapedPointers) {
  const Pod pod = make_pod(yaml(kPod));
  EXPECT_EQ(pod.json_at("/metadata/annotations/example.com~1owner"), "\"team-a\"");
  EXPECT_EQ(pod.json_at("/metadata/annotations/a~0b"), "\"tilde\"");
}

TEST_P(JsonAtTest, MissesAndBadPointersReturnNothing) {
  const Pod pod = make_pod(yaml(kPod));
  EXPECT_EQ(pod.json_at("/spec/affinity"), std::nullopt);
  EXPECT_EQ(pod.json_at("/spec/containers/2"), std::nullopt);
  EXPECT_EQ(pod.json_at("/spec/containers/-"), std::nullopt);
  EXPECT_EQ(pod.json_at("/spec/containers/x"), std::nullopt);
  EXPECT_EQ(pod.json_at("/metadata/name/deeper"), std::nullopt);
  EXPECT_EQ(pod.json_at("metadata"), std::nullopt);  // must start with '/'
  EXPECT_EQ(pod.json_at("/metadata/~2"), std::nullopt);
  EXPECT_EQ(pod.json_at("/spec/containers/01"), std::nullopt);
  EXPECT_EQ(pod.json_at("/spec/containers/"), std::nullopt);  // "" is no index
  EXPECT_EQ(pod.json_at("/spec/containers/+1"), std::nullopt);
  EXPECT_EQ(pod.json_at("/spec/containers/99999999999999999999"), std::nullopt);
  EXPECT_EQ(pod.json_at("/metadata/annotations/a~"), std::nullopt);  // '~' ends the token
  EXPECT_EQ(pod.json_at("/metadata/"), std::nullopt);                // no key ""
  EXPECT_EQ(pod.json_at("//"), std::nullopt);
  // A miss asked again is still a miss, and a hit after misses is still found.
  EXPECT_EQ(pod.json_at("/spec/affinity"), std::nullopt);
  EXPECT_EQ(pod.json_at("/spec/containers/1/name"), "\"log\"");
}

TEST_P(JsonAtTest, EmptyKeysAndSlashesInKeys) {
  const Pod pod = make_pod(yaml(R"(
metadata:
  name: web
  labels: {"": empty, "a/b": slash, "~": tilde}
spec: {containers: [{name: app}]}
)"));
  EXPECT_EQ(pod.json_at("/metadata/labels/"), "\"empty\"");
  EXPECT_EQ(pod.json_at("/metadata/labels/a~1b"), "\"slash\"");
  EXPECT_EQ(pod.json_at("/metadata/labels/~0"), "\"tilde\"");
  EXPECT_EQ(pod.json_at("/metadata/labels/a/b"), std::nullopt);
}

TEST_P(JsonAtTest, CachedOncePerPointer) {
  const Pod pod = make_pod(yaml(kPod));
  std::optional<std::string_view> first = pod.json_at("/spec/containers/0");
  std::optional<std::string_view> second = pod.json_at("/spec/containers/0");
  ASSERT_TRUE(first && second);
  EXPECT_EQ(first->data(), second->data());  // the same stored string
  // Earlier views stay valid while more entries are added.
  for (int i = 0; i < 100; ++i)
    pod.json_at("/miss/" + std::to_string(i));
  EXPECT_EQ(*first, R"({"name":"app","resources":{"requests":{"cpu":"100m"}}})");
}

TEST(JsonAtCopies, StartWithTheirOwnCache) {
  Pod pod(yaml(kPod));
  std::optional<std::string_view> original = pod.json_at("/metadata");
  Pod copy = pod;
  std::optional<std::string_view> copied = copy.json_at("/metadata");
  ASSERT_TRUE(original && copied);
  EXPECT_EQ(*original, *copied);
  EXPECT_NE(original->data(), copied->data());
}

TEST_P(JsonAtTest, ConcurrentCallsAgree) {
  const Pod pod = make_pod(yaml(kPod));
  const std::vector<std::string> pointers = {"",
                                             "/metadata",
                                             "/metadata/name",
                                             "/spec/containers/0",
                                             "/spec/containers/1/name",
                                             "/metadata/annotations/example.com~1owner",
                                             "/missing"};
  constexpr int kThreads = 8;
  // seen[t][p]: where thread t found pointer p (nullptr for a miss).
  std::vector<std::vector<const char*>> seen(kThreads,
                                             std::vector<const char*>(pointers.size(), nullptr));
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < 200; ++round) {
        for (size_t i = 0; i < pointers.size(); ++i) {
          size_t p = (i + static_cast<size_t>(t)) % pointers.size();  // threads start apart
          auto result = pod.json_at(pointers[p]);
          seen[t][p] = result ? result->data() : nullptr;
        }
      }
    });
  }
  for (std::thread& thread : threads)
    thread.join();
  // Every thread got the one cached string per pointer.
  for (size_t p = 0; p < pointers.size(); ++p) {
    std::set<const char*> addresses;
    for (int t = 0; t < kThreads; ++t)
      addresses.insert(seen[t][p]);
    EXPECT_EQ(addresses.size(), 1u) << pointers[p];
  }
  EXPECT_EQ(pod.json_at("/metadata/name"), "\"web\"");
  EXPECT_EQ(pod.json_at("/missing"), std::nullopt);
}

TEST_P(JsonAtTest, NodesToo) {
  const Node node =
      make_node(yaml("metadata: {name: node-a, labels: {kubernetes.io/hostname: node-a}}"));
  EXPECT_EQ(node.json_at("/metadata/labels/kubernetes.io~1hostname"), "\"node-a\"");
  EXPECT_EQ(node.json_at("/status"), std::nullopt);
  EXPECT_EQ(node.json_at(""),
            R"({"metadata":{"labels":{"kubernetes.io/hostname":"node-a"},"name":"node-a"}})");
}

// A copy of a Pod that keeps text shares the text: its views are the same bytes.
TEST(JsonAtCopies, OfAPodKeptAsTextShareTheText) {
  const nlohmann::json object = yaml(kPod);
  const Pod pod(object, std::make_shared<const std::string>(object.dump()));
  const Pod copy = pod;  // NOLINT(performance-unnecessary-copy-initialization): the copy is tested
  EXPECT_EQ(pod.json_at("/metadata")->data(), copy.json_at("/metadata")->data());
  EXPECT_EQ(copy.json(), object);  // parsed when asked
}

INSTANTIATE_TEST_SUITE_P(TreeAndText, JsonAtTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? "KeptAsText" : "KeptAsTree";
                         });

}  // namespace
}  // namespace schedhost::cluster
