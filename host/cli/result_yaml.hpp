// `schedhost run -o yaml`: the same document as -o json (result_to_json), as block-style YAML.
#pragma once

#include <ostream>

#include "scheduler/run_result.hpp"

namespace schedhost::cli {

// Keys in the JSON order; empty lists and mappings as [] and {}; a string that a YAML reader would
// take for something else (true, 123, null, yes, ...) is double-quoted, so it reads back as text.
void write_yaml(const scheduler::RunResult& result, std::ostream& out);

}  // namespace schedhost::cli
