// The benchmark's load generator: creates nodes and pods from scheduler_perf's templates over
// several API connections at once (one thread and one keep-alive connection each, no client rate
// limit), and, for the bind-only baseline, binds pods itself round-robin over the nodes. It
// counts every request it makes, so that the requests a scheduler caused can be told apart.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "apiserver_metrics.hpp"
#include "driver/pod_templates.hpp"
#include "kube/api_client.hpp"
#include "pod_watch.hpp"

namespace schedhost_live_bench {

using schedhost_bench::PodKind;

// Nodes of node-default: 4 cpu, 32Gi, 110 pods, Ready, in zone1..3; or too small for any pod
// of the templates (50m cpu), for the unschedulable burst.
enum class NodeSize { kDefault, kTooSmall };

class LoadGenerator {
 public:
  LoadGenerator(const schedhost::kube::ClientConfig& config, std::size_t connections);
  ~LoadGenerator();
  LoadGenerator(const LoadGenerator&) = delete;
  LoadGenerator& operator=(const LoadGenerator&) = delete;

  void create_namespace(const std::string& name);

  // Creates nodes named <prefix><i> for i in [0, count), made Ready, on every connection at
  // once. Returns when all exist.
  void create_nodes(const std::string& prefix, std::size_t count, NodeSize size);

  // Creates pods <prefix><i> in ns, i in [0, count), on every connection at once, and returns
  // when each create has been answered: the time each create was sent, by index. With
  // bind_to_nodes > 0, as many binder threads bind each pod once created to node-<i % nodes>
  // (no scheduler at all: the bind-only baseline).
  std::vector<Clock::time_point> create_pods(PodKind kind, const std::string& ns,
                                             const std::string& prefix, std::size_t count,
                                             std::size_t bind_to_nodes = 0);

  // The API server's apiserver_request_total per verb and resource (this GET counted too).
  RequestCounts apiserver_requests();

  // The requests this generator has sent so far, and of those the bindings (bind-only).
  std::uint64_t requests() const { return requests_.load(); }
  std::uint64_t bindings() const { return bindings_.load(); }
  std::size_t connections() const { return clients_.size(); }

 private:
  // Runs body(client, i) for every i in [0, count), spread over the connections; rethrows the
  // first failure once every thread has stopped.
  void for_each_index(std::size_t count,
                      const std::function<void(schedhost::kube::ApiClient&, std::size_t)>& body);
  void post(schedhost::kube::ApiClient& client, const std::string& path, const std::string& body);

  std::vector<std::unique_ptr<schedhost::kube::ApiClient>> clients_;
  std::vector<std::unique_ptr<schedhost::kube::ApiClient>> binders_;
  std::atomic<std::uint64_t> requests_{0};
  std::atomic<std::uint64_t> bindings_{0};
};

}  // namespace schedhost_live_bench
