// What the default plugins' reads of the pod being scheduled cost serve, whose Pods keep their
// compact text: each PreFilter asks for a few fields by JSON pointer (schedulingGates, affinity,
// topologySpreadConstraints, volumes, resourceClaims, ...), most of them absent, one after the
// other. The pod is scheduler_perf's SchedulingBasic pod as the API server sent it (the pending
// pod of pod_watch_events.jsonl), stored as the informer stores it.
//
// - Plain: every pointer walked from the text's start (compact_json_at without recorded ends).
// - PodJsonAt: through Pod::json_at, as plugins read it: from a thread's second read of a text on,
//   the containers it scanned are skipped. Two pods are read in turn, a cycle each, so every
//   cycle starts over as a new pod's would.
#include <benchmark/benchmark.h>

#include <array>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

#include "cluster/compact_json.hpp"
#include "cluster/pod.hpp"
#include "kube/informer.hpp"
#include "kube/watch_decoder.hpp"

namespace schedhost_bench {
namespace {

// The reads of one cycle of the default profile, in PreFilter order.
constexpr std::array<std::string_view, 14> kCyclePointers = {
    "/spec/schedulingGates",
    "/spec/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution",
    "/spec/volumes",
    "/spec/volumes",
    "/spec/volumes",
    "/spec/topologySpreadConstraints",
    "/spec/nodeSelector",
    "/spec/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution",
    "/spec/tolerations",
    "/spec/affinity",
    "/spec/affinity/podAffinity",
    "/spec/affinity/podAntiAffinity",
    "/spec/resourceClaims",
    "/status/resourceClaimStatuses"};

// The pending pod's object as the informer keeps it.
schedhost::kube::Object pending_pod() {
  std::ifstream in(SCHEDHOST_BENCH_POD_EVENTS);
  std::string line;
  if (!in || !std::getline(in, line)) throw std::runtime_error("cannot read pod events");
  schedhost::kube::Object object;
  schedhost::kube::WatchDecoder decoder;
  decoder.feed(line + "\n", [&](schedhost::kube::WatchEvent&& event) {
    object = schedhost::kube::stored_object(std::move(event.object));
    return true;
  });
  if (!object) throw std::runtime_error("no pod event");
  return object;
}

void BM_PodJsonPointers_Plain(benchmark::State& st) {
  const schedhost::kube::Object object = pending_pod();
  const std::string& text = *object.text();
  for (auto _ : st) {
    for (std::string_view pointer : kCyclePointers)
      benchmark::DoNotOptimize(schedhost::cluster::compact_json_at(text, pointer));
  }
  st.counters["text_bytes"] = static_cast<double>(text.size());
}
BENCHMARK(BM_PodJsonPointers_Plain);

void BM_PodJsonPointers_PodJsonAt(benchmark::State& st) {
  const schedhost::kube::Object object = pending_pod();
  // Two texts of one content: a cycle's pod is never the one before it.
  const std::array<schedhost::cluster::Pod, 2> pods = {
      schedhost::cluster::Pod(*object, object.text()),
      schedhost::cluster::Pod(*object, std::make_shared<const std::string>(*object.text()))};
  std::size_t cycle = 0;
  for (auto _ : st) {
    const schedhost::cluster::Pod& pod = pods[cycle++ % 2];
    for (std::string_view pointer : kCyclePointers)
      benchmark::DoNotOptimize(pod.json_at(pointer));
  }
}
BENCHMARK(BM_PodJsonPointers_PodJsonAt);

}  // namespace
}  // namespace schedhost_bench
