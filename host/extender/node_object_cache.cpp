#include "extender/node_object_cache.hpp"

#include "cluster/object_error.hpp"
#include "extender/extender_protocol.hpp"

namespace schedhost::extender {
namespace {

std::shared_ptr<const cluster::Node> build(std::string_view text, std::size_t index) {
  const std::string where = "ExtenderArgs.Nodes.items[" + std::to_string(index) + "]";
  nlohmann::json object = parse_member(text, where);
  try {
    return std::make_shared<const cluster::Node>(std::move(object));
  } catch (const cluster::ObjectError& e) {
    throw ProtocolError(where + ": " + e.what());
  }
}

}  // namespace

std::vector<std::shared_ptr<const cluster::Node>> NodeObjectCache::nodes(
    const std::vector<std::string_view>& texts) {
  std::lock_guard lock(mutex_);
  const std::uint64_t request = ++request_;
  std::vector<std::shared_ptr<const cluster::Node>> out;
  out.reserve(texts.size());
  for (std::size_t i = 0; i < texts.size(); ++i) {
    auto it = entries_.find(texts[i]);
    if (it == entries_.end())
      it = entries_.emplace(std::string(texts[i]), Entry{build(texts[i], i), 0}).first;
    it->second.last_request = request;
    out.push_back(it->second.node);
  }
  if (request % kKeptRequests == 0) {
    std::erase_if(entries_, [request](const auto& entry) {
      return request - entry.second.last_request >= kKeptRequests;
    });
  }
  return out;
}

std::size_t NodeObjectCache::size() const {
  std::lock_guard lock(mutex_);
  return entries_.size();
}

}  // namespace schedhost::extender
