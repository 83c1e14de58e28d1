// VolumeBinding: upstream kube-scheduler v1.35's plugin of that name (pkg/scheduler/framework/
// plugins/volumebinding: volume_binding.go, binder.go, passive_assume_cache.go, scorer.go; the
// helpers of k8s.io/component-helpers/storage/volume and .../storage/ephemeral), decision for
// decision, for the scheduling cycle, and PreBind's writes through the host's API client.
//
// PreFilter  A pod with no persistentVolumeClaim and no ephemeral volume: Skip. Every claim is
//            looked up in the pod's namespace (an ephemeral volume's claim is "<pod>-<volume>");
//            UnschedulableAndUnresolvable, first failing claim in volume order:
//              persistentvolumeclaim "<c>" not found
//              waiting for ephemeral volume controller to create the persistentvolumeclaim "<c>"
//              persistentvolumeclaim "<c>" bound to non-existent persistentvolume "<pv>" (Lost)
//              persistentvolumeclaim "<c>" is being deleted
//              PVC <ns>/<c> was not created for pod <ns>/<pod> (pod is not owner)
//            Claims are then read through the assume cache and sorted: bound (spec.volumeName and
//            the pv.kubernetes.io/bind-completed annotation), delayed (unbound, no volumeName, a
//            WaitForFirstConsumer class) or immediate (any other unbound claim, including one
//            whose class is missing). A class without volumeBindingMode is an Error
//            (VolumeBindingMode not set for StorageClass "<sc>"); any immediate claim gives
//            UnschedulableAndUnresolvable "pod has unbound immediate PersistentVolumeClaims".
//            v1.35 returns no PreFilterResult (the local-PV node set of v1.27 to v1.33 is gone).
// Filter     UnschedulableAndUnresolvable with every reason that applies, in this order:
//              node(s) didn't match PersistentVolume's node affinity       (a bound claim's PV,
//                                       translated to CSI when the node's CSINode migrated it)
//              node(s) didn't find available persistent volumes to bind  (selected-node is
//                                       another node; or no PV and no provisioning possible)
//              node(s) did not have enough free storage                     (CSIStorageCapacity)
//              node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)
//            Static matching (FindMatchingVolume): delayed claims by increasing request; a PV
//            pre-bound to the claim wins (unless its node affinity fails); otherwise the
//            smallest Available PV of the claim's class, with enough capacity, the claim's
//            volumeMode and volumeAttributesClassName, labels matching the claim's selector, not
//            being deleted, node affinity met and every access mode of the claim; a chosen PV is
//            excluded for the next claims. Unmatched claims need provisioning: a provisioner
//            other than kubernetes.io/no-provisioner, allowedTopologies met by the node, and,
//            when the CSIDriver named after the provisioner has storageCapacity: true and the
//            claim requests storage, a CSIStorageCapacity of the class whose maximumVolumeSize
//            (else capacity) holds the request and whose nodeTopology selects the node.
// PreScore / Score  only with the StorageCapacityScoring gate (alpha, off): the shape over each
//            class's requested / capacity (static bindings, else provisioned claims against
//            their CSIStorageCapacity), averaged over classes.
// Reserve    assumes the chosen PVs bound to their claims (claimRef, bound-by-controller) and the
//            provisioned claims annotated with volume.kubernetes.io/selected-node, in the plugin's
//            assume cache: the next pods see them taken. An assumption holds while the snapshot's
//            object keeps the resourceVersion it was made from (v1.35's passive assume cache).
// Unreserve  restores them. PreBindPreFlight: Skip when every claim of the pod is bound.
// PreBind    nothing to bind: Success; otherwise, in serve, the assumed PVs then the claims to
//            provision are PUT through api_request (ABI 1.8) and the PV controller's binding is
//            awaited, polled each second up to bindTimeoutSeconds ("binding volumes: context
//            deadline exceeded"; "provisioning failed for PVC" when the annotation went); in run
//            (no API server) the bindings are taken as made.
// EnqueueExtensions, SignPod: as upstream v1.35 (see EventsToRegister, IsSchedulableAfter).
//
// Args (VolumeBindingArgs v1): bindTimeoutSeconds (default 600, not negative) and shape (only with
// StorageCapacityScoring: default [{0, 10}, {100, 0}], utilization 0..100 increasing, score
// 0..10; without the gate a shape is refused), with upstream's messages.
#include <schedhost/k8s/label_selector.hpp>
#include <schedhost/k8s/node_selector.hpp>
#include <schedhost/k8s/signers.hpp>
#include <schedhost/k8s/validation.hpp>
#include <schedhost/plugin.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <shared_mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

namespace {

using Json = nlohmann::json;
using schedhost::Code;
using schedhost::Status;
using schedhost::k8s::FieldError;
using schedhost::k8s::FieldPath;
using schedhost::k8s::go_quote;
namespace resource = schedhost::resource;
namespace k8s = schedhost::k8s;

constexpr std::string_view kStateKey = "VolumeBinding";  // upstream's stateKey: the plugin name

constexpr const char* kErrReasonNodeConflict =
    "node(s) didn't match PersistentVolume's node affinity";
constexpr const char* kErrReasonBindConflict =
    "node(s) didn't find available persistent volumes to bind";
constexpr const char* kErrReasonNotEnoughSpace = "node(s) did not have enough free storage";
constexpr const char* kErrReasonPVNotExist =
    "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)";

constexpr std::string_view kAnnBindCompleted = "pv.kubernetes.io/bind-completed";
constexpr std::string_view kAnnBoundByController = "pv.kubernetes.io/bound-by-controller";
constexpr std::string_view kAnnSelectedNode = "volume.kubernetes.io/selected-node";
constexpr std::string_view kAnnBetaStorageClass = "volume.beta.kubernetes.io/storage-class";
constexpr std::string_view kAnnMigratedPlugins = "storage.alpha.kubernetes.io/migrated-plugins";
constexpr std::string_view kNotSupportedProvisioner = "kubernetes.io/no-provisioner";

constexpr std::string_view kZone = "topology.kubernetes.io/zone";
constexpr std::string_view kRegion = "topology.kubernetes.io/region";
constexpr std::string_view kBetaZone = "failure-domain.beta.kubernetes.io/zone";
constexpr std::string_view kBetaRegion = "failure-domain.beta.kubernetes.io/region";

constexpr std::int64_t kMaxUtilization = 100;
constexpr std::int64_t kMaxNodeScore = 100;
constexpr std::int64_t kMaxCustomPriorityScore = 10;

// ---------------------------------------------------------------------------------------------
// JSON and Go helpers

Json parse_text(std::optional<std::string_view> text) {
  if (!text) return nullptr;
  return Json::parse(*text, nullptr, false);
}

template <class View>
Json field(const View& v, std::string_view pointer) {
  return parse_text(v.json(pointer));
}

// The member `key` of object, or nullptr when it is absent or null.
const Json* member(const Json& object, const char* key) {
  if (!object.is_object()) return nullptr;
  const auto it = object.find(key);
  return it == object.end() || it->is_null() ? nullptr : &*it;
}

std::string string_member(const Json& object, const char* key) {
  const Json* m = member(object, key);
  return m != nullptr && m->is_string() ? m->get<std::string>() : std::string();
}

std::optional<std::string> optional_string(const Json& object, const char* key) {
  const Json* m = member(object, key);
  if (m == nullptr || !m->is_string()) return std::nullopt;
  return m->get<std::string>();
}

const Json& at_path(const Json& object, std::initializer_list<const char*> path) {
  static const Json kNull = nullptr;
  const Json* at = &object;
  for (const char* key : path) {
    at = member(*at, key);
    if (at == nullptr) return kNull;
  }
  return *at;
}

std::vector<std::string> string_list(const Json& list) {
  std::vector<std::string> out;
  if (!list.is_array()) return out;
  for (const Json& v : list) {
    if (v.is_string()) out.push_back(v.get<std::string>());
  }
  return out;
}

std::map<std::string, std::string> string_map(const Json& map) {
  std::map<std::string, std::string> out;
  if (!map.is_object()) return out;
  for (const auto& [k, v] : map.items()) {
    if (v.is_string()) out[k] = v.get<std::string>();
  }
  return out;
}

// Go's int64 multiplication (two's complement wrap-around).
std::int64_t go_mul(std::int64_t a, std::int64_t b) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) * static_cast<std::uint64_t>(b));
}

// ---------------------------------------------------------------------------------------------
// resource.Quantity, exact enough for storage sizes: the value in units of 1e-9 (nano), so
// comparisons (Cmp) are exact for every suffix; Value() rounds up as upstream's does.

__extension__ using Nano = __int128;
constexpr Nano kNanoPerUnit = 1000000000;
constexpr Nano kNanoCap = static_cast<Nano>(1) << 100;  // ~1.3e21 units: saturated beyond

std::optional<Nano> parse_quantity_text(std::string_view s) {
  bool negative = false;
  std::size_t i = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) negative = s[i++] == '-';
  Nano mantissa = 0;
  int exp10 = 0;
  bool digits = false;
  bool dot = false;
  for (; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '.' && !dot) {
      dot = true;
    } else if (c >= '0' && c <= '9') {
      if (mantissa < kNanoCap) {
        mantissa = mantissa * 10 + (c - '0');
        if (dot) --exp10;
      } else if (!dot) {
        ++exp10;  // digits past the precision still scale the value
      }
      digits = true;
    } else {
      break;
    }
  }
  if (!digits) return std::nullopt;
  const std::string_view suffix = s.substr(i);
  int binary = 0;
  static constexpr std::string_view kDecimal = "num kMGTPE";  // offsets -9, -6, -3, ., 3 ... 18
  if (suffix.empty()) {
  } else if (suffix.size() == 2 && suffix[1] == 'i' &&
             std::string_view("KMGTPE").find(suffix[0]) != std::string_view::npos) {
    binary = 1 + static_cast<int>(std::string_view("KMGTPE").find(suffix[0]));
  } else if (suffix.size() == 1 && suffix[0] != ' ' &&
             kDecimal.find(suffix[0]) != std::string_view::npos) {
    exp10 += 3 * (static_cast<int>(kDecimal.find(suffix[0])) - 3);
  } else if ((suffix[0] == 'e' || suffix[0] == 'E') && suffix.size() > 1) {
    const auto e = k8s::parse_int64(suffix.substr(1));
    if (!e || *e > 1000 || *e < -1000) return std::nullopt;
    exp10 += static_cast<int>(*e);
  } else {
    return std::nullopt;
  }
  exp10 += 9;  // to nano units
  Nano value = mantissa;
  for (int b = 0; b < binary && value < kNanoCap; ++b)
    value *= 1024;
  for (; exp10 > 0 && value < kNanoCap; --exp10)
    value *= 10;
  if (exp10 > 0 && value != 0) value = kNanoCap;
  if (exp10 < 0) {
    Nano divisor = 1;
    for (; exp10 < 0 && divisor < kNanoCap; ++exp10)
      divisor *= 10;
    value = (value + divisor - 1) / divisor;  // below a nano: rounded up
  }
  if (value > kNanoCap) value = kNanoCap;
  return negative ? -value : value;
}

// A quantity as the API gives it: a string, or a plain JSON number.
std::optional<Nano> parse_quantity(const Json& v) {
  if (v.is_string()) return parse_quantity_text(v.get_ref<const std::string&>());
  if (v.is_number()) return parse_quantity_text(v.dump());
  return std::nullopt;
}

// Quantity.Value(): whole units, rounded away from zero, clamped to int64.
std::int64_t quantity_value(const std::optional<Nano>& q) {
  if (!q) return 0;
  const bool negative = *q < 0;
  const Nano magnitude = negative ? -*q : *q;
  Nano units = (magnitude + kNanoPerUnit - 1) / kNanoPerUnit;
  const Nano max = std::numeric_limits<std::int64_t>::max();
  if (units > max) units = max;
  return negative ? -static_cast<std::int64_t>(units) : static_cast<std::int64_t>(units);
}

// ---------------------------------------------------------------------------------------------
// The objects, parsed once per scheduling cycle

// A PersistentVolumeClaim.
struct Claim {
  std::string ns, name, uid, resource_version;
  std::string volume_name;
  bool bind_completed = false;
  std::optional<std::string> selected_node;
  std::string class_name;                 // GetPersistentVolumeClaimClass: annotation first
  std::optional<std::string> spec_class;  // spec.storageClassName (Score's grouping)
  std::vector<std::string> access_modes;
  std::optional<Nano> request;  // spec.resources.requests.storage
  std::string volume_mode;
  std::string volume_attributes_class;
  std::optional<k8s::LabelSelector> selector;  // nullopt: none
  std::string selector_error;                  // why spec.selector does not parse
  std::string phase;
  bool deleting = false;
  std::optional<std::string> controller_uid;  // the controlling owner's uid
  std::shared_ptr<const Json> object;

  std::string key() const { return ns + "/" + name; }
};

std::shared_ptr<const Claim> parse_claim(Json object) {
  auto c = std::make_shared<Claim>();
  const Json& metadata = at_path(object, {"metadata"});
  const Json& spec = at_path(object, {"spec"});
  c->ns = string_member(metadata, "namespace");
  c->name = string_member(metadata, "name");
  c->uid = string_member(metadata, "uid");
  c->resource_version = string_member(metadata, "resourceVersion");
  c->deleting = member(metadata, "deletionTimestamp") != nullptr;
  const Json& annotations = at_path(metadata, {"annotations"});
  c->bind_completed = member(annotations, std::string(kAnnBindCompleted).c_str()) != nullptr;
  c->selected_node = optional_string(annotations, std::string(kAnnSelectedNode).c_str());
  c->spec_class = optional_string(spec, "storageClassName");
  if (auto beta = optional_string(annotations, std::string(kAnnBetaStorageClass).c_str())) {
    c->class_name = *beta;
  } else {
    c->class_name = c->spec_class.value_or("");
  }
  c->volume_name = string_member(spec, "volumeName");
  c->access_modes = string_list(at_path(spec, {"accessModes"}));
  c->request = parse_quantity(at_path(spec, {"resources", "requests", "storage"}));
  c->volume_mode = optional_string(spec, "volumeMode").value_or("Filesystem");
  c->volume_attributes_class = string_member(spec, "volumeAttributesClassName");
  if (const Json* selector = member(spec, "selector")) {
    try {
      c->selector = k8s::LabelSelector::parse(*selector);
    } catch (const std::exception& e) {
      c->selector_error = e.what();
    }
  }
  c->phase = string_member(at_path(object, {"status"}), "phase");
  if (const Json* owners = member(metadata, "ownerReferences"); owners && owners->is_array()) {
    for (const Json& o : *owners) {
      const Json* controller = member(o, "controller");
      if (controller != nullptr && controller->is_boolean() && controller->get<bool>()) {
        c->controller_uid = string_member(o, "uid");
        break;
      }
    }
  }
  c->object = std::make_shared<const Json>(std::move(object));
  return c;
}

std::shared_ptr<const Claim> parse_claim(const schedhost::Object& o) {
  return parse_claim(field(o, ""));
}

// The in-tree plugins whose PVs are read as CSI once a node's CSINode says they migrated
// (isCSIMigrationOnForPlugin: Portworx's gate is GA and locked on in v1.35).
struct InTreePlugin {
  const char* source;            // the PV spec field
  const char* name;              // the plugin name in the CSINode annotation
  const char* csi_topology_key;  // nullptr: the translation keeps the node affinity
};
constexpr InTreePlugin kInTreePlugins[] = {
    {"gcePersistentDisk", "kubernetes.io/gce-pd", "topology.gke.io/zone"},
    {"awsElasticBlockStore", "kubernetes.io/aws-ebs", "topology.ebs.csi.aws.com/zone"},
    {"cinder", "kubernetes.io/cinder", "topology.cinder.csi.openstack.org/zone"},
    {"azureDisk", "kubernetes.io/azure-disk", nullptr},
    {"portworxVolume", "kubernetes.io/portworx-volume", nullptr},
};

// A PersistentVolume.
struct Volume {
  std::string name, resource_version;
  std::string class_name;  // GetPersistentVolumeClass: annotation first
  std::string spec_class;  // spec.storageClassName (Score's grouping)
  std::optional<Nano> capacity;
  std::vector<std::string> access_modes;
  std::string volume_mode;
  std::string volume_attributes_class;
  std::string phase;
  bool deleting = false;
  bool bound_by_controller = false;  // has the pv.kubernetes.io/bound-by-controller annotation
  std::map<std::string, std::string> labels;
  struct ClaimRef {
    std::string ns, name, uid;
  };
  std::optional<ClaimRef> claim_ref;
  std::optional<k8s::NodeSelector> affinity;  // spec.nodeAffinity.required; nullopt: none
  // CSI migration (tryTranslatePVToCSI): the in-tree plugin, the node affinity as translated,
  // or why the translation fails.
  const InTreePlugin* in_tree = nullptr;
  std::optional<k8s::NodeSelector> translated_affinity;
  std::string translate_error;
  std::shared_ptr<const Json> object;
};

// csi-translation-lib's replaceTopology / getTopologyValues / addTopology /
// translateTopologyFromInTreeToCSI over the JSON of a PV.
namespace translation {

Json* required_terms(Json& pv) {
  Json* affinity = pv["spec"].is_object() ? &pv["spec"] : nullptr;
  if (affinity == nullptr) return nullptr;
  Json* na = affinity->contains("nodeAffinity") ? &(*affinity)["nodeAffinity"] : nullptr;
  if (na == nullptr || !na->is_object() || !na->contains("required")) return nullptr;
  Json& required = (*na)["required"];
  if (!required.is_object() || !required.contains("nodeSelectorTerms")) return nullptr;
  Json& terms = required["nodeSelectorTerms"];
  return terms.is_array() && !terms.empty() ? &terms : nullptr;
}

template <class Fn>
void for_each_expression(Json& pv, Fn&& fn) {
  Json* terms = required_terms(pv);
  if (terms == nullptr) return;
  for (Json& term : *terms) {
    if (!term.is_object() || !term.contains("matchExpressions")) continue;
    Json& exprs = term["matchExpressions"];
    if (!exprs.is_array()) continue;
    for (Json& e : exprs) {
      if (e.is_object()) fn(e);
    }
  }
}

bool key_exists(Json& pv, std::string_view key) {
  bool found = false;
  for_each_expression(pv, [&](Json& e) { found = found || string_member(e, "key") == key; });
  return found;
}

std::vector<std::string> values_of(Json& pv, std::string_view key) {
  std::set<std::string> values;
  for_each_expression(pv, [&](Json& e) {
    if (string_member(e, "key") != key) return;
    for (const std::string& v : string_list(at_path(e, {"values"})))
      values.insert(v);
  });
  return {values.begin(), values.end()};
}

void replace_key(Json& pv, std::string_view from, std::string_view to) {
  for_each_expression(pv, [&](Json& e) {
    if (string_member(e, "key") == from) e["key"] = to;
  });
}

std::string trim(std::string_view s) {
  const auto space = [](char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
  };
  while (!s.empty() && space(s.front()))
    s.remove_prefix(1);
  while (!s.empty() && space(s.back()))
    s.remove_suffix(1);
  return std::string(s);
}

std::vector<std::string> split(std::string_view s, std::string_view sep) {
  std::vector<std::string> out;
  while (true) {
    const std::size_t at = s.find(sep);
    out.emplace_back(s.substr(0, at));
    if (at == std::string_view::npos) return out;
    s.remove_prefix(at + sep.size());
  }
}

void add_topology(Json& pv, std::string_view key, const std::vector<std::string>& zones) {
  std::set<std::string> kept;
  for (const std::string& z : zones) {
    std::string t = trim(z);
    if (!t.empty()) kept.insert(std::move(t));
  }
  if (kept.empty()) return;  // upstream's error here is ignored by its caller
  Json& spec = pv["spec"];
  if (!spec.is_object()) spec = Json::object();
  Json& na = spec["nodeAffinity"];
  if (!na.is_object()) na = Json::object();
  Json& required = na["required"];
  if (!required.is_object()) required = Json::object();
  Json& terms = required["nodeSelectorTerms"];
  if (!terms.is_array() || terms.empty()) terms = Json::array({Json::object()});
  for (Json& term : terms) {
    if (!term.is_object()) term = Json::object();
    Json& exprs = term["matchExpressions"];
    if (!exprs.is_array()) exprs = Json::array();
    exprs.push_back({{"key", key}, {"operator", "In"}, {"values", kept}});
  }
}

void translate_topology(Json& pv, std::string_view csi_key) {
  const std::map<std::string, std::string> labels = string_map(at_path(pv, {"metadata", "labels"}));
  std::string_view zone = kZone;
  std::string_view region = kRegion;
  if (key_exists(pv, kZone)) {
  } else if (key_exists(pv, kBetaZone)) {
    zone = kBetaZone;
    region = kBetaRegion;
  } else if (labels.count(std::string(kZone)) != 0) {
  } else if (labels.count(std::string(kBetaZone)) != 0) {
    zone = kBetaZone;
    region = kBetaRegion;
  }
  if (!values_of(pv, zone).empty()) {
    replace_key(pv, zone, csi_key);
  } else if (const auto it = labels.find(std::string(zone)); it != labels.end()) {
    add_topology(pv, csi_key, split(it->second, "__"));
  }
  if (region == kBetaRegion && !values_of(pv, kBetaRegion).empty()) {
    replace_key(pv, kBetaRegion, kRegion);
  }
}

// gceGetRegionFromZones's errors (the region itself only names the volume handle).
std::string gce_region_error(const std::vector<std::string>& zones) {
  std::set<std::string> regions;
  for (const std::string& zone : zones) {
    const std::vector<std::string> parts = split(zone, "-");
    if (parts.size() != 3) {
      return "zone in unexpected format, expected: {locale}-{region}-{zone}, got: " + zone;
    }
    regions.insert(parts[0] + "-" + parts[1]);
  }
  if (regions.size() != 1) {
    std::string set = "map[";
    for (const std::string& r : regions)
      set += (set.size() > 4 ? " " : "") + r + ":{}";
    return "multiple or no regions gotten from zones, got: " + set + "]";
  }
  return {};
}

// KubernetesVolumeIDToEBSVolumeID's errors.
std::string aws_volume_id_error(const std::string& id) {
  if (id.rfind("aws://", 0) != 0) return {};
  std::string rest = id.substr(6);
  const std::size_t end = rest.find_first_of("?#");
  if (end != std::string::npos) rest.resize(end);
  const std::size_t slash = rest.find('/');
  std::string path = slash == std::string::npos ? std::string() : rest.substr(slash);
  while (!path.empty() && path.front() == '/')
    path.erase(path.begin());
  while (!path.empty() && path.back() == '/')
    path.pop_back();
  if (path.rfind("vol-", 0) == 0 && path.find('/') == std::string::npos) return {};
  return "Invalid format for AWS volume (" + id + ")";
}

// TranslateInTreePVToCSI: the translated PV's JSON, or the error.
std::variant<Json, std::string> translate(const Json& original, const InTreePlugin& plugin) {
  Json pv = original;
  const Json& source = at_path(pv, {"spec", plugin.source});
  const std::string name = plugin.name;
  if (name == "kubernetes.io/aws-ebs") {
    if (std::string err = aws_volume_id_error(string_member(source, "volumeID")); !err.empty()) {
      return "failed to translate Kubernetes ID to EBS Volume ID " + err;
    }
  } else if (name == "kubernetes.io/gce-pd") {
    const std::map<std::string, std::string> labels =
        string_map(at_path(pv, {"metadata", "labels"}));
    std::string zones_label;
    if (auto it = labels.find(std::string(kBetaZone)); it != labels.end()) zones_label = it->second;
    if (zones_label.empty()) {
      if (auto it = labels.find(std::string(kZone)); it != labels.end()) zones_label = it->second;
    }
    const std::vector<std::string> zones = split(zones_label, "__");
    if (zones.size() > 1) {
      if (std::string err = gce_region_error(zones); !err.empty()) {
        return "failed to get region from zones: " + err;
      }
    }
  } else if (name == "kubernetes.io/azure-disk") {
    if (const auto kind = optional_string(source, "kind")) {
      std::string lower = *kind;
      for (char& c : lower)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (lower != "managed") return "kind(" + *kind + ") is not supported in csi migration";
    }
  }
  if (plugin.csi_topology_key != nullptr) translate_topology(pv, plugin.csi_topology_key);
  return pv;
}

}  // namespace translation

std::optional<k8s::NodeSelector> parse_affinity(const Json& pv) {
  const Json& required = at_path(pv, {"spec", "nodeAffinity", "required"});
  if (required.is_null()) return std::nullopt;
  return k8s::NodeSelector::parse(required);
}

std::shared_ptr<const Volume> parse_volume(Json object) {
  auto v = std::make_shared<Volume>();
  const Json& metadata = at_path(object, {"metadata"});
  const Json& spec = at_path(object, {"spec"});
  v->name = string_member(metadata, "name");
  v->resource_version = string_member(metadata, "resourceVersion");
  v->deleting = member(metadata, "deletionTimestamp") != nullptr;
  const Json& annotations = at_path(metadata, {"annotations"});
  v->bound_by_controller =
      member(annotations, std::string(kAnnBoundByController).c_str()) != nullptr;
  v->spec_class = string_member(spec, "storageClassName");
  v->class_name = optional_string(annotations, std::string(kAnnBetaStorageClass).c_str())
                      .value_or(v->spec_class);
  v->capacity = parse_quantity(at_path(spec, {"capacity", "storage"}));
  v->access_modes = string_list(at_path(spec, {"accessModes"}));
  v->volume_mode = optional_string(spec, "volumeMode").value_or("Filesystem");
  v->volume_attributes_class = string_member(spec, "volumeAttributesClassName");
  v->phase = string_member(at_path(object, {"status"}), "phase");
  v->labels = string_map(at_path(metadata, {"labels"}));
  if (const Json* ref = member(spec, "claimRef"); ref && ref->is_object()) {
    v->claim_ref = Volume::ClaimRef{string_member(*ref, "namespace"), string_member(*ref, "name"),
                                    string_member(*ref, "uid")};
  }
  v->affinity = parse_affinity(object);
  for (const InTreePlugin& p : kInTreePlugins) {
    if (member(spec, p.source) == nullptr) continue;
    v->in_tree = &p;
    auto translated = translation::translate(object, p);
    if (auto* error = std::get_if<std::string>(&translated)) {
      v->translate_error = "could not translate pv: " + *error;
    } else {
      v->translated_affinity = parse_affinity(std::get<Json>(translated));
    }
    break;
  }
  v->object = std::make_shared<const Json>(std::move(object));
  return v;
}

std::shared_ptr<const Volume> parse_volume(const schedhost::Object& o) {
  return parse_volume(field(o, ""));
}

// GetPersistentVolumeClass of a snapshot PV, without parsing all of it.
std::string volume_class(const schedhost::Object& pv) {
  if (auto beta = pv.annotation(kAnnBetaStorageClass)) return std::string(*beta);
  const Json name = field(pv, "/spec/storageClassName");
  return name.is_string() ? name.get<std::string>() : std::string();
}

// volume.CheckNodeAffinity against a node's labels (a node without a name: matchFields pass).
bool check_node_affinity(const std::optional<k8s::NodeSelector>& affinity,
                         const schedhost::NodeInfo& node) {
  return !affinity || affinity->matches(node, std::string_view());
}

// IsVolumeBoundToClaim.
bool is_volume_bound_to_claim(const Volume& pv, const Claim& claim) {
  if (!pv.claim_ref) return false;
  if (claim.name != pv.claim_ref->name || claim.ns != pv.claim_ref->ns) return false;
  return pv.claim_ref->uid.empty() || claim.uid == pv.claim_ref->uid;
}

// CheckAccessModes: the PV has every access mode of the claim.
bool check_access_modes(const Claim& claim, const Volume& pv) {
  for (const std::string& mode : claim.access_modes) {
    if (std::find(pv.access_modes.begin(), pv.access_modes.end(), mode) == pv.access_modes.end()) {
      return false;
    }
  }
  return true;
}

// A StorageClass's allowedTopologies (MatchTopologySelectorTerms): terms that are empty or do
// not parse select nothing; no terms at all select every node.
struct TopologyTerms {
  bool any = true;                                         // no terms
  std::vector<std::vector<k8s::Requirement>> valid_terms;  // the terms that can match

  static TopologyTerms parse(const Json& terms) {
    TopologyTerms t;
    if (!terms.is_array() || terms.empty()) return t;
    t.any = false;
    for (const Json& term : terms) {
      const Json& exprs = at_path(term, {"matchLabelExpressions"});
      if (!exprs.is_array() || exprs.empty()) continue;
      std::vector<k8s::Requirement> reqs;
      std::vector<FieldError> errors;
      for (const Json& e : exprs) {
        auto r = k8s::Requirement::make(string_member(e, "key"), k8s::Operator::In,
                                        string_list(at_path(e, {"values"})), FieldPath(), errors);
        if (r) reqs.push_back(std::move(*r));
      }
      if (errors.empty()) t.valid_terms.push_back(std::move(reqs));
    }
    return t;
  }

  bool matches(const schedhost::NodeInfo& node) const {
    if (any) return true;
    for (const auto& reqs : valid_terms) {
      bool all = true;
      for (const k8s::Requirement& r : reqs)
        all = all && r.matches(node);
      if (all) return true;
    }
    return false;
  }
};

// A CSIStorageCapacity of a class.
struct Capacity {
  std::optional<Nano> capacity;
  std::optional<Nano> maximum_volume_size;
  k8s::LabelSelector node_topology = k8s::LabelSelector::nothing();  // nil: no node has access

  // volumeLimit: maximumVolumeSize when set, else capacity.
  const std::optional<Nano>& limit() const {
    return maximum_volume_size ? maximum_volume_size : capacity;
  }
};

// What provisioning a claim of one class takes, and the PVs of that class (ListPVs).
struct ClassData {
  bool found = false;  // the StorageClass exists
  std::string provisioner;
  TopologyTerms allowed_topologies;
  bool capacity_tracked = false;     // the CSIDriver named after the provisioner opts in
  std::vector<Capacity> capacities;  // CSIStorageCapacities of the class, in snapshot order
  std::vector<std::shared_ptr<const Volume>> volumes;
};

// The pod's claims as PreFilter sorted them (upstream's PodVolumeClaims).
struct PodClaims {
  struct Bound {
    std::shared_ptr<const Claim> claim;
    std::shared_ptr<const Volume> volume;  // nullptr: no such PV
  };
  std::vector<Bound> bound;
  std::vector<std::shared_ptr<const Claim>> delayed;
  std::map<std::string, ClassData> classes;  // the delayed claims' classes
};

// What Filter found for one node (upstream's PodVolumes); Reserve replaces it with what it
// assumed.
struct PodVolumes {
  struct Binding {
    std::shared_ptr<const Volume> volume;
    std::shared_ptr<const Claim> claim;
  };
  struct Provision {
    std::shared_ptr<const Claim> claim;
    std::optional<Capacity> node_capacity;
  };
  std::vector<Binding> static_bindings;
  std::vector<Provision> dynamic_provisions;
};

// The CycleState value. Shared by the clones of the state, as upstream's stateData is (its
// Clone returns itself): Filter runs on many threads and records each node's PodVolumes under
// the mutex.
struct StateData {
  std::shared_ptr<const PodClaims> claims;  // nullptr: the pod has no claim (PreFilter skipped)
  std::mutex mutex;
  std::unordered_map<std::string, PodVolumes> by_node;
  bool has_static_bindings = false;
  bool all_bound = false;
};
struct State {
  std::shared_ptr<StateData> data;
};

// ---------------------------------------------------------------------------------------------
// The assume cache (upstream's passiveAssumeCache over the snapshot): an assumed object stands
// for the snapshot's object while that object keeps the resourceVersion the assumed one was
// made from; once the snapshot has another version (or none), the snapshot wins.

template <class T>
class AssumeCache {
 public:
  explicit AssumeCache(std::string resource_name) : resource_(std::move(resource_name)) {}

  // The assumed object for key if it was made from snapshot_rv, else nullptr.
  std::shared_ptr<const T> assumed(const std::string& key, std::string_view snapshot_rv) const {
    std::shared_lock lock(mutex_);
    const auto it = assumed_.find(key);
    if (it == assumed_.end() || it->second->resource_version != snapshot_rv) return nullptr;
    return it->second;
  }

  // Assume: stored_rv is the snapshot object's version (nullopt: not in the snapshot). Returns
  // upstream's error, or "".
  std::string assume(const std::string& key, const std::optional<std::string>& stored_rv,
                     std::shared_ptr<const T> object) {
    if (!stored_rv) return resource_ + " " + go_quote(key) + " not found";
    if (*stored_rv != object->resource_version) {
      return go_quote(key) + " is out of sync (stored: " + *stored_rv +
             ", assume: " + object->resource_version + ")";
    }
    std::unique_lock lock(mutex_);
    assumed_[key] = std::move(object);
    return {};
  }

  // Restore: drops the assumption of key made from version rv.
  void restore(const std::string& key, const std::string& rv) {
    std::unique_lock lock(mutex_);
    const auto it = assumed_.find(key);
    if (it != assumed_.end() && it->second->resource_version == rv) assumed_.erase(it);
  }

  // Drops the assumptions the snapshot has moved past (upstream's mayExpire on informer
  // events). current_rv(key): the snapshot object's version, nullopt when it is gone.
  template <class CurrentRv>
  void expire(CurrentRv&& current_rv) {
    {
      std::shared_lock lock(mutex_);
      if (assumed_.empty()) return;
    }
    std::unique_lock lock(mutex_);
    for (auto it = assumed_.begin(); it != assumed_.end();) {
      const std::optional<std::string> rv = current_rv(it->first);
      if (!rv || *rv != it->second->resource_version) {
        it = assumed_.erase(it);
      } else {
        ++it;
      }
    }
  }

  std::size_t size() const {
    std::shared_lock lock(mutex_);
    return assumed_.size();
  }

 private:
  std::string resource_;
  mutable std::shared_mutex mutex_;
  std::map<std::string, std::shared_ptr<const T>> assumed_;
};

// ---------------------------------------------------------------------------------------------
// Args

struct ShapePoint {
  std::int64_t utilization = 0;
  std::int64_t score = 0;
};

struct Args {
  std::int64_t bind_timeout_seconds = 600;
  std::vector<ShapePoint> shape;  // scores scaled to 0..100; empty without the gate
};

[[noreturn]] void refuse(const std::string& message) {
  throw std::invalid_argument(message);
}

void check_fields(const Json& object, const std::string& path,
                  std::initializer_list<std::string_view> known) {
  for (const auto& item : object.items()) {
    if (std::find(known.begin(), known.end(), item.key()) == known.end()) {
      refuse("strict decoding error: unknown field " +
             go_quote(path.empty() ? item.key() : path + "." + item.key()));
    }
  }
}

std::int64_t expect_integer(const Json& value, const std::string& path, std::int64_t min,
                            std::int64_t max) {
  bool in_range = false;
  if (value.is_number_unsigned()) {
    in_range = value.get<std::uint64_t>() <= static_cast<std::uint64_t>(max);
  } else if (value.is_number_integer()) {
    const auto v = value.get<std::int64_t>();
    in_range = v >= min && v <= max;
  } else {
    refuse(path + ": must be an integer, got " + value.dump());
  }
  if (!in_range) refuse(path + ": " + value.dump() + " does not fit its integer type");
  return value.get<std::int64_t>();
}

// Go's %#v of a []config.UtilizationShapePoint.
std::string go_shape(const std::vector<ShapePoint>& shape) {
  std::string out = "[]config.UtilizationShapePoint{";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) out += ", ";
    out += "config.UtilizationShapePoint{Utilization:" + std::to_string(shape[i].utilization) +
           ", Score:" + std::to_string(shape[i].score) + "}";
  }
  return out + "}";
}

// validateFunctionShape.
void validate_shape(const std::vector<ShapePoint>& shape, std::vector<FieldError>& errors) {
  const FieldPath path("shape");
  if (shape.empty()) {
    errors.push_back({path.str(), "Required value", "", "at least one point must be specified"});
    return;
  }
  for (std::size_t i = 1; i < shape.size(); ++i) {
    if (shape[i - 1].utilization >= shape[i].utilization) {
      errors.push_back(FieldError::invalid(path.index(i).child("utilization"),
                                           std::to_string(shape[i].utilization),
                                           "values must be sorted in increasing order"));
      break;
    }
  }
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (shape[i].utilization < 0 || shape[i].utilization > kMaxUtilization) {
      errors.push_back(FieldError::invalid(path.index(i).child("utilization"),
                                           std::to_string(shape[i].utilization),
                                           "not in valid range [0, 100]"));
    }
    if (shape[i].score < 0 || shape[i].score > kMaxCustomPriorityScore) {
      errors.push_back(FieldError::invalid(path.index(i).child("score"),
                                           std::to_string(shape[i].score),
                                           "not in valid range [0, 10]"));
    }
  }
}

// Decoded as v1 VolumeBindingArgs, defaulted (SetDefaults_VolumeBindingArgs) and validated
// (ValidateVolumeBindingArgsWithOptions) as upstream's New does.
Args parse_args(const Json& json, bool capacity_scoring) {
  if (!json.is_object()) refuse("args must be an object (VolumeBindingArgs), got " + json.dump());
  check_fields(json, "", {"bindTimeoutSeconds", "shape"});
  Args args;
  if (const Json* t = member(json, "bindTimeoutSeconds")) {
    args.bind_timeout_seconds =
        expect_integer(*t, "bindTimeoutSeconds", std::numeric_limits<std::int64_t>::min(),
                       std::numeric_limits<std::int64_t>::max());
  }
  bool has_shape = false;
  std::vector<ShapePoint> shape;
  if (const Json* s = member(json, "shape")) {
    if (!s->is_array()) refuse("shape: must be a list, got " + s->dump());
    has_shape = true;
    constexpr std::int64_t kMin = std::numeric_limits<std::int32_t>::min();
    constexpr std::int64_t kMax = std::numeric_limits<std::int32_t>::max();
    for (std::size_t i = 0; i < s->size(); ++i) {
      const std::string path = "shape[" + std::to_string(i) + "]";
      const Json& point = (*s)[i];
      if (!point.is_object()) refuse(path + ": must be an object, got " + point.dump());
      check_fields(point, path, {"utilization", "score"});
      ShapePoint p;
      if (const Json* u = member(point, "utilization"))
        p.utilization = expect_integer(*u, path + ".utilization", kMin, kMax);
      if (const Json* sc = member(point, "score"))
        p.score = expect_integer(*sc, path + ".score", kMin, kMax);
      shape.push_back(p);
    }
  }
  if (shape.empty() && capacity_scoring) {
    shape = {{0, kMaxCustomPriorityScore}, {100, 0}};
  }
  std::vector<FieldError> errors;
  if (args.bind_timeout_seconds < 0) {
    errors.push_back(FieldError::invalid(FieldPath("bindTimeoutSeconds"),
                                         std::to_string(args.bind_timeout_seconds),
                                         "invalid BindTimeoutSeconds, should not be a negative "
                                         "value"));
  }
  if (capacity_scoring) {
    validate_shape(shape, errors);
  } else if (has_shape) {
    errors.push_back(FieldError::invalid(FieldPath("shape"), go_shape(shape),
                                         "unexpected field `shape`, remove it or turn on the "
                                         "feature gate StorageCapacityScoring"));
  }
  if (!errors.empty()) refuse(k8s::aggregate(errors));
  if (capacity_scoring) {
    for (const ShapePoint& p : shape)
      args.shape.push_back({p.utilization, p.score * (kMaxNodeScore / kMaxCustomPriorityScore)});
  }
  return args;
}

// helper.BuildBrokenLinearFunction over the scaled shape.
std::int64_t broken_linear(const std::vector<ShapePoint>& shape, std::int64_t p) {
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (p <= shape[i].utilization) {
      if (i == 0) return shape[0].score;
      return shape[i - 1].score + (shape[i].score - shape[i - 1].score) *
                                      (p - shape[i - 1].utilization) /
                                      (shape[i].utilization - shape[i - 1].utilization);
    }
  }
  return shape.back().score;
}

// ---------------------------------------------------------------------------------------------
// The pod's volumes

struct ClaimVolume {
  std::string claim;  // the claim's name
  bool ephemeral = false;
};

Json pod_volumes(const schedhost::Pod& pod) {
  Json volumes = field(pod, "/spec/volumes");
  return volumes.is_array() ? volumes : Json::array();
}

// The claims of the pod's persistentVolumeClaim and ephemeral volumes, in volume order.
std::vector<ClaimVolume> claim_volumes(const schedhost::Pod& pod, const Json& volumes) {
  std::vector<ClaimVolume> out;
  for (const Json& v : volumes) {
    if (const Json* pvc = member(v, "persistentVolumeClaim")) {
      out.push_back({string_member(*pvc, "claimName"), false});
    } else if (member(v, "ephemeral") != nullptr) {
      out.push_back({std::string(pod.name()) + "-" + string_member(v, "name"), true});
    }
  }
  return out;
}

// ephemeral.VolumeIsForPod: "" when the claim is the pod's.
std::string volume_is_for_pod(const schedhost::Pod& pod, const Claim& claim) {
  if (claim.ns != pod.namespace_name() || !claim.controller_uid ||
      *claim.controller_uid != pod.uid()) {
    return "PVC " + claim.ns + "/" + claim.name + " was not created for pod " +
           std::string(pod.namespace_name()) + "/" + std::string(pod.name()) +
           " (pod is not owner)";
  }
  return {};
}

// The writes PreBind will send once the host can (upstream bindAPIUpdate): each assumed PV,
// then each claim to provision, as a full PUT.
struct ApiWrite {
  std::string verb;
  std::string path;
  Json body;
};

std::vector<ApiWrite> binding_writes(const PodVolumes& volumes) {
  std::vector<ApiWrite> writes;
  for (const PodVolumes::Binding& b : volumes.static_bindings) {
    writes.push_back({"PUT", "/api/v1/persistentvolumes/" + b.volume->name, *b.volume->object});
  }
  for (const PodVolumes::Provision& p : volumes.dynamic_provisions) {
    writes.push_back(
        {"PUT", "/api/v1/namespaces/" + p.claim->ns + "/persistentvolumeclaims/" + p.claim->name,
         *p.claim->object});
  }
  return writes;
}

// The claim ns/name as the API server has it now; nullopt when it cannot be read.
std::optional<Json> get_claim(schedhost::Context& ctx, const Claim& claim, std::string& error) {
  const std::string path =
      "/api/v1/namespaces/" + claim.ns + "/persistentvolumeclaims/" + claim.name;
  const auto r = ctx.api_request("GET", path);
  if (!r.answered()) {
    error = r.error;
    return std::nullopt;
  }
  if (r.status != 200) {
    error = "GET " + path + ": " + std::to_string(r.status);
    return std::nullopt;
  }
  return Json::parse(r.body, nullptr, false);
}

// upstream checkBindings, on the API server's copies: true when every claim of the pod is fully
// bound (spec.volumeName and the PV controller's bind-completed annotation), an error when a
// binding can no longer complete (a provisioner gave up: it removed selected-node).
std::optional<std::string> bindings_done(schedhost::Context& ctx, const schedhost::Pod& pod,
                                         const PodVolumes& volumes, std::string_view node,
                                         bool& done) {
  done = true;
  std::string error;
  // A pod deleted meanwhile ends the wait (upstream looks before the volumes, on each look; its
  // lister's NotFound reads `pod "<name>" not found`).
  const std::string pod_path = "/api/v1/namespaces/" + std::string(pod.namespace_name()) +
                               "/pods/" + std::string(pod.name());
  const auto still = ctx.api_request("GET", pod_path);
  if (!still.answered()) return still.error;
  if (still.status == 404) {
    return "pod does not exist any more: pod \"" + std::string(pod.name()) + "\" not found";
  }
  auto fully_bound = [](const Json& pvc) {
    const Json* spec = member(pvc, "spec");
    const Json* name = spec == nullptr ? nullptr : member(*spec, "volumeName");
    const Json* meta = member(pvc, "metadata");
    const Json* annotations = meta == nullptr ? nullptr : member(*meta, "annotations");
    return name != nullptr && name->is_string() && !name->get<std::string>().empty() &&
           annotations != nullptr &&
           member(*annotations, std::string(kAnnBindCompleted).c_str()) != nullptr;
  };
  for (const PodVolumes::Binding& b : volumes.static_bindings) {
    const std::optional<Json> pvc = get_claim(ctx, *b.claim, error);
    if (!pvc) return error;
    if (!fully_bound(*pvc)) done = false;
  }
  for (const PodVolumes::Provision& p : volumes.dynamic_provisions) {
    const std::optional<Json> pvc = get_claim(ctx, *p.claim, error);
    if (!pvc) return error;
    const Json* meta = member(*pvc, "metadata");
    const Json* annotations = meta == nullptr ? nullptr : member(*meta, "annotations");
    const Json* selected = annotations == nullptr
                               ? nullptr
                               : member(*annotations, std::string(kAnnSelectedNode).c_str());
    if (selected == nullptr || !selected->is_string() || selected->get<std::string>() != node) {
      return "provisioning failed for PVC " + go_quote(p.claim->name);
    }
    if (!fully_bound(*pvc)) done = false;
  }
  return std::nullopt;
}

// upstream BindPodVolumes: the writes (bindAPIUpdate), then a wait, polled once a second up to
// bindTimeoutSeconds, until the PV controller (or a provisioner) has completed every binding. In
// `run` there is no API server: the replay takes the bindings as written and completed, as they
// would be in a cluster (the assume cache keeps them for the pods after this one).
Status bind_pod_volumes(schedhost::Context& ctx, const schedhost::Pod& pod,
                        const PodVolumes& volumes, std::string_view node,
                        std::int64_t timeout_seconds) {
  for (const ApiWrite& w : binding_writes(volumes)) {
    const auto r = ctx.api_request(w.verb, w.path, w.body.dump());
    if (r.no_api_server) return {};
    if (!r.answered()) return Status::Error("binding volumes: " + r.error);
    if (r.status < 200 || r.status >= 300) {
      const Json answer = Json::parse(r.body, nullptr, false);
      const Json* message = answer.is_object() ? member(answer, "message") : nullptr;
      return Status::Error("binding volumes: " + w.verb + " " + w.path + ": " +
                           (message != nullptr && message->is_string() ? message->get<std::string>()
                                                                       : std::to_string(r.status)));
    }
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_seconds);
  while (true) {
    bool done = false;
    if (std::optional<std::string> failed = bindings_done(ctx, pod, volumes, node, done)) {
      return Status::Error("binding volumes: " + *failed);
    }
    if (done) return {};
    if (std::chrono::steady_clock::now() >= deadline) {
      return Status::Error("binding volumes: context deadline exceeded");
    }
    std::this_thread::sleep_for(std::chrono::seconds(1));
  }
}

// Semantic equality of two optional lists (nil and empty are equal).
bool same_list(const Json& a, const Json& b) {
  const bool a_empty = !a.is_array() || a.empty();
  const bool b_empty = !b.is_array() || b.empty();
  if (a_empty || b_empty) return a_empty == b_empty;
  return a == b;
}

// ---------------------------------------------------------------------------------------------
// The plugin

class VolumeBinding {
 public:
  VolumeBinding(const nlohmann::json& args, const schedhost::Host& host)
      : capacity_scoring_(host.feature_enabled("StorageCapacityScoring", false)),
        volume_attributes_class_(host.feature_enabled("VolumeAttributesClass", true)),
        args_(parse_args(args, capacity_scoring_)) {}

  schedhost::Status SignPod(schedhost::Context&, const schedhost::Pod& pod,
                            schedhost::PodSignature& signature) const {
    schedhost::k8s::sign_volumes(pod, signature);
    return {};
  }

  // v1.35, queueing hints on (GA): no node taint update.
  void EventsToRegister(schedhost::EventRegistry& events) const {
    namespace action = schedhost::action;
    events.add(resource::kStorageClass, action::kAdd | action::kUpdate);
    events.add(resource::kPersistentVolumeClaim, action::kAdd | action::kUpdate);
    events.add(resource::kPersistentVolume, action::kAdd | action::kUpdate);
    events.add(resource::kNode, action::kAdd | action::kUpdateNodeLabel);
    events.add(resource::kCSINode, action::kAdd | action::kUpdate);
    events.add(resource::kCSIDriver, action::kUpdate);
    events.add(resource::kCSIStorageCapacity, action::kAdd | action::kUpdate);
  }

  schedhost::QueueingHint IsSchedulableAfter(const schedhost::Pod& pod,
                                             const schedhost::ClusterEvent& event) const {
    using schedhost::QueueingHint;
    const auto& old_object = event.old_object;
    const auto& new_object = event.new_object;
    if (event.resource == resource::kStorageClass) {
      // isSchedulableAfterStorageClassChange: a new class, or new allowedTopologies.
      if (!old_object || !new_object) return QueueingHint::kQueue;
      return same_list(field(*old_object, "/allowedTopologies"),
                       field(*new_object, "/allowedTopologies"))
                 ? QueueingHint::kSkip
                 : QueueingHint::kQueue;
    }
    if (event.resource == resource::kPersistentVolumeClaim) {
      // isSchedulableAfterPersistentVolumeClaimChange: one of the pod's claims.
      if (!new_object) return QueueingHint::kQueue;
      if (new_object->namespace_name() != pod.namespace_name()) return QueueingHint::kSkip;
      for (const ClaimVolume& c : claim_volumes(pod, pod_volumes(pod))) {
        if (c.claim == new_object->name()) return QueueingHint::kQueue;
      }
      return QueueingHint::kSkip;
    }
    if (event.resource == resource::kCSINode) {
      // isSchedulableAfterCSINodeChange: a new CSINode, or new migrated plugins.
      if (!old_object || !new_object) return QueueingHint::kQueue;
      return old_object->annotation(kAnnMigratedPlugins).value_or("") ==
                     new_object->annotation(kAnnMigratedPlugins).value_or("")
                 ? QueueingHint::kSkip
                 : QueueingHint::kQueue;
    }
    if (event.resource == resource::kCSIDriver) {
      // isSchedulableAfterCSIDriverChange: an inline CSI volume of that driver that lost
      // capacity tracking.
      if (!old_object || !new_object) return QueueingHint::kQueue;
      const auto tracked = [](const schedhost::Object& d) {
        const Json v = field(d, "/spec/storageCapacity");
        return v.is_boolean() && v.get<bool>();
      };
      for (const Json& v : pod_volumes(pod)) {
        const Json* csi = member(v, "csi");
        if (csi == nullptr || string_member(*csi, "driver") != new_object->name()) continue;
        if (tracked(*old_object) && !tracked(*new_object)) return QueueingHint::kQueue;
      }
      return QueueingHint::kSkip;
    }
    if (event.resource == resource::kCSIStorageCapacity) {
      // isSchedulableAfterCSIStorageCapacityChange: a new one, or a larger volume limit.
      if (!old_object || !new_object) return QueueingHint::kQueue;
      const auto limit = [](const schedhost::Object& c) {
        std::optional<Nano> max = parse_quantity(field(c, "/maximumVolumeSize"));
        return max ? max : parse_quantity(field(c, "/capacity"));
      };
      const std::optional<Nano> old_limit = limit(*old_object);
      const std::optional<Nano> new_limit = limit(*new_object);
      if (new_limit && (!old_limit || quantity_value(new_limit) > quantity_value(old_limit))) {
        return QueueingHint::kQueue;
      }
      return QueueingHint::kSkip;
    }
    return QueueingHint::kQueue;  // PersistentVolume and Node: no hint
  }

  schedhost::Status PreFilter(schedhost::Context& ctx, schedhost::CycleState& state,
                              const schedhost::Pod& pod, schedhost::PreFilterResult&) const {
    expire_assumptions(ctx);
    const Json volumes = pod_volumes(pod);
    const std::vector<ClaimVolume> claims = claim_volumes(pod, volumes);

    // podHasPVCs, on the snapshot's claims.
    std::vector<std::shared_ptr<const Claim>> snapshot_claims;
    for (const ClaimVolume& c : claims) {
      const auto object =
          ctx.object(resource::kPersistentVolumeClaim, pod.namespace_name(), c.claim);
      if (!object) {
        return Status::UnschedulableAndUnresolvable(
            c.ephemeral ? "waiting for ephemeral volume controller to create the "
                          "persistentvolumeclaim " +
                              go_quote(c.claim)
                        : "persistentvolumeclaim " + go_quote(c.claim) + " not found");
      }
      std::shared_ptr<const Claim> claim = parse_claim(*object);
      if (claim->phase == "Lost") {
        return Status::UnschedulableAndUnresolvable(
            "persistentvolumeclaim " + go_quote(claim->name) +
            " bound to non-existent persistentvolume " + go_quote(claim->volume_name));
      }
      if (claim->deleting) {
        return Status::UnschedulableAndUnresolvable("persistentvolumeclaim " +
                                                    go_quote(claim->name) + " is being deleted");
      }
      if (c.ephemeral) {
        if (std::string err = volume_is_for_pod(pod, *claim); !err.empty()) {
          return Status::UnschedulableAndUnresolvable(std::move(err));
        }
      }
      snapshot_claims.push_back(std::move(claim));
    }
    auto data = std::make_shared<StateData>();
    if (claims.empty()) {
      state.emplace<State>(kStateKey, State{std::move(data)});
      return Status::Skip();
    }

    // GetPodVolumeClaims, through the assume cache.
    auto pod_claims = std::make_shared<PodClaims>();
    bool immediate = false;
    for (std::size_t i = 0; i < claims.size(); ++i) {
      std::shared_ptr<const Claim> claim = snapshot_claims[i];
      if (auto assumed = claims_.assumed(claim->key(), claim->resource_version)) {
        claim = std::move(assumed);
        if (claims[i].ephemeral) {
          if (std::string err = volume_is_for_pod(pod, *claim); !err.empty()) {
            return Status::Error(std::move(err));
          }
        }
      }
      if (!claim->volume_name.empty() && claim->bind_completed) {
        pod_claims->bound.push_back({claim, cached_volume(ctx, claim->volume_name)});
        continue;
      }
      bool delay = false;
      if (!claim->class_name.empty()) {
        if (const auto sc = ctx.object(resource::kStorageClass, "", claim->class_name)) {
          const Json mode = field(*sc, "/volumeBindingMode");
          if (!mode.is_string()) {
            return Status::Error("VolumeBindingMode not set for StorageClass " +
                                 go_quote(claim->class_name));
          }
          delay = mode.get<std::string>() == "WaitForFirstConsumer";
        }
      }
      if (delay && claim->volume_name.empty()) {
        pod_claims->delayed.push_back(claim);
      } else {
        immediate = true;  // pre-bound claims too: the PV controller binds them
      }
    }
    if (immediate) {
      return Status::UnschedulableAndUnresolvable(
          "pod has unbound immediate PersistentVolumeClaims");
    }
    for (const auto& claim : pod_claims->delayed) {
      if (pod_claims->classes.count(claim->class_name) == 0) {
        pod_claims->classes[claim->class_name] = class_data(ctx, claim->class_name);
      }
    }
    data->claims = std::move(pod_claims);
    state.emplace<State>(kStateKey, State{std::move(data)});
    return {};
  }

  schedhost::Status Filter(schedhost::Context& ctx, const schedhost::CycleState& state,
                           const schedhost::Pod&, const schedhost::NodeInfo& node) const {
    const State* s = state.read<State>(kStateKey);
    if (s == nullptr || s->data == nullptr) return Status::Error("not found");
    StateData& data = *s->data;
    PodVolumes volumes;
    if (data.claims != nullptr) {
      std::vector<std::string> reasons;
      std::string error;
      volumes = find_pod_volumes(ctx, *data.claims, node, reasons, error);
      if (!error.empty()) return Status::Error(std::move(error));
      if (!reasons.empty()) return Status(Code::UnschedulableAndUnresolvable, std::move(reasons));
    }
    const std::lock_guard<std::mutex> lock(data.mutex);
    data.has_static_bindings = data.has_static_bindings || !volumes.static_bindings.empty();
    data.by_node[std::string(node.name())] = std::move(volumes);
    return {};
  }

  schedhost::Status PreScore(schedhost::Context&, schedhost::CycleState& state,
                             const schedhost::Pod&, const schedhost::NodeList&) const {
    if (args_.shape.empty()) return Status::Skip();  // no scorer without the gate
    const State* s = state.read<State>(kStateKey);
    if (s == nullptr || s->data == nullptr) return Status::Error("not found");
    const std::lock_guard<std::mutex> lock(s->data->mutex);
    if (s->data->has_static_bindings || capacity_scoring_) return {};
    return Status::Skip();
  }

  schedhost::Status Score(schedhost::Context&, const schedhost::CycleState& state,
                          const schedhost::Pod&, const schedhost::NodeInfo& node,
                          std::int64_t& score) const {
    score = 0;
    if (args_.shape.empty()) return {};
    const State* s = state.read<State>(kStateKey);
    if (s == nullptr || s->data == nullptr) return Status::Error("not found");
    PodVolumes volumes;
    {
      const std::lock_guard<std::mutex> lock(s->data->mutex);
      const auto it = s->data->by_node.find(std::string(node.name()));
      if (it == s->data->by_node.end()) return {};
      volumes = it->second;
    }
    struct Resource {
      std::int64_t requested = 0;
      std::int64_t capacity = 0;
    };
    std::map<std::string, Resource> classes;
    if (!volumes.static_bindings.empty() || !capacity_scoring_) {
      for (const PodVolumes::Binding& b : volumes.static_bindings) {
        Resource& r = classes[b.volume->spec_class];
        r.requested += quantity_value(b.claim->request);
        r.capacity += quantity_value(b.volume->capacity);
      }
    } else {
      for (const PodVolumes::Provision& p : volumes.dynamic_provisions) {
        if (!p.node_capacity) continue;
        Resource& r = classes[p.claim->spec_class.value_or("")];
        // Not +=: two claims of one class share the class's capacity on the node.
        r.capacity = quantity_value(p.node_capacity->capacity);
        r.requested += quantity_value(p.claim->request);
      }
    }
    score = capacity_score(classes);
    return {};
  }

  schedhost::Status Reserve(schedhost::Context& ctx, schedhost::CycleState& state,
                            const schedhost::Pod& pod, std::string_view node) {
    const State* s = state.read<State>(kStateKey);
    if (s == nullptr || s->data == nullptr) return Status::Error("not found");
    StateData& data = *s->data;
    const auto it = data.by_node.find(std::string(node));
    if (it == data.by_node.end()) {
      data.all_bound = true;  // the pod has no claim
      return {};
    }
    std::string error;
    const bool all_bound = assume_pod_volumes(ctx, pod, node, it->second, error);
    if (!error.empty()) return Status::Error(std::move(error));
    data.all_bound = all_bound;
    return {};
  }

  void Unreserve(schedhost::Context&, schedhost::CycleState& state, const schedhost::Pod&,
                 std::string_view node) {
    const State* s = state.read<State>(kStateKey);
    if (s == nullptr || s->data == nullptr) return;
    const auto it = s->data->by_node.find(std::string(node));
    if (it == s->data->by_node.end()) return;
    revert(it->second.static_bindings, it->second.dynamic_provisions);
  }

  schedhost::Status PreBindPreFlight(schedhost::Context&, schedhost::CycleState& state,
                                     const schedhost::Pod&, std::string_view node) {
    const State* s = state.read<State>(kStateKey);
    if (s == nullptr || s->data == nullptr) return Status::Error("not found");
    if (s->data->all_bound) return Status::Skip();
    if (s->data->by_node.count(std::string(node)) == 0) return no_pod_volume_for(node);
    return {};
  }

  schedhost::Status PreBind(schedhost::Context& ctx, schedhost::CycleState& state,
                            const schedhost::Pod& pod, std::string_view node) {
    const State* s = state.read<State>(kStateKey);
    if (s == nullptr || s->data == nullptr) return Status::Error("not found");
    if (s->data->all_bound) return {};
    const auto it = s->data->by_node.find(std::string(node));
    if (it == s->data->by_node.end()) return no_pod_volume_for(node);
    return bind_pod_volumes(ctx, pod, it->second, node, args_.bind_timeout_seconds);
  }

 private:
  static Status no_pod_volume_for(std::string_view node) {
    return Status::Error("no pod volume found for node " + go_quote(node));
  }

  // The snapshot's claim ns/name through the assume cache (PVCAssumeCache.Get); nullptr when
  // the snapshot has no such claim.
  std::shared_ptr<const Claim> cached_claim(const schedhost::Context& ctx, std::string_view ns,
                                            std::string_view name) const {
    const auto object = ctx.object(resource::kPersistentVolumeClaim, ns, name);
    if (!object) return nullptr;
    if (auto assumed = claims_.assumed(std::string(ns) + "/" + std::string(name),
                                       object->resource_version())) {
      return assumed;
    }
    return parse_claim(*object);
  }

  // The snapshot's PV through the assume cache (PVAssumeCache.Get); nullptr when it has none.
  std::shared_ptr<const Volume> cached_volume(const schedhost::Context& ctx,
                                              std::string_view name) const {
    const auto object = ctx.object(resource::kPersistentVolume, "", name);
    if (!object) return nullptr;
    if (auto assumed = volumes_.assumed(std::string(name), object->resource_version())) {
      return assumed;
    }
    return parse_volume(*object);
  }

  // What a delayed claim of class `name` may use: the class's PVs (ListPVs, assumed ones
  // included) and what provisioning reads.
  ClassData class_data(const schedhost::Context& ctx, const std::string& name) const {
    ClassData c;
    for (const schedhost::Object pv : ctx.objects(resource::kPersistentVolume)) {
      if (volume_class(pv) != name) continue;
      if (auto assumed = volumes_.assumed(std::string(pv.name()), pv.resource_version())) {
        c.volumes.push_back(std::move(assumed));
      } else {
        c.volumes.push_back(parse_volume(pv));
      }
    }
    const auto sc = ctx.object(resource::kStorageClass, "", name);
    if (!sc) return c;
    c.found = true;
    const Json provisioner = field(*sc, "/provisioner");
    c.provisioner = provisioner.is_string() ? provisioner.get<std::string>() : "";
    c.allowed_topologies = TopologyTerms::parse(field(*sc, "/allowedTopologies"));
    if (c.provisioner.empty()) return c;
    if (const auto driver = ctx.object(resource::kCSIDriver, "", c.provisioner)) {
      const Json tracked = field(*driver, "/spec/storageCapacity");
      c.capacity_tracked = tracked.is_boolean() && tracked.get<bool>();
    }
    if (!c.capacity_tracked) return c;
    for (const schedhost::Object o : ctx.objects(resource::kCSIStorageCapacity)) {
      const Json class_name = field(o, "/storageClassName");
      if (!class_name.is_string() || class_name.get<std::string>() != name) continue;
      Capacity cap;
      cap.capacity = parse_quantity(field(o, "/capacity"));
      cap.maximum_volume_size = parse_quantity(field(o, "/maximumVolumeSize"));
      std::vector<FieldError> errors;
      cap.node_topology = k8s::LabelSelector::parse(field(o, "/nodeTopology"), {}, errors);
      c.capacities.push_back(std::move(cap));
    }
    return c;
  }

  // FindPodVolumes for one node: the PodVolumes, and the reasons it does not fit or an error.
  PodVolumes find_pod_volumes(const schedhost::Context& ctx, const PodClaims& claims,
                              const schedhost::NodeInfo& node, std::vector<std::string>& reasons,
                              std::string& error) const {
    PodVolumes out;
    bool unbound_satisfied = true;
    bool bound_satisfied = true;
    bool sufficient_storage = true;
    bool bound_pvs_found = true;
    const auto finish = [&]() {
      if (!error.empty()) return;
      if (!bound_satisfied) reasons.emplace_back(kErrReasonNodeConflict);
      if (!unbound_satisfied) reasons.emplace_back(kErrReasonBindConflict);
      if (!sufficient_storage) reasons.emplace_back(kErrReasonNotEnoughSpace);
      if (!bound_pvs_found) reasons.emplace_back(kErrReasonPVNotExist);
    };
    if (!claims.bound.empty()) {
      check_bound_claims(ctx, claims.bound, node, bound_satisfied, bound_pvs_found, error);
      if (!error.empty()) return out;
    }
    if (!claims.delayed.empty()) {
      std::vector<std::shared_ptr<const Claim>> to_match;
      std::vector<std::shared_ptr<const Claim>> to_provision;
      for (const auto& claim : claims.delayed) {
        if (claim->selected_node) {
          if (*claim->selected_node != node.name()) {
            unbound_satisfied = false;  // provisioning was started for another node
            finish();
            return out;
          }
          to_provision.push_back(claim);
        } else {
          to_match.push_back(claim);
        }
      }
      if (!to_match.empty()) {
        std::vector<std::shared_ptr<const Claim>> unmatched;
        unbound_satisfied =
            find_matching_volumes(claims, to_match, node, out.static_bindings, unmatched, error);
        if (!error.empty()) return out;
        to_provision.insert(to_provision.end(), unmatched.begin(), unmatched.end());
      }
      if (!to_provision.empty()) {
        check_volume_provisions(claims, to_provision, node, unbound_satisfied, sufficient_storage,
                                out.dynamic_provisions, error);
        if (!error.empty()) return out;
      }
    }
    finish();
    return out;
  }

  // checkBoundClaims: each bound claim's PV exists and its node affinity (as CSI when the node
  // migrated its in-tree plugin) admits the node; stops at the first that fails.
  static void check_bound_claims(const schedhost::Context& ctx,
                                 const std::vector<PodClaims::Bound>& bound,
                                 const schedhost::NodeInfo& node, bool& satisfied, bool& pvs_found,
                                 std::string& error) {
    std::optional<std::optional<std::string>> migrated;  // the node's CSINode annotation
    for (const PodClaims::Bound& b : bound) {
      if (b.volume == nullptr) {
        pvs_found = false;
        return;
      }
      const std::optional<k8s::NodeSelector>* affinity = &b.volume->affinity;
      if (b.volume->in_tree != nullptr) {
        if (!migrated) {
          migrated.emplace();
          if (const auto csi_node = ctx.object(resource::kCSINode, "", node.name())) {
            if (auto a = csi_node->annotation(kAnnMigratedPlugins)) migrated->emplace(*a);
          }
        }
        if (*migrated && plugin_migrated(**migrated, b.volume->in_tree->name)) {
          if (!b.volume->translate_error.empty()) {
            error = b.volume->translate_error;
            satisfied = false;
            return;
          }
          affinity = &b.volume->translated_affinity;
        }
      }
      if (!check_node_affinity(*affinity, node)) {
        satisfied = false;
        return;
      }
    }
  }

  static bool plugin_migrated(std::string_view annotation, std::string_view plugin) {
    if (annotation.empty()) return false;
    for (const std::string& p : translation::split(annotation, ","))
      if (p == plugin) return true;
    return false;
  }

  // findMatchingVolumes: the claims by increasing request, each taking the best PV left.
  bool find_matching_volumes(const PodClaims& claims,
                             std::vector<std::shared_ptr<const Claim>> to_bind,
                             const schedhost::NodeInfo& node,
                             std::vector<PodVolumes::Binding>& bindings,
                             std::vector<std::shared_ptr<const Claim>>& unbound,
                             std::string& error) const {
    std::stable_sort(to_bind.begin(), to_bind.end(), [](const auto& a, const auto& b) {
      return a->request.value_or(0) < b->request.value_or(0);
    });
    std::set<std::string> chosen;
    bool found_matches = true;
    static const std::vector<std::shared_ptr<const Volume>> kNone;
    for (const auto& claim : to_bind) {
      const auto c = claims.classes.find(claim->class_name);
      const auto& volumes = c == claims.classes.end() ? kNone : c->second.volumes;
      std::shared_ptr<const Volume> pv = find_matching_volume(*claim, volumes, node, chosen, error);
      if (!error.empty()) return false;
      if (pv == nullptr) {
        unbound.push_back(claim);
        found_matches = false;
        continue;
      }
      chosen.insert(pv->name);
      bindings.push_back({std::move(pv), claim});
    }
    return found_matches;
  }

  // volume.FindMatchingVolume on the scheduler's path (a node, delayBinding true).
  std::shared_ptr<const Volume> find_matching_volume(
      const Claim& claim, const std::vector<std::shared_ptr<const Volume>>& volumes,
      const schedhost::NodeInfo& node, const std::set<std::string>& excluded,
      std::string& error) const {
    if (!volume_attributes_class_ && !claim.volume_attributes_class.empty()) {
      error = "unsupported volumeAttributesClassName is set on claim " + claim.key() +
              " when the feature-gate VolumeAttributesClass is disabled";
      return nullptr;
    }
    if (!claim.selector_error.empty()) {
      error = "error creating internal label selector for claim: " + claim.key() + ": " +
              claim.selector_error;
      return nullptr;
    }
    const Nano requested = claim.request.value_or(0);
    std::shared_ptr<const Volume> smallest;
    for (const auto& volume : volumes) {
      const Volume& pv = *volume;
      if (excluded.count(pv.name) != 0) continue;
      const bool bound_to_claim = is_volume_bound_to_claim(pv, claim);
      if (pv.claim_ref && !bound_to_claim) continue;
      if (pv.capacity.value_or(0) < requested) continue;
      if (pv.volume_mode != claim.volume_mode) continue;
      if (volume_attributes_class_ && claim.volume_attributes_class != pv.volume_attributes_class)
        continue;
      if (!volume_attributes_class_ && !pv.volume_attributes_class.empty()) continue;
      if (pv.deleting) continue;
      const bool affinity_ok = check_node_affinity(pv.affinity, node);
      if (bound_to_claim) return affinity_ok ? volume : nullptr;  // pre-bound to this claim
      if (pv.phase != "Available") continue;
      if (claim.selector && !claim.selector->matches(pv.labels)) continue;
      if (pv.class_name != claim.class_name) continue;
      if (!affinity_ok) continue;
      if (!check_access_modes(claim, pv)) continue;
      if (smallest == nullptr || smallest->capacity.value_or(0) > pv.capacity.value_or(0)) {
        smallest = volume;
      }
    }
    return smallest;
  }

  // checkVolumeProvisions: every claim left can be provisioned for the node.
  static void check_volume_provisions(const PodClaims& claims,
                                      const std::vector<std::shared_ptr<const Claim>>& to_provision,
                                      const schedhost::NodeInfo& node, bool& provision_satisfied,
                                      bool& sufficient_storage,
                                      std::vector<PodVolumes::Provision>& provisions,
                                      std::string& error) {
    provisions.clear();
    for (const auto& claim : to_provision) {
      if (claim->class_name.empty()) {
        error = "no class for claim " + go_quote(claim->key());
        return;
      }
      const auto c = claims.classes.find(claim->class_name);
      if (c == claims.classes.end() || !c->second.found) {
        error = "failed to find storage class " + go_quote(claim->class_name);
        return;
      }
      const ClassData& sc = c->second;
      if (sc.provisioner.empty() || sc.provisioner == kNotSupportedProvisioner ||
          !sc.allowed_topologies.matches(node)) {
        provision_satisfied = false;
        sufficient_storage = true;
        provisions.clear();
        return;
      }
      // hasEnoughCapacity
      std::optional<Capacity> node_capacity;
      if (claim->request && sc.capacity_tracked) {
        const std::int64_t size = quantity_value(claim->request);
        for (const Capacity& cap : sc.capacities) {
          if (cap.limit() && quantity_value(cap.limit()) >= size &&
              cap.node_topology.matches(node)) {
            node_capacity = cap;
            break;
          }
        }
        if (!node_capacity) {
          provision_satisfied = true;
          sufficient_storage = false;
          provisions.clear();
          return;
        }
      }
      provisions.push_back({claim, std::move(node_capacity)});
    }
    provision_satisfied = true;
    sufficient_storage = true;
  }

  // buildScorerFunction over the classes' requested / capacity.
  template <class Classes>
  std::int64_t capacity_score(const Classes& classes) const {
    if (classes.empty()) return 0;
    std::int64_t total = 0;
    for (const auto& [name, r] : classes) {
      if (r.capacity == 0 || r.requested > r.capacity) {
        total += broken_linear(args_.shape, kMaxUtilization);
      } else {
        total += broken_linear(args_.shape, go_mul(r.requested, kMaxUtilization) / r.capacity);
      }
    }
    return static_cast<std::int64_t>(
        std::round(static_cast<double>(total) / static_cast<double>(classes.size())));
  }

  // arePodVolumesBound: every claim of the pod is fully bound (through the assume cache).
  bool are_pod_volumes_bound(const schedhost::Context& ctx, const schedhost::Pod& pod) const {
    for (const ClaimVolume& c : claim_volumes(pod, pod_volumes(pod))) {
      const auto claim = cached_claim(ctx, pod.namespace_name(), c.claim);
      if (claim == nullptr) return false;
      if (c.ephemeral && !volume_is_for_pod(pod, *claim).empty()) return false;
      if (claim->volume_name.empty() || !claim->bind_completed) return false;
    }
    return true;
  }

  // GetBindVolumeToClaim: the PV bound to the claim, and whether that changed it.
  static std::pair<std::shared_ptr<const Volume>, bool> bind_volume_to_claim(
      const std::shared_ptr<const Volume>& pv, const Claim& claim) {
    const bool set_bound_by_controller = !is_volume_bound_to_claim(*pv, claim);
    Json object = *pv->object;
    bool dirty = false;
    if (!pv->claim_ref || pv->claim_ref->name != claim.name || pv->claim_ref->ns != claim.ns ||
        pv->claim_ref->uid != claim.uid) {
      // reference.GetReference: empty fields are omitted.
      Json ref = {{"kind", "PersistentVolumeClaim"}};
      if (!claim.ns.empty()) ref["namespace"] = claim.ns;
      if (!claim.name.empty()) ref["name"] = claim.name;
      if (!claim.uid.empty()) ref["uid"] = claim.uid;
      ref["apiVersion"] = "v1";
      if (!claim.resource_version.empty()) ref["resourceVersion"] = claim.resource_version;
      object["spec"]["claimRef"] = std::move(ref);
      dirty = true;
    }
    if (set_bound_by_controller && !pv->bound_by_controller) {
      object["metadata"]["annotations"][std::string(kAnnBoundByController)] = "yes";
      dirty = true;
    }
    if (!dirty) return {pv, false};
    return {parse_volume(std::move(object)), true};
  }

  // AssumePodVolumes: true when every claim is bound already; else assumes the bindings and
  // provisions of `volumes` and replaces them with what it assumed. Sets error on failure
  // (having reverted what it assumed).
  bool assume_pod_volumes(const schedhost::Context& ctx, const schedhost::Pod& pod,
                          std::string_view node, PodVolumes& volumes, std::string& error) {
    if (are_pod_volumes_bound(ctx, pod)) return true;
    std::vector<PodVolumes::Binding> bindings;
    for (const PodVolumes::Binding& b : volumes.static_bindings) {
      auto [pv, dirty] = bind_volume_to_claim(b.volume, *b.claim);
      if (dirty) {
        const auto stored = ctx.object(resource::kPersistentVolume, "", pv->name);
        error = volumes_.assume(
            pv->name,
            stored ? std::optional<std::string>(stored->resource_version()) : std::nullopt, pv);
        if (!error.empty()) {
          revert(bindings, {});
          return false;
        }
      }
      bindings.push_back({std::move(pv), b.claim});
    }
    std::vector<PodVolumes::Provision> provisions;
    for (const PodVolumes::Provision& p : volumes.dynamic_provisions) {
      Json object = *p.claim->object;
      object["metadata"]["annotations"][std::string(kAnnSelectedNode)] = std::string(node);
      std::shared_ptr<const Claim> claim = parse_claim(std::move(object));
      const auto stored = ctx.object(resource::kPersistentVolumeClaim, claim->ns, claim->name);
      error = claims_.assume(
          claim->key(),
          stored ? std::optional<std::string>(stored->resource_version()) : std::nullopt, claim);
      if (!error.empty()) {
        revert(bindings, provisions);
        return false;
      }
      provisions.push_back({std::move(claim), std::nullopt});
    }
    volumes.static_bindings = std::move(bindings);
    volumes.dynamic_provisions = std::move(provisions);
    return false;
  }

  // revertAssumedPVs / revertAssumedPVCs.
  void revert(const std::vector<PodVolumes::Binding>& bindings,
              const std::vector<PodVolumes::Provision>& provisions) {
    for (const PodVolumes::Binding& b : bindings)
      volumes_.restore(b.volume->name, b.volume->resource_version);
    for (const PodVolumes::Provision& p : provisions)
      claims_.restore(p.claim->key(), p.claim->resource_version);
  }

  // The snapshot moved past an assumption (its object changed or went away): drop it.
  void expire_assumptions(const schedhost::Context& ctx) const {
    volumes_.expire([&ctx](const std::string& name) -> std::optional<std::string> {
      const auto o = ctx.object(resource::kPersistentVolume, "", name);
      if (!o) return std::nullopt;
      return std::string(o->resource_version());
    });
    claims_.expire([&ctx](const std::string& key) -> std::optional<std::string> {
      const std::size_t slash = key.find('/');
      const auto o =
          ctx.object(resource::kPersistentVolumeClaim, key.substr(0, slash), key.substr(slash + 1));
      if (!o) return std::nullopt;
      return std::string(o->resource_version());
    });
  }

  bool capacity_scoring_;
  bool volume_attributes_class_;
  Args args_;
  // The assume caches, kept across cycles: read by PreFilter, written by Reserve and Unreserve
  // (Unreserve also runs on binding threads); each has its own shared_mutex.
  mutable AssumeCache<Volume> volumes_{"persistentvolumes"};
  mutable AssumeCache<Claim> claims_{"persistentvolumeclaims"};
};

}  // namespace

SCHEDHOST_LIBRARY(
    "volume-binding", "1.0.0",
    schedhost::plugin<VolumeBinding, schedhost::hook::PreFilter, schedhost::hook::Filter,
                      schedhost::hook::PreScore, schedhost::hook::Score, schedhost::hook::Reserve,
                      schedhost::hook::Unreserve, schedhost::hook::PreBind,
                      schedhost::hook::EnqueueExtensions, schedhost::hook::SignPod>(
        "VolumeBinding",
        "Binds pods' PersistentVolumeClaims: keeps pods on nodes their volumes can reach, and "
        "picks the PersistentVolumes to bind or the claims to provision"))
