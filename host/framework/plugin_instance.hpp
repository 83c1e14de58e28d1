// PluginInstance: one plugin created for one profile with its args; destroyed exactly once.
#pragma once

#include <schedhost/abi.h>

#include <memory>
#include <string>
#include <string_view>

#include "framework/plugin_host.hpp"
#include "loader/plugin_definition.hpp"

namespace schedhost::framework {

class PluginInstance {
 public:
  // Calls the plugin's create() with args as compact JSON ("{}" when the profile gives none),
  // without upstream's apiVersion and kind (common/typed_args.hpp). Throws InputError
  // `plugin "Name": <its reason>` when the plugin refuses, or `plugin "Name": args: ...` for a
  // kind that is not "<Name>Args".
  static std::unique_ptr<PluginInstance> create(const loader::PluginDefinition& definition,
                                                std::string_view args_json);
  ~PluginInstance();
  PluginInstance(const PluginInstance&) = delete;
  PluginInstance& operator=(const PluginInstance&) = delete;

  const std::string& name() const { return definition_.name; }
  const loader::PluginDefinition& definition() const { return definition_; }
  const schedhost_plugin_vtable_t& vtable() const { return definition_.vtable; }
  void* self() const { return self_; }

 private:
  explicit PluginInstance(const loader::PluginDefinition& definition);

  const loader::PluginDefinition& definition_;
  PluginHost host_;  // must outlive self_: the plugin may keep the handle
  void* self_ = nullptr;
  bool created_ = false;
};

}  // namespace schedhost::framework
