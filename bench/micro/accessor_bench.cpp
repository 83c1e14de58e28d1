// The host accessors a plugin calls per node: through the SDK's C++ wrapper and through the raw
// host API table. Label lookup, requests, allocatable, and a JSON pointer (first call on a fresh
// object, which serializes it, and the cached call after).
#include <benchmark/benchmark.h>

#include <string_view>
#include <vector>

#include <schedhost/objects.hpp>

#include "micro/micro_fixture.hpp"

namespace schedhost_bench {
namespace {

constexpr std::string_view kZone = "topology.kubernetes.io/zone";

schedhost_str_t str(std::string_view s) {
  return {s.data(), s.size()};
}

void BM_NodeLabel_Wrapper(benchmark::State& st) {
  MicroFixture& f = fixture();
  const schedhost::NodeInfo node(f.api, f.node_handle());
  for (auto _ : st)
    benchmark::DoNotOptimize(node.label(kZone));
}
BENCHMARK(BM_NodeLabel_Wrapper);

void BM_NodeLabel_Raw(benchmark::State& st) {
  MicroFixture& f = fixture();
  schedhost_str_t out{};
  for (auto _ : st) {
    benchmark::DoNotOptimize(
        f.api->node_map_get(f.node_handle(), SCHEDHOST_MAP_LABELS, str(kZone), &out));
    benchmark::DoNotOptimize(out);
  }
}
BENCHMARK(BM_NodeLabel_Raw);

void BM_PodLabel_Wrapper(benchmark::State& st) {
  MicroFixture& f = fixture();
  const schedhost::Pod pod(f.api, f.pod_handle());
  for (auto _ : st)
    benchmark::DoNotOptimize(pod.label("color"));
}
BENCHMARK(BM_PodLabel_Wrapper);

void BM_PodRequestCpu_Wrapper(benchmark::State& st) {
  MicroFixture& f = fixture();
  const schedhost::Pod pod(f.api, f.pod_handle());
  for (auto _ : st)
    benchmark::DoNotOptimize(pod.request("cpu"));
}
BENCHMARK(BM_PodRequestCpu_Wrapper);

void BM_PodRequestCpu_Raw(benchmark::State& st) {
  MicroFixture& f = fixture();
  std::int64_t v = 0;
  for (auto _ : st) {
    benchmark::DoNotOptimize(
        f.api->pod_resource(f.pod_handle(), SCHEDHOST_POD_REQUESTS, str("cpu"), &v));
    benchmark::DoNotOptimize(v);
  }
}
BENCHMARK(BM_PodRequestCpu_Raw);

// Every request (cpu, memory): the loop NodeResourcesFit runs per node.
void BM_PodRequestsAll_Wrapper(benchmark::State& st) {
  MicroFixture& f = fixture();
  const schedhost::Pod pod(f.api, f.pod_handle());
  for (auto _ : st) {
    std::int64_t sum = 0;
    for (const schedhost::ResourceAmount& r : pod.requests())
      sum += r.value;
    benchmark::DoNotOptimize(sum);
  }
}
BENCHMARK(BM_PodRequestsAll_Wrapper);

void BM_NodeAllocatableCpu_Wrapper(benchmark::State& st) {
  MicroFixture& f = fixture();
  const schedhost::NodeInfo node(f.api, f.node_handle());
  for (auto _ : st)
    benchmark::DoNotOptimize(node.allocatable("cpu"));
}
BENCHMARK(BM_NodeAllocatableCpu_Wrapper);

void BM_NodeAllocatableCpu_Raw(benchmark::State& st) {
  MicroFixture& f = fixture();
  std::int64_t v = 0;
  for (auto _ : st) {
    benchmark::DoNotOptimize(
        f.api->node_resource(f.node_handle(), SCHEDHOST_NODE_ALLOCATABLE, str("cpu"), &v));
    benchmark::DoNotOptimize(v);
  }
}
BENCHMARK(BM_NodeAllocatableCpu_Raw);

void BM_NodeRequestedCpu_Raw(benchmark::State& st) {
  MicroFixture& f = fixture();
  std::int64_t v = 0;
  for (auto _ : st) {
    benchmark::DoNotOptimize(
        f.api->node_resource(f.node_handle(), SCHEDHOST_NODE_REQUESTED, str("cpu"), &v));
    benchmark::DoNotOptimize(v);
  }
}
BENCHMARK(BM_NodeRequestedCpu_Raw);

// First call on an object: each iteration reads a pod nothing has read yet. The pods are made
// outside the timed region; the count is fixed so there is always a fresh one.
constexpr std::size_t kFreshPods = 20000;

void BM_PodJsonPointer_FirstCall_Raw(benchmark::State& st) {
  MicroFixture& f = fixture();
  std::vector<std::shared_ptr<const schedhost::cluster::Pod>> pods;
  pods.reserve(kFreshPods);
  for (std::size_t i = 0; i < kFreshPods; ++i)
    pods.push_back(make_bench_pod(i + 1));
  std::size_t next = 0;
  schedhost_str_t out{};
  for (auto _ : st) {
    const auto* h = reinterpret_cast<const schedhost_pod_t*>(pods[next++].get());
    benchmark::DoNotOptimize(f.api->pod_json(h, str("/spec/affinity"), &out));
    benchmark::DoNotOptimize(out);
  }
}
BENCHMARK(BM_PodJsonPointer_FirstCall_Raw)->Iterations(kFreshPods);

void BM_PodJsonPointer_Cached_Raw(benchmark::State& st) {
  MicroFixture& f = fixture();
  schedhost_str_t out{};
  f.api->pod_json(f.pod_handle(), str("/spec/affinity"), &out);  // warm the cache
  for (auto _ : st) {
    benchmark::DoNotOptimize(f.api->pod_json(f.pod_handle(), str("/spec/affinity"), &out));
    benchmark::DoNotOptimize(out);
  }
}
BENCHMARK(BM_PodJsonPointer_Cached_Raw);

void BM_PodJsonPointer_Cached_Wrapper(benchmark::State& st) {
  MicroFixture& f = fixture();
  const schedhost::Pod pod(f.api, f.pod_handle());
  pod.json("/spec/affinity");
  for (auto _ : st)
    benchmark::DoNotOptimize(pod.json("/spec/affinity"));
}
BENCHMARK(BM_PodJsonPointer_Cached_Wrapper);

void BM_NodeJsonPointer_Cached_Raw(benchmark::State& st) {
  MicroFixture& f = fixture();
  schedhost_str_t out{};
  f.api->node_json(f.node_handle(), str("/metadata/labels"), &out);
  for (auto _ : st) {
    benchmark::DoNotOptimize(f.api->node_json(f.node_handle(), str("/metadata/labels"), &out));
    benchmark::DoNotOptimize(out);
  }
}
BENCHMARK(BM_NodeJsonPointer_Cached_Raw);

}  // namespace
}  // namespace schedhost_bench
