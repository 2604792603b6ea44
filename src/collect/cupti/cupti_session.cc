#include "collect/cupti/cupti_session.h"

#include <cupti.h>
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "collect/agent/agent.h"
#include "collect/agent/bounded_queue.h"
#include "collect/agent/clock.h"
#include "collect/cublas/gemm_scope.h"
#include "collect/cupti/activity_converter.h"
#include "collect/cupti/cupti_api.h"
#include "collect/cupti/nvtx_steps.h"

namespace plasmient::collect {
namespace {

constexpr std::size_t kBufferBytes = 2 << 20;
constexpr std::size_t kMaxBuffers = 64;  // 128 MiB at most, allocated on demand

struct Session {
  Agent* agent = nullptr;
  std::unique_ptr<ActivityConverter> converter;
  BoundedQueue<std::uint8_t*> free_buffers{kMaxBuffers};
  std::atomic<std::size_t> allocated{0};
  std::atomic<std::uint8_t*> ours[kMaxBuffers] = {};  // the buffers we allocated
  CUpti_SubscriberHandle subscriber = nullptr;
  // Kernel launches the callbacks saw (windows: only inside them), and at the open window's
  // start, the launches and kernel records so far; when it closed.
  std::atomic<std::uint64_t> launches{0};
  std::uint64_t open_launches = 0, open_kernels = 0, closed_ns = 0;
  // Another CUPTI client (torch.profiler's Kineto) holding the activity API: its buffer
  // callbacks replaced ours. Launches meanwhile are counted as not seen (`excused` from the
  // window's accounting); re-armed on the writer's next tick after it disables its kinds.
  std::vector<CUpti_ActivityKind> kinds;  // what we enable while kernels are on
  std::mutex foreign_mutex;
  bool taken = false;
  std::uint64_t taken_ns = 0, taken_launches = 0;
  std::atomic<bool> rearm{false};
  std::atomic<std::uint64_t> excused{0};
  std::uint64_t open_excused = 0;
};

// A closed window waits this long for the records of the kernels launched in it (PyTorch runs
// up to a step ahead of the GPU), then gives up on the rest, counted (DropSource::kWindowClose).
constexpr std::uint64_t kWindowGraceNs = 2'000'000'000;

Session* g_session = nullptr;
CuptiApi g_api;
thread_local bool t_in_runtime_launch = false;

std::uint64_t Timestamp() { return MonotonicNs(); }

const char* ApiName(wire::ApiDomain domain, std::uint32_t cbid) {
  const char* name = nullptr;
  auto d = domain == wire::ApiDomain::kRuntime ? CUPTI_CB_DOMAIN_RUNTIME_API : CUPTI_CB_DOMAIN_DRIVER_API;
  return g_api.GetCallbackName(d, cbid, &name) == CUPTI_SUCCESS ? name : nullptr;
}

void CUPTIAPI BufferRequested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *max_records = 0;
  *size = kBufferBytes;
  *buffer = nullptr;
  if (g_session->free_buffers.TryPop(*buffer)) return;
  if (std::size_t i = g_session->allocated.fetch_add(1); i < kMaxBuffers) {
    *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kBufferBytes));
    if (*buffer != nullptr) std::memset(*buffer, 0, kBufferBytes);
    g_session->ours[i].store(*buffer);
  }
  // nullptr: CUPTI drops records and counts them; we read the count at completion.
}

void CUPTIAPI BufferCompleted(CUcontext ctx, uint32_t stream, uint8_t* buffer, size_t size, size_t valid) {
  Session& s = *g_session;
  if (buffer != nullptr && valid > 0) s.converter->ConvertBuffer(buffer, valid);
  size_t dropped = 0;
  if (g_api.GetNumDroppedRecords(ctx, stream, &dropped) == CUPTI_SUCCESS && dropped > 0) {
    s.agent->sink().CountDrops(wire::DropSource::kCuptiBuffers, static_cast<std::int64_t>(dropped));
  }
  if (buffer == nullptr) return;
  // A buffer another client requested, handed back to us after our callbacks were re-armed:
  // its records are read, the buffer is not ours to reuse or free.
  bool ours = false;
  for (const auto& b : s.ours) ours = ours || b.load(std::memory_order_relaxed) == buffer;
  if (!ours) return;
  std::memset(buffer, 0, valid);  // we asked CUPTI for pre-zeroed buffers
  if (!s.free_buffers.TryPush(buffer)) std::free(buffer);
}

bool IsRuntimeLaunch(CUpti_CallbackId cbid) {
  switch (cbid) {
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060:
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060:
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000:
    case CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000:
    case CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000:
      return true;
    default:
      return false;
  }
}

constexpr CUpti_CallbackId kDriverLaunches[] = {
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel};
constexpr CUpti_CallbackId kRuntimeLaunches[] = {
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000,
    CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000,
    CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000};

void NoteLaunch(std::uint32_t correlation) {
  g_session->launches.fetch_add(1, std::memory_order_relaxed);
  NoteKernelLaunch(correlation);
}

// Launch callbacks: report the launch's correlation id to a cuBLAS call in progress on this
// thread. A driver launch made inside a runtime launch is the same kernel: counted once.
void CUPTIAPI OnCallback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) {
  const auto* cb = static_cast<const CUpti_CallbackData*>(data);
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API && IsRuntimeLaunch(cbid)) {
    t_in_runtime_launch = cb->callbackSite == CUPTI_API_ENTER;
    if (cb->callbackSite == CUPTI_API_ENTER) NoteLaunch(cb->correlationId);
  } else if (domain == CUPTI_CB_DOMAIN_DRIVER_API && cb->callbackSite == CUPTI_API_ENTER &&
             !t_in_runtime_launch) {
    NoteLaunch(cb->correlationId);
  } else if (domain == CUPTI_CB_DOMAIN_NVTX) {
    const auto* nvtx = static_cast<const CUpti_NvtxData*>(data);
    if (!IsStepRangeName(NvtxRangeText(cbid, nvtx->functionParams))) return;
    if (g_session != nullptr) g_session->agent->OnStepBoundary();
  }
}

void EnableLaunchCallbacks(CUpti_SubscriberHandle subscriber, bool on) {
  for (CUpti_CallbackId id : kRuntimeLaunches) {
    g_api.EnableCallback(on ? 1 : 0, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, id);
  }
  for (CUpti_CallbackId id : kDriverLaunches)
    g_api.EnableCallback(on ? 1 : 0, subscriber, CUPTI_CB_DOMAIN_DRIVER_API, id);
}

// API records the analysis never reads (launches, copies, syncs, allocations and graph calls
// it does): device and context queries PyTorch makes constantly, and the agent's own NVML
// sampler's device lookups (cuDeviceGet*, cuDevicePrimaryCtxGetState on every poll, ~330
// records/s per rank on 8 GPUs). Enabling RUNTIME/DRIVER resets these filters
// (cupti_activity.h), so they are applied after every enable.
constexpr CUpti_CallbackId kUnreadRuntimeApis[] = {
    CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaGetDeviceCount_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaGetLastError_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaPeekAtLastError_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamIsCapturing_v10000,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamGetCaptureInfo_v2_v11030};
constexpr CUpti_CallbackId kUnreadDriverApis[] = {
    CUPTI_DRIVER_TRACE_CBID_cuDeviceGet,          CUPTI_DRIVER_TRACE_CBID_cuDeviceGetCount,
    CUPTI_DRIVER_TRACE_CBID_cuDeviceGetAttribute, CUPTI_DRIVER_TRACE_CBID_cuCtxGetCurrent,
    CUPTI_DRIVER_TRACE_CBID_cuDeviceGetPCIBusId,  CUPTI_DRIVER_TRACE_CBID_cuDevicePrimaryCtxGetState,
    CUPTI_DRIVER_TRACE_CBID_cuDeviceGetUuid_v2,   CUPTI_DRIVER_TRACE_CBID_cuKernelGetAttribute,
    CUPTI_DRIVER_TRACE_CBID_cuGetProcAddress,     CUPTI_DRIVER_TRACE_CBID_cuGetProcAddress_v2};

void FilterUnreadApis() {
  if (g_api.EnableRuntimeApi != nullptr)
    for (CUpti_CallbackId id : kUnreadRuntimeApis) g_api.EnableRuntimeApi(id, 0);
  if (g_api.EnableDriverApi != nullptr)
    for (CUpti_CallbackId id : kUnreadDriverApis) g_api.EnableDriverApi(id, 0);
}

void FlushCupti(bool forced) { g_api.ActivityFlushAll(forced ? CUPTI_ACTIVITY_FLAG_FLUSH_FORCED : 0); }

// libcupti's own path, for NVTX injection (NVTX reads NVTX_INJECTION64_PATH at its first call).
void PointNvtxAtCupti() {
  if (std::getenv("NVTX_INJECTION64_PATH") != nullptr || g_api.path.empty()) return;
  setenv("NVTX_INJECTION64_PATH", g_api.path.c_str(), 0);
}

// Our clock, buffer callbacks and (kernels on) kinds again, after another client let go.
void Rearm(Session& s, bool kernels_on) {
  g_api.RegisterTimestampCallback(&Timestamp);
  g_api.RegisterCallbacks(&BufferRequested, &BufferCompleted);
  if (kernels_on) {
    for (CUpti_ActivityKind kind : s.kinds) g_api.ActivityEnable(kind);
    FilterUnreadApis();
  }
}

}  // namespace

CUptiResult ForeignRegisterCallbacks(decltype(&cuptiActivityRegisterCallbacks) real,
                                     CUpti_BuffersCallbackRequestFunc requested,
                                     CUpti_BuffersCallbackCompleteFunc completed) {
  CUptiResult rc = real(requested, completed);
  Session* s = g_session;
  if (s == nullptr || rc != CUPTI_SUCCESS || requested == &BufferRequested) return rc;
  std::lock_guard<std::mutex> lock(s->foreign_mutex);
  if (!s->taken) {
    s->taken = true;
    s->taken_ns = MonotonicNs();
    s->taken_launches = s->launches.load();
    s->rearm.store(false);
    std::fprintf(stderr,
                 "plasmient agent: another CUPTI client (torch.profiler?) took activity tracing; "
                 "kernels launched until it stops are counted as not seen\n");
  }
  return rc;
}

CUptiResult ForeignDisable(decltype(&cuptiActivityDisable) real, CUpti_ActivityKind kind) {
  CUptiResult rc = real(kind);
  Session* s = g_session;
  if (s == nullptr || kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) return rc;
  std::lock_guard<std::mutex> lock(s->foreign_mutex);
  if (!s->taken) return rc;
  // The other client stopped (Kineto disables its kinds, then flushes its buffers): the span is
  // counted, and we re-arm on the writer's next tick, after its flush.
  s->taken = false;
  std::uint64_t unseen = s->launches.load() - s->taken_launches;
  s->excused.fetch_add(unseen);
  if (unseen > 0)
    s->agent->sink().CountDrops(wire::DropSource::kCuptiTaken, static_cast<std::int64_t>(unseen));
  std::fprintf(stderr,
               "plasmient agent: another CUPTI client held activity tracing for %.3f s: %llu kernels "
               "launched then are not in the trace (counted as dropped); tracing resumes\n",
               static_cast<double>(MonotonicNs() - s->taken_ns) / 1e9,
               static_cast<unsigned long long>(unseen));
  s->rearm.store(true);
  return rc;
}

bool CuptiVersionSupported(std::uint32_t runtime_version) {
  return runtime_version / 10000 == CUPTI_API_VERSION / 10000;
}

std::string CuptiKnownIssues(std::uint32_t runtime_version) {
  std::string out;
  if (runtime_version < 130200) {
    out += "libcupti " + std::to_string(runtime_version) +
           ": cudaGraphLaunch correlation ids may be wrong in every session after the first (fixed in "
           "13.1 Update 1): graph kernels in windows after the first may not tie to their launch\n";
  }
  if (runtime_version < 130500) {
    out += "libcupti " + std::to_string(runtime_version) +
           ": CPU use of long activity tracing may grow without bound (fixed in 13.4 Update 1): "
           "prefer windows (PLASMIENT_PERIOD_S) to whole-run traces of long jobs\n";
  }
  return out;
}

std::string CuptiLayoutNote(std::uint32_t runtime_version) {
  if (runtime_version <= CUPTI_API_VERSION) return {};
  std::string newer = "libcupti " + std::to_string(runtime_version) + " is newer than the build's " +
                      std::to_string(CUPTI_API_VERSION) + ": records are read with the build's layouts";
  return newer + (runtime_version <= kCuptiLayoutsCheckedThrough
                      ? " (checked: its records keep those fields in place)"
                      : ", unchecked for this version");
}

namespace {

std::string ResultText(CUptiResult rc) {
  const char* text = nullptr;
  g_api.GetResultString(rc, &text);
  return text != nullptr ? text : "error " + std::to_string(rc);
}

// What a half-done set-up enabled, undone on failure so CUPTI is left as we found it.
struct SetUp {
  CUpti_SubscriberHandle subscriber = nullptr;
  std::vector<CUpti_ActivityKind> enabled;
  void Undo() {
    for (auto it = enabled.rbegin(); it != enabled.rend(); ++it) g_api.ActivityDisable(*it);
    enabled.clear();
    if (subscriber != nullptr) g_api.Unsubscribe(subscriber);
    subscriber = nullptr;
  }
};

}  // namespace

std::string StartCuptiSession(Agent& agent, const CuptiApi& api) {
  g_api = api;
  uint32_t version = 0;
  if (g_api.GetVersion(&version) != CUPTI_SUCCESS || !CuptiVersionSupported(version)) {
    return "libcupti reports API version " + std::to_string(version) + ", built for " +
           std::to_string(CUPTI_API_VERSION) + " (record layouts differ between major versions)";
  }
  std::string note = CuptiLayoutNote(version);
  if (!note.empty()) std::fprintf(stderr, "plasmient agent: %s\n", note.c_str());
  std::string issues = CuptiKnownIssues(version);
  for (std::size_t at = 0, end; (end = issues.find('\n', at)) != std::string::npos; at = end + 1)
    std::fprintf(stderr, "plasmient agent: %.*s\n", static_cast<int>(end - at), issues.c_str() + at);
  auto* s = new Session();  // lives until the process ends: CUPTI may call back during exit
  s->agent = &agent;
  s->converter = std::make_unique<ActivityConverter>(agent.sink(), g_api.GetNextRecord, &ApiName);
  g_session = s;

  SetUp setup;
  char old_name[128] = {};
  CUpti_SubscriberParams params{};
  params.structSize = CUpti_SubscriberParams_STRUCT_SIZE;
  params.subscriberName = "Plasmient";
  params.oldSubscriberName = old_name;
  params.oldSubscriberSize = sizeof old_name;
  if (g_api.Subscribe(&setup.subscriber, &OnCallback, nullptr, &params) != CUPTI_SUCCESS) {
    setup.subscriber = nullptr;
    return std::string("another CUPTI client is attached (") + (old_name[0] != '\0' ? old_name : "unknown") +
           ")";
  }
  s->subscriber = setup.subscriber;
  EnableLaunchCallbacks(s->subscriber, true);
  uint8_t zeroed = 1;
  size_t one = sizeof zeroed;
  g_api.ActivitySetAttribute(CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER, &one, &zeroed);
  if (g_api.RegisterTimestampCallback(&Timestamp) != CUPTI_SUCCESS) {
    setup.Undo();
    return "cuptiActivityRegisterTimestampCallback failed";
  }
  if (g_api.RegisterCallbacks(&BufferRequested, &BufferCompleted) != CUPTI_SUCCESS) {
    setup.Undo();
    return "cuptiActivityRegisterCallbacks failed";
  }
  PointNvtxAtCupti();
  static constexpr CUpti_ActivityKind kKinds[] = {
      CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
      CUPTI_ACTIVITY_KIND_MEMCPY,
      CUPTI_ACTIVITY_KIND_MEMCPY2,
      CUPTI_ACTIVITY_KIND_MEMSET,
      CUPTI_ACTIVITY_KIND_RUNTIME,
      CUPTI_ACTIVITY_KIND_DRIVER,
      CUPTI_ACTIVITY_KIND_SYNCHRONIZATION,
      CUPTI_ACTIVITY_KIND_OVERHEAD,
      CUPTI_ACTIVITY_KIND_MARKER,
      CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION,
      CUPTI_ACTIVITY_KIND_DEVICE,
  };
  for (CUpti_ActivityKind kind : kKinds) {
    // DEVICE records are emitted at driver initialization, which may already be under way when
    // the injection runs: EnableAndDump also emits the devices that exist.
    CUptiResult rc =
        kind == CUPTI_ACTIVITY_KIND_DEVICE ? g_api.ActivityEnableAndDump(kind) : g_api.ActivityEnable(kind);
    if (rc == CUPTI_SUCCESS) setup.enabled.push_back(kind);
    if (rc != CUPTI_SUCCESS && rc != CUPTI_ERROR_NOT_COMPATIBLE) {
      setup.Undo();
      return "g_api.ActivityEnable(" + std::to_string(kind) + "): " + ResultText(rc);
    }
  }
  FilterUnreadApis();
  for (CUpti_ActivityKind kind : setup.enabled)
    if (kind != CUPTI_ACTIVITY_KIND_DEVICE) s->kinds.push_back(kind);
  if (agent.config().windowed()) {
    // Step ranges, always: a due window opens at the next step (window_schedule.h). One string
    // comparison per NVTX range the application starts.
    for (CUpti_CallbackId id : kNvtxRangeStarts)
      g_api.EnableCallback(1, s->subscriber, CUPTI_CB_DOMAIN_NVTX, id);
    // Between windows every kind but DEVICE is off, and so are the launch callbacks: the
    // application's launches cost CUPTI nothing there.
    std::vector<CUpti_ActivityKind> switched;
    for (CUpti_ActivityKind kind : setup.enabled) {
      if (kind != CUPTI_ACTIVITY_KIND_DEVICE) switched.push_back(kind);
    }
    // Off stops new records only: the window's file stays open while the kernels launched in
    // it run (the drain below). cuptiActivityFlushAll does not wait for the GPU, and a forced
    // flush returns incomplete records with zero timestamps.
    agent.SetKernelSwitch([s, switched](bool on) {
      if (on) {
        s->open_launches = s->launches.load(std::memory_order_relaxed);
        s->open_kernels = s->converter->kernels_seen();
        s->open_excused = s->excused.load(std::memory_order_relaxed);
      }
      EnableLaunchCallbacks(s->subscriber, on);
      for (CUpti_ActivityKind kind : switched) on ? g_api.ActivityEnable(kind) : g_api.ActivityDisable(kind);
      if (on) FilterUnreadApis();
      if (!on) s->closed_ns = MonotonicNs();
    });
    agent.SetWindowDrain([s](bool force) {
      std::uint64_t want = s->launches.load(std::memory_order_relaxed) - s->open_launches -
                           (s->excused.load(std::memory_order_relaxed) - s->open_excused);
      {
        std::lock_guard<std::mutex> lock(s->foreign_mutex);  // counted when the other client stops
        if (s->taken)
          want -= std::min(want, s->launches.load() - std::max(s->taken_launches, s->open_launches));
      }
      if (!force && s->converter->kernels_seen() - s->open_kernels < want &&
          MonotonicNs() - s->closed_ns < kWindowGraceNs) {
        FlushCupti(false);  // completed buffers only
        return false;
      }
      FlushCupti(true);
      s->converter->Flush();
      std::uint64_t got = s->converter->kernels_seen() - s->open_kernels;
      if (got < want)
        s->agent->sink().CountDrops(wire::DropSource::kWindowClose, static_cast<std::int64_t>(want - got));
      return true;
    });
  }
  agent.SetWriterTick([s, &agent] {
    if (s->rearm.exchange(false)) Rearm(*s, agent.kernels_on());
    FlushCupti(false);
  });
  agent.AddPreCloseHook([s, &agent] {
    FlushCupti(true);
    s->converter->Flush();
    // A whole-run trace is one window: launches whose kernels never came (another client
    // holding CUPTI unseen, records CUPTI lost) are counted, never a silent 0.
    if (!agent.config().windowed()) {
      std::uint64_t want = s->launches.load() - s->excused.load(), got = s->converter->kernels_seen();
      if (got < want)
        agent.sink().CountDrops(wire::DropSource::kWindowClose, static_cast<std::int64_t>(want - got));
    }
  });
  return {};
}

}  // namespace plasmient::collect
