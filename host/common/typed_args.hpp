// Upstream-style typed plugin args. kube-scheduler reads pluginConfig[].args as the object
// `<PluginName>Args` of group kubescheduler.config.k8s.io: `apiVersion` and `kind` may be written
// inside args, the decoder refuses another kind (or group), and the plugin gets its args without
// them. schedhost does the same for every plugin, built-in or not, in one place: the profile
// parser (which knows where the field is written) and PluginInstance::create (args from
// anywhere else: `exercise --args`, `validate --plugin --args`, tests) both call these.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace schedhost {

struct TypedArgsProblem {
  std::string field;    // "apiVersion" or "kind": where the problem is
  std::string message;  // "kind \"Foo\" does not match the plugin: write kind: XArgs, or ..."
};

// The kind of plugin_name's args: "<PluginName>Args".
std::string args_kind(std::string_view plugin_name);

// Nothing when args (an object; anything else is the plugin's to judge) has no apiVersion and
// no kind, or ones that fit plugin_name: kind "<PluginName>Args", apiVersion
// kubescheduler.config.k8s.io/v1 or /v1beta3.
std::optional<TypedArgsProblem> check_typed_args(const nlohmann::json& args,
                                                 std::string_view plugin_name);

// Removes apiVersion and kind from args when it is an object.
void strip_typed_args(nlohmann::json& args);

// For args as JSON text: checks them (throws InputError `plugin "X": args: <message>`) and
// returns them without apiVersion and kind. Text that is not a JSON object comes back as it
// was, for the plugin to refuse.
std::string typed_args_text(std::string_view args_json, std::string_view plugin_name);

}  // namespace schedhost
