// What v1.35 changed, seen by serve against the real v1.35 API server: a pod's pod-level
// resources decide where it fits (the API server keeps spec.resources for the scheduler), and a
// pod with spec.resourceClaims is left unschedulable with the message naming the missing
// DynamicResources plugin.
#include <gtest/gtest.h>

#include "serve/serve_support.hpp"

namespace schedhost::testing::serve_v1_35_test {

using nlohmann::json;

const char* const kDefaultProfile =
    "apiVersion: kubescheduler.config.k8s.io/v1\n"
    "kind: KubeSchedulerConfiguration\n"
    "leaderElection: {leaderElect: false}\n"
    "profiles:\n- schedulerName: default-scheduler\n";

TEST(ServeV135, PodLevelResourcesAndResourceClaimsAreDecidedAsV135Would) {
  SCHEDHOST_START_CONTROL_PLANE(plane);
  kube::ApiClient client(plane->admin_config());
  create_node(client, test_node("n1", "2"));
  create_node(client, test_node("n2", "4"));
  // 3 cpus at pod level, none in the container: only n2 has room.
  json big = test_pod("big", "0");
  big["spec"]["containers"][0].erase("resources");
  big["spec"]["resources"] = {{"requests", {{"cpu", "3"}}}};
  // 5 cpus at pod level: no node has room.
  json huge = big;
  huge["metadata"]["name"] = "huge";
  huge["spec"]["resources"]["requests"]["cpu"] = "5";
  json claimed = test_pod("gpu-job", "100m");
  claimed["spec"]["containers"][0]["resources"]["claims"] = json::array({{{"name", "gpu"}}});
  claimed["spec"]["resourceClaims"] =
      json::array({{{"name", "gpu"}, {"resourceClaimName", "gpu-claim"}}});
  for (const json& p : {big, huge, claimed})
    client.create(ns_path("default") + "/pods", p);
  ScratchDir dir;
  ServeProcess serve(*plane, dir.write("profile.yaml", kDefaultProfile));

  ASSERT_TRUE(eventually([&] { return live_decisions(client)["default/big"].node == "n2"; }))
      << serve.log();
  ASSERT_TRUE(eventually([&] {
    return first_failure_message(client, "default", "huge")
        .starts_with("0/2 nodes are available: 2 Insufficient cpu.");
  })) << first_failure_message(client, "default", "huge")
      << serve.log();
  ASSERT_TRUE(eventually([&] {
    return first_failure_message(client, "default", "gpu-job")
        .starts_with(
            "0/2 nodes are available: pod uses spec.resourceClaims (dynamic resource "
            "allocation), which needs the DynamicResources plugin");
  })) << first_failure_message(client, "default", "gpu-job")
      << serve.log();
  EXPECT_EQ(live_decisions(client)["default/gpu-job"].node, "");
  EXPECT_TRUE(serve.process().running());
}

}  // namespace schedhost::testing::serve_v1_35_test
