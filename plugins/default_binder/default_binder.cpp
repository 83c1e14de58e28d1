// DefaultBinder: upstream's default Bind plugin. Upstream posts a Binding to the API server;
// schedhost replays a snapshot, so binding succeeds and the host records the pod on the node.
#include <schedhost/plugin.hpp>

namespace {

class DefaultBinder {
 public:
  schedhost::Status Bind(schedhost::Context&, schedhost::CycleState&, const schedhost::Pod&,
                         std::string_view) {
    return schedhost::Status::Success();
  }
};

}  // namespace

SCHEDHOST_LIBRARY("default-binder", "1.0.0",
                  schedhost::plugin<DefaultBinder>("DefaultBinder",
                                                   "Binds the pod to the selected node"))
