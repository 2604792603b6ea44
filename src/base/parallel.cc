#include "base/parallel.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <new>
#include <system_error>
#include <thread>

namespace plasmient {

void RunConcurrently(std::size_t threads, std::span<const std::function<void()>> tasks) {
  std::vector<std::exception_ptr> failed(tasks.size());
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t i = next.fetch_add(1); i < tasks.size(); i = next.fetch_add(1)) {
      try {
        tasks[i]();
      } catch (...) {
        failed[i] = std::current_exception();
      }
    }
  };
  {
    std::vector<std::jthread> helpers;
    const std::size_t extra = threads > 1 && tasks.size() > 1 ? std::min(threads, tasks.size()) - 1 : 0;
    try {
      helpers.reserve(extra);
      for (std::size_t h = 0; h < extra; ++h) helpers.emplace_back(work);
    } catch (const std::system_error&) {
    } catch (const std::bad_alloc&) {
    }
    work();
  }
  for (const std::exception_ptr& e : failed) {
    if (e) std::rethrow_exception(e);
  }
}

std::size_t PartsFor(std::size_t n, std::size_t threads, std::size_t min_rows) {
  return std::clamp<std::size_t>(n / std::max<std::size_t>(min_rows, 1), 1,
                                 std::max<std::size_t>(threads, 1));
}

void RunOverParts(std::size_t threads, std::size_t n, std::size_t parts,
                  const std::function<void(std::size_t part, std::size_t begin, std::size_t end)>& body) {
  parts = std::max<std::size_t>(parts, 1);
  std::vector<std::function<void()>> tasks;
  tasks.reserve(parts);
  for (std::size_t p = 0; p < parts; ++p) {
    tasks.emplace_back([&body, n, p, parts] { body(p, n * p / parts, n * (p + 1) / parts); });
  }
  RunConcurrently(threads, tasks);
}

}  // namespace plasmient
