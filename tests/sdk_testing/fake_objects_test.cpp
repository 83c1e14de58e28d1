// What the fake host derives from fake pods and nodes, read through the host API table as a C
// plugin would: quantities, non-zero requests, a node's requested resources, used ports, image
// counts, pods with affinity, maps in key order, JSON by pointer.
#include <gtest/gtest.h>
#include <schedhost/testing.hpp>

#include <stdexcept>
#include <string>
#include <string_view>

namespace {

using namespace schedhost::testing;

std::string_view view(schedhost_str_t s) {
  return {s.data, s.len};
}
schedhost_str_t str(std::string_view s) {
  return {s.data(), s.size()};
}

TEST(Quantity, ConvertsToTheAbiUnits) {
  EXPECT_EQ(quantity("cpu", "500m"), 500);
  EXPECT_EQ(quantity("cpu", "1.5"), 1500);
  EXPECT_EQ(quantity("cpu", "0.1"), 100);
  EXPECT_EQ(quantity("cpu", "1m"), 1);
  EXPECT_EQ(quantity("cpu", "0.0001"), 1);  // rounded up, as the host
  EXPECT_EQ(quantity("memory", "1Gi"), 1073741824);
  EXPECT_EQ(quantity("memory", "1.5Ki"), 1536);
  EXPECT_EQ(quantity("memory", "2k"), 2000);
  EXPECT_EQ(quantity("memory", "1500m"), 2);
  EXPECT_EQ(quantity("nvidia.com/gpu", "2"), 2);
  EXPECT_THROW(quantity("cpu", "x"), std::invalid_argument);
  EXPECT_THROW(quantity("cpu", "1Qi"), std::invalid_argument);
  EXPECT_THROW(quantity("memory", "99999999999Ei"), std::invalid_argument);
}

class FakeObjectsTest : public ::testing::Test {
 protected:
  FakeHost host_;
  const schedhost_host_api_t* api_ = host_.api();
};

TEST_F(FakeObjectsTest, PodFields) {
  const schedhost_pod_t* pod = host_.keep_pod(FakePod("web", "prod")
                                                  .label("b", "2")
                                                  .label("a", "1")
                                                  .priority(7)
                                                  .request("cpu", "250m")
                                                  .toleration({"k", "Exists", "", "NoSchedule", 30})
                                                  .host_port(8080)
                                                  .container("c", "nginx")
                                                  .json("/spec/affinity", {{"x", 1}}));
  EXPECT_EQ(view(api_->pod_string(pod, SCHEDHOST_POD_UID)), "prod/web");
  EXPECT_EQ(view(api_->pod_string(pod, SCHEDHOST_POD_SCHEDULER_NAME)), "default-scheduler");
  EXPECT_EQ(api_->pod_integer(pod, SCHEDHOST_POD_PRIORITY), 7);
  schedhost_str_t k{}, v{};
  ASSERT_TRUE(api_->pod_map_at(pod, SCHEDHOST_MAP_LABELS, 0, &k, &v));
  EXPECT_EQ(view(k), "a");  // key order
  EXPECT_FALSE(api_->pod_map_at(pod, SCHEDHOST_MAP_LABELS, 2, &k, &v));
  int64_t value = -1;
  EXPECT_FALSE(api_->pod_resource(pod, SCHEDHOST_POD_REQUESTS, str("memory"), &value));
  EXPECT_EQ(value, 0);
  EXPECT_TRUE(api_->pod_resource(pod, SCHEDHOST_POD_NONZERO_REQUESTS, str("memory"), &value));
  EXPECT_EQ(value, 200 * 1024 * 1024);
  schedhost_toleration_t t{};
  ASSERT_TRUE(api_->pod_toleration_at(pod, 0, &t));
  EXPECT_EQ(view(t.op), "Exists");
  EXPECT_TRUE(t.has_toleration_seconds);
  EXPECT_EQ(t.toleration_seconds, 30);
  schedhost_host_port_t port{};
  ASSERT_TRUE(api_->pod_host_port_at(pod, 0, &port));
  EXPECT_EQ(view(port.protocol), "TCP");
  schedhost_str_t json{};
  ASSERT_TRUE(api_->pod_json(pod, str("/spec/affinity"), &json));
  EXPECT_EQ(view(json), R"({"x":1})");
  ASSERT_TRUE(api_->pod_json(pod, str("/metadata/labels"), &json));
  EXPECT_EQ(view(json), R"({"a":"1","b":"2"})");
  EXPECT_FALSE(api_->pod_json(pod, str("/spec/nothing"), &json));
  EXPECT_FALSE(api_->pod_json(pod, str("no-slash"), &json));
}

TEST_F(FakeObjectsTest, NodeInfoDerivesWhatItsPodsUse) {
  const nlohmann::json anti = {{"requiredDuringSchedulingIgnoredDuringExecution", {{{"x", 1}}}}};
  host_
      .add_node(FakeNode("a")
                    .allocatable("cpu", "4")
                    .allocatable("pods", 110)
                    .image("img", 10)
                    .pod(FakePod("p1").request("cpu", "1").request("pods", 1).host_port(80))
                    .pod(FakePod("p2").host_port(80).json("/spec/affinity/podAntiAffinity", anti)))
      .add_node(FakeNode("b").image("img", 10));
  const schedhost_node_t* a = host_.node_handle("a");
  int64_t value = 0;
  EXPECT_TRUE(api_->node_resource(a, SCHEDHOST_NODE_REQUESTED, str("cpu"), &value));
  EXPECT_EQ(value, 1000);
  EXPECT_FALSE(api_->node_resource(a, SCHEDHOST_NODE_REQUESTED, str("pods"), &value));
  EXPECT_TRUE(api_->node_resource(a, SCHEDHOST_NODE_NONZERO_REQUESTED, str("cpu"), &value));
  EXPECT_EQ(value, 1100);  // p2 counts 100m
  EXPECT_EQ(api_->node_used_port_count(a), 1U);
  schedhost_image_t image{};
  ASSERT_TRUE(api_->node_image_at(a, 0, &image));
  EXPECT_EQ(image.num_nodes, 2);
  EXPECT_EQ(api_->node_pod_count(a, SCHEDHOST_NODE_PODS_ALL), 2U);
  EXPECT_EQ(api_->node_pod_count(a, SCHEDHOST_NODE_PODS_WITH_AFFINITY), 1U);
  EXPECT_EQ(api_->node_pod_count(a, SCHEDHOST_NODE_PODS_WITH_REQUIRED_ANTI_AFFINITY), 1U);
  const schedhost_pod_t* p1 = api_->node_pod_at(a, SCHEDHOST_NODE_PODS_ALL, 0);
  EXPECT_EQ(view(api_->pod_string(p1, SCHEDHOST_POD_NODE_NAME)), "a");
  EXPECT_EQ(api_->node_pod_at(a, SCHEDHOST_NODE_PODS_ALL, 2), nullptr);
  schedhost_str_t json{};
  ASSERT_TRUE(api_->node_json(a, str("/status/allocatable/cpu"), &json));
  EXPECT_EQ(view(json), R"("4000m")");
  EXPECT_THROW(host_.node_handle("c"), std::invalid_argument);
}

TEST_F(FakeObjectsTest, NullHandlesReadAsAbsent) {
  EXPECT_EQ(api_->pod_string(nullptr, SCHEDHOST_POD_NAME).len, 0U);
  EXPECT_EQ(api_->node_pod_count(nullptr, SCHEDHOST_NODE_PODS_ALL), 0U);
  EXPECT_EQ(api_->snapshot_node_count(nullptr), 0U);
  EXPECT_FALSE(api_->log_enabled(nullptr, SCHEDHOST_LOG_ERROR));
}

}  // namespace
