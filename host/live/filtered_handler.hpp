// Upstream's FilteringResourceEventHandler, for informer handlers that want only some objects of
// a resource (assigned pods, pending pods of our profiles).
#pragma once

#include <functional>

#include <nlohmann/json.hpp>

#include "kube/informer.hpp"

namespace schedhost::live {

// Passes to h only the objects pass accepts: an update that leaves the filter is a delete, one
// that enters it an add, and a deletion passes when its last known state does. pass and h run
// on the informer's thread.
kube::InformerHandler filtered_handler(const std::function<bool(const nlohmann::json&)>& pass,
                                       const kube::InformerHandler& h);

}  // namespace schedhost::live
