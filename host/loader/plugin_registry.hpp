// PluginRegistry: every plugin library found in the plugin directories, loaded once, checked,
// and kept for the life of the process. Plugins are looked up by the name profiles use.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/plugin_search.hpp"
#include "loader/digest_pins.hpp"
#include "loader/file_trust.hpp"
#include "loader/library_loader.hpp"
#include "loader/plugin_definition.hpp"
#include "loader/plugin_directories.hpp"
#include "loader/plugin_file.hpp"
#include "loader/plugin_trust.hpp"

namespace schedhost::loader {

class PluginRegistry {
 public:
  PluginRegistry() = default;
  PluginRegistry(const PluginRegistry&) = delete;
  PluginRegistry& operator=(const PluginRegistry&) = delete;
  // Runs each library's deinit() in reverse load order. Destroy every plugin instance first.
  ~PluginRegistry();

  // Applies --allow-insecure-plugins, --plugin-digests and the probe to every later load; reads
  // the digest file now. Without it: every check on, no pinning, no probe. Throws InputError.
  void set_trust(const PluginTrust& trust);

  // Loads every *.so of each directory (sorted by file name). Each file is checked (ownership,
  // permissions, symlinks, digest, ELF headers), copied into sealed memory, probed in a child
  // process (loader/load_probe.hpp) and only then loaded. A library that fails any of it is
  // recorded in failures(), never fatal. A missing required directory, a file given as a
  // directory, or a directory others may write to, throws InputError. The first library to
  // define a name keeps it (built-in directory first, then the others in order, files by name);
  // a later one defining it too is a failure naming both files.
  void load_directories(const std::vector<PluginDirectory>& dirs);
  // Loads one file the same way; the same file (also through a symlink) is loaded once.
  void load_file(const std::string& path);

  const std::vector<std::unique_ptr<OpenedLibrary>>& libraries() const { return libraries_; }
  const std::vector<LoadFailure>& failures() const { return failures_; }
  // What --allow-insecure-plugins let through, and --plugin-digests lines no file matched.
  const std::vector<LoadWarning>& warnings() const { return warnings_; }
  const PluginDefinition* find(std::string_view name) const;
  // The directories load_directories() searched, in order (those that did not exist too).
  const std::vector<SearchedDirectory>& searched() const { return searched_; }
  // Every installed plugin's name, sorted.
  std::vector<std::string> names() const;
  // Every plugin, in load order.
  std::vector<const PluginDefinition*> plugins() const;
  // Each plugin's name and the extension points it implements (config::PluginCatalog).
  std::map<std::string, ExtensionPointSet, std::less<>> catalog() const;

 private:
  // A file that passed the checks that need no code of it to run, waiting for the probe.
  struct Candidate {
    std::string path;
    PluginFile file;
    std::string load_path;
  };
  void collect_directory(const PluginDirectory& dir, std::vector<Candidate>& out);
  // Checks an opened file found as path (file name: name) and adds it to out if it passes;
  // builtin: it comes from the built-in directory.
  void collect(const std::string& path, const std::string& name, bool builtin, PluginFile file,
               std::vector<Candidate>& out);
  // Probes the candidates, then loads those the probe accepted, in order.
  void load_candidates(std::vector<Candidate>& candidates);
  void load_probed(Candidate& candidate);
  // True when path passes the digest pin (or pinning does not apply); records the failure if not.
  bool check_digest(const std::string& path, const std::string& name, bool builtin,
                    PluginFile& file);
  // A failed trust check: a warning when allowed (returns true), else a failure (false).
  bool tolerate(const std::string& path, const std::string& what, const Distrust& distrust);

  std::vector<std::unique_ptr<OpenedLibrary>> libraries_;
  std::vector<LoadFailure> failures_;
  std::vector<LoadWarning> warnings_;
  std::vector<SearchedDirectory> searched_;
  bool allow_insecure_ = false;
  std::chrono::milliseconds load_timeout_{10'000};
  std::string probe_program_;  // empty: no probe
  std::optional<DigestPins> digests_;
  std::set<std::string, std::less<>> seen_names_;  // file names found, to spot unused pins
  std::map<std::string, const PluginDefinition*, std::less<>> by_name_;
  std::set<std::pair<unsigned long, unsigned long>> loaded_files_;  // (device, inode)
};

}  // namespace schedhost::loader
