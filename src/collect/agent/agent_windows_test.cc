// The duty-cycled agent end to end, with the CUPTI and NVML seams faked (fake_seams.h): an Agent
// whose kernel switch drives a stand-in CUPTI (real CUDA 13.0 kernel structs through the
// ActivityConverter) and an NvmlSampler over a stand-in NVML, run for several windows. The spool must receive
// one complete file per window and per stretch between windows, each readable on its own, holding exactly the
// kernels fed while its window was open; a spool that refuses files costs counted drops, never the process; a
// window cut by kill -9 reads up to its last chunk.
#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "collect/agent/agent.h"
#include "collect/agent/clock.h"
#include "collect/nvml/nvml_sampler.h"
#include "collect/testing/fake_seams.h"
#include "ingest/native/native_reader.h"
#include "wire/chunk_codec.h"

namespace plasmient::collect {
namespace {

using namespace std::chrono_literals;

using fake::FakeCupti;
constexpr std::uint64_t kKernelNs = fake::KernelPlan{}.kernel_ns;

std::string TempSpool(const std::string& name) {
  std::string dir = ::testing::TempDir() + "/" + name + "_" + std::to_string(getpid());
  EXPECT_EQ(std::system(("rm -rf " + dir + " && mkdir -p " + dir).c_str()), 0);
  return dir;
}

std::vector<std::string> Names(const std::string& dir) {
  std::vector<std::string> out;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      std::string n = e->d_name;
      if (n != "." && n != "..") out.push_back(n);
    }
    closedir(d);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::uint32_t HeaderFlags(const std::string& path) {
  wire::FileHeader h{};
  std::ifstream(path, std::ios::binary).read(reinterpret_cast<char*>(&h), sizeof h);
  return h.flags;
}

AgentConfig WindowedConfig(const std::string& spool, double period_s, double window_s) {
  AgentConfig c;
  c.spool = spool;
  c.out_dir = spool;
  c.pid = getpid();
  c.rank = 3;
  c.world_size = 8;
  c.host = "node-7";
  c.job_id = "j42";
  c.period_s = period_s;
  c.phase_on_wall_clock = false;  // windows phased from the start: the test's timings
  c.window_s = window_s;
  c.zstd_level = 0;
  return c;
}

std::int64_t Kernels(const model::Trace& t) {
  return std::count(t.gpu.kind.begin(), t.gpu.kind.end(), model::GpuKind::kKernel);
}

TEST(AgentWindows, SpoolGetsOneCompleteFilePerWindowAndStretch) {
  std::string spool = TempSpool("agent_windows");
  // Windows of 0.3 s at the end of every 0.6 s: samples, window, samples, window, ...
  Agent agent(WindowedConfig(spool, 0.6, 0.3), SinkOptions{});
  ASSERT_EQ(agent.Start(), "");
  nvml::NvmlSampler sampler(agent.sink(), fake::Nvml(agent), 20, &fake::OneDevice, -1);
  std::string why;
  ASSERT_TRUE(sampler.Init(why)) << why;
  sampler.Start();
  FakeCupti cupti(agent);
  std::this_thread::sleep_for(2100ms);
  cupti.Stop();
  sampler.Stop();
  agent.Shutdown();

  std::vector<std::string> names = Names(spool);
  ASSERT_GE(names.size(), 5u) << "expected at least samples, window, samples, window, samples";
  std::int64_t kernels = 0, windows = 0;
  for (std::size_t seq = 0; seq < names.size(); ++seq) {
    char expected[64];
    std::snprintf(expected, sizeof expected, "j42-3-node_7-%d-%06zu.pltrace", getpid(), seq);
    ASSERT_EQ(names[seq], expected)
        << "names: job-rank-host-pid-seq ('-' in a part becomes '_'), no .part left behind";
    std::string path = spool + "/" + names[seq];
    auto t = ingest::native::ReadNative(path);
    ASSERT_TRUE(t) << t.error().message;
    EXPECT_EQ(t->quality.Get(model::Dq::kTruncatedNativeFile), 0) << names[seq];
    EXPECT_EQ(t->quality.Get(model::Dq::kDroppedRecords), 0) << names[seq];
    EXPECT_EQ(t->info.job_id, "j42") << names[seq] << ": every file carries the process record";
    EXPECT_EQ(t->info.rank, 3) << names[seq];
    ASSERT_EQ(t->devices.size(), 1u) << names[seq] << ": and the device";
    EXPECT_EQ(t->devices[0].name, fake::kDeviceName);
    std::uint32_t flags = HeaderFlags(path);
    EXPECT_TRUE(flags & wire::kFileWindow) << names[seq];
    bool window = (flags & wire::kFileKernels) != 0;
    EXPECT_EQ(window, seq % 2 == 1) << names[seq] << ": samples and windows alternate";
    std::int64_t n = Kernels(*t);
    if (window) {
      ++windows;
      // (the last may have opened just before the end)
      if (seq + 1 < names.size()) {
        EXPECT_GT(n, 0) << names[seq] << ": a window holds the kernels fed during it";
      }
    } else {
      EXPECT_EQ(n, 0) << names[seq] << ": kernels outside windows";
    }
    kernels += n;
    for (std::size_t i = 0; i < t->gpu.kind.size(); ++i) {
      EXPECT_EQ(t->gpu.end_ns[i] - t->gpu.start_ns[i], static_cast<std::int64_t>(kKernelNs));
      EXPECT_EQ(t->Str(t->gpu.name[i]), fake::kKernelName) << "names resolve in every file";
    }
    // The device tier runs throughout: GPM tensor activity in every file, as fed.
    bool tensor = false;
    for (std::size_t i = 0; i < t->samples.value.size(); ++i) {
      if (t->Str(t->samples.metric[i]) == "gpm.tensor_util_pct") {
        tensor = true;
        double v = t->samples.value[i];
        EXPECT_TRUE(v == fake::g_tensor_pct_window || v == fake::g_tensor_pct_between) << v;
      }
    }
    EXPECT_TRUE(tensor || seq + 1 == names.size()) << names[seq] << ": device-tier samples";
  }
  EXPECT_GE(windows, 2);
  EXPECT_EQ(kernels, cupti.fed()) << "every kernel fed in a window is in exactly one file";
  EXPECT_EQ(agent.writer().files_dropped(), 0u);
  std::system(("rm -rf " + spool).c_str());
}

TEST(AgentWindows, RefusingSpoolDropsAndCountsThenRecovers) {
  std::string spool = TempSpool("agent_windows_refused");
  std::string missing = spool + "/not-yet";
  // Always in a window, one file every 0.4 s; the spool folder does not exist at first.
  Agent agent(WindowedConfig(missing, 0.4, 0.4), SinkOptions{});
  EXPECT_EQ(agent.Start(), "") << "a refusing spool does not stop the agent";
  FakeCupti cupti(agent);
  std::this_thread::sleep_for(900ms);
  EXPECT_GE(agent.writer().files_dropped(), 1u);
  EXPECT_GT(agent.sink().Drops(wire::DropSource::kSpool), 0);
  ASSERT_EQ(mkdir(missing.c_str(), 0755), 0);
  std::this_thread::sleep_for(900ms);
  cupti.Stop();
  agent.Shutdown();
  std::vector<std::string> names = Names(missing);
  ASSERT_FALSE(names.empty()) << "the spool took files again once it could";
  auto first = ingest::native::ReadNative(missing + "/" + names.front());
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_GT(first->quality.Get(model::Dq::kDroppedRecords), 0)
      << "the first file written reports what the refused windows held";
  std::int64_t kernels = 0;
  for (const auto& n : names) {
    auto t = ingest::native::ReadNative(missing + "/" + n);
    ASSERT_TRUE(t) << t.error().message;
    kernels += Kernels(*t);
  }
  // Dropped records: each kernel not written with its launch and GEMM call, plus the few
  // process, device and string records of the files that could not be written.
  std::int64_t dropped = agent.sink().Drops(wire::DropSource::kSpool);
  constexpr std::int64_t kRecordsPerKernel = 3;
  EXPECT_GE(dropped, kRecordsPerKernel * (cupti.fed() - kernels))
      << "each kernel is written or counted as dropped";
  EXPECT_LE(dropped, kRecordsPerKernel * (cupti.fed() - kernels) + 16);
  std::system(("rm -rf " + spool).c_str());
}

// `plasmient capture`: a request file in the spool opens a window now, for its length; a request
// older than its length is ignored.
TEST(AgentWindows, CaptureRequestOpensAWindowNow) {
  std::string spool = TempSpool("agent_windows_capture");
  Agent agent(WindowedConfig(spool, 100, 1), SinkOptions{});  // the first scheduled window: in 99 s
  ASSERT_EQ(agent.Start(), "");
  FakeCupti cupti(agent);
  ASSERT_EQ(WriteCaptureRequest(CaptureRequestPath(spool, "j42"), RealtimeNs() - 10'000'000'000, 2), "");
  std::this_thread::sleep_for(300ms);
  EXPECT_FALSE(agent.kernels_on()) << "a request left behind (older than its length) is over";
  ASSERT_EQ(WriteCaptureRequest(CaptureRequestPath(spool, "j42"), RealtimeNs(), 0.5), "");
  std::this_thread::sleep_for(300ms);
  EXPECT_TRUE(agent.kernels_on()) << "the request opens a window within a tick";
  std::this_thread::sleep_for(600ms);
  EXPECT_FALSE(agent.kernels_on()) << "and closes it after its length";
  // The same request is served once; a new one, for this process only, opens another.
  ASSERT_EQ(WriteCaptureRequest(CaptureRequestPath(spool, getpid()), RealtimeNs(), 0.3), "");
  std::this_thread::sleep_for(700ms);
  cupti.Stop();
  agent.Shutdown();
  std::vector<std::string> names;
  for (const auto& n : Names(spool)) {
    if (n.ends_with(".pltrace")) names.push_back(n);
  }
  ASSERT_EQ(names.size(), 5u) << "samples, captured window, samples, captured window, samples";
  for (std::size_t i = 0; i < names.size(); ++i) {
    auto t = ingest::native::ReadNative(spool + "/" + names[i]);
    ASSERT_TRUE(t) << t.error().message;
    bool window = (HeaderFlags(spool + "/" + names[i]) & wire::kFileKernels) != 0;
    EXPECT_EQ(window, i % 2 == 1) << names[i];
    if (window) {
      EXPECT_GT(Kernels(*t), 0) << names[i];
    } else {
      EXPECT_EQ(Kernels(*t), 0) << names[i];
    }
  }
  std::system(("rm -rf " + spool).c_str());
}

// kill -9 in the middle of a window: the .part file reads up to its last complete chunk.
TEST(AgentWindows, WindowCutByKillReadsUpToItsLastChunk) {
  std::string spool = TempSpool("agent_windows_killed");
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    Agent agent(WindowedConfig(spool, 30, 30), SinkOptions{});  // one long window
    if (!agent.Start().empty()) _exit(3);
    FakeCupti cupti(agent);
    for (;;) std::this_thread::sleep_for(10ms);
  }
  std::string part;
  auto until = std::chrono::steady_clock::now() + 10s;
  while (std::chrono::steady_clock::now() < until) {
    for (const auto& n : Names(spool)) {
      struct stat st {};
      if (n.ends_with(".part") && stat((spool + "/" + n).c_str(), &st) == 0 && st.st_size > 20'000) part = n;
    }
    if (!part.empty()) break;
    std::this_thread::sleep_for(20ms);
  }
  kill(child, SIGKILL);
  int status = 0;
  waitpid(child, &status, 0);
  ASSERT_FALSE(part.empty()) << "the window's .part file did not grow";
  EXPECT_TRUE(part.starts_with(".j42-3-node_7-")) << part;
  auto t = ingest::native::ReadNative(spool + "/" + part);
  ASSERT_TRUE(t) << t.error().message;
  EXPECT_EQ(t->quality.Get(model::Dq::kTruncatedNativeFile), 1) << "no closing chunk: the cut is said";
  EXPECT_EQ(t->quality.Get(model::Dq::kCorruptChunk), 0);
  EXPECT_GT(Kernels(*t), 100) << "the complete chunks before the cut are read";
  EXPECT_EQ(t->info.job_id, "j42");
  std::system(("rm -rf " + spool).c_str());
}

}  // namespace
}  // namespace plasmient::collect
