#include "cluster/input_file.hpp"

#include <fstream>
#include <sstream>

#include "cluster/input_limits.hpp"
#include "common/input_error.hpp"

namespace schedhost {

std::optional<std::string> read_input_file(const std::filesystem::path& path,
                                           std::string_view fix) {
  std::error_code ec;
  const std::uintmax_t size = std::filesystem::file_size(path, ec);
  if (!ec && size > kMaxInputFileBytes) {
    throw InputError(source_location(path.string()) + ": the file is " +
                     std::to_string(size >> 20) + " MiB, more than the " +
                     std::to_string(kMaxInputFileBytes >> 20) +
                     " MiB schedhost reads: " + std::string(fix));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return std::move(text).str();
}

}  // namespace schedhost
