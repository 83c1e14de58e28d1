// The API server's own count of the requests it served, from its /metrics.
#pragma once

#include <string_view>

namespace schedhost_live_bench {

// The sum of every apiserver_request_total series (all verbs, resources, codes) in a Prometheus
// text exposition. A request is counted once it has been answered, so a watch still open is not.
double sum_apiserver_requests(std::string_view exposition);

}  // namespace schedhost_live_bench
