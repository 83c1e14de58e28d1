#include "options.hpp"

#include <cstdlib>
#include <iostream>
#include <string_view>

namespace schedhost_bench {
namespace {

[[noreturn]] void usage(const std::string& problem) {
  std::cerr << "error: " << problem << "\n"
            << "usage: schedhost-bench [--quick] [--only NAME]... [--nodes N] [--init N] "
               "[--measured N] [--out FILE] [--no-file-run] [--keep-files] [--no-fork] [--list]\n";
  std::exit(2);
}

std::size_t count_arg(std::string_view flag, const char* value) {
  char* end = nullptr;
  const unsigned long long n = std::strtoull(value, &end, 10);
  if (end == value || *end != '\0') usage(std::string(flag) + " wants a number, got " + value);
  return static_cast<std::size_t>(n);
}

}  // namespace

Options parse_options(int argc, char** argv) {
  Options o;
  if (const char* q = std::getenv("QUICK"); q != nullptr && std::string_view(q) == "1")
    o.quick = true;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    auto value = [&]() -> const char* {
      if (i + 1 >= argc) usage(std::string(a) + " needs a value");
      return argv[++i];
    };
    if (a == "--quick")
      o.quick = true;
    else if (a == "--only")
      o.only.emplace_back(value());
    else if (a == "--nodes")
      o.nodes = count_arg(a, value());
    else if (a == "--init")
      o.init = count_arg(a, value());
    else if (a == "--measured")
      o.measured = count_arg(a, value());
    else if (a == "--out")
      o.out = value();
    else if (a == "--no-file-run")
      o.file_run = false;
    else if (a == "--keep-files")
      o.keep_files = true;
    else if (a == "--no-fork")
      o.fork = false;
    else if (a == "--list")
      o.list = true;
    else
      usage("unknown argument " + std::string(a));
  }
  return o;
}

}  // namespace schedhost_bench
