// What the loader found: installed plugin name -> the extension points the plugin implements.
// The resolver needs nothing else from the loader, so this keeps config/ independent of loader/.
#pragma once

#include <functional>
#include <map>
#include <string>

#include "framework/extension_point.hpp"

namespace schedhost::config {

using PluginCatalog = std::map<std::string, ExtensionPointSet, std::less<>>;

}  // namespace schedhost::config
