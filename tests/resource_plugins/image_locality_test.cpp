// ImageLocality (plugins/image_locality), the real built-in .so: the cases of upstream v1.35's
// image_locality_test.go (inputs and expected scores), image name normalization, and v1.35's
// counting of init and sidecar containers.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "case_name.hpp"
#include "resource_harness.hpp"

namespace schedhost {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using testing::node;
using testing::NodePtr;
using testing::PodBuilder;
using testing::PodPtr;
using J = nlohmann::json;

constexpr const char* kImageLocality = "ImageLocality";
constexpr std::int64_t kMiB = 1024 * 1024;

class ImageLocalityTest : public ::testing::Test {
 protected:
  testing::PluginHarness harness_{"image_locality.so"};

  std::unique_ptr<framework::PluginInstance> create() const {
    return harness_.create(kImageLocality, "{}");
  }
};

J image(std::vector<std::string> names, std::int64_t mib) {
  return {{"names", names}, {"sizeBytes", mib * kMiB}};
}
NodePtr image_node(const std::string& name, const J& images) {
  return node(name, J::object(), images);
}
PodPtr pod_with_images(const std::vector<std::string>& images) {
  PodBuilder b("p");
  for (const std::string& i : images)
    b.image(i);
  return b.build();
}

// upstream's node statuses
J node_40_300_2000() {
  return {image({"gcr.io/40:latest", "gcr.io/40:v1", "gcr.io/40:v1"}, 40),
          image({"gcr.io/300:latest", "gcr.io/300:v1"}, 300), image({"gcr.io/2000:latest"}, 2000)};
}
J node_250_10() {
  return {image({"gcr.io/250:latest"}, 250), image({"gcr.io/10:latest", "gcr.io/10:v1"}, 10)};
}
J node_600_40_900() {
  return {image({"gcr.io/600:latest"}, 600), image({"gcr.io/40:latest"}, 40),
          image({"gcr.io/900:latest"}, 900)};
}
J node_300_600_900() {
  return {image({"gcr.io/300:latest"}, 300), image({"gcr.io/600:latest"}, 600),
          image({"gcr.io/900:latest"}, 900)};
}
J node_4000_30() {
  return {image({"gcr.io/4000:latest"}, 4000), image({"gcr.io/30:latest"}, 30)};
}
J node_20_30_40() {
  return {image({"gcr.io/20:latest"}, 20), image({"gcr.io/30:latest"}, 30),
          image({"gcr.io/40:latest"}, 40)};
}

struct ImageScoreCase {
  std::string name;
  PodPtr pod;
  std::vector<NodePtr> nodes;
  std::vector<std::int64_t> scores;
};

std::vector<ImageScoreCase> image_score_cases() {
  return {
      // 40M/2 < 23M: 0; 100 * (250M/2 - 23M) / (1000M * 2 - 23M) = 5
      {"two images spread on two nodes, prefer the larger image one",
       pod_with_images({"gcr.io/40", "gcr.io/250"}),
       {image_node("node1", node_40_300_2000()), image_node("node2", node_250_10())},
       {0, 5}},
      // 100 * ((40M + 300M)/2 - 23M) / (1000M * 2 - 23M) = 7
      {"two images on one node, prefer this node",
       pod_with_images({"gcr.io/40", "gcr.io/300"}),
       {image_node("node1", node_40_300_2000()), image_node("node2", node_250_10())},
       {7, 0}},
      // 4000M/2 >= 1000M * 2: 100
      {"if exceed limit, use limit",
       pod_with_images({"gcr.io/10", "gcr.io/4000"}),
       {image_node("node1", node_4000_30()), image_node("node2", node_250_10())},
       {100, 0}},
      // 100 * (4000M/3 - 23M) / (1000M * 2 - 23M) = 66
      {"if exceed limit, use limit (with node which has no images present)",
       pod_with_images({"gcr.io/10", "gcr.io/4000"}),
       {image_node("node1", node_4000_30()), image_node("node2", node_250_10()),
        image_node("node3", J::array())},
       {66, 0, 0}},
      // 100 * (600M*2/3 + 900M*2/3 - 23M) / (1000M*3 - 23M) = 32, then 36 with 300M*1/3 more
      {"pod with multiple large images, node2 is preferred",
       pod_with_images({"gcr.io/300", "gcr.io/600", "gcr.io/900"}),
       {image_node("node1", node_600_40_900()), image_node("node2", node_300_600_900()),
        image_node("node3", J::array())},
       {32, 36, 0}},
      // 100 * (30M + 40M/2 - 23M) / (1000M * 2 - 23M) = 1; 100 * (30M - 23M) / ... = 0
      {"pod with multiple small images",
       pod_with_images({"gcr.io/30", "gcr.io/40"}),
       {image_node("node1", node_20_30_40()), image_node("node2", node_4000_30())},
       {1, 0}},
      // upstream v1.35's case: the init container's image counts, and so does the container.
      // 100 * (300M * 1/2 - 23M) / (1000M * 2 - 23M) = 6; 100 * (30M/2 - 23M) / ... = 0
      {"include InitContainers: two images spread on two nodes, prefer the larger image one",
       PodBuilder("p")
           .init_container(nullptr, "gcr.io/300")
           .container(nullptr, "gcr.io/30")
           .build(),
       {image_node("node1", node_40_300_2000()), image_node("node2", node_20_30_40())},
       {6, 0}},
      {"a pod without containers scores 0",
       PodBuilder("p").build(),
       {image_node("node1", node_4000_30())},
       {0}},
  };
}

class ImageLocalityScoreTest : public ImageLocalityTest,
                               public ::testing::WithParamInterface<ImageScoreCase> {};

TEST_P(ImageLocalityScoreTest, Score) {
  const ImageScoreCase& c = GetParam();
  const cluster::Snapshot snapshot(c.nodes, {});
  const auto plugin = create();
  EXPECT_THAT(testing::prescore_and_score(*plugin, snapshot, *c.pod, false),
              ElementsAreArray(c.scores));
}

INSTANTIATE_TEST_SUITE_P(Upstream, ImageLocalityScoreTest, ::testing::ValuesIn(image_score_cases()),
                         [](const auto& info) { return testing::case_name(info.param.name); });

TEST_F(ImageLocalityTest, ImplementsScoreOnlyAndTakesNoArgs) {
  const auto& vtable = harness_.definition(kImageLocality).vtable;
  EXPECT_NE(vtable.score, nullptr);
  EXPECT_EQ(vtable.pre_score, nullptr);
  EXPECT_EQ(vtable.normalize_score, nullptr);
  EXPECT_EQ(harness_.create_error(kImageLocality, "{}"), "<no error>");
  EXPECT_EQ(harness_.create_error(kImageLocality, R"({"x": 1})"),
            "plugin \"ImageLocality\": this plugin takes no args");
}

// upstream TestNormalizedImageName, observed through the score: a 1000M image the node lists
// under the normalized name scores 100, one it does not scores 0.
TEST_F(ImageLocalityTest, NormalizesImageNamesAsUpstream) {
  const auto plugin = create();
  const cluster::Snapshot snapshot(
      {image_node(
          "node1",
          {image({"root:latest"}, 1000), image({"gcr.io:5000/root:latest"}, 1000),
           image({"root:tag"}, 1000),
           image({"root@sha256:4813494d137e1631bba301d5acab6e7bb7aa74ce1185d456565ef51d737677b2"},
                 1000),
           image({"gcr.io:5000/plain"}, 1000)})},
      {});
  const auto score = [&](const std::string& image_name) {
    return testing::prescore_and_score(*plugin, snapshot, *pod_with_images({image_name}), false)
        .at(0);
  };
  EXPECT_EQ(score("root"), 100);              // add :latest
  EXPECT_EQ(score("gcr.io:5000/root"), 100);  // a registry port is not a tag
  EXPECT_EQ(score("root:tag"), 100);          // kept as is
  EXPECT_EQ(score("root@sha256:4813494d137e1631bba301d5acab6e7bb7aa74ce1185d456565ef51d737677b2"),
            100);                                 // a digest is kept as is
  EXPECT_EQ(score("gcr.io:5000/plain"), 0);       // looked up as gcr.io:5000/plain:latest
  EXPECT_EQ(score("docker.io/library/root"), 0);  // no registry normalization
}

// v1.35 scores every container, init and sidecar containers too (v1.28: the regular ones only):
// 300M + 200M + 500M of three containers' 3000M: 100 * (1000M - 23M) / (3000M - 23M) = 32.
TEST_F(ImageLocalityTest, CountsInitAndSidecarContainers) {
  const auto plugin = create();
  const cluster::Snapshot snapshot(
      {image_node("node1", {image({"gcr.io/500:latest"}, 500), image({"gcr.io/300:latest"}, 300),
                            image({"gcr.io/200:latest"}, 200)})},
      {});
  const PodPtr pod = PodBuilder("p")
                         .init_container(nullptr, "gcr.io/300")
                         .sidecar(nullptr, "gcr.io/200")
                         .container(nullptr, "gcr.io/500")
                         .build();
  EXPECT_THAT(testing::prescore_and_score(*plugin, snapshot, *pod, false), ElementsAre(32));
}

}  // namespace
}  // namespace schedhost
