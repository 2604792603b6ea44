#include "serve/http_guard.h"

#include <dirent.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <cstdlib>

namespace plasmient::serve {
namespace {

// The local port of a connected TCP socket, or -1.
int LocalPort(int fd) {
  sockaddr_storage local{};
  socklen_t n = sizeof local;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&local), &n) != 0) return -1;
  if (local.ss_family == AF_INET) return ntohs(reinterpret_cast<sockaddr_in*>(&local)->sin_port);
  if (local.ss_family == AF_INET6) return ntohs(reinterpret_cast<sockaddr_in6*>(&local)->sin6_port);
  return -1;
}

}  // namespace

void SlowClientReaper::Start(int port, std::chrono::milliseconds deadline) {
  port_ = port;
  deadline_ = deadline;
  thread_ = std::thread([this] {
    std::unique_lock lock(mu_);
    while (!cv_.wait_for(lock, deadline_ / 4, [this] { return stop_; })) {
      lock.unlock();
      Scan();
      lock.lock();
    }
  });
}

void SlowClientReaper::Stop() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void SlowClientReaper::Scan() {
  DIR* dir = ::opendir("/proc/self/fd");
  if (!dir) return;
  auto limit_ms = static_cast<std::uint32_t>(deadline_.count());
  while (dirent* e = ::readdir(dir)) {
    int fd = std::atoi(e->d_name);
    struct stat st {};
    if (fd <= 2 || fd == ::dirfd(dir) || ::fstat(fd, &st) != 0 || !S_ISSOCK(st.st_mode)) continue;
    sockaddr_storage peer{};
    socklen_t n = sizeof peer;
    // Accepted connections only: serve's port on our side, a peer on the other (not the listener,
    // not the ClickHouse client's sockets).
    if (LocalPort(fd) != port_ || ::getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &n) != 0) continue;
    tcp_info info{};
    socklen_t len = sizeof info;
    if (::getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &len) != 0) continue;
    if (info.tcpi_last_data_sent > limit_ms) {
      ::shutdown(fd, SHUT_RDWR);  // the thread's read returns at once; it closes the socket
      ++closed_;
    }
  }
  ::closedir(dir);
}

}  // namespace plasmient::serve
