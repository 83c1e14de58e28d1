#include "cluster/ignored_kinds.hpp"

#include <map>
#include <string_view>

namespace schedhost::cluster {
namespace {

std::string plural(const std::string& kind) {
  if (kind.ends_with("s")) return kind + "es";                              // StorageClasses
  if (kind.ends_with("y")) return kind.substr(0, kind.size() - 1) + "ies";  // ...Capacities
  return kind + "s";
}

// What kube-scheduler does with the kind that schedhost cannot do yet.
std::string consequence(std::string_view) {
  return "no scheduling plugin reads this kind";
}

// The shared shape of both warnings: one line per kind, in the order the kinds first appear.
std::vector<std::string> kind_lines(const std::vector<IgnoredObject>& objects,
                                    std::string_view verb,
                                    std::string (*what_is_missing)(std::string_view kind)) {
  struct Seen {
    std::size_t order = 0;
    std::size_t count = 0;
    const IgnoredObject* first = nullptr;
  };
  std::map<std::string, Seen> kinds;
  for (const IgnoredObject& object : objects) {
    auto [it, added] = kinds.try_emplace(object.kind, Seen{kinds.size(), 0, &object});
    ++it->second.count;
  }
  std::vector<std::string> out(kinds.size());
  for (const auto& [kind, seen] : kinds) {
    const std::string what = seen.count == 1 ? kind + " \"" + seen.first->name + "\" is"
                                             : std::to_string(seen.count) + " " + plural(kind) +
                                                   " (the first \"" + seen.first->name + "\") are";
    out[seen.order] =
        seen.first->location + ": " + what + " " + std::string(verb) + what_is_missing(kind);
  }
  return out;
}

}  // namespace

std::vector<std::string> ignored_kind_warnings(const std::vector<IgnoredObject>& ignored) {
  return kind_lines(ignored, "not modelled by schedhost and counted for nothing: ", &consequence);
}

std::string missing_use(std::string_view kind) {
  if (kind == "PersistentVolume" || kind == "PersistentVolumeClaim" || kind == "StorageClass" ||
      kind == "CSIDriver" || kind == "CSIStorageCapacity") {
    return "VolumeBinding is not in schedhost yet: an unbound claim is never bound (its pod is "
           "placed as if the claim were not there) and a bound claim's PersistentVolume node "
           "affinity does not constrain where its pod goes";
  }
  return {};
}

std::vector<std::string> partly_used_kind_warnings(const std::vector<IgnoredObject>& partly_used) {
  return kind_lines(partly_used, "read, but ", &missing_use);
}

}  // namespace schedhost::cluster
