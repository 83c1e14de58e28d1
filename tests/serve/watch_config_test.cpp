// serve --watch-config against the real API server (issue 17): the profile in a directory laid
// out as the kubelet lays out a ConfigMap mount (config.yaml -> ..data/config.yaml, ..data a
// symlink swapped atomically), the plugins in a directory of their own. A plugin copied in and a
// profile enabling it: the process drains, re-executes (same PID) and schedules by the new
// rules, every pod bound once. A truncated plugin, or a bad profile: refused with the file and
// the reason in the log, an Event and the metric, and the old set keeps scheduling.
//
// The nodes: worker-1 (2 cpu) and edge-1 (8 cpu). ExampleFilter (the example plugin) passes
// only nodes whose name contains "worker", so with it a 3-cpu pod fits nowhere, and without it
// only on edge-1: where such a pod ends up tells which rules scheduled it.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "common/child_process.hpp"
#include "live/watched_files.hpp"
#include "serve/serve_support.hpp"

namespace schedhost::testing::watch_config_test {

namespace fs = std::filesystem;

const std::string kExampleFilter = example_plugin_dir() + "/example_filter.so";

// Leader election on (the Event goes on the Lease), with short durations.
const std::string kOldProfile = kShortLeaseProfile;

const std::string kFilterProfile = kOldProfile + R"(  plugins:
    filter:
      enabled:
      - name: ExampleFilter
)";

// A directory as the kubelet keeps a ConfigMap volume: each version in a timestamped directory,
// `..data` a symlink to the current one, config.yaml a symlink through `..data`. update() swaps
// versions as the kubelet does: the new directory, a new symlink `..data_tmp`, renamed over
// `..data` (atomic), the old directory removed.
class ConfigMapMount {
 public:
  ConfigMapMount(const std::string& dir, const std::string& content) : dir_(dir) {
    fs::create_directories(dir_);
    update(content);
    fs::create_symlink("..data/config.yaml", dir_ / "config.yaml");
  }
  std::string config() const { return (dir_ / "config.yaml").string(); }

  void update(const std::string& content) {
    const std::string version = "..2026_12_02_10_00_00." + std::to_string(++versions_);
    fs::create_directories(dir_ / version);
    std::ofstream(dir_ / version / "config.yaml") << content;
    const fs::path old = fs::exists(dir_ / "..data") ? fs::read_symlink(dir_ / "..data") : "";
    fs::create_symlink(version, dir_ / "..data_tmp");
    fs::rename(dir_ / "..data_tmp", dir_ / "..data");
    if (!old.empty()) fs::remove_all(dir_ / old);
  }

 private:
  fs::path dir_;
  int versions_ = 0;
};

// One `serve --watch-config` with its plugin directory and ConfigMap-like profile, on a secure
// port of its own (to read /metrics), against two nodes.
struct Watched {
  explicit Watched(const ControlPlane& plane) : client(plane.admin_config()) {
    create_node(client, test_node("worker-1", "2"));
    create_node(client, test_node("edge-1", "8"));
    fs::create_directories(plugins());
  }
  std::string plugins() const { return dir.file("plugins"); }
  void start(const ControlPlane& plane) {
    serve = std::make_unique<ServeProcess>(
        plane, mount.config(),
        std::vector<std::string>{"--watch-config", "--plugin-dir", plugins(), "--bind-address",
                                 "127.0.0.1", "--secure-port", std::to_string(port)});
  }
  int occurrences(const std::string& text) const {
    const std::string log = serve->log();
    int n = 0;
    for (auto at = log.find(text); at != std::string::npos; at = log.find(text, at + 1))
      ++n;
    return n;
  }
  // /metrics, read as the admin (the secure port asks the API server who may).
  std::string metrics(const ControlPlane& plane) const {
    kube::ClientConfig c;
    c.server = "https://127.0.0.1:" + std::to_string(port);
    c.insecure_skip_tls_verify = true;
    c.token = plane.admin_token();
    return kube::ApiClient(c).request("GET", "/metrics").body;
  }

  kube::ApiClient client;
  ScratchDir dir;
  ConfigMapMount mount{dir.file("config"), kOldProfile};
  int port = free_loopback_port();
  std::unique_ptr<ServeProcess> serve;
};

std::string create_pod(kube::ApiClient& client, const std::string& name, const std::string& cpu) {
  client.create(ns_path("default") + "/pods", test_pod(name, cpu));
  return name;
}

std::string node_of(kube::ApiClient& client, const std::string& name) {
  return live_decisions(client)["default/" + name].node;
}

// The sockets process pid has open, as "socket:[inode]". An inode names one socket for its whole
// life, so one seen both before and after a re-execution was inherited across it (a count of
// descriptors would not tell: the new process's connection pool may hold more or fewer).
std::set<std::string> open_sockets(pid_t pid) {
  std::set<std::string> sockets;
  std::error_code ec;
  for (const fs::directory_entry& fd :
       fs::directory_iterator("/proc/" + std::to_string(pid) + "/fd", ec)) {
    std::error_code link_ec;
    const std::string target = fs::read_symlink(fd.path(), link_ec).string();
    if (!link_ec && target.rfind("socket:", 0) == 0) sockets.insert(target);
  }
  return sockets;
}

// The events.k8s.io events about the Lease with this reason.
std::vector<json> lease_events(kube::ApiClient& client, const std::string& reason) {
  return events_about(client, "kube-system", "kube-scheduler", reason);
}

// The old rules still schedule: a 3-cpu pod is bound to edge-1 (ExampleFilter would refuse it).
void expect_old_rules(Watched& w, const std::string& name) {
  create_pod(w.client, name, "3");
  EXPECT_TRUE(eventually([&] { return node_of(w.client, name) == "edge-1"; })) << w.serve->log();
}

// What the poll compares, without a server: a `..data` swap and a plugin rewritten in place are
// changes, an untouched tree is not, and the change is described by path.
TEST(WatchConfig, TheSnapshotSeesASymlinkSwapAndAPluginRewrittenInPlace) {
  ScratchDir dir;
  ConfigMapMount mount(dir.file("config"), kOldProfile);
  fs::create_directories(dir.file("plugins"));
  const std::string plugin = dir.write("plugins/a.so", "first");
  dir.write("plugins/notes.txt", "not a plugin");
  const live::WatchedPaths paths{{mount.config()}, {dir.file("plugins")}};
  const live::WatchedFiles loaded = live::snapshot(paths);
  ASSERT_EQ(loaded.size(), 2u);
  EXPECT_EQ(live::snapshot(paths), loaded);

  mount.update(kOldProfile);  // the same bytes, a new version directory
  const live::WatchedFiles swapped = live::snapshot(paths);
  EXPECT_NE(swapped, loaded);
  EXPECT_EQ(live::describe_changes(loaded, swapped), "changed: " + mount.config());
  EXPECT_TRUE(live::changed_plugin_files(loaded, swapped).empty());

  std::ofstream(plugin, std::ios::binary | std::ios::trunc) << "second, longer";
  dir.write("plugins/b.so", "new");
  const live::WatchedFiles rewritten = live::snapshot(paths);
  EXPECT_EQ(live::describe_changes(swapped, rewritten),
            "changed: " + plugin + "; added: " + dir.file("plugins/b.so"));
  EXPECT_EQ(live::changed_plugin_files(swapped, rewritten),
            (std::vector<std::string>{plugin, dir.file("plugins/b.so")}));
  fs::remove(plugin);
  EXPECT_EQ(live::describe_changes(rewritten, live::snapshot(paths)), "removed: " + plugin);
}

// SIGTERM amid a check: the check's child is killed at once, not waited for (its timeout is a
// minute, more than a Pod's grace).
TEST(WatchConfig, ACheckInProgressIsCutShortWhenServeStops) {
  std::atomic<bool> cancel{false};
  ChildSpec spec;
  spec.program = "/bin/sleep";
  spec.args = {"30"};
  spec.timeout = std::chrono::seconds(60);
  spec.cancel = &cancel;
  std::thread stopper([&cancel] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    cancel.store(true);
  });
  const auto start = std::chrono::steady_clock::now();
  const ChildEnd end = run_child_process(spec, [](std::string_view) {});
  stopper.join();
  EXPECT_EQ(end.kind, ChildEnd::Kind::TimedOut);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

TEST(WatchConfig, APluginCopiedInAndAProfileEnablingItAreServedAfterAReExecutionNoPodLost) {
  SCHEDHOST_START_CONTROL_PLANE(plane);
  Watched w(*plane);
  w.start(*plane);
  const pid_t pid = w.serve->process().pid();
  ASSERT_TRUE(eventually([&] { return w.occurrences("became leader") == 1; })) << w.serve->log();
  std::set<std::string> pods;
  for (int i = 0; i < 3; ++i)
    pods.insert(create_pod(w.client, "before-" + std::to_string(i), "10m"));
  expect_old_rules(w, "before-big");
  ASSERT_TRUE(eventually([&] { return all_bound(w.client, pods); })) << w.serve->log();
  const std::set<std::string> sockets_before = open_sockets(pid);
  ASSERT_FALSE(sockets_before.empty());

  // The plugin copied in, the profile enabling it swapped in; pods keep coming meanwhile, two a
  // second (10m each: worker-1 takes all that the new process schedules, however long it takes).
  fs::copy_file(kExampleFilter, w.plugins() + "/example_filter.so");
  w.mount.update(kFilterProfile);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(90);
  for (int i = 0; w.occurrences("became leader") < 2; ++i) {
    ASSERT_LT(std::chrono::steady_clock::now(), deadline) << w.serve->log();
    pods.insert(create_pod(w.client, "during-" + std::to_string(i), "10m"));
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  const std::string log = w.serve->log();
  EXPECT_NE(log.find("serve: configuration changed (changed: " + w.mount.config() +
                     "; added: " + w.plugins() + "/example_filter.so) and passed validate"),
            std::string::npos)
      << log;
  EXPECT_NE(log.find("serve: re-executed on a changed configuration (reload 1)"), std::string::npos)
      << log;
  EXPECT_EQ(w.serve->process().pid(), pid);
  EXPECT_TRUE(w.serve->process().running());

  // The new rules: small pods go to worker-1 only, a 3-cpu pod fits nowhere.
  std::set<std::string> after;
  for (int i = 0; i < 3; ++i)
    after.insert(create_pod(w.client, "after-" + std::to_string(i), "10m"));
  create_pod(w.client, "after-big", "3");
  ASSERT_TRUE(eventually([&] { return all_bound(w.client, after); })) << w.serve->log();
  for (const std::string& name : after)
    EXPECT_EQ(node_of(w.client, name), "worker-1") << name;
  // Nothing of the old process leaked into the new one (its connections, its secure port).
  std::vector<std::string> inherited;
  std::ranges::set_intersection(sockets_before, open_sockets(pid), std::back_inserter(inherited));
  EXPECT_TRUE(inherited.empty()) << inherited.size() << " sockets kept, first "
                                 << inherited.front();
  EXPECT_TRUE(eventually([&] {
    return first_failure_message(w.client, "default", "after-big")
               .find("node name does not contain 'worker'") != std::string::npos;
  })) << w.serve->log();

  // No pod lost, none bound twice: each has one Scheduled event, no binding was refused.
  pods.insert(after.begin(), after.end());
  pods.insert("before-big");
  ASSERT_TRUE(eventually([&] { return all_bound(w.client, pods); })) << w.serve->log();
  for (const std::string& name : pods) {
    EXPECT_TRUE(eventually([&] {
      return events_about(w.client, "default", name, "Scheduled").size() == 1u;
    })) << name;
  }
  EXPECT_EQ(w.occurrences("already"), 0) << w.serve->log();
  // The new process listens on the same secure port, and counted the reload.
  EXPECT_NE(w.metrics(*plane).find("schedhost_config_reloads_total{result=\"success\"} 1"),
            std::string::npos);
}

TEST(WatchConfig, ATruncatedPluginIsRefusedAndTheOldSetKeepsScheduling) {
  SCHEDHOST_START_CONTROL_PLANE(plane);
  Watched w(*plane);
  w.start(*plane);
  ASSERT_TRUE(eventually([&] { return w.occurrences("became leader") == 1; })) << w.serve->log();
  expect_old_rules(w, "before-big");

  // Half of a real plugin, and a profile enabling what it would define.
  const std::string whole = read_file(kExampleFilter);
  const std::string half = w.plugins() + "/example_filter.so";
  std::ofstream(half, std::ios::binary) << whole.substr(0, whole.size() / 2);
  w.mount.update(kFilterProfile);

  const std::string refused =
      "serve: configuration change refused, still serving the previous "
      "plugins and profiles: " +
      half + ": ";
  ASSERT_TRUE(eventually([&] { return w.occurrences(refused) == 1; }, std::chrono::seconds(90)))
      << w.serve->log();
  EXPECT_TRUE(eventually([&] { return !lease_events(w.client, "ConfigReloadRejected").empty(); }));
  const std::vector<json> events = lease_events(w.client, "ConfigReloadRejected");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0]["type"], "Warning");
  EXPECT_NE(events[0]["note"].get<std::string>().find(half), std::string::npos) << events[0];
  EXPECT_NE(w.metrics(*plane).find("schedhost_config_reloads_total{result=\"failure\"} 1"),
            std::string::npos);

  // Still the old process with the old rules; the refused set is not checked again.
  expect_old_rules(w, "after-big");
  EXPECT_EQ(w.occurrences(refused), 1) << w.serve->log();
  EXPECT_EQ(w.occurrences("re-executing"), 0) << w.serve->log();
}

TEST(WatchConfig, ABadProfileIsRefusedOnThePodsEventsAndAFurtherChangeIsCheckedAgain) {
  SCHEDHOST_START_CONTROL_PLANE(plane);
  Watched w(*plane);
  // The scheduler's own Pod, as the downward API names it (bound already, so nobody schedules
  // it).
  json self = test_pod("schedhost-0", "100m");
  self["spec"]["nodeName"] = "edge-1";
  w.client.create(ns_path("default") + "/pods", self);
  ::setenv("POD_NAME", "schedhost-0", 1);
  ::setenv("POD_NAMESPACE", "default", 1);
  w.start(*plane);
  ::unsetenv("POD_NAME");
  ::unsetenv("POD_NAMESPACE");
  ASSERT_TRUE(eventually([&] { return w.occurrences("became leader") == 1; })) << w.serve->log();

  // A profile naming a plugin nobody installed.
  w.mount.update(kOldProfile + "  plugins:\n    filter:\n      enabled:\n      - name: NoSuch\n");
  const std::string refused =
      "serve: configuration change refused, still serving the previous "
      "plugins and profiles: " +
      w.mount.config();
  ASSERT_TRUE(eventually([&] { return w.occurrences(refused) == 1; }, std::chrono::seconds(90)))
      << w.serve->log();
  EXPECT_NE(w.serve->log().find("\"NoSuch\" is not installed"), std::string::npos)
      << w.serve->log();
  EXPECT_TRUE(eventually([&] {
    return events_about(w.client, "default", "schedhost-0", "ConfigReloadRejected").size() == 1u;
  }));
  expect_old_rules(w, "between-big");

  // Invalid YAML: a further change, checked and refused too.
  w.mount.update("profiles: [\n");
  ASSERT_TRUE(eventually([&] { return w.occurrences(refused) == 2; }, std::chrono::seconds(90)))
      << w.serve->log();
  EXPECT_NE(w.metrics(*plane).find("schedhost_config_reloads_total{result=\"failure\"} 2"),
            std::string::npos);
  expect_old_rules(w, "after-big");
  EXPECT_EQ(w.occurrences("re-executing"), 0) << w.serve->log();
}

}  // namespace schedhost::testing::watch_config_test
