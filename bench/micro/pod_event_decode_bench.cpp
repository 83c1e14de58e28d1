// What one pod watch event costs serve's pod informer to decode, and what a faster parser would
// save (issue 21: "measure nlohmann against simdjson / an on-demand parse for pod events").
// The events are two lines a v1.35 API server sent for scheduler_perf's SchedulingBasic pods
// (pod_watch_events.jsonl: a pending pod, and a bound one), managedFields included.
//
// - Informer: what the informer does for each event: WatchDecoder (nlohmann::json::parse
//   of the line), managedFields dropped, the compact text kept (dump), and the typed Pod the
//   queue or the cache builds from the tree.
// - NlohmannParse: nlohmann's parse alone; ParseJson: kube::parse_json, the same tree built from
//   simdjson's parse (what the informer uses since). SimdjsonDom: simdjson's parse into its own
//   DOM, the line copied into a padded buffer first (as a stream's chunks would be).
// - SimdjsonOnDemand: the same line read on demand (pod_event_ondemand_bench.cpp).
#include <benchmark/benchmark.h>

#include <simdjson.h>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "cluster/pod.hpp"
#include "kube/informer.hpp"
#include "kube/json_parse.hpp"
#include "kube/watch_decoder.hpp"
#include "micro/pod_event_ondemand.hpp"

namespace schedhost_bench {
namespace {

const std::vector<std::string>& events() {
  static const std::vector<std::string> lines = [] {
    std::ifstream in(SCHEDHOST_BENCH_POD_EVENTS);
    if (!in) throw std::runtime_error("cannot read " SCHEDHOST_BENCH_POD_EVENTS);
    std::vector<std::string> out;
    for (std::string line; std::getline(in, line);) {
      if (!line.empty()) out.push_back(line);
    }
    return out;
  }();
  return lines;
}

// range(0): 0 the pending pod's ADDED, 1 the bound pod's.
const std::string& event_of(const benchmark::State& st) {
  return events().at(static_cast<std::size_t>(st.range(0)));
}

void BM_PodEvent_Informer(benchmark::State& st) {
  const std::string line = event_of(st) + "\n";
  schedhost::kube::WatchDecoder decoder;
  for (auto _ : st) {
    decoder.feed(line, [](schedhost::kube::WatchEvent&& event) {
      const schedhost::kube::Object object =
          schedhost::kube::stored_object(std::move(event.object));
      const schedhost::cluster::Pod pod(*object, object.text());
      benchmark::DoNotOptimize(pod.requests());
      return true;
    });
  }
  st.SetBytesProcessed(static_cast<std::int64_t>(st.iterations() * line.size()));
}
BENCHMARK(BM_PodEvent_Informer)->Arg(0)->Arg(1);

void BM_PodEvent_NlohmannParse(benchmark::State& st) {
  const std::string& line = event_of(st);
  for (auto _ : st) {
    nlohmann::json event = nlohmann::json::parse(line);
    benchmark::DoNotOptimize(event);
  }
  st.SetBytesProcessed(static_cast<std::int64_t>(st.iterations() * line.size()));
}
BENCHMARK(BM_PodEvent_NlohmannParse)->Arg(0)->Arg(1);

void BM_PodEvent_SimdjsonDom(benchmark::State& st) {
  const std::string& line = event_of(st);
  simdjson::dom::parser parser;
  for (auto _ : st) {
    const simdjson::padded_string padded(line);
    simdjson::dom::element event;
    if (parser.parse(padded).get(event) != simdjson::SUCCESS) st.SkipWithError("parse");
    benchmark::DoNotOptimize(event);
  }
  st.SetBytesProcessed(static_cast<std::int64_t>(st.iterations() * line.size()));
}
BENCHMARK(BM_PodEvent_SimdjsonDom)->Arg(0)->Arg(1);

void BM_PodEvent_ParseJson(benchmark::State& st) {
  const std::string& line = event_of(st);
  for (auto _ : st) {
    nlohmann::json event = schedhost::kube::parse_json(line);
    benchmark::DoNotOptimize(event);
  }
  st.SetBytesProcessed(static_cast<std::int64_t>(st.iterations() * line.size()));
}
BENCHMARK(BM_PodEvent_ParseJson)->Arg(0)->Arg(1);

// On demand, where the CPU has AVX2 (pod_event_ondemand_bench.cpp is compiled for it).
const bool registered = [] {
  if (__builtin_cpu_supports("avx2")) {
    benchmark::RegisterBenchmark(
        "BM_PodEvent_SimdjsonOnDemand",
        [](benchmark::State& st) { pod_event_on_demand(st, event_of(st)); })
        ->Arg(0)
        ->Arg(1);
  }
  return true;
}();

}  // namespace
}  // namespace schedhost_bench
