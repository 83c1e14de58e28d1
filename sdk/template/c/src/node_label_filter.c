/* NodeLabelFilter, in C99: keeps pods on nodes that carry a required label, and prefers nodes by
 * a numeric label. Written straight against schedhost/abi.h, no C++.
 *
 * Filter: a node without the label args.requiredLabel is UNSCHEDULABLE_AND_UNRESOLVABLE, with the
 *   reason "node(s) didn't have label <requiredLabel>" (no preemption can add a label).
 * Score: the integer value of the node's label args.scoreLabel, clamped to 0..100; 0 when the
 *   node has no such label or its value is not an integer. Without scoreLabel every node scores 0.
 *
 * Args (pluginConfig[].args): a JSON object of strings
 *   requiredLabel  required, non-empty
 *   scoreLabel     optional
 *
 * Filter and Score run concurrently on one instance: the instance is read-only after create. */
#include <schedhost/abi.h>

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

/* -- args: the host hands them as compact JSON; this reads a flat object of string values ----- */

typedef struct cursor {
  const char* p;
  const char* end;
} cursor_t;

static void skip_space(cursor_t* c) {
  while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
    ++c->p;
}

static bool take(cursor_t* c, char ch) {
  skip_space(c);
  if (c->p == c->end || *c->p != ch) return false;
  ++c->p;
  return true;
}

/* A JSON string without escapes (label keys never need them). */
static bool read_string(cursor_t* c, schedhost_str_t* out) {
  const char* start;
  if (!take(c, '"')) return false;
  start = c->p;
  while (c->p < c->end && *c->p != '"') {
    if (*c->p == '\\') return false;
    ++c->p;
  }
  if (c->p == c->end) return false;
  out->data = start;
  out->len = (size_t)(c->p - start);
  ++c->p;
  return true;
}

static bool equals(schedhost_str_t s, const char* literal) {
  return s.len == strlen(literal) && memcmp(s.data, literal, s.len) == 0;
}

static char* copy(schedhost_str_t s) {
  char* out = (char*)malloc(s.len + 1);
  if (out != NULL) {
    if (s.len > 0) memcpy(out, s.data, s.len);
    out[s.len] = '\0';
  }
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

/* Fills f from args; on refusal writes the reason to why and returns false. */
static bool parse_args(node_label_filter_t* f, schedhost_str_t args, char* why, size_t why_size) {
  cursor_t c = {args.data, args.data + args.len};
  schedhost_str_t key, value;
  if (args.len == 0) return refuse(why, why_size, "requiredLabel is required");
  if (!take(&c, '{')) return refuse(why, why_size, "args must be an object");
  while (!take(&c, '}')) { /* one "key":"value" pair per turn */
    if (!read_string(&c, &key) || !take(&c, ':')) {
      return refuse(why, why_size, "args must be an object of strings");
    }
    if (!equals(key, "requiredLabel") && !equals(key, "scoreLabel")) {
      return refuse(why, why_size,
                    "unknown arg \"%.*s\": the args are requiredLabel and scoreLabel", (int)key.len,
                    key.data);
    }
    if (!read_string(&c, &value) || value.len == 0) {
      return refuse(why, why_size, "%.*s must be a non-empty string", (int)key.len, key.data);
    }
    if (equals(key, "requiredLabel")) {
      free(f->required_label);
      f->required_label = copy(value);
    } else {
      free(f->score_label);
      f->score_label = copy(value);
    }
    skip_space(&c);
    if (c.p < c.end && *c.p == ',') {
      ++c.p;
    } else if (c.p == c.end || *c.p != '}') {
      return refuse(why, why_size, "args must be an object of strings");
    }
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

static const schedhost_plugin_vtable_t vtable = {
    .struct_size = sizeof(schedhost_plugin_vtable_t),
    .create = create,
    .destroy = destroy,
    .filter = filter,
    .score = score,
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
    .min_host_abi_minor = 0, /* uses nothing added after ABI 1.0 */
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
