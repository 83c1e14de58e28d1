// serve's scheduling queue with thousands of pods pending (pre-created pods, or a burst): each
// pod added to activeQ, popped and done, as the scheduling thread does once per pod. The heap's
// order looks both pods of every comparison up by uid.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "live/scheduling_queue.hpp"

namespace schedhost_bench {
namespace {

using schedhost::live::PodPtr;
using schedhost::live::QueueClock;
using schedhost::live::QueuedPodInfo;
using schedhost::live::QueueOptions;
using schedhost::live::SchedulingQueue;

class StillClock final : public QueueClock {
 public:
  time_point now() const override { return time_point(std::chrono::seconds(1000)); }
};

// Pods with random UUIDs, as the API server gives them, created in one second (so the order
// falls through to arrival, as with pods created together).
std::vector<PodPtr> pending_pods(int n) {
  std::mt19937_64 rng(1);
  std::vector<PodPtr> pods;
  for (int i = 0; i < n; ++i) {
    char uid[40];
    std::snprintf(uid, sizeof uid, "%08llx-%04llx-%04llx-%04llx-%012llx", rng() & 0xffffffffULL,
                  rng() & 0xffffULL, rng() & 0xffffULL, rng() & 0xffffULL,
                  rng() & 0xffffffffffffULL);
    nlohmann::json pod = {{"apiVersion", "v1"},
                          {"kind", "Pod"},
                          {"metadata",
                           {{"name", "pod-" + std::to_string(i)},
                            {"namespace", "default"},
                            {"uid", uid},
                            {"creationTimestamp", "2026-12-05T10:00:00Z"}}},
                          {"spec", {{"containers", nlohmann::json::array()}}}};
    pods.push_back(std::make_shared<const schedhost::cluster::Pod>(std::move(pod)));
  }
  return pods;
}

void BM_SchedulingQueue_AddPopDone(benchmark::State& st) {
  const std::vector<PodPtr> pods = pending_pods(static_cast<int>(st.range(0)));
  const StillClock clock;
  for (auto _ : st) {
    SchedulingQueue queue(
        [](const QueuedPodInfo& a, const QueuedPodInfo& b) {
          return a.pod->creation_time_ms() < b.pod->creation_time_ms();
        },
        [](const schedhost::cluster::Pod&) { return std::optional<std::string>(); }, QueueOptions{},
        clock);
    for (const PodPtr& pod : pods)
      queue.add(pod);
    for (std::size_t i = 0; i < pods.size(); ++i) {
      const std::optional<QueuedPodInfo> info = queue.pop();
      queue.done(info->pod->uid());
    }
  }
  st.SetItemsProcessed(st.iterations() * st.range(0));
}
BENCHMARK(BM_SchedulingQueue_AddPopDone)
    ->ArgNames({"pods"})
    ->Arg(5000)
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace schedhost_bench
