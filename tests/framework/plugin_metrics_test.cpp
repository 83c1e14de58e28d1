// The plugins' metrics (ABI 1.9): the process-wide registry on its own, then end to end, a real
// plugin recording from Filter through the host API, read back from the registry and from
// serve's /metrics text. The registry cannot be reset, so each test uses plugin and metric names
// of its own.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "framework/host_api_metrics.hpp"
#include "framework/plugin_host.hpp"
#include "framework/plugin_metrics.hpp"
#include "scheduler/scheduler_harness.hpp"
#include "serving/plugin_duration_series.hpp"
#include "serving/scheduler_metrics.hpp"
#include "support/log_capture.hpp"

namespace schedhost {
namespace {

using framework::PluginMetrics;
using library_rules::MetricDecl;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

MetricDecl counter(const std::string& name, const std::string& help = "what it counts") {
  return {name, help, SCHEDHOST_METRIC_COUNTER, {}};
}
MetricDecl histogram(const std::string& name, std::vector<double> buckets = {},
                     const std::string& help = "what it observes") {
  return {name, help, SCHEDHOST_METRIC_HISTOGRAM, std::move(buckets)};
}

// The family schedhost_plugin_<name> as collect() gives it; fails the test when it is absent.
prometheus::MetricFamily family(const std::string& name) {
  for (prometheus::MetricFamily& f : PluginMetrics::instance().collect()) {
    if (f.name == "schedhost_plugin_" + name) return f;
  }
  ADD_FAILURE() << "no family schedhost_plugin_" << name;
  return {};
}

// The series of plugin in the family schedhost_plugin_<name>.
prometheus::ClientMetric series(const std::string& name, const std::string& plugin) {
  for (const prometheus::ClientMetric& m : family(name).metric) {
    if (m.label.size() == 1 && m.label[0].name == "plugin" && m.label[0].value == plugin) return m;
  }
  ADD_FAILURE() << "no series schedhost_plugin_" << name << "{plugin=\"" << plugin << "\"}";
  return {};
}

// A histogram's bucket as (upper bound, cumulative count).
using Bucket = std::pair<double, std::uint64_t>;

std::vector<Bucket> buckets(const prometheus::ClientMetric& m) {
  std::vector<Bucket> out;
  for (const auto& b : m.histogram.bucket)
    out.emplace_back(b.upper_bound, b.cumulative_count);
  return out;
}

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

TEST(PluginMetrics, ACounterAddsFiniteNonNegativeValuesAndIgnoresTheRest) {
  PluginMetrics& metrics = PluginMetrics::instance();
  const std::int32_t id = metrics.add("CounterAdds", counter("counter_adds_total"));
  ASSERT_GE(id, 0);
  metrics.record(id, 1);
  metrics.record(id, 2.5);
  metrics.record(id, 0);
  metrics.record(id, -1);
  metrics.record(id, kNaN);
  metrics.record(id, kInf);
  metrics.record(id, -kInf);
  EXPECT_EQ(series("counter_adds_total", "CounterAdds").counter.value, 3.5);
}

TEST(PluginMetrics, ABadValueIsLoggedOncePerSeries) {
  PluginMetrics& metrics = PluginMetrics::instance();
  const std::int32_t first = metrics.add("BadValueA", counter("bad_value_total"));
  const std::int32_t second = metrics.add("BadValueB", counter("bad_value_total"));
  const std::int32_t observed = metrics.add("BadValueA", histogram("bad_value_seconds"));
  testing::LogCapture log;
  metrics.record(first, -1);
  metrics.record(first, -2);
  metrics.record(second, kNaN);
  metrics.record(observed, kInf);
  metrics.record(observed, -kInf);
  EXPECT_THAT(log.lines(),
              ElementsAre("plugin \"BadValueA\": metric \"bad_value_total\": value -1 ignored: a "
                          "counter takes finite values >= 0 (logged once)",
                          "plugin \"BadValueB\": metric \"bad_value_total\": value nan ignored: a "
                          "counter takes finite values >= 0 (logged once)",
                          "plugin \"BadValueA\": metric \"bad_value_seconds\": value inf ignored: "
                          "a histogram takes finite values (logged once)"));
}

TEST(PluginMetrics, AnUnknownIdIsIgnoredAndLoggedOnce) {
  PluginMetrics& metrics = PluginMetrics::instance();
  testing::LogCapture log;
  metrics.record(-1, 1);
  metrics.record(static_cast<std::int32_t>(PluginMetrics::kCapacity), 1);
  metrics.record(static_cast<std::int32_t>(PluginMetrics::kCapacity) - 1, 1);  // not registered
  EXPECT_THAT(log.lines(),
              ElementsAre("metric_record: id -1 is not one metric_id answered; ignored (logged "
                          "once)"));
}

TEST(PluginMetrics, AHistogramCountsEachObservationInCumulativeBuckets) {
  PluginMetrics& metrics = PluginMetrics::instance();
  const std::int32_t id = metrics.add("HistogramBuckets", histogram("buckets_seconds", {0.1, 1}));
  ASSERT_GE(id, 0);
  for (double v : {0.05, 0.1, 0.5, 1.0, 3.0, -2.0})
    metrics.record(id, v);
  metrics.record(id, kNaN);
  metrics.record(id, kInf);
  const prometheus::ClientMetric m = series("buckets_seconds", "HistogramBuckets");
  // le is inclusive: 0.1 counts in le="0.1", 1 in le="1"; -2 is below every bound.
  EXPECT_THAT(buckets(m), ElementsAre(Bucket{0.1, 3}, Bucket{1.0, 5}, Bucket{kInf, 6}));
  EXPECT_EQ(m.histogram.sample_count, 6u);
  EXPECT_DOUBLE_EQ(m.histogram.sample_sum, 0.05 + 0.1 + 0.5 + 1.0 + 3.0 - 2.0);
}

TEST(PluginMetrics, AHistogramWithoutBucketsHasPrometheusDefaults) {
  PluginMetrics& metrics = PluginMetrics::instance();
  const std::int32_t id = metrics.add("DefaultBuckets", histogram("default_buckets_seconds"));
  metrics.record(id, 0.3);
  metrics.record(id, 20);
  const prometheus::ClientMetric m = series("default_buckets_seconds", "DefaultBuckets");
  EXPECT_THAT(buckets(m),
              ElementsAre(Bucket{.005, 0}, Bucket{.01, 0}, Bucket{.025, 0}, Bucket{.05, 0},
                          Bucket{.1, 0}, Bucket{.25, 0}, Bucket{.5, 1}, Bucket{1.0, 1},
                          Bucket{2.5, 1}, Bucket{5.0, 1}, Bucket{10.0, 1}, Bucket{kInf, 2}));
  EXPECT_EQ(m.histogram.sample_count, 2u);
  EXPECT_DOUBLE_EQ(m.histogram.sample_sum, 0.3 + 20);
}

TEST(PluginMetrics, TheSamePluginAndNameAnswerTheSameIdAndShareOneSeries) {
  PluginMetrics& metrics = PluginMetrics::instance();
  const std::int32_t first = metrics.add("SharedSeries", counter("shared_total"));
  const std::int32_t again = metrics.add("SharedSeries", counter("shared_total"));
  const std::int32_t other = metrics.add("SharedSeriesToo", counter("shared_total"));
  EXPECT_EQ(first, again);
  EXPECT_NE(first, other);
  metrics.record(first, 1);
  metrics.record(again, 2);
  metrics.record(other, 5);
  EXPECT_EQ(series("shared_total", "SharedSeries").counter.value, 3);
  EXPECT_EQ(series("shared_total", "SharedSeriesToo").counter.value, 5);
  EXPECT_EQ(family("shared_total").metric.size(), 2u);
}

TEST(PluginMetrics, CollectGivesOneFamilyPerNameWithItsHelpTypeAndPluginLabel) {
  PluginMetrics& metrics = PluginMetrics::instance();
  metrics.add("CollectB", counter("collected_total", "Things collected"));
  metrics.add("CollectA", counter("collected_total", "a later help text is not used"));
  metrics.record(metrics.add("CollectA", counter("collected_total")), 7);
  metrics.add("CollectA", histogram("collected_seconds", {2}, "Seconds collecting"));

  const prometheus::MetricFamily counted = family("collected_total");
  EXPECT_EQ(counted.name, "schedhost_plugin_collected_total");
  EXPECT_EQ(counted.help, "Things collected");
  EXPECT_EQ(counted.type, prometheus::MetricType::Counter);
  ASSERT_EQ(counted.metric.size(), 2u);  // in plugin order, each at its value (0 from the start)
  EXPECT_THAT(counted.metric[0].label,
              ElementsAre(prometheus::ClientMetric::Label{"plugin", "CollectA"}));
  EXPECT_EQ(counted.metric[0].counter.value, 7);
  EXPECT_THAT(counted.metric[1].label,
              ElementsAre(prometheus::ClientMetric::Label{"plugin", "CollectB"}));
  EXPECT_EQ(counted.metric[1].counter.value, 0);

  const prometheus::MetricFamily timed = family("collected_seconds");
  EXPECT_EQ(timed.help, "Seconds collecting");
  EXPECT_EQ(timed.type, prometheus::MetricType::Histogram);
  ASSERT_EQ(timed.metric.size(), 1u);
  EXPECT_THAT(buckets(timed.metric[0]), ElementsAre(Bucket{2.0, 0}, Bucket{kInf, 0}));
  EXPECT_EQ(timed.metric[0].histogram.sample_count, 0u);
}

TEST(PluginMetrics, ANameDeclaredWithAnotherKindIsRefusedOnceWithAnError) {
  PluginMetrics& metrics = PluginMetrics::instance();
  ASSERT_GE(metrics.add("KindFirst", counter("kind_clash")), 0);
  testing::LogCapture log;
  EXPECT_EQ(metrics.add("KindSecond", histogram("kind_clash")), -1);
  EXPECT_EQ(metrics.add("KindSecond", histogram("kind_clash")), -1);  // a second profile
  EXPECT_THAT(log.lines(),
              ElementsAre("plugin \"KindSecond\": metric \"kind_clash\": declared as a histogram, "
                          "but plugin \"KindFirst\" declared it as a counter: a Prometheus name "
                          "has one type, so this one is not served (rename it)"));
  const prometheus::MetricFamily f = family("kind_clash");
  EXPECT_EQ(f.type, prometheus::MetricType::Counter);
  ASSERT_EQ(f.metric.size(), 1u);
  EXPECT_EQ(f.metric[0].label[0].value, "KindFirst");
}

TEST(PluginMetrics, TheHostsOwnNameAndABadDeclarationAreRefused) {
  PluginMetrics& metrics = PluginMetrics::instance();
  testing::LogCapture log;
  EXPECT_EQ(metrics.add("HostName", counter("faults_total")), -1);
  EXPECT_EQ(metrics.add("HostName", counter("Bad-Name")), -1);
  EXPECT_EQ(metrics.add("HostName", histogram("unsorted_seconds", {1, 0.5})), -1);
  EXPECT_THAT(
      log.lines(),
      ElementsAre("plugin \"HostName\": metric \"faults_total\": the host serves "
                  "schedhost_plugin_faults_total itself; rename the metric (it is not served)",
                  "plugin \"HostName\" declares the metric \"Bad-Name\": not a metric name: use "
                  "^[a-z][a-z0-9_]*$ (the host adds schedhost_plugin_); it is not served",
                  "plugin \"HostName\" declares the metric \"unsorted_seconds\": its buckets must "
                  "be finite and strictly increasing; it is not served"));
}

TEST(PluginMetrics, RecordsFromManyThreadsAddUpExactly) {
  PluginMetrics& metrics = PluginMetrics::instance();
  const std::int32_t counted = metrics.add("Concurrent", counter("concurrent_total"));
  const std::int32_t observed = metrics.add("Concurrent", histogram("concurrent_seconds", {1}));
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 10000; ++i) {
        metrics.record(counted, 1);
        metrics.record(observed, i % 2 == 0 ? 0.5 : 2);
      }
    });
  }
  for (std::thread& t : threads)
    t.join();
  EXPECT_EQ(series("concurrent_total", "Concurrent").counter.value, 40000);
  const prometheus::ClientMetric m = series("concurrent_seconds", "Concurrent");
  EXPECT_THAT(buckets(m), ElementsAre(Bucket{1.0, 20000}, Bucket{kInf, 40000}));
  EXPECT_EQ(m.histogram.sample_count, 40000u);
  EXPECT_EQ(m.histogram.sample_sum, 50000);
}

TEST(PluginMetrics, SeriesRegisteredWhileOthersRecordAreServedAndLoseNothing) {
  PluginMetrics& metrics = PluginMetrics::instance();
  const std::int32_t busy = metrics.add("WhileRecording", counter("busy_total"));
  std::atomic<bool> stop{false};
  std::int64_t recorded = 0;
  std::thread recorder([&] {
    while (!stop.load()) {
      metrics.record(busy, 1);
      ++recorded;
    }
  });
  std::vector<std::int32_t> ids;
  for (int i = 0; i < 50; ++i) {
    ids.push_back(metrics.add("WhileRecording" + std::to_string(i), counter("registered_total")));
  }
  stop = true;
  recorder.join();
  for (std::int32_t id : ids)
    metrics.record(id, 1);
  EXPECT_EQ(series("busy_total", "WhileRecording").counter.value, static_cast<double>(recorded));
  EXPECT_EQ(family("registered_total").metric.size(), 50u);
  for (const prometheus::ClientMetric& m : family("registered_total").metric)
    EXPECT_EQ(m.counter.value, 1);
}

// ---- The host API functions ----

TEST(HostApiMetrics, MetricIdFindsOnlyWhatTheCallingPluginDeclared) {
  schedhost_host_api_t table{};
  framework::fill_metric_functions(table);
  const std::int32_t id = PluginMetrics::instance().add("ApiCaller", counter("api_calls_total"));
  framework::PluginHost plugin{"plugin \"ApiCaller\"", {{"api_calls_total", id}}};
  framework::PluginHost other{"plugin \"ApiOther\""};
  framework::PluginHost library{"library \"api\""};
  const auto str = [](const char* s) {
    return schedhost_str_t{s, std::char_traits<char>::length(s)};
  };

  EXPECT_EQ(table.metric_id(plugin.handle(), str("api_calls_total")), id);
  EXPECT_EQ(table.metric_id(plugin.handle(), str("api_calls")), -1);
  EXPECT_EQ(table.metric_id(plugin.handle(), {nullptr, 0}), -1);
  EXPECT_EQ(table.metric_id(other.handle(), str("api_calls_total")), -1);
  EXPECT_EQ(table.metric_id(library.handle(), str("api_calls_total")), -1);
  EXPECT_EQ(table.metric_id(nullptr, str("api_calls_total")), -1);

  table.metric_record(plugin.handle(), id, 4);
  table.metric_record(nullptr, id, 100);  // no host: ignored
  EXPECT_EQ(series("api_calls_total", "ApiCaller").counter.value, 4);
}

// ---- End to end: a real plugin, loaded by the real loader, run by run_scheduler ----

// Two profiles enabling MetricsFixture's Filter; node-a, node-b and node-c get the observations
// 0.0625, 0.5 and 4 (exact in binary, so the sum does not depend on the threads' order).
const std::string kTwoProfiles = [] {
  std::string profiles;
  for (const char* name : {"default-scheduler", "second-scheduler"}) {
    profiles += std::string("- schedulerName: ") + name + R"(
  plugins:
    multiPoint:
      disabled: [{name: '*'}]
    queueSort:
      enabled: [{name: PrioritySort}]
    filter:
      enabled: [{name: MetricsFixture}]
    bind:
      enabled: [{name: DefaultBinder}]
  pluginConfig:
  - name: MetricsFixture
    args: {observe: {node-a: 0.0625, node-b: 0.5, node-c: 4}}
)";
  }
  return "apiVersion: kubescheduler.config.k8s.io/v1\n"
         "kind: KubeSchedulerConfiguration\n"
         "profiles:\n" +
         profiles;
}();

const std::string kThreeNodesTwoPods =
    testing::node_yaml("node-a") + testing::node_yaml("node-b") + testing::node_yaml("node-c") +
    testing::pod_yaml("web") + testing::pod_yaml("api", "", "  schedulerName: second-scheduler\n");

TEST(PluginMetricsEndToEnd, WhatAPluginRecordsInFilterIsServedExactly) {
  // Fails until host_api.cpp's make_table() calls fill_metric_functions(t).
  ASSERT_NE(framework::host_api()->metric_id, nullptr)
      << "the host API table has no metric_id: make_table() must call fill_metric_functions(t)";
  testing::SchedulerHarness harness({"framework"});
  const scheduler::RunResult result = harness.run(kTwoProfiles, kThreeNodesTwoPods);
  ASSERT_EQ(result.pods.size(), 2u);
  EXPECT_EQ(result.pods[0].result, "Scheduled");
  EXPECT_EQ(result.pods[1].result, "Scheduled");

  // Two pods, each filtered on three nodes; both profiles' instances share one series.
  const prometheus::MetricFamily filtered = family("filtered_total");
  EXPECT_EQ(filtered.help, "Pods this plugin filtered");
  EXPECT_EQ(filtered.type, prometheus::MetricType::Counter);
  ASSERT_EQ(filtered.metric.size(), 1u);
  EXPECT_THAT(filtered.metric[0].label,
              ElementsAre(prometheus::ClientMetric::Label{"plugin", "MetricsFixture"}));
  EXPECT_EQ(filtered.metric[0].counter.value, 6);

  const prometheus::MetricFamily seconds = family("filter_seconds");
  EXPECT_EQ(seconds.help, "Seconds this plugin's Filter took");
  EXPECT_EQ(seconds.type, prometheus::MetricType::Histogram);
  ASSERT_EQ(seconds.metric.size(), 1u);
  EXPECT_THAT(buckets(seconds.metric[0]),
              ElementsAre(Bucket{0.1, 2}, Bucket{1.0, 4}, Bucket{kInf, 6}));
  EXPECT_EQ(seconds.metric[0].histogram.sample_count, 6u);
  EXPECT_EQ(seconds.metric[0].histogram.sample_sum, 9.125);

  // serve's /metrics text has them beside its own families.
  const std::string text = serving::SchedulerMetrics().scrape();
  for (const char* line : {
           "# HELP schedhost_plugin_filtered_total Pods this plugin filtered\n",
           "# TYPE schedhost_plugin_filtered_total counter\n",
           "schedhost_plugin_filtered_total{plugin=\"MetricsFixture\"} 6\n",
           "# TYPE schedhost_plugin_filter_seconds histogram\n",
           "schedhost_plugin_filter_seconds_count{plugin=\"MetricsFixture\"} 6\n",
           "schedhost_plugin_filter_seconds_sum{plugin=\"MetricsFixture\"} 9.125\n",
           "schedhost_plugin_filter_seconds_bucket{plugin=\"MetricsFixture\",le=\"0.1\"} 2\n",
           "schedhost_plugin_filter_seconds_bucket{plugin=\"MetricsFixture\",le=\"1\"} 4\n",
           "schedhost_plugin_filter_seconds_bucket{plugin=\"MetricsFixture\",le=\"+Inf\"} 6\n",
           "# TYPE scheduler_pending_pods gauge\n",
       }) {
    EXPECT_THAT(text, HasSubstr(line));
  }
}

// scheduler_plugin_execution_duration_seconds, which each thread finds through a cache of its
// own: every (plugin, point, status) counts in its own series and on its own metrics object, also
// for a metrics object made where a destroyed one was, from several threads.
TEST(SchedulerMetrics, EachPluginExecutionCountsInItsOwnSeries) {
  const auto count = [](const std::string& text, const std::string& point,
                        const std::string& plugin, const std::string& status) {
    const std::string prefix =
        "scheduler_plugin_execution_duration_seconds_count{extension_point=\"" + point +
        "\",plugin=\"" + plugin + "\",status=\"" + status + "\"} ";
    const std::size_t at = text.find(prefix);
    return at == std::string::npos ? -1 : std::stoi(text.substr(at + prefix.size()));
  };
  for (int round = 1; round <= 3; ++round) {
    serving::SchedulerMetrics metrics;
    std::vector<std::thread> threads;
    for (int t = 0; t < 2; ++t) {
      threads.emplace_back([&metrics, round] {
        for (int k = 0; k < round; ++k) {
          metrics.plugin_execution("NodeResourcesFit", "Filter", SCHEDHOST_SUCCESS, 0.001);
          metrics.plugin_execution("NodeResourcesFit", "Filter", SCHEDHOST_UNSCHEDULABLE, 0.001);
          metrics.plugin_execution("NodeAffinity", "Filter", SCHEDHOST_SUCCESS, 0.001);
          metrics.plugin_execution("NodeResourcesFit", "Score", SCHEDHOST_SUCCESS, 0.001);
          metrics.plugin_execution("NodeResourcesFit", "Filter", SCHEDHOST_SUCCESS, 0.001);
        }
      });
    }
    for (std::thread& t : threads)
      t.join();
    const std::string text = metrics.scrape();
    EXPECT_EQ(count(text, "Filter", "NodeResourcesFit", "Success"), 4 * round) << round;
    EXPECT_EQ(count(text, "Filter", "NodeResourcesFit", "Unschedulable"), 2 * round) << round;
    EXPECT_EQ(count(text, "Filter", "NodeAffinity", "Success"), 2 * round) << round;
    EXPECT_EQ(count(text, "Score", "NodeResourcesFit", "Success"), 2 * round) << round;
    EXPECT_EQ(count(text, "Score", "NodeAffinity", "Success"), -1) << round;
  }
}

// A plugin-duration series counts without a lock and hands its counts to the exported
// histogram at each flush: each value in the first bucket not below it, the sum to the
// nanosecond, nothing twice, and every observation of several threads.
TEST(SchedulerMetrics, PluginDurationsReachTheExportedHistogramAtEachFlushExactlyOnce) {
  const prometheus::Histogram::BucketBoundaries bounds = {0.001, 0.01, 0.1};
  prometheus::Histogram exported(bounds);
  serving::PluginDurationSeries series(exported, bounds);
  const auto buckets = [&] {
    std::vector<std::uint64_t> cumulative;
    for (const prometheus::ClientMetric::Bucket& b : exported.Collect().histogram.bucket)
      cumulative.push_back(b.cumulative_count);
    return cumulative;
  };
  for (double seconds : {0.0005, 0.001, 0.002, 0.5})
    series.observe(seconds);
  EXPECT_EQ(exported.Collect().histogram.sample_count, 0u);  // not before a flush
  series.flush();
  EXPECT_EQ(buckets(), (std::vector<std::uint64_t>{2, 3, 3, 4}));
  EXPECT_DOUBLE_EQ(exported.Collect().histogram.sample_sum, 0.5035);
  series.flush();  // nothing new
  EXPECT_EQ(exported.Collect().histogram.sample_count, 4u);

  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&series] {
      for (int i = 0; i < 10000; ++i)
        series.observe(0.05);
    });
  }
  for (int i = 0; i < 100; ++i)
    series.flush();  // while they observe
  for (std::thread& t : threads)
    t.join();
  series.flush();
  EXPECT_EQ(buckets(), (std::vector<std::uint64_t>{2, 3, 40003, 40004}));
  EXPECT_NEAR(exported.Collect().histogram.sample_sum, 0.5035 + 40000 * 0.05, 1e-6);
}

TEST(PluginMetricsEndToEnd, APluginFindsOnlyTheMetricsItDeclared) {
  ASSERT_NE(framework::host_api()->metric_id, nullptr)
      << "the host API table has no metric_id: make_table() must call fill_metric_functions(t)";
  testing::SchedulerHarness harness({"framework"});
  // filtered_total is MetricsFixture's, not MetricsProbe's.
  const scheduler::RunResult result =
      harness.run(testing::profile_with(R"(    filter:
      enabled: [{name: MetricsProbe}]
  pluginConfig:
  - name: MetricsProbe
    args: {names: [probe_total, filtered_total, not_declared]}
)"),
                  testing::node_yaml("node-a") + testing::pod_yaml("web"));
  ASSERT_EQ(result.pods.size(), 1u);
  ASSERT_TRUE(result.pods[0].explain.has_value());
  ASSERT_EQ(result.pods[0].explain->nodes.size(), 1u);
  EXPECT_THAT(
      result.pods[0].explain->nodes[0].second.filter.reasons,
      ElementsAre("probe_total declared", "filtered_total undeclared", "not_declared undeclared"));
}

}  // namespace
}  // namespace schedhost
