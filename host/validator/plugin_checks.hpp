// The child side of `schedhost validate --plugin`: drives one plugin of a loaded library through
// every hook it implements on the generated cluster (then on the author's own objects, if given),
// and reports one check per hook (and per
// property: create/destroy, QueueSort order, thread determinism, cycle-state values) to the
// parent. Before each call into the plugin it tells the parent which one, so that a crash or a
// hang can be blamed on it.
#pragma once

#include <optional>
#include <string>

#include "loader/plugin_definition.hpp"
#include "validator/protocol.hpp"
#include "validator/user_objects.hpp"

namespace schedhost::validator {

struct PluginCheckOptions {
  std::string args_json = "{}";  // what create() gets
  int threads = 8;               // for the concurrent Filter and Score rounds
  int rounds = 3;
  int create_cycles = 50;
  bool cpp_sdk = false;  // built with the C++ SDK: an Error may be a caught exception
  // --cluster / --pod: after the generated cluster, every hook runs again on these, and their
  // checks are named "<check> [<files>]".
  std::optional<UserObjects> user_objects;
};

void check_plugin(const loader::PluginDefinition& plugin, const PluginCheckOptions& options,
                  const ChildChannel& channel);

}  // namespace schedhost::validator
