// Fixed UTC instants for the tests' clocks.
#pragma once

#include <chrono>

namespace schedhost::testing {

inline std::chrono::system_clock::time_point utc(int y, unsigned mo, unsigned d, int h, int mi,
                                                 int s, long long ns = 0) {
  using namespace std::chrono;
  return sys_days{year{y} / month{mo} / day{d}} + hours{h} + minutes{mi} + seconds{s} +
         nanoseconds{ns};
}

}  // namespace schedhost::testing
