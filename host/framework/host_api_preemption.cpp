// The preemption part of the host API table: random numbers, parallel_for, dry runs, victims,
// PodDisruptionBudgets and the extenders' say on the candidates. Dry runs exist only inside a
// PostFilter call (it has a scope); anywhere else these functions answer "nothing", as the rest of
// the table does.
#include <memory>
#include <string_view>
#include <unordered_map>

#include "cluster/snapshot.hpp"
#include "framework/abi_string.hpp"
#include "framework/call.hpp"
#include "framework/dry_run.hpp"
#include "framework/host_api_preemption.hpp"
#include "framework/parallelizer.hpp"
#include "framework/post_filter_scope.hpp"

namespace schedhost::framework {
namespace {

const PostFilterScope* scope_of(const schedhost_call_t* call) {
  return call == nullptr ? nullptr : Call::from(call).post_filter_scope();
}

uint64_t random(schedhost_call_t* call) {
  const PostFilterScope* scope = scope_of(call);
  return scope == nullptr || !scope->random ? 0 : scope->random();
}

// Set on every thread while it runs a parallel_for body: the pool is not reentrant, so a body
// that calls parallel_for again runs the inner loop on its own thread.
thread_local bool in_parallel_for = false;

void parallel_for(schedhost_call_t* call, size_t count, void (*body)(void*, size_t), void* ctx) {
  if (body == nullptr || count == 0) return;
  Parallelizer* pool = call == nullptr ? nullptr : Call::from(call).parallelizer();
  if (pool == nullptr) {
    const PostFilterScope* scope = scope_of(call);
    pool = scope == nullptr ? nullptr : scope->parallelizer;
  }
  if (pool == nullptr || in_parallel_for || count == 1) {
    for (size_t i = 0; i < count; ++i)
      body(ctx, i);
    return;
  }
  // Each plugin's loop body is a call site of its own, with its own cost.
  pool->until(
      count,
      [&](std::size_t i) {
        const bool outer = in_parallel_for;
        in_parallel_for = true;
        body(ctx, i);
        in_parallel_for = outer;
      },
      reinterpret_cast<const void*>(body));
}

schedhost_dry_run_t* dry_run_begin(schedhost_call_t* call, schedhost_str_t node_name) {
  const PostFilterScope* scope = scope_of(call);
  const cluster::Snapshot* snapshot = call == nullptr ? nullptr : Call::from(call).snapshot();
  if (scope == nullptr || snapshot == nullptr) return nullptr;
  std::unique_ptr<DryRun> run = DryRun::begin(*scope, *snapshot, view(node_name));
  return run == nullptr ? nullptr : run.release()->handle();
}

const schedhost_node_t* dry_run_node(const schedhost_dry_run_t* run) {
  return run == nullptr ? nullptr
                        : reinterpret_cast<const schedhost_node_t*>(&DryRun::from(run)->node());
}

schedhost_code_t dry_run_remove_pod(schedhost_dry_run_t* run, schedhost_str_t uid) {
  return run == nullptr ? SCHEDHOST_ERROR : DryRun::from(run)->remove_pod(view(uid));
}

schedhost_code_t dry_run_add_pod(schedhost_dry_run_t* run, schedhost_str_t uid) {
  return run == nullptr ? SCHEDHOST_ERROR : DryRun::from(run)->add_pod(view(uid));
}

schedhost_code_t dry_run_filter(schedhost_dry_run_t* run) {
  return run == nullptr ? SCHEDHOST_ERROR : DryRun::from(run)->filter();
}

size_t dry_run_reason_count(const schedhost_dry_run_t* run) {
  return run == nullptr ? 0 : DryRun::from(run)->reasons().size();
}

schedhost_str_t dry_run_reason_at(const schedhost_dry_run_t* run, size_t index) {
  if (run == nullptr || index >= DryRun::from(run)->reasons().size()) return {nullptr, 0};
  const std::string& r = DryRun::from(run)->reasons()[index];
  return {r.data(), r.size()};
}

void dry_run_end(schedhost_dry_run_t* run) {
  delete DryRun::from(run);  // NOLINT(cppcoreguidelines-owning-memory): the handle owns it
}

void add_victim(schedhost_call_t* call, schedhost_str_t uid) {
  if (scope_of(call) != nullptr) Call::from(call).add_victim(view(uid));
}

size_t pdb_count(const schedhost_call_t* call) {
  const cluster::Snapshot* s = snapshot_of(call);
  return s == nullptr ? 0 : s->pod_disruption_budgets().size();
}

bool pdb_json(const schedhost_call_t* call, size_t index, schedhost_str_t pointer,
              schedhost_str_t* out) {
  const cluster::Snapshot* s = snapshot_of(call);
  if (s == nullptr || out == nullptr || index >= s->pod_disruption_budgets().size()) return false;
  std::optional<std::string_view> json = s->pod_disruption_budgets()[index]->json_at(view(pointer));
  if (!json) return false;
  *out = {json->data(), json->size()};
  return true;
}

schedhost_code_t process_preemption(schedhost_call_t* call,
                                    schedhost_preemption_candidate_t* candidates, size_t count,
                                    size_t* out_count, schedhost_str_t* out_error) {
  if (out_count != nullptr) *out_count = count;
  const PostFilterScope* scope = scope_of(call);
  if (scope == nullptr) {
    if (out_error != nullptr && call != nullptr) {
      *out_error = Call::from(call).hold("process_preemption is only served to PostFilter");
    }
    return SCHEDHOST_ERROR;
  }
  if (scope->extenders == nullptr || !*scope->extenders || candidates == nullptr || count == 0) {
    return SCHEDHOST_SUCCESS;
  }
  std::vector<PreemptionCandidate> offered(count);
  std::unordered_map<std::string_view, std::size_t> position;  // node name -> index offered
  for (size_t i = 0; i < count; ++i) {
    offered[i].node = view(candidates[i].node_name);
    for (size_t v = 0; candidates[i].victim_uids != nullptr && v < candidates[i].victim_count; ++v)
      offered[i].victims.emplace_back(view(candidates[i].victim_uids[v]));
    offered[i].pdb_violations = candidates[i].pdb_violations;
    position.emplace(view(candidates[i].node_name), i);
  }
  const std::vector<schedhost_preemption_candidate_t> original(candidates, candidates + count);
  std::optional<std::string> failure = (*scope->extenders)(*scope->pod, offered);
  Call& c = Call::from(call);
  if (failure) {
    if (out_error != nullptr) *out_error = c.hold(std::move(*failure));
    return SCHEDHOST_ERROR;
  }
  size_t kept = 0;
  for (PreemptionCandidate& k : offered) {
    auto it = position.find(k.node);
    if (it == position.end()) continue;  // the extenders name only offered nodes; be safe
    schedhost_preemption_candidate_t& out = candidates[kept++];
    out.node_name = original[it->second].node_name;
    out.victim_count = k.victims.size();
    out.victim_uids = c.hold(std::move(k.victims));
    out.pdb_violations = k.pdb_violations;
  }
  if (out_count != nullptr) *out_count = kept;
  return SCHEDHOST_SUCCESS;
}

}  // namespace

void fill_preemption_functions(schedhost_host_api_t& t) {
  t.random = &random;
  t.parallel_for = &parallel_for;
  t.dry_run_begin = &dry_run_begin;
  t.dry_run_node = &dry_run_node;
  t.dry_run_remove_pod = &dry_run_remove_pod;
  t.dry_run_add_pod = &dry_run_add_pod;
  t.dry_run_filter = &dry_run_filter;
  t.dry_run_reason_count = &dry_run_reason_count;
  t.dry_run_reason_at = &dry_run_reason_at;
  t.dry_run_end = &dry_run_end;
  t.add_victim = &add_victim;
  t.pdb_count = &pdb_count;
  t.pdb_json = &pdb_json;
  t.process_preemption = &process_preemption;
}

}  // namespace schedhost::framework
