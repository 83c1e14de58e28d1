// The plugin name rule, shared by the loader and the profile validation.
#pragma once

#include <string_view>

namespace schedhost {

inline constexpr std::string_view kPluginNamePattern = "^[a-zA-Z][a-zA-Z0-9]*$";

// True when name matches ^[a-zA-Z][a-zA-Z0-9]*$ (ASCII only, as upstream's registry expects).
bool is_valid_plugin_name(std::string_view name);

}  // namespace schedhost
