// The images of a node as ImageLocality sees them.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cluster/node.hpp"

namespace schedhost::cluster {

// One image name present on a node (an image with several names appears once per name).
struct ImageState {
  std::string name;
  int64_t size_bytes = 0;
  int32_t num_nodes = 0;  // nodes of the snapshot listing this exact name

  bool operator==(const ImageState&) const = default;
};

// Sorted by name, one entry per distinct name; when a node lists a name twice the later entry
// wins, like upstream's map. Shared between NodeInfo clones, since pods never change it.
using ImageStates = std::vector<ImageState>;

// The node's image states; num_nodes(name) gives the snapshot-wide count.
std::shared_ptr<const ImageStates> make_image_states(
    const Node& node, const std::function<int32_t(std::string_view)>& num_nodes);

// Binary search in sorted states; nullptr when absent.
const ImageState* find_image(const ImageStates& states, std::string_view name);

}  // namespace schedhost::cluster
