#include "pod_watch.hpp"

#include <stdexcept>

namespace schedhost_live_bench {

namespace kube = schedhost::kube;

PodWatch::PodWatch(const kube::ClientConfig& config) : client_(config, "/bench-watch") {
  informer_ = std::make_unique<kube::Informer>(client_, kube::Resource::pods());
  informer_->set_handler({[this](const kube::Object& pod, bool) { observe(pod); },
                          [this](const kube::Object&, const kube::Object& pod) { observe(pod); },
                          [](const kube::Object&, bool) {}});
}

PodWatch::~PodWatch() {
  informer_->stop();
}

void PodWatch::start() {
  informer_->start();
  if (!informer_->wait_for_sync(std::chrono::seconds(60))) {
    throw std::runtime_error("the pod watch did not list pods within 60 s");
  }
}

void PodWatch::observe(const kube::Object& pod) {
  const Clock::time_point now = Clock::now();
  const auto metadata = pod->find("metadata");
  if (metadata == pod->end()) return;
  const std::string ns = metadata->value("namespace", "");
  const std::string key = ns + "/" + metadata->value("name", "");
  const auto spec = pod->find("spec");
  const bool bound = spec != pod->end() && !spec->value("nodeName", "").empty();
  bool unschedulable = false;
  if (!bound) {
    const auto status = pod->find("status");
    if (status != pod->end()) {
      for (const nlohmann::json& c : status->value("conditions", nlohmann::json::array())) {
        unschedulable = unschedulable ||
                        (c.value("type", "") == "PodScheduled" && c.value("status", "") == "False");
      }
    }
  }
  if (!bound && !unschedulable) return;
  {
    std::lock_guard lock(mutex_);
    if (bound && bound_.emplace(key, now).second) ++bound_per_namespace_[ns];
    if (unschedulable && unschedulable_.insert(key).second) ++unschedulable_per_namespace_[ns];
  }
  changed_.notify_all();
}

bool PodWatch::wait_for_count(const std::map<std::string, std::size_t>& counts,
                              const std::string& ns, std::size_t count,
                              std::chrono::seconds stall_limit) {
  std::unique_lock lock(mutex_);
  std::size_t last = 0;
  Clock::time_point last_progress = Clock::now();
  for (;;) {
    const auto it = counts.find(ns);
    const std::size_t now_seen = it == counts.end() ? 0 : it->second;
    if (now_seen >= count) return true;
    if (now_seen != last) {
      last = now_seen;
      last_progress = Clock::now();
    }
    if (Clock::now() - last_progress > stall_limit) return false;
    changed_.wait_for(lock, std::chrono::milliseconds(200));
  }
}

bool PodWatch::wait_bound(const std::string& ns, std::size_t count,
                          std::chrono::seconds stall_limit) {
  return wait_for_count(bound_per_namespace_, ns, count, stall_limit);
}

bool PodWatch::wait_unschedulable(const std::string& ns, std::size_t count,
                                  std::chrono::seconds stall_limit) {
  return wait_for_count(unschedulable_per_namespace_, ns, count, stall_limit);
}

std::size_t PodWatch::bound_count(const std::string& ns) const {
  std::lock_guard lock(mutex_);
  const auto it = bound_per_namespace_.find(ns);
  return it == bound_per_namespace_.end() ? 0 : it->second;
}

std::optional<Clock::time_point> PodWatch::bound_at(const std::string& ns,
                                                    const std::string& name) const {
  std::lock_guard lock(mutex_);
  const auto it = bound_.find(ns + "/" + name);
  if (it == bound_.end()) return std::nullopt;
  return it->second;
}

int PodWatch::requests_made() const {
  const kube::InformerStats s = informer_->stats();
  return s.pages + s.watches;
}

}  // namespace schedhost_live_bench
