// An empty Filter and an empty Score: through the plugin ABI (the .so's vtable, and the host's
// whole per-node call path in Framework) against the same class compiled into this binary.
// Issue 7's target: the ABI call at most 5 ns and at most 1.5x the compiled-in call.
#include <benchmark/benchmark.h>

#include <memory>
#include <vector>

#include "config/config_parser.hpp"
#include "config/profile_resolver.hpp"
#include "fixture/empty_plugin.hpp"
#include "framework/framework.hpp"
#include "framework/plugin_instance.hpp"
#include "framework/waiting_pods.hpp"
#include "micro/micro_fixture.hpp"

namespace schedhost_bench {
namespace {

using schedhost::framework::PluginInstance;

// A real call the optimizer cannot see through: GCC's noipa also stops it from propagating the
// (constant) return value into the caller, which noinline alone allows.
#if defined(__clang__)
#define SCHEDHOST_BENCH_OPAQUE [[gnu::noinline]]
#else
#define SCHEDHOST_BENCH_OPAQUE [[gnu::noipa]]
#endif

// The class called as code linked into the host would call it: a real call, not inlined away.
SCHEDHOST_BENCH_OPAQUE schedhost_code_t compiled_in_filter(const EmptyPlugin& p,
                                                           schedhost::Context& ctx,
                                                           const schedhost::CycleState& cs,
                                                           const schedhost::Pod& pod,
                                                           const schedhost::NodeInfo& node) {
  return static_cast<schedhost_code_t>(p.Filter(ctx, cs, pod, node).code());
}

SCHEDHOST_BENCH_OPAQUE schedhost_code_t
compiled_in_score(const EmptyPlugin& p, schedhost::Context& ctx, const schedhost::CycleState& cs,
                  const schedhost::Pod& pod, const schedhost::NodeInfo& node, std::int64_t& score) {
  return static_cast<schedhost_code_t>(p.Score(ctx, cs, pod, node, score).code());
}

// The SDK's vtable for the class, compiled into this binary (the wrapper's thunks, no .so).
const schedhost::loader::PluginDefinition& compiled_in_definition() {
  static const schedhost::loader::PluginDefinition d = [] {
    schedhost::loader::PluginDefinition def;
    def.name = "BenchEmptyCompiledIn";
    def.vtable = schedhost::detail::kVtable<EmptyPlugin>;
    def.points = schedhost::loader::extension_points_of(def.vtable);
    return def;
  }();
  return d;
}

const schedhost::loader::PluginDefinition& so_definition() {
  const auto* d = fixture().registry.find(kEmptyPluginName);
  if (d == nullptr) std::abort();
  return *d;
}

void BM_Filter_CompiledIn_DirectCall(benchmark::State& st) {
  MicroFixture& f = fixture();
  EmptyPlugin plugin;
  schedhost::Context ctx(f.api, f.call.handle());
  const schedhost::CycleState cs(f.api, f.state.handle());
  const schedhost::Pod pod(f.api, f.pod_handle());
  const schedhost::NodeInfo node(f.api, f.node_handle());
  for (auto _ : st)
    benchmark::DoNotOptimize(compiled_in_filter(plugin, ctx, cs, pod, node));
}
BENCHMARK(BM_Filter_CompiledIn_DirectCall);

// Calls vtable.filter through a pointer the compiler cannot see through.
void filter_through_vtable(benchmark::State& st, const schedhost::loader::PluginDefinition& def) {
  MicroFixture& f = fixture();
  auto instance = PluginInstance::create(def, "{}");
  auto* volatile fn = def.vtable.filter;
  void* self = instance->self();
  schedhost_call_t* call = f.call.handle();
  const schedhost_cycle_state_t* state = f.state.handle();
  for (auto _ : st)
    benchmark::DoNotOptimize(fn(self, call, state, f.pod_handle(), f.node_handle()));
}

void BM_Filter_CompiledIn_VtableThunk(benchmark::State& st) {
  filter_through_vtable(st, compiled_in_definition());
}
BENCHMARK(BM_Filter_CompiledIn_VtableThunk);

void BM_Filter_ABI_SoVtable(benchmark::State& st) {
  filter_through_vtable(st, so_definition());
}
BENCHMARK(BM_Filter_ABI_SoVtable);

// The framework with one profile running only the .so's Filter and Score (plus the queue sort
// and binder every profile needs): what the scheduler pays per node and plugin.
struct FrameworkFixture {
  schedhost::config::SchedulerConfiguration configuration;
  std::unique_ptr<schedhost::framework::Framework> framework;
  schedhost::framework::WaitingPods waiting;
};

FrameworkFixture& framework_fixture() {
  static FrameworkFixture* ff = [] {
    MicroFixture& f = fixture();
    auto* x = new FrameworkFixture;
    const char* profile =
        "apiVersion: kubescheduler.config.k8s.io/v1beta3\n"
        "kind: KubeSchedulerConfiguration\n"
        "profiles:\n"
        "- schedulerName: default-scheduler\n"
        "  plugins:\n"
        "    multiPoint:\n"
        "      disabled: [{name: '*'}]\n"
        "    queueSort: {enabled: [{name: PrioritySort}]}\n"
        "    bind: {enabled: [{name: DefaultBinder}]}\n"
        "    filter: {enabled: [{name: BenchEmpty}]}\n"
        "    score: {enabled: [{name: BenchEmpty}]}\n";
    x->configuration = schedhost::config::resolve_profiles(
                           schedhost::config::parse_configuration(profile, "bench-profile.yaml"),
                           f.registry.catalog())
                           .configuration;
    x->framework = std::make_unique<schedhost::framework::Framework>(
        x->configuration.profiles.front(), f.registry);
    x->framework->set_environment(&f.snapshot, &x->waiting);
    return x;
  }();
  return *ff;
}

void BM_Filter_ABI_FrameworkRunFilter(benchmark::State& st) {
  MicroFixture& f = fixture();
  const auto& fw = *framework_fixture().framework;
  const auto cycle = fw.new_cycle();
  for (auto _ : st)
    benchmark::DoNotOptimize(fw.run_filter(cycle, *f.pod, f.snapshot.at(0)));
}
BENCHMARK(BM_Filter_ABI_FrameworkRunFilter);

void BM_Score_CompiledIn_DirectCall(benchmark::State& st) {
  MicroFixture& f = fixture();
  EmptyPlugin plugin;
  schedhost::Context ctx(f.api, f.call.handle());
  const schedhost::CycleState cs(f.api, f.state.handle());
  const schedhost::Pod pod(f.api, f.pod_handle());
  const schedhost::NodeInfo node(f.api, f.node_handle());
  std::int64_t score = 0;
  for (auto _ : st) {
    benchmark::DoNotOptimize(compiled_in_score(plugin, ctx, cs, pod, node, score));
    benchmark::DoNotOptimize(score);
  }
}
BENCHMARK(BM_Score_CompiledIn_DirectCall);

void score_through_vtable(benchmark::State& st, const schedhost::loader::PluginDefinition& def) {
  MicroFixture& f = fixture();
  auto instance = PluginInstance::create(def, "{}");
  auto* volatile fn = def.vtable.score;
  void* self = instance->self();
  schedhost_call_t* call = f.call.handle();
  const schedhost_cycle_state_t* state = f.state.handle();
  std::int64_t score = 0;
  for (auto _ : st) {
    benchmark::DoNotOptimize(fn(self, call, state, f.pod_handle(), f.node_handle(), &score));
    benchmark::DoNotOptimize(score);
  }
}

void BM_Score_CompiledIn_VtableThunk(benchmark::State& st) {
  score_through_vtable(st, compiled_in_definition());
}
BENCHMARK(BM_Score_CompiledIn_VtableThunk);

void BM_Score_ABI_SoVtable(benchmark::State& st) {
  score_through_vtable(st, so_definition());
}
BENCHMARK(BM_Score_ABI_SoVtable);

// run_score over N copies of the node, with the framework's parallelizer: per node (items).
void BM_Score_ABI_FrameworkRunScore(benchmark::State& st) {
  MicroFixture& f = fixture();
  const auto& fw = *framework_fixture().framework;
  schedhost::framework::Parallelizer parallelizer(static_cast<int>(st.range(1)));
  const std::vector<const schedhost::cluster::NodeInfo*> nodes(
      static_cast<std::size_t>(st.range(0)), &f.snapshot.at(0));
  for (auto _ : st) {
    auto cycle = fw.new_cycle();
    benchmark::DoNotOptimize(fw.run_score(cycle, *f.pod, nodes, parallelizer));
  }
  st.SetItemsProcessed(st.iterations() * st.range(0));
}
BENCHMARK(BM_Score_ABI_FrameworkRunScore)
    ->ArgNames({"nodes", "threads"})
    ->Args({500, 1})
    ->Args({500, 16});

}  // namespace
}  // namespace schedhost_bench
