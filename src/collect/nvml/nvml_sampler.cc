#include "collect/nvml/nvml_sampler.h"

#include <chrono>
#include <cstdio>

#include "collect/agent/clock.h"

namespace plasmient::collect::nvml {
namespace {

struct GpmMetricId {
  unsigned id;
  wire::NvmlMetric metric;
};
// GPM metric ids from NVML's header (gpu-apis.md 8.4).
constexpr GpmMetricId kGpmMetrics[] = {
    {2, wire::NvmlMetric::kGpmSmUtilPct},     {3, wire::NvmlMetric::kGpmSmOccupancyPct},
    {5, wire::NvmlMetric::kGpmTensorUtilPct}, {10, wire::NvmlMetric::kGpmDramBwUtilPct},
    {12, wire::NvmlMetric::kGpmFp32UtilPct},  {13, wire::NvmlMetric::kGpmFp16UtilPct},
};

}  // namespace

NvmlSampler::NvmlSampler(RecordSink& sink, const NvmlApi& api, int period_ms, CudaBusIdsFn cuda_bus_ids,
                         int local_rank)
    : sink_(sink),
      api_(api),
      period_ms_(period_ms < 1 ? 1 : period_ms),
      cuda_bus_ids_(cuda_bus_ids),
      local_rank_(local_rank) {}

NvmlSampler::~NvmlSampler() { Stop(); }

bool NvmlSampler::Init(std::string& why) {
  if (api_.init() != kNvmlSuccess) {
    why = "nvmlInit_v2 failed";
    return false;
  }
  initialized_ = true;
  return true;
}

bool NvmlSampler::Discover() {
  std::vector<std::string> bus_ids;
  if (cuda_bus_ids_ == nullptr || !cuda_bus_ids_(bus_ids)) return false;
  discovered_ = true;
  std::size_t first = 0, last = bus_ids.size();
  if (local_rank_ >= 0 && static_cast<std::size_t>(local_rank_) < bus_ids.size() && bus_ids.size() > 1) {
    first = static_cast<std::size_t>(local_rank_);
    last = first + 1;
  }
  for (std::size_t i = first; i < last; ++i) {
    Device d;
    d.cuda_ordinal = static_cast<std::uint32_t>(i);
    if (api_.device_by_pci_bus_id(bus_ids[i].c_str(), &d.handle) != kNvmlSuccess) {
      notes_.push_back("CUDA device " + std::to_string(i) + " (" + bus_ids[i] + ") not found in NVML");
      continue;
    }
    unsigned current = 0, pending = 0;
    d.mig = api_.mig_mode != nullptr && api_.mig_mode(d.handle, &current, &pending) == kNvmlSuccess &&
            current == kNvmlMigEnabled;
    if (d.mig) {
      notes_.push_back("CUDA device " + std::to_string(i) +
                       " is a GPU in MIG mode: whole-GPU utilization is not supported there, not reported");
    }
    NvmlGpmSupport support{1, 0};
    d.gpm = !d.mig && api_.gpm_query_support && api_.gpm_sample_alloc && api_.gpm_sample_get &&
            api_.gpm_metrics_get && api_.gpm_query_support(d.handle, &support) == kNvmlSuccess &&
            support.is_supported_device != 0 && api_.gpm_sample_alloc(&d.samples[0]) == kNvmlSuccess &&
            api_.gpm_sample_alloc(&d.samples[1]) == kNvmlSuccess;
    devices_.push_back(d);
  }
  for (const std::string& note : notes_) std::fprintf(stderr, "plasmient agent: NVML: %s\n", note.c_str());
  return true;
}

void NvmlSampler::Start() {
  thread_ = std::thread([this] {
    while (!stop_.load(std::memory_order_acquire)) {
      SampleOnce(MonotonicNs());
      // Sleep in short steps so Stop() does not wait a whole period.
      for (int waited = 0; waited < period_ms_ && !stop_.load(std::memory_order_acquire); waited += 10) {
        std::this_thread::sleep_for(std::chrono::milliseconds(std::min(10, period_ms_ - waited)));
      }
    }
  });
}

void NvmlSampler::Stop() {
  stop_.store(true, std::memory_order_release);
  if (thread_.joinable()) thread_.join();
  if (!initialized_) return;
  for (Device& d : devices_) {
    for (NvmlGpmSample& s : d.samples) {
      if (s != nullptr && api_.gpm_sample_free) api_.gpm_sample_free(s);
      s = nullptr;
    }
  }
  api_.shutdown();
  initialized_ = false;
}

void NvmlSampler::Emit(std::uint64_t ts_ns, std::uint32_t device, wire::NvmlMetric metric, double value) {
  wire::NvmlSampleRecord r{};
  r.header = wire::HeaderFor<wire::NvmlSampleRecord>(wire::RecordKind::kNvmlSample);
  r.ts_ns = ts_ns;
  r.device = device;
  r.metric = static_cast<std::uint16_t>(metric);
  r.value = value;
  sink_.PushSmall(r);
}

void NvmlSampler::SampleOnce(std::uint64_t now_ns) {
  using M = wire::NvmlMetric;
  if (!discovered_ && !Discover()) return;
  for (Device& d : devices_) {
    std::uint32_t i = d.cuda_ordinal;
    NvmlUtilization util{};
    if (!d.mig && api_.utilization && api_.utilization(d.handle, &util) == kNvmlSuccess) {
      Emit(now_ns, i, M::kGpuUtilPct, util.gpu);
      Emit(now_ns, i, M::kMemoryUtilPct, util.memory);
    }
    unsigned mhz = 0;
    if (api_.clock_info && api_.clock_info(d.handle, kNvmlClockSm, &mhz) == kNvmlSuccess) {
      Emit(now_ns, i, M::kSmClockMhz, mhz);
    }
    if (api_.clock_info && api_.clock_info(d.handle, kNvmlClockMem, &mhz) == kNvmlSuccess) {
      Emit(now_ns, i, M::kMemClockMhz, mhz);
    }
    unsigned mw = 0;
    if (api_.power_usage && api_.power_usage(d.handle, &mw) == kNvmlSuccess) {
      Emit(now_ns, i, M::kPowerMw, mw);
    }
    unsigned long long reasons = 0;
    if (api_.clock_reasons && api_.clock_reasons(d.handle, &reasons) == kNvmlSuccess) {
      Emit(now_ns, i, M::kThrottleReasons, static_cast<double>(reasons));
    }
    NvmlMemory mem{};
    if (api_.memory_info && api_.memory_info(d.handle, &mem) == kNvmlSuccess) {
      Emit(now_ns, i, M::kMemoryUsedBytes, static_cast<double>(mem.used));
      Emit(now_ns, i, M::kMemoryTotalBytes, static_cast<double>(mem.total));
    }
    if (d.gpm) SampleGpm(now_ns, i, d);
  }
}

// Each poll takes one GPM sample; the metrics cover the window since the previous one.
// NVML: GPM windows shorter than 100 ms are invalid, so faster polls skip GPM.
void NvmlSampler::SampleGpm(std::uint64_t now_ns, std::uint32_t index, Device& d) {
  if (d.primed && now_ns - d.last_gpm_ns < 100'000'000) return;
  d.last_gpm_ns = now_ns;
  NvmlGpmSample fill = d.samples[d.current];
  if (api_.gpm_sample_get(d.handle, fill) != kNvmlSuccess) return;
  if (d.primed) {
    NvmlGpmMetricsGet m{};
    m.version = 1;
    m.num_metrics = static_cast<unsigned>(std::size(kGpmMetrics));
    m.sample1 = d.samples[1 - d.current];
    m.sample2 = fill;
    for (unsigned k = 0; k < m.num_metrics; ++k) m.metrics[k].metric_id = kGpmMetrics[k].id;
    if (api_.gpm_metrics_get(&m) == kNvmlSuccess) {
      for (unsigned k = 0; k < m.num_metrics; ++k) {
        if (m.metrics[k].nvml_return == kNvmlSuccess) {
          Emit(now_ns, index, kGpmMetrics[k].metric, m.metrics[k].value);
        }
      }
    }
  }
  d.primed = true;
  d.current = 1 - d.current;
}

}  // namespace plasmient::collect::nvml
