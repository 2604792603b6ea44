// The columnar trace model: one Trace per rank (per input file), struct-of-arrays tables,
// interned strings, int64 nanoseconds on the trace's own clock. Only TraceBuilder writes it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/row_id.h"
#include "base/string_pool.h"
#include "base/time_units.h"
#include "model/data_quality.h"

namespace plasmient::model {

inline constexpr std::int64_t kNoId = -1;

// A row of one of this trace's tables (base/row_id.h); the ids above are the source's own.
using GpuRowId = RowId<struct GpuActivitiesTag>;
using ApiRowId = RowId<struct ApiCallsTag>;
using CpuOpRowId = RowId<struct CpuOpsTag>;
using CollectiveRowId = RowId<struct CollectivesTag>;

enum class GpuKind : std::uint8_t { kKernel, kMemcpy, kMemset };

// Kernels, memcpys and memsets: everything that occupies the device.
struct GpuActivities {
  std::vector<TimeNs> start_ns, end_ns;
  std::vector<std::int32_t> device, stream;
  std::vector<std::int64_t> pid;  // launching process when known (Nsight, native), else kNoId
  std::vector<StringId> name;
  std::vector<GpuKind> kind;
  std::vector<std::int64_t> correlation;  // kNoId when absent
  std::vector<std::int64_t> external_id;  // kNoId when absent
  std::vector<std::int64_t> bytes;        // memcpy/memset bytes; 0 for kernels
  std::size_t size() const { return start_ns.size(); }
};

// CUDA/HIP runtime and driver API calls on host threads.
struct ApiCalls {
  std::vector<TimeNs> start_ns, end_ns;
  std::vector<std::int64_t> pid, tid;
  std::vector<StringId> name;
  std::vector<std::int64_t> correlation;
  std::vector<std::int64_t> external_id;
  std::size_t size() const { return start_ns.size(); }
};

enum class CpuOpKind : std::uint8_t {
  kOp,          // cpu_op / Operator: an ATen op or similar
  kAnnotation,  // user_annotation / record_function / NVTX range
  kStep,        // ProfilerStep#N
  kModule,      // an nn.Module's forward call; the name is the instance, e.g. "Qwen2Attention_3"
};

// How profilers name a module's forward range (Kineto python_function events, NVTX ranges):
// "nn.Module: Qwen2Attention_3". TraceBuilder turns any range so named into a kModule row.
inline constexpr std::string_view kModuleRangePrefix = "nn.Module: ";

// Host-side ranges: ops with shapes, annotations, steps.
struct CpuOps {
  std::vector<TimeNs> start_ns, end_ns;
  std::vector<std::int64_t> pid, tid;
  std::vector<StringId> name;
  std::vector<CpuOpKind> kind;
  std::vector<std::int64_t> external_id;
  std::vector<std::int64_t> step;         // N of ProfilerStep#N, else kNoId
  std::vector<StringId> input_dims;       // raw JSON text, e.g. "[[8,512],[512,1024]]"
  std::vector<StringId> input_types;      // raw JSON text, e.g. "[\"c10::BFloat16\",...]"
  std::vector<StringId> concrete_inputs;  // raw JSON text, e.g. "[\"\",\"\",\"[1, 1]\"]"
  // Autograd: the op's "Sequence number", shared by a forward op and the backward op it
  // created; "Fwd thread id" is non-zero on backward ops only. kNoId when absent.
  std::vector<std::int64_t> sequence, forward_thread;
  // An op's "Module Hierarchy" argument, kept only when well formed (module_hierarchy.h).
  std::vector<StringId> module_hierarchy;
  std::size_t size() const { return start_ns.size(); }
};

// The profiler's own host work, as it records it: Kineto's "overhead" events (CUPTI's buffer
// flushes, instrumentation, resource management), an Nsight Systems export's PROFILER_OVERHEAD rows.
// Time an unprofiled run would not spend; the verdict charges GPU idle under it to the profiler
// (docs/fixes.md, "Causes of host-bound idle"), except CUPTI's driver-compiler and module-loading
// kinds (IsCompileOverhead): the program's own JIT compilation, which the profiler only reports.
struct ProfilerOverhead {
  std::vector<TimeNs> start_ns, end_ns;
  std::vector<std::int64_t> pid, tid;  // the thread it held, kNoId when the profiler does not say
  std::vector<StringId> name;          // "Buffer Flush", "CUPTI: Instrumentation", ...
  std::size_t size() const { return start_ns.size(); }
};

// Collective metadata, from record_param_comms ops, NCCL kernels' args, or the NCCL profiler.
struct Collectives {
  std::vector<std::int32_t> cpu_op;  // owning CpuOps row, or -1
  std::vector<std::int32_t> gpu;     // owning GpuActivities row, or -1
  std::vector<StringId> name;        // "allreduce", "all_gather", "send", "recv", ...
  std::vector<std::int64_t> in_nelems, out_nelems;
  std::vector<StringId> dtype;  // "Float", "BFloat16", ...
  std::vector<std::int32_t> group_size;
  std::vector<StringId> pg_name;    // process group name / communicator hash
  std::vector<StringId> pg_ranks;   // raw text "[0, 1, 2, 3]"
  std::vector<std::int64_t> seq;    // sequence number within the group, or kNoId
  std::vector<std::int64_t> bytes;  // message bytes when known directly, else -1
  // The recording rank's rank within the group and, for a send/recv, the other side's (NCCL's
  // communicator ranks, from the NCCL profiler); -1 when unknown.
  std::vector<std::int32_t> group_rank, peer;
  std::size_t size() const { return name.size(); }
};

// Device-layer counter samples (NVML/GPM, Kineto counter events).
struct Samples {
  std::vector<TimeNs> ts_ns;
  std::vector<std::int32_t> device;
  std::vector<StringId> metric;
  std::vector<double> value;
  std::size_t size() const { return ts_ns.size(); }
};

// The device tier's activity metrics, in percent of each sample's interval, whichever source
// wrote them: the agent's NVML GPM samples (which named them) or an Nsight Systems export's GPU
// metrics (docs/inputs.md, "GPU metrics"). Every reader names its samples so and every stage
// reads them by these names.
inline constexpr std::string_view kSmActiveMetric = "gpm.sm_util_pct";
inline constexpr std::string_view kTensorActiveMetric = "gpm.tensor_util_pct";
inline constexpr std::string_view kDramActiveMetric = "gpm.dram_bw_util_pct";

struct DeviceInfo {
  std::int32_t id = -1;
  std::string name;
  std::int32_t sm_count = 0;
  std::int32_t cc_major = 0, cc_minor = 0;
  std::int64_t total_memory_bytes = 0;
  std::int32_t warp_size = 0;                     // 0 when unknown
  std::int64_t sm_clock_mhz = 0;                  // 0 when unknown
  std::int64_t memory_bandwidth_bytes_per_s = 0;  // 0 when unknown
};

struct TraceInfo {
  std::string path;
  std::string format;      // "kineto-json", "kineto-json.gz", "nsys-sqlite", "plasmient-native"
  std::int64_t rank = -1;  // -1 when unknown
  std::int64_t world_size = -1;
  std::string backend;  // "nccl", "gloo", ...
  std::string hostname;
  std::string job_id;
  std::int64_t base_time_ns = 0;  // epoch offset that was added to timestamps
  std::int64_t events = 0;        // events read from the file
  std::int64_t input_bytes = 0;   // bytes read (uncompressed)
  std::string pg_config;          // raw process-group configuration text, when present
};

struct Trace {
  TraceInfo info;
  StringPool strings;
  GpuActivities gpu;
  ApiCalls api;
  CpuOps cpu;
  ProfilerOverhead overhead;
  Collectives collectives;
  Samples samples;
  std::vector<DeviceInfo> devices;
  DataQuality quality;

  std::string_view Str(StringId id) const { return strings.Get(id); }
};

}  // namespace plasmient::model
