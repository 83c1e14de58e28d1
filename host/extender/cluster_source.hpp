// Where the extender's nodes and the pods on them come from between requests: the API server's
// informers (NodeCache) in a deployment, a fixed snapshot in tests.
#pragma once

#include "cluster/snapshot.hpp"

namespace schedhost::extender {

class ClusterSource {
 public:
  virtual ~ClusterSource() = default;
  // The cluster as it is now. Called by one thread at a time (the service's lock); the snapshot
  // is read only until the next call.
  virtual cluster::Snapshot& refresh() = 0;
};

}  // namespace schedhost::extender
