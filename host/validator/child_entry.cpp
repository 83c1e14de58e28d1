#include "validator/child_entry.hpp"

#include <unistd.h>

#include "cluster/object_kinds.hpp"
#include "loader/library_loader.hpp"
#include "validator/plugin_checks.hpp"
#include "validator/protocol.hpp"
#include "validator/user_objects.hpp"

namespace schedhost::validator {

void run_child_request(const ChildRequest& request, int fd) {
  const ChildChannel channel(fd);
  channel.progress("loading the library (its static constructors and init())");
  loader::OpenResult opened = loader::open_library(request.plugin_file);
  if (!opened.library) {
    channel.load_error(opened.error);
    channel.done();
    ::_exit(0);
  }
  const loader::LoadedLibrary& library = opened.library->info;
  if (request.plugin_name.empty()) {
    for (const loader::PluginDefinition& p : library.plugins)
      channel.plugin(p.name);
  } else {
    for (const loader::PluginDefinition& p : library.plugins) {
      if (p.name != request.plugin_name) continue;
      PluginCheckOptions options;
      options.args_json = request.args_json;
      // Only the SDK's exception barrier turns an exception into an Error status.
      options.cpp_sdk = library.build_info.rfind("schedhost C++ SDK", 0) == 0;
      // The resources it declared (ABI 1.9) are the cluster file's objects too.
      for (const library_rules::ResourceDecl& resource : p.resources)
        cluster::declare_object_kind(resource, p.name);
      if (!request.cluster_file.empty() || !request.pod_files.empty()) {
        options.user_objects = read_user_objects(request.cluster_file, request.pod_files);
      }
      check_plugin(p, options, channel);
    }
  }
  if (library.deinit != nullptr) {
    channel.progress("library \"" + library.name + "\" deinit()");
    library.deinit();
  }
  channel.done();
  ::_exit(0);
}

}  // namespace schedhost::validator
