// Reading a whole input file (profile, cluster, pod, args) into memory, within a size limit.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace schedhost {

// The file's bytes, or nullopt when it cannot be opened (errno tells why; callers word that
// message themselves). Throws InputError "file: the file is N MiB, more than the 256 MiB
// schedhost reads: <fix>" above kMaxInputFileBytes, before reading anything.
std::optional<std::string> read_input_file(const std::filesystem::path& path, std::string_view fix);

}  // namespace schedhost
