// DefaultBinder: upstream's default Bind plugin. Its Success approves the binding, which the host
// writes: into the snapshot in `run`, as POST pods/<name>/binding in `serve` (upstream's
// DefaultBinder posts it through its own client; a .so has no API client).
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
                  schedhost::plugin<DefaultBinder, schedhost::hook::Bind>(
                      "DefaultBinder", "Binds the pod to the selected node"))
