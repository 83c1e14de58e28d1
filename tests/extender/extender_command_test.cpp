// `schedhost extender` as a user starts it: flags, the profile it serves, one line for each
// mistake, and SIGTERM ending it with exit code 0.
#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "live/control_plane.hpp"
#include "support/process.hpp"

namespace schedhost::extender_test {

using testing::ChildProcess;
using testing::ScratchDir;

const char* const kProfile = R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
- schedulerName: gpu-scheduler
  plugins:
    filter:
      disabled: [{name: '*'}]
      enabled: [{name: ExampleFilter}]
)";

bool wait_healthy(httplib::Client& client, ChildProcess& process) {
  for (int i = 0; i < 200 && process.running(); ++i) {
    if (auto r = client.Get("/healthz"); r && r->status == 200) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

TEST(ExtenderCommand, ServesTheChosenProfileUntilSigterm) {
  ScratchDir dir;
  const std::string config = dir.write("profile.yaml", kProfile);
  const int port = testing::free_loopback_port();
  ChildProcess process({testing::schedhost_binary(), "extender", "--config", config, "--plugin-dir",
                        testing::example_plugin_dir(), "--profile", "gpu-scheduler", "--listen",
                        "127.0.0.1:" + std::to_string(port)},
                       dir.file("extender.log"));
  httplib::Client client("127.0.0.1", port);
  ASSERT_TRUE(wait_healthy(client, process)) << process.log_tail();
  const std::string args = R"({"Pod": {"metadata": {"name": "p", "namespace": "default"}},
      "NodeNames": null, "Nodes": {"items": [{"metadata": {"name": "worker-1"}},
                                             {"metadata": {"name": "db-1"}}]}})";
  const auto r = client.Post("/filter", args, "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  // The passing node goes back exactly as it was sent.
  EXPECT_EQ(
      r->body,
      R"({"Nodes":{"items":[{"metadata": {"name": "worker-1"}}]},"NodeNames":null,"FailedNodes":{"db-1":"node name does not contain 'worker'"},"FailedAndUnresolvableNodes":{},"Error":""})");
  const int status = process.stop();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << process.log_tail();
  EXPECT_NE(process.log_tail().find("info: extender: serving profile \"gpu-scheduler\" on "
                                    "http://127.0.0.1:" +
                                    std::to_string(port) +
                                    " (POST /filter, POST /prioritize), no node cache (Nodes "
                                    "requests only)"),
            std::string::npos)
      << process.log_tail();
}

TEST(ExtenderCommand, MistakesAreOneLineAndExitCodeTwo) {
  ScratchDir dir;
  const std::string config = dir.write("profile.yaml", kProfile);
  const std::vector<std::string> base = {"extender", "--config", config, "--plugin-dir",
                                         testing::example_plugin_dir()};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = base;
    args.insert(args.end(), extra.begin(), extra.end());
    return testing::run_schedhost(args);
  };
  const auto unknown = with({"--profile", "nope"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_EQ(unknown.err, "error: " + config +
                             ": --profile nope: no profile has this schedulerName (the profiles: "
                             "default-scheduler, gpu-scheduler): pass one of them\n");
  const auto half_tls = with({"--tls-cert-file", dir.file("cert.pem")});
  EXPECT_EQ(half_tls.exit_code, 2);
  EXPECT_EQ(half_tls.err,
            "error: --tls-cert-file and --tls-private-key-file go together: give both for HTTPS, "
            "or neither for plain HTTP\n");
  const auto listen = with({"--listen", "localhost"});
  EXPECT_EQ(listen.exit_code, 2);
  EXPECT_EQ(listen.err,
            "error: --listen localhost: not an address and port: write HOST:PORT, e.g. "
            "127.0.0.1:8888 or :8888\n");
}

}  // namespace schedhost::extender_test
