// Upstream-style typed plugin args (apiVersion and kind inside pluginConfig[].args): the rule is
// the SDK's (schedhost/detail/typed_args.hpp), shared with its fake host. The profile parser
// (which knows where the field is written) and PluginInstance::create (args from anywhere else:
// `exercise --args`, `validate --plugin --args`, tests) both apply it.
#pragma once

#include <schedhost/detail/typed_args.hpp>

#include <string>
#include <string_view>

namespace schedhost {

using TypedArgsProblem = typed_args::Problem;
using typed_args::args_kind;

inline std::optional<TypedArgsProblem> check_typed_args(const nlohmann::json& args,
                                                        std::string_view plugin_name) {
  return typed_args::check(args, plugin_name);
}
inline void strip_typed_args(nlohmann::json& args) {
  typed_args::strip(args);
}

// For args as JSON text: checks them (throws InputError `plugin "X": args: <message>`) and
// returns them without apiVersion and kind. Text that is not a JSON object comes back as it
// was, for the plugin to refuse.
std::string typed_args_text(std::string_view args_json, std::string_view plugin_name);

}  // namespace schedhost
