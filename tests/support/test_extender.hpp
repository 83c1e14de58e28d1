// A real HTTP extender for the tests: cpp-httplib on a free 127.0.0.1 port, in a thread, whose
// answer to each verb a test sets; it keeps every request it got, for the test to check what
// schedhost sent. Stopped (and joined) by its destructor.
#pragma once

#include <arpa/inet.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace schedhost::testing {

class TestExtender {
 public:
  // The answer to a request's JSON body: HTTP status and body.
  using Handler = std::function<std::pair<int, std::string>(const nlohmann::json& request)>;

  // prefix: the urlPrefix's path; verbs are served under it.
  explicit TestExtender(std::string prefix = "/ext") : prefix_(std::move(prefix)) {
    server_.Post(prefix_ + R"(/(\w+))",
                 [this](const httplib::Request& req, httplib::Response& res) {
                   const std::string verb = req.matches[1];
                   Handler handler;
                   {
                     const std::lock_guard<std::mutex> lock(mutex_);
                     requests_[verb].push_back(nlohmann::json::parse(req.body, nullptr, false));
                     if (auto it = handlers_.find(verb); it != handlers_.end())
                       handler = it->second;
                   }
                   if (!handler) {
                     res.status = 404;
                     return;
                   }
                   auto [status, body] = handler(requests_at(verb).back());
                   res.status = status;
                   res.set_content(body, "application/json");
                 });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    // This cpp-httplib has no wait_until_ready: the socket listens already, the loop starts soon.
    for (int i = 0; i < 5000 && !server_.is_running(); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~TestExtender() {
    server_.stop();
    thread_.join();
  }
  TestExtender(const TestExtender&) = delete;
  TestExtender& operator=(const TestExtender&) = delete;

  // The urlPrefix to configure.
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + prefix_; }
  int port() const { return port_; }

  void on(const std::string& verb, Handler handler) {
    const std::lock_guard<std::mutex> lock(mutex_);
    handlers_[verb] = std::move(handler);
  }
  // Always the same answer.
  void answer(const std::string& verb, int status, std::string body) {
    on(verb, [status, body = std::move(body)](const nlohmann::json&) {
      return std::make_pair(status, body);
    });
  }
  std::vector<nlohmann::json> requests_at(const std::string& verb) const {
    const std::lock_guard<std::mutex> lock(mutex_);
    auto it = requests_.find(verb);
    return it == requests_.end() ? std::vector<nlohmann::json>{} : it->second;
  }

 private:
  std::string prefix_;
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  mutable std::mutex mutex_;
  std::map<std::string, Handler> handlers_;
  std::map<std::string, std::vector<nlohmann::json>> requests_;
};

// A 127.0.0.1 port nothing listens on: bound, read and closed at once.
inline int unused_loopback_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t size = sizeof address;
  ::bind(fd, reinterpret_cast<sockaddr*>(&address), size);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &size);
  ::close(fd);
  return ntohs(address.sin_port);
}

// The node names of an ExtenderArgs, from Nodes or NodeNames.
inline std::vector<std::string> node_names_of(const nlohmann::json& args) {
  std::vector<std::string> names;
  if (args["NodeNames"].is_array()) {
    for (const auto& n : args["NodeNames"])
      names.push_back(n.get<std::string>());
  } else {
    for (const auto& n : args["Nodes"]["items"])
      names.push_back(n["metadata"]["name"].get<std::string>());
  }
  return names;
}

}  // namespace schedhost::testing
