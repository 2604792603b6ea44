#include "collect/nvml/nvml_sampler.h"

#include <algorithm>
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

NvmlSampler::NvmlSampler(RecordSink& sink, const NvmlApi& api, int period_ms, CudaDevicesFn cuda_devices,
                         int local_rank)
    : sink_(sink),
      api_(api),
      period_ms_(period_ms < 1 ? 1 : period_ms),
      cuda_devices_(cuda_devices),
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

std::vector<std::size_t> NvmlSampler::OwnOrdinals(const std::vector<CudaDevice>& cuda,
                                                  std::uint64_t now_ns) const {
  std::vector<std::size_t> active;
  bool known = false;
  for (std::size_t i = 0; i < cuda.size(); ++i) {
    known = known || cuda[i].in_use >= 0;
    if (cuda[i].in_use == 1) active.push_back(i);
  }
  bool rank_known = local_rank_ >= 0 && static_cast<std::size_t>(local_rank_) < cuda.size();
  if (!active.empty()) {
    for (std::size_t i : active) {
      if (rank_known && i == static_cast<std::size_t>(local_rank_)) return {i};
    }
    return active;
  }
  if (known && now_ns - cuda_seen_ns_ < kOwnDeviceWaitNs) return {};  // no context yet: wait
  if (rank_known && cuda.size() > 1) return {static_cast<std::size_t>(local_rank_)};
  std::vector<std::size_t> all(cuda.size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
  return all;
}

// The NVML handles of CUDA device `ordinal`: by UUID (a GPU's, or a MIG instance's), else by bus
// id. False with a note when NVML does not know it.
bool NvmlSampler::Add(std::size_t ordinal, const CudaDevice& cuda) {
  Device d;
  d.cuda_ordinal = static_cast<std::uint32_t>(ordinal);
  std::string name =
      "CUDA device " + std::to_string(ordinal) + " (" + (cuda.uuid.empty() ? cuda.bus_id : cuda.uuid) + ")";
  NvmlDevice instance = nullptr;
  if (api_.device_by_uuid != nullptr && !cuda.uuid.empty() &&
      api_.device_by_uuid(("GPU-" + cuda.uuid).c_str(), &d.handle) != kNvmlSuccess) {
    d.handle = nullptr;
    if (api_.device_by_uuid(("MIG-" + cuda.uuid).c_str(), &instance) != kNvmlSuccess) instance = nullptr;
  }
  // A MIG instance's GPU (clocks, power) is the one at its bus id.
  if (d.handle == nullptr && !cuda.bus_id.empty() &&
      api_.device_by_pci_bus_id(cuda.bus_id.c_str(), &d.handle) != kNvmlSuccess) {
    d.handle = nullptr;
  }
  if (d.handle == nullptr && instance == nullptr) {
    notes_.push_back(name + " not found in NVML");
    return false;
  }
  unsigned current = 0, pending = 0;
  d.mig = instance != nullptr ||
          (api_.mig_mode != nullptr && d.handle != nullptr &&
           api_.mig_mode(d.handle, &current, &pending) == kNvmlSuccess && current == kNvmlMigEnabled);
  // Under MIG only an instance handle answers for the instance's memory; the GPU's is all of it.
  d.memory_handle = d.mig ? instance : d.handle;
  if (d.mig) {
    notes_.push_back(name + " is a MIG instance: whole-GPU utilization is not supported there, not reported" +
                     (instance != nullptr ? "" : "; nor is its memory (its instance is not known to NVML)"));
  }
  NvmlGpmSupport support{1, 0};
  d.gpm = !d.mig && api_.gpm_query_support && api_.gpm_sample_alloc && api_.gpm_sample_get &&
          api_.gpm_metrics_get && api_.gpm_query_support(d.handle, &support) == kNvmlSuccess &&
          support.is_supported_device != 0 && api_.gpm_sample_alloc(&d.samples[0]) == kNvmlSuccess &&
          api_.gpm_sample_alloc(&d.samples[1]) == kNvmlSuccess;
  devices_.push_back(d);
  return true;
}

void NvmlSampler::Discover(std::uint64_t now_ns) {
  std::vector<CudaDevice> cuda;
  if (cuda_devices_ == nullptr || !cuda_devices_(cuda)) return;
  if (cuda_seen_ns_ == 0) cuda_seen_ns_ = now_ns;
  tried_.resize(std::max(tried_.size(), cuda.size()), false);
  std::size_t noted = notes_.size();
  for (std::size_t i : OwnOrdinals(cuda, now_ns)) {
    if (tried_[i]) continue;
    tried_[i] = true;
    Add(i, cuda[i]);
  }
  for (std::size_t i = noted; i < notes_.size(); ++i) {
    std::fprintf(stderr, "plasmient agent: NVML: %s\n", notes_[i].c_str());
  }
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
  Discover(now_ns);
  for (Device& d : devices_) {
    if (d.handle != nullptr) SampleGpu(now_ns, d);
    NvmlMemory mem{};
    if (api_.memory_info && d.memory_handle != nullptr &&
        api_.memory_info(d.memory_handle, &mem) == kNvmlSuccess) {
      Emit(now_ns, d.cuda_ordinal, wire::NvmlMetric::kMemoryUsedBytes, static_cast<double>(mem.used));
      Emit(now_ns, d.cuda_ordinal, wire::NvmlMetric::kMemoryTotalBytes, static_cast<double>(mem.total));
    }
    if (d.gpm) SampleGpm(now_ns, d.cuda_ordinal, d);
  }
}

// What the GPU answers for: utilization (not under MIG), clocks, power, clock-event reasons.
void NvmlSampler::SampleGpu(std::uint64_t now_ns, const Device& d) {
  using M = wire::NvmlMetric;
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
