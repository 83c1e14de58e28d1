// schedhost/k8s/label_selector_text.hpp - label selectors in their string form, as `kubectl get
// -l` and the labelSelector= query parameter write them: parsed and matched as upstream's
// k8s.io/apimachinery/pkg/labels.Parse. Header-only: the host's object_select (ABI 1.9), run's
// answers to a list, and the fake host share it, and plugins may use it too.
#pragma once

#include <schedhost/k8s/label_selector.hpp>
#include <schedhost/k8s/validation.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace schedhost::k8s {

// A parsed selector: every requirement must hold (AND).
class LabelSelectorText {
 public:
  // Parses "app=web,tier in (front,back),!canary,env!=prod,version>3,x" as upstream's
  // labels.Parse does. Throws std::invalid_argument with a one-line message saying what is wrong
  // and where (e.g. `label selector "app in (a": expected ")" at column 10`). "" and
  // whitespace-only select everything. `in ()` is `in ("")`, as upstream reads it.
  static LabelSelectorText parse(std::string_view text);

  // Whether labels (any map-like lookup: give it a function returning nullopt for an absent key)
  // satisfy every requirement.
  bool matches(
      const std::function<std::optional<std::string_view>(std::string_view key)>& label) const;

  // No requirement: selects everything.
  bool empty() const { return requirements_.empty(); }

 private:
  class Parser;

  // = and == are kIn with one value, != is kNotIn with one value: upstream matches them alike.
  enum class Operator { kIn, kNotIn, kExists, kDoesNotExist, kGreaterThan, kLessThan };

  struct Requirement {
    std::string key;
    Operator op = Operator::kExists;
    std::vector<std::string> values;  // kIn, kNotIn
    std::int64_t bound = 0;           // kGreaterThan, kLessThan

    // nullopt: the label is absent.
    bool matches(std::optional<std::string_view> value) const;
  };

  std::vector<Requirement> requirements_;
};

// Upstream's lexer and parser (labels.Lexer, labels.Parser) in one pass over a token list.
// Everything lives in this class so that a unity build cannot mix its names with another file's.
class LabelSelectorText::Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) { tokenize(); }

  std::vector<Requirement> parse() {
    std::vector<Requirement> requirements;
    if (peek().kind == Kind::kEnd) return requirements;
    bool after_comma = false;
    while (true) {
      requirements.push_back(requirement(after_comma));
      const Token& t = take();
      if (t.kind == Kind::kEnd) return requirements;
      if (t.kind != Kind::kComma) expected(R"("," or the end of the selector)", t);
      after_comma = true;
    }
  }

 private:
  enum class Kind {
    kIdentifier,  // keys, values, and the keywords in/notin (keywords only where an operator goes)
    kBang,
    kNotEquals,
    kEquals,
    kDoubleEquals,
    kGreater,
    kLess,
    kOpenParen,
    kCloseParen,
    kComma,
    kEnd,
  };

  struct Token {
    Kind kind;
    std::string_view text;  // as written; empty for kEnd
    std::size_t offset;     // into the selector; its length for kEnd
  };

  // upstream's isWhitespace: only these four; anything else is part of an identifier.
  static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }
  static bool is_symbol(char c) {
    return c == '=' || c == '!' || c == '(' || c == ')' || c == ',' || c == '>' || c == '<';
  }

  void tokenize() {
    std::size_t i = 0;
    while (true) {
      while (i < text_.size() && is_space(text_[i]))
        ++i;
      if (i == text_.size()) break;
      const std::size_t start = i;
      const char c = text_[i];
      Kind kind = Kind::kIdentifier;
      if (!is_symbol(c)) {
        while (i < text_.size() && !is_space(text_[i]) && !is_symbol(text_[i]))
          ++i;
      } else if ((c == '!' || c == '=') && i + 1 < text_.size() && text_[i + 1] == '=') {
        // The longest symbol wins, as upstream's scanSpecialSymbol: "!=" and "==".
        kind = c == '!' ? Kind::kNotEquals : Kind::kDoubleEquals;
        i += 2;
      } else {
        kind = c == '!'   ? Kind::kBang
               : c == '=' ? Kind::kEquals
               : c == '>' ? Kind::kGreater
               : c == '<' ? Kind::kLess
               : c == '(' ? Kind::kOpenParen
               : c == ')' ? Kind::kCloseParen
                          : Kind::kComma;
        ++i;
      }
      tokens_.push_back(Token{kind, text_.substr(start, i - start), start});
    }
    tokens_.push_back(Token{Kind::kEnd, {}, text_.size()});
  }

  const Token& peek() const { return tokens_[next_]; }
  // At the end, keeps returning kEnd.
  const Token& take() {
    const Token& t = tokens_[next_];
    if (next_ + 1 < tokens_.size()) ++next_;
    return t;
  }

  // [!]key [operator value | in/notin (values)]
  Requirement requirement(bool after_comma) {
    Requirement r;
    const Token& first = take();
    const bool negated = first.kind == Kind::kBang;
    const Token& key = negated ? take() : first;
    if (key.kind != Kind::kIdentifier) {
      expected(negated       ? R"(a label key after "!")"
               : after_comma ? R"(a label key or "!" after ",")"
                             : R"(a label key or "!")",
               key);
    }
    if (auto errs = is_qualified_name(key.text); !errs.empty()) {
      fail("invalid label key " + go_quote(key.text), key.offset, join(errs, "; "));
    }
    r.key = std::string(key.text);
    if (negated) {
      r.op = Operator::kDoesNotExist;
      return r;
    }
    if (peek().kind == Kind::kEnd || peek().kind == Kind::kComma) {
      r.op = Operator::kExists;
      return r;
    }
    const Token& op = take();
    switch (op.kind) {
      case Kind::kEquals:
      case Kind::kDoubleEquals:
      case Kind::kNotEquals:
        r.op = op.kind == Kind::kNotEquals ? Operator::kNotIn : Operator::kIn;
        r.values.push_back(exact_value(op));
        return r;
      case Kind::kGreater:
      case Kind::kLess:
        r.op = op.kind == Kind::kGreater ? Operator::kGreaterThan : Operator::kLessThan;
        r.bound = integer_value(op);
        return r;
      case Kind::kIdentifier:
        if (op.text == "in" || op.text == "notin") {
          r.op = op.text == "in" ? Operator::kIn : Operator::kNotIn;
          r.values = value_set(op);
          return r;
        }
        break;
      default:
        break;
    }
    expected(R"(an operator (=, ==, !=, in, notin, >, <) or ",")", op);
  }

  // After = == !=: one value, which may be empty (`app=` selects the value "").
  std::string exact_value(const Token& op) {
    const Token& t = peek();
    if (t.kind == Kind::kEnd || t.kind == Kind::kComma) return {};
    take();
    if (t.kind != Kind::kIdentifier) expected("a value after " + go_quote(op.text), t);
    validate_value(t);
    return std::string(t.text);
  }

  // After > <: an integer (Go's strconv.ParseInt) that is also a label value, as upstream's
  // NewRequirement checks both ("-3" is an integer but not a label value).
  std::int64_t integer_value(const Token& op) {
    const Token& t = take();
    const std::optional<std::int64_t> n =
        t.kind == Kind::kIdentifier ? parse_int64(t.text) : std::nullopt;
    if (!n) expected("an integer after " + go_quote(op.text), t);
    validate_value(t);
    return *n;
  }

  // After in/notin: "(" values ")". As upstream, commas separate values that may be empty:
  // "(a,,b)", "(a,)", "(,)" and "()" all hold "".
  std::vector<std::string> value_set(const Token& op) {
    const Token& open = take();
    if (open.kind != Kind::kOpenParen) expected(R"("(" after )" + go_quote(op.text), open);
    std::vector<std::string> values;
    while (true) {
      const Token& t = peek();
      if (t.kind == Kind::kIdentifier) {
        take();
        validate_value(t);
        values.emplace_back(t.text);
      } else if (t.kind == Kind::kComma || t.kind == Kind::kCloseParen) {
        values.emplace_back();
      } else {
        unclosed_or_expected("a value, \",\" or \")\"", t);
      }
      const Token& separator = take();
      if (separator.kind == Kind::kCloseParen) break;
      if (separator.kind != Kind::kComma) unclosed_or_expected("\",\" or \")\"", separator);
    }
    std::sort(values.begin(), values.end());
    values.erase(std::unique(values.begin(), values.end()), values.end());
    return values;
  }

  void validate_value(const Token& t) const {
    if (auto errs = is_valid_label_value(t.text); !errs.empty()) {
      fail("invalid label value " + go_quote(t.text), t.offset, join(errs, "; "));
    }
  }

  // Inside a set, running out of text means the ")" is missing, whatever came last.
  [[noreturn]] void unclosed_or_expected(const std::string& what, const Token& found) const {
    expected(found.kind == Kind::kEnd ? "\")\"" : what, found);
  }

  [[noreturn]] void expected(const std::string& what, const Token& found) const {
    std::string problem = "expected " + what;
    if (found.kind != Kind::kEnd) problem += ", found " + go_quote(found.text);
    fail(problem, found.offset);
  }

  // `label selector "<text>": <problem> at column <n>[: <detail>]`, columns counted in bytes from
  // 1; the text quoted as Go's %q, so that the message stays on one line.
  [[noreturn]] void fail(const std::string& problem, std::size_t offset,
                         const std::string& detail = {}) const {
    std::string message = "label selector " + go_quote(text_) + ": " + problem + " at column " +
                          std::to_string(offset + 1);
    if (!detail.empty()) message += ": " + detail;
    throw std::invalid_argument(message);
  }

  std::string_view text_;
  std::vector<Token> tokens_;
  std::size_t next_ = 0;
};

inline LabelSelectorText LabelSelectorText::parse(std::string_view text) {
  LabelSelectorText selector;
  selector.requirements_ = Parser(text).parse();
  return selector;
}

inline bool LabelSelectorText::matches(
    const std::function<std::optional<std::string_view>(std::string_view key)>& label) const {
  return std::all_of(requirements_.begin(), requirements_.end(),
                     [&](const Requirement& r) { return r.matches(label(r.key)); });
}

inline bool LabelSelectorText::Requirement::matches(std::optional<std::string_view> value) const {
  const auto has = [&] { return std::find(values.begin(), values.end(), *value) != values.end(); };
  switch (op) {
    case Operator::kIn:
      return value && has();
    case Operator::kNotIn:
      return !value || !has();
    case Operator::kExists:
      return value.has_value();
    case Operator::kDoesNotExist:
      return !value;
    case Operator::kGreaterThan:
    case Operator::kLessThan: {
      // A label that is not an integer does not match either way, as upstream.
      const std::optional<std::int64_t> n = value ? parse_int64(*value) : std::nullopt;
      if (!n) return false;
      return op == Operator::kGreaterThan ? *n > bound : *n < bound;
    }
  }
  return false;
}

}  // namespace schedhost::k8s
