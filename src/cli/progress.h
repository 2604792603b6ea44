// A one-line progress bar on stderr (TTY only) for work over about a second.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

namespace plasmient::cli {

class Progress {
 public:
  explicit Progress(bool enabled) : enabled_(enabled) {}
  std::function<void(std::int64_t, std::int64_t)> Callback(const std::string& name, std::size_t index,
                                                           std::size_t count);
  void Done();

 private:
  bool enabled_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace plasmient::cli
