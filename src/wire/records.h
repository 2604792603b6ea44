// The native on-disk record format written by the live agent and read by ingest/native.
// Fixed-size POD records, little-endian, 8-byte aligned, each starting with a RecordHeader.
// Standard library only (the agent builds where no other dependency exists); no behaviour.
//
// Compatibility rules: a record's layout never changes within a format version; new kinds get
// new numbers; a reader skips kinds it does not know using RecordHeader::size_bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace plasmient::wire {

// 2 added OpRecord. Readers accept every version from kOldestFormatVersion: a version-1 file is a
// version-2 file without op records.
inline constexpr std::uint32_t kFormatVersion = 2;
inline constexpr std::uint32_t kOldestFormatVersion = 1;

enum class RecordKind : std::uint16_t {
  kString = 1,                // StringRecord + text: an interned string id
  kProcess = 2,               // ProcessRecord: pid, rank, host, job
  kClockSync = 3,             // ClockSyncRecord: (realtime, monotonic) pair
  kDrops = 4,                 // DropRecord: cumulative dropped records per source
  kDevice = 5,                // DeviceRecord
  kKernel = 10,               // KernelRecord
  kMemcpy = 11,               // MemcpyRecord
  kMemset = 12,               // MemsetRecord
  kApi = 13,                  // ApiRecord: CUDA runtime/driver call
  kSync = 14,                 // SyncRecord: CUDA synchronization
  kMarker = 15,               // MarkerRecord: NVTX range start/end or instant marker
  kOverhead = 16,             // OverheadRecord: the observer's own cost
  kExternalCorrelation = 17,  // ExternalCorrelationRecord
  kCpuRange = 20,             // CpuRangeRecord: a host range with a name
  kCollective = 21,           // CollectiveRecord: from the NCCL profiler plugin
  kGemm = 22,                 // GemmRecord: from the cuBLAS interposer
  kNvmlSample = 23,           // NvmlSampleRecord
  kOp = 24,                   // OpRecord: a CPU operator with its shapes (format version 2)
};

struct RecordHeader {
  RecordKind kind;
  std::uint16_t size_bytes;  // whole record including this header and any trailing text
  std::uint32_t reserved;    // 0
};
static_assert(sizeof(RecordHeader) == 8);

// Followed by `length` bytes of text, zero-padded so size_bytes is a multiple of 8.
struct StringRecord {
  RecordHeader header;
  std::uint32_t id;      // ids are unique within a file; 0 is the empty string
  std::uint32_t length;  // text bytes (no terminator)
};
static_assert(sizeof(StringRecord) == 16);
inline constexpr std::uint32_t kMaxStringBytes = 4096;  // longer strings are cut

struct ProcessRecord {
  RecordHeader header;
  std::int64_t pid;
  std::int32_t rank;         // -1 when unknown
  std::int32_t local_rank;   // -1 when unknown
  std::int32_t world_size;   // -1 when unknown
  std::uint32_t host_id;     // string id
  std::uint32_t job_id;      // string id
  std::uint32_t command_id;  // string id (argv[0] of the process)
  std::int64_t start_realtime_ns;
  std::int64_t start_monotonic_ns;
};
static_assert(sizeof(ProcessRecord) == 56);

struct ClockSyncRecord {
  RecordHeader header;
  std::int64_t realtime_ns;
  std::int64_t monotonic_ns;
};
static_assert(sizeof(ClockSyncRecord) == 24);

enum class DropSource : std::uint16_t {
  kCuptiBuffers = 0,    // CUPTI dropped records (no buffer, or its own count)
  kHandOff = 1,         // staging blocks exhausted: the writer fell behind
  kEventRing = 2,       // the small-record ring was full
  kNcclEvents = 3,      // NCCL event pool exhausted
  kInvalidRecords = 4,  // CUPTI activity records with invalid (zero) timestamps, left out
  kSizeCap = 5,         // records not written: the file reached its size cap
  kSpool = 6,           // records the disk refused (full, unwritable): a window file, or a chunk
                        // of a whole-run file
  kWindowClose = 7,     // kernels launched in a window whose records had not come when it closed
  kCuptiTaken = 8,      // kernels launched while another CUPTI client (torch.profiler) held tracing
  kCount = 9,
};

struct DropRecord {
  RecordHeader header;
  std::uint16_t source;  // DropSource
  std::uint16_t pad[3];
  // Dropped from this source since the file began, counting those of earlier files that were
  // never written (a window the spool refused); readers keep the maximum.
  std::int64_t cumulative;
};
static_assert(sizeof(DropRecord) == 24);

struct DeviceRecord {
  RecordHeader header;
  std::uint32_t device;
  std::uint32_t name_id;
  std::uint32_t sm_count;
  std::uint32_t cc_major, cc_minor;
  std::uint32_t core_clock_khz;
  std::uint64_t global_memory_bytes;
  std::uint64_t memory_bandwidth_kbps;  // CUPTI: KB/s
  std::uint8_t uuid[16];
};
static_assert(sizeof(DeviceRecord) == 64);

struct KernelRecord {
  RecordHeader header;
  std::uint64_t start_ns, end_ns;
  std::uint32_t device, context, stream, correlation;
  std::uint32_t name_id;
  std::int32_t grid_x, grid_y, grid_z;
  std::int32_t block_x, block_y, block_z;
  std::int32_t static_shared_bytes, dynamic_shared_bytes;
  std::uint16_t registers_per_thread;
  std::uint8_t launch_type;
  std::uint8_t is_device_launched;
  std::uint32_t graph_id;
  std::uint32_t pad;
  std::uint64_t graph_node_id;
  std::uint32_t cluster_x, cluster_y, cluster_z;
  std::uint32_t pad2;
};
static_assert(sizeof(KernelRecord) == 112);
static_assert(offsetof(KernelRecord, start_ns) == 8);
static_assert(offsetof(KernelRecord, graph_node_id) == 88);

struct MemcpyRecord {
  RecordHeader header;
  std::uint64_t start_ns, end_ns;
  std::uint64_t bytes;
  std::uint32_t device, context, stream, correlation;
  std::uint32_t runtime_correlation;
  std::uint32_t src_device, dst_device;               // peer copies; else = device
  std::uint8_t copy_kind, src_kind, dst_kind, flags;  // CUPTI enum values
  std::uint32_t graph_id;
  std::uint32_t pad;
};
static_assert(sizeof(MemcpyRecord) == 72);

struct MemsetRecord {
  RecordHeader header;
  std::uint64_t start_ns, end_ns;
  std::uint64_t bytes;
  std::uint32_t device, context, stream, correlation;
  std::uint32_t value;
  std::uint16_t memory_kind, flags;
  std::uint32_t graph_id;
  std::uint32_t pad;
};
static_assert(sizeof(MemsetRecord) == 64);

enum class ApiDomain : std::uint8_t { kRuntime = 1, kDriver = 2 };

struct ApiRecord {
  RecordHeader header;
  std::uint64_t start_ns, end_ns;
  std::uint32_t pid, tid;  // tid: CUPTI's thread id (same space as MarkerRecord/GemmRecord tid)
  std::uint32_t correlation;
  std::uint32_t cbid;
  std::uint32_t name_id;
  std::uint32_t return_value;
  std::uint8_t domain;  // ApiDomain
  std::uint8_t pad[7];
};
static_assert(sizeof(ApiRecord) == 56);

struct SyncRecord {
  RecordHeader header;
  std::uint64_t start_ns, end_ns;
  std::uint32_t correlation, context, stream, event;
  std::uint32_t type;  // CUpti_ActivitySynchronizationType
  std::uint32_t pad;
};
static_assert(sizeof(SyncRecord) == 48);

enum MarkerFlags : std::uint32_t {  // same bits as CUPTI's CUpti_ActivityFlag for markers
  kMarkerInstantaneous = 1u << 0,
  kMarkerStart = 1u << 1,
  kMarkerEnd = 1u << 2,
};

struct MarkerRecord {
  RecordHeader header;
  std::uint64_t timestamp_ns;
  std::uint32_t id;     // pairs a START with its END
  std::uint32_t flags;  // MarkerFlags
  std::uint32_t pid, tid;
  std::uint32_t name_id, domain_id;
};
static_assert(sizeof(MarkerRecord) == 40);

struct OverheadRecord {
  RecordHeader header;
  std::uint64_t start_ns, end_ns;
  std::uint32_t overhead_kind;  // CUpti_ActivityOverheadKind
  std::uint32_t object_kind;
  std::uint32_t pid, tid;
};
static_assert(sizeof(OverheadRecord) == 40);

struct ExternalCorrelationRecord {
  RecordHeader header;
  std::uint64_t external_id;
  std::uint32_t correlation;
  std::uint32_t external_kind;
};
static_assert(sizeof(ExternalCorrelationRecord) == 24);

struct CpuRangeRecord {
  RecordHeader header;
  std::uint64_t start_ns, end_ns;
  std::uint32_t pid, tid;
  std::uint32_t name_id;
  std::uint32_t pad;
};
static_assert(sizeof(CpuRangeRecord) == 40);

enum class CollectiveKind : std::uint8_t { kCollective = 0, kP2p = 1 };

struct CollectiveRecord {
  RecordHeader header;
  std::uint64_t start_ns, end_ns;  // host clock: start event to last child (kernel/proxy) stop
  std::uint64_t comm_hash;
  std::uint64_t seq;     // per-communicator sequence number (p2p: 0)
  std::uint64_t count;   // elements
  std::uint64_t bytes;   // count × size of datatype (0 when the type is unknown)
  std::uint64_t stream;  // cudaStream_t value when known, else 0
  std::int32_t rank, nranks;
  std::int32_t root, peer;  // -1 when not applicable
  std::uint32_t func_id, dtype_id, algo_id, proto_id, comm_name_id;
  std::uint8_t kind;  // CollectiveKind
  std::uint8_t n_channels, n_warps;
  std::uint8_t pad;
  std::uint32_t pid, tid;
};
static_assert(sizeof(CollectiveRecord) == 112);

// A CPU operator (an ATen op, as PyTorch's record_function sees it with record_shapes): what the
// FLOP and byte models of the non-GEMM ops (attention, norms, elementwise, copies) need. The
// argument texts are Kineto's JSON spellings, so both paths give the same rows. Kernels launched
// inside it carry its external_id through ExternalCorrelationRecords.
struct OpRecord {
  RecordHeader header;
  std::uint64_t start_ns, end_ns;
  std::uint64_t external_id;         // 0: none
  std::int64_t sequence;             // autograd sequence number, -1: none
  std::int64_t forward_thread;       // a backward op: the thread of its forward op, -1: none
  std::uint32_t pid, tid;            // tid as CUPTI reports it (same space as ApiRecord)
  std::uint32_t name_id;             // "aten::addmm"
  std::uint32_t input_dims_id;       // "[[64], [64, 1024], [1024, 64], [], []]"; 0: not recorded
  std::uint32_t input_types_id;      // "[\"c10::BFloat16\", ...]"; 0: not recorded
  std::uint32_t concrete_inputs_id;  // "[\"\", \"1\"]"; 0: not recorded
};
static_assert(sizeof(OpRecord) == 72);

enum class GemmApi : std::uint8_t {
  kSgemm = 1,
  kDgemm,
  kHgemm,
  kGemmEx,
  kGemmStridedBatchedEx,
  kGemmBatchedEx,
  kSgemmStridedBatched,
  kHgemmStridedBatched,
  kLtMatmul,
};

// Element types: CUDA's cudaDataType_t values (CUDA_R_32F = 0, CUDA_R_16F = 2, CUDA_R_16BF = 14, ...).
struct GemmRecord {
  RecordHeader header;
  std::uint64_t start_ns, end_ns;  // around the call into cuBLAS on the calling thread
  std::int64_t m, n, k, batch;
  std::uint32_t pid, tid;           // tid as CUPTI reports it (pthread id, low 32 bits)
  std::uint32_t first_correlation;  // first kernel launch made inside the call, 0 if unseen
  std::uint32_t launches;           // launches seen inside the call
  std::int32_t a_type, b_type, c_type, compute_type;
  std::uint8_t api;               // GemmApi
  std::uint8_t trans_a, trans_b;  // 0 N, 1 T, 2 C
  std::uint8_t pad[5];
};
static_assert(sizeof(GemmRecord) == 96);

enum class NvmlMetric : std::uint16_t {
  kGpuUtilPct = 1,
  kMemoryUtilPct,
  kSmClockMhz,
  kMemClockMhz,
  kPowerMw,
  kThrottleReasons,
  kMemoryUsedBytes,
  kMemoryTotalBytes,
  kGpmSmUtilPct = 20,
  kGpmSmOccupancyPct,
  kGpmTensorUtilPct,
  kGpmDramBwUtilPct,
  kGpmFp16UtilPct,
  kGpmFp32UtilPct,
};

struct NvmlSampleRecord {
  RecordHeader header;
  std::uint64_t ts_ns;
  std::uint32_t device;
  std::uint16_t metric;  // NvmlMetric
  std::uint16_t pad;
  double value;
};
static_assert(sizeof(NvmlSampleRecord) == 32);

inline constexpr std::size_t kMaxFixedRecordBytes = 112;

// No implicit padding: every byte written to disk is a byte we set.
#define PLASMIENT_WIRE_NO_PADDING(T) \
  static_assert(std::has_unique_object_representations_v<T>, #T " has implicit padding")
PLASMIENT_WIRE_NO_PADDING(StringRecord);
PLASMIENT_WIRE_NO_PADDING(ProcessRecord);
PLASMIENT_WIRE_NO_PADDING(ClockSyncRecord);
PLASMIENT_WIRE_NO_PADDING(DropRecord);
PLASMIENT_WIRE_NO_PADDING(DeviceRecord);
PLASMIENT_WIRE_NO_PADDING(KernelRecord);
PLASMIENT_WIRE_NO_PADDING(MemcpyRecord);
PLASMIENT_WIRE_NO_PADDING(MemsetRecord);
PLASMIENT_WIRE_NO_PADDING(ApiRecord);
PLASMIENT_WIRE_NO_PADDING(SyncRecord);
PLASMIENT_WIRE_NO_PADDING(MarkerRecord);
PLASMIENT_WIRE_NO_PADDING(OverheadRecord);
PLASMIENT_WIRE_NO_PADDING(ExternalCorrelationRecord);
PLASMIENT_WIRE_NO_PADDING(CpuRangeRecord);
PLASMIENT_WIRE_NO_PADDING(CollectiveRecord);
PLASMIENT_WIRE_NO_PADDING(GemmRecord);
PLASMIENT_WIRE_NO_PADDING(OpRecord);
static_assert(offsetof(NvmlSampleRecord, value) == 24);
#undef PLASMIENT_WIRE_NO_PADDING

template <typename T>
constexpr RecordHeader HeaderFor(RecordKind kind) {
  return RecordHeader{kind, static_cast<std::uint16_t>(sizeof(T)), 0};
}

}  // namespace plasmient::wire
