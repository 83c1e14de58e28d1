// schedhost/detail/typed_args.hpp - upstream-style typed plugin args, the host's rule.
//
// kube-scheduler reads pluginConfig[].args as the object `<PluginName>Args` of group
// kubescheduler.config.k8s.io: `apiVersion` and `kind` may be written inside args, the decoder
// refuses another kind (or group), and the plugin gets its args without them. schedhost does the
// same for every plugin; this one copy is used by the host and by the SDK's FakeHost, so a plugin
// sees in its unit tests exactly the args it gets in a cluster. Header-only C++17 on nlohmann/json.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace schedhost::typed_args {

inline constexpr std::string_view kGroup = "kubescheduler.config.k8s.io";

struct Problem {
  std::string field;    // "apiVersion" or "kind": where the problem is
  std::string message;  // "kind \"Foo\" does not match plugin ...: write kind: XArgs, or ..."
};

// The kind of plugin_name's args: "<PluginName>Args".
inline std::string args_kind(std::string_view plugin_name) {
  return std::string(plugin_name) + "Args";
}

namespace detail {
inline bool known_api_version(const std::string& value) {
  return value == std::string(kGroup) + "/v1" || value == std::string(kGroup) + "/v1beta3";
}
inline std::string describe(const nlohmann::json& value) {
  if (value.is_string()) return "\"" + value.get<std::string>() + "\"";
  return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}
}  // namespace detail

// Nothing when args (an object; anything else is the plugin's to judge) has no apiVersion and
// no kind, or ones that fit plugin_name: kind "<PluginName>Args", apiVersion
// kubescheduler.config.k8s.io/v1 or /v1beta3.
inline std::optional<Problem> check(const nlohmann::json& args, std::string_view plugin_name) {
  if (!args.is_object()) return std::nullopt;
  const std::string group(kGroup);
  if (auto it = args.find("apiVersion"); it != args.end() && !it->is_null()) {
    if (!it->is_string() || !detail::known_api_version(it->get<std::string>())) {
      return Problem{"apiVersion", "apiVersion " + detail::describe(*it) + " is not " + group +
                                       "/v1 or " + group + "/v1beta3: write apiVersion: " + group +
                                       "/v1, or leave apiVersion out"};
    }
  }
  if (auto it = args.find("kind"); it != args.end() && !it->is_null()) {
    const std::string kind = args_kind(plugin_name);
    if (!it->is_string() || it->get<std::string>() != kind) {
      return Problem{"kind", "kind " + detail::describe(*it) + " does not match plugin \"" +
                                 std::string(plugin_name) + "\", whose args are " + kind +
                                 ": write kind: " + kind + ", or leave kind out"};
    }
  }
  return std::nullopt;
}

// Removes apiVersion and kind from args when it is an object.
inline void strip(nlohmann::json& args) {
  if (!args.is_object()) return;
  args.erase("apiVersion");
  args.erase("kind");
}

// For args as JSON text: the text without apiVersion and kind, or the problem with them. Text
// that is not a JSON object, or has neither field, comes back as it was, for the plugin to judge.
struct TextResult {
  std::string text;
  std::optional<Problem> problem;
};
inline TextResult check_and_strip_text(std::string_view args_json, std::string_view plugin_name) {
  nlohmann::json args = nlohmann::json::parse(args_json, nullptr, false);
  if (args.is_discarded() || !args.is_object()) return {std::string(args_json), std::nullopt};
  if (!args.contains("apiVersion") && !args.contains("kind")) {
    return {std::string(args_json), std::nullopt};
  }
  if (auto problem = check(args, plugin_name)) return {std::string(args_json), problem};
  strip(args);
  return {args.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), std::nullopt};
}

}  // namespace schedhost::typed_args
