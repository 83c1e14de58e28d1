#include "validator/protocol.hpp"

#include <unistd.h>

#include <cerrno>
#include <vector>

namespace schedhost::validator {
namespace {

// Tabs separate fields and newlines end lines: neither may appear inside one.
std::string flat(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c == '\t' || c == '\n' || c == '\r') c = ' ';
  }
  return out;
}

std::vector<std::string> split_tabs(std::string_view s) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (std::size_t at = s.find('\t'); at != std::string_view::npos; at = s.find('\t', start)) {
    parts.emplace_back(s.substr(start, at - start));
    start = at + 1;
  }
  parts.emplace_back(s.substr(start));
  return parts;
}

}  // namespace

void ChildChannel::send(std::string_view kind, std::string_view payload) const {
  const std::string line = std::string(kind) + "\t" + std::string(payload) + "\n";
  std::size_t done = 0;
  while (done < line.size()) {
    const ssize_t n = ::write(fd_, line.data() + done, line.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // the parent is gone: nothing left to tell
    done += static_cast<std::size_t>(n);
  }
}

void ChildChannel::progress(std::string_view what) const {
  send("call", flat(what));
}

void ChildChannel::check(const CheckResult& r) const {
  send("check", std::string(r.pass ? "PASS" : "FAIL") + "\t" + flat(r.plugin) + "\t" +
                    flat(r.check) + "\t" + flat(r.detail));
}

void ChildChannel::plugin(std::string_view name) const {
  send("plugin", flat(name));
}

void ChildChannel::load_error(std::string_view message) const {
  send("load-error", flat(message));
}

void ChildChannel::done() const {
  send("done", "");
}

ChildLine parse_child_line(std::string_view line) {
  const std::size_t tab = line.find('\t');
  if (tab == std::string_view::npos) return {std::string(line), {}};
  return {std::string(line.substr(0, tab)), std::string(line.substr(tab + 1))};
}

std::optional<CheckResult> parse_check(std::string_view payload) {
  const std::vector<std::string> f = split_tabs(payload);
  if (f.size() != 4 || (f[0] != "PASS" && f[0] != "FAIL")) return std::nullopt;
  return CheckResult{f[0] == "PASS", f[1], f[2], f[3]};
}

}  // namespace schedhost::validator
