// NvmlSampler: a thread polling NVML every period (PLASMIENT_NVML_PERIOD_MS, default 100 ms):
// utilization, SM/memory clocks, power, clock-event reasons, memory use, and GPM SM/tensor/DRAM
// utilization on Hopper and newer (GPM windows are the span between two polls, >= 100 ms).
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
  NvmlSampler(RecordSink& sink, const NvmlApi& api, int period_ms);
  ~NvmlSampler();

  // nvmlInit + device discovery; false with the reason when NVML cannot be used.
  bool Init(std::string& why);
  void Start();  // the polling thread
  void Stop();   // joins the thread, frees GPM samples, nvmlShutdown
  // One poll of every device, stamped `now_ns`. Public for tests.
  void SampleOnce(std::uint64_t now_ns);
  std::size_t devices() const { return devices_.size(); }

 private:
  struct Device {
    NvmlDevice handle = nullptr;
    bool gpm = false;
    NvmlGpmSample samples[2] = {nullptr, nullptr};
    int current = 0;  // which sample the next nvmlGpmSampleGet fills
    bool primed = false;
    std::uint64_t last_gpm_ns = 0;
  };
  void Emit(std::uint64_t ts_ns, std::uint32_t device, wire::NvmlMetric metric, double value);
  void SampleGpm(std::uint64_t now_ns, std::uint32_t index, Device& d);

  RecordSink& sink_;
  NvmlApi api_;
  int period_ms_;
  bool initialized_ = false;
  std::vector<Device> devices_;
  std::thread thread_;
  std::atomic<bool> stop_{false};
};

}  // namespace plasmient::collect::nvml
