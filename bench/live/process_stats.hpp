// What /proc says about another process of this machine: its CPU time and its peak resident set.
// The schedulers under test, the API server and etcd are children of the benchmark, so their
// figures are read from outside, without touching them.
#pragma once

#include <sys/types.h>

#include <string>

namespace schedhost_live_bench {

// user + system time of pid and of the children it has waited for (serve's plugin probe), in
// seconds; -1 when the process is gone.
double process_cpu_seconds(pid_t pid);

// VmHWM (the peak resident set over the process's life) in MiB; -1 when the process is gone.
double process_peak_rss_mib(pid_t pid);

// A child of this process whose command name (/proc/<pid>/comm) is comm, or -1. The control
// plane keeps the API server's and etcd's PIDs to itself; they are found this way.
pid_t find_child_process(const std::string& comm);

}  // namespace schedhost_live_bench
