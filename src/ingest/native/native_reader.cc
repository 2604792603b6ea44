#include "ingest/native/native_reader.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstring>
#include <iterator>
#include <limits>
#include <unordered_map>

#include <fmt/format.h>

#include "ingest/native/native_names.h"
#include "ingest/nvtx_name_parser.h"
#include "model/trace_builder.h"
#include "wire/chunk_codec.h"
#include "wire/crc32c.h"

namespace plasmient::ingest::native {
namespace {

// The largest cumulative drop count a drop record may carry (see Collect).
constexpr std::int64_t kMaxDropCount = std::int64_t{1} << 40;

using model::Dq;
using wire::RecordKind;

template <typename T>
T Load(const std::uint8_t* p) {
  T r;
  std::memcpy(&r, p, sizeof r);
  return r;
}

// All records of a file, by kind, before they become rows (strings may come later than users).
struct Records {
  std::unordered_map<std::uint32_t, std::string> strings;
  std::vector<wire::ProcessRecord> processes;
  std::vector<wire::DeviceRecord> devices;
  std::vector<wire::KernelRecord> kernels;
  std::vector<wire::MemcpyRecord> memcpys;
  std::vector<wire::MemsetRecord> memsets;
  std::vector<wire::ApiRecord> apis;
  std::vector<wire::MarkerRecord> markers;
  std::vector<wire::CpuRangeRecord> ranges;
  std::vector<wire::CollectiveRecord> collectives;
  std::vector<wire::GemmRecord> gemms;
  std::vector<wire::OpRecord> ops;
  std::vector<wire::NvmlSampleRecord> samples;
  std::unordered_map<std::uint32_t, std::int64_t> external_ids;  // correlation -> external id
  std::int64_t drops[static_cast<std::size_t>(wire::DropSource::kCount)] = {};
  std::int64_t events = 0;
  std::int64_t malformed = 0;
};

// The record is at least a T: checked before any of it is read (WalkRecords guarantees only
// that `size_bytes` bytes are there).
template <typename T>
bool Fits(const wire::RecordHeader& h, Records& all) {
  if (h.size_bytes >= sizeof(T)) return true;
  ++all.malformed;
  return false;
}

template <typename T>
void Keep(std::vector<T>& out, const wire::RecordHeader& h, const std::uint8_t* p, Records& all) {
  if (Fits<T>(h, all)) out.push_back(Load<T>(p));
}

void Collect(const wire::RecordHeader& h, const std::uint8_t* p, Records& r) {
  ++r.events;
  switch (h.kind) {
    case RecordKind::kString: {
      if (!Fits<wire::StringRecord>(h, r)) return;
      auto s = Load<wire::StringRecord>(p);
      if (s.length > h.size_bytes - sizeof s) {
        ++r.malformed;
        return;
      }
      r.strings[s.id].assign(reinterpret_cast<const char*>(p + sizeof s), s.length);
      return;
    }
    case RecordKind::kProcess:
      return Keep(r.processes, h, p, r);
    case RecordKind::kDevice: {
      if (!Fits<wire::DeviceRecord>(h, r)) return;
      // Sizes past the model's 64-bit signed figures (bandwidth in bytes/s) are damage: counted,
      // and read as unknown (0), the rest of the device kept.
      auto d = Load<wire::DeviceRecord>(p);
      constexpr auto kMax = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
      if (d.memory_bandwidth_kbps > kMax / 1000 || d.global_memory_bytes > kMax) {
        ++r.malformed;
        if (d.memory_bandwidth_kbps > kMax / 1000) d.memory_bandwidth_kbps = 0;
        if (d.global_memory_bytes > kMax) d.global_memory_bytes = 0;
      }
      r.devices.push_back(d);
      return;
    }
    case RecordKind::kKernel:
      return Keep(r.kernels, h, p, r);
    case RecordKind::kMemcpy:
      return Keep(r.memcpys, h, p, r);
    case RecordKind::kMemset:
      return Keep(r.memsets, h, p, r);
    case RecordKind::kApi:
      return Keep(r.apis, h, p, r);
    case RecordKind::kMarker:
      return Keep(r.markers, h, p, r);
    case RecordKind::kCpuRange:
      return Keep(r.ranges, h, p, r);
    case RecordKind::kCollective:
      return Keep(r.collectives, h, p, r);
    case RecordKind::kGemm:
      return Keep(r.gemms, h, p, r);
    case RecordKind::kOp:
      return Keep(r.ops, h, p, r);
    case RecordKind::kNvmlSample:
      return Keep(r.samples, h, p, r);
    case RecordKind::kExternalCorrelation: {
      if (!Fits<wire::ExternalCorrelationRecord>(h, r)) return;
      auto e = Load<wire::ExternalCorrelationRecord>(p);
      r.external_ids[e.correlation] = static_cast<std::int64_t>(e.external_id);
      return;
    }
    case RecordKind::kDrops: {
      if (!Fits<wire::DropRecord>(h, r)) return;
      auto d = Load<wire::DropRecord>(p);
      // A count below 0 or past kMaxDropCount is no agent's (a day of a million records a second
      // is under 2^37): malformed, so that summing sources and ranks cannot overflow.
      if (d.cumulative < 0 || d.cumulative > kMaxDropCount) {
        ++r.malformed;
        return;
      }
      if (d.source < std::size(r.drops)) {
        r.drops[d.source] = std::max(r.drops[d.source], d.cumulative);
      }
      return;
    }
    default:
      return;  // clock sync, sync, overhead and future kinds: not rows in the model
  }
}

class RowMaker {
 public:
  RowMaker(Records& r, model::TraceBuilder& b) : r_(r), b_(b) {}

  std::string_view Str(std::uint32_t id) {
    auto it = r_.strings.find(id);
    return it == r_.strings.end() ? std::string_view() : std::string_view(it->second);
  }

  const std::string& KernelName(std::uint32_t id) {
    auto [it, inserted] = demangled_.try_emplace(id);
    if (inserted) {
      it->second = id == 0 ? std::string("<unknown kernel>") : Demangle(Str(id));
      if (it->second.empty()) it->second = fmt::format("<lost string {}>", id);
    }
    return it->second;
  }

  std::int64_t External(std::uint32_t correlation) {
    auto it = r_.external_ids.find(correlation);
    return it == r_.external_ids.end() ? model::kNoId : it->second;
  }

  void Process() {
    for (const auto& p : r_.processes) {
      auto& info = b_.info();
      info.rank = p.rank;
      info.world_size = p.world_size;
      info.hostname = std::string(Str(p.host_id));
      info.job_id = std::string(Str(p.job_id));
    }
    for (const auto& d : r_.devices) {
      model::DeviceInfo dev;
      dev.id = static_cast<std::int32_t>(d.device);
      dev.name = std::string(Str(d.name_id));
      dev.sm_count = static_cast<std::int32_t>(d.sm_count);
      dev.cc_major = static_cast<std::int32_t>(d.cc_major);
      dev.cc_minor = static_cast<std::int32_t>(d.cc_minor);
      dev.total_memory_bytes = static_cast<std::int64_t>(d.global_memory_bytes);
      dev.sm_clock_mhz = d.core_clock_khz / 1000;
      dev.memory_bandwidth_bytes_per_s = static_cast<std::int64_t>(d.memory_bandwidth_kbps) * 1000;
      b_.AddDevice(std::move(dev));
    }
  }

  void Gpu() {
    for (const auto& k : r_.kernels) {
      model::GpuRow row;
      row.start_ns = static_cast<TimeNs>(k.start_ns);
      row.end_ns = static_cast<TimeNs>(k.end_ns);
      row.device = static_cast<std::int32_t>(k.device);
      row.stream = static_cast<std::int32_t>(k.stream);
      row.name = KernelName(k.name_id);
      row.kind = model::GpuKind::kKernel;
      row.correlation = k.correlation;
      row.external_id = External(k.correlation);
      std::int32_t gpu_row = b_.AddGpu(row);
      kernel_by_corr_[k.correlation] = {gpu_row, IsNcclKernel(row.name)};
    }
    for (const auto& m : r_.memcpys) {
      std::string name = MemcpyName(m.copy_kind, m.src_kind, m.dst_kind);
      // Join with runtime API rows: the runtime correlation id when CUPTI gave one.
      std::uint32_t corr = m.runtime_correlation != 0 ? m.runtime_correlation : m.correlation;
      model::GpuRow row{.start_ns = static_cast<TimeNs>(m.start_ns),
                        .end_ns = static_cast<TimeNs>(m.end_ns),
                        .device = static_cast<std::int32_t>(m.device),
                        .stream = static_cast<std::int32_t>(m.stream),
                        .name = name,
                        .kind = model::GpuKind::kMemcpy,
                        .correlation = corr,
                        .external_id = External(corr),
                        .bytes = static_cast<std::int64_t>(m.bytes)};
      b_.AddGpu(row);
    }
    for (const auto& m : r_.memsets) {
      std::string name = MemsetName(m.memory_kind);
      model::GpuRow row{.start_ns = static_cast<TimeNs>(m.start_ns),
                        .end_ns = static_cast<TimeNs>(m.end_ns),
                        .device = static_cast<std::int32_t>(m.device),
                        .stream = static_cast<std::int32_t>(m.stream),
                        .name = name,
                        .kind = model::GpuKind::kMemset,
                        .correlation = m.correlation,
                        .external_id = External(m.correlation),
                        .bytes = static_cast<std::int64_t>(m.bytes)};
      b_.AddGpu(row);
    }
  }

  void Api() {
    for (const auto& a : r_.apis) {
      std::string_view name = StripApiVersion(Str(a.name_id));
      std::string fallback;
      if (name.empty()) {
        fallback = fmt::format("{}_cbid_{}", a.domain == 1 ? "cudaRuntime" : "cuDriver", a.cbid);
        name = fallback;
      }
      b_.AddApi({static_cast<TimeNs>(a.start_ns), static_cast<TimeNs>(a.end_ns), a.pid, a.tid, name,
                 a.correlation, External(a.correlation)});
      if (auto k = kernel_by_corr_.find(a.correlation); k != kernel_by_corr_.end()) {
        launches_.push_back({a.pid, a.tid, a.start_ns, k->second});
      }
    }
    std::sort(launches_.begin(), launches_.end());
  }

  // The NCCL kernel a collective record runs in, or -1. NCCL launches a plan's kernel and then,
  // on the same thread, starts the Coll/P2p events of the plan's operations (hostStreamPlanTask
  // after ncclLaunchKernel), so the kernel is the thread's latest launch before the record's
  // start when that launch is an NCCL kernel. Operations NCCL starts from a CUDA host callback
  // (graph replays, a busy host stream) have no launch on their thread and stay unattached.
  std::int32_t KernelOfCollective(const wire::CollectiveRecord& c) const {
    Launch probe{c.pid, c.tid, c.start_ns, {std::numeric_limits<std::int32_t>::max(), true}};
    auto it = std::upper_bound(launches_.begin(), launches_.end(), probe);
    if (it == launches_.begin()) return -1;
    const Launch& l = *std::prev(it);
    return l.pid == c.pid && l.tid == c.tid && l.kernel.nccl ? l.kernel.row : -1;
  }

  // NVTX: a START and an END with the same id make one range; host ranges are ranges already.
  // Their names mean what they mean in an Nsight export: ProfilerStep#N is a step, an
  // emit_nvtx op range ("aten::mm, seq = 12, sizes = [[8, 512], [512, 1024]]") an op with its
  // shapes, anything else an annotation (a module when named "nn.Module: X").
  void Markers() {
    std::unordered_map<std::uint32_t, const wire::MarkerRecord*> open;
    for (const auto& m : r_.markers) {
      if (m.flags & wire::kMarkerStart) {
        open[m.id] = &m;
      } else if (m.flags & wire::kMarkerEnd) {
        auto it = open.find(m.id);
        if (it == open.end()) continue;
        const auto& s = *it->second;
        AddRange(s.timestamp_ns, m.timestamp_ns, s.pid, s.tid, s.name_id);
        open.erase(it);
      }
    }
    for (const auto& c : r_.ranges) AddRange(c.start_ns, c.end_ns, c.pid, c.tid, c.name_id);
  }

  void AddRange(std::uint64_t start_ns, std::uint64_t end_ns, std::uint32_t pid, std::uint32_t tid,
                std::uint32_t name_id) {
    const NvtxRangeMeaning meaning = ParseNvtxRangeName(Str(name_id));
    model::CpuOpRow row;
    row.start_ns = static_cast<TimeNs>(start_ns);
    row.end_ns = static_cast<TimeNs>(end_ns);
    row.pid = pid;
    row.tid = tid;
    row.name = meaning.name;
    row.kind = meaning.kind;
    row.step = meaning.step;
    row.input_dims = meaning.input_dims;
    b_.AddCpuOp(row);
  }

  // Operators with their Kineto-spelled shapes: the rows the Kineto path makes of a cpu_op.
  void Ops() {
    for (const auto& o : r_.ops) {
      model::CpuOpRow row;
      row.start_ns = static_cast<TimeNs>(o.start_ns);
      row.end_ns = static_cast<TimeNs>(o.end_ns);
      row.pid = o.pid;
      row.tid = o.tid;
      row.name = Str(o.name_id);
      row.kind = model::CpuOpKind::kOp;
      row.external_id = o.external_id != 0 ? static_cast<std::int64_t>(o.external_id) : model::kNoId;
      row.input_dims = Str(o.input_dims_id);
      row.input_types = Str(o.input_types_id);
      row.concrete_inputs = Str(o.concrete_inputs_id);
      row.sequence = o.sequence >= 0 ? o.sequence : model::kNoId;
      row.forward_thread = o.forward_thread >= 0 ? o.forward_thread : model::kNoId;
      b_.AddCpuOp(row);
    }
  }

  // cuBLAS calls become kOp rows with aten::mm/bmm-style shapes so the mm FLOP model applies.
  void Gemms(std::int64_t next_external_id) {
    for (const auto& g : r_.gemms) {
      std::string dims, types;
      std::string_view a = CudaDtypeName(g.a_type), b = CudaDtypeName(g.b_type);
      if (g.batch > 1) {
        dims = fmt::format("[[{},{},{}],[{},{},{}]]", g.batch, g.m, g.k, g.batch, g.k, g.n);
      } else {
        dims = fmt::format("[[{},{}],[{},{}]]", g.m, g.k, g.k, g.n);
      }
      types = fmt::format("[\"{}\",\"{}\"]", a, b);
      std::int64_t ext = next_external_id++;
      model::CpuOpRow row;
      row.start_ns = static_cast<TimeNs>(g.start_ns);
      row.end_ns = static_cast<TimeNs>(g.end_ns);
      row.pid = g.pid;
      row.tid = g.tid;
      row.name = kGemmOpName;
      row.kind = model::CpuOpKind::kOp;
      row.external_id = ext;
      row.input_dims = dims;
      row.input_types = types;
      b_.AddCpuOp(row);
      if (g.first_correlation != 0) gemm_launches_.push_back({g.first_correlation, g.launches, g.tid, ext});
    }
  }

  // Kernels launched inside a cuBLAS call carry the call's external id, like Kineto's
  // External id that ties kernels to their op. A call's launches are the correlation ids
  // [first, first + count) on its thread: one binary search per API row.
  void TieGemmKernels(model::Trace& t) {
    if (gemm_launches_.empty()) return;
    auto by_thread_first = [](const GemmLaunch& a, const GemmLaunch& b) {
      return a.tid != b.tid ? a.tid < b.tid : a.first < b.first;
    };
    std::stable_sort(gemm_launches_.begin(), gemm_launches_.end(), by_thread_first);
    std::unordered_map<std::int64_t, std::int64_t> ext_by_corr;
    for (std::size_t i = 0; i < t.api.size(); ++i) {
      std::int64_t c = t.api.correlation[i];
      GemmLaunch probe{c, 0, t.api.tid[i], 0};
      auto it = std::upper_bound(gemm_launches_.begin(), gemm_launches_.end(), probe, by_thread_first);
      if (it == gemm_launches_.begin()) continue;
      const GemmLaunch& g = *std::prev(it);
      if (g.tid == t.api.tid[i] && c >= g.first && c < g.first + std::max<std::int64_t>(g.count, 1)) {
        t.api.external_id[i] = g.external_id;
        ext_by_corr[c] = g.external_id;
      }
    }
    for (const auto& g : gemm_launches_) {
      if (g.count == 1) ext_by_corr.emplace(g.first, g.external_id);
    }
    for (std::size_t i = 0; i < t.gpu.size(); ++i) {
      auto it = ext_by_corr.find(t.gpu.correlation[i]);
      if (it != ext_by_corr.end()) t.gpu.external_id[i] = it->second;
    }
  }

  void Collectives() {
    for (const auto& c : r_.collectives) {
      std::string name = NcclCollectiveName(Str(c.func_id));
      model::CpuOpRow op;
      // The operation's enqueue on the launching thread, an instant: the record's end is the GPU's
      // completion (its kernel's), and a host row spanning to it would hold the thread's later
      // ops and launches as if they ran inside the collective.
      op.start_ns = static_cast<TimeNs>(c.start_ns);
      op.end_ns = op.start_ns;
      op.pid = c.pid;
      op.tid = c.tid;
      std::string op_name = "nccl:" + name;
      op.name = op_name;
      op.kind = model::CpuOpKind::kOp;
      std::int32_t op_row = b_.AddCpuOp(op);
      std::string comm = fmt::format("{:016x}", c.comm_hash);
      model::CollectiveRow row;
      row.cpu_op = op_row;
      row.gpu = KernelOfCollective(c);
      row.name = name;
      row.in_nelems = static_cast<std::int64_t>(c.count);
      row.out_nelems = static_cast<std::int64_t>(c.count);
      row.dtype = NcclDtypeName(Str(c.dtype_id));
      row.group_size = c.nranks;
      row.pg_name = comm;
      bool p2p = c.kind == static_cast<std::uint8_t>(wire::CollectiveKind::kP2p);
      row.seq = p2p ? model::kNoId : static_cast<std::int64_t>(c.seq);
      row.group_rank = c.rank;
      row.peer = p2p ? c.peer : -1;
      row.bytes = c.bytes > 0 ? static_cast<std::int64_t>(c.bytes) : -1;
      b_.AddCollective(row);
    }
  }

  void Samples() {
    for (const auto& s : r_.samples) {
      b_.AddSample(
          {static_cast<TimeNs>(s.ts_ns), static_cast<std::int32_t>(s.device), MetricName(s.metric), s.value});
    }
  }

  static std::string_view MetricName(std::uint16_t metric) {
    using M = wire::NvmlMetric;
    switch (static_cast<M>(metric)) {
      case M::kGpuUtilPct:
        return "nvml.gpu_util_pct";
      case M::kMemoryUtilPct:
        return "nvml.memory_util_pct";
      case M::kSmClockMhz:
        return "nvml.sm_clock_mhz";
      case M::kMemClockMhz:
        return "nvml.mem_clock_mhz";
      case M::kPowerMw:
        return "nvml.power_mw";
      case M::kThrottleReasons:
        return "nvml.clock_event_reasons";
      case M::kMemoryUsedBytes:
        return "nvml.memory_used_bytes";
      case M::kMemoryTotalBytes:
        return "nvml.memory_total_bytes";
      case M::kGpmSmUtilPct:
        return model::kSmActiveMetric;
      case M::kGpmSmOccupancyPct:
        return "gpm.sm_occupancy_pct";
      case M::kGpmTensorUtilPct:
        return model::kTensorActiveMetric;
      case M::kGpmDramBwUtilPct:
        return model::kDramActiveMetric;
      case M::kGpmFp16UtilPct:
        return "gpm.fp16_util_pct";
      case M::kGpmFp32UtilPct:
        return "gpm.fp32_util_pct";
    }
    return "nvml.unknown";
  }

 private:
  struct GemmLaunch {
    std::int64_t first, count, tid, external_id;
  };
  struct KernelRow {
    std::int32_t row;
    bool nccl;
    auto operator<=>(const KernelRow&) const = default;
  };
  struct Launch {  // a kernel launch call, ordered by thread, then time
    std::uint32_t pid, tid;
    std::uint64_t start_ns;
    KernelRow kernel;
    auto operator<=>(const Launch&) const = default;
  };
  static bool IsNcclKernel(std::string_view name) { return name.starts_with("nccl"); }

  Records& r_;
  model::TraceBuilder& b_;
  std::unordered_map<std::uint32_t, std::string> demangled_;
  std::vector<GemmLaunch> gemm_launches_;
  std::unordered_map<std::uint32_t, KernelRow> kernel_by_corr_;  // kernels by correlation id
  std::vector<Launch> launches_;
};

}  // namespace

Result<model::Trace> ReadNativeBytes(const std::uint8_t* data, std::size_t size, const std::string& path,
                                     std::int64_t max_decoded_bytes) {
  Records records;
  std::int64_t bad_payloads = 0;
  std::int64_t cap =
      max_decoded_bytes > 0 ? max_decoded_bytes : DecodedBytesCap(static_cast<std::int64_t>(size));
  wire::ScanReport scan = wire::ScanChunks(
      data, size,
      [&](const wire::ChunkHeader&, const std::uint8_t* raw, std::size_t n) {
        if (!wire::WalkRecords(raw, n, [&](const wire::RecordHeader& h, const std::uint8_t* p) {
              Collect(h, p, records);
            })) {
          ++bad_payloads;
        }
      },
      static_cast<std::uint64_t>(cap));
  if (!scan.error.empty()) return Fail("{}: {}", path, scan.error);

  model::TraceInfo info;
  info.path = path;
  info.format = "plasmient-native";
  info.input_bytes = static_cast<std::int64_t>(size);
  model::TraceBuilder builder(std::move(info));
  auto& q = builder.quality();
  if (scan.truncated) q.Add(Dq::kTruncatedNativeFile);
  q.Add(Dq::kCorruptChunk, scan.corrupt_chunks + scan.unsupported_chunks + bad_payloads);
  std::int64_t drops = 0;
  for (std::int64_t d : records.drops) drops += d;
  q.Add(Dq::kDroppedRecords, drops);
  q.Add(Dq::kMalformedEvent, records.malformed);

  RowMaker rows(records, builder);
  rows.Process();
  rows.Gpu();
  rows.Api();
  rows.Markers();
  rows.Ops();
  std::int64_t next_external = 1;
  for (const auto& [corr, ext] : records.external_ids) next_external = std::max(next_external, ext + 1);
  for (const auto& o : records.ops) {
    if (o.external_id < static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
      next_external = std::max(next_external, static_cast<std::int64_t>(o.external_id) + 1);
    }
  }
  rows.Gemms(next_external);
  rows.Collectives();
  rows.Samples();
  builder.info().events = records.events;
  // Monotonic ns -> epoch ns, so ranks on different hosts share a time axis.
  TimeNs base = 0;
  if (__builtin_sub_overflow(scan.header.start_realtime_ns, scan.header.start_monotonic_ns, &base) ||
      !builder.ShiftTime(base)) {
    return Fail("{}: timestamps plus the realtime clock offset {} ns leave the 64-bit nanosecond range", path,
                base);
  }
  model::Trace trace = std::move(builder).Finish();
  rows.TieGemmKernels(trace);
  return trace;
}

Result<model::Trace> ReadNative(const std::string& path, const OpenRules& rules,
                                std::int64_t max_decoded_bytes) {
  auto file = InputFile::Open(path, rules);
  if (!file) return std::unexpected(file.error());
  std::vector<std::uint8_t> bytes(static_cast<std::size_t>(file->size()));
  std::size_t filled = 0;
  while (filled < bytes.size()) {
    ssize_t n = ::read(file->fd(), bytes.data() + filled, bytes.size() - filled);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Fail("{}: read error: {} at byte {}", path, std::strerror(errno), filled);
    if (n == 0) break;  // shrank while read: what is there is read as a cut-off file
    filled += static_cast<std::size_t>(n);
  }
  return ReadNativeBytes(bytes.data(), filled, path, max_decoded_bytes);
}

Coverage NativeCoverage(const std::string& path, const OpenRules& rules) {
  auto file = InputFile::Open(path, rules);
  if (!file) return Coverage::kNotNative;
  wire::FileHeader h{};
  std::size_t filled = 0;
  auto* p = reinterpret_cast<std::uint8_t*>(&h);
  while (filled < sizeof h) {
    ssize_t n = ::read(file->fd(), p + filled, sizeof h - filled);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return Coverage::kNotNative;
    filled += static_cast<std::size_t>(n);
  }
  if (std::memcmp(h.magic, wire::kFileMagic, sizeof h.magic) != 0 ||
      h.header_crc != wire::Crc32c(&h, offsetof(wire::FileHeader, header_crc))) {
    return Coverage::kNotNative;
  }
  if ((h.flags & wire::kFileWindow) == 0) return Coverage::kWholeRun;
  return (h.flags & wire::kFileKernels) != 0 ? Coverage::kWindow : Coverage::kSamples;
}

}  // namespace plasmient::ingest::native
