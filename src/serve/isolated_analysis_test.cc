#include "serve/isolated_analysis.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cstdio>

#include <fmt/format.h>
#include <gtest/gtest.h>

namespace plasmient::serve {
namespace {
namespace fs = std::filesystem;

// A Kineto trace of `kernels` kernels: enough that its analysis takes a while.
void WriteTrace(const fs::path& path, int kernels) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  ASSERT_NE(f, nullptr);
  std::fputs("{\"traceEvents\":[", f);
  for (int i = 0; i < kernels; ++i) {
    fmt::print(
        f,
        "{}{{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm_{}\",\"pid\":0,\"tid\":7,\"ts\":{},\"dur\":1,"
        "\"args\":{{\"device\":0,\"stream\":7,\"correlation\":{}}}}}",
        i ? "," : "", i % 97, 2 * i, i + 1);
  }
  std::fputs("]}", f);
  std::fclose(f);
}

// A daemon killed with kill -9 while an analysis runs is restarted at once; its analysis process
// dies a moment later. That process once held the daemon's descriptors, the spool's lock among
// them, and the restart found the spool "in use by another plasmient serve".
TEST(IsolatedAnalysisTest, TheAnalysisProcessHoldsNoneOfTheDaemonsDescriptors) {
  const fs::path dir = fs::temp_directory_path() / fmt::format("plasmient_isolated_{}", ::getpid());
  fs::create_directories(dir);
  const fs::path trace = dir / "big.json", lock = dir / "lock";
  WriteTrace(trace, 200'000);
  int daemon_fd = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  ASSERT_GE(daemon_fd, 0);
  ASSERT_EQ(::flock(daemon_fd, LOCK_EX | LOCK_NB), 0);

  // While the analysis runs: the daemon lets go of its lock; then nothing else may hold it.
  bool taken = false;
  auto stop = [&] {
    if (daemon_fd >= 0) {
      ::close(daemon_fd);
      daemon_fd = -1;
    }
    int fd = ::open(lock.c_str(), O_RDWR | O_CLOEXEC);
    taken = fd >= 0 && ::flock(fd, LOCK_EX | LOCK_NB) == 0;
    if (fd >= 0) ::close(fd);
    return taken;
  };
  AnalysisOutcome outcome =
      AnalyzeIsolated({trace}, {}, {}, store::JobContext{}, AnalysisLimits{}, dir / "result", stop);
  EXPECT_TRUE(taken) << "the analysis process held the lock until it ended";
  EXPECT_EQ(outcome.kind, AnalysisOutcome::Kind::kStopped) << outcome.error;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace plasmient::serve
