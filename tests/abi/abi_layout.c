/* Compiles schedhost/abi.h as plain C with -Wall -Wextra -pedantic -Werror and checks its
 * layout at compile time. C99 has no _Static_assert, hence the negative-array-size trick. */
#include <schedhost/abi.h>
#include <stddef.h>

#define SCHEDHOST_CONCAT2(a, b) a##b
#define SCHEDHOST_CONCAT(a, b) SCHEDHOST_CONCAT2(a, b)
#define SCHEDHOST_ASSERT(cond) \
  typedef char SCHEDHOST_CONCAT(schedhost_layout_check_, __LINE__)[(cond) ? 1 : -1]
#define SCHEDHOST_CHECK_SIZE(type, size) SCHEDHOST_ASSERT(sizeof(type) == (size))
#define SCHEDHOST_CHECK_OFFSET(type, field, offset) \
  SCHEDHOST_ASSERT(offsetof(type, field) == (offset))

#include "abi_layout_checks.inc"

/* The entry function's type matches the declaration. */
static schedhost_plugin_library_fn entry_type_check = &schedhost_plugin_library_v1;

const schedhost_library_t* schedhost_plugin_library_v1(void) {
  return NULL;
}

int main(void) {
  schedhost_str_t s = {"x", 1};
  return (entry_type_check() == NULL && s.len == 1 && SCHEDHOST_LIBRARY_MAGIC == 0x314C4853u) ? 0
                                                                                              : 1;
}
