#include "cluster/host_port.hpp"

namespace schedhost::cluster {

bool host_ports_conflict(const HostPort& wanted, const HostPort& used) {
  if (wanted.port <= 0 || wanted.port != used.port || wanted.protocol != used.protocol) {
    return false;
  }
  return wanted.host_ip == kBindAllHostIP || used.host_ip == kBindAllHostIP ||
         wanted.host_ip == used.host_ip;
}

}  // namespace schedhost::cluster
