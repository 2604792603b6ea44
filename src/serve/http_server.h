// serve's HTTP/1.1 server, bounded by construction: whatever a client sends, it costs serve at
// most one fixed-size head buffer per connection and a fixed number of response threads.
//
// Why not cpp-httplib (Debian's 0.11.4, compiled into its shared library): it reads every header
// line a client sends (only each line is capped, at 8 KiB), builds one multipart body per `Range:`
// range (2,600 ranges: 515 MB from a 200 KB exposition), reads a chunked body to its end whatever
// the payload limit, and gives every connection a thread of its pool while its request is still
// arriving, so slow clients starve scrapes. None of it can be configured away.
//
// Here one thread accepts and reads request heads without blocking (a head is at most
// max_head_bytes and max_headers lines, else 431); a request with a body or a Transfer-Encoding
// is refused with 413 before a byte of the body is read; only GET and HEAD are served; `Range:`
// is ignored (200 with the whole body). A complete head goes to one of `workers` threads, which
// runs the handler and writes the response under a deadline; half-read requests never hold one.
// Connections are capped in total and per peer address: at a cap, the oldest connection without
// a request in progress is closed for the new one, so a client that sends its request at once
// (a scrape) is served while reconnecting slow clients evict each other.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "base/result.h"

namespace plasmient::serve {

struct HttpLimits {
  std::size_t max_head_bytes = 16 << 10;  // request line and headers together
  std::size_t max_headers = 64;
  int workers = 4;  // responses under way at once
  std::size_t max_connections = 256;
  std::size_t max_per_peer = 128;
  // From a connection's start (or its previous response) to a complete request head; also how
  // long an idle keep-alive connection stays open.
  std::chrono::milliseconds head_timeout{5000};
  std::chrono::milliseconds write_timeout{5000};  // a whole response
  std::size_t compress_min_bytes = 64 << 10;      // gzip (when accepted) from this body size on
};

struct HttpRequest {
  std::string method;  // GET or HEAD
  std::string path;    // without the query
};

// The front of a response body that many responses send unchanged (the exposition's series,
// rebuilt only when they change): every response holding it shares the one text, and it is
// gzipped once, on the first response that asks, however many responses send it after.
class SharedBody {
 public:
  explicit SharedBody(std::string text) : text_(std::move(text)) {}
  std::string_view text() const { return text_; }
  // A gzip member's start: its header and the text's deflate blocks, ending in a full flush
  // (byte-aligned, nothing after it refers back into the text), so that the raw deflate of a
  // further body, then the trailer, complete one valid member. Empty when zlib failed.
  struct GzipFront {
    std::string bytes;
    unsigned long crc = 0;  // CRC-32 of the text
  };
  const GzipFront& gzip() const;

 private:
  std::string text_;
  mutable std::once_flag once_;
  mutable GzipFront gzip_;
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "text/plain";
  std::shared_ptr<const SharedBody> front;  // when set, sent before `body`
  std::string body;
};

// What completes one gzip member of `front`'s text followed by `tail` after front->gzip().bytes:
// the tail's deflate blocks and the trailer; with no front, the whole member of `tail`. Empty when
// zlib fails.
std::string GzipTail(const SharedBody* front, std::string_view tail);

struct HttpCounters {
  std::atomic<std::int64_t> requests{0}, refused_head{0}, refused_body{0}, refused_method{0}, bad_requests{0},
      timed_out{0}, evicted{0}, refused_connections{0};
};

class HttpServer {
 public:
  using Handler = std::function<HttpResponse(const HttpRequest&)>;  // called on several threads
  HttpServer(HttpLimits limits, Handler handler);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Binds HOST:PORT (0: any free port) and starts the threads.
  Status Start(const std::string& host, int port);
  void Stop();
  int port() const { return port_; }
  const HttpCounters& counters() const { return counters_; }

 private:
  using Clock = std::chrono::steady_clock;
  enum class State { kReading, kBusy, kClosing };
  struct Connection {
    std::string peer;  // the peer's address, without its port
    std::string buffer;
    Clock::time_point deadline;
    std::uint64_t order = 0;  // when it started waiting for a request: eviction takes the oldest
    State state = State::kReading;
    std::size_t discarded = 0;  // kClosing: bytes read and dropped so that the client sees the error
  };
  struct Job {
    int fd = -1;
    HttpRequest request;
    bool keep_alive = false;
    bool gzip = false;
  };

  void PollLoop();
  void WorkerLoop();
  void Accept();
  void Read(int fd, Connection& c);
  // A complete head in c.buffer: handed to a worker, or refused; false when nothing complete yet.
  bool TakeRequest(int fd, Connection& c);
  void Refuse(int fd, Connection& c, int status, std::string_view why);
  void Evict(const std::string& peer);
  void Close(int fd);
  void Wake();

  HttpLimits limits_;
  Handler handler_;
  HttpCounters counters_;
  int listen_fd_ = -1;
  int wake_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::uint64_t order_ = 0;
  std::map<int, Connection> connections_;  // the poll thread's
  std::thread poller_;
  std::vector<std::thread> workers_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Job> jobs_;                        // under mu_
  std::vector<std::pair<int, bool>> returned_;  // under mu_: (fd, keep alive) from the workers
};

}  // namespace plasmient::serve
