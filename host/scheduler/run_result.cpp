#include "scheduler/run_result.hpp"

#include <string_view>

namespace schedhost::scheduler {

RunSummary RunResult::summary() const {
  RunSummary s;
  for (const PodResult& p : pods) {
    const std::string_view r = p.result;
    if (r == kScheduled) {
      ++s.scheduled;
    } else if (r == kSkipped) {
      ++s.skipped;
    } else if (r == kError) {
      ++s.errors;
    } else if (r == kPreempted) {
      ++s.preempted;
    } else {
      ++s.unschedulable;
    }
  }
  return s;
}

}  // namespace schedhost::scheduler
