#include "framework/plugin_exerciser.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <stdexcept>
#include <string_view>

#include "framework/call.hpp"
#include "framework/cycle_state.hpp"
#include "framework/plugin_call_record.hpp"
#include "framework/plugin_events.hpp"

namespace schedhost::framework {
namespace {

using cluster::NodeInfo;

const schedhost_pod_t* exercise_handle(const cluster::Pod& pod) {
  return reinterpret_cast<const schedhost_pod_t*>(&pod);
}
const schedhost_node_t* exercise_handle(const NodeInfo& node) {
  return reinterpret_cast<const schedhost_node_t*>(&node);
}

bool contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// The events the plugin records, logged as run logs them. One thread calls the hooks.
class ExercisedEvents : public PluginEvents {
 public:
  explicit ExercisedEvents(std::vector<ExercisedEvent>& into) : into_(into) {}
  void record(const cluster::Pod& pod, std::string_view plugin, std::string_view type,
              std::string_view reason, std::string_view message, const EventSite& site) override {
    spdlog::info("plugin \"{}\": event {} {} about {}: {}", plugin, type, reason, pod.key(),
                 message);
    into_.push_back({std::string(site.hook), site.node != nullptr ? *site.node : std::string(),
                     pod.key(), std::string(type), std::string(reason), std::string(message)});
  }

 private:
  std::vector<ExercisedEvent>& into_;
};

class Exerciser {
 public:
  Exerciser(const PluginInstance& plugin, const cluster::Snapshot& snapshot,
            const cluster::Pod& pod, const ExerciseOptions& options)
      : plugin_(plugin),
        v_(plugin.vtable()),
        self_(plugin.self()),
        snapshot_(snapshot),
        pod_(pod),
        framework_order_(options.framework_order) {
    for (const NodeInfo& node : snapshot.node_infos())
      all_nodes_.push_back(&node);
    if (options.score_nodes) {
      for (const std::string& name : *options.score_nodes) {
        if (snapshot.find(name) == nullptr) {
          throw std::invalid_argument("score node \"" + name + "\" is not in the snapshot");
        }
      }
      std::vector<const NodeInfo*> picked;
      for (const NodeInfo* node : all_nodes_) {
        if (contains(*options.score_nodes, node->name())) picked.push_back(node);
      }
      score_nodes_ = std::move(picked);
    }
  }

  ExerciseResult run() {
    if (!pre_enqueue()) return std::move(result_);
    std::vector<const NodeInfo*> candidates = all_nodes_;
    bool skip_filter = false;
    if (!pre_filter(candidates, skip_filter)) return std::move(result_);
    std::vector<const NodeInfo*> feasible = candidates;
    if (v_.filter != nullptr && !skip_filter && !filter(candidates, feasible)) {
      return std::move(result_);
    }
    const std::vector<const NodeInfo*> to_score =
        score_nodes_ ? *score_nodes_ : (framework_order_ ? feasible : all_nodes_);
    if (v_.pre_score == nullptr && v_.score == nullptr) return std::move(result_);
    if (framework_order_ && to_score.empty()) return std::move(result_);
    if (!pre_score(to_score)) return std::move(result_);
    if (v_.score != nullptr && score(to_score)) normalize_score();
    return std::move(result_);
  }

 private:
  // Calls hook(call handle) with a fresh Call; the status it returned and the reasons it gave.
  template <class Hook>
  Status call(Call& c, const CallSite& site, Hook&& hook) const {
    schedhost_code_t code = SCHEDHOST_SUCCESS;
    c.set_events(&events_);
    {
      const PluginCallScope scope(plugin_.definition(), site);
      code = hook(c.handle());
    }
    if (code < SCHEDHOST_SUCCESS || code > SCHEDHOST_SKIP) {
      return Status::error("plugin \"" + plugin_.name() + "\" returned unknown status code " +
                           std::to_string(code));
    }
    return Status{code, c.reasons(), {}};
  }

  template <class Hook>
  Status call(const CallSite& site, Hook&& hook) const {
    Call c(&snapshot_, plugin_.name());
    return call(c, site, std::forward<Hook>(hook));
  }

  // Whether to go on.
  bool pre_enqueue() {
    if (v_.pre_enqueue == nullptr) return true;
    result_.pre_enqueue = call({"PreEnqueue", &pod_}, [&](schedhost_call_t* h) {
      return v_.pre_enqueue(self_, h, exercise_handle(pod_));
    });
    return !framework_order_ || result_.pre_enqueue->ok();
  }

  // Whether to go on; with framework order, narrows candidates or sets skip_filter.
  bool pre_filter(std::vector<const NodeInfo*>& candidates, bool& skip_filter) {
    if (v_.pre_filter == nullptr) return true;
    Call c(&snapshot_, plugin_.name());
    result_.pre_filter = call(c, {"PreFilter", &pod_}, [&](schedhost_call_t* h) {
      return v_.pre_filter(self_, h, state_.handle(), exercise_handle(pod_));
    });
    result_.node_names = c.node_names();
    if (!framework_order_) return true;
    if (result_.pre_filter->skipped()) {
      skip_filter = true;
      return true;
    }
    if (!result_.pre_filter->ok()) return false;
    if (result_.node_names) {
      std::erase_if(candidates, [&](const NodeInfo* node) {
        return !contains(*result_.node_names, node->name());
      });
      return !candidates.empty();  // the framework: "node(s) didn't satisfy plugin X"
    }
    return true;
  }

  // Filters every node (framework order: the candidates); feasible gets the nodes that passed.
  // Whether to go on: with framework order, not after a Filter error.
  bool filter(const std::vector<const NodeInfo*>& candidates,
              std::vector<const NodeInfo*>& feasible) {
    feasible.clear();
    bool failed = false;
    result_.filter.emplace();
    state_.set_read_only(true);  // as for the framework's parallel Filter
    for (const NodeInfo* node : framework_order_ ? candidates : all_nodes_) {
      Status s = call({"Filter", &pod_, &node->name()}, [&](schedhost_call_t* h) {
        return v_.filter(self_, h, state_.handle(), exercise_handle(pod_), exercise_handle(*node));
      });
      if (s.ok()) feasible.push_back(node);
      failed = failed || (!s.ok() && !s.rejected());
      result_.filter->emplace_back(node->name(), std::move(s));
    }
    state_.set_read_only(false);
    return !(framework_order_ && failed);
  }

  // Whether to go on to Score: with framework order, only after Success.
  bool pre_score(const std::vector<const NodeInfo*>& nodes) {
    if (v_.pre_score == nullptr) return true;
    std::vector<const schedhost_node_t*> handles;
    handles.reserve(nodes.size());
    for (const NodeInfo* node : nodes)
      handles.push_back(exercise_handle(*node));
    result_.pre_score = call({"PreScore", &pod_}, [&](schedhost_call_t* h) {
      return v_.pre_score(self_, h, state_.handle(), exercise_handle(pod_), handles.data(),
                          handles.size());
    });
    return !framework_order_ || result_.pre_score->ok();
  }

  // Whether to go on to NormalizeScore: with framework order, only when every Score succeeded.
  bool score(const std::vector<const NodeInfo*>& nodes) {
    result_.scores.emplace();
    state_.set_read_only(true);  // as for the framework's parallel Score
    for (const NodeInfo* node : nodes) {
      std::int64_t value = 0;
      Status s = call({"Score", &pod_, &node->name()}, [&](schedhost_call_t* h) {
        return v_.score(self_, h, state_.handle(), exercise_handle(pod_), exercise_handle(*node),
                        &value);
      });
      if (s.ok()) {
        result_.scores->emplace_back(node->name(), value);
      } else {
        result_.score_errors.emplace_back(node->name(), std::move(s));
      }
    }
    state_.set_read_only(false);
    return !(framework_order_ && !result_.score_errors.empty());
  }

  void normalize_score() {
    if (v_.normalize_score == nullptr) return;
    std::vector<schedhost_node_score_t> list;
    list.reserve(result_.scores->size());
    for (const auto& [name, value] : *result_.scores) {
      list.push_back({{name.data(), name.size()}, value});
    }
    result_.normalize_score = call({"NormalizeScore", &pod_}, [&](schedhost_call_t* h) {
      return v_.normalize_score(self_, h, state_.handle(), exercise_handle(pod_), list.data(),
                                list.size());
    });
    if (!result_.normalize_score->ok()) return;
    result_.normalized_scores.emplace();
    for (std::size_t i = 0; i < list.size(); ++i) {
      result_.normalized_scores->emplace_back((*result_.scores)[i].first, list[i].score);
    }
  }

  const PluginInstance& plugin_;
  const schedhost_plugin_vtable_t& v_;
  void* self_;
  const cluster::Snapshot& snapshot_;
  const cluster::Pod& pod_;
  const bool framework_order_;
  std::vector<const NodeInfo*> all_nodes_;
  std::optional<std::vector<const NodeInfo*>> score_nodes_;
  CycleState state_;  // one for the whole sequence, as in one scheduling cycle
  ExerciseResult result_;
  mutable ExercisedEvents events_{result_.events};
};

}  // namespace

ExerciseResult exercise_plugin(const PluginInstance& plugin, const cluster::Snapshot& snapshot,
                               const cluster::Pod& pod, const ExerciseOptions& options) {
  return Exerciser(plugin, snapshot, pod, options).run();
}

}  // namespace schedhost::framework
