// What the API server writes into a pod when it is created, applied to the pods of a cluster
// file (which never went through one) so that `run` decides on the objects `serve` would see.
#pragma once

#include <nlohmann/json.hpp>

namespace schedhost::cluster {

// Pod (anti-)affinity terms' matchLabelKeys and mismatchLabelKeys merged into their
// labelSelector, as v1.35's API server does at creation (MatchLabelKeysInPodAffinity, GA in
// 1.33): for each key the pod has a label for, `key In (value)` or `key NotIn (value)`. A term
// without a labelSelector matches nothing and is left alone; a requirement already there (a pod
// exported from a cluster) is not added twice. Malformed fields are left for validation to report.
void merge_affinity_label_keys(nlohmann::json& pod);

}  // namespace schedhost::cluster
