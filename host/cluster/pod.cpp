#include "cluster/pod.hpp"

#include <algorithm>
#include <map>
#include <optional>

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

// A container as in-place resize sees it (InPlacePodVerticalScaling, GA in v1.35): its requests
// as the spec asks, and as the kubelet reports them in status.containerStatuses (or
// initContainerStatuses) under the same name: allocated, and actually applied.
struct ContainerViews {
  std::string name;
  ExactList spec;
  bool sidecar = false;
  bool reported = false;     // its status has `resources` (upstream: cs.Resources != nil)
  ExactList allocated = {};  // allocatedResources
  ExactList actual = {};     // resources.requests
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

// The resources a pod may set for itself (spec.resources, PodLevelResources, on by default in
// v1.35): upstream's IsSupportedPodLevelResource.
bool pod_level_resource(std::string_view name) {
  return name == "cpu" || name == "memory" || name.starts_with("hugepages-");
}

// Which scoring defaults a container that does not request cpu or memory gets (upstream
// applyNonMissing with NonMissingContainerRequests: 100m cpu, 200Mi memory).
struct Defaults {
  bool cpu = false;
  bool memory = false;
};
constexpr Defaults kNoDefaults{};
constexpr Defaults kBothDefaults{true, true};

// Upstream AggregateContainerRequests (with sidecars): regular containers and sidecars run
// together; init container i runs next to the sidecars started before it; the pod needs the
// larger. Each container missing cpu or memory gets the defaults asked for.
ExactList container_total(const std::vector<ExactList>& containers,
                          const std::vector<ContainerRequests>& init_containers,
                          Defaults defaults) {
  auto effective = [defaults](ExactList requests) {
    // upstream applyNonMissing: only missing keys, an explicit 0 stays
    if (defaults.cpu) requests.try_emplace("cpu", Quantity::from_milli(kDefaultMilliCpu));
    if (defaults.memory) requests.try_emplace("memory", Quantity::from_units(kDefaultMemoryBytes));
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
  return total;
}

// Upstream v1.35 determineEffectiveRequests, per container: once the kubelet reports the
// container's resources, the larger, per resource, of its spec, allocated and actual requests
// (the spec left out while a resize is infeasible); before that, its spec. Regular init
// containers always count their spec.
ExactList effective_requests(const ContainerViews& c, bool init, bool infeasible) {
  if (!c.reported || (init && !c.sidecar)) return c.spec;
  ExactList out = infeasible ? ExactList{} : c.spec;
  max_into(out, c.actual);
  max_into(out, c.allocated);
  return out;
}

// The containers' total with each container's requests as pick(container, is_init) gives them.
template <class Pick>
ExactList total_of(const std::vector<ContainerViews>& containers,
                   const std::vector<ContainerViews>& init_containers, Defaults defaults,
                   Pick pick) {
  std::vector<ExactList> regular;
  regular.reserve(containers.size());
  for (const ContainerViews& c : containers)
    regular.push_back(pick(c, false));
  std::vector<ContainerRequests> init;
  init.reserve(init_containers.size());
  for (const ContainerViews& c : init_containers)
    init.push_back(ContainerRequests{pick(c, true), c.sidecar});
  return container_total(regular, init, defaults);
}

// The spec's total, as the API server's defaulting and NodeResourcesFit's scoring see it.
ExactList spec_total(const std::vector<ContainerViews>& containers,
                     const std::vector<ContainerViews>& init_containers, Defaults defaults) {
  return total_of(containers, init_containers, defaults,
                  [](const ContainerViews& c, bool) { return c.spec; });
}

// Upstream AggregateContainerRequests with status resources: each container's effective
// requests, totalled as for the spec.
ExactList effective_total(const std::vector<ContainerViews>& containers,
                          const std::vector<ContainerViews>& init_containers, bool infeasible,
                          Defaults defaults) {
  return total_of(containers, init_containers, defaults,
                  [infeasible](const ContainerViews& c, bool init) {
                    return effective_requests(c, init, infeasible);
                  });
}

// The kubelet's report on the containers (status.containerStatuses and initContainerStatuses),
// into the views of the containers with those names; true when a resize is infeasible
// (condition PodResizePending with reason Infeasible).
bool read_resize_status(const JsonField& status, std::vector<ContainerViews>& containers,
                        std::vector<ContainerViews>& init_containers) {
  for (const char* list : {"containerStatuses", "initContainerStatuses"}) {
    auto statuses = status.member(list);
    if (!statuses) continue;
    for (const JsonField& cs : statuses->items()) {
      const std::string name = string_member(cs, "name");
      // Upstream looks a name up among regular containers' statuses first, then init ones.
      ContainerViews* target = nullptr;
      for (auto* views : {&containers, &init_containers}) {
        for (ContainerViews& c : *views) {
          if (target == nullptr && c.name == name) target = &c;
        }
      }
      if (target == nullptr || target->reported) continue;
      auto resources = cs.member("resources");
      if (!resources) continue;  // not reported (absent or null): the spec counts
      target->reported = true;
      if (auto field = cs.member("allocatedResources")) target->allocated = read_resources(*field);
      if (auto field = resources->member("requests")) target->actual = read_resources(*field);
    }
  }
  if (auto conditions = status.member("conditions")) {
    for (const JsonField& c : conditions->items()) {
      if (string_member(c, "type") == "PodResizePending") {
        return string_member(c, "reason") == "Infeasible";
      }
    }
  }
  return false;
}

// The pod-level requests after the API server's defaulting (defaultPodRequests, after the
// containers' own): only when pod-level limits are set, a missing cpu or memory request becomes
// the containers' total when some container requests it, and any missing supported request the
// pod-level limit. `kubectl get` output already has them; a hand-written cluster file may not.
ExactList pod_level_requests(const JsonField& spec, const ExactList& containers_total) {
  ExactList requests;
  ExactList limits;
  if (auto resources = spec.member("resources")) {
    if (auto field = resources->member("requests")) requests = read_resources(*field);
    if (auto field = resources->member("limits")) limits = read_resources(*field);
  }
  if (!limits.empty()) {
    for (const auto& [name, total] : containers_total) {
      if (name == "cpu" || name == "memory") requests.try_emplace(name, total);
    }
    for (const auto& [name, limit] : limits) {
      if (pod_level_resource(name)) requests.try_emplace(name, limit);
    }
  }
  return requests;
}

// Upstream PodRequests (v1.35): the containers' total, each supported resource the pod sets for
// itself replacing it, then the overhead.
ResourceList pod_requests(ExactList total, const ExactList& pod_level, const ExactList& overhead) {
  for (const auto& [name, quantity] : pod_level) {
    if (pod_level_resource(name)) total.insert_or_assign(name, quantity);
  }
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
    : Pod(std::make_shared<const nlohmann::json>(std::move(object)), default_namespace) {}

Pod::Pod(std::shared_ptr<const nlohmann::json> object, std::string_view default_namespace)
    : json_(std::move(object)), generation_(next_generation()) {
  read(json_.get(), default_namespace);
}

Pod::Pod(const nlohmann::json& object, std::shared_ptr<const std::string> compact_text,
         std::string_view default_namespace)
    : json_(KeptJson::text(std::move(compact_text))), generation_(next_generation()) {
  read(object, default_namespace);
}

void Pod::read(const nlohmann::json& object, std::string_view default_namespace) {
  const JsonField root(object);
  if (!object.is_object()) root.fail("must be a mapping with metadata and spec: fix the Pod");

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
    if (auto owners = metadata->member("ownerReferences")) {
      for (const JsonField& o : owners->items()) {
        OwnerReference& owner = owner_references_.emplace_back();
        owner.api_version = string_member(o, "apiVersion");
        owner.kind = string_member(o, "kind");
        owner.name = string_member(o, "name");
        owner.uid = string_member(o, "uid");
        if (auto controller = o.member("controller")) owner.controller = controller->as_bool();
      }
    }
  }
  if (namespace_.empty()) namespace_ = std::string(default_namespace);
  if (uid_.empty()) uid_ = "uid-" + namespace_ + "-" + name_;

  std::vector<ContainerViews> containers;
  std::vector<ContainerViews> init_containers;
  ExactList overhead;
  std::optional<JsonField> pod_spec;
  if (auto spec = root.member("spec")) {
    pod_spec = spec;
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
    std::size_t sidecar_ports = 0;  // host_ports_ starts with the sidecars' ports
    if (auto list = spec->member("containers")) {
      for (const JsonField& c : list->items()) {
        containers.push_back({.name = string_member(c, "name"), .spec = container_requests(c)});
        containers_.push_back(read_container(c, ContainerKind::kRegular));
        for (HostPort& port : read_host_ports(c))
          host_ports_.push_back(std::move(port));
      }
    }
    if (auto list = spec->member("initContainers")) {
      for (const JsonField& c : list->items()) {
        bool sidecar = string_member(c, "restartPolicy") == "Always";
        init_containers.push_back(
            {.name = string_member(c, "name"), .spec = container_requests(c), .sidecar = sidecar});
        // A sidecar runs as long as the pod: its host ports are taken too, listed first (v1.35).
        if (sidecar) {
          std::vector<HostPort> ports = read_host_ports(c);
          host_ports_.insert(host_ports_.begin() + static_cast<std::ptrdiff_t>(sidecar_ports),
                             ports.begin(), ports.end());
          sidecar_ports += ports.size();
        }
        containers_.push_back(
            read_container(c, sidecar ? ContainerKind::kSidecar : ContainerKind::kInit));
      }
    }
    if (auto field = spec->member("overhead")) overhead = read_resources(*field);
    if (auto volumes = spec->member("volumes")) {
      for (const JsonField& v : volumes->items()) {
        if (auto claim = v.member("persistentVolumeClaim")) {
          claim_names_.push_back(string_member(*claim, "claimName"));
        }
      }
    }
    if (auto claims = spec->member("resourceClaims")) {
      has_resource_claims_ = !claims->items().empty();
    }
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

  bool resize_infeasible = false;
  if (auto status = root.member("status")) {
    nominated_node_name_ = string_member(*status, "nominatedNodeName");
    phase_ = string_member(*status, "phase");
    if (auto started = status->member("startTime")) start_time_ms_ = started->as_time_ms();
    resize_infeasible = read_resize_status(*status, containers, init_containers);
  }

  // The API server defaults pod-level requests from the spec alone.
  const ExactList spec = spec_total(containers, init_containers, kNoDefaults);
  const ExactList pod_level = pod_spec ? pod_level_requests(*pod_spec, spec) : ExactList{};
  // Nearly every pod is pending, or running as its spec says: its effective total is the spec's.
  auto reported = [](const std::vector<ContainerViews>& list) {
    return std::any_of(list.begin(), list.end(),
                       [](const ContainerViews& c) { return c.reported; });
  };
  const bool resized = reported(containers) || reported(init_containers);
  const ExactList total =
      resized ? effective_total(containers, init_containers, resize_infeasible, kNoDefaults) : spec;
  requests_ = pod_requests(total, pod_level, overhead);
  // What NodeResourcesFit scores the pod by (upstream v1.35 leaves pod-level resources and the
  // kubelet's status out there): its containers' spec with the defaults, plus overhead.
  nonzero_requests_ =
      pod_requests(spec_total(containers, init_containers, kBothDefaults), {}, overhead);
  // What the pod counts for on its node (upstream v1.35 PodInfo.CalculateResource): with
  // pod-level requests, the defaults only for cpu or memory requested nowhere in the pod;
  // without, for every container missing them.
  const bool pod_level_set = std::any_of(pod_level.begin(), pod_level.end(),
                                         [](const auto& r) { return pod_level_resource(r.first); });
  if (!resized && !pod_level_set) {
    node_nonzero_requests_ = nonzero_requests_;  // the same computation
    return;
  }
  Defaults accounted = kBothDefaults;
  if (pod_level_set) {
    auto requested = [&](const char* name) {
      return total.contains(name) || pod_level.contains(name);
    };
    accounted = {!requested("cpu"), !requested("memory")};
  }
  node_nonzero_requests_ = pod_requests(
      resized ? effective_total(containers, init_containers, resize_infeasible, accounted)
              : spec_total(containers, init_containers, accounted),
      pod_level, overhead);
}

std::shared_ptr<const Pod> Pod::bound_to(std::string_view node_name) const {
  auto pod = std::make_shared<Pod>(*this);  // the copy starts with an empty JSON cache
  pod->json_ = json_.with("spec", "nodeName", std::string(node_name));
  pod->node_name_ = std::string(node_name);
  pod->generation_ = next_generation();
  return pod;
}

std::shared_ptr<const Pod> Pod::nominated_to(std::string_view node_name) const {
  auto pod = std::make_shared<Pod>(*this);
  pod->json_ = json_.with("status", "nominatedNodeName", std::string(node_name));
  pod->nominated_node_name_ = std::string(node_name);
  pod->generation_ = next_generation();
  return pod;
}

}  // namespace schedhost::cluster
