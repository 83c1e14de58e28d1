// The cluster `schedhost validate --plugin` drives plugins against: a few nodes with labels,
// taints, images and resources, pods already running on them, and pending pods of several shapes
// (plain, with requests, selectors, tolerations, affinity, anti-affinity, ports, priorities).
#pragma once

#include "cluster/cluster.hpp"

namespace schedhost::validator {

// Parsed by the host's own cluster parser, so plugins see exactly what `run` would give them.
cluster::Cluster generated_cluster();

}  // namespace schedhost::validator
