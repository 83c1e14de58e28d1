// Parsing the API server's JSON into nlohmann trees, fast: the pod informer parses two watch
// events and one kept text for every pod it sees, and nlohmann's own parser was most of that
// thread's time (18 us for a 1.7 KB pod event against 9 us this way; `make bench`,
// BM_PodEvent_*, docs/benchmarks.md). simdjson reads the text (its DOM, runtime-dispatched to
// the CPU's SIMD) and the tree is built from that; the tree is the same nlohmann's parse() makes.
#pragma once

#include <nlohmann/json.hpp>
#include <string_view>

namespace schedhost::kube {

// nlohmann::json::parse(text, nullptr, false): the tree, or a discarded value when text is not
// one JSON value. Non-negative integers are unsigned, as nlohmann makes them (but for -0, read
// as an unsigned 0 where nlohmann keeps it signed: the same value and text); what simdjson
// refuses that nlohmann accepts (integers past 64 bits, documents nested deeper than 1024) is
// given to nlohmann's parser. Thread-safe: a parser per thread, kept for texts up to 64 KB.
nlohmann::json parse_json(std::string_view text);

}  // namespace schedhost::kube
