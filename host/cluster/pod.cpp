#include "cluster/pod.hpp"

#include <map>

#include "cluster/generation.hpp"
#include "cluster/json_field.hpp"
#include "cluster/object_error.hpp"

namespace schedhost::cluster {
namespace {

// Exact per-resource amounts while a pod's request is computed: upstream sums Quantities and
// rounds once at the end (Value/MilliValue), so rounding each container first could differ.
using ExactList = std::map<std::string, Quantity, std::less<>>;

struct ContainerRequests {
  ExactList requests;
  bool sidecar = false;
};

// Upstream's scheduler defaults (pkg/scheduler/util: DefaultMilliCPURequest, DefaultMemoryRequest).
constexpr int64_t kDefaultMilliCpu = 100;
constexpr int64_t kDefaultMemoryBytes = int64_t{200} * 1024 * 1024;

ExactList read_resources(const JsonField& field) {
  ExactList out;
  for (const auto& [name, value] : field.members())
    out.emplace(name, value.as_quantity());
  return out;
}

// The container's requests after the API server's defaulting: a resource with a limit and no
// request requests its limit (SetDefaults_Pod). `kubectl get` output already has them.
ExactList container_requests(const JsonField& container) {
  ExactList requests;
  ExactList limits;
  if (auto resources = container.member("resources")) {
    if (auto field = resources->member("requests")) requests = read_resources(*field);
    if (auto field = resources->member("limits")) limits = read_resources(*field);
  }
  for (const auto& [name, limit] : limits)
    requests.try_emplace(name, limit);
  return requests;
}

void add_into(ExactList& into, const ExactList& from) {
  for (const auto& [name, quantity] : from)
    into[name] += quantity;
}

void max_into(ExactList& into, const ExactList& from) {
  for (const auto& [name, quantity] : from) {
    auto [it, inserted] = into.try_emplace(name, quantity);
    if (!inserted && quantity > it->second) it->second = quantity;
  }
}

// Upstream PodRequests (v1.28 with sidecars): regular containers and sidecars run together;
// init container i runs next to the sidecars started before it; the pod needs the larger.
ResourceList pod_requests(const std::vector<ExactList>& containers,
                          const std::vector<ContainerRequests>& init_containers,
                          const ExactList& overhead, bool nonzero) {
  auto effective = [nonzero](ExactList requests) {
    if (nonzero) {  // upstream applyNonMissing: only missing keys, an explicit 0 stays
      requests.try_emplace("cpu", Quantity::from_milli(kDefaultMilliCpu));
      requests.try_emplace("memory", Quantity::from_units(kDefaultMemoryBytes));
    }
    return requests;
  };
  ExactList total;
  for (const ExactList& container : containers)
    add_into(total, effective(container));
  ExactList sidecars;
  ExactList init_peak;
  for (const ContainerRequests& init : init_containers) {
    ExactList requests = effective(init.requests);
    if (init.sidecar) {
      add_into(total, requests);
      add_into(sidecars, requests);
      max_into(init_peak, sidecars);
    } else {
      add_into(requests, sidecars);
      max_into(init_peak, requests);
    }
  }
  max_into(total, init_peak);
  add_into(total, overhead);

  ResourceList out;
  for (const auto& [name, quantity] : total)
    out.set(name, resource_amount(name, quantity));
  return out;
}

bool has_terms(const JsonField& affinity, std::string_view kind, std::string_view when) {
  auto terms = affinity.get({kind, when});
  return terms && !terms->items().empty();
}

Toleration read_toleration(const JsonField& field) {
  Toleration t;
  t.key = string_member(field, "key");
  t.op = string_member(field, "operator");
  if (t.op.empty()) t.op = "Equal";
  t.value = string_member(field, "value");
  t.effect = string_member(field, "effect");
  if (auto seconds = field.member("tolerationSeconds")) t.toleration_seconds = seconds->as_int();
  return t;
}

std::vector<HostPort> read_host_ports(const JsonField& container) {
  std::vector<HostPort> out;
  auto ports = container.member("ports");
  if (!ports) return out;
  for (const JsonField& port : ports->items()) {
    auto host_port = port.member("hostPort");
    if (!host_port) continue;
    int64_t number = host_port->as_int();
    if (number < 0 || number > 65535) {
      host_port->fail("must be between 0 and 65535, not " + std::to_string(number) +
                      ": use a valid port number, or 0 for none");
    }
    if (number == 0) continue;
    HostPort hp;
    hp.port = static_cast<int32_t>(number);
    if (std::string ip = string_member(port, "hostIP"); !ip.empty()) hp.host_ip = std::move(ip);
    if (std::string protocol = string_member(port, "protocol"); !protocol.empty()) {
      hp.protocol = std::move(protocol);
    }
    out.push_back(std::move(hp));
  }
  return out;
}

Container read_container(const JsonField& field, ContainerKind kind) {
  return Container{string_member(field, "name"), string_member(field, "image"), kind};
}

}  // namespace

Pod::Pod(nlohmann::json object, std::string_view default_namespace)
    : json_(std::move(object)), generation_(next_generation()) {
  const JsonField root(json_);
  if (!json_.is_object()) root.fail("must be a mapping with metadata and spec: fix the Pod");

  if (auto metadata = root.member("metadata")) {
    name_ = string_member(*metadata, "name");
    namespace_ = string_member(*metadata, "namespace");
    uid_ = string_member(*metadata, "uid");
    if (auto labels = metadata->member("labels")) labels_ = labels->as_string_map();
    if (auto annotations = metadata->member("annotations")) {
      annotations_ = annotations->as_string_map();
    }
    if (auto created = metadata->member("creationTimestamp")) {
      creation_time_ms_ = created->as_time_ms();
    }
    if (auto deleted = metadata->member("deletionTimestamp")) {
      deleted->as_time_ms();  // validated, only its presence matters
      terminating_ = true;
    }
  }
  if (namespace_.empty()) namespace_ = std::string(default_namespace);
  if (uid_.empty()) uid_ = "uid-" + namespace_ + "-" + name_;

  std::vector<ExactList> containers;
  std::vector<ContainerRequests> init_containers;
  ExactList overhead;
  if (auto spec = root.member("spec")) {
    node_name_ = string_member(*spec, "nodeName");
    scheduler_name_ = string_member(*spec, "schedulerName");
    priority_class_name_ = string_member(*spec, "priorityClassName");
    preemption_policy_ = string_member(*spec, "preemptionPolicy");
    if (auto priority = spec->member("priority")) priority_ = priority->as_int();
    if (auto selector = spec->member("nodeSelector")) node_selector_ = selector->as_string_map();
    if (auto tolerations = spec->member("tolerations")) {
      for (const JsonField& t : tolerations->items())
        tolerations_.push_back(read_toleration(t));
    }
    if (auto list = spec->member("containers")) {
      for (const JsonField& c : list->items()) {
        containers.push_back(container_requests(c));
        containers_.push_back(read_container(c, ContainerKind::kRegular));
        for (HostPort& port : read_host_ports(c))
          host_ports_.push_back(std::move(port));
      }
    }
    if (auto list = spec->member("initContainers")) {
      for (const JsonField& c : list->items()) {
        bool sidecar = string_member(c, "restartPolicy") == "Always";
        init_containers.push_back(ContainerRequests{container_requests(c), sidecar});
        containers_.push_back(
            read_container(c, sidecar ? ContainerKind::kSidecar : ContainerKind::kInit));
      }
    }
    if (auto field = spec->member("overhead")) overhead = read_resources(*field);
    if (auto affinity = spec->member("affinity")) {
      constexpr std::string_view kRequired = "requiredDuringSchedulingIgnoredDuringExecution";
      constexpr std::string_view kPreferred = "preferredDuringSchedulingIgnoredDuringExecution";
      has_required_anti_affinity_ = has_terms(*affinity, "podAntiAffinity", kRequired);
      bool preferred_anti = has_terms(*affinity, "podAntiAffinity", kPreferred);
      bool required = has_terms(*affinity, "podAffinity", kRequired);
      bool preferred = has_terms(*affinity, "podAffinity", kPreferred);
      has_affinity_ = has_required_anti_affinity_ || preferred_anti || required || preferred;
    }
  }
  if (scheduler_name_.empty()) scheduler_name_ = "default-scheduler";
  if (preemption_policy_.empty()) preemption_policy_ = "PreemptLowerPriority";

  if (auto status = root.member("status")) {
    nominated_node_name_ = string_member(*status, "nominatedNodeName");
    phase_ = string_member(*status, "phase");
    if (auto started = status->member("startTime")) start_time_ms_ = started->as_time_ms();
  }

  requests_ = pod_requests(containers, init_containers, overhead, false);
  nonzero_requests_ = pod_requests(containers, init_containers, overhead, true);
}

std::shared_ptr<const Pod> Pod::bound_to(std::string_view node_name) const {
  auto pod = std::make_shared<Pod>(*this);  // the copy starts with an empty JSON cache
  pod->json_["spec"]["nodeName"] = std::string(node_name);
  pod->node_name_ = std::string(node_name);
  pod->generation_ = next_generation();
  return pod;
}

std::shared_ptr<const Pod> Pod::nominated_to(std::string_view node_name) const {
  auto pod = std::make_shared<Pod>(*this);
  pod->json_["status"]["nominatedNodeName"] = std::string(node_name);
  pod->nominated_node_name_ = std::string(node_name);
  pod->generation_ = next_generation();
  return pod;
}

}  // namespace schedhost::cluster
