#include "export/verdict_json_sink.h"

#include <algorithm>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "base/parallel.h"
#include "export/json_writer.h"

namespace plasmient::exporting {
namespace {

using verdict::Figures;
using verdict::kLossCount;
using verdict::Loss;

void WriteLosses(JsonWriter& w, const Figures& f) {
  w.Key("losses").BeginObject();
  for (std::size_t i = 0; i < kLossCount; ++i) {
    auto l = static_cast<Loss>(i);
    w.Field(verdict::LossKey(l), f.loss(l));
  }
  w.EndObject();
}

void WriteFigures(JsonWriter& w, const Figures& f) {
  w.Field("start_ns", f.start_ns).Field("end_ns", f.end_ns).Field("wall_s", f.wall_s);
  w.Field("utilization", f.utilization()).Field("achieved_fraction", f.achieved());
  WriteLosses(w, f);
}

void WriteDevice(JsonWriter& w, const verdict::DeviceChoice& d) {
  w.Key("device").BeginObject();
  w.Field("name", d.name).Field("key", d.key).Field("trace_name", d.trace_name);
  w.Field("peak_flops_per_s", d.peak_flops_per_s).Field("peak_dtype", d.peak_dtype);
  w.Field("ceiling", d.ceiling);
  if (!d.ceiling_source.empty()) w.Field("ceiling_source", d.ceiling_source);
  w.Field("memory_bandwidth_bytes_per_s", d.memory_bandwidth_bytes_per_s);
  w.Field("price_per_gpu_hour", d.price_per_gpu_hour).Field("source", d.source);
  w.Field("assumed", d.assumed);
  w.EndObject();
}

// Only where device-tier samples fell inside the calls: a trace without samples writes none.
void WriteDeviceActivity(JsonWriter& w, const verdict::DeviceActivity& d) {
  constexpr std::pair<verdict::DeviceMetric, std::string_view> kKeys[] = {
      {verdict::DeviceMetric::kSmActive, "sm_active"},
      {verdict::DeviceMetric::kTensorActive, "tensor_active"},
      {verdict::DeviceMetric::kDramActive, "dram_active"}};
  w.Key("device_activity").BeginObject();
  for (auto [metric, key] : kKeys) {
    if (double mean = d.Mean(metric); mean >= 0) {
      w.Field(key, mean);
    } else {
      w.Key(key).Null();
    }
  }
  w.EndObject();
}

void WriteAggregates(JsonWriter& w, std::string_view key, const std::vector<verdict::KernelAggregate>& v) {
  w.Key(key).BeginArray();
  for (const auto& k : v) {
    w.BeginObject();
    w.Field("name", k.name).Field("op", k.op).Field("calls", k.calls).Field("time_s", k.time_s);
    w.Field("lost_s", k.lost_s).Field("loss", verdict::LossKey(k.loss));
    w.Field("flops", k.flops).Field("bytes", k.bytes);
    if (k.modeled()) {
      w.Field("arithmetic_intensity", k.arithmetic_intensity());
      w.Field("achieved_fraction", k.achieved_fraction());
      w.Field("roofline_fraction", k.roofline_fraction());
      w.Field("ceiling_flops_per_s", k.ceiling_flops_per_s());
    } else {  // no model: no point on the roofline
      for (std::string_view key :
           {"arithmetic_intensity", "achieved_fraction", "roofline_fraction", "ceiling_flops_per_s"}) {
        w.Key(key).Null();
      }
    }
    w.Field("bound", verdict::BoundName(k.bound));
    if (k.device.any()) WriteDeviceActivity(w, k.device);
    w.EndObject();
  }
  w.EndArray();
}

void WriteLayerFigures(JsonWriter& w, const verdict::Layers& layers, const verdict::LayerFigures& f) {
  w.Field("gpu_time_s", f.gpu_time_s).Field("share_of_window", layers.share_of_window(f));
  w.Field("achieved_fraction", f.achieved_fraction());
  w.Key("losses").BeginObject();
  for (std::size_t i = 0; i < kLossCount; ++i) {
    auto loss = static_cast<Loss>(i);
    w.Field(verdict::LossKey(loss), f.loss_fraction(loss));
  }
  w.EndObject();
  w.Field("flops", f.flops).Field("calls", f.calls).Field("kernels", f.kernels);
  w.Key("top_kernels").BeginArray();
  for (const auto& [name, seconds] : f.top_kernels) {
    w.BeginObject().Field("name", name).Field("gpu_time_s", seconds).EndObject();
  }
  w.EndArray();
}

void WriteLayers(JsonWriter& w, const verdict::Layers& layers) {
  w.Key("layers").BeginArray();
  for (const auto& f : layers.nodes) {
    w.BeginObject().Field("path", f.path).Field("name", f.name).Field("type", f.type);
    w.Field("depth", f.depth).Field("parent", f.parent);
    WriteLayerFigures(w, layers, f);
    w.EndObject();
  }
  w.EndArray();
  w.Key("layer_types").BeginArray();
  for (const auto& f : layers.types) {
    w.BeginObject().Field("type", f.type).Field("instances", f.instances);
    WriteLayerFigures(w, layers, f);
    w.EndObject();
  }
  w.EndArray();
}

// The non-zero counters: for the job with their severity and meaning; for a rank (one input file)
// with the byte offset of the first occurrence where the reader knows it.
void WriteQuality(JsonWriter& w, const model::DataQuality& q, bool job) {
  w.Key("data_quality").BeginArray();
  for (auto [id, count] : q.NonZero()) {
    const auto& info = model::Describe(id);
    w.BeginObject().Field("name", info.name);
    if (job) w.Field("severity", model::SeverityName(info.severity));
    w.Field("count", count);
    if (double s = q.GpuSeconds(id); s > 0) w.Field("gpu_time_s", s);
    if (job) w.Field("meaning", info.meaning);
    if (!job && q.FirstOffset(id) >= 0) w.Field("first_byte_offset", q.FirstOffset(id));
    w.EndObject();
  }
  w.EndArray();
}

// CUDA/HIP graphs (docs/graphs.md), written only for a trace that replayed or captured one: an
// eager trace's JSON has neither field.
void WriteGraphs(JsonWriter& w, const verdict::Evidence& e) {
  const join::TraceKind kind = e.trace_kind();
  if (kind == join::TraceKind::kEager) return;
  w.Field("trace_kind", join::TraceKindName(kind));
  w.Key("graphs").BeginObject();
  w.Field("replays", e.graph_replays).Field("captures", e.graph_captures);
  w.Field("instantiations", e.graph_instantiations);
  w.Field("graph_replayed_kernels", e.graph_replayed_kernels).Field("graph_replayed_s", e.graph_replayed_s);
  w.Field("matched_kernels", e.graph_matched_kernels);
  w.Field("matched_by", e.graph_matched_kernels > 0 ? "launch sequence" : "none");
  w.Field("unmodeled_kernels", e.graph_unmodeled_kernels).Field("unmodeled_s", e.graph_unmodeled_s);
  w.EndObject();
}

// The counter model's estimate over the rank's window, labelled as one (docs/counters.md): beside
// the exact achieved_fraction, uncalibrated here; serve calibrates it by the windows.
void WriteCounterEstimate(JsonWriter& w, const roofline::CounterEstimate& e) {
  w.Key("counter_estimate").BeginObject();
  w.Field("label", "estimate from device counters (uncalibrated), not a measurement");
  w.Field("achieved_fraction", e.achieved);
  w.Field("peak", roofline::PeakKindName(e.peak));
  w.Key("clock_factor");
  e.clock_known ? w.Number(e.clock_factor) : w.Null();
  w.Field("tile_efficiency", e.tile_efficiency);
  w.Field("bounded_by_sm_active", e.bounded_by_sm);
  w.Field("memory_bound_hint", e.memory_bound_hint);
  w.Key("notes").BeginArray();
  for (const auto& n : e.notes) w.String(n);
  w.EndArray();
  w.EndObject();
}

void WriteRank(JsonWriter& w, const verdict::RankVerdict& r) {
  w.BeginObject();
  w.Field("rank", r.rank).Field("path", r.path);
  if (!r.no_gpu_reason.empty()) w.Field("no_gpu_activity", r.no_gpu_reason);
  w.Field("kernel_span_s", r.run.wall_s).Field("gpu_busy_s", r.gpu_busy_s);
  w.Field("compute_s", r.compute_s).Field("communication_s", r.communication_s);
  w.Field("communication_overlapped_s", r.communication_overlapped_s);
  w.Field("idle_s", r.run.loss_s[static_cast<std::size_t>(Loss::kHostBoundIdle)]);
  w.Field("utilization", r.run.utilization()).Field("achieved_fraction", r.run.achieved());
  WriteLosses(w, r.run);
  if (r.counter_estimate) WriteCounterEstimate(w, *r.counter_estimate);
  w.Field("start_ns", r.run.start_ns).Field("end_ns", r.run.end_ns);
  w.Field("kernels", r.kernels).Field("hardware_flops", r.hardware_flops);
  w.Field("compute_kernel_s", r.compute_kernel_s).Field("modeled_compute_s", r.modeled_compute_s);
  w.Field("peak_flops_per_s", r.device.peak_flops_per_s).Field("peak_dtype", r.device.peak_dtype);
  w.Field("clock_offset_s", r.clock_offset_s).Field("clock_aligned", r.clock_aligned);
  w.Field("wait_on_peers_s", r.wait_on_peers_s).Field("transfer_s", r.transfer_s);
  w.Field("caused_wait_s", r.caused_wait_s).Field("p2p_wait_s", r.p2p_wait_s);
  WriteGraphs(w, r.evidence);
  w.Field("exposed_wait_s", r.exposed_wait_s).Field("exposed_transfer_s", r.exposed_transfer_s);
  WriteQuality(w, r.quality, false);
  WriteLayers(w, r.layers);
  w.EndObject();
}

// The per-rank objects, the bulk of a job's JSON (75 of a 1,024-rank job's 81 MB), formatted on
// every core: a batch of ranks at a time, each into its own buffer through a writer that starts
// where `w` stands, then written out in rank order. The bytes are the ones `w` alone writes.
void WriteRanks(JsonWriter& w, std::span<const verdict::RankVerdict> ranks,
                const std::function<void(std::string_view)>& write, std::size_t threads) {
  constexpr std::size_t kBatch = 32;  // ranks formatted, then written; a few MB at most
  std::vector<std::string> pieces(std::min(kBatch, ranks.size()));
  std::vector<JsonWriter> writers;
  for (std::size_t first = 0; first < ranks.size(); first += kBatch) {
    const std::size_t n = std::min(kBatch, ranks.size() - first);
    writers.clear();
    for (std::size_t k = 0; k < n; ++k) {
      pieces[k].clear();
      writers.push_back(w.Element(pieces[k]));
    }
    RunOverParts(threads, n, PartsFor(n, threads, 1), [&](std::size_t, std::size_t begin, std::size_t end) {
      for (std::size_t k = begin; k < end; ++k) WriteRank(writers[k], ranks[first + k]);
    });
    for (std::size_t k = 0; k < n; ++k) write(pieces[k]);
  }
}

void WriteInts(JsonWriter& w, std::string_view key, const std::vector<std::int64_t>& v) {
  w.Key(key).BeginArray();
  for (auto x : v) w.Int(x);
  w.EndArray();
}

void WriteCluster(JsonWriter& w, const verdict::JobVerdict& job) {
  w.Key("stragglers").BeginArray();
  for (const auto& s : job.stragglers) {
    w.BeginObject().Field("rank", s.rank).Field("caused_wait_s", s.caused_wait_s);
    w.Field("capacity_fraction", s.capacity_fraction).Field("collective", join::CollectiveKindName(s.kind));
    WriteInts(w, "late_steps", s.late_steps);
    w.Field("steps", s.steps).Field("late_collectives", s.late_collectives);
    w.Field("collectives", s.collectives).Field("mean_late_s", s.mean_late_s);
    w.Field("late_start_s", s.late_start_s).Field("slow_work_s", s.slow_work_s).Field("cause", s.cause);
    w.Field("confidence", s.confidence).Field("cause_steps", s.cause_steps);
    w.Key("slow_ops").BeginArray();
    for (const auto& o : s.slow_ops) {
      w.BeginObject().Field("op", o.op).Field("shapes", o.shapes).Field("kernel", o.kernel);
      w.Field("steps", o.steps).Field("rank_s", o.rank_s).Field("median_s", o.median_s);
      w.Field("excess_s", o.excess_s).Field("share_of_lateness", o.share_of_lateness).EndObject();
    }
    w.EndArray().EndObject();
  }
  w.EndArray();
  w.Key("collectives").BeginArray();
  for (const auto& c : job.collectives) {
    w.BeginObject().Field("group", c.group).Field("kind", join::CollectiveKindName(c.kind));
    w.Field("seq", c.seq).Field("ordinal", c.ordinal).Field("step", c.step).Field("ranks", c.ranks);
    w.Field("bytes", c.bytes).Field("last_rank", c.last_rank).Field("first_arrival_ns", c.first_arrival_ns);
    w.Field("arrival_spread_s", c.arrival_spread_s).Field("transfer_s", c.transfer_s);
    w.Field("algorithm_bytes_per_s", c.algorithm_bytes_per_s).Field("bus_bytes_per_s", c.bus_bytes_per_s);
    w.Field("link_fraction", c.link_fraction).Field("excess_s", c.excess_s).EndObject();
  }
  w.EndArray();
  w.Key("pipeline").BeginArray();
  for (const auto& p : job.pipeline) {
    w.BeginObject().Field("rank", p.shape.rank).Field("pipeline", p.shape.pipeline);
    w.Field("stage", p.shape.stage).Field("stages", p.shape.stages);
    w.Field("microbatches", p.shape.microbatches);
    if (p.shape.ideal_bubble >= 0) {
      w.Field("ideal_bubble", p.shape.ideal_bubble);
    } else {
      w.Key("ideal_bubble").Null();
    }
    w.Field("measured_bubble", p.measured_bubble).EndObject();
  }
  w.EndArray();
  w.Key("job_problems").BeginArray();
  for (const auto& p : job.job_problems) w.String(p);
  w.EndArray();
}

// Whether the verdict judges usefulness (docs/verdict.md, "Judgeable"); the reasons only when not.
void WriteJudgement(JsonWriter& w, const verdict::Judgement& j) {
  w.Field("judgeable", j.judgeable);
  w.Key("judgement").BeginObject();
  if (j.coverage) {
    w.Field("coverage", *j.coverage);
  } else {
    w.Key("coverage").Null();
  }
  w.Field("min_coverage", j.min_coverage);
  w.Field("gpu_busy_s", j.gpu_busy_s);
  w.Field("min_gpu_busy_s", j.min_gpu_busy_s);
  w.Field("achieved_fraction_is", j.achieved_is);
  w.Field("achieved_fraction_at_most", j.achieved_at_most);
  for (auto [key, text] : {std::pair<std::string_view, const std::string&>{"cause", j.cause},
                           {"evidence", j.evidence},
                           {"reason", j.reason},
                           {"fix", j.fix}}) {
    if (j.judgeable) {
      w.Key(key).Null();
    } else {
      w.Field(key, text);
    }
  }
  w.EndObject();
}

// Whether the window is the run's warm-up (docs/verdict.md, "Warm-up"); its evidence only when it is.
void WriteWarmUp(JsonWriter& w, const verdict::WarmUp& u) {
  w.Key("warm_up").BeginObject();
  w.Field("detected", u.detected);
  w.Key("basis").BeginArray();
  if (u.by_steps) w.String("step_times");
  if (u.by_iterations) w.String("iteration_times");
  if (u.by_causes) w.String("warm_up_causes");
  w.EndArray();
  w.Field("skip_steps", u.skip_steps);
  w.Field("slow_steps_excess_s", u.slow_steps_excess_s);
  // The iterations read when the trace marks no steps (null when none were found).
  if (u.iterations_source.empty()) {
    w.Key("iterations").Null();
  } else {
    w.Key("iterations").BeginObject();
    w.Field("source", u.iterations_source).Field("marker", u.iterations_marker);
    w.Field("count", u.iterations).Field("slow", u.slow_iterations);
    w.Field("first_s", u.first_iteration_s).Field("reference_s", u.iteration_reference_s);
    w.Field("excess_s", u.slow_iterations_excess_s);
    w.EndObject();
  }
  w.Field("warm_up_causes_s", u.warm_up_causes_s);
  w.Field("once_early_s", u.once_early_s);
  w.Key("once_early").BeginArray();
  for (const verdict::OnceEarlyCost& c : u.once_early) {
    w.BeginObject();
    w.Field("name", c.name).Field("cause", verdict::HostCauseName(c.cause)).Field("idle_s", c.idle_s);
    w.EndObject();
  }
  w.EndArray();
  w.Field("share", u.share);
  for (auto [key, text] : {std::pair<std::string_view, const std::string&>{"confidence", u.confidence},
                           {"evidence", u.evidence},
                           {"fix", u.fix}}) {
    if (u.detected) {
      w.Field(key, text);
    } else {
      w.Key(key).Null();
    }
  }
  w.EndObject();
}

}  // namespace

void WriteVerdictJson(const verdict::JobVerdict& job, const std::function<void(std::string_view)>& write,
                      std::size_t threads) {
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  std::string out;
  // Between inputs and between ranks, what is written so far goes out once it passes this size:
  // the writer keeps nothing that points into `out`, so emptying it is safe at any point.
  constexpr std::size_t kPieceBytes = 1u << 20;
  auto hand_over = [&](std::size_t at_least) {
    if (out.size() < at_least) return;
    write(out);
    out.clear();
  };
  JsonWriter w(out);
  w.BeginObject();
  w.Field("schema", kVerdictSchema);
  w.Key("inputs").BeginArray();
  for (const auto& r : job.ranks) {
    w.BeginObject().Field("path", r.path).Field("format", r.format).Field("rank", r.rank);
    w.Field("events", r.events).Field("bytes", r.input_bytes).EndObject();
    hand_over(kPieceBytes);
  }
  w.EndArray();
  WriteDevice(w, job.device);
  w.Key("window").BeginObject();
  w.Field("start_ns", job.job.start_ns).Field("end_ns", job.job.end_ns);
  w.Field("wall_s", job.job.span_s());
  w.Field("gpu_seconds", job.job.wall_s);
  w.EndObject();
  w.Field("utilization", job.job.utilization());
  w.Field("achieved_fraction", job.job.achieved());
  WriteLosses(w, job.job);
  w.Field("exposed_communication_label", job.loss_label(Loss::kExposedCommunication));
  w.Key("exposed_communication_s").BeginObject();
  for (std::size_t i = 0; i < verdict::kCommFamilyCount; ++i) {
    w.Field(verdict::CommFamilyName(static_cast<verdict::CommFamily>(i)), job.evidence.exposed_comm_s[i]);
  }
  w.EndObject();
  if (auto headroom = job.headroom()) {
    w.Field("headroom", *headroom);
  } else {
    w.Key("headroom").Null();
  }
  w.Field("hfu", job.hfu());
  if (auto mfu = job.mfu()) {
    w.Field("mfu", *mfu);
  } else {
    w.Key("mfu").Null();
  }
  w.Field("mfu_source", job.model_flops_source);
  w.Field("hardware_flops", job.hardware_flops).Field("model_flops", job.model_flops);
  if (auto coverage = job.model_coverage()) {
    w.Field("model_coverage", *coverage);
  } else {
    w.Key("model_coverage").Null();
  }
  w.Field("compute_kernel_s", job.compute_kernel_s).Field("modeled_compute_s", job.modeled_compute_s);
  WriteJudgement(w, job.judgement);
  WriteWarmUp(w, job.warm_up);
  WriteGraphs(w, job.evidence);

  w.Key("per_rank").BeginArray();
  hand_over(0);  // what is written so far goes first
  WriteRanks(w, job.ranks, write, threads);
  w.EndArray();

  w.Key("per_step").BeginArray();
  for (const auto& r : job.ranks) {
    for (const auto& s : r.steps) {
      w.BeginObject().Field("rank", r.rank).Field("step", s.number);
      WriteFigures(w, s.figures);
      w.EndObject();
    }
    hand_over(kPieceBytes);
  }
  w.EndArray();

  WriteCluster(w, job);
  WriteAggregates(w, "top_kernels", job.top_kernels);
  WriteAggregates(w, "top_ops", job.top_ops);
  WriteLayers(w, job.layers);

  w.Key("fixes").BeginArray();
  for (const auto& f : job.fixes) {
    w.BeginObject().Field("loss", verdict::LossKey(f.loss)).Field("fraction", f.fraction);
    w.Field("action", f.action).Field("evidence", f.evidence).Field("recoverable", f.recoverable);
    w.Key("culprits").BeginArray();
    for (const auto& c : f.culprits) w.String(c);
    w.EndArray();
    if (f.layer) {
      const auto& l = *f.layer;
      w.Key("layer").BeginObject().Field("type", l.type).Field("instances", l.instances);
      w.Field("share_of_gpu_time", l.share_of_gpu_time).Field("achieved_fraction", l.achieved_fraction);
      w.Field("loss_fraction", l.loss_fraction).Field("share_of_loss", l.share_of_loss);
      w.Field("top_kernel", l.top_kernel).EndObject();
    } else {
      w.Key("layer").Null();
    }
    w.Key("causes").BeginArray();
    for (const auto& c : f.causes) {
      w.BeginObject().Field("cause", c.kind).Field("seconds", c.seconds).Field("share", c.share);
      w.Field("evidence", c.evidence).Field("confidence", c.confidence).EndObject();
    }
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();

  const auto& b = job.bill;
  w.Key("bill").BeginObject();
  w.Field("price_per_gpu_hour", b.price_per_gpu_hour).Field("gpu_hours", b.gpu_hours);
  w.Field("spend", b.spend).Field("computed", b.computed);
  if (job.judgement.judgeable) {
    w.Field("paid_never_computed", b.paid_never_computed);
    w.Field("target_fraction", b.target_fraction).Field("addressable", b.addressable);
  } else {  // the waste of a job whose usefulness is unknown is unknown; computed is a lower bound
    w.Key("paid_never_computed").Null();
    w.Field("target_fraction", b.target_fraction).Key("addressable").Null();
  }
  w.EndObject();

  WriteQuality(w, job.quality, true);
  w.EndObject();
  out.push_back('\n');
  hand_over(0);
}

std::string VerdictToJson(const verdict::JobVerdict& job) {
  std::string json;
  WriteVerdictJson(job, [&json](std::string_view piece) { json += piece; });
  return json;
}

}  // namespace plasmient::exporting
