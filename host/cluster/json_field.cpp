#include "cluster/json_field.hpp"

#include <limits>

#include "cluster/json_pointer_token.hpp"
#include "cluster/object_error.hpp"
#include "cluster/rfc3339.hpp"

namespace schedhost::cluster {
namespace {

// The pointer of member `key` under `parent` ("~" and "/" escaped as RFC 6901 says).
std::string child_pointer(const std::string& parent, std::string_view key) {
  std::string out;
  out.reserve(parent.size() + 1 + key.size());
  out += parent;
  out += '/';
  append_pointer_token(out, key);
  return out;
}

// "a.b" for plain keys, "a[nvidia.com/gpu]" for keys that would read ambiguously after a dot.
std::string child_path(const std::string& parent, std::string_view key) {
  bool plain = !key.empty();
  for (char c : key) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '-' || c == '_';
    plain = plain && ok;
  }
  std::string out;
  out.reserve(parent.size() + key.size() + 2);
  out += parent;
  if (!plain) {
    out += '[';
    out += key;
    out += ']';
  } else {
    if (!parent.empty()) out += '.';
    out += key;
  }
  return out;
}

}  // namespace

void JsonField::fail(std::string_view problem) const {
  std::string subject = path_.empty() ? "the object" : path_;
  throw ObjectError(pointer_, subject + " " + std::string(problem));
}

std::string JsonField::quoted() const {
  return value_->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::optional<JsonField> JsonField::member(std::string_view key) const {
  if (!value_->is_object()) {
    fail(std::string("must be a mapping (key: value pairs), not ") + json_type_name(*value_) +
         ": fix its type");
  }
  auto it = value_->find(key);
  if (it == value_->end() || it->is_null()) return std::nullopt;
  return JsonField(*it, child_pointer(pointer_, key), child_path(path_, key));
}

std::optional<JsonField> JsonField::get(std::initializer_list<std::string_view> keys) const {
  std::optional<JsonField> field = *this;
  for (std::string_view key : keys) {
    field = field->member(key);
    if (!field) return std::nullopt;
  }
  return field;
}

std::vector<JsonField> JsonField::items() const {
  if (!value_->is_array()) {
    fail(std::string("must be a sequence (a list), not ") + json_type_name(*value_) +
         ": fix its type");
  }
  std::vector<JsonField> out;
  out.reserve(value_->size());
  for (size_t i = 0; i < value_->size(); ++i) {
    out.push_back(JsonField((*value_)[i], pointer_ + "/" + std::to_string(i),
                            path_ + "[" + std::to_string(i) + "]"));
  }
  return out;
}

std::vector<std::pair<std::string, JsonField>> JsonField::members() const {
  if (!value_->is_object()) {
    fail(std::string("must be a mapping (key: value pairs), not ") + json_type_name(*value_) +
         ": fix its type");
  }
  std::vector<std::pair<std::string, JsonField>> out;
  out.reserve(value_->size());
  for (auto it = value_->begin(); it != value_->end(); ++it) {
    out.emplace_back(it.key(), JsonField(it.value(), child_pointer(pointer_, it.key()),
                                         child_path(path_, it.key())));
  }
  return out;
}

std::string JsonField::as_string() const {
  if (value_->is_string()) return value_->get<std::string>();
  if (value_->is_number() || value_->is_boolean()) return quoted();
  fail(std::string("must be a string, not ") + json_type_name(*value_) + ": quote the value");
}

int64_t JsonField::as_int() const {
  if (value_->is_number_integer() && !value_->is_number_unsigned()) {
    return value_->get<int64_t>();
  }
  if (value_->is_number_unsigned() &&
      value_->get<uint64_t>() <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    return static_cast<int64_t>(value_->get<uint64_t>());
  }
  fail("must be an integer, not " + quoted() + ": write a whole number");
}

bool JsonField::as_bool() const {
  if (value_->is_boolean()) return value_->get<bool>();
  fail("must be true or false, not " + quoted() + ": write true or false");
}

Quantity JsonField::as_quantity() const {
  std::string text;
  if (value_->is_string()) {
    text = value_->get<std::string>();
  } else if (value_->is_number()) {
    // Upstream parses a JSON number from its text. A YAML/JSON float arrives as a double whose
    // shortest round-trip form reproduces any decimal of up to 15 significant digits.
    text = quoted();
  } else {
    fail(std::string("must be a quantity such as 500m or 2, not ") + json_type_name(*value_) +
         ": write a number with an optional suffix");
  }
  std::string error;
  std::optional<Quantity> quantity = parse_quantity(text, &error);
  if (!quantity && error.find("out of range") != std::string::npos) {
    fail(quoted() + " is " + error.substr(error.find("out of range")) + ": use a smaller amount");
  }
  if (!quantity) {
    fail(quoted() +
         " is not a valid quantity: use a number with an optional suffix such as 500m or 2");
  }
  if (quantity->is_negative()) fail(quoted() + " must not be negative: use 0 or more");
  return *quantity;
}

StringMap JsonField::as_string_map() const {
  std::vector<StringMap::Entry> entries;
  for (auto& [key, field] : members()) {
    entries.emplace_back(key, field.json().is_null() ? std::string() : field.as_string());
  }
  return StringMap(std::move(entries));
}

int64_t JsonField::as_time_ms() const {
  std::optional<int64_t> ms;
  if (value_->is_string()) ms = parse_rfc3339_ms(value_->get_ref<const std::string&>());
  if (!ms) fail(quoted() + " is not an RFC 3339 time: use a time such as 2024-01-02T03:04:05Z");
  return *ms;
}

std::string string_member(const JsonField& field, std::string_view key, std::string fallback) {
  std::optional<JsonField> member = field.member(key);
  return member ? member->as_string() : std::move(fallback);
}

std::string string_at(const nlohmann::json& object, std::initializer_list<std::string_view> keys,
                      std::string fallback) {
  const nlohmann::json* at = &object;
  for (std::string_view key : keys) {
    if (!at->is_object()) return fallback;
    const auto it = at->find(key);
    if (it == at->end()) return fallback;
    at = &*it;
  }
  return at->is_string() ? at->get<std::string>() : std::move(fallback);
}

const char* json_type_name(const nlohmann::json& value, const char* null_word) {
  switch (value.type()) {
    case nlohmann::json::value_t::object:
      return "a mapping";
    case nlohmann::json::value_t::array:
      return "a sequence";
    case nlohmann::json::value_t::string:
      return "a string";
    case nlohmann::json::value_t::boolean:
      return "a boolean";
    case nlohmann::json::value_t::null:
      return null_word;
    default:
      return "a number";
  }
}

}  // namespace schedhost::cluster
