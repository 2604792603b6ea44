#include "serve/http_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "base/text.h"

namespace plasmient::serve {
namespace {

// After an error response the connection is read and dropped for this long (or this many bytes)
// before it is closed: closing with unread input sends a reset, which can destroy the response
// before the client reads it.
constexpr auto kLingerTime = std::chrono::milliseconds(1000);
constexpr std::size_t kLingerBytes = 256 << 10;
// The poll thread wakes at least this often to enforce deadlines.
constexpr int kMaxPollMs = 250;
constexpr int kAcceptsPerRound = 16;

std::string_view Reason(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 400:
      return "Bad Request";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 413:
      return "Content Too Large";
    case 431:
      return "Request Header Fields Too Large";
    case 503:
      return "Service Unavailable";
    default:
      return "Status";
  }
}

std::string PeerAddress(const sockaddr_storage& peer) {
  char text[INET6_ADDRSTRLEN] = {};
  if (peer.ss_family == AF_INET) {
    ::inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in&>(peer).sin_addr, text, sizeof text);
  } else if (peer.ss_family == AF_INET6) {
    ::inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6&>(peer).sin6_addr, text, sizeof text);
  }
  return text;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// Writes all of `data` before `deadline` on a non-blocking socket.
bool SendAll(int fd, std::string_view data, std::chrono::steady_clock::time_point deadline) {
  while (!data.empty()) {
    ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n > 0) {
      data.remove_prefix(static_cast<std::size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) return false;
    auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    pollfd p{fd, POLLOUT, 0};
    if (::poll(&p, 1, static_cast<int>(std::min<std::int64_t>(left.count(), kMaxPollMs))) < 0 &&
        errno != EINTR) {
      return false;
    }
  }
  return true;
}

// Deflates `in` into `out` (appended) with `flush` until zlib has taken all of it; false on an
// error of zlib's.
bool DeflateAll(z_stream& z, std::string_view in, int flush, std::string& out) {
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());
  std::size_t start = out.size();
  out.resize(start + deflateBound(&z, static_cast<uLong>(in.size())) + 64);
  for (;;) {
    z.next_out = reinterpret_cast<Bytef*>(out.data() + start);
    z.avail_out = static_cast<uInt>(out.size() - start);
    int rc = deflate(&z, flush);
    start = out.size() - z.avail_out;
    if (rc == Z_STREAM_END || (rc == Z_OK && z.avail_in == 0 && z.avail_out > 0)) break;
    if (rc != Z_OK && rc != Z_BUF_ERROR) return false;
    out.resize(out.size() * 2);
  }
  out.resize(start);
  return true;
}

void PutLittleEndian32(std::string& out, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) out += static_cast<char>((v >> (8 * i)) & 0xff);
}

}  // namespace

const SharedBody::GzipFront& SharedBody::gzip() const {
  std::call_once(once_, [this] {
    z_stream z{};
    if (deflateInit2(&z, Z_BEST_SPEED, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) return;
    std::string bytes;
    bool ok = DeflateAll(z, text_, Z_FULL_FLUSH, bytes);
    deflateEnd(&z);  // unfinished on purpose: a response finishes the member
    if (!ok) return;
    gzip_.bytes = std::move(bytes);
    gzip_.crc = crc32(crc32(0, nullptr, 0), reinterpret_cast<const Bytef*>(text_.data()),
                      static_cast<uInt>(text_.size()));
  });
  return gzip_;
}

std::string GzipTail(const SharedBody* front, std::string_view tail) {
  z_stream z{};
  std::string out;
  std::uint32_t crc = 0;
  std::uint64_t size = tail.size();
  if (front) {
    const auto& g = front->gzip();
    if (g.bytes.empty()) return {};
    // The rest of the member: raw deflate blocks, the last one final, then CRC-32 and size.
    if (deflateInit2(&z, Z_BEST_SPEED, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK) return {};
    auto tail_crc = crc32(crc32(0, nullptr, 0), reinterpret_cast<const Bytef*>(tail.data()),
                          static_cast<uInt>(tail.size()));
    crc = static_cast<std::uint32_t>(crc32_combine(g.crc, tail_crc, static_cast<z_off_t>(tail.size())));
    size += front->text().size();
  } else if (deflateInit2(&z, Z_BEST_SPEED, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    return {};
  }
  bool ok = DeflateAll(z, tail, Z_FINISH, out);
  deflateEnd(&z);
  if (!ok) return {};
  if (front) {
    PutLittleEndian32(out, crc);
    PutLittleEndian32(out, static_cast<std::uint32_t>(size));  // ISIZE: the size modulo 2^32
  }
  return out;
}

HttpServer::HttpServer(HttpLimits limits, Handler handler) : limits_(limits), handler_(std::move(handler)) {}

HttpServer::~HttpServer() { Stop(); }

Status HttpServer::Start(const std::string& host, int port) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  std::string service = std::to_string(port);
  if (::getaddrinfo(host.c_str(), service.c_str(), &hints, &found) != 0 || !found) {
    return plasmient::Fail("--listen {}:{}: not an address", host, port);
  }
  int fd = ::socket(found->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  int yes = 1;
  bool bound = fd >= 0 && ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes) == 0 &&
               ::bind(fd, found->ai_addr, found->ai_addrlen) == 0 && ::listen(fd, 1024) == 0;
  ::freeaddrinfo(found);
  if (!bound) {
    if (fd >= 0) ::close(fd);
    return plasmient::Fail("--listen {}:{}: cannot bind (in use, or not an address of this host)", host,
                           port);
  }
  sockaddr_storage local{};
  socklen_t n = sizeof local;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&local), &n);
  port_ = ntohs(local.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6&>(local).sin6_port
                                            : reinterpret_cast<sockaddr_in&>(local).sin_port);
  listen_fd_ = fd;
  wake_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (wake_fd_ < 0) return plasmient::Fail("serve: eventfd: {}", std::strerror(errno));
  for (int i = 0; i < std::max(1, limits_.workers); ++i) workers_.emplace_back([this] { WorkerLoop(); });
  poller_ = std::thread([this] { PollLoop(); });
  return Ok();
}

void HttpServer::Stop() {
  if (stop_.exchange(true)) return;
  cv_.notify_all();
  Wake();
  if (poller_.joinable()) poller_.join();
  for (auto& w : workers_) {
    if (w.joinable()) w.join();
  }
  for (auto& [fd, c] : connections_) ::close(fd);
  connections_.clear();
  for (auto& job : jobs_) ::close(job.fd);
  jobs_.clear();
  if (listen_fd_ >= 0) ::close(listen_fd_);
  if (wake_fd_ >= 0) ::close(wake_fd_);
  listen_fd_ = wake_fd_ = -1;
}

void HttpServer::Wake() {
  std::uint64_t one = 1;
  if (wake_fd_ >= 0) (void)!::write(wake_fd_, &one, sizeof one);
}

void HttpServer::PollLoop() {
  std::vector<pollfd> fds;
  while (!stop_) {
    fds.clear();
    fds.push_back({listen_fd_, POLLIN, 0});
    fds.push_back({wake_fd_, POLLIN, 0});
    auto now = Clock::now();
    auto next = now + std::chrono::milliseconds(kMaxPollMs);
    for (auto& [fd, c] : connections_) {
      if (c.state == State::kBusy) continue;
      fds.push_back({fd, POLLIN, 0});
      next = std::min(next, c.deadline);
    }
    int wait_ms = static_cast<int>(std::max<std::int64_t>(
        0, std::chrono::duration_cast<std::chrono::milliseconds>(next - now).count() + 1));
    if (::poll(fds.data(), fds.size(), wait_ms) < 0 && errno != EINTR) break;
    if (stop_) break;
    if (fds[1].revents) {
      std::uint64_t count;
      (void)!::read(wake_fd_, &count, sizeof count);
      std::vector<std::pair<int, bool>> back;
      {
        std::lock_guard lock(mu_);
        back.swap(returned_);
      }
      for (auto [fd, keep] : back) {
        auto it = connections_.find(fd);
        if (it == connections_.end()) continue;
        if (!keep) {
          Close(fd);
          continue;
        }
        it->second.state = State::kReading;
        it->second.deadline = Clock::now() + limits_.head_timeout;
        it->second.order = ++order_;
        TakeRequest(fd, it->second);  // a pipelined request already read
      }
    }
    for (std::size_t i = 2; i < fds.size(); ++i) {
      if (!fds[i].revents) continue;
      auto it = connections_.find(fds[i].fd);
      if (it != connections_.end() && it->second.state != State::kBusy) Read(fds[i].fd, it->second);
    }
    now = Clock::now();
    for (auto it = connections_.begin(); it != connections_.end();) {
      auto& [fd, c] = *it;
      ++it;
      if (c.state == State::kBusy || now < c.deadline) continue;
      if (c.state == State::kReading && !c.buffer.empty()) ++counters_.timed_out;
      Close(fd);
    }
    if (fds[0].revents) Accept();
  }
}

void HttpServer::Accept() {
  // A few at a time, the rest on the next round: each new connection may evict an older one, and
  // a burst of reconnects must not evict a scrape accepted in the same burst before its request
  // (already sent, as a scraper sends it at once) is read.
  for (int round = 0; round < kAcceptsPerRound; ++round) {
    sockaddr_storage peer{};
    socklen_t n = sizeof peer;
    int fd = ::accept4(listen_fd_, reinterpret_cast<sockaddr*>(&peer), &n, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return;
    int yes = 1;
    // A response goes out in several writes (head, shared front, body): with Nagle's algorithm the body would
    // wait for the client's delayed ACK of the head, 40 ms on Linux, on every keep-alive scrape.
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof yes);
    std::string address = PeerAddress(peer);
    Evict(address);
    if (connections_.size() >= limits_.max_connections) {
      ++counters_.refused_connections;  // every connection has a request in progress
      ::close(fd);
      continue;
    }
    Connection& c = connections_[fd];
    c.peer = std::move(address);
    c.deadline = Clock::now() + limits_.head_timeout;
    c.order = ++order_;
    Read(fd, c);  // a request that came with the connection is taken before anything can evict it
  }
}

// Makes room for one more connection from `peer`: at the per-peer cap the peer's oldest waiting
// connection goes, at the total cap the oldest waiting one of any peer.
void HttpServer::Evict(const std::string& peer) {
  std::size_t from_peer = 0;
  int oldest_of_peer = -1, oldest = -1;
  std::uint64_t peer_order = UINT64_MAX, any_order = UINT64_MAX;
  for (auto& [fd, c] : connections_) {
    if (c.peer == peer) ++from_peer;
    if (c.state == State::kBusy) continue;
    if (c.peer == peer && c.order < peer_order) peer_order = c.order, oldest_of_peer = fd;
    if (c.order < any_order) any_order = c.order, oldest = fd;
  }
  int victim = from_peer >= limits_.max_per_peer                ? oldest_of_peer
               : connections_.size() >= limits_.max_connections ? oldest
                                                                : -1;
  if (victim < 0) return;
  ++counters_.evicted;
  Close(victim);
}

void HttpServer::Read(int fd, Connection& c) {
  char chunk[4096];
  for (;;) {
    std::size_t cap = limits_.max_head_bytes + 4;  // a head and its blank line
    std::size_t room = c.state == State::kClosing
                           ? sizeof chunk
                           : std::min(sizeof chunk, cap - std::min(cap, c.buffer.size()));
    if (room == 0) break;
    ssize_t n = ::recv(fd, chunk, room, 0);
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
      Close(fd);
      return;
    }
    if (n < 0) break;
    if (c.state == State::kClosing) {
      c.discarded += static_cast<std::size_t>(n);
      if (c.discarded > kLingerBytes) {
        Close(fd);
        return;
      }
      continue;
    }
    c.buffer.append(chunk, static_cast<std::size_t>(n));
  }
  if (c.state == State::kReading && !TakeRequest(fd, c) && c.buffer.size() >= limits_.max_head_bytes + 4) {
    ++counters_.refused_head;
    Refuse(fd, c, 431, "request head too large");
  }
}

bool HttpServer::TakeRequest(int fd, Connection& c) {
  std::size_t end = c.buffer.find("\r\n\r\n");
  if (end == std::string::npos) return false;
  if (end + 4 > limits_.max_head_bytes + 4) {
    ++counters_.refused_head;
    Refuse(fd, c, 431, "request head too large");
    return true;
  }
  std::string_view head(c.buffer.data(), end);
  std::size_t line_end = head.find("\r\n");
  std::string_view line = head.substr(0, line_end);
  std::size_t s1 = line.find(' '), s2 = line.rfind(' ');
  if (s1 == std::string_view::npos || s2 == s1 || !line.substr(s2 + 1).starts_with("HTTP/1.")) {
    ++counters_.bad_requests;
    Refuse(fd, c, 400, "bad request line");
    return true;
  }
  Job job{fd,
          {std::string(line.substr(0, s1)), std::string(line.substr(s1 + 1, s2 - s1 - 1))},
          line.substr(s2 + 1) == "HTTP/1.1",
          false};
  if (auto q = job.request.path.find('?'); q != std::string::npos) job.request.path.resize(q);
  bool has_body = false;
  std::size_t headers = 0;
  std::string_view rest = line_end == std::string_view::npos ? std::string_view() : head.substr(line_end + 2);
  while (!rest.empty()) {
    std::size_t eol = rest.find("\r\n");
    std::string_view h = rest.substr(0, eol);
    rest = eol == std::string_view::npos ? std::string_view() : rest.substr(eol + 2);
    std::size_t colon = h.find(':');
    if (++headers > limits_.max_headers) {
      ++counters_.refused_head;
      Refuse(fd, c, 431, "too many header fields");
      return true;
    }
    if (colon == std::string_view::npos || colon == 0 || h.front() == ' ' || h.front() == '\t') {
      ++counters_.bad_requests;
      Refuse(fd, c, 400, "bad header field");
      return true;
    }
    std::string name = AsciiLower(h.substr(0, colon));
    std::string value = AsciiLower(Trim(h.substr(colon + 1)));
    if (name == "transfer-encoding" || (name == "content-length" && value != "0")) has_body = true;
    if (name == "connection" && value.find("close") != std::string::npos) job.keep_alive = false;
    if (name == "connection" && value.find("keep-alive") != std::string::npos) job.keep_alive = true;
    if (name == "accept-encoding" && value.find("gzip") != std::string::npos) job.gzip = true;
  }
  // The endpoints take no body: refused before a byte of it is read, whatever its length or encoding.
  if (has_body) {
    ++counters_.refused_body;
    Refuse(fd, c, 413, "request bodies are not accepted");
    return true;
  }
  if (job.request.method != "GET" && job.request.method != "HEAD") {
    ++counters_.refused_method;
    Refuse(fd, c, 405, "only GET and HEAD");
    return true;
  }
  c.buffer.erase(0, end + 4);
  c.state = State::kBusy;
  ++counters_.requests;
  {
    std::lock_guard lock(mu_);
    jobs_.push_back(std::move(job));
  }
  cv_.notify_one();
  return true;
}

// Answers with `status` and closes after a short linger; the poll thread's writes are a few
// hundred bytes, which a fresh socket's buffer always takes.
void HttpServer::Refuse(int fd, Connection& c, int status, std::string_view why) {
  std::string response = fmt::format(
      "HTTP/1.1 {} {}\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{}\n",
      status, Reason(status), why.size() + 1, why);
  (void)!::send(fd, response.data(), response.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
  ::shutdown(fd, SHUT_WR);
  c.state = State::kClosing;
  c.buffer = std::string();
  c.deadline = Clock::now() + kLingerTime;
}

void HttpServer::Close(int fd) {
  ::close(fd);
  connections_.erase(fd);
}

void HttpServer::WorkerLoop() {
  for (;;) {
    Job job;
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [this] { return stop_ || !jobs_.empty(); });
      if (stop_) return;
      job = std::move(jobs_.front());
      jobs_.pop_front();
    }
    HttpResponse res = handler_(job.request);
    std::string_view front = res.front ? res.front->text() : std::string_view();
    bool gzip = job.gzip && front.size() + res.body.size() >= limits_.compress_min_bytes;
    if (gzip) {
      // The shared front's gzip bytes go out as they are, made once; only the tail is deflated.
      std::string packed = GzipTail(res.front.get(), res.body);
      gzip = !packed.empty();
      if (gzip) {
        res.body = std::move(packed);
        front = res.front ? std::string_view(res.front->gzip().bytes) : std::string_view();
      }
    }
    std::string head =
        fmt::format("HTTP/1.1 {} {}\r\nContent-Type: {}\r\nContent-Length: {}\r\n{}{}\r\n", res.status,
                    Reason(res.status), res.content_type, front.size() + res.body.size(),
                    gzip ? "Content-Encoding: gzip\r\n" : "", job.keep_alive ? "" : "Connection: close\r\n");
    auto deadline = Clock::now() + limits_.write_timeout;
    bool sent = SendAll(job.fd, head, deadline) &&
                (job.request.method == "HEAD" || ((front.empty() || SendAll(job.fd, front, deadline)) &&
                                                  SendAll(job.fd, res.body, deadline)));
    {
      std::lock_guard lock(mu_);
      returned_.emplace_back(job.fd, sent && job.keep_alive);
    }
    Wake();
  }
}

}  // namespace plasmient::serve
