#include "synth/native_writer.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <vector>

#include <fmt/format.h>

#include "collect/agent/agent_config.h"
#include "collect/agent/record_sink.h"
#include "collect/agent/trace_writer.h"
#include "synth/kernel_catalog.h"
#include "wire/records.h"

namespace plasmient::synth {
namespace {

using wire::HeaderFor;
using wire::RecordKind;

// The communicator hashes NCCL would give the job's groups: one for the world, one per
// pipeline P2P channel (any stable 64-bit values do; every rank of a group must agree).
constexpr std::uint64_t kWorldComm = 0x706c61736d000000;
constexpr std::uint64_t kP2pCommBase = 0x706c61736d100000;
constexpr int kExternalKindCustom0 = 3;  // CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, as Kineto pushes
// Records appended between two passes of the writer: well under the staging blocks' 4 MiB.
constexpr std::size_t kPumpBytes = 1 << 20;

// The value of `key` in Kineto args as AppendShapeArgs spells them ("Input Dims": [...],
// "Input type": [...], "Concrete Inputs": [...]): the JSON array after the key, brackets
// inside its strings ("[2048]") left alone.
std::string_view ArgValue(std::string_view args, std::string_view key) {
  const std::size_t at = args.find(key);
  if (at == std::string_view::npos) return {};
  const std::string_view value = args.substr(at + key.size());
  int depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < value.size(); ++i) {
    const char c = value[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[') {
      ++depth;
    } else if (c == ']' && --depth == 0) {
      return value.substr(0, i + 1);
    }
  }
  return {};
}

std::string_view NcclFunc(OpKind kind) {
  switch (kind) {
    case OpKind::kAllReduce:
      return "AllReduce";
    case OpKind::kAllToAll:
      return "AllToAll";
    case OpKind::kSend:
      return "Send";
    case OpKind::kRecv:
      return "Recv";
    default:
      return "";
  }
}

// The agent's configuration for rank `rank` of this job: its file names come from it.
collect::AgentConfig AgentOf(const SynthConfig& config, int rank, const std::string& dir) {
  collect::AgentConfig a;
  a.out_dir = dir;
  a.spool = dir;
  a.rank = rank;
  a.local_rank = rank % 8;
  a.world_size = config.ranks;
  a.host = fmt::format("synth-node{}", rank / 8);
  a.job_id = fmt::format("synth-{}-{}", ScenarioName(config.scenario), config.seed);
  a.pid = kRankPidBase + rank;
  a.window_s = config.window_s;
  a.period_s = config.period_s;
  return a;
}

std::string DirOf(const std::string& path) {
  const std::string dir = std::filesystem::path(path).parent_path().string();
  return dir.empty() ? "." : dir;
}

}  // namespace

std::string NativeRankFileName(const SynthConfig& config, int rank) {
  return std::filesystem::path(collect::TraceFilePath(AgentOf(config, rank, "."))).filename().string();
}

NativeRankWriter::NativeRankWriter(const SynthConfig& config, const GpuSpec& gpu, RankFileInfo info)
    : RankWriter(config, gpu, std::move(info)) {
  collect::SinkOptions sink;
  sink.block_bytes = 256 << 10;
  sink.block_count = 16;
  sink.ring_slots = 16;
  sink_ = std::make_unique<collect::RecordSink>(sink);
  producer_ = std::make_unique<collect::BlockProducer>(*sink_);
  collect::WriterOptions options;
  // The header's clock pair maps the rank's clock onto the Kineto trace's epoch.
  options.fixed_realtime_ns = kBaseTimeNanoseconds + kTraceOriginNs;
  options.fixed_monotonic_ns = kTraceOriginNs;
  options.windowed = config.period_s > 0;
  writer_ = std::make_unique<collect::TraceWriter>(*sink_, options);
}

NativeRankWriter::~NativeRankWriter() = default;

std::uint64_t NativeRankWriter::Clock(TimeNs true_ns) const {
  return static_cast<std::uint64_t>(true_ns + info_.clock_offset_ns);
}

template <typename T>
void NativeRankWriter::Add(const T& record) {
  producer_->Append(record);
  unpumped_bytes_ += sizeof record;
}

std::uint32_t NativeRankWriter::Intern(std::string_view text) {
  if (text.empty()) return 0;
  auto [it, fresh] = strings_.try_emplace(std::string(text), next_string_id_);
  if (fresh) {
    ++next_string_id_;
    producer_->AppendString(it->second, text);
    unpumped_bytes_ += sizeof(wire::StringRecord) + text.size() + 8;
  }
  return it->second;
}

Status NativeRankWriter::Open() {
  const collect::AgentConfig agent = AgentOf(config_, info_.rank, DirOf(info_.path));
  wire::ProcessRecord p{};
  p.header = HeaderFor<wire::ProcessRecord>(RecordKind::kProcess);
  p.pid = agent.pid;
  p.rank = agent.rank;
  p.local_rank = agent.local_rank;
  p.world_size = agent.world_size;
  p.host_id = Intern(agent.host);
  p.job_id = Intern(agent.job_id);
  p.command_id = Intern("python3");
  p.start_realtime_ns = kBaseTimeNanoseconds + kTraceOriginNs;
  p.start_monotonic_ns = kTraceOriginNs;
  Add(p);
  wire::DeviceRecord d{};
  d.header = HeaderFor<wire::DeviceRecord>(RecordKind::kDevice);
  d.device = static_cast<std::uint32_t>(device_);
  d.name_id = Intern(gpu_.driver_name);
  d.sm_count = static_cast<std::uint32_t>(gpu_.num_sms);
  d.cc_major = static_cast<std::uint32_t>(gpu_.compute_major);
  d.cc_minor = static_cast<std::uint32_t>(gpu_.compute_minor);
  d.global_memory_bytes = static_cast<std::uint64_t>(gpu_.total_global_mem_bytes);
  d.memory_bandwidth_kbps = static_cast<std::uint64_t>(gpu_.mem_bytes_per_s / 1e3);
  Add(d);
  // A windowed rank's first file starts with its first step, which says whether it is a window.
  if (config_.period_s > 0) return Ok();
  const std::string why = writer_->Open(info_.path, /*start_thread=*/false);
  if (!why.empty()) return Fail("{}", why);
  file_open_ = true;
  return Pump();
}

// The agent's duty cycle on the rank's true clock from the trace origin: the last window_s of
// every period_s is a kernel window (all of it when the window is the longer). Windows are
// step-aligned and hold whole steps: a step that begins inside a window is traced to its end.
void NativeRankWriter::StepBegins(int step, TimeNs start_ns) {
  if (!status_) return;
  WriteSamplesBefore(start_ns);
  if (config_.period_s <= 0) return;
  const double t = NsToSeconds(start_ns - kTraceOriginNs);
  const auto period = static_cast<std::int64_t>(std::floor(t / config_.period_s));
  const bool window = config_.window_s >= config_.period_s ||
                      t >= static_cast<double>(period + 1) * config_.period_s - config_.window_s;
  if (!file_open_ || period != period_ || window != tracing_) {
    period_ = period;
    status_ = StartFile(window);
  }
  files_.back().steps.push_back(step);
}

Status NativeRankWriter::StartFile(bool kernels) {
  const collect::AgentConfig agent = AgentOf(config_, info_.rank, DirOf(info_.path));
  const std::string path = collect::WindowFilePath(agent, files_.size());
  const std::uint32_t flags = wire::kFileWindow | (kernels ? std::uint32_t{wire::kFileKernels} : 0u);
  if (file_open_) {
    PLASMIENT_TRY(Pump());
    bytes_written_ += static_cast<std::int64_t>(writer_->bytes_written());
    writer_->Rotate(path, flags);
  } else {
    const std::string why = writer_->Open(path, /*start_thread=*/false, flags);
    if (!why.empty()) return Fail("{}", why);
    file_open_ = true;
  }
  if (writer_->files_dropped() > 0) return Fail("{}: the file could not be written", path);
  tracing_ = kernels;
  files_.push_back({std::filesystem::path(path).filename().string(), kernels, {}});
  return Ok();
}

void NativeRankWriter::StepEnded(TimeNs end_ns) { WriteSamplesBefore(end_ns); }

void NativeRankWriter::WriteRange(const HostRange& r) {
  // NCCL's profiler plugin is not switched with the windows: collectives are always recorded.
  if (!tracing_) {
    if (r.comm != nullptr) WriteCollective(*r.comm);
    return;
  }
  if (r.cat != "cpu_op") {
    wire::CpuRangeRecord c{};
    c.header = HeaderFor<wire::CpuRangeRecord>(RecordKind::kCpuRange);
    c.start_ns = Clock(r.start_ns);
    c.end_ns = Clock(r.end_ns);
    c.pid = static_cast<std::uint32_t>(pid_);
    c.tid = static_cast<std::uint32_t>(tid_);
    c.name_id = Intern(r.name);
    Add(c);
    return;
  }
  std::string_view args = r.raw_args;
  fmt::memory_buffer shapes;
  if (r.shapes != nullptr) {
    AppendShapeArgs(shapes, *r.shapes, config_.seq_len);
    args = std::string_view(shapes.data(), shapes.size());
  }
  wire::OpRecord o{};
  o.header = HeaderFor<wire::OpRecord>(RecordKind::kOp);
  o.start_ns = Clock(r.start_ns);
  o.end_ns = Clock(r.end_ns);
  o.external_id = static_cast<std::uint64_t>(r.external_id);
  o.sequence = r.sequence_number;
  o.forward_thread = r.sequence_number >= 0 ? r.forward_thread : -1;
  o.pid = static_cast<std::uint32_t>(pid_);
  o.tid = static_cast<std::uint32_t>(tid_);
  o.name_id = Intern(r.name);
  o.input_dims_id = Intern(ArgValue(args, "\"Input Dims\": "));
  o.input_types_id = Intern(ArgValue(args, "\"Input type\": "));
  o.concrete_inputs_id = Intern(ArgValue(args, "\"Concrete Inputs\": "));
  Add(o);
  if (r.comm != nullptr) WriteCollective(*r.comm);
}

// What the NCCL profiler plugin records: enqueued on the launching thread right after the
// kernel's launch, ending when the kernel ends.
void NativeRankWriter::WriteCollective(const SimEvent& ev) {
  const Item& item = *ev.item;
  const bool p2p = IsP2p(item.kind);
  wire::CollectiveRecord c{};
  c.header = HeaderFor<wire::CollectiveRecord>(RecordKind::kCollective);
  c.start_ns = Clock(ev.launch_end_ns);
  c.end_ns = Clock(ev.gpu_end_ns);
  c.comm_hash = p2p ? kP2pCommBase + item.group : kWorldComm;
  c.seq = p2p ? 0 : static_cast<std::uint64_t>(ev.comm_seq);
  c.count = static_cast<std::uint64_t>(item.nelems);
  c.bytes = static_cast<std::uint64_t>(item.nelems) * 2;  // BFloat16, as the Kineto args say
  c.kind = static_cast<std::uint8_t>(p2p ? wire::CollectiveKind::kP2p : wire::CollectiveKind::kCollective);
  if (p2p) {  // a two-rank communicator: the lower rank is rank 0
    c.nranks = 2;
    c.rank = info_.rank < item.peer ? 0 : 1;
    c.peer = 1 - c.rank;
  } else {
    c.nranks = item.group_size;
    c.rank = info_.rank;
    c.peer = -1;
  }
  c.root = -1;
  c.func_id = Intern(NcclFunc(item.kind));
  c.dtype_id = Intern("ncclBfloat16");
  c.pid = static_cast<std::uint32_t>(pid_);
  c.tid = static_cast<std::uint32_t>(tid_);
  Add(c);
}

void NativeRankWriter::WriteRuntime(const RuntimeCall& call) {
  if (!tracing_) return;
  wire::ApiRecord a{};
  a.header = HeaderFor<wire::ApiRecord>(RecordKind::kApi);
  a.start_ns = Clock(call.start_ns);
  a.end_ns = Clock(call.end_ns);
  a.pid = static_cast<std::uint32_t>(pid_);
  a.tid = static_cast<std::uint32_t>(tid_);
  a.correlation = static_cast<std::uint32_t>(call.correlation);
  a.cbid = static_cast<std::uint32_t>(call.cbid);
  a.name_id = Intern(call.name);
  a.domain = static_cast<std::uint8_t>(call.cat == "cuda_driver" ? wire::ApiDomain::kDriver
                                                                 : wire::ApiDomain::kRuntime);
  Add(a);
  if (call.external_id > 0) {
    wire::ExternalCorrelationRecord e{};
    e.header = HeaderFor<wire::ExternalCorrelationRecord>(RecordKind::kExternalCorrelation);
    e.external_id = static_cast<std::uint64_t>(call.external_id);
    e.correlation = static_cast<std::uint32_t>(call.correlation);
    e.external_kind = kExternalKindCustom0;
    Add(e);
  }
}

void NativeRankWriter::WriteGpu(const SimEvent& ev, std::string_view name, std::int64_t correlation,
                                std::int64_t /*external_id: carried by the runtime call's record*/) {
  const Item& item = *ev.item;
  SampleActivity(item, ev.gpu_start_ns, ev.gpu_end_ns);
  if (!tracing_) return;
  const auto stream = static_cast<std::uint32_t>(StreamId(item.stream));
  const auto corr = static_cast<std::uint32_t>(correlation);
  if (item.kind == OpKind::kMemcpyH2D || item.kind == OpKind::kMemcpyD2H) {
    // CUPTI's copy and memory kinds: HtoD 1, DtoH 2; pinned 2, device 3.
    const bool h2d = item.kind == OpKind::kMemcpyH2D;
    wire::MemcpyRecord m{};
    m.header = HeaderFor<wire::MemcpyRecord>(RecordKind::kMemcpy);
    m.start_ns = Clock(ev.gpu_start_ns);
    m.end_ns = Clock(ev.gpu_end_ns);
    m.bytes = static_cast<std::uint64_t>(item.d[0]);
    m.device = m.src_device = m.dst_device = static_cast<std::uint32_t>(device_);
    m.context = 1;
    m.stream = stream;
    m.correlation = corr;
    m.copy_kind = h2d ? 1 : 2;
    m.src_kind = h2d ? 2 : 3;
    m.dst_kind = h2d ? 3 : 2;
    Add(m);
    return;
  }
  if (item.kind == OpKind::kMemsetZero) {
    wire::MemsetRecord m{};
    m.header = HeaderFor<wire::MemsetRecord>(RecordKind::kMemset);
    m.start_ns = Clock(ev.gpu_start_ns);
    m.end_ns = Clock(ev.gpu_end_ns);
    m.bytes = static_cast<std::uint64_t>(item.d[0]);
    m.device = static_cast<std::uint32_t>(device_);
    m.context = 1;
    m.stream = stream;
    m.correlation = corr;
    m.memory_kind = 3;  // device
    Add(m);
    return;
  }
  const LaunchGeometry g = Geometry(item);
  wire::KernelRecord k{};
  k.header = HeaderFor<wire::KernelRecord>(RecordKind::kKernel);
  k.start_ns = Clock(ev.gpu_start_ns);
  k.end_ns = Clock(ev.gpu_end_ns);
  k.device = static_cast<std::uint32_t>(device_);
  k.context = 1;
  k.stream = stream;
  k.correlation = corr;
  k.name_id = Intern(name);
  k.grid_x = static_cast<std::int32_t>(g.grid[0]);
  k.grid_y = static_cast<std::int32_t>(g.grid[1]);
  k.grid_z = static_cast<std::int32_t>(g.grid[2]);
  k.block_x = static_cast<std::int32_t>(g.block[0]);
  k.block_y = static_cast<std::int32_t>(g.block[1]);
  k.block_z = static_cast<std::int32_t>(g.block[2]);
  k.dynamic_shared_bytes = g.shared_memory;
  k.registers_per_thread = static_cast<std::uint16_t>(g.registers_per_thread);
  Add(k);
}

void NativeRankWriter::WriteModuleRange(std::string_view name, TimeNs start, TimeNs end) {
  WriteRange({.cat = "user_annotation", .name = name, .start_ns = start, .end_ns = end});
}

Status NativeRankWriter::Pump() {
  if (!file_open_) return Ok();
  producer_->Flush();
  while (writer_->Drain() > 0) writer_->WriteChunk(0);
  unpumped_bytes_ = 0;
  if (writer_->write_failed()) return Fail("{}: writing the trace failed", info_.path);
  return Ok();
}

Status NativeRankWriter::MaybeFlush() { return unpumped_bytes_ >= kPumpBytes ? Pump() : Ok(); }

// The device tier as the agent's sampler reports it: every sample period, at the period's end,
// over the period before — GPU utilization (some activity resident), SM active (a kernel
// resident), tensor active (the 16-bit FLOPs done, at the tensor peak: the time the tensor pipe
// needed) and DRAM active (the bytes the kernels moved, at full bandwidth). A kernel's FLOPs and
// bytes count in proportion to its overlap with the period.
void NativeRankWriter::SampleActivity(const Item& item, TimeNs start_ns, TimeNs end_ns) {
  if (end_ns <= start_ns) return;
  last_activity_end_ns_ = std::max(last_activity_end_ns_, end_ns);
  const auto period = static_cast<TimeNs>(config_.sample_period_ms * 1e6);
  const bool memory = ClassOf(item.kind) == ActivityClass::kMemory;
  const bool tensor = item.dtype == Dtype::kBf16 || item.dtype == Dtype::kFp16;
  const double tensor_s = !memory && tensor ? item.flops / PeakFlops(gpu_, Dtype::kBf16) : 0;
  const double dram_s = memory ? 0 : item.bytes / gpu_.mem_bytes_per_s;
  const auto dur = static_cast<double>(end_ns - start_ns);
  for (TimeNs t = start_ns; t < end_ns;) {
    const std::int64_t i = (t - kTraceOriginNs) / period;
    const TimeNs end = std::min(end_ns, kTraceOriginNs + (i + 1) * period);
    SampleBucket& b = buckets_[i];
    b.any.emplace_back(t, end);
    if (!memory) b.kernels.emplace_back(t, end);
    const double share = static_cast<double>(end - t) / dur;
    b.tensor_s += tensor_s * share;
    b.dram_s += dram_s * share;
    t = end;
  }
}

void NativeRankWriter::WriteSamplesBefore(TimeNs t) {
  const auto period = static_cast<TimeNs>(config_.sample_period_ms * 1e6);
  const double period_s = NsToSeconds(period);
  auto union_s = [](std::vector<std::pair<TimeNs, TimeNs>>& spans) {
    std::sort(spans.begin(), spans.end());
    TimeNs covered = 0, reach = kNoTime;
    for (const auto& [s, e] : spans) {
      const TimeNs from = reach == kNoTime ? s : std::max(s, reach);
      if (e > from) covered += e - from;
      reach = reach == kNoTime ? e : std::max(reach, e);
    }
    return NsToSeconds(covered);
  };
  auto sample = [&](TimeNs ts, wire::NvmlMetric metric, double seconds) {
    wire::NvmlSampleRecord s{};
    s.header = HeaderFor<wire::NvmlSampleRecord>(RecordKind::kNvmlSample);
    s.ts_ns = Clock(ts);
    s.device = static_cast<std::uint32_t>(device_);
    s.metric = static_cast<std::uint16_t>(metric);
    s.value = std::min(100.0, 100.0 * seconds / period_s);
    Add(s);
  };
  for (; kTraceOriginNs + (next_bucket_ + 1) * period <= t; ++next_bucket_) {
    SampleBucket b;
    if (auto it = buckets_.find(next_bucket_); it != buckets_.end()) {
      b = std::move(it->second);
      buckets_.erase(it);
    }
    const TimeNs ts = kTraceOriginNs + (next_bucket_ + 1) * period;
    sample(ts, wire::NvmlMetric::kGpuUtilPct, union_s(b.any));
    sample(ts, wire::NvmlMetric::kGpmSmUtilPct, union_s(b.kernels));
    sample(ts, wire::NvmlMetric::kGpmTensorUtilPct, b.tensor_s);
    sample(ts, wire::NvmlMetric::kGpmDramBwUtilPct, b.dram_s);
  }
}

Status NativeRankWriter::Finish() {
  if (!status_) return status_;
  const auto period = static_cast<TimeNs>(config_.sample_period_ms * 1e6);
  WriteSamplesBefore(last_activity_end_ns_ + period - 1);
  if (!file_open_) return Fail("{}: rank {} ran no step", info_.path, info_.rank);
  PLASMIENT_TRY(Pump());
  writer_->Close();
  bytes_written_ += static_cast<std::int64_t>(writer_->bytes_written());
  if (writer_->write_failed() || writer_->files_dropped() > 0) {
    return Fail("{}: writing the trace failed", info_.path);
  }
  return Ok();
}

}  // namespace plasmient::synth
