// StartCuptiSession against a stand-in CUPTI defined here (no libcupti, no driver): the version
// rule, DEVICE records dumped at enable, and a failed set-up leaving CUPTI as it found it.
#include "collect/cupti/cupti_session.h"

#include <cupti.h>
#include <dlfcn.h>
#include <generated_nvtx_meta.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "collect/agent/agent.h"
#include "collect/agent/clock.h"
#include "collect/cublas/gemm_scope.h"
#include "collect/cupti/cupti_api.h"
#include "collect/cupti/nvtx_steps.h"
#include "collect/testing/fake_activity_buffer.h"
#include "ingest/native/native_reader.h"

namespace {

std::uint32_t g_version = CUPTI_API_VERSION;
bool g_subscribed = false;
int g_unsubscribes = 0;
std::set<int> g_enabled;
std::set<int> g_dumped;
std::set<std::pair<int, int>> g_callbacks;  // (domain, cbid) enabled
CUpti_ActivityKind g_failing_kind = CUPTI_ACTIVITY_KIND_INVALID;
CUpti_CallbackFunc g_callback = nullptr;
std::set<std::pair<int, int>> g_api_filtered;  // (RUNTIME/DRIVER kind, cbid) not recorded
CUpti_BuffersCallbackRequestFunc g_buffer_requested = nullptr;
CUpti_BuffersCallbackCompleteFunc g_buffer_completed = nullptr;

// The stand-in GPU: a kernel launched while CONCURRENT_KERNEL is enabled completes `g_gpu_lag_ns`
// later. An unforced flush hands over the completed ones; a forced flush hands over all, the
// incomplete ones with zero timestamps (cupti_activity.h: "could not be collected").
struct PendingKernel {
  std::uint32_t correlation;
  std::uint64_t start_ns, end_ns;
};
std::mutex g_gpu_mutex;
std::vector<PendingKernel> g_pending;
std::uint32_t g_correlation = 0;
std::uint64_t g_gpu_lag_ns = 300'000'000;

}  // namespace

namespace plasmient::collect {
GemmScope*& CurrentGemmScope() {
  thread_local GemmScope* scope = nullptr;
  return scope;
}
}  // namespace plasmient::collect

extern "C" {
CUptiResult cuptiGetVersion(uint32_t* v) {
  *v = g_version;
  return CUPTI_SUCCESS;
}
CUptiResult cuptiSubscribe_v2(CUpti_SubscriberHandle* h, CUpti_CallbackFunc callback, void*,
                              CUpti_SubscriberParams*) {
  if (g_subscribed) return CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
  g_subscribed = true;
  g_callback = callback;
  *h = reinterpret_cast<CUpti_SubscriberHandle>(0x10);
  return CUPTI_SUCCESS;
}
CUptiResult cuptiUnsubscribe(CUpti_SubscriberHandle) {
  g_subscribed = false;
  ++g_unsubscribes;
  return CUPTI_SUCCESS;
}
CUptiResult cuptiEnableCallback(uint32_t on, CUpti_SubscriberHandle, CUpti_CallbackDomain d,
                                CUpti_CallbackId id) {
  std::lock_guard<std::mutex> lock(g_gpu_mutex);
  if (on) {
    g_callbacks.insert({d, static_cast<int>(id)});
  } else {
    g_callbacks.erase({d, static_cast<int>(id)});
  }
  return CUPTI_SUCCESS;
}
CUptiResult cuptiActivitySetAttribute(CUpti_ActivityAttribute, size_t*, void*) { return CUPTI_SUCCESS; }
CUptiResult cuptiActivityRegisterTimestampCallback(CUpti_TimestampCallbackFunc) { return CUPTI_SUCCESS; }
CUptiResult cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc requested,
                                           CUpti_BuffersCallbackCompleteFunc completed) {
  g_buffer_requested = requested;
  g_buffer_completed = completed;
  return CUPTI_SUCCESS;
}
CUptiResult cuptiActivityEnableRuntimeApi(CUpti_CallbackId cbid, uint8_t enable) {
  std::lock_guard<std::mutex> lock(g_gpu_mutex);
  if (enable)
    g_api_filtered.erase({CUPTI_ACTIVITY_KIND_RUNTIME, cbid});
  else
    g_api_filtered.insert({CUPTI_ACTIVITY_KIND_RUNTIME, cbid});
  return CUPTI_SUCCESS;
}
CUptiResult cuptiActivityEnableDriverApi(CUpti_CallbackId cbid, uint8_t enable) {
  std::lock_guard<std::mutex> lock(g_gpu_mutex);
  if (enable)
    g_api_filtered.erase({CUPTI_ACTIVITY_KIND_DRIVER, cbid});
  else
    g_api_filtered.insert({CUPTI_ACTIVITY_KIND_DRIVER, cbid});
  return CUPTI_SUCCESS;
}
CUptiResult cuptiActivityEnable(CUpti_ActivityKind kind) {
  std::lock_guard<std::mutex> lock(g_gpu_mutex);
  if (kind == g_failing_kind) return CUPTI_ERROR_UNKNOWN;
  // Enabling the whole kind overrides the per-API settings made before (cupti_activity.h).
  for (auto it = g_api_filtered.begin(); it != g_api_filtered.end();)
    it = it->first == kind ? g_api_filtered.erase(it) : std::next(it);
  g_enabled.insert(kind);
  return CUPTI_SUCCESS;
}
CUptiResult cuptiActivityEnableAndDump(CUpti_ActivityKind kind) {
  if (kind == g_failing_kind) return CUPTI_ERROR_UNKNOWN;
  g_enabled.insert(kind);
  g_dumped.insert(kind);
  return CUPTI_SUCCESS;
}
CUptiResult cuptiActivityDisable(CUpti_ActivityKind kind) {
  std::lock_guard<std::mutex> lock(g_gpu_mutex);
  g_enabled.erase(kind);
  return CUPTI_SUCCESS;
}
CUptiResult cuptiActivityFlushAll(uint32_t flags) {
  std::lock_guard<std::mutex> lock(g_gpu_mutex);
  const bool forced = (flags & CUPTI_ACTIVITY_FLAG_FLUSH_FORCED) != 0;
  const std::uint64_t now = plasmient::collect::MonotonicNs();
  plasmient::collect::FakeActivityBuffer records;
  std::vector<PendingKernel> left;
  for (const PendingKernel& p : g_pending) {
    if (!forced && p.end_ns > now) {
      left.push_back(p);
      continue;
    }
    CUpti_ActivityKernel10 k{};
    k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
    k.correlationId = p.correlation;
    k.streamId = 7;
    k.gridX = k.gridY = k.gridZ = k.blockX = k.blockY = k.blockZ = 1;
    k.name = "standin_kernel";
    if (p.end_ns <= now) {
      k.start = p.start_ns;
      k.end = p.end_ns;
    }
    records.Add(k);
  }
  g_pending.swap(left);
  if (records.records() == 0 || g_buffer_requested == nullptr) return CUPTI_SUCCESS;
  uint8_t* buffer = nullptr;
  size_t size = 0, max_records = 0;
  g_buffer_requested(&buffer, &size, &max_records);
  if (buffer == nullptr || size < records.size()) return CUPTI_SUCCESS;
  std::memcpy(buffer, records.data(), records.size());
  plasmient::collect::FakeActivityBuffer::Use(&records);
  g_buffer_completed(nullptr, 0, buffer, size, records.size());
  return CUPTI_SUCCESS;
}
CUptiResult cuptiActivityGetNumDroppedRecords(CUcontext, uint32_t, size_t* n) {
  *n = 0;
  return CUPTI_SUCCESS;
}
CUptiResult cuptiActivityGetNextRecord(uint8_t* buffer, size_t valid, CUpti_Activity** record) {
  return plasmient::collect::FakeActivityBuffer::Next(buffer, valid, record);
}
CUptiResult cuptiGetResultString(CUptiResult, const char** text) {
  *text = "stand-in error";
  return CUPTI_SUCCESS;
}
CUptiResult cuptiGetCallbackName(CUpti_CallbackDomain, uint32_t, const char** name) {
  *name = nullptr;
  return CUPTI_ERROR_INVALID_PARAMETER;
}
}  // extern "C"

namespace plasmient::collect {
namespace {

// The stand-ins above, found the way the agent finds libcupti's (the test exports its symbols).
CuptiApi StandIn() {
  CuptiApi api;
  EXPECT_EQ(ResolveCupti(RTLD_DEFAULT, api), "");
  return api;
}

struct TestAgent {
  explicit TestAgent(double period_s = 0, double window_s = 0)
      : agent(Config(period_s, window_s), SinkOptions{}) {
    EXPECT_EQ(agent.Start(), "");
  }
  ~TestAgent() {
    agent.Shutdown();
    if (!agent.config().windowed()) std::remove(agent.path().c_str());
  }
  static AgentConfig Config(double period_s, double window_s) {
    AgentConfig c;
    c.out_dir = ::testing::TempDir();
    c.spool = ::testing::TempDir() + "/cupti_session_spool_" + std::to_string(getpid());
    c.pid = getpid();
    c.host = "cupti-test";
    c.period_s = period_s;
    c.phase_on_wall_clock = false;  // windows phased from the start: the test's timings
    c.window_s = window_s;
    if (period_s > 0) {
      EXPECT_EQ(system(("mkdir -p " + c.spool).c_str()), 0);
    }
    return c;
  }
  Agent agent;
};

const char* NoEnv(const char*) { return nullptr; }

// PyTorch's wheels keep libcupti under site-packages, where neither the loader cache nor a
// RUNPATH looks: the folders next to the loaded torch are tried before the toolkit's.
TEST(CuptiLibrary, WheelFoldersComeBeforeTheToolkit) {
  std::vector<std::string> loaded = {"/usr/lib/x86_64-linux-gnu/libc.so.6",
                                     "/opt/venv/lib/python3.12/site-packages/torch/lib/libtorch_cuda.so"};
  auto c = CuptiCandidates(loaded, &NoEnv, "/build/cuda/lib/libcupti.so.13");
  ASSERT_GE(c.size(), 4u);
  EXPECT_EQ(c[0], "/opt/venv/lib/python3.12/site-packages/nvidia/cu13/lib/libcupti.so.13");
  EXPECT_EQ(c[1], "/opt/venv/lib/python3.12/site-packages/nvidia/cuda_cupti/lib/libcupti.so.13");
  EXPECT_EQ(c[2], "libcupti.so.13") << "then the loader's own search";
  EXPECT_EQ(c.back(), "/build/cuda/lib/libcupti.so.13") << "the build's copy last";
  auto env = [](const char* n) -> const char* {
    return std::string(n) == "PLASMIENT_CUPTI_LIBRARY" ? "/x/libcupti.so.13" : nullptr;
  };
  EXPECT_EQ(CuptiCandidates(loaded, env, "/b"), std::vector<std::string>{"/x/libcupti.so.13"})
      << "the user's choice alone";
}

TEST(CuptiLibrary, NoneUsableSaysWhy) {
  CuptiApi api;
  std::string why = OpenCupti({"/nonexistent/libcupti.so.13"}, api);
  EXPECT_NE(why.find("no usable libcupti.so.13"), std::string::npos) << why;
  EXPECT_EQ(why.find('\n'), std::string::npos) << "one line";
}

// CUPTI 13.0's graph-correlation and long-session bugs are named for the version in use.
TEST(CuptiSession, KnownBugsOfTheVersionAreNamed) {
  std::string old = CuptiKnownIssues(130001);
  EXPECT_NE(old.find("cudaGraphLaunch correlation"), std::string::npos) << old;
  EXPECT_NE(old.find("13.4 Update 1"), std::string::npos) << old;
  std::string mid = CuptiKnownIssues(130200);
  EXPECT_EQ(mid.find("cudaGraphLaunch"), std::string::npos) << mid;
  EXPECT_NE(mid.find("CPU use"), std::string::npos) << mid;
  EXPECT_EQ(CuptiKnownIssues(130500), "");
}

TEST(CuptiSession, SameMajorVersionIsAccepted) {
  EXPECT_TRUE(CuptiVersionSupported(CUPTI_API_VERSION));
  EXPECT_TRUE(CuptiVersionSupported(130200));  // CUDA 13.2's CUPTI, loaded first by PyTorch
  EXPECT_FALSE(CuptiVersionSupported(120900));
  EXPECT_FALSE(CuptiVersionSupported(140000));
  EXPECT_FALSE(CuptiVersionSupported(28));  // 12.9's old numbering
}

// 13.2's records were compared with the build's; a later minor is read the same way and said so.
TEST(CuptiSession, NewerMinorLayoutsAreNamed) {
  EXPECT_EQ(CuptiLayoutNote(CUPTI_API_VERSION), "");
  EXPECT_EQ(CuptiLayoutNote(130000), "");
  std::string checked = CuptiLayoutNote(130202);  // PyTorch 2.15's nvidia-cuda-cupti 13.2.86
  EXPECT_NE(checked.find("libcupti 130202 is newer than the build's"), std::string::npos) << checked;
  EXPECT_NE(checked.find("(checked"), std::string::npos) << checked;
  std::string unchecked = CuptiLayoutNote(130400);
  EXPECT_NE(unchecked.find("unchecked"), std::string::npos) << unchecked;
}

TEST(CuptiSession, NewerMinorStartsAndDumpsDevices) {
  TestAgent t;
  g_version = 130200;
  EXPECT_EQ(StartCuptiSession(t.agent, StandIn()), "");
  EXPECT_TRUE(g_subscribed);
  EXPECT_TRUE(g_enabled.count(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
  EXPECT_TRUE(g_dumped.count(CUPTI_ACTIVITY_KIND_DEVICE)) << "devices that exist before enable are emitted";
  EXPECT_FALSE(g_dumped.count(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
  cuptiUnsubscribe(nullptr);
  g_enabled.clear();
  g_version = CUPTI_API_VERSION;
}

bool Filtered(int kind, int cbid) {
  std::lock_guard<std::mutex> lock(g_gpu_mutex);
  return g_api_filtered.count({kind, cbid}) > 0;
}

// API records the analysis never reads are filtered, the agent's own NVML device lookups among
// them, and again after each window's enable (which resets the filters); launches are kept.
TEST(CuptiSession, UnreadApiRecordsAreFilteredInEveryWindow) {
  TestAgent t(/*period_s=*/5, /*window_s=*/5);  // always in a window: the switch enables again
  ASSERT_EQ(StartCuptiSession(t.agent, StandIn()), "");
  EXPECT_TRUE(Filtered(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020));
  EXPECT_TRUE(Filtered(CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuDevicePrimaryCtxGetState))
      << "the NVML sampler's own lookups";
  EXPECT_TRUE(Filtered(CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuDeviceGetPCIBusId));
  EXPECT_FALSE(Filtered(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000));
  EXPECT_FALSE(Filtered(CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel));
  cuptiUnsubscribe(nullptr);
  std::lock_guard<std::mutex> lock(g_gpu_mutex);
  g_enabled.clear();
  g_callbacks.clear();
  g_api_filtered.clear();
}

// Between windows only DEVICE stays enabled; inside one, every kind.
TEST(CuptiSession, WindowedSessionSwitchesKindsWithTheWindow) {
  {
    TestAgent t(/*period_s=*/100, /*window_s=*/1);  // the first window opens after 99 s
    EXPECT_EQ(StartCuptiSession(t.agent, StandIn()), "");
    EXPECT_FALSE(t.agent.kernels_on());
    EXPECT_EQ(g_enabled, std::set<int>{CUPTI_ACTIVITY_KIND_DEVICE});
    for (const auto& [domain, id] : g_callbacks)
      EXPECT_EQ(domain, CUPTI_CB_DOMAIN_NVTX) << "launch callbacks off between windows: " << id;
    EXPECT_EQ(g_callbacks.size(), std::size(kNvtxRangeStarts)) << "only the step ranges are watched";
    cuptiUnsubscribe(nullptr);
    g_enabled.clear();
  }
  TestAgent t(/*period_s=*/5, /*window_s=*/5);  // always in a window, one file every 5 s
  EXPECT_EQ(StartCuptiSession(t.agent, StandIn()), "");
  EXPECT_TRUE(t.agent.kernels_on());
  EXPECT_TRUE(g_enabled.count(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
  EXPECT_TRUE(g_enabled.count(CUPTI_ACTIVITY_KIND_MARKER));
  EXPECT_FALSE(g_callbacks.empty());
  cuptiUnsubscribe(nullptr);
  g_enabled.clear();
}

// NVTX calls as CUPTI reports them to the subscriber: a range that starts, with its text.
void NvtxRangePush(const char* text) {
  nvtxRangePushA_params params{text};
  CUpti_NvtxData data{"nvtxRangePushA", &params, nullptr};
  g_callback(nullptr, CUPTI_CB_DOMAIN_NVTX, CUPTI_CBID_NVTX_nvtxRangePushA, &data);
}

bool KernelsOnWithin(const Agent& agent, std::chrono::milliseconds limit) {
  auto until = std::chrono::steady_clock::now() + limit;
  while (!agent.kernels_on() && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return agent.kernels_on();
}

// Steps visible: the due window waits, kernels off, for the next ProfilerStep range, and opens
// when it starts (the writer switches within its poll); other ranges do not open it.
TEST(CuptiSession, DueWindowOpensAtTheNextStepRange) {
  TestAgent t(/*period_s=*/3, /*window_s=*/1.5);  // due 1.5 s after the start
  ASSERT_EQ(StartCuptiSession(t.agent, StandIn()), "");
  ASSERT_NE(g_callback, nullptr);
  EXPECT_TRUE(g_callbacks.count({CUPTI_CB_DOMAIN_NVTX, CUPTI_CBID_NVTX_nvtxRangePushA}))
      << "step ranges are watched between windows";
  NvtxRangePush("ProfilerStep#1");  // steps are visible
  std::this_thread::sleep_for(std::chrono::milliseconds(2200));
  EXPECT_FALSE(t.agent.kernels_on()) << "due since 1.5 s, armed: waits for a step";
  NvtxRangePush("aten::mm");
  EXPECT_FALSE(KernelsOnWithin(t.agent, std::chrono::milliseconds(150))) << "not a step";
  NvtxRangePush("ProfilerStep#2");
  EXPECT_TRUE(KernelsOnWithin(t.agent, std::chrono::milliseconds(1000)));
  EXPECT_TRUE(g_enabled.count(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
  cuptiUnsubscribe(nullptr);
  g_enabled.clear();
  g_callbacks.clear();
}

// The application launches a kernel: CUPTI's launch callback when it is enabled, and a kernel on
// the stand-in GPU when kernel tracing is. True when the kernel will be traced.
bool Launch() {
  bool traced = false, callback = false;
  std::uint32_t correlation = 0;
  constexpr int kLaunch = CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000;
  {
    std::lock_guard<std::mutex> lock(g_gpu_mutex);
    correlation = ++g_correlation;
    callback = g_callbacks.count({CUPTI_CB_DOMAIN_RUNTIME_API, kLaunch}) > 0;
    if (g_enabled.count(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)) {
      std::uint64_t now = MonotonicNs();
      g_pending.push_back({correlation, now + 1'000, now + g_gpu_lag_ns});
      traced = true;
    }
  }
  if (callback) {
    CUpti_CallbackData data{};
    data.correlationId = correlation;
    data.callbackSite = CUPTI_API_ENTER;
    g_callback(nullptr, CUPTI_CB_DOMAIN_RUNTIME_API, kLaunch, &data);
    data.callbackSite = CUPTI_API_EXIT;
    g_callback(nullptr, CUPTI_CB_DOMAIN_RUNTIME_API, kLaunch, &data);
  }
  return traced;
}

std::int64_t KernelCount(const model::Trace& t) {
  return std::count(t.gpu.kind.begin(), t.gpu.kind.end(), model::GpuKind::kKernel);
}

// The window's files in the spool, in order, read back.
std::vector<model::Trace> SpoolFiles(const std::string& spool) {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(spool))
    if (e.path().extension() == ".pltrace") names.push_back(e.path().string());
  std::sort(names.begin(), names.end());
  std::vector<model::Trace> out;
  for (const std::string& n : names) {
    auto t = ingest::native::ReadNative(n);
    EXPECT_TRUE(t) << n << ": " << t.error().message;
    if (t) out.push_back(std::move(*t));
  }
  return out;
}

// PyTorch runs ahead of the GPU: when a window closes, its last kernels have been launched but
// not run. The close stops new records, keeps the window's file open until every kernel launched
// in it has come back (the launch callbacks give the count), then rotates: the window holds them
// all, with real timestamps, and the samples file after it none.
TEST(CuptiSession, WindowCloseWaitsForTheKernelsLaunchedInIt) {
  std::int64_t traced = 0;
  std::string spool = ::testing::TempDir() + "/cupti_session_spool_" + std::to_string(getpid());
  std::filesystem::remove_all(spool);  // other tests' windows
  {
    TestAgent t(/*period_s=*/2, /*window_s=*/1);  // the window: 1 s to 2 s after the start
    ASSERT_EQ(StartCuptiSession(t.agent, StandIn()), "");
    auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(2600);
    while (std::chrono::steady_clock::now() < until) {
      traced += Launch();
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));  // before the next window, at 3 s
    t.agent.Shutdown();
    cuptiUnsubscribe(nullptr);
    std::lock_guard<std::mutex> lock(g_gpu_mutex);
    g_enabled.clear();
    g_callbacks.clear();
    g_pending.clear();
  }
  ASSERT_GT(traced, 50) << "kernels were launched inside the window";
  std::vector<model::Trace> files = SpoolFiles(spool);
  ASSERT_EQ(files.size(), 3u) << "samples, window, samples";
  EXPECT_EQ(KernelCount(files[0]), 0);
  EXPECT_EQ(KernelCount(files[1]), traced) << "every kernel launched in the window, in its file";
  EXPECT_EQ(KernelCount(files[2]), 0) << "none moved into the next file";
  for (const model::Trace& f : files) EXPECT_EQ(f.quality.Get(model::Dq::kDroppedRecords), 0);
  std::filesystem::remove_all(spool);
}

// torch.profiler's Kineto, as it calls CUPTI (pytorch/kineto CuptiActivityApi.cpp): its own
// buffer callbacks, its kinds, and at its stop a disable and a flush.
std::atomic<int> g_kineto_records{0};
alignas(8) std::uint8_t g_kineto_buffer[1 << 20];
void CUPTIAPI KinetoRequested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = g_kineto_buffer;
  *size = sizeof g_kineto_buffer;
  *max_records = 0;
}
void CUPTIAPI KinetoCompleted(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  CUpti_Activity* record = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) ++g_kineto_records;
}

// A torch.profiler session in the middle of a whole-run trace takes CUPTI's activity API (its
// failed subscribe ignored, its buffer callbacks replacing ours). The agent counts the launches
// it could not see as dropped, re-arms after the profiler stops, and traces the rest: the trace
// is never silently short with 0 drops.
TEST(CuptiSession, TorchProfilerSessionIsCountedAndTracingResumes) {
  g_gpu_lag_ns = 1'000'000;
  g_kineto_records = 0;
  TestAgent t;
  ASSERT_EQ(StartCuptiSession(t.agent, StandIn()), "");
  auto launch = [](int n) {
    int traced = 0;
    for (int i = 0; i < n; ++i) traced += Launch();
    std::this_thread::sleep_for(std::chrono::milliseconds(300));  // the writer flushes
    return traced;
  };
  EXPECT_EQ(launch(50), 50);
  // torch.profiler starts.
  CUpti_SubscriberHandle kineto = nullptr;
  EXPECT_NE(cuptiSubscribe_v2(&kineto, nullptr, nullptr, nullptr), CUPTI_SUCCESS) << "Kineto ignores it";
  ForeignRegisterCallbacks(&cuptiActivityRegisterCallbacks, &KinetoRequested, &KinetoCompleted);
  cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  launch(60);
  // torch.profiler stops: disables its kinds, then flushes its buffers.
  ForeignDisable(&cuptiActivityDisable, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  cuptiActivityFlushAll(0);
  EXPECT_EQ(g_kineto_records, 60) << "the profiler's own trace is whole";
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // re-armed on the next tick
  EXPECT_EQ(launch(70), 70) << "kernel tracing is on again";
  t.agent.Shutdown();
  auto trace = ingest::native::ReadNative(t.agent.path());
  ASSERT_TRUE(trace) << trace.error().message;
  EXPECT_EQ(KernelCount(*trace), 120) << "before and after the profiler session";
  EXPECT_EQ(trace->quality.Get(model::Dq::kDroppedRecords), 60) << "the span it could not see, counted";
  cuptiUnsubscribe(nullptr);
  std::lock_guard<std::mutex> lock(g_gpu_mutex);
  g_enabled.clear();
  g_callbacks.clear();
  g_pending.clear();
  g_gpu_lag_ns = 300'000'000;
}

TEST(CuptiSession, FailedSetUpUnsubscribesAndDisables) {
  TestAgent t;
  g_failing_kind = CUPTI_ACTIVITY_KIND_MARKER;
  int unsubscribes = g_unsubscribes;
  std::string why = StartCuptiSession(t.agent, StandIn());
  EXPECT_NE(why.find("stand-in error"), std::string::npos) << why;
  EXPECT_FALSE(g_subscribed) << "CUPTI left subscribed: no other tool can attach";
  EXPECT_EQ(g_unsubscribes, unsubscribes + 1);
  EXPECT_TRUE(g_enabled.empty()) << "kinds left enabled after a failed set-up";
  g_failing_kind = CUPTI_ACTIVITY_KIND_INVALID;
}

}  // namespace
}  // namespace plasmient::collect
