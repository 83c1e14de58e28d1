#include "cluster/json_document.hpp"

#include <algorithm>
#include <optional>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "cluster/input_limits.hpp"
#include "cluster/json_pointer_token.hpp"
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

struct TooDeep {};
struct DuplicateKey {
  std::string object_pointer;
  std::string key;
};

// Builds the value from nlohmann's SAX events, as its own DOM parser does, and refuses a key
// that repeats in one object (nlohmann keeps the last silently) and nesting past the limit. The
// repeat is found by the object itself (one map lookup per key); nlohmann's callback parser
// with a tracker of its own (a set of keys per object) took twice as long on a 5 MB file.
class DocumentBuilder {
 public:
  using json = nlohmann::json;

  json take() { return std::move(root_); }

  bool null() { return add(nullptr); }
  bool boolean(bool value) { return add(value); }
  bool number_integer(json::number_integer_t value) { return add(value); }
  bool number_unsigned(json::number_unsigned_t value) { return add(value); }
  bool number_float(json::number_float_t value, const json::string_t& /*text*/) {
    return add(value);
  }
  bool string(json::string_t& value) { return add(std::move(value)); }
  bool binary(json::binary_t& value) { return add(std::move(value)); }

  bool start_object(std::size_t /*size*/) {
    open(add(json::value_t::object));
    return true;
  }
  bool key(json::string_t& name) {
    check_depth();
    json::object_t& object = *stack_.back().value->get_ptr<json::object_t*>();
    auto [it, inserted] = object.emplace(std::move(name), nullptr);
    if (!inserted) throw DuplicateKey{pointer(), it->first};
    stack_.back().key = &it->first;
    member_ = &it->second;
    return true;
  }
  bool end_object() {
    stack_.pop_back();
    return true;
  }
  bool start_array(std::size_t /*size*/) {
    open(add(json::value_t::array));
    return true;
  }
  bool end_array() {
    stack_.pop_back();
    return true;
  }
  // Throws what the parser found (parse_error, out_of_range), as nlohmann's own parser does.
  template <class Exception>
  bool parse_error(std::size_t /*position*/, const std::string& /*token*/, const Exception& e) {
    throw e;
  }

 private:
  struct Open {
    json* value;
    const std::string* key = nullptr;  // its current member, in an object
  };

  // As the callback parser counted: the containers open around an event.
  void check_depth() const {
    if (stack_.size() > static_cast<std::size_t>(kMaxNestingDepth)) throw TooDeep{};
  }

  template <class Value>
  json* add(Value&& value) {
    check_depth();
    if (stack_.empty()) {
      root_ = json(std::forward<Value>(value));
      return &root_;
    }
    json& parent = *stack_.back().value;
    if (parent.is_array()) {
      json::array_t& items = *parent.get_ptr<json::array_t*>();
      items.emplace_back(std::forward<Value>(value));
      return &items.back();
    }
    *member_ = json(std::forward<Value>(value));
    return member_;
  }
  void open(json* container) { stack_.push_back(Open{container}); }

  // The pointer of the innermost open container.
  std::string pointer() const {
    std::string out;
    for (std::size_t i = 0; i + 1 < stack_.size(); ++i) {
      out += '/';
      const Open& level = stack_[i];
      if (level.value->is_object()) {
        append_pointer_token(out, *level.key);
      } else {
        out += std::to_string(level.value->size() - 1);
      }
    }
    return out;
  }

  json root_;
  std::vector<Open> stack_;
  json* member_ = nullptr;  // the value slot of the key just read
};

}  // namespace

nlohmann::json parse_json_document(const std::string& text, std::string_view file,
                                   std::string_view fix) {
  check_text_encoding(text, file);
  if (std::all_of(text.begin(), text.end(),
                  [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; })) {
    return nullptr;
  }
  try {
    DocumentBuilder builder;
    nlohmann::json::sax_parse(text, &builder);
    return builder.take();
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
