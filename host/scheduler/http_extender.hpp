// One configured extender (the configuration's `extenders[i]`), called over HTTP as upstream's
// HTTPExtender calls it: POST <urlPrefix>/<verb> with JSON, any answer but 200 an error, a
// client timeout of httpTimeout. The errors it throws are worded as kube-scheduler's (Go's
// net/http and encoding/json), since they become the pod's message. Connections are kept alive
// and reused (kube::ApiClient's pool over libcurl). Thread-safe: bind runs on binding threads.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "cluster/node.hpp"
#include "cluster/pod.hpp"
#include "config/extender_config.hpp"

namespace schedhost::kube {
class ApiClient;
}

namespace schedhost::scheduler {

// An extender call that failed: no answer, an answer other than 200, one that does not decode,
// or one whose Error field is set. what() is the message upstream would give.
class ExtenderError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ExtenderFilterAnswer {
  std::vector<std::string> feasible;          // the nodes that pass, as the extender listed them
  std::map<std::string, std::string> failed;  // FailedNodes: node -> reason
  std::map<std::string, std::string> failed_unresolvable;  // FailedAndUnresolvableNodes
};

// Victims of a preemption on one node, as the preempt verb exchanges them.
struct ExtenderVictims {
  std::vector<const cluster::Pod*> pods;
  std::int64_t pdb_violations = 0;
};
// What the preempt verb answers for one node (upstream MetaVictims): pod uids.
struct ExtenderMetaVictims {
  std::vector<std::string> uids;
  std::int64_t pdb_violations = 0;
};

class HttpExtender {
 public:
  explicit HttpExtender(const config::ExtenderConfig& config);
  ~HttpExtender();
  HttpExtender(const HttpExtender&) = delete;
  HttpExtender& operator=(const HttpExtender&) = delete;

  const config::ExtenderConfig& config() const { return config_; }
  // Its urlPrefix, which names it in logs and in --explain (upstream's Name()).
  const std::string& name() const { return config_.url_prefix; }
  bool ignorable() const { return config_.ignorable; }
  bool filters() const { return !config_.filter_verb.empty(); }
  bool prioritizes() const { return !config_.prioritize_verb.empty(); }
  bool binds() const { return !config_.bind_verb.empty(); }
  bool preempts() const { return !config_.preempt_verb.empty(); }
  // Without managedResources every pod; with them, a pod whose containers or init containers
  // request or limit one of them.
  bool interested(const cluster::Pod& pod) const;

  // The filter verb over nodes (all of them pass when the extender has no filter verb).
  ExtenderFilterAnswer filter(const cluster::Pod& pod,
                              const std::vector<const cluster::Node*>& nodes) const;
  // The prioritize verb: host -> score as answered (0..10 by the protocol, not checked upstream).
  std::vector<std::pair<std::string, std::int64_t>> prioritize(
      const cluster::Pod& pod, const std::vector<const cluster::Node*>& nodes) const;
  // The bind verb.
  void bind(const cluster::Pod& pod, const std::string& node) const;
  // The preempt verb: node -> victims kept, as uids (resolved by the caller).
  std::map<std::string, ExtenderMetaVictims> process_preemption(
      const cluster::Pod& pod, const std::map<std::string, ExtenderVictims>& victims) const;

 private:
  // POSTs args to verb and returns the decoded answer, or throws ExtenderError.
  nlohmann::json send(const std::string& verb, const nlohmann::json& args) const;
  nlohmann::json args_for(const cluster::Pod& pod,
                          const std::vector<const cluster::Node*>& nodes) const;

  config::ExtenderConfig config_;
  std::set<std::string, std::less<>> managed_;  // managedResources' names
  std::string url_;     // urlPrefix without its trailing '/', as messages name it
  std::string origin_;  // scheme://host:port of urlPrefix
  std::string path_;    // urlPrefix's path, without a trailing '/'
  std::unique_ptr<kube::ApiClient> client_;
};

}  // namespace schedhost::scheduler
