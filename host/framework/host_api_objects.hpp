// The pod, node and snapshot accessors of the host API table, over the cluster model.
#pragma once

#include <schedhost/abi.h>

namespace schedhost::framework {

// Sets every pod_*, node_*, snapshot_* and namespace_* function of table.
void fill_object_accessors(schedhost_host_api_t& table);

}  // namespace schedhost::framework
