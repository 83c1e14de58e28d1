/* NodeLabelFilter, in C99: keeps pods on nodes that carry a required label, and prefers nodes by
 * a numeric label. Written straight against schedhost/abi.h, no C++.
 *
 * Filter: a node without the label args.requiredLabel is UNSCHEDULABLE_AND_UNRESOLVABLE, with the
 *   reason "node(s) didn't have label <requiredLabel>" (no preemption can add a label).
 * Score: the integer value of the node's label args.scoreLabel, clamped to 0..100; 0 when the
 *   node has no such label or its value is not an integer. Without scoreLabel every node scores 0.
 * Events (ABI 1.3): a pod Filter rejected can only fit after a node is added or relabelled, and
 *   only on a node that has the label: events_to_register and queueing_hint tell `schedhost
 *   serve` so, and it retries the pod then rather than on every change in the cluster.
 *
 * Args (pluginConfig[].args), read with schedhost/json_args.h (by JSON pointer, no parser of
 * our own): a JSON object of strings
 *   requiredLabel  required, non-empty
 *   scoreLabel     optional
 *
 * Filter and Score run concurrently on one instance: the instance is read-only after create. */
#include <schedhost/abi.h>
#include <schedhost/json_args.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STR(literal) \
  { literal, sizeof(literal) - 1 }

typedef struct node_label_filter {
  const schedhost_host_api_t* api;
  char* required_label;
  char* score_label; /* NULL: no scoring */
  char* missing_reason;
} node_label_filter_t;

static char* copy(const char* s) {
  char* out = (char*)malloc(strlen(s) + 1);
  if (out != NULL) strcpy(out, s);
  return out;
}

static void destroy(void* self) {
  node_label_filter_t* f = (node_label_filter_t*)self;
  if (f == NULL) return;
  free(f->required_label);
  free(f->score_label);
  free(f->missing_reason);
  free(f);
}

/* Writes a refusal's reason to why; returns false, for `return refuse(...)`. */
static bool refuse(char* why, size_t why_size, const char* format, ...) {
  va_list ap;
  va_start(ap, format);
  vsnprintf(why, why_size, format, ap);
  va_end(ap);
  return false;
}

/* Reads the string arg at pointer (e.g. "/requiredLabel") into a new copy at *out; *out stays
 * NULL when absent. Refuses a value that is not a non-empty string, quoting it. */
static bool string_arg(schedhost_str_t args, const char* name, char** out, char* why,
                       size_t why_size) {
  char pointer[64] = "/";
  char value[320]; /* a label key: a 253-byte prefix, '/', a 63-byte name; longer is refused */
  schedhost_str_t got = {"", 0};
  strncat(pointer, name, sizeof pointer - 2);
  switch (schedhost_args_string(args, pointer, value, sizeof value)) {
    case SCHEDHOST_ARGS_ABSENT:
      return true;
    case SCHEDHOST_ARGS_OK:
      if (value[0] == '\0') break;
      *out = copy(value);
      return *out != NULL || refuse(why, why_size, "out of memory");
    default:
      break;
  }
  (void)schedhost_args_find(args, pointer, &got); /* left empty when absent */
  return refuse(why, why_size, "%s must be a non-empty string, got %.*s", name, (int)got.len,
                got.data);
}

/* Fills f from args (a JSON object, "{}" when the profile has none); on refusal writes the reason
 * to why and returns false. */
static bool parse_args(node_label_filter_t* f, schedhost_str_t args, char* why, size_t why_size) {
  schedhost_args_type_t type;
  size_t count = 0, i;
  if (args.len == 0) args.data = "{}", args.len = 2;
  if (schedhost_args_type(args, "", &type) != SCHEDHOST_ARGS_OK || type != SCHEDHOST_ARGS_OBJECT) {
    return refuse(why, why_size, "args must be an object");
  }
  (void)schedhost_args_length(args, "", &count);
  for (i = 0; i < count; ++i) { /* refuse names this plugin does not know: a typo is not silent */
    char name[64];
    const schedhost_args_result_t r = schedhost_args_name(args, "", i, name, sizeof name);
    if (r != SCHEDHOST_ARGS_OK ||
        (strcmp(name, "requiredLabel") != 0 && strcmp(name, "scoreLabel") != 0)) {
      return refuse(why, why_size, "unknown arg \"%s\": the args are requiredLabel and scoreLabel",
                    r == SCHEDHOST_ARGS_OK ? name : "(a long name)");
    }
  }
  if (!string_arg(args, "requiredLabel", &f->required_label, why, why_size) ||
      !string_arg(args, "scoreLabel", &f->score_label, why, why_size)) {
    return false;
  }
  if (f->required_label == NULL) return refuse(why, why_size, "requiredLabel is required");
  return true;
}

/* create [main-thread]: refusing args = a reason + a non-SUCCESS code. */
static schedhost_code_t create(const schedhost_host_api_t* api, const schedhost_host_t* host,
                               schedhost_str_t args_json, schedhost_call_t* call, void** out_self) {
  static const char prefix[] = "node(s) didn't have label ";
  char why[256];
  node_label_filter_t* f = (node_label_filter_t*)calloc(1, sizeof *f);
  (void)host;
  if (f == NULL) {
    const schedhost_str_t oom = STR("out of memory");
    api->add_reason(call, oom);
    return SCHEDHOST_ERROR;
  }
  f->api = api;
  if (!parse_args(f, args_json, why, sizeof why)) {
    const schedhost_str_t reason = {why, strlen(why)};
    api->add_reason(call, reason);
    destroy(f);
    return SCHEDHOST_ERROR;
  }
  f->missing_reason = (char*)malloc(sizeof prefix + strlen(f->required_label));
  if (f->missing_reason == NULL) {
    const schedhost_str_t oom = STR("out of memory");
    api->add_reason(call, oom);
    destroy(f);
    return SCHEDHOST_ERROR;
  }
  strcpy(f->missing_reason, prefix);
  strcat(f->missing_reason, f->required_label);
  *out_self = f;
  return SCHEDHOST_SUCCESS;
}

/* filter [concurrent]: only reads the instance and the node. */
static schedhost_code_t filter(void* self, schedhost_call_t* call,
                               const schedhost_cycle_state_t* state, const schedhost_pod_t* pod,
                               const schedhost_node_t* node) {
  const node_label_filter_t* f = (const node_label_filter_t*)self;
  const schedhost_str_t key = {f->required_label, strlen(f->required_label)};
  schedhost_str_t value;
  (void)state;
  (void)pod;
  if (f->api->node_map_get(node, SCHEDHOST_MAP_LABELS, key, &value)) return SCHEDHOST_SUCCESS;
  {
    const schedhost_str_t reason = {f->missing_reason, strlen(f->missing_reason)};
    f->api->add_reason(call, reason);
  }
  return SCHEDHOST_UNSCHEDULABLE_AND_UNRESOLVABLE;
}

/* An integer label value clamped to 0..100; 0 when it is not an integer. */
static int64_t clamped_score(schedhost_str_t s) {
  size_t i = 0;
  int64_t value = 0;
  bool negative = false;
  if (s.len > 0 && (s.data[0] == '-' || s.data[0] == '+')) {
    negative = s.data[0] == '-';
    i = 1;
  }
  if (i == s.len) return 0;
  for (; i < s.len; ++i) {
    if (s.data[i] < '0' || s.data[i] > '9') return 0;
    if (value <= 100) value = value * 10 + (s.data[i] - '0'); /* past 100 it stays "big" */
  }
  if (negative) return 0;
  return value > 100 ? 100 : value;
}

/* score [concurrent] */
static schedhost_code_t score(void* self, schedhost_call_t* call,
                              const schedhost_cycle_state_t* state, const schedhost_pod_t* pod,
                              const schedhost_node_t* node, int64_t* out_score) {
  const node_label_filter_t* f = (const node_label_filter_t*)self;
  schedhost_str_t value;
  (void)call;
  (void)state;
  (void)pod;
  *out_score = 0;
  if (f->score_label != NULL) {
    const schedhost_str_t key = {f->score_label, strlen(f->score_label)};
    if (f->api->node_map_get(node, SCHEDHOST_MAP_LABELS, key, &value)) {
      *out_score = clamped_score(value);
    }
  }
  return SCHEDHOST_SUCCESS;
}

/* events_to_register [main-thread], ABI 1.3: the cluster events that may make a pod this plugin
 * rejected schedulable. Filter rejects a node for a missing label, so only a new node or a
 * change of a node's labels can help; the live queue of `schedhost serve` then leaves the pods
 * it rejected alone on every other event (a pod deleted, a taint changed, ...). Called once,
 * right after create.
 * register_event was appended in ABI 1.3, but no struct_size check is needed here: only a 1.3
 * host calls events_to_register (an older one does not know this field of the vtable, and moves
 * the pods on every event, as for a plugin without it), and a 1.3 host has register_event.
 * The resource string is ours: the host copies it. */
static schedhost_code_t events_to_register(void* self, schedhost_call_t* call) {
  const node_label_filter_t* f = (const node_label_filter_t*)self;
  const schedhost_str_t node = STR("Node");
  f->api->register_event(call, node, SCHEDHOST_ACTION_ADD | SCHEDHOST_ACTION_UPDATE_NODE_LABEL);
  return SCHEDHOST_SUCCESS;
}

/* queueing_hint [cycle], ABI 1.3: asked for each registered event that happens while a pod this
 * plugin rejected waits. SCHEDHOST_QUEUE tries the pod again, SCHEDHOST_QUEUE_SKIP leaves it
 * waiting; any other answer counts as QUEUE (and the host logs it). Here: QUEUE only when the
 * event's new node has the required label, since a node without it would be rejected again.
 * It runs between scheduling cycles on the scheduling thread, so it must be pure and fast, and
 * its call has no snapshot (read the event's objects, not the cluster). The pod, the event and
 * its nodes are the host's, borrowed until the hint returns. */
static schedhost_queueing_hint_t queueing_hint(void* self, schedhost_call_t* call,
                                               const schedhost_pod_t* pod,
                                               const schedhost_cluster_event_t* event) {
  const node_label_filter_t* f = (const node_label_filter_t*)self;
  const schedhost_str_t key = {f->required_label, strlen(f->required_label)};
  schedhost_str_t value;
  (void)call;
  (void)pod;
  if (event->new_node == NULL) return SCHEDHOST_QUEUE_SKIP; /* only node events are registered */
  if (f->api->node_map_get(event->new_node, SCHEDHOST_MAP_LABELS, key, &value)) {
    return SCHEDHOST_QUEUE;
  }
  return SCHEDHOST_QUEUE_SKIP;
}

static const schedhost_plugin_vtable_t vtable = {
    .struct_size = sizeof(schedhost_plugin_vtable_t),
    .create = create,
    .destroy = destroy,
    .filter = filter,
    .score = score,
    .events_to_register = events_to_register,
    .queueing_hint = queueing_hint,
};

static const schedhost_plugin_descriptor_t descriptor = {
    .struct_size = sizeof(schedhost_plugin_descriptor_t),
    .name = "NodeLabelFilter",
    .description = "Keeps pods on nodes with a required label; prefers a numeric label",
    .vtable = &vtable,
};

static const schedhost_plugin_descriptor_t* const plugins[] = {&descriptor};

static const schedhost_library_t library = {
    .magic = SCHEDHOST_LIBRARY_MAGIC,
    .struct_size = sizeof(schedhost_library_t),
    .abi_major = SCHEDHOST_ABI_MAJOR,
    .abi_minor = SCHEDHOST_ABI_MINOR,
    /* Runs on every 1.x host: a host older than 1.3 just never calls events_to_register and
     * queueing_hint, the only parts added after ABI 1.0. */
    .min_host_abi_minor = 0,
    .name = "node-label-filter",
    .version = "0.1.0",
    .build_info = "C99, written against schedhost/abi.h",
    .init = NULL,
    .deinit = NULL,
    .plugin_count = sizeof plugins / sizeof plugins[0],
    .plugins = plugins,
};

/* The one exported symbol; the build hides everything else. */
SCHEDHOST_EXPORT const schedhost_library_t* schedhost_plugin_library_v1(void) {
  return &library;
}
