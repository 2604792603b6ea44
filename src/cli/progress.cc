#include "cli/progress.h"

#include <cstdio>
#include <filesystem>

#include <fmt/format.h>

namespace plasmient::cli {

std::function<void(std::int64_t, std::int64_t)> Progress::Callback(const std::string& name, std::size_t index,
                                                                   std::size_t count) {
  if (!enabled_) return {};
  start_ = std::chrono::steady_clock::now();
  std::string label = std::filesystem::path(name).filename().string();
  if (label.size() > 30) label = label.substr(0, 29) + "…";
  if (count > 1) label = fmt::format("[{}/{}] {}", index + 1, count, label);
  return [this, label](std::int64_t done, std::int64_t total) {
    auto elapsed = std::chrono::steady_clock::now() - start_;
    if (elapsed < std::chrono::milliseconds(800)) return;  // short work draws nothing
    double f = total > 0 ? static_cast<double>(done) / static_cast<double>(total) : 0;
    int bar = static_cast<int>(f * 24);
    double secs = std::chrono::duration<double>(elapsed).count();
    fmt::print(stderr, "\r {} [{}{}] {:3.0f}%  {:.0f} MB  {:.0f} MB/s ", label, std::string(bar, '#'),
               std::string(24 - bar, '.'), f * 100, done / 1e6, done / 1e6 / secs);
    std::fflush(stderr);
    drawn_ = true;
  };
}

void Progress::Done() {
  if (!drawn_) return;
  fmt::print(stderr, "\r\033[K");
  std::fflush(stderr);
  drawn_ = false;
}

}  // namespace plasmient::cli
