// The API server's own count of the requests it served, from its /metrics.
#pragma once

#include <map>
#include <string>
#include <string_view>

namespace schedhost_live_bench {

// apiserver_request_total summed per "VERB resource[/subresource]" (every code, scope and
// component), from a Prometheus text exposition. A request is counted once it has been
// answered, so a watch still open is not.
using RequestCounts = std::map<std::string, double>;
RequestCounts count_apiserver_requests(std::string_view exposition);

double total(const RequestCounts& counts);
// after - before, key by key, leaving out keys that did not change.
RequestCounts difference(const RequestCounts& after, const RequestCounts& before);

}  // namespace schedhost_live_bench
