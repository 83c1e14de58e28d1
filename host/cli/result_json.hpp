// `schedhost run -o json`: the run result as the JSON document of DESIGN.md "Output (-o json)".
#pragma once

#include <nlohmann/json.hpp>

#include <ostream>

#include "scheduler/run_result.hpp"

namespace schedhost::cli {

// {"pods": [{"pod", "profile", "result", "node", "message"[, "explain"]}...], "summary": {...}},
// keys in that order. "explain" only when the pod has one; in it, nodes keep the snapshot order,
// a filter verdict leaves out an empty "plugin" and empty "reasons", and "scores"/"total" appear
// only for a node that was scored. Every string is valid UTF-8 (see valid_utf8).
nlohmann::ordered_json result_to_json(const scheduler::RunResult& result);

// result_to_json(result), indented by 2, and a newline.
void write_json(const scheduler::RunResult& result, std::ostream& out);

}  // namespace schedhost::cli
