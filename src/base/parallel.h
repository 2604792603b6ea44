// Runs independent pieces of one analysis on the cores it was given. The caller's thread is one
// of them; with one thread (or one task) everything runs on it, in task order, as if this were a
// plain loop. Results never depend on the thread count: each task writes only what it owns.
#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>
#include <iterator>
#include <span>
#include <vector>

namespace plasmient {

// Runs every task once on at most `threads` threads and returns when all have finished. An
// exception a task throws (std::bad_alloc) is rethrown here, on the caller's thread: the first
// in task order. A thread that cannot start leaves its tasks to the others.
void RunConcurrently(std::size_t threads, std::span<const std::function<void()>> tasks);

// How many contiguous parts rows [0, n) split into for `threads`: one per thread, but none of
// fewer than `min_rows` rows (a thread costs more than such a part saves), and at least one.
std::size_t PartsFor(std::size_t n, std::size_t threads, std::size_t min_rows);

// Runs body(part, begin, end) over rows [0, n) split in `parts` contiguous ranges, on at most
// `threads` threads (RunConcurrently). Each part owns its rows, so a body that writes only those
// (and its part's own counters) gives the same result for any thread count.
void RunOverParts(std::size_t threads, std::size_t n, std::size_t parts,
                  const std::function<void(std::size_t part, std::size_t begin, std::size_t end)>& body);

// Sorts [first, last) by `less`, splitting it in two halves sorted at once and merged when
// `threads` > 1. `less` must be a strict total order (no two elements equivalent): the result is
// then the one std::sort gives, whatever the thread count. An input already sorted is only read.
template <typename It, typename Less>
void SortTotalOrder(It first, It last, Less less, std::size_t threads) {
  if (std::is_sorted(first, last, less)) return;
  const auto n = std::distance(first, last);
  constexpr std::ptrdiff_t kWorthSplitting = 1 << 15;  // below this, a thread costs more than it saves
  if (threads < 2 || n < kWorthSplitting) {
    std::sort(first, last, less);
    return;
  }
  const It mid = std::next(first, n / 2);
  const std::function<void()> halves[] = {[&] { std::sort(first, mid, less); },
                                          [&] { std::sort(mid, last, less); }};
  RunConcurrently(2, halves);
  std::vector<typename std::iterator_traits<It>::value_type> merged;
  merged.reserve(static_cast<std::size_t>(n));
  std::merge(std::make_move_iterator(first), std::make_move_iterator(mid), std::make_move_iterator(mid),
             std::make_move_iterator(last), std::back_inserter(merged), less);
  std::move(merged.begin(), merged.end(), first);
}

}  // namespace plasmient
