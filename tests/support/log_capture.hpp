// Captures what the host logs (including what plugins log through the host API) for a test.
#pragma once

#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace schedhost::testing {

class LogCapture {
 public:
  LogCapture() : previous_(spdlog::default_logger()) {
    auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(stream_);
    auto logger = std::make_shared<spdlog::logger>("capture", sink);
    logger->set_pattern("%v");
    logger->set_level(spdlog::level::trace);
    spdlog::set_default_logger(logger);
    spdlog::set_level(spdlog::level::trace);
  }
  ~LogCapture() { spdlog::set_default_logger(previous_); }

  std::vector<std::string> lines() const {
    std::vector<std::string> out;
    std::istringstream in(stream_.str());
    for (std::string line; std::getline(in, line);)
      out.push_back(line);
    return out;
  }

 private:
  std::ostringstream stream_;
  std::shared_ptr<spdlog::logger> previous_;
};

}  // namespace schedhost::testing
