#include "load_generator.hpp"

#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>

#include "apiserver_metrics.hpp"
#include "driver/pod_templates.hpp"

namespace schedhost_live_bench {

namespace kube = schedhost::kube;
using nlohmann::json;

namespace {

// The pods created and not yet bound, for the bind-only baseline's binders.
class CreatedPods {
 public:
  void push(std::size_t index) {
    {
      std::lock_guard lock(mutex_);
      pending_.push_back(index);
    }
    ready_.notify_one();
  }
  void close() {
    {
      std::lock_guard lock(mutex_);
      closed_ = true;
    }
    ready_.notify_all();
  }
  // The next created pod, or nothing once every pod has been handed out.
  std::optional<std::size_t> pop() {
    std::unique_lock lock(mutex_);
    ready_.wait(lock, [this] { return closed_ || !pending_.empty(); });
    if (pending_.empty()) return std::nullopt;
    const std::size_t index = pending_.front();
    pending_.pop_front();
    return index;
  }

 private:
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::size_t> pending_;
  bool closed_ = false;
};

// The first exception of several threads, rethrown after they have all stopped.
class FirstFailure {
 public:
  void record() {
    std::lock_guard lock(mutex_);
    if (!failure_) failure_ = std::current_exception();
    failed_.store(true);
  }
  bool failed() const { return failed_.load(); }
  void rethrow() {
    if (failure_) std::rethrow_exception(failure_);
  }

 private:
  std::mutex mutex_;
  std::exception_ptr failure_;
  std::atomic<bool> failed_{false};
};

std::string pods_path(const std::string& ns) {
  return "/api/v1/namespaces/" + ns + "/pods";
}

}  // namespace

LoadGenerator::LoadGenerator(const kube::ClientConfig& config, std::size_t connections) {
  kube::ClientConfig unlimited = config;
  unlimited.qps = 0;  // the generator is not rate limited: the server is what is measured
  for (std::size_t i = 0; i < std::max<std::size_t>(1, connections); ++i) {
    clients_.push_back(std::make_unique<kube::ApiClient>(unlimited, "/bench-load"));
    binders_.push_back(std::make_unique<kube::ApiClient>(unlimited, "/bench-binder"));
  }
}

LoadGenerator::~LoadGenerator() = default;

void LoadGenerator::post(kube::ApiClient& client, const std::string& path,
                         const std::string& body) {
  const kube::Response r = client.request("POST", path, body, "application/json");
  ++requests_;
  if (r.code < 200 || r.code >= 300) kube::ApiClient::raise("POST", path, r);
}

void LoadGenerator::for_each_index(std::size_t count,
                                   const std::function<void(kube::ApiClient&, std::size_t)>& body) {
  std::atomic<std::size_t> next{0};
  FirstFailure failure;
  std::vector<std::thread> threads;
  for (auto& client : clients_) {
    threads.emplace_back([&, c = client.get()] {
      try {
        for (std::size_t i = next++; i < count && !failure.failed(); i = next++)
          body(*c, i);
      } catch (...) {
        failure.record();
      }
    });
  }
  for (std::thread& t : threads)
    t.join();
  failure.rethrow();
}

void LoadGenerator::create_namespace(const std::string& name) {
  post(*clients_.front(), "/api/v1/namespaces",
       json{{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", name}}}}.dump());
}

void LoadGenerator::create_nodes(const std::string& prefix, std::size_t count, NodeSize size) {
  for_each_index(count, [&](kube::ApiClient& client, std::size_t i) {
    json node = schedhost_bench::make_node(i, 3);
    const std::string name = prefix + std::to_string(i);
    node["metadata"]["name"] = name;
    node["metadata"]["labels"]["kubernetes.io/hostname"] = name;
    if (size == NodeSize::kTooSmall) {
      node["status"]["capacity"]["cpu"] = "50m";
      node["status"]["allocatable"]["cpu"] = "50m";
    }
    const kube::Response r =
        client.request("POST", "/api/v1/nodes", node.dump(), "application/json");
    ++requests_;
    if (r.code != 201) kube::ApiClient::raise("POST", "/api/v1/nodes", r);
    // The API server keeps a node's status on create (as a kubelet registers); should one drop
    // it, the status is patched in as the live tests' create_node does.
    const json created = json::parse(r.body, nullptr, false);
    if (created.is_discarded() || !created.contains("status") ||
        !created["status"].contains("allocatable")) {
      ++requests_;
      client.patch("/api/v1/nodes/" + name + "/status", {{"status", node["status"]}},
                   kube::PatchType::Merge);
    }
  });
}

std::vector<Clock::time_point> LoadGenerator::create_pods(PodKind kind, const std::string& ns,
                                                          const std::string& prefix,
                                                          std::size_t count,
                                                          std::size_t bind_to_nodes) {
  std::vector<Clock::time_point> sent(count);
  CreatedPods created;
  FirstFailure bind_failure;
  std::vector<std::thread> binders;
  if (bind_to_nodes > 0) {
    for (auto& binder : binders_) {
      binders.emplace_back([&, c = binder.get()] {
        try {
          while (const std::optional<std::size_t> i = created.pop()) {
            const std::string name = prefix + std::to_string(*i);
            const json binding = {{"apiVersion", "v1"},
                                  {"kind", "Binding"},
                                  {"metadata", {{"name", name}, {"namespace", ns}}},
                                  {"target",
                                   {{"apiVersion", "v1"},
                                    {"kind", "Node"},
                                    {"name", "node-" + std::to_string(*i % bind_to_nodes)}}}};
            post(*c, pods_path(ns) + "/" + name + "/binding", binding.dump());
            ++bindings_;
          }
        } catch (...) {
          bind_failure.record();
        }
      });
    }
  }
  try {
    for_each_index(count, [&](kube::ApiClient& client, std::size_t i) {
      const std::string body =
          schedhost_bench::make_pod(kind, prefix + std::to_string(i), ns).dump();
      sent[i] = Clock::now();
      post(client, pods_path(ns), body);
      if (bind_to_nodes > 0) created.push(i);
    });
  } catch (...) {
    created.close();
    for (std::thread& t : binders)
      t.join();
    throw;
  }
  created.close();
  for (std::thread& t : binders)
    t.join();
  bind_failure.rethrow();
  return sent;
}

RequestCounts LoadGenerator::apiserver_requests() {
  const kube::Response r = clients_.front()->request("GET", "/metrics");
  ++requests_;
  if (r.code != 200) kube::ApiClient::raise("GET", "/metrics", r);
  return count_apiserver_requests(r.body);
}

}  // namespace schedhost_live_bench
