/*
 * schedhost/abi.h - the schedhost plugin ABI, version 1.
 *
 * A schedhost plugin library is a shared object that exports exactly one function,
 * schedhost_plugin_library_v1(), returning a static descriptor of the library and of the plugins
 * in it. Everything else crosses the boundary through pointers: the plugin's hooks in a vtable,
 * the host's services in a host API table handed to the plugin. The .so never links against the
 * host.
 *
 * C99, no dependency beyond <stdbool.h>, <stddef.h> and <stdint.h>; usable unchanged from C, C++,
 * Rust or Zig. Every integer that crosses has a fixed width; "enums" are int32_t plus constants.
 *
 * Versioning
 *   - ABI 1.0 is frozen: tests/abi_compat/frozen/1.0 keeps a copy of this header as released, and
 *     a plugin built against that copy must load and run in every later 1.x host (CI checks it).
 *   - SCHEDHOST_ABI_MAJOR changes only when an existing field or function changes meaning, moves
 *     or is removed. A host refuses a library built for another major.
 *   - SCHEDHOST_ABI_MINOR grows when fields are appended. Every struct that crosses starts with
 *     its struct_size, set by whoever fills it in: the reader uses a field only when
 *     offsetof(field) + sizeof(field) <= struct_size, and treats a missing function as NULL.
 *     So a newer host runs an older plugin, and a plugin checks host_api->struct_size before it
 *     calls a callback that a newer minor appended.
 *   - A library states the oldest host minor it needs (min_host_abi_minor); an older host refuses
 *     it by name instead of crashing on a missing callback.
 *   - The small value structs filled in by the host (schedhost_taint_t and friends) never grow;
 *     a later minor adds a new accessor instead.
 *
 * Ownership (who frees what, and until when a pointer is valid)
 *   | data                                              | owner  | valid until                 |
 *   |---------------------------------------------------|--------|-----------------------------|
 *   | library, descriptors, vtables, their strings      | plugin | deinit() returns            |
 *   | pod, node, call handles; every view an accessor   | host   | the hook that received them |
 *   |   returns; args_json; the host API table          |        |   returns (API table: forever)|
 *   | cycle state handle                                | host   | the hook returns            |
 *   | strings passed to add_reason, log, set_*          | plugin | the callback returns (copied)|
 *   | a plugin instance (self)                          | plugin | destroy(self)               |
 *   | values stored in the cycle state                  | host   | ops->destroy, called once    |
 *   Nothing is ever freed across the boundary, and no C++ type, exception, allocator, errno or
 *   thread-local crosses it. Strings are UTF-8 views {data, len}: not NUL-terminated.
 *
 * Threading (the tag on every function says which applies)
 *   [main-thread]  library init/deinit, plugin create/destroy: never concurrent with any other
 *                  call into the same library.
 *   [cycle]        one pod's scheduling cycle at a time per profile; calls on one instance are
 *                  serialized.
 *   [concurrent]   Filter, Score, AddPod, RemovePod: up to `parallelism` threads at once, for the
 *                  same pod on the same instance. The cycle state is read-only there (AddPod and
 *                  RemovePod get a private copy they may change).
 *   [binding]      Permit waits, PreBind, Bind, PostBind and the Unreserve after them: may overlap
 *                  later pods' [cycle] calls on another thread.
 *   [any-thread]   host API functions that any thread may call at any time.
 *   [call]         host API functions that take the call handle: only from inside that hook,
 *                  on its thread.
 */
#ifndef SCHEDHOST_ABI_H
#define SCHEDHOST_ABI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SCHEDHOST_ABI_MAJOR 1
#define SCHEDHOST_ABI_MINOR 9

/* First field of schedhost_library_t: "SHL1" read as a little-endian uint32_t. */
#define SCHEDHOST_LIBRARY_MAGIC 0x314C4853u

/* The one symbol a plugin library exports. The _v1 suffix lets a host of another major find it
 * and refuse it by name. */
#define SCHEDHOST_ENTRY_SYMBOL "schedhost_plugin_library_v1"

#if defined(_WIN32)
#define SCHEDHOST_EXPORT __declspec(dllexport)
#else
#define SCHEDHOST_EXPORT __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------------
 * Values
 * ------------------------------------------------------------------------------------------- */

/* A borrowed UTF-8 string: data[0..len), not NUL-terminated. {NULL, 0} is the empty string. */
typedef struct schedhost_str {
  const char* data;
  size_t len;
} schedhost_str_t;

/* The status of a hook, upstream's framework.Code with the same numbers. */
typedef int32_t schedhost_code_t;
enum {
  SCHEDHOST_SUCCESS = 0,
  SCHEDHOST_ERROR = 1,                          /* internal error: the pod fails with it */
  SCHEDHOST_UNSCHEDULABLE = 2,                  /* may be resolved, e.g. by preemption */
  SCHEDHOST_UNSCHEDULABLE_AND_UNRESOLVABLE = 3, /* preemption cannot help on this node */
  SCHEDHOST_WAIT = 4,                           /* Permit only */
  SCHEDHOST_SKIP = 5                            /* PreFilter, PreScore, Bind: not relevant here */
};

typedef int32_t schedhost_log_level_t;
enum {
  SCHEDHOST_LOG_TRACE = 0,
  SCHEDHOST_LOG_DEBUG = 1,
  SCHEDHOST_LOG_INFO = 2,
  SCHEDHOST_LOG_WARN = 3,
  SCHEDHOST_LOG_ERROR = 4
};

/* String fields of a pod (pod_string). An unset field is the empty string. */
typedef int32_t schedhost_pod_string_t;
enum {
  SCHEDHOST_POD_NAME = 0,
  SCHEDHOST_POD_NAMESPACE = 1,
  SCHEDHOST_POD_UID = 2,
  SCHEDHOST_POD_NODE_NAME = 3,           /* spec.nodeName: empty while the pod is pending */
  SCHEDHOST_POD_SCHEDULER_NAME = 4,      /* spec.schedulerName, "default-scheduler" if unset */
  SCHEDHOST_POD_PRIORITY_CLASS_NAME = 5, /* spec.priorityClassName */
  SCHEDHOST_POD_NOMINATED_NODE_NAME = 6, /* status.nominatedNodeName */
  SCHEDHOST_POD_PREEMPTION_POLICY = 7 /* spec.preemptionPolicy, "PreemptLowerPriority" if unset */
};

/* Integer fields of a pod (pod_integer). An unset field is 0. */
typedef int32_t schedhost_pod_integer_t;
enum {
  SCHEDHOST_POD_PRIORITY = 0,         /* spec.priority */
  SCHEDHOST_POD_START_TIME_MS = 1,    /* status.startTime, Unix milliseconds */
  SCHEDHOST_POD_CREATION_TIME_MS = 2, /* metadata.creationTimestamp, Unix milliseconds */
  SCHEDHOST_POD_TERMINATING = 3,      /* 1 when metadata.deletionTimestamp is set */
  SCHEDHOST_POD_GENERATION = 4        /* changes whenever the host changes this pod object */
};

/* String fields of a node (node_string). */
typedef int32_t schedhost_node_string_t;
enum { SCHEDHOST_NODE_NAME = 0, SCHEDHOST_NODE_UID = 1 };

/* Integer fields of a node (node_integer). */
typedef int32_t schedhost_node_integer_t;
enum {
  SCHEDHOST_NODE_UNSCHEDULABLE = 0, /* 1 when spec.unschedulable is true */
  SCHEDHOST_NODE_GENERATION = 1     /* changes whenever the node or its set of pods changes */
};

/* String maps (pod_map_*, node_map_*). Iteration is in byte order of the keys. */
typedef int32_t schedhost_map_t;
enum {
  SCHEDHOST_MAP_LABELS = 0,
  SCHEDHOST_MAP_ANNOTATIONS = 1,
  SCHEDHOST_MAP_NODE_SELECTOR = 2 /* pods only: spec.nodeSelector */
};

/* Resource lists (pod_resource*, node_resource*). Units: "cpu" in millicores; every other
 * resource in whole base units, rounded up (bytes for memory, ephemeral-storage and hugepages-*,
 * a count for pods and extended resources). Iteration is in byte order of the names. */
typedef int32_t schedhost_resource_list_t;
enum {
  SCHEDHOST_POD_REQUESTS = 0,          /* effective request: init vs regular containers, overhead */
  SCHEDHOST_POD_NONZERO_REQUESTS = 1,  /* as scoring sees it: cpu 100m / memory 200Mi when unset */
  SCHEDHOST_NODE_ALLOCATABLE = 2,      /* status.allocatable (includes "pods") */
  SCHEDHOST_NODE_REQUESTED = 3,        /* sum of the requests of the pods on the node */
  SCHEDHOST_NODE_NONZERO_REQUESTED = 4 /* sum of the non-zero requests, for scoring */
};

/* Which pods of a node (node_pod_count / node_pod_at). */
typedef int32_t schedhost_node_pods_t;
enum {
  SCHEDHOST_NODE_PODS_ALL = 0,
  SCHEDHOST_NODE_PODS_WITH_AFFINITY = 1,              /* any pod (anti-)affinity term */
  SCHEDHOST_NODE_PODS_WITH_REQUIRED_ANTI_AFFINITY = 2 /* a required anti-affinity term */
};

typedef int32_t schedhost_container_kind_t;
enum {
  SCHEDHOST_CONTAINER_REGULAR = 0,
  SCHEDHOST_CONTAINER_INIT = 1,
  SCHEDHOST_CONTAINER_SIDECAR = 2 /* an init container with restartPolicy: Always */
};

/* 1.8: string fields of an object of the other kinds (object_string). An unset field is "". */
typedef int32_t schedhost_object_string_t;
enum {
  SCHEDHOST_OBJECT_NAME = 0,
  SCHEDHOST_OBJECT_NAMESPACE = 1, /* "" for a cluster-scoped kind (PersistentVolume...) */
  SCHEDHOST_OBJECT_UID = 2,
  SCHEDHOST_OBJECT_RESOURCE_VERSION = 3, /* opaque, as the API server gave it; "" in a file */
  SCHEDHOST_OBJECT_RESOURCE = 4          /* the resource name lookups take: "PersistentVolume" */
};

/* 1.3: what happened to an object in a cluster event, upstream's ActionType bits. A registration
 * (register_event) names a set of bits; an event carries the bits of what changed. As upstream
 * v1.35, an update is one event per property that changed (a node whose labels and taints changed
 * is two events: UPDATE_NODE_LABEL, then UPDATE_NODE_TAINT; spec.unschedulable turned false counts
 * as a taint change), and a pod update that changed none of the UPDATE_POD_* properties carries
 * SCHEDHOST_ACTION_ANY_UPDATE. A registration matches an event when they share a bit and the
 * event's value is not greater than the registration's (upstream's MatchClusterEvents): so a pod
 * update of no particular kind reaches only plugins that registered ANY_UPDATE. */
typedef uint32_t schedhost_action_t;
#define SCHEDHOST_ACTION_ADD 1u
#define SCHEDHOST_ACTION_DELETE 2u
#define SCHEDHOST_ACTION_UPDATE_NODE_ALLOCATABLE 4u
#define SCHEDHOST_ACTION_UPDATE_NODE_LABEL 8u
#define SCHEDHOST_ACTION_UPDATE_NODE_TAINT 16u /* taints, or spec.unschedulable turned false */
#define SCHEDHOST_ACTION_UPDATE_NODE_CONDITION 32u
/* 1.3's Update (upstream v1.28's: the four node bits above). Kept for plugins built against
 * 1.3-1.6, whose registrations the host reads as they meant them (see ANY_UPDATE); new code
 * registers the bits it needs, or ANY_UPDATE. */
#define SCHEDHOST_ACTION_UPDATE 60u
#define SCHEDHOST_ACTION_UPDATE_NODE_ANNOTATION 64u
/* 1.3's All. Kept like UPDATE; new code uses SCHEDHOST_ACTION_ANY. */
#define SCHEDHOST_ACTION_ALL 127u
/* -- 1.7: upstream v1.35's bits -- */
/* status.declaredFeatures changed; never sent while NodeDeclaredFeatures (alpha) is off. */
#define SCHEDHOST_ACTION_UPDATE_NODE_DECLARED_FEATURE 128u
#define SCHEDHOST_ACTION_UPDATE_POD_LABEL 256u
#define SCHEDHOST_ACTION_UPDATE_POD_SCALE_DOWN 512u  /* a resource request shrank or went away */
#define SCHEDHOST_ACTION_UPDATE_POD_TOLERATION 1024u /* tolerations were added */
#define SCHEDHOST_ACTION_UPDATE_POD_SCHEDULING_GATES_ELIMINATED 2048u /* the last gate went */
#define SCHEDHOST_ACTION_UPDATE_POD_GENERATED_RESOURCE_CLAIM 4096u    /* status.resourceClaim* */
/* Every update bit: upstream v1.35's Update. A library built against 1.3-1.6 that registered
 * UPDATE (or any of its bits) on "Pod" or "*" is read as having registered ANY_UPDATE there, and
 * ALL anywhere as ANY; its hints see pod updates as UPDATE and v1.28's labels. */
#define SCHEDHOST_ACTION_ANY_UPDATE 8188u
#define SCHEDHOST_ACTION_ANY 8191u

/* 1.3: the answer of a queueing hint (upstream's QueueingHint). Any other value counts as QUEUE
 * (the host logs it once per plugin). */
typedef int32_t schedhost_queueing_hint_t;
enum {
  SCHEDHOST_QUEUE_SKIP = 0, /* the event cannot make the pod schedulable: leave it waiting */
  SCHEDHOST_QUEUE = 1       /* it may: try the pod again (after its backoff) */
};

/* Value structs filled in by the host. Frozen for ABI major 1: they never grow. */
typedef struct schedhost_taint {
  schedhost_str_t key;
  schedhost_str_t value;
  schedhost_str_t effect; /* NoSchedule, PreferNoSchedule or NoExecute */
} schedhost_taint_t;

typedef struct schedhost_toleration {
  schedhost_str_t key;
  schedhost_str_t op; /* "Equal" (also when unset) or "Exists" */
  schedhost_str_t value;
  schedhost_str_t effect; /* empty matches every effect */
  int64_t toleration_seconds;
  bool has_toleration_seconds;
} schedhost_toleration_t;

typedef struct schedhost_host_port {
  schedhost_str_t host_ip;  /* "0.0.0.0" when unset */
  schedhost_str_t protocol; /* "TCP" when unset */
  int32_t port;
} schedhost_host_port_t;

typedef struct schedhost_container {
  schedhost_str_t name;
  schedhost_str_t image;
  schedhost_container_kind_t kind;
} schedhost_container_t;

/* 1.8: one of a pod's metadata.ownerReferences (pod_owner_at). Frozen: never grows. */
typedef struct schedhost_owner_reference {
  schedhost_str_t api_version; /* "apps/v1" */
  schedhost_str_t kind;        /* "ReplicaSet" */
  schedhost_str_t name;
  schedhost_str_t uid;
  bool controller; /* controller: true (at most one owner of an object has it) */
} schedhost_owner_reference_t;

/* 1.9: a resource a plugin reads besides the host's own kinds, upstream's informer from
 * framework.Handle (a custom resource such as scheduler-plugins' PodGroup). The host keeps its
 * objects -- in serve an informer, one per resource however many plugins and profiles declare it;
 * in run the cluster file's objects of that apiVersion and kind -- and serves them through the
 * object_* lookups under the name "<plural>.<version>.<group>" (upstream's GVK string:
 * "podgroups.v1alpha1.scheduling.x-k8s.io"), and their changes as cluster events of that name.
 * Plugin-owned static storage (schedhost_plugin_descriptor_t.resources). Frozen: never grows. */
typedef struct schedhost_resource_decl {
  const char* group;   /* NUL-terminated: "scheduling.x-k8s.io"; "" for the core group */
  const char* version; /* "v1alpha1" */
  const char* plural;  /* the API path's resource: "podgroups" */
  const char* kind;    /* "PodGroup": how a cluster file names its objects */
  bool namespaced;
} schedhost_resource_decl_t;

/* 1.9: what a declared metric is (schedhost_metric_decl_t.kind). */
typedef int32_t schedhost_metric_kind_t;
enum {
  SCHEDHOST_METRIC_COUNTER = 0,  /* only goes up: metric_record adds */
  SCHEDHOST_METRIC_HISTOGRAM = 1 /* metric_record observes one value */
};

/* 1.9: a metric a plugin reports. serve's /metrics has it as schedhost_plugin_<name> with the
 * label plugin="<Plugin>" (one series per plugin, whichever profiles enable it), from the start,
 * at zero. Plugin-owned static storage (schedhost_plugin_descriptor_t.metrics). Frozen. */
typedef struct schedhost_metric_decl {
  const char* name; /* NUL-terminated, ^[a-z][a-z0-9_]*$, without the prefix: "gangs_total" */
  const char* help; /* NUL-terminated, one line */
  schedhost_metric_kind_t kind;
  const double* buckets; /* histograms: upper bounds, increasing; NULL for Prometheus' defaults */
  size_t bucket_count;
} schedhost_metric_decl_t;

/* One image name present on a node; an image with several names appears once per name. */
typedef struct schedhost_image {
  schedhost_str_t name;
  int64_t size_bytes;
  int32_t num_nodes; /* how many nodes of the snapshot have this image */
} schedhost_image_t;

/* A node and its score, for NormalizeScore. */
typedef struct schedhost_node_score {
  schedhost_str_t node_name;
  int64_t score;
} schedhost_node_score_t;

/* How one node failed Filter, for PostFilter. */
typedef struct schedhost_node_status {
  schedhost_str_t node_name;
  schedhost_code_t code;
  schedhost_str_t plugin;  /* the Filter plugin that rejected the node */
  schedhost_str_t message; /* its reasons joined by ", " */
} schedhost_node_status_t;

/* A node where preemption would make room for the pod, with the pods it would evict
 * (process_preemption, ABI 1.5). */
typedef struct schedhost_preemption_candidate {
  schedhost_str_t node_name;
  const schedhost_str_t* victim_uids; /* the pods to evict, most important first */
  size_t victim_count;
  int64_t pdb_violations; /* how many victims' PodDisruptionBudgets the eviction violates */
} schedhost_preemption_candidate_t;

/* A pod in the scheduling queue, for QueueSort. */
typedef struct schedhost_queued_pod {
  const struct schedhost_pod* pod;
  int64_t enqueued_ms; /* when the pod entered the queue, Unix milliseconds */
  int32_t attempts;    /* scheduling attempts so far */
} schedhost_queued_pod_t;

/* 1.3: a cluster event, for a queueing hint. Filled in by the host; it may grow (check
 * struct_size before reading a field appended later). Resource names are upstream's: "Pod",
 * "Node", "PersistentVolume", "PersistentVolumeClaim", "storage.k8s.io/StorageClass",
 * "storage.k8s.io/CSINode", "storage.k8s.io/CSIDriver", "storage.k8s.io/CSIStorageCapacity", or
 * "<plural>.<version>.<group>" for any other kind. The objects are borrowed until the hint
 * returns; the ones an event does not have are NULL. */
typedef struct schedhost_cluster_event {
  uint32_t struct_size;
  schedhost_str_t resource;
  schedhost_action_t actions; /* SCHEDHOST_ACTION_* bits: what changed */
  /* upstream's name for it: "NodeAdd", "NodeUpdateNodeLabel", "AssignedPodDelete",
   * "UnschedulablePodUpdatePodLabel", ... (resource and action, as v1.35 labels them) */
  schedhost_str_t label;
  /* Pod events: an assigned pod's add, update or delete; since 1.7 also the update of the pending
   * pod the hint is asked about (label "UnschedulablePod...", new_pod is that pod as updated). */
  const struct schedhost_pod* old_pod; /* update, delete */
  const struct schedhost_pod* new_pod; /* add, update */
  /* Node events: new_node is the node with its pods; old_node the Node as it was, without pods
   * (since 1.7 also the node a NodeDelete removed). */
  const struct schedhost_node* old_node; /* update, delete */
  const struct schedhost_node* new_node; /* add, update */
  /* 1.8: events on the other resources (PersistentVolume, storage.k8s.io/StorageClass...): the
   * object before and after, read with object_string / object_map_* / object_json. */
  const struct schedhost_object* old_object; /* update, delete */
  const struct schedhost_object* new_object; /* add, update */
} schedhost_cluster_event_t;

/* ---------------------------------------------------------------------------------------------
 * Opaque handles, all owned by the host
 * ------------------------------------------------------------------------------------------- */
typedef struct schedhost_host schedhost_host_t; /* the host as one library or instance sees it */
typedef struct schedhost_call schedhost_call_t; /* one invocation: result sinks, snapshot */
typedef struct schedhost_pod schedhost_pod_t;   /* one Pod object */
typedef struct schedhost_node schedhost_node_t; /* NodeInfo: a Node, its pods, their requests */
typedef struct schedhost_cycle_state schedhost_cycle_state_t; /* one pod's CycleState */
typedef struct schedhost_dry_run schedhost_dry_run_t; /* a what-if copy of one node, preemption */
/* 1.8: an object of another kind than Pod and Node (a PersistentVolume, a Service...), as the
 * snapshot holds it: immutable. */
typedef struct schedhost_object schedhost_object_t;

/* How the host copies and frees a value a plugin stores in the cycle state. Plugin-owned static
 * storage; its address is also the value's type tag (see state_read). */
typedef struct schedhost_state_ops {
  uint32_t struct_size;
  /* Deep copy for a cloned cycle state (nominated pods, preemption). NULL: the value is
   * immutable and shared by the clones. [cycle] Returns a new value the host then owns. */
  void* (*clone)(const void* value);
  /* Frees a value; called exactly once per stored or cloned value. [any-thread] */
  void (*destroy)(void* value);
} schedhost_state_ops_t;

/* ---------------------------------------------------------------------------------------------
 * The host API: implemented by the host, handed to init() and create(). Never linked as symbols.
 * Append-only: check struct_size before calling a function added after 1.0.
 * ------------------------------------------------------------------------------------------- */
typedef struct schedhost_host_api {
  uint32_t struct_size;
  uint32_t abi_major; /* the host's ABI version */
  uint32_t abi_minor;

  /* -- Logging -- */
  /* Whether a message at `level` would be printed; lets a plugin skip formatting. [any-thread] */
  bool (*log_enabled)(const schedhost_host_t* host, schedhost_log_level_t level);
  /* Logs one line, prefixed by the host with the plugin's name. Copies msg. [any-thread] */
  void (*log)(const schedhost_host_t* host, schedhost_log_level_t level, schedhost_str_t msg);

  /* -- Results of the current call (each copies what it is given) -- */
  /* Appends one reason to the status the hook returns; for Error, the error message. A reason
   * over 1024 bytes is cut there and marked "... (truncated from N bytes)". [call] */
  void (*add_reason)(schedhost_call_t* call, schedhost_str_t reason);
  /* PreFilter only: restricts this cycle to these nodes (upstream PreFilterResult.NodeNames).
   * Calling it with count 0 means "no node". Not calling it means "all nodes". [call] */
  void (*set_node_names)(schedhost_call_t* call, const schedhost_str_t* names, size_t count);
  /* PostFilter only: the node the pod is nominated to (upstream NominatingInfo). [call] */
  void (*set_nominated_node)(schedhost_call_t* call, schedhost_str_t node_name);

  /* -- Pod accessors. Views are borrowed until the hook returns. [any-thread] -- */
  schedhost_str_t (*pod_string)(const schedhost_pod_t* pod, schedhost_pod_string_t field);
  int64_t (*pod_integer)(const schedhost_pod_t* pod, schedhost_pod_integer_t field);
  /* Looks up one key; false (and *out_value untouched) when absent. */
  bool (*pod_map_get)(const schedhost_pod_t* pod, schedhost_map_t map, schedhost_str_t key,
                      schedhost_str_t* out_value);
  size_t (*pod_map_count)(const schedhost_pod_t* pod, schedhost_map_t map);
  /* The index-th entry in key order; false past the end. */
  bool (*pod_map_at)(const schedhost_pod_t* pod, schedhost_map_t map, size_t index,
                     schedhost_str_t* out_key, schedhost_str_t* out_value);
  /* One resource of a pod list (SCHEDHOST_POD_*); false and 0 when the pod has none of it. */
  bool (*pod_resource)(const schedhost_pod_t* pod, schedhost_resource_list_t list,
                       schedhost_str_t resource, int64_t* out_value);
  size_t (*pod_resource_count)(const schedhost_pod_t* pod, schedhost_resource_list_t list);
  bool (*pod_resource_at)(const schedhost_pod_t* pod, schedhost_resource_list_t list, size_t index,
                          schedhost_str_t* out_resource, int64_t* out_value);
  size_t (*pod_toleration_count)(const schedhost_pod_t* pod);
  bool (*pod_toleration_at)(const schedhost_pod_t* pod, size_t index, schedhost_toleration_t* out);
  /* Host ports the pod asks for (containers' ports with hostPort > 0). */
  size_t (*pod_host_port_count)(const schedhost_pod_t* pod);
  bool (*pod_host_port_at)(const schedhost_pod_t* pod, size_t index, schedhost_host_port_t* out);
  size_t (*pod_container_count)(const schedhost_pod_t* pod);
  bool (*pod_container_at)(const schedhost_pod_t* pod, size_t index, schedhost_container_t* out);
  /* Any field as compact JSON, by RFC 6901 pointer ("" is the whole object, "/spec/affinity" a
   * part). False when the pointer names nothing. Serialized once per object version and cached,
   * so repeated calls are cheap. */
  bool (*pod_json)(const schedhost_pod_t* pod, schedhost_str_t json_pointer,
                   schedhost_str_t* out_json);

  /* -- Node (NodeInfo) accessors. Views are borrowed until the hook returns. [any-thread] -- */
  schedhost_str_t (*node_string)(const schedhost_node_t* node, schedhost_node_string_t field);
  int64_t (*node_integer)(const schedhost_node_t* node, schedhost_node_integer_t field);
  bool (*node_map_get)(const schedhost_node_t* node, schedhost_map_t map, schedhost_str_t key,
                       schedhost_str_t* out_value);
  size_t (*node_map_count)(const schedhost_node_t* node, schedhost_map_t map);
  bool (*node_map_at)(const schedhost_node_t* node, schedhost_map_t map, size_t index,
                      schedhost_str_t* out_key, schedhost_str_t* out_value);
  /* One resource of a node list (SCHEDHOST_NODE_*); false and 0 when absent. */
  bool (*node_resource)(const schedhost_node_t* node, schedhost_resource_list_t list,
                        schedhost_str_t resource, int64_t* out_value);
  size_t (*node_resource_count)(const schedhost_node_t* node, schedhost_resource_list_t list);
  bool (*node_resource_at)(const schedhost_node_t* node, schedhost_resource_list_t list,
                           size_t index, schedhost_str_t* out_resource, int64_t* out_value);
  size_t (*node_taint_count)(const schedhost_node_t* node);
  bool (*node_taint_at)(const schedhost_node_t* node, size_t index, schedhost_taint_t* out);
  /* Host ports already used by the pods on the node. */
  size_t (*node_used_port_count)(const schedhost_node_t* node);
  bool (*node_used_port_at)(const schedhost_node_t* node, size_t index, schedhost_host_port_t* out);
  size_t (*node_image_count)(const schedhost_node_t* node);
  bool (*node_image_at)(const schedhost_node_t* node, size_t index, schedhost_image_t* out);
  size_t (*node_pod_count)(const schedhost_node_t* node, schedhost_node_pods_t which);
  /* NULL past the end. */
  const schedhost_pod_t* (*node_pod_at)(const schedhost_node_t* node, schedhost_node_pods_t which,
                                        size_t index);
  /* The Node object as JSON by pointer, as pod_json. */
  bool (*node_json)(const schedhost_node_t* node, schedhost_str_t json_pointer,
                    schedhost_str_t* out_json);

  /* -- The snapshot the current call sees. [call], and from the threads of a [concurrent] hook */
  size_t (*snapshot_node_count)(const schedhost_call_t* call);
  const schedhost_node_t* (*snapshot_node_at)(const schedhost_call_t* call, size_t index);
  /* NULL when no node has that name. */
  const schedhost_node_t* (*snapshot_node_get)(const schedhost_call_t* call,
                                               schedhost_str_t node_name);

  /* -- Cycle state: per pod and attempt, string keys shared by all plugins (upstream style:
   * "PreFilter" + plugin name). Write in [cycle] hooks (and AddPod/RemovePod on their copy);
   * read anywhere. -- */
  /* Stores value under key, replacing (and destroying) any previous value. The host owns value
   * from now on, even when it returns false (then it is destroyed at once). */
  bool (*state_write)(schedhost_cycle_state_t* state, schedhost_str_t key, void* value,
                      const schedhost_state_ops_t* ops);
  /* The value under key, or NULL when absent or stored with other ops: the ops pointer is the
   * value's type, so a plugin can never read another library's value as its own. */
  void* (*state_read)(const schedhost_cycle_state_t* state, schedhost_str_t key,
                      const schedhost_state_ops_t* ops);

  /* -- Pods waiting at Permit (upstream's WaitingPod), for plugins like gang scheduling -- */
  size_t (*waiting_pod_count)(const schedhost_call_t* call);                            /* [call] */
  const schedhost_pod_t* (*waiting_pod_at)(const schedhost_call_t* call, size_t index); /* [call] */
  /* Ends this plugin's wait on the pod with that uid; false if it is not waiting. [call] */
  bool (*waiting_pod_allow)(schedhost_call_t* call, schedhost_str_t pod_uid);
  /* Rejects the waiting pod with a message; false if it is not waiting. [call] */
  bool (*waiting_pod_reject)(schedhost_call_t* call, schedhost_str_t pod_uid,
                             schedhost_str_t message);

  /* -- Namespaces of the snapshot the current call sees (kind: Namespace objects of the cluster),
   * for namespaceSelector (upstream's namespace lister). A pod's namespace may have no Namespace
   * object: it then has no labels. Views are borrowed until the hook returns. [call], and from
   * the threads of a [concurrent] hook -- */
  /* How many Namespace objects the snapshot has. */
  size_t (*namespace_count)(const schedhost_call_t* call);
  /* The name of the index-th Namespace object (snapshot order); {NULL, 0} past the end. */
  schedhost_str_t (*namespace_name_at)(const schedhost_call_t* call, size_t index);
  /* Looks up one label of namespace ns; false (and *out_value untouched) when the label or the
   * Namespace object is absent. */
  bool (*namespace_label_get)(const schedhost_call_t* call, schedhost_str_t ns, schedhost_str_t key,
                              schedhost_str_t* out_value);
  /* How many labels namespace ns has (0 when it has no Namespace object). */
  size_t (*namespace_label_count)(const schedhost_call_t* call, schedhost_str_t ns);
  /* The index-th label of namespace ns in key order; false past the end. */
  bool (*namespace_label_at)(const schedhost_call_t* call, schedhost_str_t ns, size_t index,
                             schedhost_str_t* out_key, schedhost_str_t* out_value);

  /* -- Preemption: what PostFilter needs to do what upstream's DefaultPreemption does. -- */
  /* A number from the run's seeded generator (`run --seed`), so random choices replay. [call] */
  uint64_t (*random)(schedhost_call_t* call);
  /* Runs body(ctx, i) for every i in [0, count) and returns when all have returned; body runs
   * [concurrent]. In PreFilter, PreScore (since host 1.1) and PostFilter the bodies run on the
   * host's worker threads; in other hooks and inside a body they run inline, in order. A NULL
   * body or count 0 does nothing. [call] */
  void (*parallel_for)(schedhost_call_t* call, size_t count, void (*body)(void* ctx, size_t index),
                       void* ctx);
  /* PostFilter only: starts a dry run on a private copy of node node_name and of the call's cycle
   * state, for the call's pod. NULL when the node is unknown, the call is not PostFilter's, or a
   * cycle state value cannot be cloned. The caller must end it with dry_run_end. Distinct dry
   * runs may be used from different parallel_for bodies at once. [call], or a parallel_for body */
  schedhost_dry_run_t* (*dry_run_begin)(schedhost_call_t* call, schedhost_str_t node_name);
  /* The node copy: its pods and sums reflect the removals and additions so far. */
  const schedhost_node_t* (*dry_run_node)(const schedhost_dry_run_t* run);
  /* Removes the pod with that uid from the copy and runs the profile's RemovePod (PreFilter
   * extension) hooks on the state copy. ERROR when no such pod is on the copy; otherwise the
   * first non-SUCCESS RemovePod status, its reasons in dry_run_reason_*. */
  schedhost_code_t (*dry_run_remove_pod)(schedhost_dry_run_t* run, schedhost_str_t pod_uid);
  /* Puts back a pod that dry_run_remove_pod removed, running the AddPod hooks; as above. */
  schedhost_code_t (*dry_run_add_pod)(schedhost_dry_run_t* run, schedhost_str_t pod_uid);
  /* Runs the profile's Filter plugins for the call's pod on the copy with the state copy:
   * SUCCESS, or the first failing status (its reasons in dry_run_reason_*). */
  schedhost_code_t (*dry_run_filter)(schedhost_dry_run_t* run);
  /* The reasons of the last non-SUCCESS status of this dry run; views valid until the next
   * dry_run_* call on it. */
  size_t (*dry_run_reason_count)(const schedhost_dry_run_t* run);
  schedhost_str_t (*dry_run_reason_at)(const schedhost_dry_run_t* run, size_t index);
  /* Frees the dry run and its copies. NULL is a no-op. */
  void (*dry_run_end)(schedhost_dry_run_t* run);
  /* PostFilter only: evict this pod (by uid) from the nominated node when the hook returns
   * SUCCESS with set_nominated_node. Every victim must be on that node. [call] */
  void (*add_victim)(schedhost_call_t* call, schedhost_str_t pod_uid);
  /* The PodDisruptionBudgets of the snapshot (policy/v1 objects of the cluster). [call], or a
   * parallel_for body */
  size_t (*pdb_count)(const schedhost_call_t* call);
  /* The index-th PodDisruptionBudget as compact JSON by RFC 6901 pointer, as pod_json; false
   * past the end or when the pointer names nothing. Views valid until the hook returns. */
  bool (*pdb_json)(const schedhost_call_t* call, size_t index, schedhost_str_t json_pointer,
                   schedhost_str_t* out_json);

  /* -- 1.1 -- */
  /* The snapshot's nodes holding at least one pod of that kind (ALL: any pod), in snapshot order;
   * the host keeps these lists as pods come and go (upstream's HavePodsWithAffinityList and
   * HavePodsWithRequiredAntiAffinityList), so a PreFilter or PreScore need not visit every node
   * to find the few that matter. 0 / NULL for an unknown kind or past the end. [call], and from
   * the threads of a [concurrent] hook */
  size_t (*snapshot_nodes_with_pods_count)(const schedhost_call_t* call,
                                           schedhost_node_pods_t which);
  const schedhost_node_t* (*snapshot_nodes_with_pods_at)(const schedhost_call_t* call,
                                                         schedhost_node_pods_t which, size_t index);

  /* -- 1.2 -- */
  /* The snapshot's changes since it was taken, for a plugin that keeps data derived from the
   * snapshot across scheduling cycles (per-domain pod counts, say) and wants to catch up rather
   * than recount. The snapshot changes only between cycles: a pod is placed when it is assumed
   * (Reserve) or when the API server reports it (serve), and removed when it is unreserved,
   * evicted or deleted. When nodes change (serve: added, removed, relabelled) the snapshot gets a
   * new id, with no changes yet; serve also gives it a new id, between cycles, once it holds more
   * changes than pods (and more than 4096), so the list does not grow for ever.
   * snapshot_id: unique among the snapshots of this host process, never 0; data tagged with
   * another id is stale. snapshot_revision: how many changes there have been; change k
   * (0 <= k < revision) is read with snapshot_change_at. [call], and from the threads of a
   * [concurrent] hook */
  uint64_t (*snapshot_id)(const schedhost_call_t* call);
  uint64_t (*snapshot_revision)(const schedhost_call_t* call);
  /* Change number `revision`: +1 when *out_pod was placed on the node at position
   * *out_node_index (snapshot order, as snapshot_node_at), -1 when it was removed from it; 0
   * (outputs untouched) past the end or for a NULL output. The pod handle is borrowed until the
   * hook returns, like any other, even for a pod no longer in the snapshot. */
  int32_t (*snapshot_change_at)(const schedhost_call_t* call, uint64_t revision,
                                const schedhost_pod_t** out_pod, size_t* out_node_index);

  /* -- 1.3 -- */
  /* events_to_register only: a pod this plugin rejected may become schedulable when `actions`
   * (SCHEDHOST_ACTION_* bits) happen to `resource` (an upstream name, "*" for every resource;
   * see schedhost_cluster_event_t). Call it once per resource. [call] */
  void (*register_event)(schedhost_call_t* call, schedhost_str_t resource,
                         schedhost_action_t actions);

  /* -- 1.4 -- */
  /* A hook of this call threw (a C++ plugin's exception, caught at the ABI boundary): `what`
   * becomes the call's reason as add_reason would make it, and the host counts the fault
   * (schedhost_plugin_faults_total{kind="exception"}). The hook still returns SCHEDHOST_ERROR.
   * The C++ SDK calls it, falling back to add_reason on an older host. [call] */
  void (*report_exception)(schedhost_call_t* call, schedhost_str_t what);

  /* -- 1.5 -- */
  /* PostFilter only: offers preemption candidates to the profile's scheduler extenders that
   * have a preemptVerb, as upstream's preemption evaluator does before it picks a node. Each
   * extender in turn may drop candidates or change their victims and PDB violation counts. On
   * SUCCESS candidates[0..*out_count) are the ones kept, in the order given, node names as the
   * plugin set them; the host may point their victim_uids at its own arrays (valid until the hook
   * returns). *out_count is 0 when the extenders kept none, and count, with the array untouched,
   * when no extender preempts. A node an extender names that was not offered is ignored (logged).
   * ERROR when a non-ignorable
   * extender failed: *out_error (host-owned, valid until the hook returns) says why and the array
   * is untouched; the plugin should fail with that message. [call] */
  schedhost_code_t (*process_preemption)(schedhost_call_t* call,
                                         schedhost_preemption_candidate_t* candidates, size_t count,
                                         size_t* out_count, schedhost_str_t* out_error);

  /* -- 1.6 -- */
  /* sign_pod only: one fragment of the pod's signature (upstream's SignFragment). key names what
   * is signed, shared by plugins that read the same thing (say "v1.Pod.Spec.Tolerations");
   * value_json is its value as JSON, with lists whose order does not matter sorted. A later
   * fragment with the same key replaces the earlier. Invalid JSON makes the pod unsignable (the
   * host logs it), as a refusal would. [call] */
  void (*add_sign_fragment)(schedhost_call_t* call, schedhost_str_t key,
                            schedhost_str_t value_json);

  /* -- 1.8: the objects of other kinds the snapshot holds, for the volume plugins and
   * PodTopologySpread's default constraints (upstream's listers). `resource` is a name as in
   * schedhost_cluster_event_t: "PersistentVolume", "PersistentVolumeClaim", "Service",
   * "ReplicationController", "apps/ReplicaSet", "apps/StatefulSet", "storage.k8s.io/StorageClass",
   * "storage.k8s.io/CSINode", "storage.k8s.io/CSIDriver", "storage.k8s.io/CSIStorageCapacity";
   * an unknown name has no objects. `ns` "" means every namespace (and is what a cluster-scoped
   * kind takes). Objects are ordered by namespace, then name. Handles and views are borrowed until
   * the hook returns. [call], and from the threads of a [concurrent] hook -- */
  size_t (*object_count)(const schedhost_call_t* call, schedhost_str_t resource,
                         schedhost_str_t ns);
  /* The index-th object of object_count's list; NULL past the end. */
  const schedhost_object_t* (*object_at)(const schedhost_call_t* call, schedhost_str_t resource,
                                         schedhost_str_t ns, size_t index);
  /* The object ns/name ("" ns for a cluster-scoped kind); NULL when the snapshot has none. */
  const schedhost_object_t* (*object_get)(const schedhost_call_t* call, schedhost_str_t resource,
                                          schedhost_str_t ns, schedhost_str_t name);
  /* Accessors of an object: as pod_string, pod_map_* (LABELS, ANNOTATIONS) and pod_json.
   * [any-thread] */
  schedhost_str_t (*object_string)(const schedhost_object_t* object,
                                   schedhost_object_string_t field);
  bool (*object_map_get)(const schedhost_object_t* object, schedhost_map_t map, schedhost_str_t key,
                         schedhost_str_t* out_value);
  size_t (*object_map_count)(const schedhost_object_t* object, schedhost_map_t map);
  bool (*object_map_at)(const schedhost_object_t* object, schedhost_map_t map, size_t index,
                        schedhost_str_t* out_key, schedhost_str_t* out_value);
  bool (*object_json)(const schedhost_object_t* object, schedhost_str_t json_pointer,
                      schedhost_str_t* out_json);
  /* A pod's metadata.ownerReferences, in order. [any-thread] */
  size_t (*pod_owner_count)(const schedhost_pod_t* pod);
  bool (*pod_owner_at)(const schedhost_pod_t* pod, size_t index, schedhost_owner_reference_t* out);
  /* How many pods placed on the snapshot's nodes mount the PersistentVolumeClaim ns/claim
   * through a persistentVolumeClaim volume (upstream's usedPVCSet, for ReadWriteOncePod). [call],
   * and from the threads of a [concurrent] hook */
  size_t (*snapshot_pvc_users)(const schedhost_call_t* call, schedhost_str_t ns,
                               schedhost_str_t claim);
  /* Whether upstream feature gate `gate` ("MatchLabelKeysInPodTopologySpread") is on in this
   * process: as --feature-gates set it, else its kube-scheduler v1.35 default; false for a gate
   * the host does not know. Fixed for the life of the process, so read it in create(). [any-thread]
   */
  bool (*feature_enabled)(const schedhost_host_t* host, schedhost_str_t gate);
  /* Sends one request to the API server with the scheduler's credentials, rate limits and
   * retries, and waits for the answer: verb "GET", "POST", "PUT", "PATCH" or "DELETE"; path as
   * the server takes it ("/api/v1/persistentvolumes/pv-1"); body JSON or empty; content_type
   * "" for application/json (or a patch type: "application/merge-patch+json", ...). SUCCESS once
   * the server answered, any status: *out_status is the HTTP status and *out_body the answer's
   * body (host-owned, valid until the hook returns). SKIP when this process has no API server
   * (`run` replays without one): nothing was sent, and a plugin acts as if the write was made.
   * Since 1.9, in run, a request on a resource a plugin declared (its collection, an object or its
   * /status) is answered from the run's own objects instead: GET, POST, PUT, PATCH (merge or JSON
   * patch) and DELETE apply to them as the API server would, and later cycles see the change.
   * ERROR when no request could be sent, *out_body saying why: only PreBind, Bind, PostBind and
   * Unreserve may call it (the hooks upstream lets block), or the server did not answer.
   * [binding] */
  schedhost_code_t (*api_request)(schedhost_call_t* call, schedhost_str_t verb,
                                  schedhost_str_t path, schedhost_str_t content_type,
                                  schedhost_str_t body, int32_t* out_status,
                                  schedhost_str_t* out_body);

  /* -- 1.9: the plugin handle, what a Go plugin gets from framework.Handle: listers with label
   * selectors, events, metrics; writes are api_request's -- */
  /* The objects of `resource` in namespace ns ("" for every namespace) whose labels match
   * `selector`, in Kubernetes' label selector syntax ("app=web,tier in (a,b),!canary"; "" matches
   * every object), in object_at's order: the first min(capacity, matches) go to out[] (borrowed
   * until the hook returns), *out_count is how many match. ERROR when the selector does not parse,
   * *out_error saying why (borrowed likewise). [call], and from the threads of a [concurrent] hook
   */
  schedhost_code_t (*object_select)(schedhost_call_t* call, schedhost_str_t resource,
                                    schedhost_str_t ns, schedhost_str_t selector,
                                    const schedhost_object_t** out, size_t capacity,
                                    size_t* out_count, schedhost_str_t* out_error);
  /* Records an Event about pod, as upstream's EventRecorder: type "Normal" or "Warning", reason
   * UpperCamelCase ("GangTimeout"), message one line (cut at 1024 bytes). In serve an
   * events.k8s.io/v1 Event from the pod's profile, through the host's recorder (deduplicated,
   * rate-limited, never blocking); in run the pod's result lists it (`events` in -o json, with
   * and without --explain) and the log has it at info. False, with nothing recorded, for another
   * type or an empty reason. [call] of any hook but queueing_hint and sign_pod */
  bool (*record_event)(schedhost_call_t* call, const schedhost_pod_t* pod, schedhost_str_t type,
                       schedhost_str_t reason, schedhost_str_t message);
  /* The id of the metric named `name` among those this plugin declared (descriptor's metrics);
   * -1 when it declared none of that name. Look it up once, in create(). [any-thread] */
  int32_t (*metric_id)(const schedhost_host_t* host, schedhost_str_t name);
  /* Adds value (finite, >= 0) to a counter, or observes value (finite) in a histogram. An unknown
   * id or a value out of range is ignored (logged once). Lock-free. [any-thread] */
  void (*metric_record)(const schedhost_host_t* host, int32_t id, double value);

  /* 1.10 and later: append here only (and bump SCHEDHOST_ABI_MINOR). */
} schedhost_host_api_t;

/* ---------------------------------------------------------------------------------------------
 * The plugin vtable: implemented by the plugin. A NULL hook means the plugin does not implement
 * that extension point; the set of non-NULL hooks is what `schedhost plugins` reports and what a
 * profile may enable. Every hook gets `self` (what create returned) and the call handle; the
 * status is the return value and reasons go through host_api->add_reason.
 * ------------------------------------------------------------------------------------------- */
typedef struct schedhost_plugin_vtable {
  uint32_t struct_size;

  /* Creates an instance from pluginConfig args (compact JSON, "{}" when absent) into *out_self,
   * which must not be NULL on SUCCESS (a stateless plugin may point at static data). On refusal,
   * return non-SUCCESS with a reason: the host prints `plugin "Name": <reason>`.
   * host_api and host stay valid until destroy. [main-thread] */
  schedhost_code_t (*create)(const schedhost_host_api_t* host_api, const schedhost_host_t* host,
                             schedhost_str_t args_json, schedhost_call_t* call, void** out_self);
  /* Frees an instance. Called once per successful create. [main-thread] */
  void (*destroy)(void* self);

  /* PreEnqueue: may the pod enter the active queue? Non-SUCCESS keeps it gated. [cycle] */
  schedhost_code_t (*pre_enqueue)(void* self, schedhost_call_t* call, const schedhost_pod_t* pod);
  /* QueueSort: whether a sorts before b. Pure and fast; one plugin per profile. [cycle] */
  bool (*queue_sort_less)(void* self, const schedhost_queued_pod_t* a,
                          const schedhost_queued_pod_t* b);
  /* PreFilter: per-pod work before Filter; may narrow nodes (set_node_names). SKIP skips this
   * plugin's Filter and AddPod/RemovePod for the cycle. [cycle] */
  schedhost_code_t (*pre_filter)(void* self, schedhost_call_t* call, schedhost_cycle_state_t* state,
                                 const schedhost_pod_t* pod);
  /* PreFilter extension: pod_to_add is assumed to run on node; update the state copy. [concurrent]
   */
  schedhost_code_t (*add_pod)(void* self, schedhost_call_t* call, schedhost_cycle_state_t* state,
                              const schedhost_pod_t* pod, const schedhost_pod_t* pod_to_add,
                              const schedhost_node_t* node);
  /* PreFilter extension: pod_to_remove is assumed gone from node. [concurrent] */
  schedhost_code_t (*remove_pod)(void* self, schedhost_call_t* call, schedhost_cycle_state_t* state,
                                 const schedhost_pod_t* pod, const schedhost_pod_t* pod_to_remove,
                                 const schedhost_node_t* node);
  /* Filter: can the pod run on node? [concurrent] */
  schedhost_code_t (*filter)(void* self, schedhost_call_t* call,
                             const schedhost_cycle_state_t* state, const schedhost_pod_t* pod,
                             const schedhost_node_t* node);
  /* PostFilter: runs when no node fits; statuses[count] says why each failed. On SUCCESS it may
   * nominate a node with set_nominated_node. [cycle] */
  schedhost_code_t (*post_filter)(void* self, schedhost_call_t* call,
                                  schedhost_cycle_state_t* state, const schedhost_pod_t* pod,
                                  const schedhost_node_status_t* statuses, size_t count);
  /* PreScore: per-pod work before Score over the feasible nodes. SKIP skips this plugin's Score.
   * nodes[count] is borrowed until the hook returns. [cycle] */
  schedhost_code_t (*pre_score)(void* self, schedhost_call_t* call, schedhost_cycle_state_t* state,
                                const schedhost_pod_t* pod, const schedhost_node_t* const* nodes,
                                size_t count);
  /* Score: ranks one feasible node into *out_score. [concurrent] */
  schedhost_code_t (*score)(void* self, schedhost_call_t* call,
                            const schedhost_cycle_state_t* state, const schedhost_pod_t* pod,
                            const schedhost_node_t* node, int64_t* out_score);
  /* NormalizeScore: rewrites scores[count] in place into 0..100. Needs score. [cycle] */
  schedhost_code_t (*normalize_score)(void* self, schedhost_call_t* call,
                                      const schedhost_cycle_state_t* state,
                                      const schedhost_pod_t* pod, schedhost_node_score_t* scores,
                                      size_t count);
  /* Reserve: the pod is assumed on node_name; claim what the plugin tracks. [cycle] */
  schedhost_code_t (*reserve)(void* self, schedhost_call_t* call, schedhost_cycle_state_t* state,
                              const schedhost_pod_t* pod, schedhost_str_t node_name);
  /* Unreserve: undo reserve after a later failure; must be idempotent. Needs reserve.
   * [cycle] or [binding] */
  void (*unreserve)(void* self, schedhost_call_t* call, schedhost_cycle_state_t* state,
                    const schedhost_pod_t* pod, schedhost_str_t node_name);
  /* Permit: SUCCESS allows, UNSCHEDULABLE rejects, WAIT holds the pod for *out_timeout_ms
   * (the host caps it at 15 minutes) until allowed or rejected via waiting_pod_*. [cycle] */
  schedhost_code_t (*permit)(void* self, schedhost_call_t* call, schedhost_cycle_state_t* state,
                             const schedhost_pod_t* pod, schedhost_str_t node_name,
                             uint32_t* out_timeout_ms);
  /* PreBind: work before binding (e.g. provisioning). [binding] */
  schedhost_code_t (*pre_bind)(void* self, schedhost_call_t* call, schedhost_cycle_state_t* state,
                               const schedhost_pod_t* pod, schedhost_str_t node_name);
  /* Bind: binds the pod; SKIP passes to the next Bind plugin. [binding] */
  schedhost_code_t (*bind)(void* self, schedhost_call_t* call, schedhost_cycle_state_t* state,
                           const schedhost_pod_t* pod, schedhost_str_t node_name);
  /* PostBind: informational, after a successful bind. [binding] */
  void (*post_bind)(void* self, schedhost_call_t* call, schedhost_cycle_state_t* state,
                    const schedhost_pod_t* pod, schedhost_str_t node_name);

  /* Optional features named "<reverse-dns>.<name>/<revision>"; NULL when unsupported. Lets a
   * later host ask for things that are not hooks without a major bump. [any-thread] */
  const void* (*get_extension)(void* self, const char* id);

  /* -- 1.3: EnqueueExtensions (upstream's), for the live queue. A pod this plugin rejected
   * (PreEnqueue, PreFilter, Filter, Reserve, Permit) waits until an event it registered happens;
   * a plugin without events_to_register (NULL, or built for 1.0-1.2) is moved by every event. -- */
  /* Registers the events with host_api->register_event; registering none means only the periodic
   * flushes retry the pods it rejected. A non-SUCCESS status refuses the plugin, as create's.
   * Called once, right after create. [main-thread] */
  schedhost_code_t (*events_to_register)(void* self, schedhost_call_t* call);
  /* Optional queueing hint, called for each registered event that happens while a pod this
   * plugin rejected waits: may it now fit? NULL means always SCHEDHOST_QUEUE. Pure and fast; no
   * snapshot (call has none). Runs between scheduling cycles on the scheduling thread. [cycle] */
  schedhost_queueing_hint_t (*queueing_hint)(void* self, schedhost_call_t* call,
                                             const schedhost_pod_t* pod,
                                             const schedhost_cluster_event_t* event);

  /* -- 1.6: upstream v1.35's SignPlugin and PreBindPreFlight. -- */
  /* Signs the pod for opportunistic batching: SUCCESS after one add_sign_fragment per field of
   * the pod that this plugin's PreFilter, Filter, PreScore and Score read, so that two pods with
   * equal fragments get the same verdict and score on every node; UNSCHEDULABLE when it cannot
   * sign this pod (it then never batches); ERROR likewise, logged. A profile batches only when
   * every one of its PreFilter, Filter, PreScore and Score plugins has sign_pod. No snapshot
   * (call has none). [cycle] */
  schedhost_code_t (*sign_pod)(void* self, schedhost_call_t* call, const schedhost_pod_t* pod);
  /* PreBind's light first look, before the binding starts: SUCCESS when this plugin's PreBind
   * will do work for the pod on node_name (in `serve` the pod's status.nominatedNodeName is then
   * written first, so that others see where it is going), SKIP when it has nothing to do (its
   * PreBind is not called for this pod), ERROR to fail the binding. No API calls, no waiting.
   * NULL: SUCCESS whenever pre_bind is set. [binding] */
  schedhost_code_t (*pre_bind_pre_flight)(void* self, schedhost_call_t* call,
                                          schedhost_cycle_state_t* state,
                                          const schedhost_pod_t* pod, schedhost_str_t node_name);

  /* 1.7 and later: append here only. */
} schedhost_plugin_vtable_t;

/* One plugin of a library. Plugin-owned static storage, valid until deinit. */
typedef struct schedhost_plugin_descriptor {
  uint32_t struct_size;
  const char* name;        /* NUL-terminated, ^[a-zA-Z][a-zA-Z0-9]*$, as written in profiles */
  const char* description; /* NUL-terminated, one line */
  const schedhost_plugin_vtable_t* vtable;

  /* -- 1.9 -- */
  /* The resources this plugin reads besides the host's own kinds (resources[resource_count]):
   * serve watches them before it schedules (and stops at start, naming the plugin, when the API
   * server does not serve one); `schedhost plugins` lists them. NULL and 0: none. */
  const schedhost_resource_decl_t* resources;
  size_t resource_count;
  /* The metrics this plugin reports (metrics[metric_count]), recorded with metric_record. */
  const schedhost_metric_decl_t* metrics;
  size_t metric_count;
} schedhost_plugin_descriptor_t;

/* The library: what the entry function returns. Plugin-owned static storage. */
typedef struct schedhost_library {
  uint32_t magic;              /* SCHEDHOST_LIBRARY_MAGIC */
  uint32_t struct_size;        /* sizeof(schedhost_library_t) as the library was built */
  uint32_t abi_major;          /* SCHEDHOST_ABI_MAJOR as the library was built */
  uint32_t abi_minor;          /* SCHEDHOST_ABI_MINOR as the library was built */
  uint32_t min_host_abi_minor; /* the oldest host minor this library runs on */
  const char* name;            /* NUL-terminated: the library's name, for listings and errors */
  const char* version;         /* NUL-terminated: the library's own version */
  const char* build_info;      /* NUL-terminated, may be NULL: compiler, SDK version... */
  /* Called once after loading, before any create. NULL: nothing to do. A non-SUCCESS status
   * (reason via add_reason) refuses the whole library. host_api and host stay valid until
   * deinit. [main-thread] */
  schedhost_code_t (*init)(const schedhost_host_api_t* host_api, const schedhost_host_t* host,
                           schedhost_call_t* call);
  /* Called once at shutdown, after every instance is destroyed. May be NULL. [main-thread] */
  void (*deinit)(void);
  uint32_t plugin_count;
  /* plugins[plugin_count], an array of pointers so that descriptors may grow. */
  const schedhost_plugin_descriptor_t* const* plugins;
} schedhost_library_t;

/* The entry function a library exports, and the only symbol it exports. Returns plugin-owned
 * static storage (or NULL to refuse loading). Called once per load, before init. [main-thread] */
typedef const schedhost_library_t* (*schedhost_plugin_library_fn)(void);
SCHEDHOST_EXPORT const schedhost_library_t* schedhost_plugin_library_v1(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* SCHEDHOST_ABI_H */
