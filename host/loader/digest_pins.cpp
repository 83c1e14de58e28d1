#include "loader/digest_pins.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>

#include "common/input_error.hpp"
#include "loader/file_trust.hpp"

namespace schedhost::loader {
namespace {

constexpr std::size_t kMaxFileSize = 1 << 20;  // a line per plugin: far below this
constexpr std::size_t kHexDigits = 64;

struct FdCloser {
  int fd;
  ~FdCloser() { ::close(fd); }
};

bool is_blank(std::string_view line) {
  for (char c : line) {
    if (c != ' ' && c != '\t') return false;
  }
  return true;
}

bool is_comment(std::string_view line) {
  const auto first = line.find_first_not_of(" \t");
  return first != std::string_view::npos && line[first] == '#';
}

bool is_hex(std::string_view s) {
  for (char c : s) {
    if (std::isxdigit(static_cast<unsigned char>(c)) == 0) return false;
  }
  return true;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

const DigestPin* DigestPins::find(std::string_view name) const {
  auto it = by_name.find(name);
  return it == by_name.end() ? nullptr : &it->second;
}

std::string DigestPins::where(const DigestPin& pin) const {
  return source_location(file, pin.line);
}

DigestPins parse_digest_pins(std::string_view text, const std::string& file) {
  DigestPins pins;
  pins.file = file;
  int number = 0;
  while (!text.empty()) {
    const auto end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    ++number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);  // CRLF files
    if (is_blank(line) || is_comment(line)) continue;

    const std::string at = source_location(file, number);
    // sha256sum's format: the digest, a space, then a space (text mode) or '*' (binary mode).
    if (line.size() <= kHexDigits + 2 || !is_hex(line.substr(0, kHexDigits)) ||
        line[kHexDigits] != ' ' || (line[kHexDigits + 1] != ' ' && line[kHexDigits + 1] != '*')) {
      throw InputError(at +
                       ": not a \"sha256  filename\" line: expected 64 hex digits, two spaces "
                       "and a file name, as sha256sum prints them");
    }
    const std::string_view name = line.substr(kHexDigits + 2);
    if (name.find('/') != std::string_view::npos || name.find('\\') != std::string_view::npos) {
      throw InputError(at + ": \"" + std::string(name) +
                       "\" is not a bare file name: list plugin files by name, as `sha256sum "
                       "*.so` prints them when run in the plugin directory");
    }
    auto [it, inserted] =
        pins.by_name.emplace(name, DigestPin{lower(line.substr(0, kHexDigits)), number});
    if (!inserted) {
      throw InputError(at + ": \"" + std::string(name) + "\" is listed twice (first at line " +
                       std::to_string(it->second.line) + "): keep one line per file");
    }
  }
  return pins;
}

DigestPins read_digest_pins(const std::string& file, bool allow_insecure,
                            std::vector<LoadWarning>& warnings) {
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) {
    throw InputError(file + ": cannot be read (" + std::strerror(errno) +
                     "): check the path given to --plugin-digests");
  }
  const FdCloser closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    throw InputError(file + ": not a regular file: give --plugin-digests a sha256sum file");
  }
  if (const auto distrust = check_trust(st, file)) {
    if (!allow_insecure) {
      throw InputError(file + ": " + refusal("use it as --plugin-digests", *distrust));
    }
    warnings.push_back(
        {file, override_warning("insecure --plugin-digests file", distrust->problem)});
  }
  std::string text(kMaxFileSize + 1, '\0');
  std::size_t size = 0;
  while (size < text.size()) {
    const ssize_t got = ::read(fd, text.data() + size, text.size() - size);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      throw InputError(file + ": cannot be read (" + std::strerror(errno) +
                       "): check the path given to --plugin-digests");
    }
    if (got == 0) break;
    size += static_cast<std::size_t>(got);
  }
  if (size > kMaxFileSize) {
    throw InputError(file +
                     ": larger than 1 MiB, too large for a --plugin-digests file: it holds one "
                     "line per plugin file");
  }
  text.resize(size);
  return parse_digest_pins(text, file);
}

}  // namespace schedhost::loader
