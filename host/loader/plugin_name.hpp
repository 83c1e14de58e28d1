// The plugin name rule, shared by the loader, the profile validation and the SDK's fake host.
#pragma once

#include <schedhost/detail/library_rules.hpp>

namespace schedhost {

using library_rules::is_valid_plugin_name;
using library_rules::kPluginNamePattern;

}  // namespace schedhost
