#include "framework/call.hpp"

namespace schedhost::framework {

std::string Call::message() const {
  std::string out;
  for (const std::string& r : reasons_) {
    if (!out.empty()) out += ", ";
    out += r;
  }
  return out;
}

}  // namespace schedhost::framework
