#include "common/json_log_formatter.hpp"

#include <nlohmann/json.hpp>

#include <chrono>
#include <string>

namespace schedhost {

void JsonLogFormatter::format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) {
  nlohmann::ordered_json line;
  line["ts"] = std::chrono::duration<double>(msg.time.time_since_epoch()).count();
  switch (msg.level) {
    case spdlog::level::trace:
      line["v"] = 6;
      break;
    case spdlog::level::debug:
      line["v"] = 4;
      break;
    case spdlog::level::info:
      line["v"] = 0;
      break;
    case spdlog::level::warn:
      line["level"] = "warning";
      break;
    default:
      line["level"] = std::string(spdlog::level::to_string_view(msg.level).data(),
                                  spdlog::level::to_string_view(msg.level).size());
      break;
  }
  line["msg"] = std::string(msg.payload.data(), msg.payload.size());
  const std::string text =
      line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  dest.append(text.data(), text.data() + text.size());
}

}  // namespace schedhost
