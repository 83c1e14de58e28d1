// The ABI's (pointer, length) strings as string views and back; a null pointer is "".
#pragma once

#include <schedhost/abi.h>

#include <string_view>

namespace schedhost::framework {

inline std::string_view view(schedhost_str_t s) {
  return s.data == nullptr ? std::string_view{} : std::string_view{s.data, s.len};
}

}  // namespace schedhost::framework
