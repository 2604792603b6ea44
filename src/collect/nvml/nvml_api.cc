#include "collect/nvml/nvml_api.h"

#include <dlfcn.h>

namespace plasmient::collect::nvml {
namespace {

template <typename Fn>
void Resolve(void* lib, const char* name, Fn& fn) {
  fn = reinterpret_cast<Fn>(dlsym(lib, name));
}

}  // namespace

bool LoadNvml(NvmlApi& api, std::string& why) {
  void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    why = "libnvidia-ml.so.1 not found (no NVIDIA driver?)";
    return false;
  }
  Resolve(lib, "nvmlInit_v2", api.init);
  Resolve(lib, "nvmlShutdown", api.shutdown);
  Resolve(lib, "nvmlDeviceGetCount_v2", api.device_count);
  Resolve(lib, "nvmlDeviceGetHandleByIndex_v2", api.device_by_index);
  Resolve(lib, "nvmlDeviceGetUtilizationRates", api.utilization);
  Resolve(lib, "nvmlDeviceGetClockInfo", api.clock_info);
  Resolve(lib, "nvmlDeviceGetPowerUsage", api.power_usage);
  Resolve(lib, "nvmlDeviceGetCurrentClocksEventReasons", api.clock_reasons);
  if (api.clock_reasons == nullptr) {
    Resolve(lib, "nvmlDeviceGetCurrentClocksThrottleReasons", api.clock_reasons);
  }
  Resolve(lib, "nvmlDeviceGetMemoryInfo", api.memory_info);
  Resolve(lib, "nvmlGpmQueryDeviceSupport", api.gpm_query_support);
  Resolve(lib, "nvmlGpmSampleAlloc", api.gpm_sample_alloc);
  Resolve(lib, "nvmlGpmSampleFree", api.gpm_sample_free);
  Resolve(lib, "nvmlGpmSampleGet", api.gpm_sample_get);
  Resolve(lib, "nvmlGpmMetricsGet", api.gpm_metrics_get);
  if (api.init == nullptr || api.shutdown == nullptr || api.device_count == nullptr ||
      api.device_by_index == nullptr) {
    why = "libnvidia-ml.so.1 lacks nvmlInit_v2/nvmlDeviceGetCount_v2/nvmlDeviceGetHandleByIndex_v2";
    return false;
  }
  return true;  // the library stays loaded for the life of the process
}

}  // namespace plasmient::collect::nvml
