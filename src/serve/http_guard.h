// Slow HTTP clients must not hold serve's threads: cpp-httplib bounds each read, not a
// request, so a client that sends a header line every few seconds keeps a thread forever. A
// watchdog closes every accepted connection to which serve has sent nothing for longer than a
// deadline (TCP_INFO's last send; a new connection counts from its start). A healthy
// keep-alive connection got its last response within the keep-alive timeout, below the deadline.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace plasmient::serve {

class SlowClientReaper {
 public:
  SlowClientReaper() = default;
  ~SlowClientReaper() { Stop(); }
  void Start(int port, std::chrono::milliseconds deadline);
  void Stop();
  std::int64_t closed() const { return closed_.load(); }

 private:
  void Scan();
  int port_ = 0;
  std::chrono::milliseconds deadline_{0};
  std::thread thread_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::atomic<std::int64_t> closed_{0};
};

}  // namespace plasmient::serve
