// Status: what a plugin hook (or a whole extension point) returned, on the host side.
#pragma once

#include <schedhost/abi.h>

#include <string>
#include <string_view>
#include <vector>

namespace schedhost::framework {

struct Status {
  schedhost_code_t code = SCHEDHOST_SUCCESS;
  std::vector<std::string> reasons;
  std::string plugin;  // the plugin that returned it (failures only)

  bool ok() const { return code == SCHEDHOST_SUCCESS; }
  bool skipped() const { return code == SCHEDHOST_SKIP; }
  bool rejected() const {
    return code == SCHEDHOST_UNSCHEDULABLE || code == SCHEDHOST_UNSCHEDULABLE_AND_UNRESOLVABLE;
  }
  // The reasons joined by ", " (upstream Status.Message()).
  std::string message() const;

  static Status error(std::string message, std::string plugin = {}) {
    return {SCHEDHOST_ERROR, {std::move(message)}, std::move(plugin)};
  }
};

// Upstream's name of a status code: "Success", "Unschedulable", ...
std::string_view code_name(schedhost_code_t code);

}  // namespace schedhost::framework
