// NvmlSampler: a thread polling NVML every period (PLASMIENT_NVML_PERIOD_MS, default 100 ms):
// utilization, SM/memory clocks, power, clock-event reasons, memory use, and GPM SM/tensor/DRAM
// utilization on Hopper and newer (GPM windows are the span between two polls, >= 100 ms).
//
// Devices are the process's CUDA devices (after CUDA_VISIBLE_DEVICES), found in NVML by PCI bus
// id and labelled by CUDA ordinal; with LOCAL_RANK known and several devices visible, only
// ordinal LOCAL_RANK (the launcher convention). Discovery waits until the application has
// initialized CUDA. A GPU in MIG mode gets no utilization or GPM samples: NVML does not support
// whole-GPU utilization there.
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
  NvmlSampler(RecordSink& sink, const NvmlApi& api, int period_ms, CudaBusIdsFn cuda_bus_ids, int local_rank);
  ~NvmlSampler();

  // nvmlInit; false with the reason when NVML cannot be used.
  bool Init(std::string& why);
  void Start();  // the polling thread
  void Stop();   // joins the thread, frees GPM samples, nvmlShutdown
  // One poll of every device, stamped `now_ns` (the first successful one finds the devices).
  // Public for tests.
  void SampleOnce(std::uint64_t now_ns);
  std::size_t devices() const { return devices_.size(); }
  // One line per device NVML cannot serve fully (MIG, not found); also printed on stderr.
  const std::vector<std::string>& notes() const { return notes_; }

 private:
  struct Device {
    NvmlDevice handle = nullptr;
    std::uint32_t cuda_ordinal = 0;
    bool mig = false;
    bool gpm = false;
    NvmlGpmSample samples[2] = {nullptr, nullptr};
    int current = 0;  // which sample the next nvmlGpmSampleGet fills
    bool primed = false;
    std::uint64_t last_gpm_ns = 0;
  };
  bool Discover();
  void Emit(std::uint64_t ts_ns, std::uint32_t device, wire::NvmlMetric metric, double value);
  void SampleGpm(std::uint64_t now_ns, std::uint32_t index, Device& d);

  RecordSink& sink_;
  NvmlApi api_;
  int period_ms_;
  CudaBusIdsFn cuda_bus_ids_;
  int local_rank_;
  bool initialized_ = false;
  bool discovered_ = false;
  std::vector<Device> devices_;
  std::vector<std::string> notes_;
  std::thread thread_;
  std::atomic<bool> stop_{false};
};

}  // namespace plasmient::collect::nvml
