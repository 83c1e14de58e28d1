// PrioritySort: upstream's default QueueSort. Higher spec.priority first; among equals, the pod
// that entered the queue first.
#include <schedhost/plugin.hpp>

namespace {

class PrioritySort {
 public:
  bool Less(const schedhost::QueuedPod& a, const schedhost::QueuedPod& b) const {
    const auto pa = a.pod.priority();
    const auto pb = b.pod.priority();
    return pa > pb || (pa == pb && a.enqueued_ms < b.enqueued_ms);
  }
};

}  // namespace

SCHEDHOST_LIBRARY("priority-sort", "1.0.0",
                  schedhost::plugin<PrioritySort, schedhost::hook::QueueSort>(
                      "PrioritySort", "Orders the queue by pod priority, then by arrival time"))
