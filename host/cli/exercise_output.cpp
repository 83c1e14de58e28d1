#include "cli/exercise_output.hpp"

#include <string>
#include <vector>

#include "cli/output_text.hpp"
#include "cli/table.hpp"

namespace schedhost::cli {
namespace {

using Json = nlohmann::ordered_json;
using framework::ExerciseResult;
using framework::PerNode;
using framework::Status;

Json status_json(const Status& status) {
  Json reasons = Json::array();
  for (const std::string& reason : status.reasons)
    reasons.push_back(valid_utf8(reason));
  Json out = Json::object();
  out["code"] = framework::code_name(status.code);
  out["reasons"] = std::move(reasons);
  return out;
}

Json per_node_json(const PerNode<Status>& statuses) {
  Json out = Json::object();
  for (const auto& [node, status] : statuses)
    out[valid_utf8(node)] = status_json(status);
  return out;
}

Json scores_json(const PerNode<std::int64_t>& scores) {
  Json out = Json::object();
  for (const auto& [node, score] : scores)
    out[valid_utf8(node)] = score;
  return out;
}

Json result_json(const std::string& plugin, const ExerciseResult& r) {
  Json out = Json::object();
  out["plugin"] = plugin;
  if (r.pre_enqueue) out["preEnqueue"] = status_json(*r.pre_enqueue);
  if (r.pre_filter) {
    out["preFilter"] = status_json(*r.pre_filter);
    if (r.node_names) {
      Json names = Json::array();
      for (const std::string& name : *r.node_names)
        names.push_back(valid_utf8(name));
      out["preFilter"]["nodeNames"] = std::move(names);
    }
  }
  if (r.filter) out["filter"] = per_node_json(*r.filter);
  if (r.pre_score) out["preScore"] = status_json(*r.pre_score);
  if (r.scores) out["scores"] = scores_json(*r.scores);
  if (!r.score_errors.empty()) out["scoreErrors"] = per_node_json(r.score_errors);
  if (r.normalize_score && !r.normalize_score->ok()) {
    out["normalizeScore"] = status_json(*r.normalize_score);
  }
  if (r.normalized_scores) out["normalizedScores"] = scores_json(*r.normalized_scores);
  if (!r.events.empty()) {  // Context::record_event (ABI 1.9), in the order recorded
    Json events = Json::array();
    for (const framework::ExercisedEvent& e : r.events) {
      Json event = Json::object();
      event["hook"] = e.hook;
      if (!e.node.empty()) event["node"] = valid_utf8(e.node);
      event["type"] = e.type;
      event["reason"] = e.reason;
      event["message"] = valid_utf8(e.message);
      events.push_back(std::move(event));
    }
    out["events"] = std::move(events);
  }
  return out;
}

std::string join(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& part : parts)
    out += (out.empty() ? "" : ", ") + part;
  return out;
}

template <class T>
const T* find_node(const PerNode<T>& list, const std::string& node) {
  for (const auto& [name, value] : list) {
    if (name == node) return &value;
  }
  return nullptr;
}

// The pod-level hooks: POINT CODE REASONS, then PreFilter's narrowing.
void print_points(const std::string& plugin, const ExerciseResult& r, std::ostream& out) {
  out << "plugin: " << one_line(plugin) << '\n';
  Table points({"POINT", "CODE", "REASONS"});
  bool any = false;
  auto row = [&](const char* point, const std::optional<Status>& s) {
    if (!s) return;
    points.add_row({point, std::string(framework::code_name(s->code)), one_line(s->message())});
    any = true;
  };
  row("PreEnqueue", r.pre_enqueue);
  row("PreFilter", r.pre_filter);
  row("PreScore", r.pre_score);
  row("NormalizeScore", r.normalize_score);
  if (!any) return;
  out << '\n';
  points.print(out);
  if (r.node_names) {
    out << "PreFilter kept "
        << (r.node_names->empty() ? "no node" : "nodes: " + one_line(join(*r.node_names))) << '\n';
  }
}

// The per-node hooks: NODE [FILTER REASONS] [SCORE] [NORMALIZED], snapshot order.
void print_nodes(const ExerciseResult& r, const cluster::Snapshot& snapshot, std::ostream& out) {
  std::vector<std::string> header = {"NODE"};
  if (r.filter) header.insert(header.end(), {"FILTER", "REASONS"});
  if (r.scores) header.emplace_back("SCORE");
  if (r.normalized_scores) header.emplace_back("NORMALIZED");
  Table table(header);
  bool any = false;
  for (const cluster::NodeInfo& node : snapshot.node_infos()) {
    const Status* filter = r.filter ? find_node(*r.filter, node.name()) : nullptr;
    const std::int64_t* score = r.scores ? find_node(*r.scores, node.name()) : nullptr;
    const Status* score_error = find_node(r.score_errors, node.name());
    if (filter == nullptr && score == nullptr && score_error == nullptr) continue;
    std::vector<std::string> row = {one_line(node.name())};
    if (r.filter) {
      row.emplace_back(filter ? std::string(framework::code_name(filter->code)) : "-");
      row.emplace_back(filter ? one_line(filter->message()) : "");
    }
    if (r.scores) {
      row.emplace_back(score         ? std::to_string(*score)
                       : score_error ? std::string(framework::code_name(score_error->code)) + ": " +
                                           one_line(score_error->message())
                                     : "-");
    }
    if (r.normalized_scores) {
      const std::int64_t* normalized = find_node(*r.normalized_scores, node.name());
      row.emplace_back(normalized ? std::to_string(*normalized) : "-");
    }
    table.add_row(std::move(row));
    any = true;
  }
  if (!any) return;
  out << '\n';
  table.print(out);
}

}  // namespace

nlohmann::ordered_json exercise_json(const std::string& plugin, const ExerciseResult& result) {
  return result_json(plugin, result);
}

void print_exercise_tables(const std::string& plugin, const ExerciseResult& result,
                           const cluster::Snapshot& snapshot, std::ostream& out) {
  print_points(plugin, result, out);
  print_nodes(result, snapshot, out);
}

}  // namespace schedhost::cli
