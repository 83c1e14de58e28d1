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
std::string consequence(std::string_view kind) {
  if (kind == "VolumeAttachment") {
    return "kube-scheduler v1.35's NodeVolumeLimits also counts the volumes attached to a node "
           "through VolumeAttachments; schedhost counts the volumes of the node's pods only";
  }
  return "no scheduling plugin reads this kind";
}

}  // namespace

std::vector<std::string> ignored_kind_warnings(const std::vector<IgnoredObject>& ignored) {
  struct Seen {
    std::size_t order = 0;
    std::size_t count = 0;
    const IgnoredObject* first = nullptr;
  };
  std::map<std::string, Seen> kinds;
  for (const IgnoredObject& object : ignored) {
    auto [it, added] = kinds.try_emplace(object.kind, Seen{kinds.size(), 0, &object});
    ++it->second.count;
  }
  std::vector<std::string> out(kinds.size());
  for (const auto& [kind, seen] : kinds) {
    const std::string what = seen.count == 1 ? kind + " \"" + seen.first->name + "\" is"
                                             : std::to_string(seen.count) + " " + plural(kind) +
                                                   " (the first \"" + seen.first->name + "\") are";
    out[seen.order] = seen.first->location + ": " + what +
                      " not modelled by schedhost and counted for nothing: " + consequence(kind);
  }
  return out;
}

}  // namespace schedhost::cluster
