#include "synth/kineto_writer.h"

#include <algorithm>
#include <iterator>

#include "synth/kernel_catalog.h"
#include "synth/program_builder.h"

namespace plasmient::synth {
namespace {

constexpr int kStreamIds[kStreamSlots] = {7, 24, 28, 32, 36, 40};

ActivityClass ClassOf(OpKind kind) {
  switch (kind) {
    case OpKind::kAllReduce:
    case OpKind::kAllToAll:
      return ActivityClass::kCollective;
    case OpKind::kSend:
    case OpKind::kRecv:
      return ActivityClass::kP2p;
    case OpKind::kMemcpyH2D:
    case OpKind::kMemcpyD2H:
    case OpKind::kMemsetZero:
      return ActivityClass::kMemory;
    default:
      return ActivityClass::kCompute;
  }
}

std::string_view AnnotationName(OpKind kind) {
  switch (kind) {
    case OpKind::kAllReduce:
      return "nccl:all_reduce";
    case OpKind::kAllToAll:
      return "nccl:all_to_all";
    case OpKind::kSend:
      return "nccl:send";
    case OpKind::kRecv:
      return "nccl:recv";
    default:
      return "";
  }
}

}  // namespace

KinetoRankWriter::KinetoRankWriter(const SynthConfig& config, const GpuSpec& gpu, RankFileInfo info)
    : config_(config), gpu_(gpu), info_(std::move(info)) {
  pid_ = 2'100'000 + info_.rank;
  tid_ = pid_;
  device_ = info_.rank % 8;
  group_ranks_.reserve(static_cast<std::size_t>(info_.world) * 6);
  group_ranks_ += '[';
  for (int r = 0; r < info_.world; ++r) {
    if (r > 0) group_ranks_ += ", ";
    group_ranks_ += std::to_string(r);
  }
  group_ranks_ += ']';
}

Status KinetoRankWriter::Open() {
  PLASMIENT_TRY(file_.Open(info_.path, config_.gzip, config_.gzip_level));
  WriteHeader();
  return Ok();
}

void KinetoRankWriter::WriteHeader() {
  auto out = std::back_inserter(file_.buffer());
  fmt::format_to(out, "{{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [\n");
  for (int d = 0; d < 8; ++d) {
    fmt::format_to(
        out,
        "    {{\"id\": {}, \"name\": \"{}\", \"totalGlobalMem\": {}, \"computeMajor\": {}, "
        "\"computeMinor\": {}, \"maxThreadsPerBlock\": 1024, \"maxThreadsPerMultiprocessor\": 2048, "
        "\"regsPerBlock\": 65536, \"warpSize\": 32, \"sharedMemPerBlock\": 49152, \"numSms\": {}, "
        "\"regsPerMultiprocessor\": 65536, \"sharedMemPerBlockOptin\": {}, "
        "\"sharedMemPerMultiprocessor\": {}}}{}\n",
        d, gpu_.driver_name, gpu_.total_global_mem_bytes, gpu_.compute_major, gpu_.compute_minor,
        gpu_.num_sms, gpu_.shared_mem_per_block_optin, gpu_.shared_mem_per_sm, d < 7 ? "," : "");
  }
  fmt::format_to(out,
                 "  ],\n  \"distributedInfo\": {{\"backend\": \"nccl\", \"rank\": {}, \"world_size\": {}, "
                 "\"pg_count\": 1, \"pg_config\": [{{\"pg_name\": \"0\", \"pg_desc\": \"default_pg\", "
                 "\"backend_config\": \"cuda:nccl\", \"pg_size\": {}, \"ranks\": {}}}], "
                 "\"nccl_version\": \"2.21.5\"}},\n",
                 info_.rank, info_.world, info_.world, group_ranks_);
  fmt::format_to(out,
                 "  \"record_shapes\": 1,\n  \"with_modules\": 1,\n  \"cupti_version\": 24,\n"
                 "  \"cuda_runtime_version\": 12040,\n  \"cuda_driver_version\": 12040,\n"
                 "  \"trace_id\": \"{:016X}{:016X}\",\n  \"displayTimeUnit\": \"ms\",\n"
                 "  \"baseTimeNanoseconds\": {},\n  \"traceEvents\": [\n",
                 MixSeed(config_.seed, static_cast<std::uint64_t>(info_.rank), 0, 3), config_.seed,
                 kBaseTimeNanoseconds);
}

void KinetoRankWriter::Comma() {
  if (first_event_) {
    first_event_ = false;
  } else {
    file_.buffer().append(std::string_view(",\n"));
  }
}

void KinetoRankWriter::Ts(TimeNs true_ns) {
  const TimeNs ns = true_ns + info_.clock_offset_ns;
  fmt::format_to(std::back_inserter(file_.buffer()), "{}.{:03}", ns / 1000, ns % 1000);
}

void KinetoRankWriter::Dur(TimeNs dur_ns) {
  fmt::format_to(std::back_inserter(file_.buffer()), "{}.{:03}", dur_ns / 1000, dur_ns % 1000);
}

std::int64_t KinetoRankWriter::CpuRange(std::string_view cat, std::string_view name, TimeNs start, TimeNs end,
                                        const Item* shapes, std::int64_t sequence_number,
                                        const SimEvent* comm, std::string_view raw_args) {
  auto& buf = file_.buffer();
  auto out = std::back_inserter(buf);
  const std::int64_t external_id = next_external_id_++;
  Comma();
  fmt::format_to(
      out, "  {{\"ph\": \"X\", \"cat\": \"{}\", \"name\": \"{}\", \"pid\": {}, \"tid\": {}, \"ts\": ", cat,
      name, pid_, tid_);
  Ts(start);
  buf.append(std::string_view(", \"dur\": "));
  Dur(end - start);
  fmt::format_to(out, ", \"args\": {{\"External id\": {}, \"Record function id\": 0", external_id);
  if (sequence_number >= 0) {
    // Backward ops name the thread of the forward op that made their node (autograd's id, 1 here).
    fmt::format_to(out, ", \"Sequence number\": {}, \"Fwd thread id\": {}", sequence_number,
                   tid_ != pid_ && name.find("Backward") != std::string_view::npos ? 1 : 0);
  }
  if (shapes != nullptr) {
    buf.append(std::string_view(", "));
    const std::size_t before = buf.size();
    AppendShapeArgs(buf, *shapes, config_.seq_len);
    if (buf.size() == before) buf.resize(before - 2);
  }
  if (comm != nullptr) CommArgs(*comm->item, comm->comm_seq);
  if (!raw_args.empty()) {
    buf.append(std::string_view(", "));
    buf.append(raw_args);
  }
  fmt::format_to(out, ", \"Ev Idx\": {}}}}}", ev_idx_++);
  return external_id;
}

void KinetoRankWriter::CommArgs(const Item& item, std::int64_t seq) {
  const bool p2p = IsP2p(item.kind);
  fmt::format_to(
      std::back_inserter(file_.buffer()),
      ", \"Collective name\": \"{}\", \"In msg nelems\": {}, \"Out msg nelems\": {}, "
      "\"Group size\": {}, \"dtype\": \"BFloat16\", \"In split size\": \"[]\", "
      "\"Out split size\": \"[]\", \"Global rank start\": 0, \"Global rank stride\": 1, "
      "\"Process Group Name\": \"{}\", \"Process Group Description\": \"{}\", "
      "\"Process Group Ranks\": \"{}\", \"Seq\": {}",
      CollectiveName(item.kind), item.nelems, item.nelems, p2p ? 2 : item.group_size,
      p2p ? fmt::format("{}", item.group) : std::string("0"), p2p ? "pipeline_p2p" : "default_pg",
      p2p ? fmt::format("[{}, {}]", std::min(info_.rank, item.peer), std::max(info_.rank, item.peer))
          : group_ranks_,
      seq);
}

void KinetoRankWriter::Runtime(std::string_view cat, std::string_view name, int cbid, TimeNs start,
                               TimeNs end, std::int64_t correlation, std::int64_t external_id) {
  auto& buf = file_.buffer();
  Comma();
  fmt::format_to(std::back_inserter(buf),
                 "  {{\"ph\": \"X\", \"cat\": \"{}\", \"name\": \"{}\", \"pid\": {}, \"tid\": {}, \"ts\": ",
                 cat, name, pid_, tid_);
  Ts(start);
  buf.append(std::string_view(", \"dur\": "));
  Dur(end - start);
  if (external_id > 0) {
    fmt::format_to(std::back_inserter(buf),
                   ", \"args\": {{\"External id\": {}, \"cbid\": {}, \"correlation\": {}}}}}", external_id,
                   cbid, correlation);
  } else {
    fmt::format_to(std::back_inserter(buf), ", \"args\": {{\"cbid\": {}, \"correlation\": {}}}}}", cbid,
                   correlation);
  }
}

int KinetoRankWriter::StreamId(int slot) const { return kStreamIds[slot]; }

void KinetoRankWriter::Flows(std::int64_t correlation, TimeNs launch_ns, TimeNs gpu_ns, int stream) {
  auto& buf = file_.buffer();
  auto out = std::back_inserter(buf);
  Comma();
  fmt::format_to(out, "  {{\"ph\": \"s\", \"id\": {}, \"pid\": {}, \"tid\": {}, \"ts\": ", correlation, pid_,
                 tid_);
  Ts(launch_ns);
  buf.append(std::string_view(", \"cat\": \"ac2g\", \"name\": \"ac2g\"}"));
  Comma();
  fmt::format_to(out, "  {{\"ph\": \"f\", \"id\": {}, \"pid\": {}, \"tid\": {}, \"ts\": ", correlation,
                 device_, stream);
  Ts(gpu_ns);
  buf.append(std::string_view(", \"cat\": \"ac2g\", \"name\": \"ac2g\", \"bp\": \"e\"}"));
}

void KinetoRankWriter::GpuActivity(const SimEvent& ev, std::string_view name, std::int64_t correlation,
                                   std::int64_t external_id) {
  const Item& item = *ev.item;
  const ActivityClass cls = ClassOf(item.kind);
  const int stream = StreamId(item.stream);
  auto& buf = file_.buffer();
  auto out = std::back_inserter(buf);
  const bool memory = cls == ActivityClass::kMemory;
  const std::string_view cat = !memory                            ? "kernel"
                               : item.kind == OpKind::kMemsetZero ? "gpu_memset"
                                                                  : "gpu_memcpy";
  Comma();
  fmt::format_to(
      out, "  {{\"ph\": \"X\", \"cat\": \"{}\", \"name\": \"{}\", \"pid\": {}, \"tid\": {}, \"ts\": ", cat,
      name, device_, stream);
  Ts(ev.gpu_start_ns);
  buf.append(std::string_view(", \"dur\": "));
  Dur(ev.gpu_end_ns - ev.gpu_start_ns);
  buf.append(std::string_view(", \"args\": {"));
  if (external_id > 0) fmt::format_to(out, "\"External id\": {}, ", external_id);
  if (memory) {
    const double seconds = NsToSeconds(ev.gpu_end_ns - ev.gpu_start_ns);
    fmt::format_to(out,
                   "\"device\": {}, \"context\": 1, \"stream\": {}, \"correlation\": {}, \"bytes\": {}, "
                   "\"memory bandwidth (GB/s)\": {:.6f}}}}}",
                   device_, stream, correlation, item.d[0], static_cast<double>(item.d[0]) / seconds * 1e-9);
  } else {
    const LaunchGeometry g = Geometry(item);
    const double blocks = static_cast<double>(g.grid[0] * g.grid[1] * g.grid[2]);
    const double blocks_per_sm = blocks / gpu_.num_sms;
    fmt::format_to(out,
                   "\"queued\": 0, \"device\": {}, \"context\": 1, \"stream\": {}, \"correlation\": {}, "
                   "\"registers per thread\": {}, \"shared memory\": {}, \"blocks per SM\": {:.6f}, "
                   "\"warps per SM\": {:.6f}, \"grid\": [{}, {}, {}], \"block\": [{}, {}, {}], "
                   "\"est. achieved occupancy %\": {}",
                   device_, stream, correlation, g.registers_per_thread, g.shared_memory, blocks_per_sm,
                   blocks_per_sm * static_cast<double>(g.block[0]) / 32.0, g.grid[0], g.grid[1], g.grid[2],
                   g.block[0], g.block[1], g.block[2], blocks_per_sm >= 1 ? 100 : 0);
    if (IsCommunication(item.kind)) CommArgs(item, ev.comm_seq);
    buf.append(std::string_view("}}"));
  }
  TruthActivity a;
  a.start_ns = ev.gpu_start_ns;
  a.end_ns = ev.gpu_end_ns;
  a.cls = cls;
  a.dtype = item.dtype;
  a.flop_model = item.flop_model;
  a.byte_model = item.byte_model;
  a.flops = item.flops;
  a.bytes = item.bytes;
  a.step = ev.step;
  a.name = NameIndex(name);
  a.layer = LayerIndex(*ev.program, item);
  activities_.push_back(a);
}

std::uint32_t KinetoRankWriter::NameIndex(std::string_view name) {
  auto it = name_index_.find(name);
  if (it != name_index_.end()) return it->second;
  // Names come from the static catalogue, so the view stays valid.
  const auto index = static_cast<std::uint32_t>(kernel_names_.size());
  kernel_names_.emplace_back(name);
  name_index_.emplace(name, index);
  return index;
}

// A module's forward call as the profiler writes it with with_modules/with_stack: a
// python_function range "nn.Module: X" around the _call_impl frame; other names
// (Optimizer.step#...) are record_function annotations.
void KinetoRankWriter::ModuleRange(std::string_view name, TimeNs start, TimeNs end) {
  if (!name.starts_with("nn.Module: ")) {
    CpuRange("user_annotation", name, start, end, nullptr, -1, nullptr);
    return;
  }
  auto& buf = file_.buffer();
  auto frame = [&](std::string_view frame_name, TimeNs s, TimeNs e, std::int64_t parent, std::int64_t id,
                   bool module) {
    Comma();
    fmt::format_to(std::back_inserter(buf),
                   "  {{\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"{}\", \"pid\": {}, "
                   "\"tid\": {}, \"ts\": ",
                   frame_name, pid_, tid_);
    Ts(s);
    buf.append(std::string_view(", \"dur\": "));
    Dur(e - s);
    fmt::format_to(std::back_inserter(buf), ", \"args\": {{\"Python parent id\": {}, \"Python id\": {}, ",
                   parent, id);
    if (module) buf.append(std::string_view("\"Python module id\": 0, "));
    fmt::format_to(std::back_inserter(buf), "\"Ev Idx\": {}}}}}", ev_idx_++);
  };
  const std::int64_t id = python_id_++;
  frame(name, start, end, 0, id, true);
  if (end - start > 2'000) {
    frame("torch/nn/modules/module.py(1747): _call_impl", start + 500, end - 500, id, python_id_++, false);
  }
}

void KinetoRankWriter::CloseModules(std::size_t keep) {
  tid_ = pid_;
  while (open_modules_.size() > keep) {
    const OpenModule& m = open_modules_.back();
    ModuleRange(m.name, m.start_ns, m.end_ns);
    open_modules_.pop_back();
  }
}

// Keeps open the ranges of the item's module chain, closes the others, opens the new ones.
void KinetoRankWriter::OpenModules(const SimEvent& ev) {
  const Program& program = *ev.program;
  if (&program != module_program_) {
    CloseModules(0);
    module_program_ = &program;
  }
  std::vector<std::int16_t> chain;
  for (std::int16_t m = ev.item->module; m >= 0; m = program.module_parent[static_cast<std::size_t>(m)]) {
    chain.push_back(m);
  }
  std::reverse(chain.begin(), chain.end());
  std::size_t common = 0;
  while (common < open_modules_.size() && common < chain.size() &&
         open_modules_[common].module == chain[common]) {
    ++common;
  }
  CloseModules(common);
  for (std::size_t k = common; k < chain.size(); ++k) {
    open_modules_.push_back(
        {chain[k], program.modules[static_cast<std::size_t>(chain[k])], ev.item_start_ns, 0});
  }
  for (auto& m : open_modules_) m.end_ns = ev.item_end_ns;
}

// The layer types an activity counts for, as the model nests it (docs/layers.md): the module
// chain of its item (of the forward op, for a backward item), then a communication
// annotation; "(backward)" or "(no module)" when there is none.
std::uint32_t KinetoRankWriter::LayerIndex(const Program& program, const Item& item) {
  std::vector<std::string> types;
  std::int16_t m = item.module >= 0 ? item.module : item.autograd_fn != nullptr ? item.forward_module : -1;
  std::string key;
  for (; m >= 0; m = program.module_parent[static_cast<std::size_t>(m)]) {
    std::string_view name = program.modules[static_cast<std::size_t>(m)];
    key += name;
    key += '/';
    if (name.starts_with("nn.Module: ")) {
      name.remove_prefix(11);
      std::size_t end = name.find_last_not_of("0123456789");
      if (end != std::string_view::npos && end + 1 < name.size() && name[end] == '_')
        name = name.substr(0, end);
    }
    if (std::find(types.begin(), types.end(), name) == types.end()) types.emplace_back(name);
  }
  if (std::string_view annotation = AnnotationName(item.kind); !annotation.empty()) {
    key += annotation;
    if (std::find(types.begin(), types.end(), annotation) == types.end()) types.emplace_back(annotation);
  }
  if (types.empty()) {
    key = item.autograd_fn != nullptr ? "(backward)" : "(no module)";
    types.push_back(key);
  }
  auto [it, added] = layer_index_.try_emplace(key, static_cast<std::uint32_t>(layer_types_.size()));
  if (added) layer_types_.push_back(std::move(types));
  return it->second;
}

void KinetoRankWriter::OnItem(const SimEvent& ev) {
  if (!status_) return;
  const Item& item = *ev.item;
  OpenModules(ev);
  // Backward ops run on the autograd engine's thread, as in real traces.
  tid_ = item.autograd_fn != nullptr ? pid_ + 1 : pid_;

  switch (item.kind) {
    case OpKind::kStepBegin:
      step_start_ns_ = ev.item_start_ns;
      break;
    case OpKind::kHostStall:
      CpuRange("user_annotation",
               config_.scenario == Scenario::kDecode
                   ? std::string_view("LLMEngine.step#Scheduler.schedule")
                   : std::string_view("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__"),
               ev.item_start_ns, ev.item_end_ns, nullptr, -1, nullptr);
      break;
    case OpKind::kSync:
      Runtime("cuda_runtime", "cudaDeviceSynchronize", 165, ev.launch_start_ns, ev.launch_end_ns,
              next_correlation_++, 0);
      break;
    case OpKind::kWaitComm:
      Runtime("cuda_runtime", "cudaStreamWaitEvent", 146, ev.item_start_ns, ev.item_end_ns - 500,
              next_correlation_++, 0);
      break;
    case OpKind::kTritonNoOp: {
      const std::int64_t correlation = next_correlation_++;
      Runtime("cuda_driver", "cuLaunchKernel", 307, ev.launch_start_ns, ev.launch_end_ns, correlation, 0);
      Flows(correlation, ev.launch_start_ns, ev.gpu_start_ns, StreamId(item.stream));
      GpuActivity(ev, KernelName(item, gpu_), correlation, 0);
      break;
    }
    default: {
      const std::int64_t correlation = next_correlation_++;
      if (item.autograd_fn != nullptr) {
        CpuRange("cpu_op", fmt::format("autograd::engine::evaluate_function: {}", item.autograd_fn),
                 ev.item_start_ns, ev.op_end_ns + kAutogradPadNs, nullptr, item.sequence_number, nullptr);
        CpuRange("cpu_op", item.autograd_fn, ev.item_start_ns + 1'000, ev.op_end_ns + 1'000, nullptr,
                 item.sequence_number, nullptr);
      }
      std::int64_t external_id = 0;
      const bool comm = IsCommunication(item.kind);
      if (item.kind == OpKind::kLinear) {
        const std::int64_t m = item.d[0], n = item.d[1], k = item.d[2];
        const std::int64_t seq = config_.seq_len;
        // aten::linear's own shapes: x[..., K], W[N, K], bias[N].
        const std::string x_dims = m % seq == 0 && m > seq ? fmt::format("[{}, {}, {}]", m / seq, seq, k)
                                                           : fmt::format("[{}, {}]", m, k);
        const std::string_view bf = DtypeTorchName(item.dtype);
        CpuRange(
            "cpu_op", "aten::linear", ev.op_start_ns, ev.op_end_ns, nullptr, item.sequence_number, nullptr,
            fmt::format("\"Input Dims\": [{}, [{}, {}], [{}]], \"Input type\": [\"{}\", \"{}\", \"{}\"], "
                        "\"Concrete Inputs\": [\"\", \"\", \"\"]",
                        x_dims, n, k, n, bf, bf, bf));
        CpuRange("cpu_op", "aten::t", ev.op_start_ns + 1'000, ev.op_start_ns + 3'000, nullptr, -1, nullptr);
        external_id = CpuRange("cpu_op", "aten::addmm", ev.launch_start_ns - 2'000, ev.op_end_ns - 1'000,
                               &item, item.sequence_number, nullptr);
      } else if (item.kind == OpKind::kSdpaFwd) {
        CpuRange("cpu_op", "aten::scaled_dot_product_attention", ev.op_start_ns, ev.op_end_ns, nullptr,
                 item.sequence_number, nullptr);
        external_id = CpuRange("cpu_op", LaunchingOpName(item.kind), ev.launch_start_ns - 2'000,
                               ev.op_end_ns - 1'000, &item, item.sequence_number, nullptr);
      } else if (comm) {
        external_id =
            CpuRange("cpu_op", "record_param_comms", ev.op_start_ns, ev.op_end_ns, nullptr, -1, &ev);
        CpuRange("user_annotation", AnnotationName(item.kind), ev.launch_start_ns - 2'000,
                 ev.launch_end_ns + 1'000, nullptr, -1, nullptr);
      } else {
        const bool shapes = item.kind != OpKind::kCustomUnmodeled;
        external_id = CpuRange("cpu_op", LaunchingOpName(item.kind), ev.op_start_ns, ev.op_end_ns,
                               shapes ? &item : nullptr, item.sequence_number, nullptr);
      }
      const bool memory = ClassOf(item.kind) == ActivityClass::kMemory;
      const std::string_view api = !memory                            ? "cudaLaunchKernel"
                                   : item.kind == OpKind::kMemsetZero ? "cudaMemsetAsync"
                                                                      : "cudaMemcpyAsync";
      const int cbid = !memory ? 211 : item.kind == OpKind::kMemsetZero ? 51 : 41;
      Runtime("cuda_runtime", api, cbid, ev.launch_start_ns, ev.launch_end_ns, correlation, external_id);
      Flows(correlation, ev.launch_start_ns, ev.gpu_start_ns, StreamId(item.stream));
      GpuActivity(ev, KernelName(item, gpu_), correlation, external_id);
      break;
    }
  }
  status_ = file_.MaybeFlush();
}

void KinetoRankWriter::OnProgramEnd(const Program& program, TimeNs cpu_ns) {
  if (!status_) return;
  CloseModules(0);
  CpuRange("user_annotation", fmt::format("ProfilerStep#{}", program.step), step_start_ns_, cpu_ns, nullptr,
           -1, nullptr);
  status_ = file_.MaybeFlush();
}

Status KinetoRankWriter::Finish() {
  if (!status_) return status_;
  auto out = std::back_inserter(file_.buffer());
  const TimeNs meta_ts = kTraceOriginNs;
  auto meta = [&](std::string_view name, int pid, int tid, std::string_view arg) {
    Comma();
    fmt::format_to(out, "  {{\"name\": \"{}\", \"ph\": \"M\", \"ts\": ", name);
    Ts(meta_ts);
    fmt::format_to(out, ", \"pid\": {}, \"tid\": {}, \"args\": {{{}}}}}", pid, tid, arg);
  };
  meta("process_name", pid_, 0, "\"name\": \"python3\"");
  meta("process_labels", pid_, 0, "\"labels\": \"CPU\"");
  tid_ = pid_;
  meta("thread_name", pid_, pid_, fmt::format("\"name\": \"thread {} (python3)\"", pid_));
  meta("thread_name", pid_, pid_ + 1, fmt::format("\"name\": \"thread {} (pt_autograd_0)\"", pid_ + 1));
  meta("process_name", device_, 0, "\"name\": \"python3\"");
  meta("process_labels", device_, 0, fmt::format("\"labels\": \"GPU {}\"", device_));
  for (int slot = 0; slot < kStreamSlots; ++slot) {
    meta("thread_name", device_, kStreamIds[slot], fmt::format("\"name\": \"stream {} \"", kStreamIds[slot]));
  }
  fmt::format_to(out, "\n  ],\n  \"traceName\": \"{}\"\n}}\n", info_.path);
  return file_.Close();
}

}  // namespace plasmient::synth
