#include "cluster/yaml_to_json.hpp"

#include <string>

#include "cluster/input_limits.hpp"
#include "cluster/yaml_location.hpp"
#include "cluster/yaml_scalar.hpp"
#include "common/input_error.hpp"

namespace schedhost::cluster {
namespace {

std::string where(std::string_view file, const YAML::Mark& mark) {
  return mark_location(file, mark);
}

nlohmann::json convert(const YAML::Node& node, std::string_view file, int depth) {
  if (depth > kMaxNestingDepth) {
    throw InputError(where(file, node.Mark()) + ": nesting deeper than " +
                     std::to_string(kMaxNestingDepth) +
                     " levels (a recursive alias?): flatten the document");
  }
  switch (node.Type()) {
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      return nullptr;
    case YAML::NodeType::Scalar: {
      const std::string& tag = node.Tag();
      if (tag == "!" || tag == "tag:yaml.org,2002:str") return node.Scalar();
      return resolve_plain_scalar(node.Scalar());
    }
    case YAML::NodeType::Sequence: {
      nlohmann::json out = nlohmann::json::array();
      for (const YAML::Node& item : node)
        out.push_back(convert(item, file, depth + 1));
      return out;
    }
    case YAML::NodeType::Map: {
      nlohmann::json out = nlohmann::json::object();
      for (const auto& entry : node) {
        const YAML::Node& key = entry.first;
        if (!key.IsScalar() && !key.IsNull()) {
          throw InputError(where(file, key.Mark()) +
                           ": a mapping key must be a plain string: write the key as text");
        }
        std::string name = key.IsScalar() ? key.Scalar() : std::string();
        if (out.contains(name)) {
          throw InputError(where(file, key.Mark()) + ": key \"" + name +
                           "\" appears twice in this mapping: remove one of them");
        }
        out[name] = convert(entry.second, file, depth + 1);
      }
      return out;
    }
  }
  return nullptr;
}

}  // namespace

nlohmann::json yaml_to_json(const YAML::Node& node, std::string_view file) {
  return convert(node, file, 0);
}

}  // namespace schedhost::cluster
