// Strict, located reading of YAML nodes: the one place that knows how to say "line:column: this
// field must be an integer, got the string "16"". Every error is an InputError of one line.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "config/source_location.hpp"

namespace schedhost::config {

// One `key: value` of a mapping, in file order.
struct YamlField {
  std::string name;
  YAML::Node key;
  YAML::Node value;

  bool is_null() const { return !value || value.IsNull(); }
};

class YamlFieldReader {
 public:
  explicit YamlFieldReader(std::string file) : file_(std::move(file)) {}

  const std::string& file() const { return file_; }
  SourceLocation location(const YAML::Node& node) const;
  // The value's location, or the key's when the value is empty (yaml-cpp marks an empty value
  // at the next token, which may be lines away).
  SourceLocation location(const YamlField& field) const;

  [[noreturn]] void fail(const SourceLocation& at, const std::string& message) const;
  [[noreturn]] void fail(const YAML::Node& at, const std::string& message) const;

  // The fields of a mapping, after checking that it is one, that no key repeats and that every key
  // is in `known` (else: "unknown field ... did you mean ...?"). `object` names the mapping in
  // messages, e.g. `profile "default-scheduler"`.
  std::vector<YamlField> fields(const YAML::Node& node, std::string_view object,
                                std::span<const std::string_view> known) const;

  // Typed scalars. `what` names the field in messages, e.g. `weight of plugin "Foo"`.
  // The value must not be null: callers treat null as "not set" before asking.
  std::int64_t read_integer(const YAML::Node& value, std::string_view what, std::int64_t min,
                            std::int64_t max) const;
  bool read_bool(const YAML::Node& value, std::string_view what) const;
  double read_number(const YAML::Node& value, std::string_view what) const;
  // Any scalar is accepted as text (upstream's YAML decoder turns `123` into "123" for a string).
  std::string read_string(const YAML::Node& value, std::string_view what) const;
  // Checks that value is a list (a sequence); `what` names it.
  void expect_list(const YAML::Node& value, std::string_view what) const;

 private:
  std::string file_;
};

// Finds a field by name in the result of YamlFieldReader::fields(); nullptr if absent.
const YamlField* find_field(const std::vector<YamlField>& fields, std::string_view name);

}  // namespace schedhost::config
