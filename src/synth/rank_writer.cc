#include "synth/rank_writer.h"

#include <algorithm>

#include <fmt/format.h>

#include "synth/kernel_catalog.h"
#include "synth/program_builder.h"

namespace plasmient::synth {
namespace {

constexpr int kStreamIds[kStreamSlots] = {7, 24, 28, 32, 36, 40};

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

RankWriter::RankWriter(const SynthConfig& config, const GpuSpec& gpu, RankFileInfo info)
    : config_(config), gpu_(gpu), info_(std::move(info)) {
  if (IsGraphed(config_.scenario)) graph_mode_ = info_.capture ? GraphMode::kCapture : GraphMode::kReplay;
  pid_ = kRankPidBase + info_.rank;
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

ActivityClass RankWriter::ClassOf(OpKind kind) {
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

int RankWriter::StreamId(int slot) const { return kStreamIds[slot]; }

std::int64_t RankWriter::Range(HostRange range) {
  range.external_id = next_external_id_++;
  if (range.sequence_number >= 0) {
    // Backward ops name the thread of the forward op that made their node (autograd's id, 1 here).
    range.forward_thread = tid_ != pid_ && range.name.find("Backward") != std::string_view::npos ? 1 : 0;
  }
  WriteRange(range);
  return range.external_id;
}

void RankWriter::GpuActivity(const SimEvent& ev, std::string_view name, std::int64_t correlation,
                             std::int64_t external_id) {
  WriteGpu(ev, name, correlation, external_id);
  const Item& item = *ev.item;
  TruthActivity a;
  a.start_ns = ev.gpu_start_ns;
  a.end_ns = ev.gpu_end_ns;
  a.cls = ClassOf(item.kind);
  a.dtype = item.dtype;
  a.flop_model = item.flop_model;
  a.byte_model = item.byte_model;
  a.flops = item.flops;
  a.bytes = item.bytes;
  a.step = ev.step;
  a.name = NameIndex(name);
  a.layer = LayerIndex(*ev.program, item);
  a.graph_replayed = graph_mode_ == GraphMode::kReplay && IsGraphNode(item);
  activities_.push_back(a);
}

bool RankWriter::IsGraphNode(const Item& item) {
  return HasGpuActivity(item.kind) && ClassOf(item.kind) == ActivityClass::kCompute;
}

// The first node of a run launches the graph; every node's kernel carries that launch's
// correlation id, as CUPTI records a replay.
void RankWriter::ReplayNode(const SimEvent& ev) {
  if (!graph_open_) {
    graph_open_ = true;
    graph_correlation_ = next_correlation_++;
    WriteRuntime({"cuda_runtime", "cudaGraphLaunch", 311, ev.launch_start_ns, ev.launch_end_ns,
                  graph_correlation_, 0});
  }
  GpuActivity(ev, KernelName(*ev.item, gpu_), graph_correlation_, 0);
}

// Opens a capture before the first node of a run, or closes it (end, instantiate) after the last.
void RankWriter::Capturing(const SimEvent& ev, bool open) {
  if (open == graph_open_) return;
  graph_open_ = open;
  const TimeNs at = ev.item_start_ns;
  if (open) {
    WriteRuntime({"cuda_runtime", "cudaStreamBeginCapture_v10000", 317, at - 3'000, at - 1'000,
                  next_correlation_++, 0});
    return;
  }
  WriteRuntime({"cuda_runtime", "cudaStreamEndCapture", 318, at, at + 2'000, next_correlation_++, 0});
  WriteRuntime({"cuda_runtime", "cudaGraphInstantiateWithFlags", 371, at + 3'000, at + 40'000,
                next_correlation_++, 0});
}

std::uint32_t RankWriter::NameIndex(std::string_view name) {
  auto it = name_index_.find(name);
  if (it != name_index_.end()) return it->second;
  // Names come from the static catalogue, so the view stays valid.
  const auto index = static_cast<std::uint32_t>(kernel_names_.size());
  kernel_names_.emplace_back(name);
  name_index_.emplace(name, index);
  return index;
}

void RankWriter::CloseModules(std::size_t keep) {
  tid_ = pid_;
  while (open_modules_.size() > keep) {
    const OpenModule& m = open_modules_.back();
    WriteModuleRange(m.name, m.start_ns, m.end_ns);
    open_modules_.pop_back();
  }
}

// Keeps open the ranges of the item's module chain, closes the others, opens the new ones.
void RankWriter::OpenModules(const SimEvent& ev) {
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
std::uint32_t RankWriter::LayerIndex(const Program& program, const Item& item) {
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

void RankWriter::OnItem(const SimEvent& ev) {
  if (!status_) return;
  const Item& item = *ev.item;
  if (graph_mode_ == GraphMode::kCapture) {
    // The capture holds the graph's nodes only: what runs outside the graph is not in it.
    Capturing(ev, IsGraphNode(item));
    if (!graph_open_) {
      status_ = MaybeFlush();
      return;
    }
  }
  if (graph_mode_ == GraphMode::kReplay) {
    if (IsGraphNode(item)) {
      ReplayNode(ev);
      status_ = MaybeFlush();
      return;
    }
    graph_open_ = false;
  }
  if (item.kind == OpKind::kStepBegin) StepBegins(ev.step, ev.item_start_ns);
  OpenModules(ev);
  // Backward ops run on the autograd engine's thread, as in real traces.
  tid_ = item.autograd_fn != nullptr ? pid_ + 1 : pid_;

  switch (item.kind) {
    case OpKind::kStepBegin:
      step_start_ns_ = ev.item_start_ns;
      break;
    case OpKind::kHostStall: {
      const bool decode = IsDecode(config_.scenario);
      const std::string_view name =
          item.host_call != nullptr ? std::string_view(item.host_call)
          : decode                  ? std::string_view("LLMEngine.step#Scheduler.schedule")
                   : std::string_view("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__");
      if (item.host_call_api) {
        WriteRuntime({"cuda_runtime", name, 0, ev.item_start_ns, ev.item_end_ns, next_correlation_++, 0});
      } else if (item.host_call_overhead) {
        Range({.cat = "overhead", .name = name, .start_ns = ev.item_start_ns, .end_ns = ev.item_end_ns});
      } else if (!name.empty()) {
        Range(
            {.cat = "user_annotation", .name = name, .start_ns = ev.item_start_ns, .end_ns = ev.item_end_ns});
      }
      stalls_.push_back({ev.item_start_ns, ev.item_end_ns,
                         item.cause != nullptr ? item.cause
                         : decode              ? "host_work"
                                               : "data_loading"});
      break;
    }
    case OpKind::kSync:
      WriteRuntime({"cuda_runtime", "cudaDeviceSynchronize", 165, ev.launch_start_ns, ev.launch_end_ns,
                    next_correlation_++, 0});
      break;
    case OpKind::kWaitComm:
      WriteRuntime({"cuda_runtime", "cudaStreamWaitEvent", 146, ev.item_start_ns, ev.item_end_ns - 500,
                    next_correlation_++, 0});
      break;
    case OpKind::kTritonNoOp: {
      const std::int64_t correlation = next_correlation_++;
      WriteRuntime(
          {"cuda_driver", "cuLaunchKernel", 307, ev.launch_start_ns, ev.launch_end_ns, correlation, 0});
      if (graph_mode_ == GraphMode::kCapture) break;
      WriteFlows(correlation, ev.launch_start_ns, ev.gpu_start_ns, StreamId(item.stream));
      GpuActivity(ev, KernelName(item, gpu_), correlation, 0);
      break;
    }
    default: {
      const std::int64_t correlation = next_correlation_++;
      if (item.autograd_fn != nullptr) {
        const std::string evaluate = fmt::format("autograd::engine::evaluate_function: {}", item.autograd_fn);
        Range({.cat = "cpu_op",
               .name = evaluate,
               .start_ns = ev.item_start_ns,
               .end_ns = ev.op_end_ns + kAutogradPadNs,
               .sequence_number = item.sequence_number});
        Range({.cat = "cpu_op",
               .name = item.autograd_fn,
               .start_ns = ev.item_start_ns + 1'000,
               .end_ns = ev.op_end_ns + 1'000,
               .sequence_number = item.sequence_number});
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
        const std::string args = fmt::format(
            "\"Input Dims\": [{}, [{}, {}], [{}]], \"Input type\": [\"{}\", \"{}\", \"{}\"], "
            "\"Concrete Inputs\": [\"\", \"\", \"\"]",
            x_dims, n, k, n, bf, bf, bf);
        Range({.cat = "cpu_op",
               .name = "aten::linear",
               .start_ns = ev.op_start_ns,
               .end_ns = ev.op_end_ns,
               .raw_args = args,
               .sequence_number = item.sequence_number});
        Range({.cat = "cpu_op",
               .name = "aten::t",
               .start_ns = ev.op_start_ns + 1'000,
               .end_ns = ev.op_start_ns + 3'000});
        external_id = Range({.cat = "cpu_op",
                             .name = "aten::addmm",
                             .start_ns = ev.launch_start_ns - 2'000,
                             .end_ns = ev.op_end_ns - 1'000,
                             .shapes = &item,
                             .sequence_number = item.sequence_number});
      } else if (item.kind == OpKind::kSdpaFwd) {
        Range({.cat = "cpu_op",
               .name = "aten::scaled_dot_product_attention",
               .start_ns = ev.op_start_ns,
               .end_ns = ev.op_end_ns,
               .sequence_number = item.sequence_number});
        external_id = Range({.cat = "cpu_op",
                             .name = LaunchingOpName(item.kind),
                             .start_ns = ev.launch_start_ns - 2'000,
                             .end_ns = ev.op_end_ns - 1'000,
                             .shapes = &item,
                             .sequence_number = item.sequence_number});
      } else if (comm) {
        external_id = Range({.cat = "cpu_op",
                             .name = "record_param_comms",
                             .start_ns = ev.op_start_ns,
                             .end_ns = ev.op_end_ns,
                             .comm = &ev});
        Range({.cat = "user_annotation",
               .name = AnnotationName(item.kind),
               .start_ns = ev.launch_start_ns - 2'000,
               .end_ns = ev.launch_end_ns + 1'000});
      } else {
        const bool shapes = item.kind != OpKind::kCustomUnmodeled;
        external_id = Range({.cat = "cpu_op",
                             .name = LaunchingOpName(item.kind),
                             .start_ns = ev.op_start_ns,
                             .end_ns = ev.op_end_ns,
                             .shapes = shapes ? &item : nullptr,
                             .sequence_number = item.sequence_number});
      }
      const bool memory = ClassOf(item.kind) == ActivityClass::kMemory;
      const std::string_view api = !memory                            ? "cudaLaunchKernel"
                                   : item.kind == OpKind::kMemsetZero ? "cudaMemsetAsync"
                                                                      : "cudaMemcpyAsync";
      const int cbid = !memory ? 211 : item.kind == OpKind::kMemsetZero ? 51 : 41;
      WriteRuntime(
          {"cuda_runtime", api, cbid, ev.launch_start_ns, ev.launch_end_ns, correlation, external_id});
      if (graph_mode_ == GraphMode::kCapture) break;  // recorded into the graph, run at replay
      WriteFlows(correlation, ev.launch_start_ns, ev.gpu_start_ns, StreamId(item.stream));
      GpuActivity(ev, KernelName(item, gpu_), correlation, external_id);
      break;
    }
  }
  status_ = MaybeFlush();
}

void RankWriter::OnProgramEnd(const Program& program, TimeNs cpu_ns) {
  if (!status_) return;
  CloseModules(0);
  if (graph_mode_ == GraphMode::kCapture) {
    // A capture is no step: its launches ran nothing.
    if (graph_open_) {
      WriteRuntime(
          {"cuda_runtime", "cudaStreamEndCapture", 318, cpu_ns, cpu_ns + 2'000, next_correlation_++, 0});
      graph_open_ = false;
    }
    status_ = MaybeFlush();
    return;
  }
  graph_open_ = false;
  if (config_.step_marks) {
    const std::string step = fmt::format("ProfilerStep#{}", program.step);
    Range({.cat = "user_annotation", .name = step, .start_ns = step_start_ns_, .end_ns = cpu_ns});
  }
  StepEnded(cpu_ns);
  status_ = MaybeFlush();
}

}  // namespace plasmient::synth
