// A look at a file's ELF headers before dlopen, and before any child maps it: "not a plugin at
// all" and "built for another machine" get their own clear errors instead of a dlerror() text,
// and a file cut short (a copy into the volume still in progress) is refused from its headers
// alone: mapping a segment past the end of a file is a SIGBUS at first touch.
#pragma once

#include <string>

namespace schedhost::loader {

// Empty when path is a whole ELF shared object for this machine (its program headers, every
// segment and its section headers inside the file); otherwise why not (one phrase).
std::string check_elf_shared_object(const std::string& path);

}  // namespace schedhost::loader
