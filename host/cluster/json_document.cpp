#include "cluster/json_document.hpp"

#include <algorithm>
#include <optional>
#include <unordered_set>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "cluster/input_limits.hpp"
#include "cluster/text_encoding.hpp"
#include "cluster/yaml_documents.hpp"
#include "cluster/yaml_location.hpp"
#include "common/input_error.hpp"

namespace schedhost::cluster {
namespace {

// 1-based line and column of a byte offset.
std::pair<int, int> line_column(std::string_view text, size_t offset) {
  offset = std::min(offset, text.size());
  int line = 1;
  size_t line_start = 0;
  for (size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  return {line, static_cast<int>(offset - line_start) + 1};
}

std::string escape_token(const std::string& key) {
  std::string out;
  for (char c : key) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

struct TooDeep {};
struct DuplicateKey {
  std::string object_pointer;
  std::string key;
};

// Follows nlohmann's parse events to know where the parser is, as a JSON pointer, and which keys
// each open object has so far.
class StructureTracker {
 public:
  bool on_event(int depth, nlohmann::json::parse_event_t event, const nlohmann::json& parsed) {
    using Event = nlohmann::json::parse_event_t;
    if (depth > kMaxNestingDepth) throw TooDeep{};
    switch (event) {
      case Event::object_start:
      case Event::array_start:
        frames_.push_back(Frame{event == Event::object_start, {}, 0, {}});
        break;
      case Event::key: {
        Frame& top = frames_.back();
        const auto& key = parsed.get_ref<const std::string&>();
        if (!top.keys.insert(key).second) throw DuplicateKey{pointer(frames_.size() - 1), key};
        top.key = key;
        break;
      }
      case Event::object_end:
      case Event::array_end:
        frames_.pop_back();
        value_done();
        break;
      case Event::value:
        value_done();
        break;
    }
    return true;
  }

 private:
  struct Frame {
    bool object;
    std::string key;  // the current member, in an object
    size_t index;     // the current item, in an array
    std::unordered_set<std::string> keys;
  };

  void value_done() {
    if (!frames_.empty() && !frames_.back().object) ++frames_.back().index;
  }

  // The pointer of frames_[n] (the container opened at that level).
  std::string pointer(size_t n) const {
    std::string out;
    for (size_t i = 0; i < n; ++i) {
      out += '/';
      out += frames_[i].object ? escape_token(frames_[i].key) : std::to_string(frames_[i].index);
    }
    return out;
  }

  std::vector<Frame> frames_;
};

}  // namespace

nlohmann::json parse_json_document(const std::string& text, std::string_view file,
                                   std::string_view fix) {
  check_text_encoding(text, file);
  if (std::all_of(text.begin(), text.end(),
                  [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; })) {
    return nullptr;
  }
  StructureTracker tracker;
  try {
    return nlohmann::json::parse(
        text, [&tracker](int depth, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
          return tracker.on_event(depth, event, parsed);
        });
  } catch (const nlohmann::json::parse_error& e) {
    auto [line, column] = line_column(text, e.byte == 0 ? 0 : e.byte - 1);
    std::string message = e.what();
    size_t detail = message.find(": ", message.find("parse error"));
    message = detail == std::string::npos ? message : message.substr(detail + 2);
    throw InputError(source_location(file, line, column) + ": invalid JSON: " + message + ": " +
                     std::string(fix));
  } catch (const nlohmann::json::out_of_range& e) {
    // A number beyond double ("1e999"); nlohmann gives no position, so find the token.
    std::string message = e.what();
    size_t quote = message.find('\'');
    std::string token = quote == std::string::npos
                            ? std::string()
                            : message.substr(quote + 1, message.rfind('\'') - quote - 1);
    std::string where = source_location(file);
    if (size_t at = token.empty() ? std::string::npos : text.find(token); at != std::string::npos) {
      auto [line, column] = line_column(text, at);
      where = source_location(file, line, column);
    }
    throw InputError(where + ": invalid JSON: the number " + token +
                     " is out of range: write a number of at most about 1.8e308");
  } catch (const TooDeep&) {
    throw InputError(source_location(file) + ": nesting deeper than " +
                     std::to_string(kMaxNestingDepth) + " levels: flatten the document");
  } catch (const DuplicateKey& duplicate) {
    // JSON is YAML flow syntax: reading it again as YAML finds the position.
    std::string where = source_location(file);
    // The text after the duplicate was never checked: parse it with the same guards as a YAML
    // file (yaml-cpp can loop forever on a stray ',').
    try {
      std::vector<YAML::Node> documents = parse_yaml_documents(text, file);
      if (!documents.empty()) {
        where = mark_location(
            file, locate_duplicate_key(documents.front(), duplicate.object_pointer, duplicate.key));
      }
    } catch (const YAML::Exception&) {
      // positions unknown: name the file only
    } catch (const InputError&) {
      // likewise
    }
    throw InputError(where + ": key \"" + duplicate.key +
                     "\" appears twice in this mapping: remove one of them");
  }
}

}  // namespace schedhost::cluster
