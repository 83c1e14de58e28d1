#include "live/filtered_handler.hpp"

namespace schedhost::live {

kube::InformerHandler filtered_handler(const std::function<bool(const nlohmann::json&)>& pass,
                                       const kube::InformerHandler& h) {
  return {[=](const kube::Object& o, bool initial) {
            if (pass(*o)) h.on_add(o, initial);
          },
          [=](const kube::Object& old, const kube::Object& now) {
            const bool was = pass(*old);
            const bool is = pass(*now);
            if (was && is) {
              h.on_update(old, now);
            } else if (was) {
              h.on_delete(old, false);
            } else if (is) {
              h.on_add(now, false);
            }
          },
          [=](const kube::Object& o, bool unknown) {
            if (pass(*o)) h.on_delete(o, unknown);
          }};
}

}  // namespace schedhost::live
