// Objects and look-ups the live write tests share.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "kube/api_client.hpp"

namespace schedhost::testing {

// A pending pod of the default scheduler, one container without requests (BestEffort).
inline nlohmann::json pending_pod(const std::string& name) {
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", name}, {"namespace", "default"}}},
          {"spec",
           {{"containers", nlohmann::json::array(
                               {{{"name", "app"}, {"image", "registry.k8s.io/pause:3.10"}}})}}}};
}

inline std::string pod_path(const std::string& name) {
  return "/api/v1/namespaces/default/pods/" + name;
}

// The pod's condition of that type, null when it has none.
inline nlohmann::json condition_of(const nlohmann::json& pod, const std::string& type) {
  const nlohmann::json conditions =
      pod.value("status", nlohmann::json::object()).value("conditions", nlohmann::json::array());
  for (const nlohmann::json& c : conditions) {
    if (c.value("type", "") == type) return c;
  }
  return nullptr;
}

// The events.k8s.io/v1 Events in "default" about the object named regarding.
inline nlohmann::json events_about(kube::ApiClient& client, const std::string& regarding) {
  nlohmann::json out = nlohmann::json::array();
  const nlohmann::json list = client.get("/apis/events.k8s.io/v1/namespaces/default/events");
  for (const nlohmann::json& e : list["items"]) {
    if (e["regarding"].value("name", "") == regarding) out.push_back(e);
  }
  return out;
}

}  // namespace schedhost::testing
