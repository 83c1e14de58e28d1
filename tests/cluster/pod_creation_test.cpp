// The API server's creation-time changes applied to cluster-file pods (cluster/pod_creation).
#include "cluster/pod_creation.hpp"

#include <gtest/gtest.h>

#include <string>

#include "test_yaml.hpp"

namespace schedhost::cluster {
namespace {

using nlohmann::json;
using testing::yaml;

TEST(PodCreation, AffinityLabelKeysAreMergedIntoTheSelectorsAsTheApiServerDoes) {
  json pod = yaml(R"(
metadata: {name: p, labels: {app: web, version: v2}}
spec:
  affinity:
    podAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
      - labelSelector: {matchLabels: {app: web}}
        mismatchLabelKeys: [version, absent]
        topologyKey: kubernetes.io/hostname
    podAntiAffinity:
      preferredDuringSchedulingIgnoredDuringExecution:
      - weight: 5
        podAffinityTerm:
          labelSelector: {matchExpressions: [{key: tier, operator: Exists}]}
          matchLabelKeys: [app]
          topologyKey: zone
      requiredDuringSchedulingIgnoredDuringExecution:
      - matchLabelKeys: [app]
        topologyKey: zone
)");
  merge_affinity_label_keys(pod);
  const json& affinity = pod["spec"]["affinity"];
  EXPECT_EQ(
      affinity["podAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][0]["labelSelector"],
      json::parse(R"({"matchLabels": {"app": "web"}, "matchExpressions":
                [{"key": "version", "operator": "NotIn", "values": ["v2"]}]})"));
  EXPECT_EQ(affinity["podAntiAffinity"]["preferredDuringSchedulingIgnoredDuringExecution"][0]
                    ["podAffinityTerm"]["labelSelector"],
            json::parse(R"({"matchExpressions": [{"key": "tier", "operator": "Exists"},
                {"key": "app", "operator": "In", "values": ["web"]}]})"));
  // No labelSelector: matches nothing, left alone.
  EXPECT_FALSE(
      affinity["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][0].contains(
          "labelSelector"));

  // A pod exported from a cluster already has them: nothing is added twice.
  const json once = pod;
  merge_affinity_label_keys(pod);
  EXPECT_EQ(pod, once);
}

TEST(PodCreation, PodsWithoutAffinityOrWithOddShapesAreLeftAsTheyAre) {
  const std::string odd_terms =
      std::string("metadata: {name: p}\nspec: {affinity: {podAffinity: ") +
      "{requiredDuringSchedulingIgnoredDuringExecution: [7, " +
      "{labelSelector: {}, matchLabelKeys: x}]}}}";
  for (const std::string& text :
       {std::string("metadata: {name: p}\nspec: {containers: []}"),
        std::string("metadata: {name: p}\nspec: {affinity: {podAffinity: 3}}"), odd_terms,
        std::string("spec: 1"), std::string("[]")}) {
    json pod = yaml(text);
    const json before = pod;
    merge_affinity_label_keys(pod);
    EXPECT_EQ(pod, before) << text;
  }
}

}  // namespace
}  // namespace schedhost::cluster
