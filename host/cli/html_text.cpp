#include "cli/html_text.hpp"

#include <algorithm>

#include "cli/output_text.hpp"

namespace schedhost::cli {

std::string html_escape(std::string_view text) {
  const std::string valid = valid_utf8(std::string(text));
  std::string out;
  out.reserve(valid.size());
  for (char c : valid) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string script_json(const nlohmann::ordered_json& value) {
  const std::string text =
      value.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '<') {
      out += "\\u003c";
    } else if (c == '>') {
      out += "\\u003e";
    } else if (c == '&') {
      out += "\\u0026";
    } else if (c == '\xE2' && i + 2 < text.size() && text[i + 1] == '\x80' &&
               (text[i + 2] == '\xA8' || text[i + 2] == '\xA9')) {
      out += text[i + 2] == '\xA8' ? "\\u2028" : "\\u2029";
      i += 2;
    } else {
      out += c;
    }
  }
  return out;
}

void write_page_head(std::ostream& out, std::string_view title, std::string_view css,
                     bool with_script) {
  out << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      << "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
      << "style-src 'unsafe-inline'" << (with_script ? "; script-src 'unsafe-inline'" : "")
      << "\"><title>" << html_escape(title) << "</title><style>" << css
      << "</style></head><body>\n";
}

std::string score_style(std::int64_t score) {
  return "background:hsl(" + std::to_string(std::clamp<std::int64_t>(score, 0, 100) * 6 / 5) +
         ",70%,85%)";
}

}  // namespace schedhost::cli
