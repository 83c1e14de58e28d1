// schedhost/k8s/node_selector.hpp - core/v1 NodeSelector, NodeSelectorTerm,
// NodeSelectorRequirement and PreferredSchedulingTerm, with upstream's semantics
// (k8s.io/component-helpers/scheduling/corev1/nodeaffinity).
//
//   // once per pod (PreFilter / PreScore), kept in the CycleState:
//   auto required = k8s::RequiredNodeAffinity::parse(node_selector_json, required_json);
//   auto preferred = k8s::PreferredSchedulingTerms::parse(preferred_json);   // throws ParseError
//   // per node:
//   required.matches(node);  preferred.score(node);
//
// Rules:
// - terms are ORed, the requirements of a term ANDed;
// - a term with neither matchExpressions nor matchFields matches nothing (it is dropped);
// - matchExpressions operators: In, NotIn (true when the label is absent), Exists, DoesNotExist,
//   Gt, Lt (one integer value; an absent or non-integer label does not match);
// - matchFields: only In / NotIn with exactly one value; the only field a node has is
//   metadata.name (any other key reads as ""); a node without a name passes matchFields;
// - a term that fails to parse never matches. NodeSelector::parse keeps such terms (upstream's
//   LazyErrorNodeSelector, used for a pod's own affinity: it simply does not match);
//   NodeSelector::parse_strict and PreferredSchedulingTerms::parse throw ParseError instead
//   (upstream's NewNodeSelector / NewPreferredSchedulingTerms, used for plugin args).
//
// A node is anything with `name()` and `label(key)` (a schedhost::NodeInfo), or pass its
// labels (any source label_selector.hpp accepts) and its name separately.
//
// Header-only C++17; depends on nlohmann/json and the standard library.
#pragma once

#include <schedhost/k8s/label_selector.hpp>
#include <schedhost/k8s/validation.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace schedhost::k8s {

inline constexpr std::string_view kObjectNameField = "metadata.name";

// One matchFields requirement: `key` In / NotIn a single value.
struct FieldRequirement {
  std::string key;
  bool in = true;  // false: NotIn
  std::string value;

  bool matches(std::string_view node_name) const {
    const std::string_view field = key == kObjectNameField ? node_name : std::string_view();
    return in ? field == value : field != value;
  }
};

// One NodeSelectorTerm.
class NodeSelectorTerm {
 public:
  // Parses a NodeSelectorTerm object; problems are kept in errors() (the term then never
  // matches), with paths under `path`.
  static NodeSelectorTerm parse(const nlohmann::json& term, const FieldPath& path) {
    NodeSelectorTerm t;
    if (term.is_null()) return t;
    if (!term.is_object()) {
      t.errors_.push_back(
          FieldError::invalid(path, detail::json_for_error(term), "must be an object"));
      return t;
    }
    if (const nlohmann::json* exprs =
            detail::list_member(term, "matchExpressions", path, t.errors_)) {
      t.has_expressions_ = !exprs->empty();
      t.parse_expressions(*exprs, path.child("matchExpressions"));
    }
    if (const nlohmann::json* fields = detail::list_member(term, "matchFields", path, t.errors_)) {
      t.has_fields_ = !fields->empty();
      t.parse_fields(*fields, path.child("matchFields"));
    }
    return t;
  }

  // No matchExpressions and no matchFields: such a term selects nothing.
  bool empty() const { return !has_expressions_ && !has_fields_ && errors_.empty(); }
  bool valid() const { return errors_.empty(); }
  const std::vector<FieldError>& errors() const { return errors_; }
  const std::vector<Requirement>& expressions() const { return expressions_; }
  const std::vector<FieldRequirement>& fields() const { return fields_; }

  template <class Labels>
  bool matches(const Labels& labels, std::string_view node_name) const {
    if (!errors_.empty() || empty()) return false;
    for (const Requirement& r : expressions_) {
      if (!r.matches(labels)) return false;
    }
    if (!node_name.empty()) {
      for (const FieldRequirement& f : fields_) {
        if (!f.matches(node_name)) return false;
      }
    }
    return true;
  }
  template <class Node>
  bool matches(const Node& node) const {
    return matches(node, node.name());
  }

 private:
  void parse_expressions(const nlohmann::json& exprs, const FieldPath& path) {
    for (std::size_t i = 0; i < exprs.size(); ++i) {
      const nlohmann::json& e = exprs[i];
      const FieldPath p = path.index(i);
      if (!e.is_object()) {
        errors_.push_back(FieldError::invalid(p, detail::json_for_error(e), "must be an object"));
        continue;
      }
      std::string key = detail::string_member(e, "key", p, errors_);
      const std::string op = detail::string_member(e, "operator", p, errors_);
      std::vector<std::string> values;
      if (const auto v = e.find("values"); v != e.end()) {
        values = detail::string_list(*v, p.child("values"), errors_);
      }
      std::optional<Operator> parsed;
      if (op == "In") parsed = Operator::In;
      if (op == "NotIn") parsed = Operator::NotIn;
      if (op == "Exists") parsed = Operator::Exists;
      if (op == "DoesNotExist") parsed = Operator::DoesNotExist;
      if (op == "Gt") parsed = Operator::Gt;
      if (op == "Lt") parsed = Operator::Lt;
      if (!parsed) {
        errors_.push_back(FieldError::not_supported(
            p.child("operator"), op, {"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"}));
        continue;
      }
      auto r = Requirement::make(std::move(key), *parsed, std::move(values), p, errors_);
      if (r) expressions_.push_back(std::move(*r));
    }
  }

  void parse_fields(const nlohmann::json& fields, const FieldPath& path) {
    for (std::size_t i = 0; i < fields.size(); ++i) {
      const nlohmann::json& f = fields[i];
      const FieldPath p = path.index(i);
      if (!f.is_object()) {
        errors_.push_back(FieldError::invalid(p, detail::json_for_error(f), "must be an object"));
        continue;
      }
      std::string key = detail::string_member(f, "key", p, errors_);
      const std::string op = detail::string_member(f, "operator", p, errors_);
      std::vector<std::string> values;
      if (const auto v = f.find("values"); v != f.end()) {
        values = detail::string_list(*v, p.child("values"), errors_);
      }
      if (op != "In" && op != "NotIn") {
        errors_.push_back(FieldError::not_supported(p.child("operator"), op, {"In", "NotIn"}));
        continue;
      }
      if (values.size() != 1) {
        errors_.push_back(FieldError::invalid(p.child("values"), go_string_slice(values),
                                              "must have one element"));
        continue;
      }
      fields_.push_back({std::move(key), op == "In", std::move(values.front())});
    }
  }

  bool has_expressions_ = false;
  bool has_fields_ = false;
  std::vector<Requirement> expressions_;
  std::vector<FieldRequirement> fields_;
  std::vector<FieldError> errors_;
};

// A NodeSelector: its non-empty terms, ORed.
class NodeSelector {
 public:
  // upstream NewLazyErrorNodeSelector: terms that fail to parse are kept and never match.
  static NodeSelector parse(const nlohmann::json& selector, const FieldPath& path = {}) {
    NodeSelector s;
    if (selector.is_null()) return s;
    if (!selector.is_object()) {
      s.errors_.push_back(FieldError::invalid(path, detail::json_for_error(selector),
                                              "must be an object with nodeSelectorTerms"));
      return s;
    }
    const nlohmann::json* terms =
        detail::list_member(selector, "nodeSelectorTerms", path, s.errors_);
    if (terms == nullptr) return s;
    const FieldPath terms_path = path.child("nodeSelectorTerms");
    for (std::size_t i = 0; i < terms->size(); ++i) {
      NodeSelectorTerm term = NodeSelectorTerm::parse((*terms)[i], terms_path.index(i));
      if (term.empty()) continue;  // selects nothing
      for (const FieldError& e : term.errors())
        s.errors_.push_back(e);
      s.terms_.push_back(std::move(term));
    }
    return s;
  }

  // upstream NewNodeSelector: throws ParseError when any term fails to parse.
  static NodeSelector parse_strict(const nlohmann::json& selector, const FieldPath& path = {}) {
    NodeSelector s = parse(selector, path);
    if (!s.errors_.empty()) throw ParseError(s.errors_);
    return s;
  }

  template <class Labels>
  bool matches(const Labels& labels, std::string_view node_name) const {
    for (const NodeSelectorTerm& t : terms_) {
      if (t.matches(labels, node_name)) return true;
    }
    return false;
  }
  template <class Node>
  bool matches(const Node& node) const {
    return matches(node, node.name());
  }

  const std::vector<NodeSelectorTerm>& terms() const { return terms_; }
  // Every parse problem (of all terms).
  const std::vector<FieldError>& errors() const { return errors_; }

 private:
  std::vector<NodeSelectorTerm> terms_;
  std::vector<FieldError> errors_;
};

// A list of PreferredSchedulingTerm: a node scores the sum of the weights of the terms it
// matches. Terms with weight 0 or an empty preference are ignored.
class PreferredSchedulingTerms {
 public:
  PreferredSchedulingTerms() = default;

  // upstream NewPreferredSchedulingTerms: throws ParseError for any term that fails to parse.
  // null / missing = no terms.
  static PreferredSchedulingTerms parse(const nlohmann::json& terms, const FieldPath& path = {}) {
    PreferredSchedulingTerms out;
    std::vector<FieldError> errors;
    if (terms.is_null()) return out;
    if (!terms.is_array()) {
      throw ParseError(
          {FieldError::invalid(path, detail::json_for_error(terms), "must be a list")});
    }
    for (std::size_t i = 0; i < terms.size(); ++i) {
      const nlohmann::json& t = terms[i];
      const FieldPath p = path.index(i);
      if (!t.is_object()) {
        errors.push_back(FieldError::invalid(p, detail::json_for_error(t), "must be an object"));
        continue;
      }
      std::int64_t weight = 0;
      if (const auto w = t.find("weight"); w != t.end() && !w->is_null()) {
        if (!w->is_number_integer()) {
          errors.push_back(FieldError::invalid(p.child("weight"), detail::json_for_error(*w),
                                               "must be an integer"));
          continue;
        }
        weight = w->get<std::int64_t>();
      }
      const auto pref = t.find("preference");
      NodeSelectorTerm term = NodeSelectorTerm::parse(
          pref == t.end() ? nlohmann::json(nullptr) : *pref, p);  // upstream's paths skip it
      if (weight == 0 || term.empty()) continue;
      if (!term.valid()) {
        for (const FieldError& e : term.errors())
          errors.push_back(e);
        continue;
      }
      out.terms_.push_back({weight, std::move(term)});
    }
    if (!errors.empty()) throw ParseError(std::move(errors));
    return out;
  }

  template <class Labels>
  std::int64_t score(const Labels& labels, std::string_view node_name) const {
    std::int64_t total = 0;
    for (const Weighted& w : terms_) {
      if (w.term.matches(labels, node_name)) total += w.weight;
    }
    return total;
  }
  template <class Node>
  std::int64_t score(const Node& node) const {
    return score(node, node.name());
  }

  bool empty() const { return terms_.empty(); }
  std::size_t size() const { return terms_.size(); }

 private:
  struct Weighted {
    std::int64_t weight;
    NodeSelectorTerm term;
  };
  std::vector<Weighted> terms_;
};

// A pod's required node placement: spec.nodeSelector (every key must equal) AND
// spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution (lazy: terms that
// fail to parse never match). upstream GetRequiredNodeAffinity.
class RequiredNodeAffinity {
 public:
  RequiredNodeAffinity() = default;

  // node_selector: the JSON of spec.nodeSelector (null when absent); required: the JSON of
  // requiredDuringSchedulingIgnoredDuringExecution (null when absent).
  static RequiredNodeAffinity parse(const nlohmann::json& node_selector,
                                    const nlohmann::json& required) {
    RequiredNodeAffinity a;
    if (node_selector.is_object() && !node_selector.empty()) {
      LabelSelector s = LabelSelector::everything();
      for (const auto& [k, v] : node_selector.items()) {
        // A non-string value (refused by the API server) can never be equal to a label.
        s.add(Requirement::equals(k, v.is_string() ? v.get<std::string>() : "\x01<non-string>"));
      }
      a.node_selector_ = std::move(s);
    }
    if (!required.is_null()) a.affinity_ = NodeSelector::parse(required);
    return a;
  }

  // The pod's fields as JSON texts (a Pod's json("/spec/nodeSelector") and
  // json("/spec/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution")).
  static RequiredNodeAffinity parse_texts(std::optional<std::string_view> node_selector,
                                          std::optional<std::string_view> required) {
    return parse(node_selector ? nlohmann::json::parse(*node_selector) : nlohmann::json(),
                 required ? nlohmann::json::parse(*required) : nlohmann::json());
  }

  template <class Labels>
  bool matches(const Labels& labels, std::string_view node_name) const {
    if (node_selector_ && !node_selector_->matches(labels)) return false;
    return !affinity_ || affinity_->matches(labels, node_name);
  }
  template <class Node>
  bool matches(const Node& node) const {
    return matches(node, node.name());
  }

  const std::optional<LabelSelector>& node_selector() const { return node_selector_; }
  const std::optional<NodeSelector>& affinity() const { return affinity_; }

 private:
  std::optional<LabelSelector> node_selector_;
  std::optional<NodeSelector> affinity_;
};

}  // namespace schedhost::k8s
