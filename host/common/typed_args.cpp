#include "common/typed_args.hpp"

#include "common/input_error.hpp"

namespace schedhost {
namespace {

constexpr std::string_view kGroup = "kubescheduler.config.k8s.io";

bool known_api_version(const std::string& value) {
  return value == std::string(kGroup) + "/v1" || value == std::string(kGroup) + "/v1beta3";
}

std::string describe(const nlohmann::json& value) {
  if (value.is_string()) return "\"" + value.get<std::string>() + "\"";
  return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

std::string args_kind(std::string_view plugin_name) {
  return std::string(plugin_name) + "Args";
}

std::optional<TypedArgsProblem> check_typed_args(const nlohmann::json& args,
                                                 std::string_view plugin_name) {
  if (!args.is_object()) return std::nullopt;
  if (auto it = args.find("apiVersion"); it != args.end() && !it->is_null()) {
    if (!it->is_string() || !known_api_version(it->get<std::string>())) {
      return TypedArgsProblem{"apiVersion",
                              "apiVersion " + describe(*it) + " is not " + std::string(kGroup) +
                                  "/v1 or " + std::string(kGroup) + "/v1beta3: write apiVersion: " +
                                  std::string(kGroup) + "/v1, or leave apiVersion out"};
    }
  }
  if (auto it = args.find("kind"); it != args.end() && !it->is_null()) {
    const std::string kind = args_kind(plugin_name);
    if (!it->is_string() || it->get<std::string>() != kind) {
      return TypedArgsProblem{"kind", "kind " + describe(*it) + " does not match plugin \"" +
                                          std::string(plugin_name) + "\", whose args are " + kind +
                                          ": write kind: " + kind + ", or leave kind out"};
    }
  }
  return std::nullopt;
}

void strip_typed_args(nlohmann::json& args) {
  if (!args.is_object()) return;
  args.erase("apiVersion");
  args.erase("kind");
}

std::string typed_args_text(std::string_view args_json, std::string_view plugin_name) {
  nlohmann::json args = nlohmann::json::parse(args_json, nullptr, false);
  if (args.is_discarded() || !args.is_object()) return std::string(args_json);
  if (!args.contains("apiVersion") && !args.contains("kind")) return std::string(args_json);
  if (auto problem = check_typed_args(args, plugin_name)) {
    throw InputError("plugin \"" + std::string(plugin_name) + "\": args: " + problem->message);
  }
  strip_typed_args(args);
  return args.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace schedhost
