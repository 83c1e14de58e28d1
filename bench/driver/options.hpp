// The driver's command line.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace schedhost_bench {

struct Options {
  bool quick = false;             // --quick, or QUICK=1 in the environment
  std::vector<std::string> only;  // --only SUBSTRING (repeatable): workloads whose name has one
  std::optional<std::size_t> nodes, init, measured;  // --nodes/--init/--measured: override counts
  std::string out;       // --out FILE; default bench/results/<UTC date-time>.json
  bool file_run = true;  // --no-file-run: skip timing `schedhost run` on a file
  // --no-fork: run the workloads in this process (peak RSS is then the largest so far); for
  // sanitizer builds, where a child of a threaded process may not start threads.
  bool fork = true;
  bool keep_files = false;  // --keep-files: leave the generated files (for profiling)
  bool list = false;        // --list: print the workload names and exit
};

// Exits with a usage line (status 2) on a bad argument.
Options parse_options(int argc, char** argv);

}  // namespace schedhost_bench
