// What a validator child does (`schedhost validate --plugin FILE --child ...`, never typed by a
// user): loads the library with the loader's checks, then either lists its plugins or checks one
// of them, writing protocol lines to fd. The parent decides everything from those lines and from
// how the child ended.
#pragma once

#include <string>

namespace schedhost::validator {

struct ChildRequest {
  std::string plugin_file;
  std::string plugin_name;  // empty: list the plugins
  std::string args_json = "{}";
};

// Never returns: ends the process with _exit(0), so that no plugin static destructor runs
// after "done" (a crash there would be blamed on nothing).
[[noreturn]] void run_child_request(const ChildRequest& request, int fd);

}  // namespace schedhost::validator
