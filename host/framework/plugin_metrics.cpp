#include "framework/plugin_metrics.hpp"

#include "framework/plugin_host.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string_view>

namespace schedhost::framework {
namespace {

constexpr std::string_view kPluginMetricPrefix = "schedhost_plugin_";

// record() promises plugins it never blocks.
static_assert(std::atomic<double>::is_always_lock_free &&
              std::atomic<std::uint64_t>::is_always_lock_free);

// Prometheus' DefBuckets, for a histogram declared without buckets.
const std::vector<double>& default_plugin_metric_buckets() {
  static const std::vector<double> buckets = {.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10};
  return buckets;
}

// Names under the prefix that serve's own registry already has (serving/scheduler_metrics.cpp):
// a plugin's family of the same name would make the exposition invalid.
bool is_host_metric_name(std::string_view name) {
  return name == "faults_total";
}

std::string_view metric_kind_name(schedhost_metric_kind_t kind) {
  return kind == SCHEDHOST_METRIC_HISTOGRAM ? "histogram" : "counter";
}

}  // namespace

// One series. Only the atomics change once it is published; the rest is fixed at registration.
struct PluginMetrics::Series {
  Series(std::string plugin_name, const library_rules::MetricDecl& decl)
      : plugin(std::move(plugin_name)), name(decl.name), kind(decl.kind) {
    if (kind == SCHEDHOST_METRIC_HISTOGRAM) {
      bounds = decl.buckets.empty() ? default_plugin_metric_buckets() : decl.buckets;
      buckets = std::vector<std::atomic<std::uint64_t>>(bounds.size() + 1);
    }
  }

  const std::string plugin;
  const std::string name;
  const schedhost_metric_kind_t kind;
  std::vector<double> bounds;  // histogram: upper bounds, increasing, without +Inf
  // Histogram: observations per bucket (not cumulative; collect() adds them up), the last one
  // past every bound (+Inf). Counting per bucket keeps record() to one increment.
  std::vector<std::atomic<std::uint64_t>> buckets;
  std::atomic<double> value{0};     // counter: its total; histogram: the sum of observations
  std::atomic<bool> warned{false};  // a bad value is logged once per series
};

PluginMetrics::PluginMetrics() = default;
PluginMetrics::~PluginMetrics() = default;

PluginMetrics& PluginMetrics::instance() {
  // Leaked on purpose: a plugin thread may still record while statics are destroyed at exit.
  static PluginMetrics* const metrics = new PluginMetrics();
  return *metrics;
}

std::int32_t PluginMetrics::add(const std::string& plugin, const library_rules::MetricDecl& decl) {
  const std::lock_guard lock(mutex_);
  auto key = std::make_pair(plugin, decl.name);
  if (auto it = ids_.find(key); it != ids_.end()) return it->second;
  const std::int32_t id = register_series(plugin, decl);
  ids_.emplace(std::move(key), id);  // a refusal too: logged once, however many profiles ask
  return id;
}

std::int32_t PluginMetrics::register_series(const std::string& plugin,
                                            const library_rules::MetricDecl& decl) {
  // The loader checked the declaration already; this keeps the registry sound for any caller.
  if (std::string why = library_rules::check_metric_decl(decl); !why.empty()) {
    spdlog::error("plugin \"{}\" {}; it is not served", plugin, why);
    return -1;
  }
  const std::string series = "plugin \"" + plugin + "\": metric \"" + decl.name + "\": ";
  if (is_host_metric_name(decl.name)) {
    spdlog::error("{}the host serves {}{} itself; rename the metric (it is not served)", series,
                  kPluginMetricPrefix, decl.name);
    return -1;
  }
  auto family = families_.find(decl.name);
  if (family != families_.end() && family->second.kind != decl.kind) {
    spdlog::error(
        "{}declared as a {}, but plugin \"{}\" declared it as a {}: a Prometheus name has one "
        "type, so this one is not served (rename it)",
        series, metric_kind_name(decl.kind), family->second.by_plugin.begin()->first,
        metric_kind_name(family->second.kind));
    return -1;
  }
  if (owned_.size() >= kCapacity) {
    spdlog::error("{}the host serves at most {} plugin metric series; this one is not served",
                  series, kCapacity);
    return -1;
  }
  const auto id = static_cast<std::int32_t>(owned_.size());
  owned_.push_back(std::make_unique<Series>(plugin, decl));
  Series* const created = owned_.back().get();
  if (family == families_.end()) {
    family = families_.emplace(decl.name, Family{decl.help, decl.kind, {}}).first;
  }
  family->second.by_plugin.emplace(plugin, created);
  // Last: a record() that finds the slot sees the series fully built.
  slots_[static_cast<std::size_t>(id)].store(created, std::memory_order_release);
  return id;
}

void PluginMetrics::record(std::int32_t id, double value) {
  Series* const s = id >= 0 && static_cast<std::size_t>(id) < kCapacity
                        ? slots_[static_cast<std::size_t>(id)].load(std::memory_order_acquire)
                        : nullptr;
  if (s == nullptr) {
    if (!warned_unknown_id_.exchange(true, std::memory_order_relaxed)) {
      spdlog::warn("metric_record: id {} is not one metric_id answered; ignored (logged once)", id);
    }
    return;
  }
  const bool counter = s->kind == SCHEDHOST_METRIC_COUNTER;
  if (!std::isfinite(value) || (counter && value < 0)) {
    if (!s->warned.exchange(true, std::memory_order_relaxed)) {
      spdlog::warn(
          "plugin \"{}\": metric \"{}\": value {} ignored: a {} takes finite values{} "
          "(logged once)",
          s->plugin, s->name, value, metric_kind_name(s->kind), counter ? " >= 0" : "");
    }
    return;
  }
  // Relaxed: each atomic is exact on its own; a scrape between the two increments may see a
  // histogram's sum one observation ahead of its counts, as client_golang's may.
  s->value.fetch_add(value, std::memory_order_relaxed);
  if (!counter) {
    const auto bucket = std::lower_bound(s->bounds.begin(), s->bounds.end(), value);  // le
    s->buckets[static_cast<std::size_t>(bucket - s->bounds.begin())].fetch_add(
        1, std::memory_order_relaxed);
  }
}

std::vector<prometheus::MetricFamily> PluginMetrics::collect() const {
  const std::lock_guard lock(mutex_);
  std::vector<prometheus::MetricFamily> out;
  out.reserve(families_.size());
  for (const auto& [name, family] : families_) {
    prometheus::MetricFamily f;
    f.name = std::string(kPluginMetricPrefix) + name;
    f.help = family.help;
    const bool counter = family.kind == SCHEDHOST_METRIC_COUNTER;
    f.type = counter ? prometheus::MetricType::Counter : prometheus::MetricType::Histogram;
    for (const auto& [plugin, s] : family.by_plugin) {
      prometheus::ClientMetric m;
      m.label.push_back({"plugin", plugin});
      if (counter) {
        m.counter.value = s->value.load(std::memory_order_relaxed);
      } else {
        // Cumulative, as Prometheus defines le; +Inf last, so _count always equals it.
        std::uint64_t seen = 0;
        for (std::size_t i = 0; i < s->buckets.size(); ++i) {
          seen += s->buckets[i].load(std::memory_order_relaxed);
          const double bound =
              i < s->bounds.size() ? s->bounds[i] : std::numeric_limits<double>::infinity();
          m.histogram.bucket.push_back({seen, bound});
        }
        m.histogram.sample_count = seen;
        m.histogram.sample_sum = s->value.load(std::memory_order_relaxed);
      }
      f.metric.push_back(std::move(m));
    }
    out.push_back(std::move(f));
  }
  return out;
}

std::vector<std::pair<std::string, std::int32_t>> declared_metric_ids(
    const loader::PluginDefinition& definition) {
  std::vector<std::pair<std::string, std::int32_t>> ids;
  if (host_api()->abi_minor < 9) return ids;
  for (const library_rules::MetricDecl& decl : definition.metrics) {
    const std::int32_t id = PluginMetrics::instance().add(definition.name, decl);
    if (id >= 0) ids.emplace_back(decl.name, id);
  }
  return ids;
}

}  // namespace schedhost::framework
