// A TCP relay on a free loopback port in front of the test API server, for the faults a test
// makes on the wire: every open connection cut at once (a watch dropped by a load balancer), or
// the server unreachable for a while (a partition). Not a mock: the bytes pass unchanged, TLS
// runs end to end between the client and the real API server.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace schedhost::testing {

class TcpProxy {
 public:
  // Listens on 127.0.0.1 (a free port) and relays each connection to 127.0.0.1:target_port.
  explicit TcpProxy(int target_port);
  ~TcpProxy();  // closes everything and joins its threads
  TcpProxy(const TcpProxy&) = delete;
  TcpProxy& operator=(const TcpProxy&) = delete;

  int port() const { return port_; }
  std::string server() const { return "https://127.0.0.1:" + std::to_string(port_); }

  // Closes every open connection (both ends); new ones are relayed as before.
  void cut();
  // While blocked, open connections are cut and new ones closed as soon as they are accepted.
  void set_blocked(bool blocked);
  // While set, what the server sends is read and thrown away: requests still reach the server,
  // their answers never reach the client (an answer lost on the way; cut() afterwards, as the
  // connections' streams are then broken).
  void set_answers_dropped(bool dropped) { answers_dropped_.store(dropped); }
  // Connections accepted and relayed so far (a reconnecting client makes more).
  int relayed() const { return relayed_.load(); }

 private:
  void accept_loop();

  int listener_ = -1;
  int port_ = 0;
  int target_port_ = 0;
  std::atomic<bool> stopping_{false};
  std::atomic<bool> blocked_{false};
  std::atomic<bool> answers_dropped_{false};
  std::atomic<int> relayed_{0};
  std::mutex mutex_;
  std::set<int> open_;  // both ends of every relayed connection
  std::vector<std::thread> relays_;
  std::thread acceptor_;
};

}  // namespace schedhost::testing
