// A look at a file's ELF header before dlopen: so "not a plugin at all" and "built for another
// machine" get their own clear errors instead of a dlerror() text, and no code in it runs.
#pragma once

#include <string>

namespace schedhost::loader {

// Empty when path is an ELF shared object for this machine; otherwise why not (one phrase).
std::string check_elf_shared_object(const std::string& path);

}  // namespace schedhost::loader
