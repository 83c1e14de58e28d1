// Where plugins were looked for, and what to say when a name is not among them: the directories
// searched (in order, with the ones that do not exist), and a "did you mean" for an installed
// name that differs only in case or by one edit. Shared by the profile resolver, the framework
// and `exercise`, so that every "is not installed" reads the same.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace schedhost {

// One plugin directory as the loader searched it.
struct SearchedDirectory {
  std::string path;
  bool exists = true;    // false: not there, or not a directory: nothing was loaded from it
  bool builtin = false;  // the built-in directory
  bool file = false;     // (with exists false) the path is there, but not a directory
};

// Levenshtein distance (insertions, deletions and substitutions of one byte each).
std::size_t edit_distance(std::string_view a, std::string_view b);

// The installed names `name` may have meant: those equal to it but for case, else those one
// edit away (ignoring case); sorted, without duplicates.
std::vector<std::string> near_names(std::string_view name,
                                    const std::vector<std::string>& installed);

// " (searched, in order: /usr/lib/schedhost/plugins (built-in), /plugins (does not exist))" (or
// "(not a directory)"), or "" when nothing is known about the search.
std::string searched_directories_text(const std::vector<SearchedDirectory>& searched);

// `plugin "X" is not installed (searched, in order: ...): did you mean "Y"? Otherwise <fix>`,
// or `...: <fix>` when no installed name is near.
std::string not_installed_message(std::string_view name, const std::vector<std::string>& installed,
                                  const std::vector<SearchedDirectory>& searched,
                                  std::string_view fix);

}  // namespace schedhost
