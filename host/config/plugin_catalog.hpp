// What the loader found: installed plugin name -> the extension points the plugin implements.
// The resolver needs nothing else from the loader, so this keeps config/ independent of loader/.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "common/plugin_search.hpp"
#include "framework/extension_point.hpp"

namespace schedhost::config {

using PluginCatalog = std::map<std::string, ExtensionPointSet, std::less<>>;

// Where the catalog's plugins came from, for messages only: the directories searched, in order,
// and each plugin's library file. Empty when unknown (the messages then leave it out).
struct PluginOrigins {
  std::vector<SearchedDirectory> searched;
  std::map<std::string, std::string, std::less<>> files;  // plugin name -> library file
};

}  // namespace schedhost::config
