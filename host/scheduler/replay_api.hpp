// ReplayApi: plugins' api_request in `schedhost run`. There is no API server: a request on a
// resource a plugin declared (ABI 1.9) is applied to the run's own objects, as the API server
// would apply it (schedhost/detail/object_writes.hpp), so that later cycles see a PodGroup's new
// status; anything else is answered SKIP, as in ABI 1.8 (nothing sent, the plugin acts as if the
// write was made).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cluster/api_object.hpp"
#include "cluster/snapshot.hpp"
#include "framework/api_access.hpp"
#include "scheduler/run_result.hpp"

namespace schedhost::scheduler {

class ReplayApi : public framework::ApiAccess {
 public:
  // snapshot must outlive this; the replay calls from its one thread.
  explicit ReplayApi(cluster::Snapshot& snapshot) : snapshot_(snapshot) {}

  std::optional<Reply> request(std::string_view verb, std::string_view path,
                               std::string_view content_type, std::string_view body) override;

  // Every object the writes created, changed or deleted, as they left it, by resource and key.
  std::vector<WrittenObject> written() const;

 private:
  void put(const cluster::ObjectKind& kind, nlohmann::json object);
  void remove(const cluster::ObjectKind& kind, std::string_view ns, std::string_view name);

  cluster::Snapshot& snapshot_;
  std::uint64_t version_ = 0;  // resourceVersions and uids of what the run writes
  // Every object a write replaced: a plugin may still hold its handle until its hook returns.
  std::vector<std::shared_ptr<const cluster::ApiObject>> retired_;
  // (resource, key) of every object written; its state is read from the snapshot at the end.
  std::set<std::pair<std::string, std::string>> touched_;
};

}  // namespace schedhost::scheduler
