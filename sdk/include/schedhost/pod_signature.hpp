// schedhost/pod_signature.hpp - what SignPod fills in: the fragments of a pod's signature, for
// opportunistic batching (ABI 1.6; upstream v1.35's SignPlugin).
//
// Two pods with the same signature get the same Filter verdict and the same scores on every
// node, so the host may give the second one the next node of the first one's ranking instead of
// scoring again. A plugin signs every field of the pod its PreFilter, Filter, PreScore and Score
// read; fragments that several plugins read go under the same key with the same value
// (schedhost/k8s/signers.hpp has upstream's shared ones).
#pragma once

#include <schedhost/abi.h>
#include <schedhost/detail/host_table.hpp>

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

namespace schedhost {

class PodSignature {
 public:
  PodSignature(const schedhost_host_api_t* api, schedhost_call_t* call) : api_(api), call_(call) {}

  // Adds the fragment key = value. Lists whose order does not matter should be sorted first.
  // On a host older than ABI 1.6 (which never asks for signatures) it does nothing.
  void add(std::string_view key, const nlohmann::json& value) {
    if (auto fn = detail::host_fn(api_, &schedhost_host_api_t::add_sign_fragment)) {
      const std::string text = value.dump();
      fn(call_, to_str(key), to_str(text));
    }
  }

 private:
  const schedhost_host_api_t* api_;
  schedhost_call_t* call_;
};

}  // namespace schedhost
