// The metrics part of the host API table. Ids come from the plugin's own PluginHost (filled when
// its instance was made), so a plugin finds only what it declared; recording goes straight to the
// process's PluginMetrics, without a lock, from whichever thread runs the hook.
#include <cstdint>
#include <string_view>

#include "framework/abi_string.hpp"
#include "framework/host_api_metrics.hpp"
#include "framework/plugin_host.hpp"
#include "framework/plugin_metrics.hpp"

namespace schedhost::framework {
namespace {

// -1 for a NULL host, a library's host (it declares no metric) and an undeclared name. Any
// thread.
int32_t metric_id(const schedhost_host_t* host, schedhost_str_t name) {
  if (host == nullptr) return -1;
  const std::string_view wanted = view(name);
  for (const auto& [declared, id] : PluginHost::from(host).metric_ids) {
    if (declared == wanted) return id;
  }
  return -1;
}

// Any thread; lock-free.
void metric_record(const schedhost_host_t* host, int32_t id, double value) {
  if (host != nullptr) PluginMetrics::instance().record(id, value);
}

}  // namespace

void fill_metric_functions(schedhost_host_api_t& table) {
  table.metric_id = &metric_id;
  table.metric_record = &metric_record;
}

}  // namespace schedhost::framework
