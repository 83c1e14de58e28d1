// What a validator child does (`schedhost validate --plugin FILE --child ...`, never typed by a
// user): loads the library with the loader's checks, then either lists its plugins or checks one
// of them, writing protocol lines to fd. The parent decides everything from those lines and from
// how the child ended.
#pragma once

#include <string>
#include <vector>

namespace schedhost::validator {

struct ChildRequest {
  std::string plugin_file;
  std::string plugin_name;  // empty: list the plugins
  std::string args_json = "{}";
  std::string cluster_file;            // --cluster: the author's nodes (and pods)
  std::vector<std::string> pod_files;  // --pod: the author's pending pods
};

// Never returns: ends the process with _exit(0), so that no plugin static destructor runs
// after "done" (a crash there would be blamed on nothing).
[[noreturn]] void run_child_request(const ChildRequest& request, int fd);

}  // namespace schedhost::validator
