/* ExampleFilter: a complete schedhost plugin in plain C99, written straight against
 * schedhost/abi.h (no C++ wrapper). Copy this file to start a C plugin.
 *
 * Filter passes only nodes whose name contains "worker"; any other node is UNSCHEDULABLE with the
 * reason "node name does not contain 'worker'". The plugin takes no args.
 *
 * What a C plugin consists of, from the bottom of this file up:
 *   1. the entry function schedhost_plugin_library_v1(), the library's only exported symbol;
 *   2. a static library descriptor (schedhost_library_t) listing the plugins;
 *   3. per plugin, a static descriptor (name, description, vtable);
 *   4. the vtable: create/destroy plus one function pointer per extension point, NULL for the
 *      points the plugin does not implement;
 *   5. the hooks themselves.
 * Build it with the SDK's CMake function, which hides every other symbol:
 *   schedhost_add_plugin(example_filter SOURCES example_filter.c)
 */
#include <schedhost/abi.h>
#include <schedhost/json_args.h>

#include <stdlib.h>
#include <string.h>

/* A view of a string literal (views are {data, len}, never NUL-terminated). */
#define STR(literal) \
  { literal, sizeof(literal) - 1 }

/* One instance per profile that enables the plugin. The host API table is handed to create()
 * only, so the instance keeps it for the hooks. */
typedef struct example_filter {
  const schedhost_host_api_t* api;
} example_filter_t;

/* Whether s contains needle. */
static bool contains(schedhost_str_t s, const char* needle) {
  const size_t n = strlen(needle);
  size_t i;
  if (n > s.len) return false;
  for (i = 0; i + n <= s.len; ++i) {
    if (memcmp(s.data + i, needle, n) == 0) return true;
  }
  return false;
}

/* create [main-thread]: args_json is the profile's pluginConfig args as compact JSON ("{}" when
 * there are none). To refuse them, add a reason and return non-SUCCESS: the host prints
 * `plugin "ExampleFilter": <reason>` and exits with code 2. */
static schedhost_code_t example_create(const schedhost_host_api_t* api,
                                       const schedhost_host_t* host, schedhost_str_t args_json,
                                       schedhost_call_t* call, void** out_self) {
  example_filter_t* self;
  const schedhost_str_t no_args = STR("this plugin takes no args");
  const schedhost_str_t no_memory = STR("out of memory");
  (void)host; /* keep it (it stays valid until destroy) to log through api->log */

  /* No args: an empty object, however it is written. schedhost/json_args.h reads args by JSON
   * pointer, so a C plugin needs no JSON scanner of its own. */
  if (args_json.len != 0) {
    schedhost_args_type_t type = SCHEDHOST_ARGS_NULL;
    size_t members = 0;
    if (schedhost_args_type(args_json, "", &type) != SCHEDHOST_ARGS_OK ||
        type != SCHEDHOST_ARGS_OBJECT ||
        schedhost_args_length(args_json, "", &members) != SCHEDHOST_ARGS_OK || members != 0) {
      api->add_reason(call, no_args);
      return SCHEDHOST_ERROR;
    }
  }
  self = (example_filter_t*)malloc(sizeof *self);
  if (self == NULL) {
    api->add_reason(call, no_memory);
    return SCHEDHOST_ERROR;
  }
  self->api = api;
  *out_self = self;
  return SCHEDHOST_SUCCESS;
}

/* destroy [main-thread]: called once per successful create; the plugin frees what it allocated. */
static void example_destroy(void* self) {
  free(self);
}

/* filter [concurrent]: may run on many threads at once for one pod, so it only reads. The node's
 * name is a view borrowed from the host until the hook returns; the reason is copied by the host
 * inside add_reason. */
static schedhost_code_t example_filter(void* self, schedhost_call_t* call,
                                       const schedhost_cycle_state_t* state,
                                       const schedhost_pod_t* pod, const schedhost_node_t* node) {
  const schedhost_host_api_t* api = ((const example_filter_t*)self)->api;
  const schedhost_str_t reason = STR("node name does not contain 'worker'");
  (void)state;
  (void)pod;

  if (contains(api->node_string(node, SCHEDHOST_NODE_NAME), "worker")) return SCHEDHOST_SUCCESS;
  api->add_reason(call, reason);
  return SCHEDHOST_UNSCHEDULABLE;
}

/* The vtable: a NULL hook means "extension point not implemented". struct_size tells a newer
 * host how much of the table this build has. */
static const schedhost_plugin_vtable_t vtable = {
    .struct_size = sizeof(schedhost_plugin_vtable_t),
    .create = example_create,
    .destroy = example_destroy,
    .filter = example_filter,
};

/* The name is what profiles use: ^[a-zA-Z][a-zA-Z0-9]*$. */
static const schedhost_plugin_descriptor_t descriptor = {
    .struct_size = sizeof(schedhost_plugin_descriptor_t),
    .name = "ExampleFilter",
    .description = "Example in C: keeps pods on nodes whose name contains 'worker'",
    .vtable = &vtable,
};

static const schedhost_plugin_descriptor_t* const plugins[] = {&descriptor};

static const schedhost_library_t library = {
    .magic = SCHEDHOST_LIBRARY_MAGIC,
    .struct_size = sizeof(schedhost_library_t),
    .abi_major = SCHEDHOST_ABI_MAJOR,
    .abi_minor = SCHEDHOST_ABI_MINOR,
    .min_host_abi_minor = 0, /* uses nothing added after ABI 1.0 */
    .name = "example-filter",
    .version = "1.0.0",
    .build_info = "C99, written against schedhost/abi.h",
    .init = NULL, /* no library-wide setup */
    .deinit = NULL,
    .plugin_count = sizeof plugins / sizeof plugins[0],
    .plugins = plugins,
};

/* The one exported symbol (SCHEDHOST_EXPORT; everything else is hidden by the build). */
SCHEDHOST_EXPORT const schedhost_library_t* schedhost_plugin_library_v1(void) {
  return &library;
}
