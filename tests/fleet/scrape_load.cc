// fleet_scrape_load: N concurrent scrapers GET /metrics for D seconds over keep-alive
// connections; prints requests, errors, latency percentiles and the server's RSS before
// and after (from /proc/PID/status). Loopback only. Like Prometheus, each scraper asks for gzip
// and waits INTERVAL_MS between the start of its scrapes (0: back to back, saturating).
//   fleet_scrape_load PORT SCRAPERS SECONDS [SERVER_PID [INTERVAL_MS]]
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <httplib.h>

namespace {

long RssKb(const std::string& pid) {
  std::ifstream f("/proc/" + pid + "/status");
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  }
  return -1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: fleet_scrape_load PORT SCRAPERS SECONDS [SERVER_PID [INTERVAL_MS]]\n");
    return 2;
  }
  int port = std::atoi(argv[1]);
  int scrapers = std::atoi(argv[2]);
  double seconds = std::atof(argv[3]);
  std::string pid = argc > 4 ? argv[4] : "";
  auto interval = std::chrono::milliseconds(argc > 5 ? std::atoi(argv[5]) : 0);
  long rss_before = pid.empty() ? -1 : RssKb(pid);
  std::atomic<long> errors{0};
  std::mutex mu;
  std::vector<double> all_ms;
  long rss_peak = rss_before;
  auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  std::vector<std::thread> threads;
  for (int i = 0; i < scrapers; ++i) {
    threads.emplace_back([&] {
      httplib::Client client("127.0.0.1", port);
      client.set_keep_alive(true);
      client.set_connection_timeout(5, 0);
      client.set_read_timeout(5, 0);
      const httplib::Headers headers = {{"Accept-Encoding", "gzip"}};
      std::vector<double> ms;
      while (std::chrono::steady_clock::now() < end) {
        auto t0 = std::chrono::steady_clock::now();
        auto res = client.Get("/metrics", headers);
        auto t1 = std::chrono::steady_clock::now();
        if (!res || res->status != 200 ||
            res->body.find("plasmient_serve_scrapes_total") == std::string::npos) {
          ++errors;
          std::this_thread::sleep_for(std::chrono::milliseconds(10));
          continue;
        }
        ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
        std::this_thread::sleep_until(t0 + interval);
      }
      std::lock_guard lock(mu);
      all_ms.insert(all_ms.end(), ms.begin(), ms.end());
    });
  }
  if (!pid.empty()) {
    while (std::chrono::steady_clock::now() < end) {
      rss_peak = std::max(rss_peak, RssKb(pid));
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
  }
  for (auto& t : threads) t.join();
  long rss_after = pid.empty() ? -1 : RssKb(pid);
  std::sort(all_ms.begin(), all_ms.end());
  auto pct = [&](double p) {
    if (all_ms.empty()) return 0.0;
    return all_ms[std::min(all_ms.size() - 1,
                           static_cast<std::size_t>(p * static_cast<double>(all_ms.size())))];
  };
  std::printf("interval_ms=%lld ", static_cast<long long>(interval.count()));
  std::printf(
      "scrapers=%d seconds=%.0f requests=%zu errors=%ld rps=%.0f p50_ms=%.2f p99_ms=%.2f max_ms=%.2f "
      "rss_before_kb=%ld rss_peak_kb=%ld rss_after_kb=%ld\n",
      scrapers, seconds, all_ms.size(), errors.load(), static_cast<double>(all_ms.size()) / seconds, pct(0.5),
      pct(0.99), all_ms.empty() ? 0.0 : all_ms.back(), rss_before, rss_peak, rss_after);
  return errors.load() == 0 && !all_ms.empty() ? 0 : 1;
}
