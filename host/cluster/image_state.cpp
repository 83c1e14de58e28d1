#include "cluster/image_state.hpp"

#include <algorithm>

namespace schedhost::cluster {

std::shared_ptr<const ImageStates> make_image_states(
    const Node& node, const std::function<int32_t(std::string_view)>& num_nodes) {
  ImageStates states;
  for (const NodeImage& image : node.images()) {
    for (const std::string& name : image.names) {
      states.push_back(ImageState{name, image.size_bytes, num_nodes(name)});
    }
  }
  // Stable sort then keep the last of equal names: the later listing wins.
  std::stable_sort(states.begin(), states.end(),
                   [](const ImageState& a, const ImageState& b) { return a.name < b.name; });
  ImageStates unique;
  for (ImageState& state : states) {
    if (!unique.empty() && unique.back().name == state.name) {
      unique.back() = std::move(state);
    } else {
      unique.push_back(std::move(state));
    }
  }
  return std::make_shared<const ImageStates>(std::move(unique));
}

const ImageState* find_image(const ImageStates& states, std::string_view name) {
  auto it = std::lower_bound(states.begin(), states.end(), name,
                             [](const ImageState& s, std::string_view n) { return s.name < n; });
  return it != states.end() && it->name == name ? &*it : nullptr;
}

}  // namespace schedhost::cluster
