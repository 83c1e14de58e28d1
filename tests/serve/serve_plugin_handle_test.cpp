// The plugin handle (ABI 1.9) in serve, against the real API server, through the Coscheduling
// example on scheduler-plugins' PodGroup custom resource: serve watches the resource the plugin
// declares, the plugin reads PodGroups through that informer, writes their status through the
// scheduler's client in PostBind, records Events and reports metrics; a change to a PodGroup is a
// cluster event that moves the pods it rejected. Without the CRD, serve stops at start.
#include <gtest/gtest.h>

#include <csignal>
#include <string>

#include "serve/serve_support.hpp"

namespace schedhost::testing::serve_plugin_handle_test {
namespace {

const std::string kExamples = std::string(SCHEDHOST_BINARY_DIR) + "/lib/schedhost/examples";

// Coscheduling with NodeResourcesFit, as the example's profile, and a short denial backoff.
constexpr const char* kProfile = R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
  - schedulerName: default-scheduler
    plugins:
      multiPoint:
        enabled:
          - name: Coscheduling
        disabled:
          - name: '*'
      queueSort:
        enabled:
          - name: PrioritySort
      preFilter:
        enabled:
          - name: NodeResourcesFit
      filter:
        enabled:
          - name: NodeResourcesFit
      bind:
        enabled:
          - name: DefaultBinder
    pluginConfig:
      - name: Coscheduling
        args:
          podGroupBackoffSeconds: 0
)";

json podgroup(const std::string& name, int min_member, int timeout_seconds) {
  return {{"apiVersion", "scheduling.x-k8s.io/v1alpha1"},
          {"kind", "PodGroup"},
          {"metadata", {{"name", name}, {"namespace", "default"}}},
          {"spec", {{"minMember", min_member}, {"scheduleTimeoutSeconds", timeout_seconds}}}};
}

const std::string kPodGroups = "/apis/scheduling.x-k8s.io/v1alpha1/namespaces/default/podgroups";

json member(const std::string& name, const std::string& gang, const std::string& cpu) {
  json pod = test_pod(name, cpu);
  pod["metadata"]["labels"] = {{"scheduling.x-k8s.io/pod-group", gang}};
  return pod;
}

TEST(ServePluginHandle, AGangIsBoundTogetherAndItsPodGroupStatusIsWrittenInPostBind) {
  SCHEDHOST_START_CONTROL_PLANE(plane);
  kube::ApiClient client(plane->admin_config());
  ScratchDir dir;
  install_podgroup_crd(client);
  create_node(client, test_node("node-a", "4"));
  client.create(kPodGroups, podgroup("gang", 3, 30));
  const int port = free_loopback_port();
  ServeProcess serve(*plane, dir.write("profile.yaml", kProfile),
                     {"--plugin-dir", kExamples, "--bind-address", "127.0.0.1", "--secure-port",
                      std::to_string(port)});
  // The first two wait at Permit: nothing is bound until the third arrives.
  client.create(ns_path("default") + "/pods", member("gang-1", "gang", "1"));
  client.create(ns_path("default") + "/pods", member("gang-2", "gang", "1"));
  ASSERT_TRUE(eventually([&] {
    return client.get(ns_path("default") + "/pods/gang-2")
               .value("/status/nominatedNodeName"_json_pointer, std::string()) == "node-a";
  })) << serve.log();
  EXPECT_EQ(live_decisions(client)["default/gang-1"].result, "Pending");
  client.create(ns_path("default") + "/pods", member("gang-3", "gang", "1"));
  ASSERT_TRUE(eventually([&] {
    auto live = live_decisions(client);
    return live["default/gang-1"].node == "node-a" && live["default/gang-2"].node == "node-a" &&
           live["default/gang-3"].node == "node-a";
  })) << serve.log();
  // The status as the members' PostBinds left it: three placed, the gang Scheduled.
  ASSERT_TRUE(eventually([&] {
    return client.get(kPodGroups + "/gang").value("/status/scheduled"_json_pointer, 0) == 3;
  })) << serve.log();
  EXPECT_EQ(client.get(kPodGroups + "/gang")["status"],
            json::parse(R"({"phase": "Scheduled", "scheduled": 3})"));
  // The plugin's metrics, on /metrics under schedhost_plugin_ with its name.
  kube::ClientConfig metrics_config;
  metrics_config.server = "https://127.0.0.1:" + std::to_string(port);
  metrics_config.insecure_skip_tls_verify = true;
  metrics_config.token = plane->admin_token();
  const std::string metrics = kube::ApiClient(metrics_config).request("GET", "/metrics").body;
  EXPECT_NE(metrics.find("schedhost_plugin_gangs_rejected_total{plugin=\"Coscheduling\"} 0\n"),
            std::string::npos)
      << metrics;
  EXPECT_NE(metrics.find("schedhost_plugin_gang_wait_seconds_count{plugin=\"Coscheduling\"} 1\n"),
            std::string::npos)
      << metrics;
  kill(serve.process().pid(), SIGTERM);
  serve.process().stop(15'000);
}

TEST(ServePluginHandle, AGangRejectedAtItsTimeoutHasAnEventAndAPodGroupChangeMovesIt) {
  SCHEDHOST_START_CONTROL_PLANE(plane);
  kube::ApiClient client(plane->admin_config());
  ScratchDir dir;
  install_podgroup_crd(client);
  create_node(client, test_node("node-a", "4"));
  client.create(kPodGroups, podgroup("gang", 3, 2));  // a 2 s wait, and only two members
  ServeProcess serve(*plane, dir.write("profile.yaml", kProfile), {"--plugin-dir", kExamples});
  client.create(ns_path("default") + "/pods", member("gang-1", "gang", "1"));
  client.create(ns_path("default") + "/pods", member("gang-2", "gang", "1"));
  // Both wait, the first wait times out, and the gang is rejected whole.
  ASSERT_TRUE(eventually([&] {
    auto live = live_decisions(client);
    return live["default/gang-1"].result == "Unschedulable" &&
           live["default/gang-2"].result == "Unschedulable";
  })) << serve.log();
  const std::string timed_out = posted_failure_message(client, "default", "gang-1");
  const std::string other = posted_failure_message(client, "default", "gang-2");
  // Which member's wait ends first is the host's affair; one timed out, the other followed it.
  const bool first_timed_out = timed_out.rfind("rejected due to timeout after waiting 2s", 0) == 0;
  const std::string which = first_timed_out ? "gang-1" : "gang-2";
  EXPECT_EQ(first_timed_out ? timed_out : other,
            "rejected due to timeout after waiting 2s at plugin Coscheduling");
  EXPECT_EQ(first_timed_out ? other : timed_out,
            "pod group default/gang was rejected: member " + which + " was unreserved");
  ASSERT_TRUE(eventually([&] {
    return !events_about(client, "default", which, "GangRejected").empty();
  })) << serve.log();
  const json event = events_about(client, "default", which, "GangRejected").at(0);
  EXPECT_EQ(event["type"], "Warning");
  EXPECT_EQ(event["reportingController"], "default-scheduler");
  EXPECT_EQ(event["note"], "PodGroup default/gang rejected: member " + which +
                               " was unreserved (1 other member(s) placed, minMember 3)");
  EXPECT_FALSE(client.get(kPodGroups + "/gang").contains("status"));  // nothing was bound
  // The gang needs only two now: the PodGroup's update is a cluster event Coscheduling
  // registered, the pods it rejected are tried again, and both are bound.
  client.patch(kPodGroups + "/gang", {{"spec", {{"minMember", 2}}}}, kube::PatchType::Merge);
  ASSERT_TRUE(eventually(
      [&] {
        auto live = live_decisions(client);
        return live["default/gang-1"].node == "node-a" && live["default/gang-2"].node == "node-a";
      },
      std::chrono::seconds(40)))
      << serve.log();
  ASSERT_TRUE(eventually([&] {
    return client.get(kPodGroups + "/gang").value("/status/scheduled"_json_pointer, 0) == 2;
  })) << serve.log();
  EXPECT_EQ(client.get(kPodGroups + "/gang")["status"]["phase"], "Scheduled");
  kill(serve.process().pid(), SIGTERM);
  serve.process().stop(15'000);
}

// The resource a plugin declares is not served (no CRD): serve stops before it schedules, with
// one line naming the plugin and the resource, and exit code 1.
TEST(ServePluginHandle, AResourceTheApiServerDoesNotServeStopsServeAtStart) {
  SCHEDHOST_START_CONTROL_PLANE(plane);
  ScratchDir dir;
  ServeProcess serve(*plane, dir.write("profile.yaml", kProfile), {"--plugin-dir", kExamples});
  const int status = serve.process().wait();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 1) << status << serve.log();
  const std::string log = serve.log();
  const std::string last = log.substr(log.rfind('\n', log.size() - 2) + 1);
  EXPECT_EQ(last,
            "error: plugin \"Coscheduling\" reads podgroups.v1alpha1.scheduling.x-k8s.io, which "
            "the API server does not serve (no podgroups in scheduling.x-k8s.io/v1alpha1): "
            "install its CustomResourceDefinition, or disable the plugin\n")
      << log;
}

}  // namespace
}  // namespace schedhost::testing::serve_plugin_handle_test
