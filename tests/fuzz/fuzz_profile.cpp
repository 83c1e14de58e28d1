// libFuzzer target: a KubeSchedulerConfiguration file (host/config), parsed and defaulted.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "common/input_error.hpp"
#include "config/config_parser.hpp"
#include "fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    schedhost::config::SchedulerConfiguration configuration =
        schedhost::config::parse_configuration(text, "profile.yaml");
    (void)configuration;
  } catch (const schedhost::InputError& e) {
    schedhost::fuzz::check_error_line(e.what());
  }
  return 0;
}
