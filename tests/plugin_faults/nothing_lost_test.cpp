// The property behind "nothing is silently dropped": random clusters, scheduled by the default
// profile plus Chaos (a plugin that goes wrong at random at every point: rejections, errors,
// unknown codes, exceptions, bad scores, waits, bogus preemptions). Whatever happens, every
// pending pod appears exactly once with a result, preempted running pods at most once, the run
// never throws, and after every change the snapshot's accounting equals a recount of its pods.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>
#include <string>

#include "cluster/node_info.hpp"
#include "cluster/snapshot.hpp"
#include "scheduler/scheduler_harness.hpp"

namespace schedhost {
namespace {

struct RandomCluster {
  std::string yaml;
  std::set<std::string> pending;  // namespace/name
  std::set<std::string> running;
};

RandomCluster random_cluster(std::mt19937_64& rng) {
  auto pick = [&rng](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  RandomCluster c;
  const int nodes = pick(1, 6);
  for (int n = 0; n < nodes; ++n) {
    c.yaml += "apiVersion: v1\nkind: Node\nmetadata: {name: node-" + std::to_string(n) +
              ", labels: {kubernetes.io/hostname: node-" + std::to_string(n) +
              ", topology.kubernetes.io/zone: zone-" + std::to_string(n % 2) + "}}\nspec: {" +
              (pick(0, 4) == 0 ? "taints: [{key: dedicated, value: x, effect: NoSchedule}]" : "") +
              "}\nstatus: {allocatable: {cpu: '" + std::to_string(pick(1, 8)) +
              "', memory: " + std::to_string(pick(4, 16)) + "Gi, pods: '" +
              std::to_string(pick(3, 10)) + "'}}\n---\n";
  }
  auto pod = [&](const std::string& name, const std::string& node) {
    const char* apps[] = {"a", "b", "c"};
    std::string spec = "{priority: " + std::to_string(pick(-5, 100)) +
                       ", containers: [{name: c, image: x, resources: {requests: {cpu: " +
                       std::to_string(pick(0, 3000)) + "m}}" +
                       (pick(0, 5) == 0 ? ", ports: [{containerPort: 80, hostPort: 8080}]" : "") +
                       "}]";
    if (!node.empty()) spec += ", nodeName: " + node;
    if (pick(0, 5) == 0) spec += ", tolerations: [{key: dedicated, operator: Exists}]";
    if (pick(0, 6) == 0) spec += ", preemptionPolicy: Never";
    if (pick(0, 5) == 0) {
      spec +=
          ", affinity: {podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution: "
          "[{labelSelector: {matchLabels: {app: a}}, topologyKey: kubernetes.io/hostname}]}}";
    }
    spec += "}";
    return "apiVersion: v1\nkind: Pod\nmetadata: {name: " + name +
           ", namespace: default, labels: {app: " + apps[pick(0, 2)] + "}}\nspec: " + spec +
           "\n---\n";
  };
  const int running = pick(0, 8);
  for (int i = 0; i < running; ++i) {
    const std::string name = "run-" + std::to_string(i);
    c.yaml += pod(name, "node-" + std::to_string(pick(0, nodes - 1)));
    c.running.insert("default/" + name);
  }
  const int pending = pick(1, 15);
  for (int i = 0; i < pending; ++i) {
    const std::string name = "pend-" + std::to_string(i);
    c.yaml += pod(name, "");
    c.pending.insert("default/" + name);
  }
  if (pick(0, 2) == 0) {
    c.yaml +=
        "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: b}\nspec: "
        "{selector: {matchLabels: {app: b}}}\nstatus: {disruptionsAllowed: " +
        std::to_string(pick(0, 1)) + "}\n---\n";
  }
  return c;
}

std::string chaos_profile(std::uint64_t seed, int rate, int parallelism) {
  return "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
         "parallelism: " +
         std::to_string(parallelism) +
         "\nprofiles:\n- schedulerName: default-scheduler\n  plugins:\n    multiPoint:\n"
         "      enabled: [{name: Chaos}]\n  pluginConfig:\n  - name: Chaos\n    args: {seed: " +
         std::to_string(seed) + ", rate: " + std::to_string(rate) + "}\n";
}

// The snapshot's sums, recounted from its pods; and no pod on two nodes.
void expect_accounting_consistent(const cluster::Snapshot& snapshot, std::uint64_t seed) {
  std::set<std::string> uids;
  for (const cluster::NodeInfo& node : snapshot.node_infos()) {
    cluster::NodeInfo recount(node.node_ptr());
    for (const auto& pod : node.pods()) {
      recount.add_pod(pod);
      EXPECT_TRUE(uids.insert(pod->uid()).second) << "seed " << seed << ": " << pod->uid();
    }
    EXPECT_EQ(node.requested(), recount.requested()) << "seed " << seed << " " << node.name();
    EXPECT_EQ(node.nonzero_requested(), recount.nonzero_requested()) << "seed " << seed;
    EXPECT_EQ(node.used_ports(), recount.used_ports()) << "seed " << seed << " " << node.name();
  }
}

TEST(NothingLost, EveryPendingPodIsReportedOnceWhateverThePluginsDo) {
  testing::SchedulerHarness harness({"plugin_faults"});
  std::map<std::string, int> results_seen;
  for (std::uint64_t seed = 1; seed <= 120; ++seed) {
    std::mt19937_64 rng(seed);
    const RandomCluster c = random_cluster(rng);
    const int rate = static_cast<int>(seed % 4) * 15;  // 0, 15, 30, 45 percent of calls go wrong
    const int parallelism = seed % 2 == 0 ? 1 : 4;
    int changes = 0;
    scheduler::RunOptions options;
    options.seed = seed;
    options.on_snapshot_change = [&](const cluster::Snapshot& s) {
      ++changes;
      expect_accounting_consistent(s, seed);
    };
    scheduler::RunResult r;
    ASSERT_NO_THROW(r = harness.run(chaos_profile(seed, rate, parallelism), c.yaml, options))
        << "seed " << seed;
    std::map<std::string, int> entries;
    for (const scheduler::PodResult& p : r.pods) {
      ++entries[p.pod];
      ++results_seen[p.result];
      if (p.result == "Scheduled") {
        EXPECT_FALSE(p.node.empty()) << "seed " << seed;
      }
      EXPECT_TRUE(p.result == "Scheduled" || p.result == "Unschedulable" || p.result == "Error" ||
                  p.result == "Preempted")
          << "seed " << seed << ": " << p.result;
      if (c.running.count(p.pod) != 0) {
        EXPECT_EQ(p.result, "Preempted") << "seed " << seed;
      }
    }
    for (const std::string& pod : c.pending) {
      EXPECT_EQ(entries[pod], 1) << "seed " << seed << ": " << pod;
    }
    for (const auto& [pod, count] : entries) {
      EXPECT_EQ(count, 1) << "seed " << seed << ": " << pod;
      EXPECT_TRUE(c.pending.count(pod) != 0 || c.running.count(pod) != 0) << pod;
    }
  }
  // The generator and Chaos reach every kind of outcome.
  for (const char* result : {"Scheduled", "Unschedulable", "Error", "Preempted"}) {
    EXPECT_GT(results_seen[result], 0) << result;
  }
}

}  // namespace
}  // namespace schedhost
