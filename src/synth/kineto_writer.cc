#include "synth/kineto_writer.h"

#include <algorithm>
#include <iterator>

#include "synth/kernel_catalog.h"
#include "synth/program_builder.h"

namespace plasmient::synth {

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

void KinetoRankWriter::WriteRange(const HostRange& r) {
  auto& buf = file_.buffer();
  auto out = std::back_inserter(buf);
  Comma();
  fmt::format_to(
      out, "  {{\"ph\": \"X\", \"cat\": \"{}\", \"name\": \"{}\", \"pid\": {}, \"tid\": {}, \"ts\": ", r.cat,
      r.name, pid_, tid_);
  Ts(r.start_ns);
  buf.append(std::string_view(", \"dur\": "));
  Dur(r.end_ns - r.start_ns);
  fmt::format_to(out, ", \"args\": {{\"External id\": {}, \"Record function id\": 0", r.external_id);
  if (r.sequence_number >= 0) {
    fmt::format_to(out, ", \"Sequence number\": {}, \"Fwd thread id\": {}", r.sequence_number,
                   r.forward_thread);
  }
  if (r.shapes != nullptr) {
    buf.append(std::string_view(", "));
    const std::size_t before = buf.size();
    AppendShapeArgs(buf, *r.shapes, config_.seq_len);
    if (buf.size() == before) buf.resize(before - 2);
  }
  if (r.comm != nullptr) CommArgs(*r.comm->item, r.comm->comm_seq);
  if (!r.raw_args.empty()) {
    buf.append(std::string_view(", "));
    buf.append(r.raw_args);
  }
  fmt::format_to(out, ", \"Ev Idx\": {}}}}}", ev_idx_++);
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

void KinetoRankWriter::WriteRuntime(const RuntimeCall& c) {
  auto& buf = file_.buffer();
  Comma();
  fmt::format_to(std::back_inserter(buf),
                 "  {{\"ph\": \"X\", \"cat\": \"{}\", \"name\": \"{}\", \"pid\": {}, \"tid\": {}, \"ts\": ",
                 c.cat, c.name, pid_, tid_);
  Ts(c.start_ns);
  buf.append(std::string_view(", \"dur\": "));
  Dur(c.end_ns - c.start_ns);
  if (c.external_id > 0) {
    fmt::format_to(std::back_inserter(buf),
                   ", \"args\": {{\"External id\": {}, \"cbid\": {}, \"correlation\": {}}}}}", c.external_id,
                   c.cbid, c.correlation);
  } else {
    fmt::format_to(std::back_inserter(buf), ", \"args\": {{\"cbid\": {}, \"correlation\": {}}}}}", c.cbid,
                   c.correlation);
  }
}

void KinetoRankWriter::WriteFlows(std::int64_t correlation, TimeNs launch_ns, TimeNs gpu_ns, int stream) {
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

void KinetoRankWriter::WriteGpu(const SimEvent& ev, std::string_view name, std::int64_t correlation,
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
}

// A module's forward call as the profiler writes it with with_modules/with_stack: a
// python_function range "nn.Module: X" around the _call_impl frame; other names
// (Optimizer.step#...) are record_function annotations.
void KinetoRankWriter::WriteModuleRange(std::string_view name, TimeNs start, TimeNs end) {
  if (!name.starts_with("nn.Module: ")) {
    Range({.cat = "user_annotation", .name = name, .start_ns = start, .end_ns = end});
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
    meta("thread_name", device_, StreamId(slot), fmt::format("\"name\": \"stream {} \"", StreamId(slot)));
  }
  fmt::format_to(out, "\n  ],\n  \"traceName\": \"{}\"\n}}\n", info_.path);
  return file_.Close();
}

}  // namespace plasmient::synth
