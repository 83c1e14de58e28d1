#include "common/plugin_search.hpp"

#include <algorithm>
#include <cctype>

namespace schedhost {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string quote_name(std::string_view s) {
  return "\"" + std::string(s) + "\"";
}

}  // namespace

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j)
    row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::vector<std::string> near_names(std::string_view name,
                                    const std::vector<std::string>& installed) {
  const std::string wanted = lower(name);
  std::vector<std::string> case_only;
  std::vector<std::string> one_edit;
  for (const std::string& candidate : installed) {
    if (candidate == name) continue;
    const std::string other = lower(candidate);
    // Lengths more than one apart are more than one edit apart: skip the table.
    const std::size_t longer = std::max(other.size(), wanted.size());
    const std::size_t shorter = std::min(other.size(), wanted.size());
    if (longer - shorter > 1) continue;
    if (other == wanted) {
      case_only.push_back(candidate);
    } else if (edit_distance(wanted, other) == 1) {
      one_edit.push_back(candidate);
    }
  }
  std::vector<std::string>& out = case_only.empty() ? one_edit : case_only;
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::string searched_directories_text(const std::vector<SearchedDirectory>& searched) {
  if (searched.empty()) return {};
  std::string text = " (searched, in order: ";
  for (std::size_t i = 0; i < searched.size(); ++i) {
    const SearchedDirectory& dir = searched[i];
    if (i > 0) text += ", ";
    text += dir.path;
    if (dir.builtin) text += " (built-in)";
    if (!dir.exists) text += dir.file ? " (not a directory)" : " (does not exist)";
  }
  return text + ")";
}

std::string not_installed_message(std::string_view name, const std::vector<std::string>& installed,
                                  const std::vector<SearchedDirectory>& searched,
                                  std::string_view fix) {
  std::string text = "plugin " + quote_name(name) + " is not installed" +
                     searched_directories_text(searched) + ": ";
  const std::vector<std::string> near = near_names(name, installed);
  if (near.empty()) return text + std::string(fix);
  text += "did you mean ";
  for (std::size_t i = 0; i < near.size(); ++i) {
    if (i > 0) text += i + 1 == near.size() ? " or " : ", ";
    text += quote_name(near[i]);
  }
  return text + "? Otherwise " + std::string(fix);
}

}  // namespace schedhost
