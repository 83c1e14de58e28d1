#include "loader/plugin_definition.hpp"

namespace schedhost::loader {

ExtensionPointSet extension_points_of(const schedhost_plugin_vtable_t& v) {
  ExtensionPointSet points;
  auto mark = [&points](bool present, ExtensionPoint point) {
    if (present) points.insert(point);
  };
  mark(v.pre_enqueue != nullptr, ExtensionPoint::PreEnqueue);
  mark(v.queue_sort_less != nullptr, ExtensionPoint::QueueSort);
  mark(v.pre_filter != nullptr, ExtensionPoint::PreFilter);
  mark(v.add_pod != nullptr || v.remove_pod != nullptr, ExtensionPoint::PreFilterExtensions);
  mark(v.filter != nullptr, ExtensionPoint::Filter);
  mark(v.post_filter != nullptr, ExtensionPoint::PostFilter);
  mark(v.pre_score != nullptr, ExtensionPoint::PreScore);
  mark(v.score != nullptr, ExtensionPoint::Score);
  mark(v.normalize_score != nullptr, ExtensionPoint::NormalizeScore);
  mark(v.reserve != nullptr, ExtensionPoint::Reserve);
  mark(v.unreserve != nullptr, ExtensionPoint::Unreserve);
  mark(v.permit != nullptr, ExtensionPoint::Permit);
  mark(v.pre_bind != nullptr, ExtensionPoint::PreBind);
  mark(v.bind != nullptr, ExtensionPoint::Bind);
  mark(v.post_bind != nullptr, ExtensionPoint::PostBind);
  return points;
}

}  // namespace schedhost::loader
