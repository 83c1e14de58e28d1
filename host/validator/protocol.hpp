// The lines a validator child writes to its parent, one write() each so that they arrive whole
// even when the child dies right after:
//   call <what>                                 progress: about to call a plugin function
//   check PASS|FAIL <plugin> <check> <detail>   one result (tab-separated)
//   plugin <name>                               list mode: a plugin of the library
//   load-error <message>                        the loader refused the library
//   done                                        the child finished on purpose
// The parent reads "call" lines to name the hook that crashed or hung.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace schedhost::validator {

struct CheckResult {
  bool pass = false;
  std::string plugin;
  std::string check;
  std::string detail;
};

// The child's end: writes to fd, which the parent reads.
class ChildChannel {
 public:
  explicit ChildChannel(int fd) : fd_(fd) {}
  void progress(std::string_view what) const;
  void check(const CheckResult& result) const;
  void plugin(std::string_view name) const;
  void load_error(std::string_view message) const;
  void done() const;

 private:
  void send(std::string_view kind, std::string_view payload) const;
  int fd_;
};

struct ChildLine {
  std::string kind;  // "call", "check", "plugin", "load-error" or "done"
  std::string payload;
};

ChildLine parse_child_line(std::string_view line);
// A "check" payload; nullopt when malformed.
std::optional<CheckResult> parse_check(std::string_view payload);

}  // namespace schedhost::validator
