// Threads named after their part of the host, so that `top -H`, `ps -L` and perf's comm column
// say which one spends the CPU (Linux keeps 15 bytes of a name).
#pragma once

#include <string_view>

namespace schedhost {

// Names the calling thread "sh-<part>", cut to 15 bytes. Best effort: a failure is ignored.
void name_this_thread(std::string_view part);

}  // namespace schedhost
