// The preemption functions of the host API table called directly, as a careless plugin might:
// outside PostFilter they answer "nothing" (no dry run, random 0, parallel_for inline), NULL
// handles are harmless, and PodDisruptionBudgets read as JSON with the namespace filled in.
#include <gtest/gtest.h>
#include <schedhost/context.hpp>

#include <stdexcept>
#include <string>
#include <vector>

#include "cluster/cluster_file.hpp"
#include "framework/call.hpp"
#include "framework/plugin_host.hpp"
#include "support/fixtures.hpp"

namespace schedhost {
namespace {

using testing::ScratchDir;

cluster::Cluster load(const std::string& yaml) {
  ScratchDir dir;
  return cluster::load_cluster(dir.write("cluster.yaml", yaml));
}

TEST(HostApiPreemption, OutsidePostFilterThereIsNothingToDo) {
  const schedhost_host_api_t* api = framework::host_api();
  const cluster::Cluster c = load(
      "apiVersion: v1\nkind: Node\nmetadata: {name: node-a}\nstatus: {allocatable: {cpu: '1'}}\n");
  const cluster::Snapshot snapshot = c.snapshot();
  framework::Call call(&snapshot, "Plugin");

  EXPECT_EQ(api->random(call.handle()), 0u);
  EXPECT_EQ(api->random(nullptr), 0u);
  EXPECT_EQ(api->dry_run_begin(call.handle(), to_str("node-a")), nullptr);
  EXPECT_EQ(api->dry_run_begin(nullptr, to_str("node-a")), nullptr);
  EXPECT_EQ(api->dry_run_node(nullptr), nullptr);
  EXPECT_EQ(api->dry_run_filter(nullptr), SCHEDHOST_ERROR);
  EXPECT_EQ(api->dry_run_remove_pod(nullptr, to_str("x")), SCHEDHOST_ERROR);
  EXPECT_EQ(api->dry_run_add_pod(nullptr, to_str("x")), SCHEDHOST_ERROR);
  EXPECT_EQ(api->dry_run_reason_count(nullptr), 0u);
  EXPECT_EQ(api->dry_run_reason_at(nullptr, 0).data, nullptr);
  api->dry_run_end(nullptr);
  api->add_victim(call.handle(), to_str("x"));  // not PostFilter: ignored
  api->add_victim(nullptr, to_str("x"));
  EXPECT_TRUE(call.take_victims().empty());

  // parallel_for runs every index, here on the calling thread; NULL body or 0 does nothing.
  std::vector<int> seen;
  api->parallel_for(
      call.handle(), 3,
      [](void* ctx, size_t i) {
        static_cast<std::vector<int>*>(ctx)->push_back(static_cast<int>(i));
      },
      &seen);
  EXPECT_EQ(seen, (std::vector<int>{0, 1, 2}));
  api->parallel_for(call.handle(), 3, nullptr, nullptr);
  api->parallel_for(nullptr, 0, nullptr, nullptr);

  // The C++ wrapper: no dry run; an exception in a parallel_for body reaches the caller.
  Context ctx(api, call.handle());
  EXPECT_FALSE(ctx.dry_run("node-a").has_value());
  EXPECT_THROW(ctx.parallel_for(4,
                                [](std::size_t i) {
                                  if (i == 2) throw std::runtime_error("body 2");
                                }),
               std::runtime_error);
}

TEST(HostApiPreemption, PodDisruptionBudgetsReadAsJson) {
  const schedhost_host_api_t* api = framework::host_api();
  const cluster::Cluster c = load(R"(apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: db}
spec: {maxUnavailable: 1, selector: {matchLabels: {app: db}}}
status: {disruptionsAllowed: 1, disruptedPods: {db-0: '2026-11-30T00:00:00Z'}}
)");
  const cluster::Snapshot snapshot = c.snapshot();
  framework::Call call(&snapshot, "Plugin");
  Context ctx(api, call.handle());
  ASSERT_EQ(ctx.pod_disruption_budget_count(), 1u);
  EXPECT_EQ(ctx.pod_disruption_budget_json(0, "/metadata/namespace"), "\"default\"");
  EXPECT_EQ(ctx.pod_disruption_budget_json(0, "/spec/selector"), R"({"matchLabels":{"app":"db"}})");
  EXPECT_EQ(ctx.pod_disruption_budget_json(0, "/status/disruptionsAllowed"), "1");
  EXPECT_EQ(ctx.pod_disruption_budget_json(0, "/status/nothing"), std::nullopt);
  EXPECT_EQ(ctx.pod_disruption_budget_json(1, ""), std::nullopt);
  schedhost_str_t out{};
  EXPECT_FALSE(api->pdb_json(nullptr, 0, to_str(""), &out));
  EXPECT_FALSE(api->pdb_json(call.handle(), 0, to_str(""), nullptr));
  EXPECT_EQ(api->pdb_count(nullptr), 0u);

  // An older host's table ends before the preemption functions: the wrapper sees none of it.
  schedhost_host_api_t older = *api;
  older.struct_size = offsetof(schedhost_host_api_t, random);
  Context old_ctx(&older, call.handle());
  EXPECT_EQ(old_ctx.pod_disruption_budget_count(), 0u);
  EXPECT_EQ(old_ctx.random(), 0u);
  EXPECT_FALSE(old_ctx.dry_run("node-a").has_value());
  int runs = 0;
  old_ctx.parallel_for(2, [&](std::size_t) { ++runs; });
  EXPECT_EQ(runs, 2);
}

}  // namespace
}  // namespace schedhost
