// Positions in a YAML file read without a tree (yaml_json_reader.hpp), for messages.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <yaml-cpp/yaml.h>

namespace schedhost::cluster {

// Keeps the file's text and parses it with yaml-cpp the first time a message needs a position,
// so that messages name the very line and column they named when every file was read by
// yaml-cpp. A file without errors never pays for that parse.
class YamlFilePositions {
 public:
  YamlFilePositions(std::string file, std::string text)
      : file_(std::move(file)), text_(std::move(text)) {}

  const std::string& file() const { return file_; }

  // "file:line:column" of the value at `pointer` in document `index` (0-based), as locate()
  // finds it; "file" alone when yaml-cpp cannot read the text.
  std::string location(size_t index, std::string_view pointer) const;

 private:
  std::string file_;
  mutable std::string text_;  // let go once parsed
  mutable std::optional<std::vector<YAML::Node>> documents_;
};

}  // namespace schedhost::cluster
