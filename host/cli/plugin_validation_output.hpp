// How `schedhost validate --plugin` prints its results: one line per check, as a table
// (RESULT PLUGIN CHECK DETAIL, then a summary line) or as JSON.
#pragma once

#include <ostream>
#include <string>

#include "validator/plugin_validation.hpp"

namespace schedhost::cli {

void print_validation_table(const validator::ValidationReport& report, std::ostream& out);
void print_validation_json(const std::string& plugin_file,
                           const validator::ValidationReport& report, std::ostream& out);

}  // namespace schedhost::cli
