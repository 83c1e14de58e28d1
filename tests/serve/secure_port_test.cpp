// serve's secure port against the real API server (issue 17): health endpoints open to anyone,
// /metrics and /configz only to who the API server authenticates (TokenReview) and authorizes
// (SubjectAccessReview); /metrics parsed by Prometheus' own parser after a known run; a given
// certificate is the one served; a port in use is one line and exit code 2.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include "serve/serve_support.hpp"

namespace schedhost::testing::secure_port_test {

const std::string kSource = SCHEDHOST_SOURCE_DIR;

// A client of the secure port: no certificate check unless ca_pem is given.
kube::ApiClient port_client(int port, const std::string& token, const std::string& ca_pem = {}) {
  kube::ClientConfig c;
  c.server = "https://127.0.0.1:" + std::to_string(port);
  c.insecure_skip_tls_verify = ca_pem.empty();
  c.ca_pem = ca_pem;
  c.token = token;
  return kube::ApiClient(c);
}

// /metrics through Prometheus' reference parser (python3-prometheus-client): every sample.
json parse_metrics(const ScratchDir& dir, const std::string& text) {
  const std::string file = dir.write("metrics.txt", text);
  // Debian's python3, the one python3-prometheus-client installs into (not a python3 on PATH).
  const std::string command =
      "/usr/bin/python3 " + kSource + "/tests/serve/fixtures/parse_metrics.py " + file + " 2>&1";
  std::string out;
  FILE* p = popen(command.c_str(), "r");
  if (p == nullptr) return nullptr;
  char buf[4096];
  for (std::size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;)
    out.append(buf, n);
  if (pclose(p) != 0) {
    ADD_FAILURE() << "the Prometheus parser refused /metrics: " << out;
    return nullptr;
  }
  return json::parse(out);
}

// The value of the sample `name` with exactly `labels`, or -1 when there is none.
double sample(const json& families, const std::string& name, const json& labels) {
  for (const auto& [family, f] : families.items()) {
    for (const json& s : f["samples"]) {
      if (s[0] == name && s[1] == labels) return s[2].get<double>();
    }
  }
  return -1;
}

TEST(ServeSecurePort, HealthIsOpenAndMetricsAreForWhomTheApiServerAllows) {
  SCHEDHOST_START_CONTROL_PLANE(plane);
  kube::ApiClient client(plane->admin_config());
  ScratchDir dir;
  create_node(client, test_node("n1", "2"));
  for (const char* name : {"a", "b", "c"})
    client.create(ns_path("default") + "/pods", test_pod(name, "500m"));
  client.create(ns_path("default") + "/pods", test_pod("big", "4"));
  const int port = free_loopback_port();
  // Every cycle's plugin hooks timed (upstream times 10%), so their counts are known.
  ServeProcess serve(*plane, kSource + "/configs/default-profile.yaml",
                     {"--bind-address", "127.0.0.1", "--secure-port", std::to_string(port),
                      "--plugin-metrics-sample-percent", "100"});
  ASSERT_TRUE(eventually([&] {
    auto live = live_decisions(client);
    return live["default/a"].node == "n1" && live["default/b"].node == "n1" &&
           live["default/c"].node == "n1" && live["default/big"].result == "Unschedulable";
  })) << serve.log();

  // Health: anyone, as the API server writes it.
  kube::ApiClient anonymous = port_client(port, "");
  kube::Response r = anonymous.request("GET", "/healthz");
  EXPECT_EQ(r.code, 200);
  EXPECT_EQ(r.body, "ok");
  EXPECT_EQ(anonymous.request("GET", "/healthz?verbose").body,
            "[+]leaderElection ok\n[+]plugin-hooks ok\nhealthz check passed\n");
  EXPECT_EQ(anonymous.request("GET", "/readyz?verbose").body,
            "[+]leaderElection ok\n[+]plugin-hooks ok\n[+]sched-handler-sync ok\n[+]shutdown "
            "ok\nreadyz check passed\n");
  // Only the three paths themselves are always allowed, as upstream: one check needs a user.
  EXPECT_EQ(anonymous.request("GET", "/livez/leaderElection").code, 403);
  EXPECT_EQ(port_client(port, plane->admin_token()).request("GET", "/livez/leaderElection").body,
            "ok");
  EXPECT_EQ(anonymous.request("GET", "/livez?verbose&exclude=nope").body,
            "[+]leaderElection ok\n[+]plugin-hooks ok\nwarn: some health checks cannot be "
            "excluded: no matches for "
            "\"nope\"\nlivez check passed\n");

  // /metrics: anonymous is forbidden, a bad token unauthorized, a token without RBAC forbidden.
  r = anonymous.request("GET", "/metrics");
  EXPECT_EQ(r.code, 403);
  EXPECT_EQ(json::parse(r.body)["message"],
            "forbidden: User \"system:anonymous\" cannot get path \"/metrics\"");
  r = port_client(port, "not-a-token").request("GET", "/metrics");
  EXPECT_EQ(r.code, 401);
  EXPECT_EQ(json::parse(r.body)["reason"], "Unauthorized");
  client.create(ns_path("default") + "/serviceaccounts",
                {{"apiVersion", "v1"},
                 {"kind", "ServiceAccount"},
                 {"metadata", {{"name", "viewer"}, {"namespace", "default"}}}});
  const json token = client.create(ns_path("default") + "/serviceaccounts/viewer/token",
                                   {{"apiVersion", "authentication.k8s.io/v1"},
                                    {"kind", "TokenRequest"},
                                    {"spec", json::object()}});
  r = port_client(port, token["status"]["token"]).request("GET", "/metrics");
  EXPECT_EQ(r.code, 403);
  EXPECT_EQ(json::parse(r.body)["message"],
            "forbidden: User \"system:serviceaccount:default:viewer\" cannot get path "
            "\"/metrics\"");

  // The admin reads /metrics: upstream's families, with the counts of this run.
  kube::ApiClient admin = port_client(port, plane->admin_token());
  json families;
  ASSERT_TRUE(eventually([&] {
    r = admin.request("GET", "/metrics");
    if (r.code != 200) return false;
    families = parse_metrics(dir, r.body);
    return sample(families, "scheduler_pending_pods", {{"queue", "unschedulable"}}) == 1;
  })) << r.code
      << r.body;
  EXPECT_EQ(sample(families, "scheduler_schedule_attempts_total",
                   {{"profile", "default-scheduler"}, {"result", "scheduled"}}),
            3);
  EXPECT_GE(sample(families, "scheduler_schedule_attempts_total",
                   {{"profile", "default-scheduler"}, {"result", "unschedulable"}}),
            1);
  EXPECT_EQ(sample(families, "scheduler_scheduling_attempt_duration_seconds_count",
                   {{"profile", "default-scheduler"}, {"result", "scheduled"}}),
            3);
  EXPECT_GT(sample(families, "scheduler_scheduling_attempt_duration_seconds_sum",
                   {{"profile", "default-scheduler"}, {"result", "scheduled"}}),
            0);
  EXPECT_EQ(sample(families, "scheduler_pending_pods", {{"queue", "active"}}), 0);
  EXPECT_EQ(sample(families, "scheduler_pending_pods", {{"queue", "gated"}}), 0);
  EXPECT_EQ(sample(families, "scheduler_pod_scheduling_attempts_count", json::object()), 3);
  double first_attempt = -1;  // the le="1" bucket, however the exposition writes 1
  for (const json& s : families["scheduler_pod_scheduling_attempts"]["samples"]) {
    if (s[0] == "scheduler_pod_scheduling_attempts_bucket" &&
        std::stod(s[1]["le"].get<std::string>()) == 1.0) {
      first_attempt = s[2];
    }
  }
  EXPECT_EQ(first_attempt, 3);
  EXPECT_EQ(sample(families, "scheduler_queue_incoming_pods_total",
                   {{"event", "PodAdd"}, {"queue", "active"}}),
            4);
  EXPECT_GE(sample(families, "scheduler_queue_incoming_pods_total",
                   {{"event", "ScheduleAttemptFailure"}, {"queue", "unschedulable"}}),
            1);
  EXPECT_EQ(sample(families, "leader_election_master_status", {{"name", "kube-scheduler"}}), 1);
  // Opportunistic batching (v1.35): the default profile never batches (PodTopologySpread's
  // default constraints), so every attempt that passed PreFilter had no hint.
  EXPECT_GE(sample(families, "scheduler_batch_attempts_total",
                   {{"profile", "default-scheduler"}, {"result", "no_hint"}}),
            4);
  EXPECT_EQ(families["scheduler_batch_attempts"]["help"],
            "[ALPHA] Counts of results when we attempt to use batching.");
  // Extension points and plugins: one Bind and one Filter per bound pod, the big pod's rejection.
  const json fit_filter = {{"extension_point", "Filter"}, {"plugin", "NodeResourcesFit"}};
  EXPECT_EQ(
      sample(
          families, "scheduler_framework_extension_point_duration_seconds_count",
          {{"extension_point", "Bind"}, {"profile", "default-scheduler"}, {"status", "Success"}}),
      3);
  EXPECT_EQ(sample(families, "scheduler_framework_extension_point_duration_seconds_count",
                   {{"extension_point", "Reserve"},
                    {"profile", "default-scheduler"},
                    {"status", "Success"}}),
            3);
  EXPECT_GE(sample(families, "scheduler_framework_extension_point_duration_seconds_count",
                   {{"extension_point", "PostFilter"},
                    {"profile", "default-scheduler"},
                    {"status", "Unschedulable"}}),
            1);
  EXPECT_EQ(
      sample(families, "scheduler_plugin_execution_duration_seconds_count",
             {{"extension_point", "Bind"}, {"plugin", "DefaultBinder"}, {"status", "Success"}}),
      3);
  json fit_ok = fit_filter;
  fit_ok["status"] = "Success";
  EXPECT_EQ(sample(families, "scheduler_plugin_execution_duration_seconds_count", fit_ok), 3);
  json fit_rejected = fit_filter;
  // Larger than any node's allocatable: v1.35 rejects it as UnschedulableAndUnresolvable.
  fit_rejected["status"] = "UnschedulableAndUnresolvable";
  EXPECT_GE(sample(families, "scheduler_plugin_execution_duration_seconds_count", fit_rejected), 1);
  EXPECT_EQ(
      sample(families, "scheduler_pod_scheduling_sli_duration_seconds_count", {{"attempts", "1"}}),
      3);
  // Upstream's buckets: 0.1 ms doubling 12 times; 10 us times 1.5, 20 of them.
  const auto bounds = [&](const std::string& family, const json& labels) {
    std::vector<std::string> le;
    for (const json& s : families[family]["samples"]) {
      json rest = s[1];
      rest.erase("le");
      if (s[0] == family + "_bucket" && rest == labels) le.push_back(s[1]["le"]);
    }
    return le;
  };
  auto le = bounds(
      "scheduler_framework_extension_point_duration_seconds",
      {{"extension_point", "Bind"}, {"profile", "default-scheduler"}, {"status", "Success"}});
  ASSERT_EQ(le.size(), 13u);
  EXPECT_EQ(std::stod(le[0]), 0.0001);
  EXPECT_EQ(std::stod(le[11]), 0.2048);
  le = bounds("scheduler_plugin_execution_duration_seconds", fit_ok);
  ASSERT_EQ(le.size(), 21u);
  EXPECT_EQ(std::stod(le[0]), 1e-05);
  EXPECT_NEAR(std::stod(le[19]), 0.02216837820053101, 1e-15);
  EXPECT_EQ(le[20], "+Inf");
  EXPECT_EQ(families["scheduler_plugin_execution_duration_seconds"]["help"],
            "[ALPHA] Duration for running a plugin at a specific extension point.");
  EXPECT_EQ(
      families["scheduler_pod_scheduling_sli_duration_seconds"]["help"].get<std::string>().rfind(
          "[BETA] ", 0),
      0u);
  EXPECT_EQ(families["scheduler_pending_pods"]["type"], "gauge");
  EXPECT_EQ(families["scheduler_schedule_attempts"]["type"], "counter");
  EXPECT_EQ(families["scheduler_pod_scheduling_attempts"]["type"], "histogram");
  EXPECT_EQ(families["scheduler_pending_pods"]["help"].get<std::string>().rfind("[STABLE] ", 0),
            0u);
  bool fit_listed = false;
  for (const json& s : families["schedhost_plugins_loaded"]["samples"]) {
    if (s[1]["plugin"] == "NodeResourcesFit") {
      fit_listed = s[1]["abi"] == "1.9" && s[1]["library"] == "node-resources-fit" &&
                   s[1]["sha256"].get<std::string>().size() == 64 && s[2] == 1;
    }
  }
  EXPECT_TRUE(fit_listed) << families["schedhost_plugins_loaded"].dump();
  EXPECT_GT(sample(families, "process_start_time_seconds", json::object()), 1.7e9);
  EXPECT_GT(sample(families, "process_resident_memory_bytes", json::object()), 1e6);

  // /configz: the effective configuration.
  r = admin.request("GET", "/configz");
  ASSERT_EQ(r.code, 200) << r.body;
  const json config = json::parse(r.body)["componentconfig"];
  EXPECT_EQ(config["profiles"][0]["schedulerName"], "default-scheduler");
  EXPECT_EQ(config["leaderElection"]["leaseDuration"], "15s");
  EXPECT_EQ(config["profiles"][0]["plugins"]["queueSort"]["enabled"],
            json::parse(R"([{"name": "PrioritySort"}])"));
}

// A plugin that breaks the ABI's rules costs the pod an Error and shows on /metrics, by plugin
// and kind: the C fixture Faulty, once returning a status code the ABI lacks (Filter), once a
// score of 150 (Score), and the C++ fixture Thrower, whose PreFilter throws (reported through
// report_exception, ABI 1.4), each in its own profile.
TEST(ServeSecurePort, PluginFaultsAreCountedByPluginAndKind) {
  SCHEDHOST_START_CONTROL_PLANE(plane);
  kube::ApiClient client(plane->admin_config());
  ScratchDir dir;
  const std::string profile = R"(
  plugins:
    multiPoint:
      disabled: [{name: '*'}]
      enabled: [{name: Faulty}]
    queueSort:
      enabled: [{name: PrioritySort}]
    bind:
      enabled: [{name: DefaultBinder}]
  pluginConfig:
  - name: Faulty
    args: {fault: )";
  const std::string config =
      dir.write("faulty.yaml",
                "apiVersion: kubescheduler.config.k8s.io/v1\n"
                "kind: KubeSchedulerConfiguration\n"
                "leaderElection: {leaderElect: false}\n"
                "profiles:\n"
                "- schedulerName: faulty-code" +
                    profile + "unknown-code}\n- schedulerName: faulty-score" + profile +
                    "score-150}\n"
                    "- schedulerName: throwing\n"
                    "  plugins:\n"
                    "    multiPoint: {enabled: [{name: Thrower}]}\n");
  // Two nodes: with one, nothing is scored.
  create_node(client, test_node("n1", "2"));
  create_node(client, test_node("n2", "2"));
  ScratchDir plugins;
  plugins.copy_in(
      std::string(SCHEDHOST_TEST_FIXTURE_DIR) + "/plugin_faults/plugin_faults_faulty.so",
      "faulty.so");
  plugins.copy_in(
      std::string(SCHEDHOST_TEST_FIXTURE_DIR) + "/plugin_validator/plugin_validator_thrower.so",
      "thrower.so");
  for (const char* scheduler : {"faulty-code", "faulty-score", "throwing"}) {
    json pod = test_pod(std::string(scheduler) + "-pod", "100m");
    pod["metadata"]["labels"] = {{"faulty", "yes"}};
    pod["spec"]["schedulerName"] = scheduler;
    client.create(ns_path("default") + "/pods", pod);
  }
  const int port = free_loopback_port();
  ServeProcess serve(*plane, config,
                     {"--bind-address", "127.0.0.1", "--secure-port", std::to_string(port),
                      "--plugin-dir", plugins.path()});
  kube::ApiClient admin = port_client(port, plane->admin_token());
  json families;
  kube::Response r;
  ASSERT_TRUE(eventually([&] {
    try {
      r = admin.request("GET", "/metrics");
    } catch (const std::exception&) {
      return false;  // not listening yet
    }
    if (r.code != 200) return false;
    families = parse_metrics(dir, r.body);
    return sample(families, "schedhost_plugin_faults_total",
                  {{"kind", "bad_code"}, {"plugin", "Faulty"}}) >= 1 &&
           sample(families, "schedhost_plugin_faults_total",
                  {{"kind", "bad_score"}, {"plugin", "Faulty"}}) >= 1 &&
           sample(families, "schedhost_plugin_faults_total",
                  {{"kind", "exception"}, {"plugin", "Thrower"}}) >= 1;
  })) << r.body
      << serve.log();
  // The pods failed with an Error (retried after a backoff), never bound; serve goes on.
  const auto live = live_decisions(client);
  EXPECT_EQ(live.at("default/faulty-code-pod").node, "");
  EXPECT_EQ(live.at("default/faulty-score-pod").node, "");
  EXPECT_EQ(live.at("default/throwing-pod").result, "SchedulerError");
  EXPECT_EQ(live.at("default/throwing-pod").message,
            "running PreFilter plugin \"Thrower\": boom in PreFilter");
  EXPECT_GE(sample(families, "scheduler_schedule_attempts_total",
                   {{"profile", "faulty-code"}, {"result", "error"}}),
            1);
  EXPECT_EQ(sample(families, "schedhost_plugin_faults_total",
                   {{"kind", "bad_node_list"}, {"plugin", "Faulty"}}),
            -1);  // none: no such series
  EXPECT_TRUE(serve.process().running());
}

// A Filter that sleeps 4 s with --plugin-hook-timeout 1s: logged once, counted once as a timeout
// fault, /livez failing while it sleeps and passing again after; the pod is then bound (the host
// cannot cut a plugin short, it waits for it).
TEST(ServeSecurePort, AHookPastItsTimeoutIsLoggedCountedAndFailsLivezWhileItRuns) {
  SCHEDHOST_START_CONTROL_PLANE(plane);
  kube::ApiClient client(plane->admin_config());
  ScratchDir dir;
  const std::string config = dir.write("slow.yaml",
                                       "apiVersion: kubescheduler.config.k8s.io/v1\n"
                                       "kind: KubeSchedulerConfiguration\n"
                                       "leaderElection: {leaderElect: false}\n"
                                       "profiles:\n"
                                       "- schedulerName: slow\n"
                                       "  plugins:\n"
                                       "    multiPoint: {enabled: [{name: Faulty}]}\n"
                                       "  pluginConfig:\n"
                                       "  - name: Faulty\n"
                                       "    args: {fault: slow-filter}\n");
  create_node(client, test_node("n1", "2"));  // one node: one Filter call
  ScratchDir plugins;
  plugins.copy_in(
      std::string(SCHEDHOST_TEST_FIXTURE_DIR) + "/plugin_faults/plugin_faults_faulty.so",
      "faulty.so");
  const int port = free_loopback_port();
  ServeProcess serve(*plane, config,
                     {"--bind-address", "127.0.0.1", "--secure-port", std::to_string(port),
                      "--plugin-dir", plugins.path(), "--plugin-hook-timeout", "1s"});
  kube::ApiClient admin = port_client(port, plane->admin_token());
  ASSERT_TRUE(eventually([&] {
    try {
      return admin.request("GET", "/livez").code == 200;
    } catch (const std::exception&) {
      return false;  // not listening yet
    }
  })) << serve.log();
  json pod = test_pod("sleepy", "100m");
  pod["metadata"]["labels"] = {{"faulty", "yes"}};
  pod["spec"]["schedulerName"] = "slow";
  client.create(ns_path("default") + "/pods", pod);

  kube::Response stuck;
  ASSERT_TRUE(eventually([&] {
    stuck = admin.request("GET", "/livez?verbose");
    return stuck.code == 500;
  })) << serve.log();
  EXPECT_EQ(stuck.body,
            "[+]ping ok\n[-]plugin-hooks failed: reason withheld\nlivez check failed\n");
  ASSERT_TRUE(eventually([&] { return live_decisions(client)["default/sleepy"].node == "n1"; }))
      << serve.log();
  EXPECT_TRUE(eventually([&] { return admin.request("GET", "/livez").code == 200; }));

  const std::string log = serve.log();
  const std::string line = "serve: plugin \"Faulty\"'s Filter has run for more than ";
  EXPECT_NE(log.find(line), std::string::npos) << log;
  EXPECT_EQ(log.find(line, log.find(line) + 1), std::string::npos) << log;  // once
  const json families = parse_metrics(dir, admin.request("GET", "/metrics").body);
  EXPECT_EQ(sample(families, "schedhost_plugin_faults_total",
                   {{"kind", "timeout"}, {"plugin", "Faulty"}}),
            1);
  EXPECT_TRUE(serve.process().running());
}

TEST(ServeSecurePort, AGivenCertificateIsTheOneServed) {
  SCHEDHOST_START_CONTROL_PLANE(plane);
  ScratchDir dir;
  const std::string cert = dir.file("tls.crt");
  const std::string key = dir.file("tls.key");
  const std::string make =
      "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes "
      "-subj /CN=schedhost -addext subjectAltName=IP:127.0.0.1 -days 1 "
      "-keyout " +
      key + " -out " + cert + " 2>/dev/null";
  ASSERT_EQ(std::system(make.c_str()), 0);
  const int port = free_loopback_port();
  ServeProcess serve(*plane, kSource + "/configs/default-profile.yaml",
                     {"--bind-address", "127.0.0.1", "--secure-port", std::to_string(port),
                      "--tls-cert-file", cert, "--tls-private-key-file", key});
  // Verified against that certificate as the only CA: it is the one the port presents.
  kube::ApiClient verified = port_client(port, "", read_file(cert));
  ASSERT_TRUE(eventually([&] {
    try {
      return verified.request("GET", "/healthz").code == 200;
    } catch (const kube::ApiError&) {
      return false;
    }
  })) << serve.log();
  EXPECT_NE(serve.log().find("secure port on https://127.0.0.1:" + std::to_string(port) +
                             " (given certificate)"),
            std::string::npos)
      << serve.log();
}

TEST(ServeSecurePort, APortInUseIsOneLineAndExitCode2) {
  SCHEDHOST_START_CONTROL_PLANE(plane);
  // Hold a port.
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(listen(fd, 1), 0);
  socklen_t len = sizeof addr;
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  const int port = ntohs(addr.sin_port);
  const ProcessResult r = run_schedhost(
      {"serve", "--config", kSource + "/configs/default-profile.yaml", "--kubeconfig",
       plane->kubeconfig(), "--bind-address", "127.0.0.1", "--secure-port", std::to_string(port)});
  close(fd);
  EXPECT_EQ(r.exit_code, 2);
  const std::string p = std::to_string(port);
  EXPECT_NE(r.err.find("error: --bind-address 127.0.0.1 --secure-port " + p +
                       ": cannot listen on 127.0.0.1:" + p +
                       ": the port is taken or the address is not this machine's; choose "
                       "another (--secure-port 0 turns the secure port off)\n"),
            std::string::npos)
      << r.err;
}

}  // namespace schedhost::testing::secure_port_test
