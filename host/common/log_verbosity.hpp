// klog's -v for the lines spdlog's levels cannot tell apart: -v 2 adds one info line per
// scheduled pod, as kube-scheduler's V(2) does. Set once by main(); read anywhere.
#pragma once

#include <atomic>

namespace schedhost {

inline std::atomic<int>& log_verbosity() {
  static std::atomic<int> v{0};
  return v;
}

}  // namespace schedhost
