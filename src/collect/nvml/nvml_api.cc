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
  Resolve(lib, "nvmlDeviceGetHandleByUUID", api.device_by_uuid);
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

std::string UuidText(const unsigned char (&bytes)[16]) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out += '-';
    out += kHex[bytes[i] >> 4];
    out += kHex[bytes[i] & 0xF];
  }
  return out;
}

bool CudaDevices(std::vector<CudaDevice>& devices) {
  struct Api {
    int (*count)(int*) = nullptr;
    int (*device)(int*, int) = nullptr;
    int (*bus_id)(char*, int, int) = nullptr;
    int (*uuid)(unsigned char (*)[16], int) = nullptr;         // cuDeviceGetUuid_v2
    int (*primary_state)(int, unsigned int*, int*) = nullptr;  // cuDevicePrimaryCtxGetState
  };
  static Api cu;  // resolved on the sampler thread only
  if (cu.count == nullptr) {
    void* lib = dlopen("libcuda.so.1", RTLD_NOLOAD | RTLD_LAZY | RTLD_LOCAL);
    if (lib == nullptr) return false;  // the application has not loaded CUDA yet
    Resolve(lib, "cuDeviceGet", cu.device);
    Resolve(lib, "cuDeviceGetPCIBusId", cu.bus_id);
    Resolve(lib, "cuDeviceGetUuid_v2", cu.uuid);  // v2: a MIG instance's own UUID
    Resolve(lib, "cuDevicePrimaryCtxGetState", cu.primary_state);
    Resolve(lib, "cuDeviceGetCount", cu.count);
  }
  int n = 0;
  if (cu.count == nullptr || cu.device == nullptr || cu.bus_id == nullptr || cu.count(&n) != 0) return false;
  devices.clear();
  for (int i = 0; i < n; ++i) {
    int dev = 0;
    char id[32] = {};
    if (cu.device(&dev, i) != 0 || cu.bus_id(id, sizeof id, dev) != 0) return false;
    CudaDevice d;
    d.bus_id = id;
    unsigned char uuid[16] = {};
    if (cu.uuid != nullptr && cu.uuid(&uuid, dev) == 0) d.uuid = UuidText(uuid);
    unsigned flags = 0;
    int active = 0;
    if (cu.primary_state != nullptr && cu.primary_state(dev, &flags, &active) == 0) d.in_use = active != 0;
    devices.push_back(std::move(d));
  }
  return true;
}

}  // namespace plasmient::collect::nvml
