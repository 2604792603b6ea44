#include "serve/serve_pool.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

namespace plasmient::serve {
namespace {
namespace fs = std::filesystem;

std::vector<std::string> Ordered(const std::vector<std::string>& jobs,
                                 const std::map<std::string, std::uint64_t>& last_turn = {}) {
  std::vector<std::string> out;
  for (std::size_t i : FairOrder(jobs, last_turn)) out.push_back(jobs[i] + std::to_string(i));
  return out;
}

TEST(FairOrderTest, OneEntryOfAnotherJobWaitsOneTurnNotFiveHundred) {
  std::vector<std::string> jobs(500, "a");
  jobs.push_back("b");  // the newest entry
  auto order = FairOrder(jobs, {});
  ASSERT_EQ(order.size(), jobs.size());
  EXPECT_EQ(order[0], 0u);                                                    // a's oldest
  EXPECT_EQ(order[1], 500u);                                                  // then b's only entry
  for (std::size_t i = 2; i < order.size(); ++i) EXPECT_EQ(order[i], i - 1);  // then a's, oldest first
}

TEST(FairOrderTest, RoundRobinKeepsEachJobsOrder) {
  EXPECT_EQ(Ordered({"a", "a", "b", "c", "a", "b"}),
            (std::vector<std::string>{"a0", "b2", "c3", "a1", "b5", "a4"}));
}

TEST(FairOrderTest, TheJobServedLeastRecentlyGoesFirst) {
  // a had a worker at turn 7, b at turn 3, c never: c, then b, then a, then round robin.
  EXPECT_EQ(Ordered({"a", "a", "b", "b", "c"}, {{"a", 7}, {"b", 3}}),
            (std::vector<std::string>{"c4", "b2", "a0", "b3", "a1"}));
}

TEST(FairOrderTest, Empty) { EXPECT_TRUE(FairOrder({}, {}).empty()); }

// True once `done` holds, polled for up to 10 s (the machine may be loaded).
template <typename F>
bool WaitFor(F done) {
  for (int i = 0; i < 5000 && !done(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  return done();
}

TEST(WorkerPoolTest, RunsOnEveryWorkerAndBoundsTheQueue) {
  std::atomic<bool> release{false};
  std::atomic<int> started{0}, ran{0};
  std::atomic<unsigned> workers_seen{0};
  WorkerPool pool(2, 1);
  auto blocking = [&](int worker) {
    workers_seen |= 1u << worker;
    ++started;
    while (!release) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    ++ran;
  };
  struct Release {  // whatever fails below, the blocked tasks end and the pool can be joined
    std::atomic<bool>& flag;
    ~Release() { flag = true; }
  } guard{release};
  ASSERT_TRUE(pool.TrySubmit(blocking));
  ASSERT_TRUE(WaitFor([&] { return started == 1; }));
  ASSERT_TRUE(pool.TrySubmit(blocking));
  ASSERT_TRUE(WaitFor([&] { return started == 2; }));
  EXPECT_EQ(pool.busy(), 2);
  EXPECT_EQ(workers_seen.load(), 3u);  // workers 0 and 1
  EXPECT_TRUE(pool.TrySubmit([&](int) { ++ran; }));
  EXPECT_EQ(pool.queued(), 1u);
  EXPECT_FALSE(pool.TrySubmit([&](int) { ++ran; }));  // full: the caller keeps it
  release = true;
  EXPECT_TRUE(WaitFor([&] { return ran == 3; }));
  EXPECT_TRUE(WaitFor([&] { return pool.busy() == 0; }));
}

TEST(WorkerPoolTest, ShutdownDropsWhatWaits) {
  std::atomic<int> ran{0};
  std::atomic<bool> go{false};
  WorkerPool pool(1, 4);
  ASSERT_TRUE(pool.TrySubmit([&](int) {
    while (!go) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    ++ran;
  }));
  EXPECT_TRUE(WaitFor([&] { return pool.busy() == 1; }));
  EXPECT_TRUE(pool.TrySubmit([&](int) { ran += 100; }));
  std::thread release([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    go = true;
  });
  pool.Shutdown();  // waits for the running task; the queued one never runs
  release.join();
  EXPECT_EQ(ran.load(), 1);
  EXPECT_FALSE(pool.TrySubmit([](int) {}));
}

class InProgressMarksTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("plasmient_marks_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Text() {
    std::ifstream in(dir_ / "in-progress");
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  fs::path dir_;
};

TEST_F(InProgressMarksTest, CountsAttemptsAcrossRuns) {
  {
    InProgressMarks marks(dir_ / "in-progress");
    marks.Load();  // no file: nothing crashed
    EXPECT_EQ(marks.CrashedAttempts("a.json"), 0);
    ASSERT_TRUE(marks.Mark("a.json"));
    ASSERT_TRUE(marks.Mark("b.json"));
    marks.Unmark("b.json");  // finished
    ASSERT_TRUE(marks.Write());
    EXPECT_EQ(Text(), "1 a.json\n");
  }  // the daemon dies with a.json under analysis
  InProgressMarks again(dir_ / "in-progress");
  again.Load();
  EXPECT_EQ(again.CrashedAttempts("a.json"), 1);
  EXPECT_EQ(again.CrashedAttempts("b.json"), 0);
  ASSERT_TRUE(again.Mark("a.json"));
  EXPECT_EQ(Text(), "2 a.json\n");
}

TEST_F(InProgressMarksTest, NamesWithNewlinesAndBackslashesRoundTrip) {
  std::string odd = "odd\nname\\n with space.json";
  {
    InProgressMarks marks(dir_ / "in-progress");
    ASSERT_TRUE(marks.Mark(odd));
  }
  InProgressMarks again(dir_ / "in-progress");
  again.Load();
  EXPECT_EQ(again.CrashedAttempts(odd), 1);
  EXPECT_EQ(again.CrashedAttempts("odd"), 0);
}

TEST_F(InProgressMarksTest, CrashedEntriesGoneFromTheSpoolAreForgotten) {
  std::ofstream(dir_ / "in-progress") << "2 gone.json\n1 here.json\nnot a line\n-3 neg.json\n";
  InProgressMarks marks(dir_ / "in-progress");
  marks.Load();
  EXPECT_EQ(marks.CrashedAttempts("gone.json"), 2);
  EXPECT_EQ(marks.CrashedAttempts("neg.json"), 0);
  marks.KeepCrashedOnly({"here.json", "other.json"});
  ASSERT_TRUE(marks.Write());
  EXPECT_EQ(Text(), "1 here.json\n");
}

TEST_F(InProgressMarksTest, AnUnwritableFolderIsAnErrorNamingTheFile) {
  InProgressMarks marks(dir_ / "missing" / "in-progress");
  auto s = marks.Mark("a.json");
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("missing/in-progress: cannot write"), std::string::npos)
      << s.error().message;
}

}  // namespace
}  // namespace plasmient::serve
