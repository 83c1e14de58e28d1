#include "cluster_yaml.hpp"

#include <fstream>
#include <stdexcept>
#include <string>

namespace schedhost_bench {
namespace {

using nlohmann::json;

// Strings are written as JSON strings: a YAML double-quoted scalar accepts them as they are,
// and quoting keeps "4" a string rather than a number.
void scalar(std::string& out, const json& v) {
  out += v.dump();
}

void node(std::string& out, const json& v, int indent);

void block_item(std::string& out, const json& v, int indent) {
  if (v.is_object() && !v.empty()) {
    node(out, v, indent);
  } else if (v.is_array() && !v.empty()) {
    out += '\n';
    node(out, v, indent);
  } else if (v.is_object()) {
    out += " {}\n";
  } else if (v.is_array()) {
    out += " []\n";
  } else {
    out += ' ';
    scalar(out, v);
    out += '\n';
  }
}

void node(std::string& out, const json& v, int indent) {
  const std::string pad(static_cast<std::size_t>(indent), ' ');
  if (v.is_object()) {
    bool first = true;
    for (const auto& [key, value] : v.items()) {
      // The first key of a sequence item shares the "- " line.
      if (!(first && !out.empty() && out.back() == ' ')) out += pad;
      first = false;
      out += key + ':';
      if (value.is_object() && !value.empty()) {
        out += '\n';
        node(out, value, indent + 2);
      } else {
        block_item(out, value, indent + 2);
      }
    }
  } else if (v.is_array()) {
    for (const json& item : v) {
      out += pad + "- ";
      if (item.is_object() && !item.empty()) {
        node(out, item, indent + 2);
      } else {
        out.pop_back();
        block_item(out, item, indent + 2);
      }
    }
  }
}

}  // namespace

void write_cluster_yaml(const std::filesystem::path& path,
                        const std::vector<const json*>& objects) {
  std::ofstream file(path);
  if (!file) throw std::runtime_error("cannot write " + path.string());
  std::string out;
  for (const json* object : objects) {
    out.clear();
    out += "---\n";
    node(out, *object, 0);
    file << out;
  }
  if (!file) throw std::runtime_error("cannot write " + path.string());
}

}  // namespace schedhost_bench
