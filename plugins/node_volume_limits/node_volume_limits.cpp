// NodeVolumeLimits: upstream's CSILimits (kube-scheduler v1.35, nodevolumelimits/csi.go), the
// per-node limit on volumes a CSI driver may attach. No args.
//
// What counts: every volume of a pod that resolves to a CSI driver and a volume handle, keyed
// "<driver>/<handle>" (one volume mounted twice, or by two pods of the node, counts once):
// - a PVC bound to a PV: the PV's spec.csi; an in-tree PV (aws-ebs, gce-pd, azure-disk, cinder,
//   portworx) as csi-translation-lib v0.35 translates it, when migration is on for its plugin;
// - a PVC that is not bound (no spec.volumeName, or its PV is missing): the StorageClass's
//   provisioner (translated when in-tree), with a handle made of the claim's namespace and name;
//   no class, or a missing class, is not counted;
// - a generic ephemeral volume: the PVC "<pod>-<volume>", which must be controlled by the pod;
// - an inline in-tree volume, translated as a PV is.
// Migration is on for aws-ebs, gce-pd, azure-disk and cinder whenever the node has a CSINode; for
// portworx only with the CSIMigrationPortworx gate and the plugin listed in the CSINode's
// storage.alpha.kubernetes.io/migrated-plugins annotation; never for the other in-tree kinds.
// Limits: the CSINode's spec.drivers[].allocatable.count, per driver name. v1.35 no longer reads
// node allocatable ("attachable-volumes-csi-<driver>" keys are gone), so a node without CSINode
// or without counts has no limit.
//
// PreFilter: Skip unless the pod has a PVC, ephemeral or inline migratable volume.
// Filter: Unschedulable "node(s) exceed max volume count" when, for a driver, the node's volumes
//   plus the pod's new ones exceed its limit. The incoming pod's PVC missing:
//   UnschedulableAndUnresolvable "looking up PVC <ns>/<claim>: persistentvolumeclaim "<claim>" not
//   found" (kube-scheduler's lister message); an ephemeral PVC the pod does not own, a claim
//   without a name or an inline volume that does not translate: Error (for pods already on the
//   node too). With the VolumeLimitScaling gate (alpha, off): a driver that has a CSIDriver
//   object but is not in the node's CSINode: Unschedulable "<driver> CSI driver is not installed
//   on the node".
//   v1.35 also counts the node's VolumeAttachments; schedhost's snapshot has no VolumeAttachment
//   kind, so only the pods' volumes are counted.
// EnqueueExtensions: CSINode add (queue) and update (queue when a driver's count rose), assigned
// pod delete (queue when it had a volume that may count), PVC add (queue when the pod uses it).
// v1.35's VolumeAttachment delete is not registered (no such kind here).
// SignPod: upstream's volumes fragment (every volume source but configMap and secret).
#include <schedhost/k8s/signers.hpp>
#include <schedhost/k8s/validation.hpp>
#include <schedhost/plugin.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace {

using schedhost::k8s::go_quote;

using Json = nlohmann::json;
using schedhost::QueueingHint;
using schedhost::Status;
namespace resource = schedhost::resource;

constexpr const char* kReasonMaxVolumeCount = "node(s) exceed max volume count";
constexpr std::string_view kMigratedPluginsAnnotation =
    "storage.alpha.kubernetes.io/migrated-plugins";
constexpr std::string_view kBetaStorageClassAnnotation = "volume.beta.kubernetes.io/storage-class";

// Upstream prefixes the handle of an unbound claim with rand.String(32), drawn once per plugin
// instance, only so that it cannot collide with a real volume handle. schedhost uses a fixed
// prefix instead, so runs replay: the handle is still "<prefix>-<namespace>/<claim>", the same
// for every pod using the claim, and what the limit sees (how many distinct volumes) is the same.
constexpr std::string_view kUnboundClaimPrefix = "schedhost-unbound-claim-00000000";

// ---- JSON helpers ---------------------------------------------------------------------------

// Whether object has key set to something (Go: a non-nil pointer).
bool has(const Json& object, const char* key) {
  if (!object.is_object()) return false;
  const auto it = object.find(key);
  return it != object.end() && !it->is_null();
}

// object[key] as a string; "" when absent or not a string.
std::string text(const Json& object, const char* key) {
  if (!object.is_object()) return {};
  const auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

Json parse(std::optional<std::string_view> text_json) {
  if (!text_json) return nullptr;
  return Json::parse(*text_json, nullptr, /*allow_exceptions=*/false);
}

// A list of objects at pointer (a pod's volumes, a CSINode's drivers); empty when absent.
template <class View>
Json list_at(const View& view, std::string_view pointer) {
  Json list = parse(view.json(pointer));
  return list.is_array() ? list : Json::array();
}

// Go's strings.Split: "" gives [""].
std::vector<std::string> split(std::string_view s, std::string_view sep) {
  std::vector<std::string> out;
  for (;;) {
    const std::size_t at = s.find(sep);
    if (at == std::string_view::npos) break;
    out.emplace_back(s.substr(0, at));
    s.remove_prefix(at + sep.size());
  }
  out.emplace_back(s);
  return out;
}

bool equal_fold(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c; };
           return lower(x) == lower(y);
         });
}

// ---- csi-translation-lib v0.35 ----------------------------------------------------------------

enum class InTree { kAwsEbs, kGcePd, kCinder, kAzureDisk, kAzureFile, kVSphere, kPortworx };

struct InTreePlugin {
  InTree kind;
  const char* source;       // the volume source field, in a Volume and in a PV's spec
  std::string_view name;    // the in-tree plugin
  std::string_view driver;  // the CSI driver it migrates to
};

constexpr InTreePlugin kInTreePlugins[] = {
    {InTree::kAwsEbs, "awsElasticBlockStore", "kubernetes.io/aws-ebs", "ebs.csi.aws.com"},
    {InTree::kGcePd, "gcePersistentDisk", "kubernetes.io/gce-pd", "pd.csi.storage.gke.io"},
    {InTree::kCinder, "cinder", "kubernetes.io/cinder", "cinder.csi.openstack.org"},
    {InTree::kAzureDisk, "azureDisk", "kubernetes.io/azure-disk", "disk.csi.azure.com"},
    {InTree::kAzureFile, "azureFile", "kubernetes.io/azure-file", "file.csi.azure.com"},
    {InTree::kVSphere, "vsphereVolume", "kubernetes.io/vsphere-volume", "csi.vsphere.vmware.com"},
    {InTree::kPortworx, "portworxVolume", "kubernetes.io/portworx-volume", "pxd.portworx.com"},
};

// The in-tree plugin whose source `sources` (a Volume, or a PV's spec) sets (IsInlineMigratable,
// IsPVMigratable, GetInTreePluginNameFromSpec); nullptr for none.
const InTreePlugin* in_tree_plugin(const Json& sources) {
  for (const InTreePlugin& p : kInTreePlugins) {
    if (has(sources, p.source)) return &p;
  }
  return nullptr;
}

const InTreePlugin* in_tree_plugin_named(std::string_view name) {
  for (const InTreePlugin& p : kInTreePlugins) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

// A translated volume handle, or why there is none.
struct Handle {
  std::string value;
  std::string error;  // non-empty: the translation failed
};

bool is_hex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
int hex_value(char c) {
  return c <= '9' ? c - '0' : (c >= 'a' ? c - 'a' + 10 : c - 'A' + 10);
}

// Go's url.unescape: the text with %XX decoded, or the bad escape ("%zz") in error. In a host
// (encode_host), ASCII characters a host may not hold are refused too.
std::string url_unescape(std::string_view s, bool host, std::string& error) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '%') {
      if (i + 2 >= s.size() || !is_hex(s[i + 1]) || !is_hex(s[i + 2])) {
        error = "invalid URL escape " + go_quote(s.substr(i, 3));
        return {};
      }
      out += static_cast<char>(hex_value(s[i + 1]) * 16 + hex_value(s[i + 2]));
      i += 2;
      continue;
    }
    const bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (host && static_cast<unsigned char>(c) < 0x80 && !alnum &&
        std::string_view("-_.~!$&'()*+,;=:[]<>\"").find(c) == std::string_view::npos) {
      error = "invalid character " + go_quote(s.substr(i, 1)) + " in host name";
      return {};
    }
    out += c;
  }
  return out;
}

// KubernetesVolumeIDToEBSVolumeID: "vol-..." as is; "aws://<zone>/vol-..." read as Go's url.Parse
// reads it (control characters, a bad port, bad characters or %-escapes refused with its
// messages; the userinfo of an authority is not checked), its path trimmed of '/' and matched
// against ^vol-[^/]*$.
Handle ebs_volume_id(const std::string& id) {
  constexpr std::string_view kScheme = "aws://";
  if (id.compare(0, kScheme.size(), kScheme) != 0) return {id, {}};
  const std::string_view url = std::string_view(id).substr(0, id.find('#'));
  const auto parse_error = [&id, url](const std::string& why) {
    return Handle{{}, "Invalid disk name (" + id + "): parse " + go_quote(url) + ": " + why};
  };
  for (const char c : url) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      return parse_error("net/url: invalid control character in URL");
    }
  }
  std::string_view rest = url.substr(kScheme.size());
  rest = rest.substr(0, rest.find('?'));
  const std::size_t slash = rest.find('/');
  const std::string_view authority = rest.substr(0, slash);
  const std::string_view raw_path = slash == std::string_view::npos ? "" : rest.substr(slash);
  std::string error;
  std::string_view host = authority;
  if (const std::size_t at = host.rfind('@'); at != std::string_view::npos) {
    host.remove_prefix(at + 1);
  }
  if (host.empty() || host.front() != '[') {
    if (const std::size_t colon = host.rfind(':'); colon != std::string_view::npos) {
      const std::string_view port = host.substr(colon + 1);
      if (!std::all_of(port.begin(), port.end(), [](char c) { return c >= '0' && c <= '9'; })) {
        return parse_error("invalid port " + go_quote(host.substr(colon)) + " after host");
      }
    }
    url_unescape(host, /*host=*/true, error);
    if (!error.empty()) return parse_error(error);
  }
  const std::string path = url_unescape(raw_path, /*host=*/false, error);
  if (!error.empty()) return parse_error(error);
  const std::size_t first = path.find_first_not_of('/');
  const std::string aws_id =
      first == std::string::npos ? "" : path.substr(first, path.find_last_not_of('/') - first + 1);
  if (aws_id.compare(0, 4, "vol-") != 0 || aws_id.find('/') != std::string::npos) {
    return {{}, "Invalid format for AWS volume (" + id + ")"};
  }
  return {aws_id, {}};
}

// gceGetRegionFromZones: every zone is <locale>-<region>-<zone>, all in one region.
std::optional<std::string> gce_region(const std::vector<std::string>& zones) {
  std::set<std::string> regions;
  for (const std::string& zone : zones) {
    const std::vector<std::string> parts = split(zone, "-");
    if (parts.size() != 3) return std::nullopt;
    regions.insert(parts[0] + "-" + parts[1]);
  }
  if (regions.size() != 1) return std::nullopt;
  return *regions.begin();
}

// The azure-disk kind check: none, or "Managed" in any case.
std::string azure_kind_error(const Json& source) {
  if (!has(source, "kind")) return {};
  const std::string kind = text(source, "kind");
  if (equal_fold(kind, "Managed")) return {};
  return "kind(" + kind + ") is not supported in csi migration";
}

// TranslateInTreeInlineVolumeToCSI's volume handle for the migratable kinds counted.
Handle translate_inline(const InTreePlugin& plugin, const Json& volume) {
  const Json& source = volume.at(plugin.source);
  switch (plugin.kind) {
    case InTree::kAwsEbs: {
      Handle h = ebs_volume_id(text(source, "volumeID"));
      if (!h.error.empty())
        h.error = "failed to translate Kubernetes ID to EBS Volume ID " + h.error;
      return h;
    }
    case InTree::kGcePd:
      return {"projects/UNSPECIFIED/zones/UNSPECIFIED/disks/" + text(source, "pdName"), {}};
    case InTree::kAzureDisk: {
      std::string error = azure_kind_error(source);
      if (!error.empty()) return {{}, std::move(error)};
      return {text(source, "diskURI"), {}};
    }
    case InTree::kCinder:
    case InTree::kPortworx:
      return {text(source, "volumeID"), {}};
    case InTree::kAzureFile:
    case InTree::kVSphere:
      break;  // never migrated here (isCSIMigrationOn)
  }
  return {{},
          "could not find in-tree plugin translation logic for \"" + text(volume, "name") + "\""};
}

// TranslateInTreePVToCSI's volume handle; an error only means "not counted".
Handle translate_pv(const InTreePlugin& plugin, const schedhost::Object& pv, const Json& spec) {
  const Json& source = spec.at(plugin.source);
  switch (plugin.kind) {
    case InTree::kAwsEbs:
      return ebs_volume_id(text(source, "volumeID"));
    case InTree::kGcePd: {
      const std::string pd = text(source, "pdName");
      std::string zones_label(pv.label("failure-domain.beta.kubernetes.io/zone").value_or(""));
      if (zones_label.empty()) zones_label = pv.label("topology.kubernetes.io/zone").value_or("");
      const std::vector<std::string> zones = split(zones_label, "__");
      if (zones.size() == 1 && !zones[0].empty()) {
        return {"projects/UNSPECIFIED/zones/" + zones[0] + "/disks/" + pd, {}};
      }
      if (zones.size() > 1) {
        const std::optional<std::string> region = gce_region(zones);
        if (!region) return {{}, "failed to get region from zones"};
        return {"projects/UNSPECIFIED/regions/" + *region + "/disks/" + pd, {}};
      }
      return {"projects/UNSPECIFIED/zones/UNSPECIFIED/disks/" + pd, {}};
    }
    case InTree::kAzureDisk: {
      std::string error = azure_kind_error(source);
      if (!error.empty()) return {{}, std::move(error)};
      return {text(source, "diskURI"), {}};
    }
    case InTree::kCinder:
    case InTree::kPortworx:
      return {text(source, "volumeID"), {}};
    case InTree::kAzureFile:
    case InTree::kVSphere:
      break;
  }
  return {{}, "not translated"};
}

// ---- the node's CSINode ---------------------------------------------------------------------

struct CsiNode {
  std::optional<std::string> migrated_plugins;  // the annotation, when set
  std::vector<std::string> drivers;             // spec.drivers[].name
  std::map<std::string, std::int64_t> limits;   // getVolumeLimits: drivers with a count
};

std::optional<CsiNode> read_csi_node(const schedhost::Context& ctx, std::string_view node) {
  const std::optional<schedhost::Object> object = ctx.object(resource::kCSINode, "", node);
  if (!object) return std::nullopt;
  CsiNode csi;
  if (const auto a = object->annotation(kMigratedPluginsAnnotation)) csi.migrated_plugins = *a;
  for (const Json& d : list_at(*object, "/spec/drivers")) {
    const std::string name = text(d, "name");
    csi.drivers.push_back(name);
    if (has(d, "allocatable") && d.at("allocatable").is_object()) {
      const Json& count = d.at("allocatable").value("count", Json());
      if (count.is_number_integer()) csi.limits[name] = count.get<std::int64_t>();
    }
  }
  return csi;
}

// The count of each driver of a CSINode object (0 without allocatable.count), for the hint.
std::map<std::string, std::int64_t> driver_counts(const schedhost::Object& csi_node) {
  std::map<std::string, std::int64_t> out;
  for (const Json& d : list_at(csi_node, "/spec/drivers")) {
    std::int64_t count = 0;
    if (has(d, "allocatable") && d.at("allocatable").is_object()) {
      const Json& c = d.at("allocatable").value("count", Json());
      if (c.is_number_integer()) count = c.get<std::int64_t>();
    }
    out[text(d, "name")] = count;
  }
  return out;
}

// ---- the plugin -----------------------------------------------------------------------------

// Why a pod's volumes could not be listed: a missing PVC of the incoming pod (not_found), or
// anything else (an Error).
struct VolumeError {
  bool not_found = false;
  std::string message;
};

// volume unique name ("<driver>/<handle>") -> driver
using VolumeSet = std::map<std::string, std::string>;

std::string unique_name(std::string_view driver, std::string_view handle) {
  return std::string(driver) + "/" + std::string(handle);
}

// The name of the PVC behind a volume: the claim, or "<pod>-<volume>" for an ephemeral one.
std::optional<std::string> claim_of(const schedhost::Pod& pod, const Json& volume) {
  if (has(volume, "persistentVolumeClaim"))
    return text(volume.at("persistentVolumeClaim"), "claimName");
  if (has(volume, "ephemeral")) {
    return std::string(pod.name()) + "-" + text(volume, "name");
  }
  return std::nullopt;
}

class NodeVolumeLimits {
 public:
  NodeVolumeLimits(const Json& args, const schedhost::Host& host)
      // v1.35 defaults: CSIMigrationPortworx beta and on, VolumeLimitScaling alpha and off.
      : portworx_migration_(host.feature_enabled("CSIMigrationPortworx", true)),
        volume_limit_scaling_(host.feature_enabled("VolumeLimitScaling", false)) {
    if (!args.empty()) throw std::invalid_argument("this plugin takes no args");
  }

  Status SignPod(schedhost::Context&, const schedhost::Pod& pod,
                 schedhost::PodSignature& signature) const {
    schedhost::k8s::sign_volumes(pod, signature);  // upstream's VolumesSigner
    return {};
  }

  void EventsToRegister(schedhost::EventRegistry& events) const {
    events.add(resource::kCSINode, schedhost::action::kAdd | schedhost::action::kUpdate);
    events.add(resource::kPod, schedhost::action::kDelete);
    events.add(resource::kPersistentVolumeClaim, schedhost::action::kAdd);
  }

  QueueingHint IsSchedulableAfter(const schedhost::Pod& pod,
                                  const schedhost::ClusterEvent& event) const {
    if (event.resource == resource::kCSINode) {
      // A new CSINode always queues (upstream registers no hint for it).
      if ((event.actions & schedhost::action::kAdd) != 0) return QueueingHint::kQueue;
      return after_csi_node_update(event);
    }
    if (event.resource == resource::kPod) return after_pod_deleted(event);
    if (event.resource == resource::kPersistentVolumeClaim) return after_pvc_added(pod, event);
    return QueueingHint::kQueue;
  }

  Status PreFilter(schedhost::Context&, schedhost::CycleState&, const schedhost::Pod& pod,
                   schedhost::PreFilterResult&) const {
    for (const Json& volume : list_at(pod, "/spec/volumes")) {
      if (may_count(volume)) return {};
    }
    return Status::Skip();
  }

  Status Filter(schedhost::Context& ctx, const schedhost::CycleState&, const schedhost::Pod& pod,
                const schedhost::NodeInfo& node) const {
    const Json volumes = list_at(pod, "/spec/volumes");
    if (volumes.empty()) return {};
    // No CSINode: limits cannot come from anywhere, but the pod's claims are still looked up.
    const std::optional<CsiNode> csi_node = read_csi_node(ctx, node.name());
    const CsiNode* csi = csi_node ? &*csi_node : nullptr;

    VolumeSet new_volumes;
    if (auto error = attachable_volumes(ctx, pod, volumes, csi, /*new_pod=*/true, new_volumes)) {
      if (error->not_found) return Status::UnschedulableAndUnresolvable(error->message);
      return Status::Error(error->message);
    }
    if (new_volumes.empty()) return {};

    if (volume_limit_scaling_) {
      for (const auto& [name, driver] : new_volumes) {
        if (!driver_installed(ctx, driver, csi)) {
          return Status::Unschedulable(driver + " CSI driver is not installed on the node");
        }
      }
    }

    if (csi == nullptr || csi->limits.empty()) return {};

    VolumeSet attached;
    for (const schedhost::Pod existing : node.pods()) {
      const Json existing_volumes = list_at(existing, "/spec/volumes");
      if (auto error = attachable_volumes(ctx, existing, existing_volumes, csi, /*new_pod=*/false,
                                          attached)) {
        return Status::Error(error->message);
      }
    }
    std::map<std::string, std::int64_t> attached_count;
    for (const auto& [name, driver] : attached) {
      new_volumes.erase(name);  // one volume used by several pods counts once
      ++attached_count[driver];
    }
    // (v1.35 adds the node's VolumeAttachments not already counted here: none in schedhost.)
    std::map<std::string, std::int64_t> new_count;
    for (const auto& [name, driver] : new_volumes)
      ++new_count[driver];
    for (const auto& [driver, count] : new_count) {
      const auto limit = csi->limits.find(driver);
      if (limit == csi->limits.end()) continue;
      if (attached_count[driver] + count > limit->second) {
        return Status::Unschedulable(kReasonMaxVolumeCount);
      }
    }
    return {};
  }

 private:
  // PreFilter's and the pod-deleted hint's test: a PVC, an ephemeral or an inline migratable
  // volume.
  static bool may_count(const Json& volume) {
    return has(volume, "persistentVolumeClaim") || has(volume, "ephemeral") ||
           in_tree_plugin(volume) != nullptr;
  }

  // isCSIMigrationOn.
  bool migration_on(const CsiNode* csi, const InTreePlugin* plugin) const {
    if (csi == nullptr || plugin == nullptr) return false;
    switch (plugin->kind) {
      case InTree::kAwsEbs:
      case InTree::kGcePd:
      case InTree::kAzureDisk:
      case InTree::kCinder:
        return true;
      case InTree::kPortworx:
        break;
      case InTree::kAzureFile:
      case InTree::kVSphere:
        return false;
    }
    if (!portworx_migration_ || !csi->migrated_plugins) return false;
    for (const std::string& p : split(*csi->migrated_plugins, ",")) {
      if (p == plugin->name) return true;
    }
    return false;
  }

  // checkCSIDriverOnNode (VolumeLimitScaling): a driver without a CSIDriver object may not be a
  // CSI driver at all, so it passes; one with must be in the node's CSINode.
  static bool driver_installed(const schedhost::Context& ctx, const std::string& driver,
                               const CsiNode* csi) {
    if (!ctx.object(resource::kCSIDriver, "", driver)) return true;
    if (csi == nullptr) return false;
    return std::find(csi->drivers.begin(), csi->drivers.end(), driver) != csi->drivers.end();
  }

  // filterAttachableVolumes: adds the pod's countable volumes to out.
  std::optional<VolumeError> attachable_volumes(const schedhost::Context& ctx,
                                                const schedhost::Pod& pod, const Json& volumes,
                                                const CsiNode* csi, bool new_pod,
                                                VolumeSet& out) const {
    for (const Json& volume : volumes) {
      const std::optional<std::string> claim_name = claim_of(pod, volume);
      if (!claim_name) {
        if (auto error = inline_volume(volume, csi, out)) return error;
        continue;
      }
      if (claim_name->empty()) return VolumeError{false, "PersistentVolumeClaim had no name"};
      const std::optional<schedhost::Object> claim =
          ctx.object(resource::kPersistentVolumeClaim, pod.namespace_name(), *claim_name);
      if (!claim) {
        // An existing pod's missing claim is not counted; the incoming pod cannot run without it.
        if (!new_pod) continue;
        return VolumeError{true, "looking up PVC " + std::string(pod.namespace_name()) + "/" +
                                     *claim_name + ": persistentvolumeclaim \"" + *claim_name +
                                     "\" not found"};
      }
      if (has(volume, "ephemeral") && !controlled_by(*claim, pod)) {
        return VolumeError{false, "PVC " + std::string(claim->namespace_name()) + "/" +
                                      std::string(claim->name()) + " was not created for pod " +
                                      std::string(pod.namespace_name()) + "/" +
                                      std::string(pod.name()) + " (pod is not owner)"};
      }
      const auto [driver, handle] = claim_driver_and_handle(ctx, *claim, csi);
      if (driver.empty() || handle.empty()) continue;
      out[unique_name(driver, handle)] = driver;
    }
    return std::nullopt;
  }

  // checkAttachableInlineVolume.
  std::optional<VolumeError> inline_volume(const Json& volume, const CsiNode* csi,
                                           VolumeSet& out) const {
    const InTreePlugin* plugin = in_tree_plugin(volume);
    if (plugin == nullptr || !migration_on(csi, plugin)) return std::nullopt;
    const Handle handle = translate_inline(*plugin, volume);
    if (!handle.error.empty()) {
      return VolumeError{false, "converting volume(" + text(volume, "name") +
                                    ") from inline to csi: " + handle.error};
    }
    out[unique_name(plugin->driver, handle.value)] = std::string(plugin->driver);
    return std::nullopt;
  }

  // ephemeral.VolumeIsForPod: the claim's controller (its first ownerReference with controller:
  // true) is the pod.
  static bool controlled_by(const schedhost::Object& claim, const schedhost::Pod& pod) {
    if (claim.namespace_name() != pod.namespace_name()) return false;
    for (const Json& owner : parse(claim.json("/metadata/ownerReferences"))) {
      if (owner.is_object() && owner.value("controller", Json()) == Json(true)) {
        return text(owner, "uid") == pod.uid();
      }
    }
    return false;
  }

  // getCSIDriverInfo: the driver and handle of a claim ("" when it does not count).
  std::pair<std::string, std::string> claim_driver_and_handle(const schedhost::Context& ctx,
                                                              const schedhost::Object& claim,
                                                              const CsiNode* csi) const {
    const std::string pv_name = text(parse(claim.json("/spec")), "volumeName");
    if (pv_name.empty()) return unbound_driver_and_handle(ctx, claim, csi);
    const std::optional<schedhost::Object> pv =
        ctx.object(resource::kPersistentVolume, "", pv_name);
    // A claim pre-bound to a PV that is not there yet counts by its class.
    if (!pv) return unbound_driver_and_handle(ctx, claim, csi);
    const Json spec = parse(pv->json("/spec"));
    if (has(spec, "csi")) {
      return {text(spec.at("csi"), "driver"), text(spec.at("csi"), "volumeHandle")};
    }
    const InTreePlugin* plugin = in_tree_plugin(spec);
    if (plugin == nullptr || !migration_on(csi, plugin)) return {};
    const Handle handle = translate_pv(*plugin, *pv, spec);
    if (!handle.error.empty()) return {};
    return {std::string(plugin->driver), handle.value};
  }

  // getCSIDriverInfoFromSC: the class's provisioner (its CSI driver when in-tree), and a handle
  // of the claim's own.
  std::pair<std::string, std::string> unbound_driver_and_handle(const schedhost::Context& ctx,
                                                                const schedhost::Object& claim,
                                                                const CsiNode* csi) const {
    // GetPersistentVolumeClaimClass: the beta annotation first, then spec.storageClassName.
    std::string class_name;
    if (const auto beta = claim.annotation(kBetaStorageClassAnnotation)) {
      class_name = std::string(*beta);
    } else {
      class_name = text(parse(claim.json("/spec")), "storageClassName");
    }
    if (class_name.empty()) return {};  // immediate binding: it is bound before it matters
    const std::optional<schedhost::Object> storage_class =
        ctx.object(resource::kStorageClass, "", class_name);
    if (!storage_class) return {};
    std::string handle = std::string(kUnboundClaimPrefix) + "-" +
                         std::string(claim.namespace_name()) + "/" + std::string(claim.name());
    const std::string provisioner = text(parse(storage_class->json("")), "provisioner");
    if (const InTreePlugin* plugin = in_tree_plugin_named(provisioner)) {
      if (!migration_on(csi, plugin)) return {};
      return {std::string(plugin->driver), std::move(handle)};
    }
    return {provisioner, std::move(handle)};
  }

  // isSchedulableAfterCSINodeUpdated: queue when some driver's count went up (a driver new to
  // the CSINode counts from 0).
  static QueueingHint after_csi_node_update(const schedhost::ClusterEvent& event) {
    if (!event.old_object || !event.new_object) return QueueingHint::kQueue;
    const std::map<std::string, std::int64_t> before = driver_counts(*event.old_object);
    for (const auto& [driver, count] : driver_counts(*event.new_object)) {
      const auto old = before.find(driver);
      if (count > (old == before.end() ? 0 : old->second)) return QueueingHint::kQueue;
    }
    return QueueingHint::kSkip;
  }

  // isSchedulableAfterPodDeleted: a pod that was on (or nominated to) a node, with a volume that
  // may have counted.
  static QueueingHint after_pod_deleted(const schedhost::ClusterEvent& event) {
    if (!event.old_pod) return QueueingHint::kQueue;
    const schedhost::Pod& deleted = *event.old_pod;
    const Json volumes = list_at(deleted, "/spec/volumes");
    if (volumes.empty()) return QueueingHint::kSkip;
    if (deleted.node_name().empty() && deleted.nominated_node_name().empty()) {
      return QueueingHint::kSkip;
    }
    for (const Json& volume : volumes) {
      if (may_count(volume)) return QueueingHint::kQueue;
    }
    return QueueingHint::kSkip;
  }

  // isSchedulableAfterPVCAdded: the pod uses the new claim (directly or as an ephemeral volume).
  static QueueingHint after_pvc_added(const schedhost::Pod& pod,
                                      const schedhost::ClusterEvent& event) {
    if (!event.new_object) return QueueingHint::kQueue;
    const schedhost::Object& added = *event.new_object;
    if (added.namespace_name() != pod.namespace_name()) return QueueingHint::kSkip;
    for (const Json& volume : list_at(pod, "/spec/volumes")) {
      const std::optional<std::string> claim = claim_of(pod, volume);
      if (claim && *claim == added.name()) return QueueingHint::kQueue;
    }
    return QueueingHint::kSkip;
  }

  bool portworx_migration_;
  bool volume_limit_scaling_;
};

}  // namespace

SCHEDHOST_LIBRARY(
    "node-volume-limits", "1.0.0",
    schedhost::plugin<NodeVolumeLimits, schedhost::hook::PreFilter, schedhost::hook::Filter,
                      schedhost::hook::EnqueueExtensions, schedhost::hook::SignPod>(
        "NodeVolumeLimits",
        "Keeps the volumes a CSI driver attaches to a node within the "
        "node's CSINode limit for that driver"))
