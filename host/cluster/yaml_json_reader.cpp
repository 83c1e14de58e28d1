#include "cluster/yaml_json_reader.hpp"

#include <algorithm>
#include <cstdint>
#include <utility>

#include <yaml.h>

#include "cluster/input_limits.hpp"
#include "cluster/yaml_dialect.hpp"
#include "cluster/yaml_expansion.hpp"
#include "cluster/yaml_scalar.hpp"

namespace schedhost::cluster {
namespace {

// Thrown inside the reader to give the text to the yaml-cpp path; never escapes it.
struct NotHandled {};

void check_tag(const yaml_char_t* tag) {
  if (tag != nullptr && !yaml_dialect::is_common_tag(reinterpret_cast<const char*>(tag))) {
    throw NotHandled{};
  }
}

bool tag_is(const yaml_char_t* tag, std::string_view expected) {
  return tag != nullptr && std::string_view(reinterpret_cast<const char*>(tag)) == expected;
}

// libyaml's parser, one event at a time.
class EventParser {
 public:
  explicit EventParser(std::string_view text) {
    if (!yaml_parser_initialize(&parser_)) throw NotHandled{};
    yaml_parser_set_input_string(&parser_, reinterpret_cast<const unsigned char*>(text.data()),
                                 text.size());
  }
  ~EventParser() {
    if (has_event_) yaml_event_delete(&event_);
    yaml_parser_delete(&parser_);
  }
  EventParser(const EventParser&) = delete;
  EventParser& operator=(const EventParser&) = delete;

  // The next event, valid until the next call.
  const yaml_event_t& next() {
    if (has_event_) yaml_event_delete(&event_);
    has_event_ = false;
    if (!yaml_parser_parse(&parser_, &event_)) throw NotHandled{};
    has_event_ = true;
    return event_;
  }

 private:
  yaml_parser_t parser_;
  yaml_event_t event_;
  bool has_event_ = false;
};

std::string_view text_of(const yaml_char_t* text) {
  return text == nullptr ? std::string_view() : reinterpret_cast<const char*>(text);
}

// A scalar as yaml_to_json() converts yaml-cpp's node for it: quoted, block, "!" and !!str
// scalars stay strings, every other one (plain, or with any other tag) is resolved.
nlohmann::json scalar_value(const yaml_event_t& event) {
  const auto& scalar = event.data.scalar;
  std::string text(reinterpret_cast<const char*>(scalar.value), scalar.length);
  if (scalar.tag == nullptr) {
    if (scalar.style != YAML_PLAIN_SCALAR_STYLE) return text;
    return resolve_plain_scalar(std::move(text));
  }
  if (tag_is(scalar.tag, "!") || tag_is(scalar.tag, "tag:yaml.org,2002:str")) return text;
  return resolve_plain_scalar(std::move(text));
}

// One document, read from its DOCUMENT-START event to its DOCUMENT-END event. Counts nodes as
// check_yaml_expansion() does, over the document with its aliases expanded, keys included.
class DocumentReader {
 public:
  explicit DocumentReader(yaml_dialect::SourceText& source) : source_(source) {}

  YamlJsonDocument read(EventParser& parser) {
    for (;;) {
      const yaml_event_t& event = parser.next();
      switch (event.type) {
        case YAML_SCALAR_EVENT:
          on_scalar(event);
          break;
        case YAML_SEQUENCE_START_EVENT: {
          const auto& start = event.data.sequence_start;
          open(event, false, start.style == YAML_FLOW_SEQUENCE_STYLE, start.anchor, start.tag);
          break;
        }
        case YAML_MAPPING_START_EVENT: {
          const auto& start = event.data.mapping_start;
          open(event, true, start.style == YAML_FLOW_MAPPING_STYLE, start.anchor, start.tag);
          break;
        }
        case YAML_SEQUENCE_END_EVENT:
        case YAML_MAPPING_END_EVENT:
          close();
          break;
        case YAML_ALIAS_EVENT:
          on_alias(event);
          break;
        case YAML_DOCUMENT_END_EVENT:
          if (!stack_.empty()) throw NotHandled{};
          return YamlJsonDocument{std::move(root_), std::move(marks_)};
        default:
          throw NotHandled{};
      }
    }
  }

 private:
  // What an alias to an anchor expands to.
  struct Anchor {
    nlohmann::json value;
    std::int64_t nodes = 0;  // nodes, keys included
    std::int64_t bytes = 0;  // scalar text
    int height = 0;          // levels of nesting below the anchored node
    bool complete = false;   // false while the anchored collection is still open
  };

  // An open mapping or sequence.
  struct Frame {
    nlohmann::json value;
    bool mapping = false;
    bool flow = false;     // [...] or {...}
    bool has_key = false;  // a mapping's key is read, its value not yet
    std::string key;
    int depth = 0;
    int deepest = 0;  // the deepest node inside so far
    std::string anchor;
    std::int64_t nodes_before = 0;
    std::int64_t bytes_before = 0;
    // Object positions: a mapping that may be an object, or the "items" sequence of one.
    bool object = false;
    bool object_list = false;
    std::string pointer;
    size_t items = 0;
  };

  bool at_key() const { return !stack_.empty() && stack_.back().mapping && !stack_.back().has_key; }
  bool in_flow() const { return !stack_.empty() && stack_.back().flow; }

  // Refuses node properties (anchor, tag) that the two parsers could read differently.
  void check_properties(const yaml_event_t& event, const yaml_char_t* anchor,
                        const yaml_char_t* tag) {
    if (!yaml_dialect::properties_read_alike(source_.from(event.start_mark.index),
                                             anchor != nullptr, tag != nullptr)) {
      throw NotHandled{};
    }
  }

  // A node at `depth` (the number of collections around it) holding `bytes` of scalar text.
  void count_node(int depth, std::int64_t bytes) {
    if (depth > kMaxNestingDepth) throw NotHandled{};
    ++nodes_;
    bytes_ += bytes;
  }

  void on_scalar(const yaml_event_t& event) {
    const auto& scalar = event.data.scalar;
    check_tag(scalar.tag);
    const std::string_view text(reinterpret_cast<const char*>(scalar.value), scalar.length);
    check_scalar_source(event, text);
    // yaml-cpp makes a null node, not a scalar, of a plain untagged null spelling.
    const bool null_node =
        scalar.tag == nullptr && scalar.style == YAML_PLAIN_SCALAR_STYLE && is_yaml_null_text(text);
    const int depth = static_cast<int>(stack_.size());
    count_node(depth, null_node ? 0 : static_cast<std::int64_t>(text.size()));
    if (at_key()) {
      Frame& mapping = stack_.back();
      mapping.key = null_node ? std::string() : std::string(text);
      mapping.has_key = true;
      mapping.deepest = std::max(mapping.deepest, depth);
      if (scalar.anchor != nullptr) define_scalar_anchor(event, null_node, text.size());
      return;
    }
    nlohmann::json value = scalar_value(event);
    // A tagged document root read as null is not skipped by the yaml-cpp path.
    if (stack_.empty() && value.is_null() && !null_node) throw NotHandled{};
    if (scalar.anchor != nullptr) define_scalar_anchor(event, null_node, text.size());
    place(std::move(value), depth);
  }

  // The cases found where yaml-cpp reads a scalar differently from libyaml.
  void check_scalar_source(const yaml_event_t& event, std::string_view text) {
    const auto& scalar = event.data.scalar;
    const bool has_properties = scalar.anchor != nullptr || scalar.tag != nullptr;
    switch (scalar.style) {
      case YAML_PLAIN_SCALAR_STYLE:
        // An empty node with properties ("&a", "! ") is null to yaml-cpp in some places only;
        // yaml-cpp refuses a flow mapping entry without a value ("{a}", "{a, b: 1}").
        if (text.empty() && (has_properties || in_flow())) throw NotHandled{};
        if (in_flow() && !yaml_dialect::flow_plain_scalar_reads_alike(text)) throw NotHandled{};
        // yaml-cpp ends a plain scalar at a continuation line that starts like a flow
        // collection, and splits a document made of one such scalar in two.
        if (event.start_mark.line != event.end_mark.line) throw NotHandled{};
        break;
      case YAML_LITERAL_SCALAR_STYLE:
        // yaml-cpp wants more indentation under "- !tag |" or "- &a |", and may end the
        // enclosing collection before a "|" that starts its own line.
        if (has_properties || source_.starts_line(event.start_mark.index) ||
            !yaml_dialect::literal_header_reads_alike(source_.from(event.start_mark.index))) {
          throw NotHandled{};
        }
        return;
      case YAML_FOLDED_SCALAR_STYLE:
        // yaml-cpp folds some trailing lines of a ">" scalar differently (go-yaml, and so
        // kubectl, never writes one).
        throw NotHandled{};
      default:
        break;
    }
    if (has_properties) check_properties(event, scalar.anchor, scalar.tag);
  }

  void define_scalar_anchor(const yaml_event_t& event, bool null_node, size_t size) {
    Anchor& anchor = anchors_[std::string(text_of(event.data.scalar.anchor))];
    anchor =
        Anchor{scalar_value(event), 1, null_node ? 0 : static_cast<std::int64_t>(size), 0, true};
  }

  void open(const yaml_event_t& event, bool mapping, bool flow, const yaml_char_t* anchor,
            const yaml_char_t* tag) {
    check_tag(tag);
    if (at_key()) throw NotHandled{};  // a collection as a key
    if (anchor != nullptr || tag != nullptr) check_properties(event, anchor, tag);
    const int depth = static_cast<int>(stack_.size());
    count_node(depth, 0);
    Frame frame;
    frame.value = mapping ? nlohmann::json::object() : nlohmann::json::array();
    frame.mapping = mapping;
    frame.flow = flow;
    frame.depth = depth;
    frame.deepest = depth;
    if (anchor != nullptr) {
      frame.anchor = std::string(text_of(anchor));
      frame.nodes_before = nodes_ - 1;
      frame.bytes_before = bytes_;
      // yaml-cpp binds the name at once: an alias inside refers to this node, not to an
      // earlier one of the same name.
      anchors_[frame.anchor].complete = false;
    }
    if (mapping && (stack_.empty() || stack_.back().object_list)) {
      frame.object = true;
      if (!stack_.empty()) {
        frame.pointer = stack_.back().pointer + "/" + std::to_string(stack_.back().items);
      }
      if (anchor == nullptr && tag == nullptr) {
        const size_t column = source_.byte_column(event.start_mark.index, event.start_mark.column);
        marks_.emplace(frame.pointer,
                       TextMark{static_cast<int>(event.start_mark.line), static_cast<int>(column)});
      }
    } else if (!mapping && !stack_.empty() && stack_.back().object &&
               stack_.back().key == "items") {
      frame.object_list = true;
      frame.pointer = stack_.back().pointer + "/items";
    }
    stack_.push_back(std::move(frame));
  }

  void close() {
    if (stack_.empty() || stack_.back().has_key) throw NotHandled{};
    Frame frame = std::move(stack_.back());
    stack_.pop_back();
    if (!frame.anchor.empty()) {
      anchors_[frame.anchor] =
          Anchor{frame.value, nodes_ - frame.nodes_before, bytes_ - frame.bytes_before,
                 frame.deepest - frame.depth, true};
    }
    place(std::move(frame.value), frame.deepest);
  }

  void on_alias(const yaml_event_t& event) {
    if (at_key()) throw NotHandled{};
    if (!yaml_dialect::alias_reads_alike(source_.from(event.start_mark.index), in_flow())) {
      throw NotHandled{};
    }
    auto found = anchors_.find(std::string(text_of(event.data.alias.anchor)));
    if (found == anchors_.end() || !found->second.complete) throw NotHandled{};
    const Anchor& anchor = found->second;
    const int depth = static_cast<int>(stack_.size());
    if (depth + anchor.height > kMaxNestingDepth) throw NotHandled{};
    // Every alias counts as one, even where check_yaml_expansion() does not see one (an alias
    // right after its scalar anchor): counting more only sends more texts to yaml-cpp.
    nodes_ += anchor.nodes;
    bytes_ += anchor.bytes;
    alias_nodes_ += anchor.nodes;
    alias_bytes_ += anchor.bytes;
    // Both ratios only grow while one alias expands, so checking once at its end finds what a
    // check at each of its nodes finds.
    if (alias_bytes_ > kMaxAliasExpandedBytes || is_excessive_aliasing(alias_nodes_, nodes_)) {
      throw NotHandled{};
    }
    place(anchor.value, depth + anchor.height);
  }

  // Puts a finished value (whose deepest node is at `deepest`) into the open collection.
  void place(nlohmann::json value, int deepest) {
    if (stack_.empty()) {
      root_ = std::move(value);
      return;
    }
    Frame& parent = stack_.back();
    parent.deepest = std::max(parent.deepest, deepest);
    if (parent.mapping) {
      auto& object = parent.value.get_ref<nlohmann::json::object_t&>();
      // A duplicate key: the yaml-cpp path refuses it with its position.
      if (!object.emplace(std::move(parent.key), std::move(value)).second) throw NotHandled{};
      parent.has_key = false;
    } else {
      parent.value.get_ref<nlohmann::json::array_t&>().push_back(std::move(value));
      ++parent.items;
    }
  }

  yaml_dialect::SourceText& source_;
  std::vector<Frame> stack_;
  nlohmann::json root_;
  std::unordered_map<std::string, TextMark> marks_;
  std::unordered_map<std::string, Anchor> anchors_;
  std::int64_t nodes_ = 0;
  std::int64_t bytes_ = 0;
  std::int64_t alias_nodes_ = 0;
  std::int64_t alias_bytes_ = 0;
};

}  // namespace

std::optional<std::vector<YamlJsonDocument>> read_yaml_as_json(std::string_view text) {
  if (text.size() > kMaxYamlTextBytes) return std::nullopt;
  // Without its byte order mark, libyaml's character counts start where the text does.
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  if (yaml_dialect::has_divergent_bytes(text)) return std::nullopt;
  try {
    yaml_dialect::SourceText source(text);
    EventParser parser(text);
    std::vector<YamlJsonDocument> documents;
    for (;;) {
      const yaml_event_t& event = parser.next();
      switch (event.type) {
        case YAML_STREAM_START_EVENT:
          break;
        case YAML_STREAM_END_EVENT:
          return documents;
        case YAML_DOCUMENT_START_EVENT: {
          const auto& start = event.data.document_start;
          if (start.version_directive != nullptr ||
              start.tag_directives.start != start.tag_directives.end) {
            return std::nullopt;  // %YAML and %TAG: yaml-cpp's reading of them differs
          }
          documents.push_back(DocumentReader(source).read(parser));
          break;
        }
        default:
          return std::nullopt;
      }
    }
  } catch (const NotHandled&) {
    return std::nullopt;
  }
}

}  // namespace schedhost::cluster
