#include "framework/call.hpp"

namespace schedhost::framework {

const Call::Extras Call::kNoExtras{};

void Call::add_reason(std::string_view reason) {
  if (reason.size() <= kMaxReasonBytes) {
    reasons_.emplace_back(reason);
    return;
  }
  std::size_t cut = kMaxReasonBytes;
  while (cut > 0 && (static_cast<unsigned char>(reason[cut]) & 0xC0) == 0x80)
    --cut;  // do not split a UTF-8 sequence
  reasons_.emplace_back(std::string(reason.substr(0, cut)) + "... (truncated from " +
                        std::to_string(reason.size()) + " bytes)");
}

std::string Call::message() const {
  std::string out;
  for (const std::string& r : reasons_) {
    if (!out.empty()) out += ", ";
    out += r;
  }
  return out;
}

}  // namespace schedhost::framework
