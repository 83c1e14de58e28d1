// jemalloc's options for bin/schedhost, read by jemalloc before main (its documented
// `malloc_conf` symbol, which the MALLOC_CONF environment variable still overrides). Compiled into
// the executable only where jemalloc is its allocator (host/CMakeLists.txt).
//
// - narenas:1: one arena for every thread. serve's dozen threads otherwise each take one of
//   8 arenas (4 per core), each keeping its own part-filled slabs and freed pages.
// - dirty_decay_ms:1000, muzzy_decay_ms:0: freed pages go back to the kernel within about a
//   second, not ten. serve's watch events and request bodies are freed as fast as they come.
// Together: peak RSS at 5000 nodes + 6000 pods 82 -> 78 MiB with the pods created while
// scheduling, 105 -> 92 MiB with them created first, at the same CPU per pod
// (docs/benchmarks.md, "The pool's handoffs and the allocator's options").
extern "C" const char* malloc_conf;
const char* malloc_conf = "narenas:1,dirty_decay_ms:1000,muzzy_decay_ms:0";
