#include "common/typed_args.hpp"

#include "common/input_error.hpp"

namespace schedhost {

std::string typed_args_text(std::string_view args_json, std::string_view plugin_name) {
  typed_args::TextResult r = typed_args::check_and_strip_text(args_json, plugin_name);
  if (r.problem) {
    throw InputError("plugin \"" + std::string(plugin_name) + "\": args: " + r.problem->message);
  }
  return std::move(r.text);
}

}  // namespace schedhost
