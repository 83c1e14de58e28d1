// CycleState through the host API, as PreFilter writes it once per pod and Filter/Score read it
// once per node: raw table calls and the SDK's typed wrapper, with a state holding as many keys
// as the default profile's plugins write.
#include <benchmark/benchmark.h>

#include <memory>
#include <string>

#include <schedhost/cycle_state.hpp>

#include "framework/cycle_state.hpp"
#include "micro/micro_fixture.hpp"

namespace schedhost_bench {
namespace {

struct PreFilterData {
  std::int64_t cpu = 100;
  std::int64_t memory = 500;
};

// A state with n other plugins' keys, then the one under test (the last: the worst lookup).
void fill(schedhost::framework::CycleState& state, const schedhost_host_api_t* api, int n) {
  schedhost::CycleState cs(api, state.handle());
  for (int i = 0; i < n; ++i)
    cs.emplace<PreFilterData>("PreFilterPlugin" + std::to_string(i));
  cs.emplace<PreFilterData>("PreFilterNodeResourcesFit");
}

void BM_CycleState_Read_Wrapper(benchmark::State& st) {
  MicroFixture& f = fixture();
  schedhost::framework::CycleState state;
  fill(state, f.api, static_cast<int>(st.range(0)));
  const schedhost::CycleState cs(f.api, state.handle());
  for (auto _ : st)
    benchmark::DoNotOptimize(cs.read<PreFilterData>("PreFilterNodeResourcesFit"));
}
BENCHMARK(BM_CycleState_Read_Wrapper)->ArgName("other_keys")->Arg(0)->Arg(8);

void BM_CycleState_Read_Raw(benchmark::State& st) {
  MicroFixture& f = fixture();
  schedhost::framework::CycleState state;
  fill(state, f.api, static_cast<int>(st.range(0)));
  const auto* ops = &schedhost::detail::StateOps<PreFilterData>::ops;
  const std::string_view key = "PreFilterNodeResourcesFit";
  for (auto _ : st)
    benchmark::DoNotOptimize(f.api->state_read(state.handle(), {key.data(), key.size()}, ops));
}
BENCHMARK(BM_CycleState_Read_Raw)->ArgName("other_keys")->Arg(0)->Arg(8);

// A write replaces the previous value: allocation of the new value and destruction of the old
// one included, as a plugin pays them once per pod.
void BM_CycleState_Write_Wrapper(benchmark::State& st) {
  MicroFixture& f = fixture();
  schedhost::framework::CycleState state;
  fill(state, f.api, static_cast<int>(st.range(0)));
  schedhost::CycleState cs(f.api, state.handle());
  for (auto _ : st)
    cs.write("PreFilterNodeResourcesFit", std::make_unique<PreFilterData>());
}
BENCHMARK(BM_CycleState_Write_Wrapper)->ArgName("other_keys")->Arg(0)->Arg(8);

// A new cycle's state: the default profile's plugins each write their key once.
void BM_CycleState_FreshStateWith8Writes(benchmark::State& st) {
  MicroFixture& f = fixture();
  for (auto _ : st) {
    schedhost::framework::CycleState state;
    fill(state, f.api, 7);
    benchmark::DoNotOptimize(state.size());
  }
}
BENCHMARK(BM_CycleState_FreshStateWith8Writes);

}  // namespace
}  // namespace schedhost_bench
