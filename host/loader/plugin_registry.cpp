#include "loader/plugin_registry.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "common/input_error.hpp"
#include "common/unique_fd.hpp"
#include "framework/plugin_call_record.hpp"
#include "loader/elf_check.hpp"
#include "loader/load_probe.hpp"
#include "loader/symlink_check.hpp"

namespace schedhost::loader {

namespace fs = std::filesystem;

namespace {

// A call into a library as a whole (its constructors, init(), deinit()), for the crash line.
framework::PluginCallRecord library_call(const std::string& path, const char* step) {
  framework::PluginCallRecord r;
  r.hook = step;
  r.file = &path;
  return r;
}

std::string parent_of(const std::string& path) {
  const fs::path parent = fs::path(path).parent_path();
  return parent.empty() ? "." : parent.string();
}

// A name defined by two files: the first one loaded keeps it (the built-in directory is searched
// first, then the --plugin-dir directories in order, each directory's files by name), and the
// second is refused. Both are named, with why the first comes first and what removing either
// file does, since a stray copy (gpu.old.so beside gpu.so) sorts before the real one.
std::string duplicate_message(const std::string& name, const std::string& first,
                              const std::string& second, bool first_is_builtin) {
  const std::string why = parent_of(first) == parent_of(second)
                              ? "files of a directory load in name order"
                          : first_is_builtin ? "the built-in directory is searched first"
                                             : "its directory is searched first";
  return "plugin \"" + name + "\" is also defined by " + first + ", which loads first (" + why +
         ") and keeps the name: remove " + first + " to use this file, or remove this file to " +
         "keep " + first;
}

void run_deinit(const LoadedLibrary& library) {
  if (library.deinit == nullptr) return;
  const framework::PluginCallScope scope(library_call(library.path, "deinit()"));
  library.deinit();
}

}  // namespace

PluginRegistry::~PluginRegistry() {
  for (auto it = libraries_.rbegin(); it != libraries_.rend(); ++it)
    run_deinit((*it)->info);
}

void PluginRegistry::set_trust(const PluginTrust& trust) {
  allow_insecure_ = trust.allow_insecure;
  load_timeout_ = trust.load_timeout;
  probe_program_ = trust.probe_program;
  digests_.reset();
  if (!trust.digests_file.empty()) {
    digests_ = read_digest_pins(trust.digests_file, trust.allow_insecure, warnings_);
  }
}

void PluginRegistry::load_directories(const std::vector<PluginDirectory>& dirs) {
  std::vector<Candidate> candidates;
  for (const PluginDirectory& dir : dirs)
    collect_directory(dir, candidates);
  load_candidates(candidates);
  if (!digests_) return;
  for (const auto& [name, pin] : digests_->by_name) {
    if (!seen_names_.contains(name)) {
      warnings_.push_back(
          {digests_->where(pin), "\"" + name + "\" is pinned but no plugin directory has it"});
    }
  }
}

void PluginRegistry::collect_directory(const PluginDirectory& dir, std::vector<Candidate>& out) {
  std::error_code ec;
  const bool is_directory = fs::is_directory(dir.path, ec);
  const bool is_something_else = !is_directory && fs::exists(dir.path, ec);
  searched_.push_back({dir.path, is_directory, dir.builtin, is_something_else});
  if (!is_directory) {
    if (!dir.required) return;
    if (is_something_else) {
      // `--plugin-dir ./build/gpu.so`: the user meant the folder the library is in.
      const fs::path parent = fs::path(dir.path).parent_path();
      throw InputError(dir.path + ": --plugin-dir names a file, not a directory: pass the folder " +
                       "it is in, --plugin-dir " + (parent.empty() ? "." : parent.string()));
    }
    throw InputError(dir.path + ": plugin directory does not exist: create it or fix --plugin-dir");
  }
  // Kept open while its files are opened relative to it, so they come from the very directory
  // whose ownership and permissions were checked.
  const UniqueFd handle(::open(dir.path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  struct stat st {};
  if (handle.get() < 0 || ::fstat(handle.get(), &st) != 0) {
    throw InputError(dir.path + ": plugin directory cannot be read: " + std::strerror(errno));
  }
  // Whoever can add or rename files here picks the code: refuse the whole directory.
  if (auto distrust = check_trust(st, dir.path)) {
    if (!allow_insecure_) {
      throw InputError(dir.path + ": " + refusal("load plugins from this directory", *distrust));
    }
    warnings_.push_back(
        {dir.path, override_warning("insecure plugin directory", distrust->problem)});
  }
  const fs::path real_dir = fs::canonical(dir.path, ec);
  if (ec) throw InputError(dir.path + ": plugin directory cannot be read: " + ec.message());

  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir.path, ec)) {
    if (entry.path().extension() == ".so") names.push_back(entry.path().filename().string());
  }
  if (ec) throw InputError(dir.path + ": plugin directory cannot be read: " + ec.message());
  std::sort(names.begin(), names.end());

  for (const std::string& name : names) {
    const std::string path = (fs::path(dir.path) / name).string();
    seen_names_.insert(name);
    struct stat link {};
    if (::fstatat(handle.get(), name.c_str(), &link, AT_SYMLINK_NOFOLLOW) == 0 &&
        S_ISLNK(link.st_mode)) {
      if (auto distrust = check_symlink(real_dir, dir.path, name)) {
        if (!tolerate(path, "insecure plugin symlink", *distrust)) continue;
      }
    }
    collect(path, name, dir.builtin, PluginFile::open_at(handle.get(), name), out);
  }
}

void PluginRegistry::load_file(const std::string& path) {
  std::vector<Candidate> candidates;
  collect(path, fs::path(path).filename().string(), false, PluginFile::open(path), candidates);
  load_candidates(candidates);
}

bool PluginRegistry::tolerate(const std::string& path, const std::string& what,
                              const Distrust& distrust) {
  if (allow_insecure_) {
    warnings_.push_back({path, override_warning(what, distrust.problem)});
    return true;
  }
  failures_.push_back({path, refusal("load", distrust)});
  return false;
}

bool PluginRegistry::check_digest(const std::string& path, const std::string& name, bool builtin,
                                  PluginFile& file) {
  if (!digests_) return true;
  const DigestPin* pin = digests_->find(name);
  if (pin == nullptr) {
    if (builtin) return true;  // built-ins ship with schedhost: pinned only when listed
    failures_.push_back({path, "not in --plugin-digests " + digests_->file +
                                   ": add its sha256sum "
                                   "line to " +
                                   digests_->file + ", or remove the file"});
    return false;
  }
  const std::string actual = file.sha256();
  if (actual.empty()) {
    failures_.push_back({path, file.error()});
    return false;
  }
  if (actual != pin->sha256) {
    failures_.push_back({path, "sha256 mismatch: expected " + pin->sha256 + " (" +
                                   digests_->where(*pin) + "), got " + actual +
                                   ": restore the pinned file, or pin this one in " +
                                   digests_->file});
    return false;
  }
  return true;
}

void PluginRegistry::collect(const std::string& path, const std::string& name, bool builtin,
                             PluginFile file, std::vector<Candidate>& out) {
  if (!file.ok()) {
    failures_.push_back({path, file.error()});
    return;
  }
  const struct stat& st = file.status();
  if (!S_ISREG(st.st_mode)) {
    failures_.push_back({path, "not a regular file: remove it from the plugin directory"});
    return;
  }
  const std::pair<unsigned long, unsigned long> id{static_cast<unsigned long>(st.st_dev),
                                                   st.st_ino};
  // The same file through another name or a symlink: already loaded (or already refused).
  if (loaded_files_.contains(id)) return;
  if (auto distrust = check_trust(st, path)) {
    if (!tolerate(path, "insecure plugin file", *distrust)) {
      loaded_files_.insert(id);
      return;
    }
  }
  // From here on only the sealed copy is read: the digest, the headers, the probe and dlopen
  // all see the same bytes, whatever happens to the file.
  if (!file.seal_copy(name)) {
    failures_.push_back({path, file.error()});
    return;
  }
  if (!file.sealing_failure().empty()) {
    warnings_.push_back({path, "loaded from the file itself, not a sealed in-memory copy (" +
                                   file.sealing_failure() +
                                   "): truncating or rewriting it while schedhost runs can crash "
                                   "schedhost"});
  }
  // Pins are per name: a refused alias must not keep the pinned name of the same file out.
  if (!check_digest(path, name, builtin, file)) return;
  loaded_files_.insert(id);

  std::string load_path = file.load_path(path);
  if (load_path.empty()) {
    failures_.push_back({path, "was replaced while being loaded: load it again"});
    return;
  }
  // A file cut short is refused from its headers alone: no child maps it.
  if (std::string err = check_elf_shared_object(load_path); !err.empty()) {
    failures_.push_back({path, std::move(err)});
    return;
  }
  out.push_back({path, std::move(file), std::move(load_path)});
}

void PluginRegistry::load_candidates(std::vector<Candidate>& candidates) {
  if (candidates.empty()) return;
  std::vector<ProbeVerdict> verdicts(candidates.size(), ProbeVerdict{true, {}});
  if (!probe_program_.empty()) {
    std::vector<ProbeInput> inputs;
    for (Candidate& c : candidates)
      inputs.push_back({c.path, c.load_path, c.file.identity()});
    verdicts = probe_libraries(inputs, {probe_program_, load_timeout_});
  }
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    if (!verdicts[i].ok) {
      failures_.push_back({candidates[i].path, std::move(verdicts[i].error)});
      continue;
    }
    load_probed(candidates[i]);
  }
}

void PluginRegistry::load_probed(Candidate& candidate) {
  const std::string& path = candidate.path;
  OpenResult opened;
  {
    std::optional<framework::PluginCallScope> scope;
    opened = open_library(path, candidate.load_path, [&](const char* step) {
      scope.reset();
      scope.emplace(library_call(path, step));
    });
  }
  candidate.file.keep_open_forever();  // dlopen may have registered the library under load_path
  if (!opened.library) {
    failures_.push_back({path, std::move(opened.error)});
    return;
  }
  LoadedLibrary& lib = opened.library->info;
  for (const PluginDefinition& p : lib.plugins) {
    if (const PluginDefinition* other = find(p.name); other != nullptr) {
      const std::string& first = other->library->path;
      const bool builtin = std::any_of(searched_.begin(), searched_.end(), [&](const auto& d) {
        return d.builtin && d.path == parent_of(first);
      });
      failures_.push_back({path, duplicate_message(p.name, first, path, builtin)});
      run_deinit(lib);
      return;
    }
  }
  for (const PluginDefinition& p : lib.plugins)
    by_name_.emplace(p.name, &p);
  libraries_.push_back(std::move(opened.library));
}

const PluginDefinition* PluginRegistry::find(std::string_view name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : it->second;
}

std::vector<std::string> PluginRegistry::names() const {
  std::vector<std::string> out;
  for (const auto& [name, def] : by_name_)
    out.push_back(name);
  return out;
}

std::vector<const PluginDefinition*> PluginRegistry::plugins() const {
  std::vector<const PluginDefinition*> out;
  for (const auto& lib : libraries_) {
    for (const PluginDefinition& p : lib->info.plugins)
      out.push_back(&p);
  }
  return out;
}

std::map<std::string, ExtensionPointSet, std::less<>> PluginRegistry::catalog() const {
  std::map<std::string, ExtensionPointSet, std::less<>> out;
  for (const auto& [name, def] : by_name_)
    out.emplace(name, def->points);
  return out;
}

}  // namespace schedhost::loader
