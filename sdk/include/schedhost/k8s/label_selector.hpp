// schedhost/k8s/label_selector.hpp - label requirements and metav1.LabelSelector, upstream's
// semantics (k8s.io/apimachinery labels.Requirement and metav1.LabelSelectorAsSelector).
//
//   auto sel = schedhost::k8s::LabelSelector::parse(json);   // once per pod; throws ParseError
//   if (sel.matches(node)) ...                               // per node: a few label lookups
//
// Labels come from any source: a Pod or NodeInfo (their label(key)), a std::map or
// std::unordered_map of strings, or anything with `std::optional<std::string_view> label(key)`.
//
// nil vs empty, as upstream's LabelSelectorAsSelector: a missing / null selector matches
// NOTHING; an empty selector ({}, or no matchLabels and no matchExpressions) matches EVERYTHING.
// (PodTopologySpread and InterPodAffinity rely on this; a pod's nodeSelector map, from_set(),
// matches everything when empty.)
//
// Header-only C++17; depends on nlohmann/json and the standard library.
#pragma once

#include <schedhost/k8s/validation.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace schedhost::k8s {

// The operators of labels.Requirement (selection.Operator) that selectors use.
enum class Operator { Equals, In, NotIn, Exists, DoesNotExist, Gt, Lt };

// Go's strconv.ParseInt(s, 10, 64): optional sign, decimal digits, no overflow.
inline std::optional<std::int64_t> parse_int64(std::string_view s) {
  if (s.empty()) return std::nullopt;
  bool negative = false;
  if (s.front() == '+' || s.front() == '-') {
    negative = s.front() == '-';
    s.remove_prefix(1);
    if (s.empty()) return std::nullopt;
  }
  std::uint64_t value = 0;
  const std::uint64_t limit =
      negative ? static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) + 1
               : static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  for (const char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    const auto digit = static_cast<std::uint64_t>(c - '0');
    if (value > (limit - digit) / 10) return std::nullopt;
    value = value * 10 + digit;
  }
  if (negative) {
    return value == limit ? std::numeric_limits<std::int64_t>::min()
                          : -static_cast<std::int64_t>(value);
  }
  return static_cast<std::int64_t>(value);
}

namespace detail {

template <class T, class = void>
struct has_label_method : std::false_type {};
template <class T>
struct has_label_method<T,
                        std::void_t<decltype(std::declval<const T&>().label(std::string_view()))>>
    : std::true_type {};

}  // namespace detail

// The value of label `key` in `labels`, nullopt when absent.
template <class Labels>
std::optional<std::string_view> label_value(const Labels& labels, std::string_view key) {
  if constexpr (detail::has_label_method<Labels>::value) {
    return labels.label(key);
  } else {
    const auto it = labels.find(typename Labels::key_type(key));
    if (it == labels.end()) return std::nullopt;
    return std::string_view(it->second);
  }
}

// One parsed requirement (labels.Requirement): key, operator and values.
class Requirement {
 public:
  // labels.NewRequirement: validates the key (qualified name), the number of values for the
  // operator, Gt/Lt integers and every value (label value); appends the problems to errors and
  // returns nullopt when there is any.
  static std::optional<Requirement> make(std::string key, Operator op,
                                         std::vector<std::string> values, const FieldPath& path,
                                         std::vector<FieldError>& errors) {
    const std::size_t before = errors.size();
    if (auto errs = is_qualified_name(key); !errs.empty()) {
      errors.push_back(FieldError::invalid(path.child("key"), go_quote(key), join(errs, "; ")));
    }
    const FieldPath values_path = path.child("values");
    switch (op) {
      case Operator::In:
      case Operator::NotIn:
        if (values.empty()) {
          errors.push_back(FieldError::invalid(values_path, go_string_slice(values),
                                               "for 'in', 'notin' operators, values set can't "
                                               "be empty"));
        }
        break;
      case Operator::Equals:
        if (values.size() != 1) {
          errors.push_back(FieldError::invalid(values_path, go_string_slice(values),
                                               "exact-match compatibility requires one single "
                                               "value"));
        }
        break;
      case Operator::Exists:
      case Operator::DoesNotExist:
        if (!values.empty()) {
          errors.push_back(FieldError::invalid(values_path, go_string_slice(values),
                                               "values set must be empty for exists and does "
                                               "not exist"));
        }
        break;
      case Operator::Gt:
      case Operator::Lt:
        if (values.size() != 1) {
          errors.push_back(FieldError::invalid(values_path, go_string_slice(values),
                                               "for 'Gt', 'Lt' operators, exactly one value is "
                                               "required"));
        }
        for (std::size_t i = 0; i < values.size(); ++i) {
          if (!parse_int64(values[i])) {
            errors.push_back(FieldError::invalid(values_path.index(i), go_quote(values[i]),
                                                 "for 'Gt', 'Lt' operators, the value must be "
                                                 "an integer"));
          }
        }
        break;
    }
    for (std::size_t i = 0; i < values.size(); ++i) {
      if (auto errs = is_valid_label_value(values[i]); !errs.empty()) {
        errors.push_back(FieldError::invalid(values_path.index(i).key(key), go_quote(values[i]),
                                             join(errs, "; ")));
      }
    }
    if (errors.size() != before) return std::nullopt;
    Requirement r;
    r.key_ = std::move(key);
    r.op_ = op;
    if (op == Operator::Gt || op == Operator::Lt) r.number_ = *parse_int64(values.front());
    r.values_ = std::move(values);
    std::sort(r.values_.begin(), r.values_.end());
    return r;
  }

  // An Equals requirement without validation (labels.SelectorFromValidatedSet).
  static Requirement equals(std::string key, std::string value) {
    Requirement r;
    r.key_ = std::move(key);
    r.op_ = Operator::Equals;
    r.values_.push_back(std::move(value));
    return r;
  }

  const std::string& key() const { return key_; }
  Operator op() const { return op_; }
  const std::vector<std::string>& values() const { return values_; }  // sorted

  // labels.Requirement.Matches for one label value (nullopt = the label is absent).
  bool matches_value(std::optional<std::string_view> value) const {
    switch (op_) {
      case Operator::Equals:
      case Operator::In:
        return value && has_value(*value);
      case Operator::NotIn:
        return !value || !has_value(*value);
      case Operator::Exists:
        return value.has_value();
      case Operator::DoesNotExist:
        return !value;
      case Operator::Gt:
      case Operator::Lt: {
        if (!value) return false;
        const auto v = parse_int64(*value);
        if (!v) return false;
        return op_ == Operator::Gt ? *v > number_ : *v < number_;
      }
    }
    return false;
  }

  template <class Labels>
  bool matches(const Labels& labels) const {
    return matches_value(label_value(labels, key_));
  }

 private:
  bool has_value(std::string_view v) const {
    if (values_.size() <= 4) {
      return std::find(values_.begin(), values_.end(), v) != values_.end();
    }
    return std::binary_search(values_.begin(), values_.end(), v,
                              [](std::string_view a, std::string_view b) { return a < b; });
  }

  std::string key_;
  Operator op_ = Operator::Exists;
  std::vector<std::string> values_;
  std::int64_t number_ = 0;
};

namespace detail {

inline std::string json_for_error(const nlohmann::json& j) {
  return j.is_string() ? go_quote(j.get_ref<const std::string&>()) : j.dump();
}

// A list of strings ("values"); type problems go to errors.
inline std::vector<std::string> string_list(const nlohmann::json& j, const FieldPath& path,
                                            std::vector<FieldError>& errors) {
  std::vector<std::string> out;
  if (j.is_null()) return out;
  if (!j.is_array()) {
    errors.push_back(FieldError::invalid(path, json_for_error(j), "must be a list of strings"));
    return out;
  }
  for (std::size_t i = 0; i < j.size(); ++i) {
    if (!j[i].is_string()) {
      errors.push_back(
          FieldError::invalid(path.index(i), json_for_error(j[i]), "must be a string"));
      continue;
    }
    out.push_back(j[i].get<std::string>());
  }
  return out;
}

inline std::string string_member(const nlohmann::json& j, const char* name, const FieldPath& path,
                                 std::vector<FieldError>& errors) {
  const auto it = j.find(name);
  if (it == j.end() || it->is_null()) return {};
  if (!it->is_string()) {
    errors.push_back(
        FieldError::invalid(path.child(name), json_for_error(*it), "must be a string"));
    return {};
  }
  return it->get<std::string>();
}

// The list member `name` of object j (missing/null = empty); a non-list is an error.
inline const nlohmann::json* list_member(const nlohmann::json& j, const char* name,
                                         const FieldPath& path, std::vector<FieldError>& errors) {
  const auto it = j.find(name);
  if (it == j.end() || it->is_null()) return nullptr;
  if (!it->is_array()) {
    errors.push_back(FieldError::invalid(path.child(name), json_for_error(*it), "must be a list"));
    return nullptr;
  }
  return &*it;
}

}  // namespace detail

// A parsed metav1.LabelSelector: requirements ANDed.
class LabelSelector {
 public:
  // Matches nothing (a nil selector).
  LabelSelector() = default;

  static LabelSelector nothing() { return {}; }
  static LabelSelector everything() {
    LabelSelector s;
    s.nothing_ = false;
    return s;
  }

  // labels.SelectorFromSet: every key must equal its value; an empty set matches everything.
  template <class Map>
  static LabelSelector from_set(const Map& set) {
    LabelSelector s = everything();
    for (const auto& [k, v] : set)
      s.requirements_.push_back(Requirement::equals(std::string(k), std::string(v)));
    s.sort();
    return s;
  }

  // metav1.LabelSelectorAsSelector over the selector's JSON. null (or a missing field passed as
  // null) matches nothing; {} matches everything. Throws ParseError (upstream-worded, paths under
  // `path`) for an unknown operator, an invalid key or value, or a field of the wrong type.
  static LabelSelector parse(const nlohmann::json& json, const FieldPath& path = {}) {
    std::vector<FieldError> errors;
    LabelSelector s = parse(json, path, errors);
    if (!errors.empty()) throw ParseError(std::move(errors));
    return s;
  }

  // The same, appending the problems to errors (the result then matches nothing).
  static LabelSelector parse(const nlohmann::json& json, const FieldPath& path,
                             std::vector<FieldError>& errors) {
    if (json.is_null()) return nothing();
    const std::size_t before = errors.size();
    if (!json.is_object()) {
      errors.push_back(FieldError::invalid(path, detail::json_for_error(json),
                                           "a label selector must be an object with matchLabels "
                                           "and matchExpressions"));
      return nothing();
    }
    LabelSelector s = everything();
    if (const auto it = json.find("matchLabels"); it != json.end() && !it->is_null()) {
      const FieldPath labels_path = path.child("matchLabels");
      if (!it->is_object()) {
        errors.push_back(FieldError::invalid(labels_path, detail::json_for_error(*it),
                                             "must be a map of strings"));
      } else {
        for (const auto& [k, v] : it->items()) {
          if (!v.is_string()) {
            errors.push_back(FieldError::invalid(labels_path.key(k), detail::json_for_error(v),
                                                 "must be a string"));
            continue;
          }
          auto r =
              Requirement::make(k, Operator::Equals, {v.get<std::string>()}, FieldPath(), errors);
          if (r) s.requirements_.push_back(std::move(*r));
        }
      }
    }
    if (const nlohmann::json* exprs = detail::list_member(json, "matchExpressions", path, errors)) {
      const FieldPath exprs_path = path.child("matchExpressions");
      for (std::size_t i = 0; i < exprs->size(); ++i) {
        const nlohmann::json& e = (*exprs)[i];
        const FieldPath p = exprs_path.index(i);
        if (!e.is_object()) {
          errors.push_back(FieldError::invalid(p, detail::json_for_error(e), "must be an object"));
          continue;
        }
        std::string key = detail::string_member(e, "key", p, errors);
        const std::string op = detail::string_member(e, "operator", p, errors);
        std::vector<std::string> values;
        if (const auto v = e.find("values"); v != e.end()) {
          values = detail::string_list(*v, p.child("values"), errors);
        }
        std::optional<Operator> parsed_op;
        if (op == "In") parsed_op = Operator::In;
        if (op == "NotIn") parsed_op = Operator::NotIn;
        if (op == "Exists") parsed_op = Operator::Exists;
        if (op == "DoesNotExist") parsed_op = Operator::DoesNotExist;
        if (!parsed_op) {
          // upstream: fmt.Errorf("%q is not a valid label selector operator", op)
          errors.push_back(FieldError{p.child("operator").str(), "Unsupported value", go_quote(op),
                                      go_quote(op) + " is not a valid label selector operator"});
          continue;
        }
        auto r =
            Requirement::make(std::move(key), *parsed_op, std::move(values), FieldPath(), errors);
        if (r) s.requirements_.push_back(std::move(*r));
      }
    }
    if (errors.size() != before) return nothing();
    s.sort();
    return s;
  }

  // Whether the labels satisfy every requirement (false for nothing(), true for everything()).
  template <class Labels>
  bool matches(const Labels& labels) const {
    if (nothing_) return false;
    for (const Requirement& r : requirements_) {
      if (!r.matches(labels)) return false;
    }
    return true;
  }

  bool matches_nothing() const { return nothing_; }
  bool matches_everything() const { return !nothing_ && requirements_.empty(); }
  const std::vector<Requirement>& requirements() const { return requirements_; }

  // Adds a requirement (ANDed), e.g. one made by Requirement::make. A selector that matches
  // nothing still matches nothing (as upstream's labels.Nothing().Add).
  void add(Requirement r) {
    requirements_.push_back(std::move(r));
    sort();
  }

 private:
  void sort() {
    std::stable_sort(requirements_.begin(), requirements_.end(),
                     [](const Requirement& a, const Requirement& b) { return a.key() < b.key(); });
  }

  bool nothing_ = true;
  std::vector<Requirement> requirements_;
};

}  // namespace schedhost::k8s
