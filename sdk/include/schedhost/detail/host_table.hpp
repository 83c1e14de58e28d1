// schedhost/detail/host_table.hpp - safe use of the host API table from the C++ wrapper.
#pragma once

#include <schedhost/abi.h>

#include <cstddef>
#include <string_view>

namespace schedhost {

inline std::string_view to_view(schedhost_str_t s) {
  return s.data == nullptr ? std::string_view{} : std::string_view{s.data, s.len};
}
inline schedhost_str_t to_str(std::string_view s) {
  return {s.data(), s.size()};
}

namespace detail {

// The host function `member`, or nullptr when this host's table predates it: a plugin built
// against a newer minor must never read past the struct_size the host declared.
template <class Fn>
Fn host_fn(const schedhost_host_api_t* api, Fn schedhost_host_api_t::*member) {
  const auto* base = reinterpret_cast<const char*>(api);
  const auto* field = reinterpret_cast<const char*>(&(api->*member));
  const auto end = static_cast<std::size_t>(field - base) + sizeof(Fn);
  return end <= api->struct_size ? api->*member : nullptr;
}

}  // namespace detail
}  // namespace schedhost
