// Objects of a kind schedhost does not model are kept as read and counted for nothing; never
// dropped silently: each such kind gets one warning line that says how many there are, where the
// first is, and what schedhost does without them (kube-scheduler would use some of them).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "cluster/cluster.hpp"

namespace schedhost::cluster {

// One line per kind, in the order the kinds first appear: "FILE:LINE:COL: 2 StorageClasses (the
// first "fast") are not modelled by schedhost and counted for nothing: <what is missing>".
std::vector<std::string> ignored_kind_warnings(const std::vector<IgnoredObject>& ignored);

// What kube-scheduler would do with a modelled kind that schedhost reads but does not act on in
// full yet, or "" when nothing is missing: the claims and classes VolumeBinding would bind.
std::string missing_use(std::string_view kind);

// One line per such kind, as ignored_kind_warnings: "FILE:LINE:COL: 2 PersistentVolumeClaims
// (the first "data") are read, but <what is missing>".
std::vector<std::string> partly_used_kind_warnings(const std::vector<IgnoredObject>& partly_used);

}  // namespace schedhost::cluster
