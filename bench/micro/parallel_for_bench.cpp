// The parallel-for under Filter and Score: an empty body over a batch of nodes, with one thread
// and with the default parallelism (16), to see what the pool costs a small cluster.
#include <benchmark/benchmark.h>

#include <atomic>

#include "framework/parallelizer.hpp"

namespace schedhost_bench {
namespace {

void BM_ParallelFor_EmptyBody(benchmark::State& st) {
  schedhost::framework::Parallelizer parallelizer(static_cast<int>(st.range(1)));
  const auto n = static_cast<std::size_t>(st.range(0));
  std::atomic<std::size_t> sink{0};
  for (auto _ : st)
    parallelizer.until(n, [&sink](std::size_t i) { sink.fetch_add(i, std::memory_order_relaxed); });
  st.SetItemsProcessed(st.iterations() * st.range(0));
}
BENCHMARK(BM_ParallelFor_EmptyBody)
    ->ArgNames({"n", "threads"})
    ->Args({16, 1})
    ->Args({16, 16})
    ->Args({500, 1})
    ->Args({500, 16})
    ->UseRealTime();

}  // namespace
}  // namespace schedhost_bench
