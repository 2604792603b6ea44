// The attacks of the second hostile probe against serve's HTTP server (issue: one client took
// gigabytes through cpp-httplib): each fails on a server that reads what it is sent.
#include "serve/http_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>
#include <zlib.h>

#include <array>
#include <atomic>
#include <chrono>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

namespace plasmient::serve {
namespace {

using namespace std::chrono_literals;

// About the size of a real exposition (200 KB in the probe).
std::string Exposition() {
  std::string body;
  for (int i = 0; body.size() < (200 << 10); ++i)
    body += fmt::format("plasmient_metric{{rank=\"{}\"}} {}\n", i, i * 7);
  return body;
}

class HttpServerTest : public ::testing::Test {
 protected:
  void StartServer(HttpLimits limits = {}) {
    server_ = std::make_unique<HttpServer>(limits, [this](const HttpRequest& req) {
      HttpResponse res;
      if (req.path == "/metrics") {
        res.body = body_;
      } else if (req.path == "/shared") {
        res.front = front_;
        res.body = fmt::format("tail {}\n", ++shared_served_);
      } else {
        res.status = 404;
        res.body = "not found\n";
      }
      return res;
    });
    ASSERT_TRUE(server_->Start("127.0.0.1", 0).has_value());
  }
  void TearDown() override {
    if (server_) server_->Stop();
  }

  int Connect(std::chrono::milliseconds timeout = 5s) const {
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<std::uint16_t>(server_->port()));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    timeval tv{static_cast<time_t>(timeout.count() / 1000),
               static_cast<suseconds_t>(timeout.count() % 1000 * 1000)};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
      ::close(fd);
      return -1;
    }
    return fd;
  }
  static bool Send(int fd, std::string_view data) {
    while (!data.empty()) {
      ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
      if (n <= 0) return false;
      data.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
  }
  // One response: its head and a body of its Content-Length; empty when none came.
  struct Reply {
    int status = 0;
    std::string head, body;
  };
  static Reply Receive(int fd) {
    std::string data;
    char buf[65536];
    Reply r;
    std::size_t end;
    while ((end = data.find("\r\n\r\n")) == std::string::npos) {
      ssize_t n = ::recv(fd, buf, sizeof buf, 0);
      if (n <= 0) return r;
      data.append(buf, static_cast<std::size_t>(n));
    }
    r.head = data.substr(0, end + 4);
    r.status = std::atoi(r.head.c_str() + 9);
    std::size_t length = 0;
    if (auto at = r.head.find("Content-Length: "); at != std::string::npos)
      length = std::stoul(r.head.substr(at + 16));
    r.body = data.substr(end + 4);
    while (r.body.size() < length) {
      ssize_t n = ::recv(fd, buf, sizeof buf, 0);
      if (n <= 0) break;
      r.body.append(buf, static_cast<std::size_t>(n));
    }
    return r;
  }
  Reply Exchange(std::string_view request) const {
    int fd = Connect();
    Reply r;
    if (fd >= 0 && Send(fd, request)) r = Receive(fd);
    if (fd >= 0) ::close(fd);
    return r;
  }

  std::string body_ = Exposition();
  std::shared_ptr<const SharedBody> front_ = std::make_shared<const SharedBody>(Exposition());
  std::atomic<int> shared_served_{0};
  std::unique_ptr<HttpServer> server_;
};

// The whole of one gzip member, or "<error>" when `packed` is not exactly one valid member.
std::string Gunzip(std::string_view packed) {
  z_stream z{};
  if (inflateInit2(&z, 15 + 16) != Z_OK) return "<error>";
  std::string out(packed.size() * 50 + (1 << 20), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(packed.data()));
  z.avail_in = static_cast<uInt>(packed.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  int rc = inflate(&z, Z_FINISH);  // checks the trailer's CRC-32 and size
  out.resize(z.total_out);
  bool whole = rc == Z_STREAM_END && z.avail_in == 0;
  inflateEnd(&z);
  return whole ? out : "<error>";
}

std::int64_t StatusKb(const char* field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.starts_with(field)) return std::stoll(line.substr(std::strlen(field)));
  }
  return -1;
}

// Peak RSS from now on (Linux: writing 5 to clear_refs resets VmHWM to the current RSS).
void ResetPeakRss() { std::ofstream("/proc/self/clear_refs") << "5"; }

std::string ManyRanges(int count) {
  std::string ranges = "bytes=";
  for (int i = 0; i < count; ++i) ranges += fmt::format("{}{}-{}", i ? "," : "", i * 50, i * 50 + 10);
  return ranges;
}

TEST_F(HttpServerTest, ServesGetAndHeadWithKeepAlive) {
  StartServer();
  int fd = Connect();
  ASSERT_TRUE(Send(fd, "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"));
  Reply a = Receive(fd);
  EXPECT_EQ(a.status, 200);
  EXPECT_TRUE(a.body == body_) << a.body.size() << " bytes";
  ASSERT_TRUE(Send(fd, "HEAD /metrics HTTP/1.1\r\n\r\nGET /nothing?x=1 HTTP/1.1\r\n\r\n"));  // pipelined
  Reply b = Receive(fd);
  EXPECT_EQ(b.status, 200);
  EXPECT_NE(b.head.find(fmt::format("Content-Length: {}", body_.size())), std::string::npos);
  // HEAD has no body: what follows its head is the next response.
  EXPECT_TRUE(b.body.empty() || b.body.starts_with("HTTP/1.1 404"));
  ::close(fd);
  EXPECT_EQ(server_->counters().requests.load(), 3);
}

TEST_F(HttpServerTest, CompressesWhenTheClientAcceptsGzip) {
  StartServer();
  Reply r = Exchange("GET /metrics HTTP/1.1\r\nAccept-Encoding: gzip\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(r.status, 200);
  EXPECT_NE(r.head.find("Content-Encoding: gzip"), std::string::npos);
  EXPECT_LT(r.body.size(), body_.size() / 3);
  EXPECT_EQ(static_cast<unsigned char>(r.body[0]), 0x1f);  // the gzip magic
}

// A shared front (the exposition's series) and a body of each response's own (serve's figures):
// sent as one body, plain or as one gzip member that any decoder reads whole.
TEST_F(HttpServerTest, ASharedFrontGoesOutWithEachResponsesOwnTail) {
  StartServer();
  std::string front(front_->text());
  Reply plain = Exchange("GET /shared HTTP/1.1\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(plain.status, 200);
  EXPECT_TRUE(plain.body == front + "tail 1\n") << plain.body.size() << " bytes";
  for (int i = 2; i <= 3; ++i) {
    Reply r = Exchange("GET /shared HTTP/1.1\r\nAccept-Encoding: gzip\r\nConnection: close\r\n\r\n");
    EXPECT_NE(r.head.find("Content-Encoding: gzip"), std::string::npos);
    EXPECT_LT(r.body.size(), front.size() / 3);
    EXPECT_TRUE(Gunzip(r.body) == front + fmt::format("tail {}\n", i)) << "response " << i;
  }
  // The front was compressed once: each response re-deflates only its own tail.
  EXPECT_FALSE(front_->gzip().bytes.empty());
  // HEAD counts the front in its length and sends neither.
  Reply head = Exchange("HEAD /shared HTTP/1.1\r\nConnection: close\r\n\r\n");
  EXPECT_NE(head.head.find(fmt::format("Content-Length: {}", front.size() + 7)), std::string::npos)
      << head.head;
  EXPECT_TRUE(head.body.empty());
}

TEST(GzipTail, EveryShapeIsOneValidMember) {
  SharedBody empty("");
  SharedBody text(Exposition());
  std::string long_tail = Exposition() + Exposition();
  for (const SharedBody* front : std::array<const SharedBody*, 3>{nullptr, &empty, &text}) {
    for (std::string_view tail : {std::string_view(), std::string_view("x\n"), std::string_view(long_tail)}) {
      std::string whole = std::string(front ? front->text() : "") + std::string(tail);
      std::string packed = (front ? front->gzip().bytes : std::string()) + GzipTail(front, tail);
      EXPECT_TRUE(Gunzip(packed) == whole)
          << (front ? front->text().size() : 0) << " + " << tail.size() << " bytes";
    }
  }
}

TEST_F(HttpServerTest, ThousandsOfRangesGetTheWholeBodyOnce) {
  StartServer();
  // 1,000 ranges fit in a head; cpp-httplib answered with a 1,000-part body per request.
  Reply r = Exchange("GET /metrics HTTP/1.1\r\nRange: " + ManyRanges(1000) + "\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(r.status, 200);  // not 206
  EXPECT_TRUE(r.body == body_) << r.body.size() << " bytes";
  // 2,600 (the probe's) do not: refused with the head.
  EXPECT_EQ(Exchange("GET /metrics HTTP/1.1\r\nRange: " + ManyRanges(2600) + "\r\n\r\n").status, 431);
}

TEST_F(HttpServerTest, BodiesAreRefusedBeforeTheyAreRead) {
  StartServer();
  for (std::string_view head : {"POST /metrics HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n",
                                "POST /metrics HTTP/1.1\r\nContent-Length: 2147483648\r\n\r\n",
                                "GET /metrics HTTP/1.1\r\nContent-Length: 5\r\n\r\n"}) {
    int fd = Connect();
    ASSERT_TRUE(Send(fd, head));
    // The refusal comes before any body byte is sent; then the server stops reading after a
    // bounded amount, so an endless chunked body ends in a closed connection, not in memory.
    Reply r = Receive(fd);
    EXPECT_EQ(r.status, 413) << head;
    std::string chunk = "10000\r\n" + std::string(0x10000, 'x') + "\r\n";
    std::size_t sent = 0;
    while (sent < (64u << 20) && Send(fd, chunk)) sent += chunk.size();
    EXPECT_LT(sent, 64u << 20) << head;
    ::close(fd);
  }
  EXPECT_EQ(server_->counters().refused_body.load(), 3);
  EXPECT_EQ(server_->counters().requests.load(), 0);
}

TEST_F(HttpServerTest, HeadsOverTheCapsAre431) {
  StartServer();
  std::string many_fields = "GET /metrics HTTP/1.1\r\n";
  for (int i = 0; i < 65; ++i) many_fields += fmt::format("X-{}: 1\r\n", i);
  EXPECT_EQ(Exchange(many_fields + "\r\n").status, 431);
  // 50 MB of headers: answered after the first 16 KiB, the rest never read.
  int fd = Connect();
  ASSERT_TRUE(Send(fd, "GET /metrics HTTP/1.1\r\n"));
  std::string field = "X-Big: " + std::string(1000, 'a') + "\r\n";
  std::size_t sent = 0;
  while (sent < (50u << 20) && Send(fd, field)) sent += field.size();
  EXPECT_LT(sent, 50u << 20);
  EXPECT_EQ(Receive(fd).status, 431);
  ::close(fd);
  EXPECT_EQ(server_->counters().requests.load(), 0);
  EXPECT_EQ(Exchange("DELETE /metrics HTTP/1.1\r\n\r\n").status, 405);
  EXPECT_EQ(Exchange("garbage\r\n\r\n").status, 400);
}

TEST_F(HttpServerTest, AHalfReadRequestTimesOut) {
  HttpLimits limits;
  limits.head_timeout = 300ms;
  StartServer(limits);
  int fd = Connect();
  ASSERT_TRUE(Send(fd, "GET /metrics HTTP/1.1\r\n"));
  auto t0 = std::chrono::steady_clock::now();
  char c;
  EXPECT_EQ(::recv(fd, &c, 1, 0), 0);  // closed by the server
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 2s);
  ::close(fd);
  EXPECT_EQ(server_->counters().timed_out.load(), 1);
}

// 200 slow clients reconnecting as soon as they are closed, each sending a header line now and
// then, while a scraper asks every 100 ms with a 1 s timeout: every scrape is answered.
TEST_F(HttpServerTest, ReconnectingSlowClientsDoNotStarveScrapes) {
  HttpLimits limits;
  limits.workers = 2;
  limits.max_connections = 64;
  limits.max_per_peer = 48;
  StartServer(limits);
  std::atomic<bool> stop{false};
  std::vector<std::thread> slow;
  for (int t = 0; t < 4; ++t) {
    slow.emplace_back([&] {
      std::vector<int> fds(50, -1);
      while (!stop) {
        for (int& fd : fds) {
          if (fd < 0 || !Send(fd, "X-Slow: 1\r\n")) {
            if (fd >= 0) ::close(fd);
            fd = Connect(200ms);
            if (fd >= 0) Send(fd, "GET /metrics HTTP/1.1\r\n");
          }
        }
        std::this_thread::sleep_for(20ms);
      }
      for (int fd : fds) {
        if (fd >= 0) ::close(fd);
      }
    });
  }
  std::this_thread::sleep_for(300ms);
  int answered = 0, asked = 0;
  for (; asked < 20; ++asked) {
    int fd = Connect(1s);
    if (fd >= 0 && Send(fd, "GET /metrics HTTP/1.1\r\n\r\n") && Receive(fd).body == body_) ++answered;
    if (fd >= 0) ::close(fd);
    std::this_thread::sleep_for(100ms);
  }
  stop = true;
  for (auto& t : slow) t.join();
  EXPECT_EQ(answered, asked);
  EXPECT_GT(server_->counters().evicted.load(), 0);
}

// The attacks at once, 8 clients each: serve's peak RSS stays within 50 MB of its idle size.
TEST_F(HttpServerTest, PeakMemoryUnderTheAttacksStaysNearIdle) {
  StartServer();
  Exchange("GET /metrics HTTP/1.1\r\nConnection: close\r\n\r\n");  // warm: one response's buffers
  ResetPeakRss();
  std::int64_t idle_kb = StatusKb("VmRSS:");
  std::vector<std::thread> clients;
  std::string ranges = "GET /metrics HTTP/1.1\r\nRange: " + ManyRanges(1000) + "\r\n\r\n";
  for (int i = 0; i < 8; ++i) {
    clients.emplace_back([&] {
      for (int k = 0; k < 4; ++k) Exchange(ranges);
      int fd = Connect();
      Send(fd, "POST /metrics HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n");
      std::string chunk = "10000\r\n" + std::string(0x10000, 'x') + "\r\n";
      for (int k = 0; k < 256 && Send(fd, chunk); ++k) {
      }
      ::close(fd);
      fd = Connect();
      Send(fd, "GET /metrics HTTP/1.1\r\n");
      std::string field = "X-Big: " + std::string(1000, 'a') + "\r\n";
      for (int k = 0; k < 6000 && Send(fd, field); ++k) {
      }
      ::close(fd);
    });
  }
  for (auto& t : clients) t.join();
  std::int64_t peak_kb = StatusKb("VmHWM:");
  RecordProperty("idle_kb", std::to_string(idle_kb));
  RecordProperty("peak_kb", std::to_string(peak_kb));
  EXPECT_LT(peak_kb - idle_kb, 50 << 10) << "idle " << idle_kb << " kB, peak " << peak_kb << " kB";
}

}  // namespace
}  // namespace plasmient::serve
