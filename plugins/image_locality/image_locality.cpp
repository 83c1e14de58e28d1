// ImageLocality: upstream kube-scheduler v1.35's plugin of that name (pkg/scheduler/framework/
// plugins/imagelocality/image_locality.go), decision for decision.
//
// Score  for each container of the pod, init and sidecar containers included (v1.28 counted the
//        regular ones only), its image normalized as upstream (":latest" appended when the last ':'
//        is not after the last '/'), and when the node lists that exact name:
//          sum += int64(float64(sizeBytes) * (float64(numNodes) / float64(totalNodes)))
//        numNodes = the snapshot's nodes listing that name, totalNodes = the snapshot's nodes.
//        Then with minThreshold = 23 MiB and maxThreshold = 1000 MiB * number of
//        containers, sum is clamped to [minThreshold, maxThreshold] and
//          score = 100 * (sum - minThreshold) / (maxThreshold - minThreshold)   (int64 division)
//        No PreScore, no NormalizeScore, no args.
#include <schedhost/plugin.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace {

constexpr std::int64_t kMiB = std::int64_t{1024} * 1024;
constexpr std::int64_t kMinThreshold = 23 * kMiB;
constexpr std::int64_t kMaxContainerThreshold = 1000 * kMiB;
constexpr std::int64_t kMaxNodeScore = 100;

// normalizedImageName: the name as the node reports it, ":latest" appended when no tag is given.
// buffer holds the appended form (Score reuses one per call, so the per-node path allocates
// at most once).
std::string_view normalized_image(std::string_view image, std::string& buffer) {
  const std::size_t colon = image.rfind(':');
  const std::size_t slash = image.rfind('/');
  // Go's LastIndex is -1 when absent: colon <= slash, with npos standing for -1.
  const bool tagged =
      colon != std::string_view::npos && (slash == std::string_view::npos || colon > slash);
  if (tagged) return image;
  buffer.assign(image);
  buffer += ":latest";
  return buffer;
}

// calculatePriority.
std::int64_t calculate_priority(std::int64_t sum, std::int64_t containers) {
  const std::int64_t max_threshold = kMaxContainerThreshold * containers;
  if (sum < kMinThreshold) {
    sum = kMinThreshold;
  } else if (sum > max_threshold) {
    sum = max_threshold;
  }
  return kMaxNodeScore * (sum - kMinThreshold) / (max_threshold - kMinThreshold);
}

class ImageLocality {
 public:
  // The images, normalized, of every container; sorted but not deduplicated, since the score
  // also counts containers (upstream signs the set).
  schedhost::Status SignPod(schedhost::Context&, const schedhost::Pod& pod,
                            schedhost::PodSignature& signature) const {
    std::vector<std::string> images;
    std::string buffer;
    for (const schedhost::Container container : pod.containers())
      images.emplace_back(normalized_image(container.image, buffer));
    std::sort(images.begin(), images.end());
    signature.add("v1.Pod.Spec.Containers.Image", images);
    return {};
  }
  schedhost::Status Score(schedhost::Context& ctx, const schedhost::CycleState&,
                          const schedhost::Pod& pod, const schedhost::NodeInfo& node,
                          std::int64_t& score) const {
    const auto total_nodes = static_cast<double>(ctx.nodes().size());
    const auto images = node.images();
    std::int64_t sum = 0;
    std::int64_t containers = 0;
    std::string normalized;
    // Every container counts, init containers too (v1.35; v1.28 counted the regular ones).
    for (const schedhost::Container container : pod.containers()) {
      ++containers;
      const std::string_view name = normalized_image(container.image, normalized);
      for (const schedhost::ImageState image : images) {
        if (image.name != name) continue;
        const double spread = static_cast<double>(image.num_nodes) / total_nodes;
        sum += static_cast<std::int64_t>(static_cast<double>(image.size_bytes) * spread);
        break;
      }
    }
    score = calculate_priority(sum, containers);
    return {};
  }
};

}  // namespace

SCHEDHOST_LIBRARY(
    "image-locality", "1.0.0",
    schedhost::plugin<ImageLocality, schedhost::hook::Score, schedhost::hook::SignPod>(
        "ImageLocality",
        "Upstream ImageLocality (v1.28): prefers nodes that already have the pod's "
        "container images, scaled by how widely each image is spread"))
