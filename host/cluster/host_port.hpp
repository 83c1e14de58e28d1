// Host ports: what a pod asks for and what a node's pods already hold.
#pragma once

#include <compare>
#include <cstdint>
#include <string>

namespace schedhost::cluster {

inline constexpr const char* kBindAllHostIP = "0.0.0.0";

// One container port with hostPort > 0, sanitized like upstream: hostIP "" -> "0.0.0.0",
// protocol "" -> "TCP".
struct HostPort {
  std::string host_ip = kBindAllHostIP;
  std::string protocol = "TCP";
  int32_t port = 0;

  // NOLINTNEXTLINE(modernize-use-nullptr): clang-tidy 14 misreads the defaulted comparison
  auto operator<=>(const HostPort&) const = default;
};

// Upstream HostPortInfo.CheckConflict for one used entry: same protocol and port, and either IP is
// 0.0.0.0 or the IPs are equal. A port <= 0 never conflicts.
bool host_ports_conflict(const HostPort& wanted, const HostPort& used);

}  // namespace schedhost::cluster
