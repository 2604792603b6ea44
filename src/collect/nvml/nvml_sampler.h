// NvmlSampler: a thread polling NVML every period (PLASMIENT_NVML_PERIOD_MS, default 100 ms):
// utilization, SM/memory clocks, power, clock-event reasons, memory use, and GPM SM/tensor/DRAM
// utilization on Hopper and newer (GPM windows are the span between two polls, >= 100 ms).
//
// Devices are the process's own CUDA devices (after CUDA_VISIBLE_DEVICES), labelled by CUDA
// ordinal and found in NVML by UUID (GPU-… or MIG-…), else by PCI bus id. Its own: those where
// its primary context is active, and of those only ordinal LOCAL_RANK when that is one of them
// (a rank's stray context on GPU 0 is not its GPU). Where the driver cannot say, or no primary
// context becomes active within kOwnDeviceWaitNs of CUDA's start (contexts made with
// cuCtxCreate), ordinal LOCAL_RANK when set and several devices are visible, else all of them.
// Devices are added as they come into use. A MIG instance gets no utilization or GPM samples
// (NVML does not support whole-GPU utilization there) and its memory only from its own handle.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "collect/agent/record_sink.h"
#include "collect/nvml/nvml_api.h"

namespace plasmient::collect::nvml {

class NvmlSampler {
 public:
  NvmlSampler(RecordSink& sink, const NvmlApi& api, int period_ms, CudaDevicesFn cuda_devices,
              int local_rank);
  static constexpr std::uint64_t kOwnDeviceWaitNs = 5'000'000'000;
  ~NvmlSampler();

  // nvmlInit; false with the reason when NVML cannot be used.
  bool Init(std::string& why);
  void Start();  // the polling thread
  void Stop();   // joins the thread, frees GPM samples, nvmlShutdown
  // One poll of every device, stamped `now_ns` (each first looks for devices newly in use).
  // Public for tests.
  void SampleOnce(std::uint64_t now_ns);
  std::size_t devices() const { return devices_.size(); }
  // One line per device NVML cannot serve fully (MIG, not found); also printed on stderr.
  const std::vector<std::string>& notes() const { return notes_; }

 private:
  struct Device {
    NvmlDevice handle = nullptr;         // the GPU: clocks, power, reasons, utilization, GPM
    NvmlDevice memory_handle = nullptr;  // the GPU, or the MIG instance; null: no memory samples
    std::uint32_t cuda_ordinal = 0;
    bool mig = false;
    bool gpm = false;
    NvmlGpmSample samples[2] = {nullptr, nullptr};
    int current = 0;  // which sample the next nvmlGpmSampleGet fills
    bool primed = false;
    std::uint64_t last_gpm_ns = 0;
  };
  void Discover(std::uint64_t now_ns);
  std::vector<std::size_t> OwnOrdinals(const std::vector<CudaDevice>& cuda, std::uint64_t now_ns) const;
  bool Add(std::size_t ordinal, const CudaDevice& cuda);
  void Emit(std::uint64_t ts_ns, std::uint32_t device, wire::NvmlMetric metric, double value);
  void SampleGpu(std::uint64_t now_ns, const Device& d);
  void SampleGpm(std::uint64_t now_ns, std::uint32_t index, Device& d);

  RecordSink& sink_;
  NvmlApi api_;
  int period_ms_;
  CudaDevicesFn cuda_devices_;
  int local_rank_;
  bool initialized_ = false;
  std::uint64_t cuda_seen_ns_ = 0;  // first poll that found CUDA initialized; 0 before
  std::vector<bool> tried_;         // per CUDA ordinal: looked up in NVML already
  std::vector<Device> devices_;
  std::vector<std::string> notes_;
  std::thread thread_;
  std::atomic<bool> stop_{false};
};

}  // namespace plasmient::collect::nvml
