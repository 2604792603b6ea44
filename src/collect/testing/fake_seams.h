// Test support: the agent's CUPTI and NVML seams faked, for tests and the live driver that run
// the duty-cycled agent without a GPU. FakeCupti produces CUDA 13.0 kernel structs through the
// real ActivityConverter while the agent's kernel switch is on — back to back on the GPU
// timeline, each with its launch inside the cuBLAS GEMM call that made it — and switching off returns once
// they are all in the sink (what cuptiActivityDisable and a forced flush do). FakeNvml is one
// GPM-capable device whose tensor activity depends on whether a window is open.
#pragma once

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "collect/agent/agent.h"
#include "collect/agent/clock.h"
#include "collect/cupti/activity_converter.h"
#include "collect/nvml/nvml_api.h"
#include "collect/testing/fake_activity_buffer.h"

namespace plasmient::collect::fake {

inline constexpr char kKernelName[] = "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64";
inline constexpr char kDeviceName[] = "NVIDIA H100 80GB HBM3";

struct KernelPlan {
  std::uint64_t kernel_ns = 500'000;  // every kernel's duration
  std::int64_t m = 4096, n = 4096, k = 4096;
  std::int32_t cuda_type = 14;  // CUDA_R_16BF
  bool gemm_records = true;     // the cuBLAS call of each kernel (its FLOPs)
};

// ---- NVML: one device; GPM tensor activity `tensor_pct_window` while the agent's kernel
// switch is on, `tensor_pct_between` otherwise; SM and DRAM activity fixed.
inline std::atomic<double> g_tensor_pct_window{40.0}, g_tensor_pct_between{20.0};
inline std::atomic<const Agent*> g_nvml_agent{nullptr};
inline int g_gpm_sample;
inline constexpr double kSmPct = 90.0, kDramPct = 30.0;

inline nvml::NvmlReturn NvmlOk() { return nvml::kNvmlSuccess; }
inline nvml::NvmlReturn NvmlByBusId(const char*, nvml::NvmlDevice* d) {
  *d = reinterpret_cast<nvml::NvmlDevice>(std::uintptr_t{1});
  return nvml::kNvmlSuccess;
}
inline nvml::NvmlReturn NvmlUtil(nvml::NvmlDevice, nvml::NvmlUtilization* u) {
  *u = {99, 40};
  return nvml::kNvmlSuccess;
}
inline nvml::NvmlReturn NvmlGpmSupport(nvml::NvmlDevice, nvml::NvmlGpmSupport* s) {
  s->is_supported_device = 1;
  return nvml::kNvmlSuccess;
}
inline nvml::NvmlReturn NvmlGpmAlloc(nvml::NvmlGpmSample* s) {
  *s = reinterpret_cast<nvml::NvmlGpmSample>(&g_gpm_sample);
  return nvml::kNvmlSuccess;
}
inline nvml::NvmlReturn NvmlGpmFree(nvml::NvmlGpmSample) { return nvml::kNvmlSuccess; }
inline nvml::NvmlReturn NvmlGpmGet(nvml::NvmlDevice, nvml::NvmlGpmSample) { return nvml::kNvmlSuccess; }
inline nvml::NvmlReturn NvmlGpmMetrics(nvml::NvmlGpmMetricsGet* m) {
  const Agent* a = g_nvml_agent.load();
  double tensor = a != nullptr && a->kernels_on() ? g_tensor_pct_window.load() : g_tensor_pct_between.load();
  for (unsigned i = 0; i < m->num_metrics; ++i) {
    unsigned id = m->metrics[i].metric_id;  // NVML ids: 2 SM, 5 tensor, 10 DRAM
    m->metrics[i].nvml_return = nvml::kNvmlSuccess;
    m->metrics[i].value = id == 5 ? tensor : id == 2 ? kSmPct : id == 10 ? kDramPct : 10.0;
  }
  return nvml::kNvmlSuccess;
}
inline bool OneDevice(std::vector<nvml::CudaDevice>& devices) {
  devices = {{"0000:18:00.0", "", 1}};  // in use by the process
  return true;
}
inline nvml::NvmlApi Nvml(const Agent& agent) {
  g_nvml_agent.store(&agent);
  nvml::NvmlApi api;
  api.init = &NvmlOk;
  api.shutdown = &NvmlOk;
  api.device_by_pci_bus_id = &NvmlByBusId;
  api.utilization = &NvmlUtil;
  api.gpm_query_support = &NvmlGpmSupport;
  api.gpm_sample_alloc = &NvmlGpmAlloc;
  api.gpm_sample_free = &NvmlGpmFree;
  api.gpm_sample_get = &NvmlGpmGet;
  api.gpm_metrics_get = &NvmlGpmMetrics;
  return api;
}

// ---- CUPTI ----------------------------------------------------------------------------------
inline constexpr std::uint32_t kLaunchCbid = 211;  // CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000
inline const char* ApiName(wire::ApiDomain domain, std::uint32_t cbid) {
  return domain == wire::ApiDomain::kRuntime && cbid == kLaunchCbid ? "cudaLaunchKernel_v7000" : nullptr;
}

class FakeCupti {
 public:
  FakeCupti(Agent& agent, const KernelPlan& plan = {})
      : agent_(agent), plan_(plan), converter_(agent.sink(), &FakeActivityBuffer::Next, &ApiName) {
    FakeActivityBuffer devices;
    CUpti_ActivityDevice5 dev{};
    dev.kind = CUPTI_ACTIVITY_KIND_DEVICE;
    dev.numMultiprocessors = 132;
    dev.computeCapabilityMajor = 9;
    dev.coreClockRate = 1'980'000;
    dev.globalMemorySize = 80ull << 30;
    dev.globalMemoryBandwidth = 3'350'000'000ull;
    dev.name = kDeviceName;
    devices.Add(dev);
    Convert(devices);  // cuptiActivityEnableAndDump(DEVICE) at start
    converter_.Flush();
    agent.SetKernelSwitch([this](bool on) {
      std::lock_guard<std::mutex> lock(mutex_);
      if (on && !on_) cursor_ns_ = MonotonicNs();
      on_ = on;
      if (!on) converter_.Flush();
    });
    thread_ = std::thread([this] { Produce(); });
  }
  ~FakeCupti() { Stop(); }
  FakeCupti(const FakeCupti&) = delete;
  FakeCupti& operator=(const FakeCupti&) = delete;

  void Stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }
  std::int64_t fed() const { return fed_; }

 private:
  void Convert(FakeActivityBuffer& b) {
    FakeActivityBuffer::Use(&b);
    converter_.ConvertBuffer(b.data(), b.size());
  }
  // Kernels back to back from the window's start up to now: the GPU timeline has no gap.
  void Produce() {
    while (!stop_) {
      {
        std::lock_guard<std::mutex> lock(mutex_);
        FakeActivityBuffer b;
        std::uint64_t now = MonotonicNs();
        while (on_ && cursor_ns_ + plan_.kernel_ns <= now) {
          CUpti_ActivityKernel10 k{};
          k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
          k.start = cursor_ns_;
          k.end = cursor_ns_ + plan_.kernel_ns;
          k.streamId = 7;
          k.correlationId = ++correlation_;
          k.gridX = k.blockX = 128;
          k.gridY = k.gridZ = k.blockY = k.blockZ = 1;
          k.name = kKernelName;
          // The launch inside the cuBLAS call, on the same thread (CUPTI RUNTIME records).
          CUpti_ActivityAPI api{};
          api.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
          api.cbid = kLaunchCbid;
          api.start = k.start - 18'000;
          api.end = k.start - 12'000;
          api.processId = static_cast<std::uint32_t>(getpid());
          api.threadId = kThread;
          api.correlationId = k.correlationId;
          b.Add(api);
          b.Add(k);
          if (plan_.gemm_records) Gemm(k);
          cursor_ns_ += plan_.kernel_ns;
          ++fed_;
        }
        if (b.records() > 0) Convert(b);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }
  void Gemm(const CUpti_ActivityKernel10& k) {
    wire::GemmRecord g{};
    g.header = wire::HeaderFor<wire::GemmRecord>(wire::RecordKind::kGemm);
    g.start_ns = k.start - 20'000;
    g.end_ns = k.start - 10'000;
    g.m = plan_.m;
    g.n = plan_.n;
    g.k = plan_.k;
    g.batch = 1;
    g.pid = static_cast<std::uint32_t>(getpid());
    g.tid = kThread;
    g.first_correlation = k.correlationId;
    g.launches = 1;
    g.a_type = g.b_type = g.c_type = plan_.cuda_type;
    g.compute_type = 68;  // CUBLAS_COMPUTE_32F
    g.api = static_cast<std::uint8_t>(wire::GemmApi::kGemmEx);
    agent_.sink().PushSmall(g);
  }

  static constexpr std::uint32_t kThread = 1;
  Agent& agent_;
  KernelPlan plan_;
  ActivityConverter converter_;
  std::mutex mutex_;
  bool on_ = false;
  std::uint64_t cursor_ns_ = 0;
  std::uint32_t correlation_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<std::int64_t> fed_{0};
  std::thread thread_;
};

}  // namespace plasmient::collect::fake
