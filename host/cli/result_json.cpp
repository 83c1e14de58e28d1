#include "cli/result_json.hpp"

#include "cli/output_text.hpp"

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

Json result_to_json(const scheduler::RunResult& result) {
  Json pods = Json::array();
  for (const scheduler::PodResult& pod : result.pods)
    pods.push_back(pod_to_json(pod));
  const scheduler::RunSummary counts = result.summary();
  Json summary = Json::object();
  summary["scheduled"] = counts.scheduled;
  summary["unschedulable"] = counts.unschedulable;
  summary["skipped"] = counts.skipped;
  summary["errors"] = counts.errors;
  summary["preempted"] = counts.preempted;
  Json out = Json::object();
  out["pods"] = std::move(pods);
  out["summary"] = std::move(summary);
  if (!result.written.empty()) {  // what plugins wrote to the resources they declared (ABI 1.9)
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
    out["written"] = std::move(written);
  }
  return out;
}

void write_json(const scheduler::RunResult& result, std::ostream& out) {
  out << result_to_json(result).dump(2, ' ', false, Json::error_handler_t::replace) << '\n';
}

}  // namespace schedhost::cli
