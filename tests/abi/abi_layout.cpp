// Compiles schedhost/abi.h as C++ with -Wall -Wextra -pedantic -Werror and checks its layout.
#include <schedhost/abi.h>

#include <cstddef>
#include <type_traits>

#define SCHEDHOST_CHECK_SIZE(type, size) static_assert(sizeof(type) == (size), #type " size")
#define SCHEDHOST_CHECK_OFFSET(type, field, offset) \
  static_assert(offsetof(type, field) == (offset), #type "." #field " offset")

#include "abi_layout_checks.inc"

static_assert(std::is_trivial_v<schedhost_plugin_vtable_t>, "vtable must be a C struct");
static_assert(std::is_trivial_v<schedhost_host_api_t>, "host API must be a C struct");

extern "C" const schedhost_library_t* schedhost_plugin_library_v1(void) {
  return nullptr;
}

int main() {
  return schedhost_plugin_library_v1() == nullptr ? 0 : 1;
}
