#include "cluster/yaml_expansion.hpp"

#include <string>

#include "cluster/input_limits.hpp"
#include "cluster/yaml_location.hpp"
#include "common/input_error.hpp"

namespace schedhost {
namespace {

// go-yaml's allowedAliasRatio.
double allowed_alias_ratio(std::int64_t nodes) {
  if (nodes <= kAliasRatioLow) return 0.99;
  if (nodes >= kAliasRatioHigh) return 0.10;
  return 0.99 - 0.89 * static_cast<double>(nodes - kAliasRatioLow) /
                    static_cast<double>(kAliasRatioHigh - kAliasRatioLow);
}

// A depth-first walk in document order meets nodes at increasing positions; a node met at an
// earlier position than one already seen is an alias of an anchor, so no set of visited nodes
// is needed.
class ExpansionWalk {
 public:
  explicit ExpansionWalk(std::string_view file) : file_(file) {}

  void visit(const YAML::Node& node, int depth, bool in_alias) {
    if (depth > kMaxNestingDepth) {
      fail(node, "nesting deeper than " + std::to_string(kMaxNestingDepth) +
                     " levels (a recursive alias?): flatten the document");
    }
    const YAML::Mark mark = node.Mark();
    if (!in_alias && !mark.is_null()) {
      if (mark.pos < last_pos_) {
        in_alias = true;
      } else {
        last_pos_ = mark.pos;
      }
    }
    ++nodes_;
    if (in_alias) {
      ++alias_nodes_;
      if (node.IsScalar()) alias_bytes_ += static_cast<std::int64_t>(node.Scalar().size());
      if (alias_bytes_ > kMaxAliasExpandedBytes) {
        fail(node, "aliases expand to more than " + std::to_string(kMaxAliasExpandedBytes >> 20) +
                       " MiB of text: write the values out, or use fewer aliases");
      }
      if (is_excessive_aliasing(alias_nodes_, nodes_)) {
        fail(node, "the document contains excessive aliasing (" + std::to_string(alias_nodes_) +
                       " of " + std::to_string(nodes_) +
                       " values come from aliases): write the values out, or use fewer aliases");
      }
    }
    if (node.IsSequence()) {
      for (const YAML::Node& item : node)
        visit(item, depth + 1, in_alias);
    } else if (node.IsMap()) {
      for (const auto& entry : node) {
        visit(entry.first, depth + 1, in_alias);
        visit(entry.second, depth + 1, in_alias);
      }
    }
  }

 private:
  [[noreturn]] void fail(const YAML::Node& at, const std::string& message) const {
    throw InputError(cluster::mark_location(file_, at.Mark()) + ": " + message);
  }

  std::string_view file_;
  int last_pos_ = -1;
  std::int64_t nodes_ = 0;
  std::int64_t alias_nodes_ = 0;
  std::int64_t alias_bytes_ = 0;
};

}  // namespace

bool is_excessive_aliasing(std::int64_t alias_nodes, std::int64_t nodes) {
  return alias_nodes > 100 && nodes > 1000 &&
         static_cast<double>(alias_nodes) / static_cast<double>(nodes) > allowed_alias_ratio(nodes);
}

void check_yaml_expansion(const YAML::Node& document, std::string_view file) {
  ExpansionWalk(file).visit(document, 0, false);
}

}  // namespace schedhost
