// The few NVML calls the sampler uses, declared here (the toolkit has no nvml.h) and resolved
// with dlopen("libnvidia-ml.so.1"). A table of function pointers is the seam: tests fill it
// with fakes. Layouts per gpu-apis.md section 8.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace plasmient::collect::nvml {

typedef struct NvmlDeviceOpaque* NvmlDevice;
typedef struct NvmlGpmSampleOpaque* NvmlGpmSample;
typedef int NvmlReturn;  // NVML_SUCCESS = 0
inline constexpr NvmlReturn kNvmlSuccess = 0;

struct NvmlUtilization {
  unsigned int gpu;
  unsigned int memory;
};
static_assert(sizeof(NvmlUtilization) == 8);

struct NvmlMemory {  // nvmlMemory_t (v1)
  unsigned long long total, free, used;
};

struct NvmlGpmSupport {
  unsigned int version;  // 1
  unsigned int is_supported_device;
};

struct NvmlGpmMetric {
  unsigned int metric_id;
  NvmlReturn nvml_return;
  double value;
  struct {
    char* short_name;
    char* long_name;
    char* unit;
  } info;
};
static_assert(sizeof(NvmlGpmMetric) == 40);

// nvmlGpmMetricsGet_t: the metrics array is NVML_GPM_METRIC_MAX (333) entries and IN/OUT, so it
// is declared at NVML's full size whatever num_metrics says.
inline constexpr unsigned kGpmMaxMetrics = 333;
struct NvmlGpmMetricsGet {
  unsigned int version;  // 1
  unsigned int num_metrics;
  NvmlGpmSample sample1;
  NvmlGpmSample sample2;
  NvmlGpmMetric metrics[kGpmMaxMetrics];
};
static_assert(offsetof(NvmlGpmMetricsGet, metrics) == 24);
static_assert(sizeof(NvmlGpmMetricsGet) == 24 + 333 * 40);

inline constexpr unsigned kNvmlMigEnabled = 1;  // NVML_DEVICE_MIG_ENABLE

inline constexpr int kNvmlClockSm = 1;
inline constexpr int kNvmlClockMem = 2;

struct NvmlApi {
  NvmlReturn (*init)() = nullptr;  // nvmlInit_v2
  NvmlReturn (*shutdown)() = nullptr;
  NvmlReturn (*device_count)(unsigned int*) = nullptr;                     // nvmlDeviceGetCount_v2
  NvmlReturn (*device_by_index)(unsigned int, NvmlDevice*) = nullptr;      // ..._HandleByIndex_v2
  NvmlReturn (*device_by_pci_bus_id)(const char*, NvmlDevice*) = nullptr;  // ..._HandleByPciBusId_v2
  NvmlReturn (*device_by_uuid)(const char*, NvmlDevice*) = nullptr;        // "GPU-…" or "MIG-…"
  NvmlReturn (*mig_mode)(NvmlDevice, unsigned int* current, unsigned int* pending) = nullptr;
  NvmlReturn (*utilization)(NvmlDevice, NvmlUtilization*) = nullptr;
  NvmlReturn (*clock_info)(NvmlDevice, int, unsigned int*) = nullptr;
  NvmlReturn (*power_usage)(NvmlDevice, unsigned int*) = nullptr;  // mW
  NvmlReturn (*clock_reasons)(NvmlDevice, unsigned long long*) = nullptr;
  NvmlReturn (*memory_info)(NvmlDevice, NvmlMemory*) = nullptr;
  // GPM (Hopper and newer); all null when the driver lacks them.
  NvmlReturn (*gpm_query_support)(NvmlDevice, NvmlGpmSupport*) = nullptr;
  NvmlReturn (*gpm_sample_alloc)(NvmlGpmSample*) = nullptr;
  NvmlReturn (*gpm_sample_free)(NvmlGpmSample) = nullptr;
  NvmlReturn (*gpm_sample_get)(NvmlDevice, NvmlGpmSample) = nullptr;
  NvmlReturn (*gpm_metrics_get)(NvmlGpmMetricsGet*) = nullptr;
};

// dlopens libnvidia-ml.so.1 and fills `api`. False with the reason when the library or one of
// the required calls is missing (GPM and MIG calls are optional).
bool LoadNvml(NvmlApi& api, std::string& why);

// One CUDA device as the process sees it, in CUDA ordinal order (after CUDA_VISIBLE_DEVICES,
// whether that names indices, GPU- or MIG- UUIDs).
struct CudaDevice {
  std::string bus_id;  // "0000:3B:00.0": for a MIG instance, its GPU's
  std::string uuid;    // "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx"; NVML spells it GPU-… or, for a
                       // MIG instance, MIG-…; empty when the driver does not say
  int in_use = -1;     // the process's primary context on it is active: 1 yes, 0 no, -1 unknown
};
// False while CUDA is not initialized in the process yet.
using CudaDevicesFn = bool (*)(std::vector<CudaDevice>& devices);
// The driver's answer (libcuda.so.1 as already loaded by the application; never cuInit).
bool CudaDevices(std::vector<CudaDevice>& devices);

// "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" from a UUID's 16 bytes (cuDeviceGetUuid's CUuuid).
std::string UuidText(const unsigned char (&bytes)[16]);

}  // namespace plasmient::collect::nvml
