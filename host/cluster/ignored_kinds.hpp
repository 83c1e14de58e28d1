// Objects of a kind schedhost does not model are kept as read and counted for nothing; never
// dropped silently: each such kind gets one warning line that says how many there are, where the
// first is, and what schedhost does without them (kube-scheduler would use some of them).
#pragma once

#include <string>
#include <vector>

#include "cluster/cluster.hpp"

namespace schedhost::cluster {

// One line per kind, in the order the kinds first appear: "FILE:LINE:COL: 2 StorageClasses (the
// first "fast") are not modelled by schedhost and counted for nothing: <what is missing>".
std::vector<std::string> ignored_kind_warnings(const std::vector<IgnoredObject>& ignored);

}  // namespace schedhost::cluster
