// serve's queue against the real API server (issue 16): a pod that fits nowhere is tried again
// only on events that may help it (not on an unrelated node change, nor on a label change of a
// node too small for it), and is bound soon after the event that frees room; a gated pod is
// scheduled once its gate is removed; a pod a third-party .so rejected is tried again only on the
// events that plugin registered and its queueing hint lets through; a pending pod's own update
// retries it only when its rejecting plugin's hint says it may help (v1.35).
#include <gtest/gtest.h>

#include <string>

#include "serve/serve_support.hpp"

namespace schedhost::testing::serve_queue_test {

const std::string kSource = SCHEDHOST_SOURCE_DIR;
const std::string kDefaultProfile = kSource + "/configs/default-profile.yaml";

// The attempts serve made for a pod that did not fit: its "is unschedulable" log lines.
int failed_attempts(const ServeProcess& serve, const std::string& key) {
  const std::string log = serve.log();
  const std::string line = "serve: " + key + " is unschedulable";
  int n = 0;
  for (auto at = log.find(line); at != std::string::npos; at = log.find(line, at + 1))
    ++n;
  return n;
}

TEST(ServeQueue, AStuckPodIsTriedAgainOnlyByEventsThatMayHelpIt) {
  SCHEDHOST_START_CONTROL_PLANE(plane);
  kube::ApiClient client(plane->admin_config());
  create_node(client, test_node("small", "1"));
  create_node(client, test_node("mid", "2"));
  json filler = test_pod("filler", "1500m");
  filler["spec"]["nodeName"] = "mid";  // running there: mid has 500m free
  client.create(ns_path("default") + "/pods", filler);
  client.create(ns_path("default") + "/pods", test_pod("big", "2"));

  ServeProcess serve(*plane, kDefaultProfile);
  ASSERT_TRUE(eventually([&] { return failed_attempts(serve, "default/big") == 1; }))
      << serve.log();

  // Unrelated to big: an annotation (an event NodeResourcesFit did not register), a label on the
  // node too small for it (not registered either), another pod arriving on mid (an assigned pod's
  // add: not registered; only its deletion or scale-down is).
  client.patch("/api/v1/nodes/mid", {{"metadata", {{"annotations", {{"note", "x"}}}}}},
               kube::PatchType::Merge);
  client.patch("/api/v1/nodes/small", {{"metadata", {{"labels", {{"tier", "gold"}}}}}},
               kube::PatchType::Merge);
  json other = test_pod("other", "100m");
  other["spec"]["nodeName"] = "small";
  client.create(ns_path("default") + "/pods", other);
  std::this_thread::sleep_for(std::chrono::seconds(4));  // past the backoffs
  EXPECT_EQ(failed_attempts(serve, "default/big"), 1) << serve.log();
  EXPECT_EQ(live_decisions(client)["default/big"].node, "");

  // The filler leaves mid: room for big, which is bound there soon (its 1 s backoff, then the
  // next flush).
  client.remove(ns_path("default") + "/pods/filler",
                {{"apiVersion", "v1"}, {"kind", "DeleteOptions"}, {"gracePeriodSeconds", 0}});
  ASSERT_TRUE(eventually([&] { return live_decisions(client)["default/big"].node == "mid"; },
                         std::chrono::seconds(15)))
      << serve.log();
  EXPECT_EQ(failed_attempts(serve, "default/big"), 1) << serve.log();
}

TEST(ServeQueue, AGatedPodIsScheduledOnceItsGateIsRemoved) {
  SCHEDHOST_START_CONTROL_PLANE(plane);
  kube::ApiClient client(plane->admin_config());
  create_node(client, test_node("n1", "2"));
  json gated = test_pod("gated", "100m");
  gated["spec"]["schedulingGates"] = json::array({{{"name", "example.com/quota"}}});
  client.create(ns_path("default") + "/pods", gated);

  ServeProcess serve(*plane, kDefaultProfile);
  std::this_thread::sleep_for(std::chrono::seconds(3));
  EXPECT_EQ(live_decisions(client)["default/gated"].node, "") << serve.log();
  EXPECT_EQ(failed_attempts(serve, "default/gated"), 0) << serve.log();  // never tried

  client.patch(ns_path("default") + "/pods/gated", {{"spec", {{"schedulingGates", nullptr}}}},
               kube::PatchType::Merge);
  ASSERT_TRUE(eventually([&] { return live_decisions(client)["default/gated"].node == "n1"; },
                         std::chrono::seconds(15)))
      << serve.log();
}

TEST(ServeQueue, APodAThirdPartyPluginRejectedIsTriedAgainWhenTheLabelItWaitsForAppears) {
  SCHEDHOST_START_CONTROL_PLANE(plane);
  kube::ApiClient client(plane->admin_config());
  ScratchDir dir;
  // The default profile plus GpuLabelFilter (tests/live_cache/fixtures/event_plugins.cpp): it
  // registers node adds and label changes, and its hint queues a pod only when the node now has
  // accelerator=gpu.
  const std::string config = dir.write("profile.yaml", R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    filter:
      enabled: [{name: GpuLabelFilter}]
)");
  const std::string events = std::string(SCHEDHOST_TEST_FIXTURE_DIR) + "/events";
  create_node(client, test_node("n1", "2"));
  client.create(ns_path("default") + "/pods", test_pod("trainer", "100m"));

  ServeProcess serve(*plane, config, {"--plugin-dir", events});
  ASSERT_TRUE(eventually([&] { return failed_attempts(serve, "default/trainer") == 1; }))
      << serve.log();
  EXPECT_NE(serve.log().find("0/1 nodes are available: 1 node(s) had no accelerator=gpu label."),
            std::string::npos)
      << serve.log();

  // Not registered (an annotation), registered but the hint says Skip (another label value), and
  // a pod event GpuLabelFilter does not care about: no attempt.
  client.patch("/api/v1/nodes/n1", {{"metadata", {{"annotations", {{"note", "x"}}}}}},
               kube::PatchType::Merge);
  client.patch("/api/v1/nodes/n1", {{"metadata", {{"labels", {{"accelerator", "tpu"}}}}}},
               kube::PatchType::Merge);
  json other = test_pod("other", "100m");
  other["spec"]["nodeName"] = "n1";
  client.create(ns_path("default") + "/pods", other);
  std::this_thread::sleep_for(std::chrono::seconds(4));  // past the backoffs
  EXPECT_EQ(failed_attempts(serve, "default/trainer"), 1) << serve.log();
  EXPECT_EQ(live_decisions(client)["default/trainer"].node, "");

  // The label it waits for: tried again at once (its backoff is over) and bound.
  client.patch("/api/v1/nodes/n1", {{"metadata", {{"labels", {{"accelerator", "gpu"}}}}}},
               kube::PatchType::Merge);
  ASSERT_TRUE(eventually([&] { return live_decisions(client)["default/trainer"].node == "n1"; },
                         std::chrono::seconds(15)))
      << serve.log();
  EXPECT_EQ(failed_attempts(serve, "default/trainer"), 1) << serve.log();
}

TEST(ServeQueue, APendingPodsOwnUpdateRetriesItOnlyWhenItsRejectorsHintSaysItMayHelp) {
  SCHEDHOST_START_CONTROL_PLANE(plane);
  kube::ApiClient client(plane->admin_config());
  json cordoned = test_node("n1", "2");
  cordoned["spec"]["unschedulable"] = true;
  create_node(client, cordoned);
  client.create(ns_path("default") + "/pods", test_pod("p", "100m"));

  ServeProcess serve(*plane, kDefaultProfile);
  ASSERT_TRUE(eventually([&] { return failed_attempts(serve, "default/p") == 1; })) << serve.log();

  // A new label is an UnschedulablePodUpdatePodLabel event, which NodeUnschedulable did not
  // register: the pod waits (v1.28 retried it on any change beyond its status).
  client.patch(ns_path("default") + "/pods/p", {{"metadata", {{"labels", {{"tier", "gold"}}}}}},
               kube::PatchType::Merge);
  std::this_thread::sleep_for(std::chrono::seconds(3));  // past its backoff
  EXPECT_EQ(failed_attempts(serve, "default/p"), 1) << serve.log();

  // Tolerating the cordon (UnschedulablePodUpdatePodToleration, NodeUnschedulable's hint says
  // Queue): it is bound.
  client.patch(ns_path("default") + "/pods/p",
               {{"spec",
                 {{"tolerations", json::array({{{"key", "node.kubernetes.io/unschedulable"},
                                                {"operator", "Exists"},
                                                {"effect", "NoSchedule"}}})}}}},
               kube::PatchType::Merge);
  ASSERT_TRUE(eventually([&] { return live_decisions(client)["default/p"].node == "n1"; },
                         std::chrono::seconds(15)))
      << serve.log();
  EXPECT_EQ(failed_attempts(serve, "default/p"), 1) << serve.log();
}

}  // namespace schedhost::testing::serve_queue_test
