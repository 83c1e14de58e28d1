// What one request through libcurl holds from its setup to its answer, shared by ApiClient
// (one request per borrowed connection) and RequestLoop (many on one multiplexed connection).
// Internal to kube/.
#pragma once

#include <curl/curl.h>

#include <atomic>
#include <functional>
#include <string>
#include <string_view>

#include "kube/api_client.hpp"

namespace schedhost::kube {

// What libcurl's callbacks collect for one request.
struct Transfer {
  std::string body;
  const std::function<bool(std::string_view)>* on_data = nullptr;
  const std::atomic<bool>* stop = nullptr;
  bool stopped = false;  // on_data or *stop ended the transfer: not an error
  long retry_after_s = -1;
};

// One request's libcurl state, alive from prepare() until its answer is read: the URL, the body
// and the header lists libcurl points at, and what the callbacks collect.
struct ApiClient::Exchange {
  std::string method;
  std::string path;
  std::string body;
  Transfer t;
  std::string url;
  char error[CURL_ERROR_SIZE] = {0};
  curl_slist* headers = nullptr;
  curl_slist* connect_to = nullptr;
  Exchange() = default;
  Exchange(const Exchange&) = delete;
  Exchange& operator=(const Exchange&) = delete;
  ~Exchange() {
    curl_slist_free_all(headers);
    curl_slist_free_all(connect_to);
  }
};

}  // namespace schedhost::kube
