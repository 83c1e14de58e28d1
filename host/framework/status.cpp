#include "framework/status.hpp"

namespace schedhost::framework {

std::string Status::message() const {
  std::string out;
  for (const std::string& r : reasons) {
    if (!out.empty()) out += ", ";
    out += r;
  }
  return out;
}

std::string_view code_name(schedhost_code_t code) {
  switch (code) {
    case SCHEDHOST_SUCCESS:
      return "Success";
    case SCHEDHOST_ERROR:
      return "Error";
    case SCHEDHOST_UNSCHEDULABLE:
      return "Unschedulable";
    case SCHEDHOST_UNSCHEDULABLE_AND_UNRESOLVABLE:
      return "UnschedulableAndUnresolvable";
    case SCHEDHOST_WAIT:
      return "Wait";
    case SCHEDHOST_SKIP:
      return "Skip";
    default:
      return "Unknown";
  }
}

}  // namespace schedhost::framework
