// Quantities beyond what a resource amount can be (int64-max units, ~9.2e18) are refused with the
// field's path and position, without big-number arithmetic or undefined behaviour.
#include <chrono>

#include <gtest/gtest.h>

#include "cluster/quantity.hpp"
#include "hostile_support.hpp"

namespace schedhost::hostile {
namespace {

std::string pod_requesting(const std::string& cpu) {
  return "kind: Pod\nmetadata: {name: web}\nspec:\n  containers:\n  - name: c\n    resources:\n"
         "      requests: {cpu: \"" +
         cpu + "\"}\n";
}

TEST(QuantityRangeTest, AbsurdExponentsInAPod) {
  EXPECT_EQ(cluster_error(pod_requesting("1e999999999")),
            "cluster.yaml:7:23: Pod \"default/web\": spec.containers[0].resources.requests.cpu "
            "\"1e999999999\" is out of range: the largest quantity is 9223372036854775807 (2^63-1) "
            "units: use a smaller amount");
  EXPECT_EQ(cluster_error(pod_requesting("999999999999999999999Ei")),
            "cluster.yaml:7:23: Pod \"default/web\": spec.containers[0].resources.requests.cpu "
            "\"999999999999999999999Ei\" is out of range: the largest quantity is "
            "9223372036854775807 (2^63-1) units: use a smaller amount");
  EXPECT_EQ(cluster_error(pod_requesting("1e2147483648")),
            "cluster.yaml:7:23: Pod \"default/web\": spec.containers[0].resources.requests.cpu "
            "\"1e2147483648\" is out of range: the largest quantity is 9223372036854775807 "
            "(2^63-1) units: use a smaller amount");
}

TEST(QuantityRangeTest, AbsurdAllocatableOnANodeAndAJsonNumber) {
  EXPECT_EQ(cluster_error("{\"kind\": \"Node\", \"metadata\": {\"name\": \"n\"},\n"
                          " \"status\": {\"allocatable\": {\"memory\": 1e308}}}",
                          "n.json"),
            "n.json:2:39: Node \"n\": status.allocatable.memory 1e+308 is out of range: the "
            "largest quantity is 9223372036854775807 (2^63-1) units: use a smaller amount");
}

TEST(QuantityRangeTest, EdgesOfTheRange) {
  using cluster::parse_quantity;
  EXPECT_TRUE(parse_quantity("9223372036854775807"));
  EXPECT_TRUE(parse_quantity("-9223372036854775807"));
  EXPECT_TRUE(parse_quantity("7Ei"));
  EXPECT_FALSE(parse_quantity("9223372036854775808"));
  EXPECT_FALSE(parse_quantity("8Ei"));
  EXPECT_FALSE(parse_quantity("9223372036854775807.000000001"));  // rounds up past the max
  EXPECT_TRUE(parse_quantity("1e-999999999"));                    // a sliver: rounded up to 1n
  EXPECT_EQ(parse_quantity("1e-2147483648")->nano(), 1);
}

TEST(QuantityRangeTest, LongMantissasAreCheap) {
  const auto start = std::chrono::steady_clock::now();
  std::string error;
  EXPECT_EQ(cluster::parse_quantity("1" + std::string(1'000'000, '0') + "e-1000000")->value(), 1);
  EXPECT_FALSE(cluster::parse_quantity("0." + std::string(1'000'000, '1'), &error));
  EXPECT_EQ(error, "more than 1000 significant digits");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
}

}  // namespace
}  // namespace schedhost::hostile
