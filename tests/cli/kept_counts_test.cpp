// PodTopologySpread and InterPodAffinity keep their PreFilter counts from one pod to the next and
// catch up from the snapshot's journal (ABI 1.2). A run must decide exactly what the same run
// decides when the plugins recount everything for each pod, which they do on a host without the
// journal: SCHEDHOST_EMULATE_ABI_MINOR=1 hands them the 1.1 table.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>

#include "support/fixtures.hpp"
#include "support/process.hpp"

namespace schedhost {
namespace {

using nlohmann::json;

const std::string kSourceDir = SCHEDHOST_SOURCE_DIR;

json node(int i) {
  const std::string name = "node-" + std::to_string(i);
  const json amounts = {{"cpu", "6"}, {"memory", "32Gi"}, {"pods", "110"}};
  return {{"apiVersion", "v1"},
          {"kind", "Node"},
          {"metadata",
           {{"name", name},
            {"labels",
             {{"kubernetes.io/hostname", name},
              {"topology.kubernetes.io/zone", "zone-" + std::to_string(i % 3)}}}}},
          {"status", {{"allocatable", amounts}, {"capacity", amounts}}}};
}

json selector(const std::string& app) {
  return {{"matchLabels", {{"app", app}}}};
}

// One pod of `app` asking for `cpu`; bound to `node_name` when it is not empty. A "lookalike" is
// labelled app=cache and only has preferences: spread cache pods over zones, keep away from web
// pods.
json pod(const std::string& name, const std::string& app, int priority, const char* cpu,
         const std::string& node_name = "") {
  json spec = {{"priority", priority},
               {"containers", json::array({{{"name", "main"},
                                            {"image", "example/" + app},
                                            {"resources", {{"requests", {{"cpu", cpu}}}}}}})}};
  if (!node_name.empty()) spec["nodeName"] = node_name;
  if (app == "web" || app == "urgent") {
    spec["topologySpreadConstraints"] =
        json::array({{{"maxSkew", 1},
                      {"topologyKey", "topology.kubernetes.io/zone"},
                      {"whenUnsatisfiable", "DoNotSchedule"},
                      {"labelSelector", selector(app)}},
                     {{"maxSkew", 2},
                      {"topologyKey", "kubernetes.io/hostname"},
                      {"whenUnsatisfiable", "DoNotSchedule"},
                      {"labelSelector", selector(app)}}});
  } else if (app == "cache") {
    spec["affinity"] = {{"podAntiAffinity",
                         {{"requiredDuringSchedulingIgnoredDuringExecution",
                           json::array({{{"labelSelector", selector("cache")},
                                         {"topologyKey", "kubernetes.io/hostname"}}})}}}};
  } else if (app == "lookalike") {
    spec["topologySpreadConstraints"] =
        json::array({{{"maxSkew", 1},
                      {"topologyKey", "topology.kubernetes.io/zone"},
                      {"whenUnsatisfiable", "ScheduleAnyway"},
                      {"labelSelector", selector("cache")}}});
    spec["affinity"] = {{"podAntiAffinity",
                         {{"preferredDuringSchedulingIgnoredDuringExecution",
                           json::array({{{"weight", 10},
                                         {"podAffinityTerm",
                                          {{"labelSelector", selector("web")},
                                           {"topologyKey", "kubernetes.io/hostname"}}}}})}}}};
  } else if (app == "client") {
    spec["affinity"] = {{"podAffinity",
                         {{"requiredDuringSchedulingIgnoredDuringExecution",
                           json::array({{{"labelSelector", selector("web")},
                                         {"topologyKey", "kubernetes.io/hostname"}}})}}}};
  }
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata",
           {{"name", name},
            {"namespace", "shop"},
            {"uid", name + "-uid"},
            {"labels", {{"app", app == "lookalike" ? "cache" : app}}}}},
          {"spec", spec}};
}

// 24 nodes of 6 cpu in 3 zones, each running one priority-0 pod of 4 cpu (web, cache or
// lookalike: what they counted and scored must go when they do); 150 pending pods of priority
// 100: spread, anti-affinity, affinity and lookalike pods of 1 cpu, and evictors of 3 cpu that
// preempt running pods (removals in the journal) from the start and leave room on those nodes,
// so later pods are scored there. Once the cpu is gone, the rest fail.
std::string cluster() {
  std::string out;
  auto add = [&out](const json& object) { out += object.dump() + "\n---\n"; };
  for (int i = 0; i < 24; ++i)
    add(node(i));
  for (int i = 0; i < 24; ++i) {
    const char* running[] = {"web", "cache", "lookalike"};
    add(pod("running-" + std::to_string(i), running[i % 3], 0, "4", "node-" + std::to_string(i)));
  }
  // An evictor (3 cpu) fits nowhere without preempting, even while the others still fit.
  const char* apps[] = {"web", "cache", "evictor", "web", "client", "lookalike", "cache"};
  for (int i = 0; i < 150; ++i) {
    const char* app = apps[i % 7];
    add(pod("pending-" + std::to_string(i), app, 100, app == std::string("evictor") ? "3" : "1"));
  }
  return out;
}

// How many pods have this result, and how many mention `part` (message or explained verdicts).
std::size_t with_result(const nlohmann::json& run, const std::string& result) {
  std::size_t n = 0;
  for (const auto& p : run["pods"])
    n += p["result"] == result ? 1 : 0;
  return n;
}
std::size_t mentioning(const nlohmann::json& run, const std::string& part) {
  std::size_t n = 0;
  for (const auto& p : run["pods"])
    n += p.dump().find(part) != std::string::npos ? 1 : 0;
  return n;
}

TEST(KeptCounts, DecideExactlyAsRecountingEveryPodDoes) {
  testing::ScratchDir dir;
  const std::string file = dir.write("cluster.yaml", cluster());
  const std::vector<std::string> args = {
      "run",  "--config", kSourceDir + "/configs/default-profile.yaml", "--cluster", file, "-o",
      "json", "--explain"};
  const auto kept = testing::run_schedhost(args);
  const auto recounted = testing::run_schedhost(args, {"SCHEDHOST_EMULATE_ABI_MINOR=1"});
  ASSERT_EQ(kept.exit_code, 0) << kept.err;
  ASSERT_EQ(recounted.exit_code, 0) << recounted.err;
  EXPECT_EQ(kept.err, "");
  EXPECT_EQ(json::parse(kept.out), json::parse(recounted.out));

  // The run exercises what the kept counts must follow: placements, refusals by each rule, and
  // evictions (removals from the snapshot).
  const json run = json::parse(kept.out);
  EXPECT_EQ(run["pods"].size(), 174u);  // 150 pending, 24 running that may be preempted
  EXPECT_GT(with_result(run, "Scheduled"), 60u);
  EXPECT_GT(with_result(run, "Preempted"), 0u);
  EXPECT_GT(with_result(run, "Unschedulable"), 0u);
  EXPECT_GT(mentioning(run, "node(s) didn't match pod topology spread constraints"), 0u);
  EXPECT_GT(mentioning(run, "node(s) didn't match pod anti-affinity rules"), 0u);
  EXPECT_GT(mentioning(run, "node(s) didn't satisfy existing pods anti-affinity rules"), 0u);
  EXPECT_GT(mentioning(run, "node(s) didn't match pod affinity rules"), 0u);
}

TEST(KeptCounts, AnEmulatedMinorNewerThanTheHostIsRefused) {
  const auto r = testing::run_schedhost({"version"}, {"SCHEDHOST_EMULATE_ABI_MINOR=10"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err,
            "error: SCHEDHOST_EMULATE_ABI_MINOR=10: not a minor of this host's ABI: use 0 to 9, or "
            "unset it\n");
}

}  // namespace
}  // namespace schedhost
