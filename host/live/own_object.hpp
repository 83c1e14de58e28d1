// The object a scheduler's events about itself are attached to (`kubectl describe` shows them
// there): its own Pod, named by the downward API's POD_NAME and POD_NAMESPACE, else its Lease
// when it elects a leader.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>

#include "kube/api_client.hpp"
#include "live/connection.hpp"

namespace schedhost::live {

// The object as the API server has it (for its uid), or just its kind, namespace and name when
// it cannot be read; null when there is neither a Pod nor a Lease to name.
nlohmann::json own_object(kube::ApiClient& client, const std::optional<LeaseLock>& lease);

}  // namespace schedhost::live
