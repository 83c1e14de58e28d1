// The Node objects of recent Nodes requests (nodeCacheCapable: false), by their exact text.
// kube-scheduler sends every feasible node in every request, and a node's JSON only changes when
// the node does, so a request's nodes are mostly found here: hashed and compared, not parsed and
// built again. Nodes no request has sent for kKeptRequests requests are dropped.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "cluster/node.hpp"

namespace schedhost::extender {

class NodeObjectCache {
 public:
  static constexpr std::uint64_t kKeptRequests = 4;

  // The Node of each text (one request's NodeList.items, in order): found, or parsed and built.
  // Throws ProtocolError naming items[i] when a new text is not JSON or the model refuses the
  // node. Thread-safe.
  std::vector<std::shared_ptr<const cluster::Node>> nodes(
      const std::vector<std::string_view>& texts);

  std::size_t size() const;

 private:
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  struct Entry {
    std::shared_ptr<const cluster::Node> node;
    std::uint64_t last_request = 0;
  };
  mutable std::mutex mutex_;
  std::unordered_map<std::string, Entry, Hash, std::equal_to<>> entries_;
  std::uint64_t request_ = 0;
};

}  // namespace schedhost::extender
