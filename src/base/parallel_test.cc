#include "base/parallel.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

namespace plasmient {
namespace {

TEST(RunConcurrentlyTest, RunsEveryTaskOnceOnAtMostTheThreadsGiven) {
  for (std::size_t threads : {0, 1, 2, 3, 8}) {
    std::vector<int> runs(7, 0);
    std::mutex m;
    std::set<std::thread::id> ids;
    std::vector<std::function<void()>> tasks;
    for (std::size_t i = 0; i < runs.size(); ++i) {
      tasks.emplace_back([&, i] {
        ++runs[i];
        std::lock_guard lock(m);
        ids.insert(std::this_thread::get_id());
      });
    }
    RunConcurrently(threads, tasks);
    EXPECT_EQ(runs, std::vector<int>(7, 1)) << threads << " threads";
    EXPECT_LE(ids.size(), std::max<std::size_t>(1, threads)) << threads << " threads";
    if (threads <= 1) {
      EXPECT_TRUE(ids.contains(std::this_thread::get_id()));
    }
  }
  RunConcurrently(4, {});  // no task: returns at once
}

TEST(RunConcurrentlyTest, OneThreadRunsTheTasksInOrderOnTheCaller) {
  std::string order;
  const std::function<void()> tasks[] = {[&] { order += 'a'; }, [&] { order += 'b'; }, [&] { order += 'c'; }};
  RunConcurrently(1, tasks);
  EXPECT_EQ(order, "abc");
}

TEST(RunConcurrentlyTest, RethrowsTheFirstFailureInTaskOrderAfterEveryTaskRan) {
  for (std::size_t threads : {1, 2, 4}) {
    std::atomic<int> ran{0};
    const std::function<void()> tasks[] = {[&] { ++ran; },
                                           [&] {
                                             ++ran;
                                             throw std::runtime_error("second");
                                           },
                                           [&] {
                                             ++ran;
                                             throw std::bad_alloc();
                                           },
                                           [&] { ++ran; }};
    try {
      RunConcurrently(threads, tasks);
      ADD_FAILURE() << "no exception with " << threads << " threads";
    } catch (const std::runtime_error& e) {
      EXPECT_STREQ(e.what(), "second");
    }
    EXPECT_EQ(ran.load(), 4) << threads << " threads";
  }
}

struct Row {
  std::int64_t key;
  std::int32_t row;  // breaks ties: the order is total
  bool operator==(const Row&) const = default;
};

TEST(SortTotalOrderTest, GivesStdSortsOrderOnAnyThreadCount) {
  auto less = [](const Row& a, const Row& b) { return std::tie(a.key, a.row) < std::tie(b.key, b.row); };
  std::mt19937_64 rng(15);
  // Sizes on both sides of the size worth splitting, with many equal keys.
  for (std::size_t n : {0, 1, 2, 1000, 40000, 100001}) {
    std::vector<Row> rows;
    for (std::size_t i = 0; i < n; ++i) {
      rows.push_back({static_cast<std::int64_t>(rng() % 5000), static_cast<std::int32_t>(i)});
    }
    std::vector<Row> expected = rows;
    std::sort(expected.begin(), expected.end(), less);
    for (std::size_t threads : {1, 2, 3}) {
      std::vector<Row> got = rows;
      SortTotalOrder(got.begin(), got.end(), less, threads);
      EXPECT_EQ(got, expected) << n << " rows, " << threads << " threads";
      SortTotalOrder(got.begin(), got.end(), less, threads);  // sorted already: unchanged
      EXPECT_EQ(got, expected) << n << " rows, " << threads << " threads, sorted input";
    }
  }
}

}  // namespace
}  // namespace plasmient

namespace plasmient {
namespace {

TEST(RunOverParts, EveryRowOnceInContiguousPartsForAnyThreadCount) {
  EXPECT_EQ(PartsFor(100, 4, 30), 3U);  // no part under 30 rows
  EXPECT_EQ(PartsFor(100, 2, 30), 2U);  // no more parts than threads
  EXPECT_EQ(PartsFor(10, 4, 30), 1U);   // at least one
  EXPECT_EQ(PartsFor(10, 0, 0), 1U);
  for (std::size_t threads : {1U, 2U, 5U}) {
    std::vector<int> seen(1001, 0);
    std::vector<std::pair<std::size_t, std::size_t>> ranges(3);
    RunOverParts(threads, seen.size(), 3, [&](std::size_t part, std::size_t begin, std::size_t end) {
      ranges[part] = {begin, end};
      for (std::size_t i = begin; i < end; ++i) ++seen[i];
    });
    EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), 1001) << threads << " threads";
    EXPECT_EQ(ranges[0].first, 0U);
    EXPECT_EQ(ranges[0].second, ranges[1].first);
    EXPECT_EQ(ranges[1].second, ranges[2].first);
    EXPECT_EQ(ranges[2].second, 1001U);
  }
}

}  // namespace
}  // namespace plasmient
