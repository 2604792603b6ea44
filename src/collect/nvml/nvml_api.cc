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
  Resolve(lib, "nvmlDeviceGetHandleByPciBusId_v2", api.device_by_pci_bus_id);
  Resolve(lib, "nvmlDeviceGetMigMode", api.mig_mode);
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
  if (api.init == nullptr || api.shutdown == nullptr || api.device_by_pci_bus_id == nullptr) {
    why = "libnvidia-ml.so.1 lacks nvmlInit_v2/nvmlShutdown/nvmlDeviceGetHandleByPciBusId_v2";
    return false;
  }
  return true;  // the library stays loaded for the life of the process
}

bool CudaBusIds(std::vector<std::string>& bus_ids) {
  using GetCount = int (*)(int*);
  using GetDevice = int (*)(int*, int);
  using GetBusId = int (*)(char*, int, int);
  static void* lib = nullptr;
  if (lib == nullptr) lib = dlopen("libcuda.so.1", RTLD_NOLOAD | RTLD_LAZY | RTLD_LOCAL);
  if (lib == nullptr) return false;  // the application has not loaded CUDA yet
  auto count = reinterpret_cast<GetCount>(dlsym(lib, "cuDeviceGetCount"));
  auto device = reinterpret_cast<GetDevice>(dlsym(lib, "cuDeviceGet"));
  auto bus_id = reinterpret_cast<GetBusId>(dlsym(lib, "cuDeviceGetPCIBusId"));
  int n = 0;
  if (count == nullptr || device == nullptr || bus_id == nullptr || count(&n) != 0) return false;
  bus_ids.clear();
  for (int i = 0; i < n; ++i) {
    int dev = 0;
    char id[32] = {};
    if (device(&dev, i) != 0 || bus_id(id, sizeof id, dev) != 0) return false;
    bus_ids.emplace_back(id);
  }
  return true;
}

}  // namespace plasmient::collect::nvml
