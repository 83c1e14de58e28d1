#include "live/tcp_proxy.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <stdexcept>

namespace schedhost::testing {
namespace {

sockaddr_in loopback(int port) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  return addr;
}

// Writes all of data; false when the peer is gone.
bool write_all(int fd, const char* data, ssize_t size) {
  while (size > 0) {
    const ssize_t n = send(fd, data, static_cast<std::size_t>(size), MSG_NOSIGNAL);
    if (n <= 0) return false;
    data += n;
    size -= n;
  }
  return true;
}

}  // namespace

TcpProxy::TcpProxy(int target_port) : target_port_(target_port) {
  listener_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr = loopback(0);
  socklen_t len = sizeof addr;
  if (listener_ < 0 || bind(listener_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      listen(listener_, 64) != 0 ||
      getsockname(listener_, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    throw std::runtime_error("tcp proxy: cannot listen on 127.0.0.1");
  }
  port_ = ntohs(addr.sin_port);
  acceptor_ = std::thread([this] { accept_loop(); });
}

TcpProxy::~TcpProxy() {
  stopping_.store(true);
  acceptor_.join();
  close(listener_);
  cut();
  for (std::thread& t : relays_)
    t.join();
}

void TcpProxy::cut() {
  std::lock_guard lock(mutex_);
  for (int fd : open_)
    shutdown(fd, SHUT_RDWR);
}

void TcpProxy::set_blocked(bool blocked) {
  blocked_.store(blocked);
  if (blocked) cut();
}

void TcpProxy::accept_loop() {
  while (!stopping_.load()) {
    pollfd p{listener_, POLLIN, 0};
    if (poll(&p, 1, 50) <= 0) continue;
    const int client = accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
    if (client < 0) continue;
    if (blocked_.load()) {
      close(client);
      continue;
    }
    const int upstream = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    const sockaddr_in target = loopback(target_port_);
    if (upstream < 0 ||
        connect(upstream, reinterpret_cast<const sockaddr*>(&target), sizeof target) != 0) {
      if (upstream >= 0) close(upstream);
      close(client);  // the API server is down: the client sees the connection refused
      continue;
    }
    {
      std::lock_guard lock(mutex_);
      open_.insert(client);
      open_.insert(upstream);
    }
    ++relayed_;
    relays_.emplace_back([this, client, upstream] {
      std::array<pollfd, 2> fds{pollfd{client, POLLIN, 0}, pollfd{upstream, POLLIN, 0}};
      std::array<char, 16384> buffer{};
      bool open = true;
      while (open && !stopping_.load()) {
        if (poll(fds.data(), fds.size(), 100) <= 0) continue;
        for (int i = 0; i < 2 && open; ++i) {
          if (fds[i].revents == 0) continue;
          const ssize_t n = read(fds[i].fd, buffer.data(), buffer.size());
          const bool dropped = i == 1 && answers_dropped_.load();  // the server's side
          open = n > 0 && (dropped || write_all(fds[1 - i].fd, buffer.data(), n));
        }
      }
      std::lock_guard lock(mutex_);
      open_.erase(client);
      open_.erase(upstream);
      shutdown(client, SHUT_RDWR);
      shutdown(upstream, SHUT_RDWR);
      close(client);
      close(upstream);
    });
  }
}

}  // namespace schedhost::testing
