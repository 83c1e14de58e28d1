// schedhost/host.hpp - the host as a plugin instance sees it: logging and feature tests.
// Valid from the plugin's constructor until it is destroyed; usable from any thread.
#pragma once

#include <schedhost/abi.h>
#include <schedhost/detail/host_table.hpp>

#include <cstdint>
#include <string_view>

namespace schedhost {

enum class LogLevel : std::int32_t {
  Trace = SCHEDHOST_LOG_TRACE,
  Debug = SCHEDHOST_LOG_DEBUG,
  Info = SCHEDHOST_LOG_INFO,
  Warn = SCHEDHOST_LOG_WARN,
  Error = SCHEDHOST_LOG_ERROR,
};

// A metric the plugin declared (PluginSpec::counter or histogram, ABI 1.9), as Host::metric
// finds it: add() to a counter, observe() a value in a histogram. Any thread, lock-free. One for
// a name the plugin did not declare, or from a host older than 1.9, records nothing.
class Metric {
 public:
  Metric() = default;
  Metric(void (*record)(const schedhost_host_t*, std::int32_t, double),
         const schedhost_host_t* host, std::int32_t id)
      : record_(record), host_(host), id_(id) {}

  void add(double value = 1) const { record(value); }
  void observe(double value) const { record(value); }
  // Whether the host knows it: false for an undeclared name or an older host.
  bool declared() const { return record_ != nullptr && id_ >= 0; }

 private:
  void record(double value) const {
    if (declared()) record_(host_, id_, value);
  }
  void (*record_)(const schedhost_host_t*, std::int32_t, double) = nullptr;
  const schedhost_host_t* host_ = nullptr;
  std::int32_t id_ = -1;
};

class Host {
 public:
  Host(const schedhost_host_api_t* api, const schedhost_host_t* host) : api_(api), host_(host) {}

  // The host's ABI version (e.g. to say what it lacks in an error).
  std::uint32_t abi_major() const { return api_->abi_major; }
  std::uint32_t abi_minor() const { return api_->abi_minor; }

  // Whether this host has a given API function: false for functions a later minor appended.
  template <class Fn>
  bool has(Fn schedhost_host_api_t::*member) const {
    return detail::host_fn(api_, member) != nullptr;
  }

  // Whether upstream feature gate `gate` is on (--feature-gates, else its kube-scheduler v1.35
  // default; ABI 1.8). On an older host, `fallback`: the default the plugin was written for.
  bool feature_enabled(std::string_view gate, bool fallback) const {
    auto fn = detail::host_fn(api_, &schedhost_host_api_t::feature_enabled);
    return fn == nullptr ? fallback : fn(host_, to_str(gate));
  }

  // The metric `name` this plugin declared, to keep and record from any thread (look it up once,
  // in the constructor).
  Metric metric(std::string_view name) const {
    auto id = detail::host_fn(api_, &schedhost_host_api_t::metric_id);
    auto record = detail::host_fn(api_, &schedhost_host_api_t::metric_record);
    if (id == nullptr || record == nullptr) return {};
    return Metric(record, host_, id(host_, to_str(name)));
  }

  bool log_enabled(LogLevel level) const {
    return api_->log_enabled(host_, static_cast<schedhost_log_level_t>(level));
  }
  void log(LogLevel level, std::string_view message) const {
    api_->log(host_, static_cast<schedhost_log_level_t>(level), to_str(message));
  }
  void debug(std::string_view message) const { log(LogLevel::Debug, message); }
  void info(std::string_view message) const { log(LogLevel::Info, message); }
  void warn(std::string_view message) const { log(LogLevel::Warn, message); }
  void error(std::string_view message) const { log(LogLevel::Error, message); }

  const schedhost_host_api_t* api() const { return api_; }
  const schedhost_host_t* handle() const { return host_; }

 private:
  const schedhost_host_api_t* api_;
  const schedhost_host_t* host_;
};

}  // namespace schedhost
