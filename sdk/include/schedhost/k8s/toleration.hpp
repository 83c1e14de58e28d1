// schedhost/k8s/toleration.hpp - whether tolerations tolerate taints, upstream's
// v1.Toleration.ToleratesTaint and FindMatchingUntoleratedTaint (k8s 1.28).
//
//   if (auto taint = k8s::find_untolerated_taint(node.taints(), pod.tolerations(),
//                                                 k8s::is_do_not_schedule_taint)) ...
//
// Works on schedhost::Taint / schedhost::Toleration (views) and on any struct with the same
// members (key, value, effect; key, op, value, effect), e.g. an owned copy kept in the
// CycleState. A toleration tolerates a taint when
//   - its effect is empty (every effect) or equal to the taint's, and
//   - its key is empty (every key; meaningful with Exists) or equal to the taint's, and
//   - its operator is Exists, or Equal / empty with a value equal to the taint's.
// Any other operator tolerates nothing.
//
// Header-only C++17; depends on nothing but the standard library.
#pragma once

#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

namespace schedhost::k8s {

inline constexpr std::string_view kEffectNoSchedule = "NoSchedule";
inline constexpr std::string_view kEffectPreferNoSchedule = "PreferNoSchedule";
inline constexpr std::string_view kEffectNoExecute = "NoExecute";
inline constexpr std::string_view kTolerationOpExists = "Exists";
inline constexpr std::string_view kTolerationOpEqual = "Equal";
inline constexpr std::string_view kTaintNodeUnschedulable = "node.kubernetes.io/unschedulable";

// An owned taint or toleration, for keeping past a hook (CycleState values).
struct OwnedTaint {
  std::string key, value, effect;
};
struct OwnedToleration {
  std::string key, op, value, effect;

  template <class T>
  static OwnedToleration of(const T& t) {
    return {std::string(t.key), std::string(t.op), std::string(t.value), std::string(t.effect)};
  }
};

template <class Toleration, class Taint>
bool tolerates(const Toleration& toleration, const Taint& taint) {
  const std::string_view effect = toleration.effect;
  const std::string_view key = toleration.key;
  const std::string_view op = toleration.op;
  if (!effect.empty() && effect != std::string_view(taint.effect)) return false;
  if (!key.empty() && key != std::string_view(taint.key)) return false;
  if (op == kTolerationOpExists) return true;
  if (op.empty() || op == kTolerationOpEqual) {
    return std::string_view(toleration.value) == std::string_view(taint.value);
  }
  return false;
}

// upstream TolerationsTolerateTaint: whether any of the tolerations tolerates the taint.
template <class Tolerations, class Taint>
bool tolerations_tolerate_taint(const Tolerations& tolerations, const Taint& taint) {
  for (const auto& toleration : tolerations) {
    if (tolerates(toleration, taint)) return true;
  }
  return false;
}

// Taint filters for find_untolerated_taint.
template <class Taint>
bool is_do_not_schedule_taint(const Taint& taint) {  // NoSchedule or NoExecute
  const std::string_view effect = taint.effect;
  return effect == kEffectNoSchedule || effect == kEffectNoExecute;
}
struct DoNotScheduleTaints {
  template <class Taint>
  bool operator()(const Taint& taint) const {
    return is_do_not_schedule_taint(taint);
  }
};
struct AllTaints {
  template <class Taint>
  bool operator()(const Taint&) const {
    return true;
  }
};

// upstream FindMatchingUntoleratedTaint: the first taint (in node order) that the filter
// selects and no toleration tolerates; nullopt when every selected taint is tolerated.
template <class Taints, class Tolerations, class Filter = DoNotScheduleTaints>
auto find_untolerated_taint(const Taints& taints, const Tolerations& tolerations,
                            Filter filter = Filter())
    -> std::optional<std::decay_t<decltype(*std::begin(taints))>> {
  for (const auto& taint : taints) {
    if (!filter(taint)) continue;
    if (!tolerations_tolerate_taint(tolerations, taint)) return taint;
  }
  return std::nullopt;
}

}  // namespace schedhost::k8s
