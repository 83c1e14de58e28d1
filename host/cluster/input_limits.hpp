// Limits on what a profile or cluster file may ask of the parsers, so that hostile input is
// refused with one line instead of exhausting the stack, memory or time (issue 6, item 3).
#pragma once

#include <cstddef>
#include <cstdint>

namespace schedhost {

// Deepest nesting of mappings and sequences in a document. Kubernetes objects stay under 20
// levels (a CRD schema under 60); yaml-cpp itself gives up near 500, and every converter
// recurses once per level.
inline constexpr int kMaxNestingDepth = 128;

// Alias expansion, as go-yaml (and so kubectl and the API server) bounds it: up to
// kAliasRatioLow expanded nodes, 99% may come from aliases; the share falls linearly to 10% at
// kAliasRatioHigh. Without it `a: &a [*b, *b, ...]` chains grow exponentially when converted.
inline constexpr std::int64_t kAliasRatioLow = 400'000;
inline constexpr std::int64_t kAliasRatioHigh = 4'000'000;
// Scalar text copied through aliases: a few aliases of one long string are cheap nodes but
// copy the string each time.
inline constexpr std::int64_t kMaxAliasExpandedBytes = 32 << 20;

// Largest file read: the whole file is held in memory with its parsed tree.
inline constexpr std::uintmax_t kMaxInputFileBytes = std::uintmax_t{256} << 20;

// Largest YAML text parsed at once: yaml-cpp's node tree takes about 90 bytes of memory per byte
// of text (a 10 MB cluster file peaks near 900 MB), so a larger cluster goes in several files of
// a directory (each file's tree is freed before the next) or in JSON (about 15 bytes per byte).
inline constexpr std::size_t kMaxYamlTextBytes = std::size_t{32} << 20;

}  // namespace schedhost
