#include "cli/result_json.hpp"

#include "cli/output_text.hpp"

#include <iterator>
#include <string_view>
#include <utility>

namespace schedhost::cli {
namespace {

using Json = nlohmann::ordered_json;

Json filter_to_json(const scheduler::FilterVerdict& filter) {
  Json out = Json::object();
  out["code"] = valid_utf8(filter.code);
  if (!filter.plugin.empty()) out["plugin"] = valid_utf8(filter.plugin);
  if (!filter.reasons.empty()) {
    Json reasons = Json::array();
    for (const std::string& reason : filter.reasons)
      reasons.push_back(valid_utf8(reason));
    out["reasons"] = std::move(reasons);
  }
  return out;
}

Json node_to_json(const scheduler::NodeExplanation& node) {
  Json out = Json::object();
  out["filter"] = filter_to_json(node.filter);
  if (!node.scores.empty()) {
    Json scores = Json::object();
    for (const auto& [plugin, score] : node.scores)
      scores[valid_utf8(plugin)] = score;
    out["scores"] = std::move(scores);
  }
  if (node.total) out["total"] = *node.total;
  return out;
}

Json explain_to_json(const scheduler::Explanation& explain) {
  Json nodes = Json::object();
  for (const auto& [name, node] : explain.nodes)
    nodes[valid_utf8(name)] = node_to_json(node);
  Json out = Json::object();
  if (explain.reused) {
    out["reused"] = {{"rankedBy", valid_utf8(explain.reused->ranked_by)},
                     {"nodesLeft", explain.reused->left}};
  }
  out["nodes"] = std::move(nodes);
  return out;
}

Json pod_to_json(const scheduler::PodResult& pod) {
  Json out = Json::object();
  out["pod"] = valid_utf8(pod.pod);
  out["profile"] = valid_utf8(pod.profile);
  out["result"] = valid_utf8(pod.result);
  out["node"] = valid_utf8(pod.node);
  out["message"] = valid_utf8(pod.message);
  if (!pod.preempted.empty()) {
    Json preempted = Json::array();
    for (const std::string& victim : pod.preempted)
      preempted.push_back(valid_utf8(victim));
    out["preempted"] = std::move(preempted);
  }
  if (!pod.events.empty()) {
    Json events = Json::array();
    for (const scheduler::PluginEvent& e : pod.events) {
      Json event = Json::object();
      event["plugin"] = valid_utf8(e.plugin);
      event["type"] = valid_utf8(e.type);
      event["reason"] = valid_utf8(e.reason);
      event["message"] = valid_utf8(e.message);
      events.push_back(std::move(event));
    }
    out["events"] = std::move(events);
  }
  if (pod.explain) out["explain"] = explain_to_json(*pod.explain);
  return out;
}

}  // namespace

namespace {

Json summary_to_json(const scheduler::RunResult& result) {
  const scheduler::RunSummary counts = result.summary();
  Json summary = Json::object();
  summary["scheduled"] = counts.scheduled;
  summary["unschedulable"] = counts.unschedulable;
  summary["skipped"] = counts.skipped;
  summary["errors"] = counts.errors;
  summary["preempted"] = counts.preempted;
  return summary;
}

// What plugins wrote to the resources they declared (ABI 1.9).
Json written_to_json(const scheduler::RunResult& result) {
  Json written = Json::array();
  for (const scheduler::WrittenObject& w : result.written) {
    Json entry = Json::object();
    entry["resource"] = w.resource;
    entry["object"] = valid_utf8(w.key);
    if (w.object.is_null()) {
      entry["deleted"] = true;
    } else {
      entry["state"] = Json::parse(w.object.dump());
    }
    written.push_back(std::move(entry));
  }
  return written;
}

}  // namespace

Json result_to_json(const scheduler::RunResult& result) {
  Json pods = Json::array();
  for (const scheduler::PodResult& pod : result.pods)
    pods.push_back(pod_to_json(pod));
  Json out = Json::object();
  out["pods"] = std::move(pods);
  out["summary"] = summary_to_json(result);
  if (!result.written.empty()) out["written"] = written_to_json(result);
  return out;
}

namespace {

// The output is written as it is made rather than built as one tree first: at 10,000 pods the
// tree took longer to build and free than to print. The bytes are result_to_json's dump(2).

// s as nlohmann's dump writes a string without ensure_ascii, bytes that are not UTF-8 replaced
// (append_json_string), through one buffer kept for the thread.
void write_string(std::ostream& out, std::string_view s) {
  thread_local std::string text;
  text.clear();
  append_json_string(text, s);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
}

// value.dump(2) as it reads `depth` levels into the document (each line after the first
// indented by 2 × depth more); a string value never holds a raw newline.
void write_nested(std::ostream& out, const Json& value, std::size_t depth) {
  const std::string text = value.dump(2, ' ', false, Json::error_handler_t::replace);
  const std::string pad(2 * depth, ' ');
  std::size_t start = 0;
  for (std::size_t nl = text.find('\n'); nl != std::string::npos; nl = text.find('\n', start)) {
    out.write(text.data() + start, static_cast<std::streamsize>(nl + 1 - start));
    out << pad;
    start = nl + 1;
  }
  out.write(text.data() + start, static_cast<std::streamsize>(text.size() - start));
}

// One entry of "pods" (depth 2): the plain fields directly, an entry with more through
// pod_to_json.
void write_pod(std::ostream& out, const scheduler::PodResult& pod) {
  if (!pod.preempted.empty() || !pod.events.empty() || pod.explain) {
    write_nested(out, pod_to_json(pod), 2);
    return;
  }
  const std::pair<const char*, const std::string*> fields[] = {{"pod", &pod.pod},
                                                               {"profile", &pod.profile},
                                                               {"result", &pod.result},
                                                               {"node", &pod.node},
                                                               {"message", &pod.message}};
  out << "{\n";
  for (std::size_t i = 0; i < std::size(fields); ++i) {
    out << "      \"" << fields[i].first << "\": ";
    write_string(out, *fields[i].second);
    out << (i + 1 < std::size(fields) ? ",\n" : "\n");
  }
  out << "    }";
}

}  // namespace

void write_json(const scheduler::RunResult& result, std::ostream& out) {
  out << "{\n  \"pods\": ";
  if (result.pods.empty()) {
    out << "[]";
  } else {
    out << "[\n";
    for (std::size_t i = 0; i < result.pods.size(); ++i) {
      out << "    ";
      write_pod(out, result.pods[i]);
      out << (i + 1 < result.pods.size() ? ",\n" : "\n");
    }
    out << "  ]";
  }
  out << ",\n  \"summary\": ";
  write_nested(out, summary_to_json(result), 1);
  if (!result.written.empty()) {
    out << ",\n  \"written\": ";
    write_nested(out, written_to_json(result), 1);
  }
  out << "\n}\n";
}

}  // namespace schedhost::cli
