// A SIGTERM that lands while the application thread holds a lock the close needs (inside CUPTI
// or malloc in real life) must not hang the process: it exits within a second, killed by the
// signal, and its trace ends with the closing chunk.
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "collect/agent/agent.h"
#include "ingest/native/native_reader.h"

namespace plasmient::collect {
namespace {

constexpr double kFlushMarker = 4242;

wire::NvmlSampleRecord Sample(double value) {
  wire::NvmlSampleRecord r{};
  r.header = wire::HeaderFor<wire::NvmlSampleRecord>(wire::RecordKind::kNvmlSample);
  r.ts_ns = 1;
  r.metric = static_cast<std::uint16_t>(wire::NvmlMetric::kSmClockMhz);
  r.value = value;
  return r;
}

[[noreturn]] void TracedChild(const std::string& dir, int ready_fd) {
  setenv("PLASMIENT_OUT_DIR", dir.c_str(), 1);
  setenv("PLASMIENT_NVML_PERIOD_MS", "0", 1);
  setenv("PLASMIENT_PERIOD_S", "0", 1);  // one whole-run file
  // Only this thread takes SIGTERM: the agent's threads and the producer start with it blocked.
  sigset_t term;
  sigemptyset(&term);
  sigaddset(&term, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &term, nullptr);
  Agent* agent = Agent::Get();
  if (agent == nullptr) _exit(3);
  static std::mutex cupti;  // stands for a lock inside CUPTI that its flush needs
  // The writer's tick flushes CUPTI too (cuptiActivityFlushAll(0) every 100 ms): it waits as well.
  agent->SetWriterTick([] { std::lock_guard<std::mutex> lock(cupti); });
  agent->AddPreCloseHook([agent] {
    std::lock_guard<std::mutex> lock(cupti);
    agent->sink().PushSmall(Sample(kFlushMarker));
  });
  // Keeps the writer busy, below what the ring holds while the tick waits (16384 slots; 6000 in
  // 300 ms): records the close pushes must not be dropped for want of room.
  std::thread([agent] {
    for (;;) {
      for (int i = 0; i < 20; ++i) agent->sink().PushSmall(Sample(1));
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }).detach();
  cupti.lock();
  pthread_sigmask(SIG_UNBLOCK, &term, nullptr);
  std::string path = agent->path();
  if (write(ready_fd, path.c_str(), path.size()) != static_cast<ssize_t>(path.size())) _exit(4);
  close(ready_fd);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // the signal arrives in here
  cupti.unlock();
  for (;;) std::this_thread::sleep_for(std::chrono::milliseconds(10));
}

TEST(AgentSignals, SigtermWhileBusyExitsWithItsLastChunk) {
  std::string dir = ::testing::TempDir() + "/agent_signal_" + std::to_string(getpid());
  ASSERT_EQ(system(("mkdir -p " + dir).c_str()), 0);
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    close(ready[0]);
    TracedChild(dir, ready[1]);
  }
  close(ready[1]);
  char buf[4096] = {};
  ssize_t n = read(ready[0], buf, sizeof buf - 1);
  close(ready[0]);
  ASSERT_GT(n, 0) << "the child did not start its agent";
  std::string path(buf, static_cast<std::size_t>(n));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ASSERT_EQ(kill(child, SIGTERM), 0);
  auto sent = std::chrono::steady_clock::now();
  int status = 0;
  pid_t done = 0;
  while ((done = waitpid(child, &status, WNOHANG)) == 0 &&
         std::chrono::steady_clock::now() - sent < std::chrono::seconds(1)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (done == 0) {
    kill(child, SIGKILL);
    waitpid(child, &status, 0);
    FAIL() << "the process hung for a second after SIGTERM";
  }
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM) << "status " << status;

  auto t = ingest::native::ReadNative(path);
  ASSERT_TRUE(t) << t.error().message;
  EXPECT_EQ(t->quality.Get(model::Dq::kTruncatedNativeFile), 0) << "no closing chunk";
  EXPECT_EQ(t->quality.Get(model::Dq::kCorruptChunk), 0);
  EXPECT_EQ(t->quality.Get(model::Dq::kDroppedRecords), 0);
  bool flushed = false;
  for (double v : t->samples.value) flushed = flushed || v == kFlushMarker;
  EXPECT_TRUE(flushed) << "the pre-close flush did not reach the file";
  std::remove(path.c_str());
}

}  // namespace
}  // namespace plasmient::collect
