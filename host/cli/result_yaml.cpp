#include "cli/result_yaml.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <stdexcept>
#include <string>
#include <variant>

#include "cli/result_json.hpp"
#include "config/yaml_scalar.hpp"

namespace schedhost::cli {
namespace {

using Json = nlohmann::ordered_json;

// YAML 1.1 booleans that 1.2 readers take as text but 1.1 readers (PyYAML, go-yaml v2) do not.
bool is_yaml11_bool(const std::string& text) {
  static constexpr std::array<std::string_view, 8> kWords = {"y",  "n",   "yes",  "no",
                                                             "on", "off", "true", "false"};
  std::string lower = text;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return std::find(kWords.begin(), kWords.end(), lower) != kWords.end();
}

// Whether the text, written plain, would read back as something other than this string.
bool needs_quotes(const std::string& text) {
  if (is_yaml11_bool(text)) return true;
  try {
    return !std::holds_alternative<std::string>(config::resolve_scalar(YAML::Node(text)));
  } catch (const std::invalid_argument&) {
    return true;
  }
}

void emit(YAML::Emitter& out, const Json& value) {
  switch (value.type()) {
    case Json::value_t::object:
      if (value.empty()) out << YAML::Flow;
      out << YAML::BeginMap;
      for (const auto& [key, item] : value.items()) {
        out << YAML::Key;
        if (needs_quotes(key)) out << YAML::DoubleQuoted;
        out << key << YAML::Value;
        emit(out, item);
      }
      out << YAML::EndMap;
      break;
    case Json::value_t::array:
      if (value.empty()) out << YAML::Flow;
      out << YAML::BeginSeq;
      for (const Json& item : value)
        emit(out, item);
      out << YAML::EndSeq;
      break;
    case Json::value_t::string: {
      const auto& text = value.get_ref<const std::string&>();
      if (needs_quotes(text)) out << YAML::DoubleQuoted;
      out << text;
      break;
    }
    case Json::value_t::boolean:
      out << value.get<bool>();
      break;
    case Json::value_t::number_integer:
      out << value.get<std::int64_t>();
      break;
    case Json::value_t::number_unsigned:
      out << value.get<std::uint64_t>();
      break;
    case Json::value_t::number_float:
      out << value.get<double>();
      break;
    case Json::value_t::null:
    case Json::value_t::binary:
    case Json::value_t::discarded:
      out << YAML::Null;
      break;
  }
}

}  // namespace

void write_yaml(const scheduler::RunResult& result, std::ostream& out) {
  YAML::Emitter emitter;
  emitter.SetIndent(2);
  emit(emitter, result_to_json(result));
  if (!emitter.good()) {
    throw std::runtime_error("cannot write the result as YAML: " + emitter.GetLastError());
  }
  out << emitter.c_str() << '\n';
}

}  // namespace schedhost::cli
