// The probe child's side. One write() per line, so that each arrives whole even when the child
// dies right after it:
//   library <i>            about to load library i
//   step <i> <step>        about to run that step of it ("its static constructors", "init()")
//   ok <i>                 loaded, described its plugins, and deinit() returned
//   refused <i> <message>  the loader's checks refused it (the same line the host would print)
//   done                   every library was probed
#include <unistd.h>

#include <cerrno>
#include <string>

#include "loader/library_loader.hpp"
#include "loader/load_probe.hpp"

namespace schedhost::loader {
namespace {

void send(int fd, std::string line) {
  line += '\n';
  std::size_t sent = 0;
  while (sent < line.size()) {
    const ssize_t n = ::write(fd, line.data() + sent, line.size() - sent);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) ::_exit(1);  // the parent is gone
    sent += static_cast<std::size_t>(n);
  }
}

std::string one_line(std::string text) {
  for (char& c : text) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return text;
}

}  // namespace

void run_probe_child(const std::vector<ProbeInput>& inputs, int fd) {
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const std::string index = std::to_string(i);
    send(fd, "library " + index);
    OpenResult opened = open_library(inputs[i].path, inputs[i].load_path, [&](const char* step) {
      send(fd, "step " + index + " " + step);
    });
    if (!opened.library) {
      send(fd, "refused " + index + " " + one_line(opened.error));
      continue;
    }
    if (opened.library->info.deinit != nullptr) {
      send(fd, "step " + index + " deinit()");
      opened.library->info.deinit();
    }
    send(fd, "ok " + index);
  }
  send(fd, "done");
  ::_exit(0);
}

}  // namespace schedhost::loader
