#include "cluster/yaml_file_positions.hpp"

#include "cluster/yaml_documents.hpp"
#include "cluster/yaml_location.hpp"
#include "common/input_error.hpp"

namespace schedhost::cluster {

std::string YamlFilePositions::location(size_t index, std::string_view pointer) const {
  if (!documents_) {
    try {
      // The same guarded parse as a file read by yaml-cpp from the start.
      documents_ = parse_yaml_documents(text_, file_);
    } catch (const YAML::Exception&) {
      documents_.emplace();  // positions unknown: name the file only
    } catch (const InputError&) {
      documents_.emplace();
    }
    std::string().swap(text_);
  }
  if (index >= documents_->size()) return source_location(file_);
  return mark_location(file_, locate((*documents_)[index], pointer));
}

}  // namespace schedhost::cluster
