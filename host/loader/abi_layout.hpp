// What the host knows about the layout of ABI structs across minors: the sizes they had in 1.0
// (anything smaller is refused as corrupt) and how to read a struct a plugin filled in with its
// own, possibly different, struct_size.
#pragma once

#include <schedhost/abi.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace schedhost::loader {

// Sizes in ABI 1.0 on LP64. Frozen: a later minor only makes the structs longer.
inline constexpr std::uint32_t kLibrarySize_1_0 = 80;
inline constexpr std::uint32_t kPluginDescriptorSize_1_0 = 32;
inline constexpr std::uint32_t kPluginVtableSize_1_0 = 160;
inline constexpr std::uint32_t kStateOpsSize_1_0 = 24;

// Copies the first `declared_size` bytes of a plugin-owned struct into a zeroed host struct of
// the current size: fields a shorter (older) struct lacks read as NULL/0, and fields a longer
// (newer) struct has beyond ours are never read.
template <class S>
S copy_struct_prefix(const S* source, std::uint32_t declared_size) {
  S copy{};
  std::memcpy(static_cast<void*>(&copy), source, std::min<std::size_t>(declared_size, sizeof(S)));
  return copy;
}

}  // namespace schedhost::loader
