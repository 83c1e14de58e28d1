// --logging-format json: one JSON object per line, as kube-scheduler's JSON logs (component-base
// logs/json): "ts" (Unix seconds), "v" (the klog verbosity of an info line: 0; debug 4; trace 6)
// or "level" (warning, error, critical) for the others, and "msg". Messages are escaped as JSON,
// so any log line parses.
#pragma once

#include <spdlog/formatter.h>

#include <memory>

namespace schedhost {

class JsonLogFormatter final : public spdlog::formatter {
 public:
  void format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) override;
  std::unique_ptr<spdlog::formatter> clone() const override {
    return std::make_unique<JsonLogFormatter>();
  }
};

}  // namespace schedhost
