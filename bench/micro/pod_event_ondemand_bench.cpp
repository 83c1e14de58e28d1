#include "micro/pod_event_ondemand.hpp"

#include <simdjson.h>

#include <cstdint>
#include <string_view>
#include <vector>

namespace schedhost_bench {
namespace {

// The fields a scheduler's Pod is built from, read on demand; any error ends the read.
struct PodFields {
  std::string_view type, name, ns, uid, resource_version, node_name, scheduler_name, phase;
  std::string_view raw_object;
  std::int64_t priority = 0;
  std::size_t labels = 0, tolerations = 0, ports = 0;
  std::vector<std::string_view> cpu, memory;
};

simdjson::error_code read_pod(simdjson::ondemand::document& doc, PodFields& out) {
  using simdjson::ondemand::object;
  using simdjson::ondemand::value;
  object event;
  if (auto e = doc.get_object().get(event)) return e;
  if (auto e = event["type"].get_string().get(out.type)) return e;
  object pod;
  if (auto e = event["object"].get_object().get(pod)) return e;
  if (auto e = pod.raw_json().get(out.raw_object)) return e;
  pod.reset();
  for (auto field : pod) {
    std::string_view key;
    if (auto e = field.unescaped_key().get(key)) return e;
    value v = field.value();
    if (key == "metadata") {
      for (auto m : v.get_object()) {
        std::string_view mk;
        if (auto e = m.unescaped_key().get(mk)) return e;
        if (mk == "name") {
          if (auto e = m.value().get_string().get(out.name)) return e;
        } else if (mk == "namespace") {
          if (auto e = m.value().get_string().get(out.ns)) return e;
        } else if (mk == "uid") {
          if (auto e = m.value().get_string().get(out.uid)) return e;
        } else if (mk == "resourceVersion") {
          if (auto e = m.value().get_string().get(out.resource_version)) return e;
        } else if (mk == "labels") {
          for (auto label : m.value().get_object()) {
            (void)label;
            ++out.labels;
          }
        }
      }
    } else if (key == "spec") {
      for (auto s : v.get_object()) {
        std::string_view sk;
        if (auto e = s.unescaped_key().get(sk)) return e;
        if (sk == "nodeName") {
          if (auto e = s.value().get_string().get(out.node_name)) return e;
        } else if (sk == "schedulerName") {
          if (auto e = s.value().get_string().get(out.scheduler_name)) return e;
        } else if (sk == "priority") {
          if (auto e = s.value().get_int64().get(out.priority)) return e;
        } else if (sk == "tolerations") {
          for (auto t : s.value().get_array()) {
            (void)t;
            ++out.tolerations;
          }
        } else if (sk == "containers") {
          for (auto c : s.value().get_array()) {
            object container;
            if (auto e = c.get_object().get(container)) return e;
            for (auto cf : container) {
              std::string_view ck;
              if (auto e = cf.unescaped_key().get(ck)) return e;
              if (ck == "ports") {
                for (auto p : cf.value().get_array()) {
                  (void)p;
                  ++out.ports;
                }
              } else if (ck == "resources") {
                object requests;
                if (cf.value()["requests"].get_object().get(requests) == simdjson::SUCCESS) {
                  std::string_view q;
                  if (requests.find_field_unordered("cpu").get_string().get(q) ==
                      simdjson::SUCCESS) {
                    out.cpu.push_back(q);
                  }
                  if (requests.find_field_unordered("memory").get_string().get(q) ==
                      simdjson::SUCCESS) {
                    out.memory.push_back(q);
                  }
                }
              }
            }
          }
        }
      }
    } else if (key == "status") {
      std::string_view phase;
      if (v["phase"].get_string().get(phase) == simdjson::SUCCESS) out.phase = phase;
    }
  }
  return simdjson::SUCCESS;
}

void on_demand(benchmark::State& st, const std::string& line) {
  simdjson::ondemand::parser parser;
  for (auto _ : st) {
    const simdjson::padded_string padded(line);
    simdjson::ondemand::document doc;
    PodFields fields;
    if (parser.iterate(padded).get(doc) != simdjson::SUCCESS || read_pod(doc, fields) ||
        fields.uid.empty() || fields.cpu.size() != 1) {
      st.SkipWithError("read");
      break;
    }
    benchmark::DoNotOptimize(fields);
  }
  st.SetBytesProcessed(static_cast<std::int64_t>(st.iterations() * line.size()));
}

}  // namespace

void pod_event_on_demand(benchmark::State& st, const std::string& line) {
  on_demand(st, line);
}

}  // namespace schedhost_bench
