#include "synth/truth_writer.h"

#include <algorithm>
#include <iterator>
#include <limits>

#include <fmt/ranges.h>

#include "synth/rank_writer.h"

namespace plasmient::synth {
namespace {

std::string_view ClassName(ActivityClass c) {
  switch (c) {
    case ActivityClass::kCompute:
      return "compute";
    case ActivityClass::kCollective:
      return "collective";
    case ActivityClass::kP2p:
      return "p2p";
    case ActivityClass::kMemory:
      return "memory";
  }
  return "compute";
}

std::string_view CategoryName(LossCategory c) {
  switch (c) {
    case LossCategory::kNone:
      return "none";
    case LossCategory::kComputeInefficiency:
      return "compute_inefficiency";
    case LossCategory::kMemoryBound:
      return "memory_bound";
    case LossCategory::kUnmodeled:
      return "unmodeled_kernels";
  }
  return "none";
}

// Microsecond timestamp on the trace's clock, exactly as the trace writes it.
std::string Us(TimeNs true_ns, TimeNs offset_ns) {
  const TimeNs ns = true_ns + offset_ns;
  return fmt::format("{}.{:03}", ns / 1000, ns % 1000);
}

}  // namespace

Status TruthWriter::Open(const std::string& path, const SynthConfig& config, const GpuSpec& gpu) {
  config_ = config;
  gpu_ = &gpu;
  PLASMIENT_TRY(file_.Open(path, false, 1));
  auto out = std::back_inserter(file_.buffer());
  const SynthConfig& c = config_;
  std::string stalls;
  for (const HostStallSpec& s : c.host_stalls) {
    stalls += fmt::format("{}{{\"cause\": \"{}\", \"ms\": {}}}", stalls.empty() ? "" : ", ", s.cause, s.ms);
  }
  fmt::format_to(
      out,
      "{{\n  \"schema\": \"plasmient.truth/1\",\n  \"scenario\": \"{}\",\n  \"config\": {{\"gpu\": \"{}\", "
      "\"ranks\": {}, \"steps\": {}, \"seed\": {}, \"gzip\": {}, \"first_step_number\": {}, \"layers\": {}, "
      "\"hidden\": {}, \"heads\": {}, \"seq_len\": {}, \"micro_batch\": {}, \"buckets\": {}, "
      "\"straggler_factor\": {}, \"straggler_rank\": {}, \"microbatches\": {}, \"batch\": {}, "
      "\"context\": {}, \"vocab\": {}, \"experts\": {}, \"expert_token_fraction\": {}, "
      "\"clock_offset_ms\": {}, \"warm_up_steps\": {}, \"host_stalls\": [{}], "
      "\"step_marks\": {}}},\n",
      ScenarioName(c.scenario), c.gpu, c.ranks, c.steps, c.seed, c.gzip, c.first_step_number, c.layers,
      c.hidden, c.heads, c.seq_len, c.micro_batch, c.buckets, c.straggler_factor, c.straggler_rank,
      c.microbatches, c.batch, c.context, c.vocab, c.experts, c.expert_token_fraction, c.clock_offset_ms,
      c.warm_up_steps, stalls, c.step_marks);
  fmt::format_to(out,
                 "  \"device\": {{\"key\": \"{}\", \"name\": \"{}\", \"bf16_peak_flops_per_s\": {:.6e}, "
                 "\"mem_bytes_per_s\": {:.6e}, \"num_sms\": {}}},\n"
                 "  \"tolerance\": {{\"fraction_abs\": 1e-6, \"seconds_rel\": 1e-6}},\n  \"ranks\": [\n",
                 gpu.key, gpu.driver_name, gpu.bf16_flops_per_s, gpu.mem_bytes_per_s, gpu.num_sms);
  return Ok();
}

void TruthWriter::Figures(double span_s, double useful_s, double kernel_union_s, const LossSeconds& l) {
  auto f = [&](double seconds) { return span_s > 0 ? seconds / span_s : 0.0; };
  const double achieved = f(useful_s);
  fmt::format_to(
      std::back_inserter(file_.buffer()),
      "\"kernel_span_s\": {:.12g}, \"useful_s\": {:.12g}, \"achieved_fraction\": {:.12g}, "
      "\"headroom\": {}, \"utilization\": {:.12g}, \"losses\": {{\"compute_inefficiency\": {:.12g}, "
      "\"memory_bound\": {:.12g}, \"unmodeled_kernels\": {:.12g}, \"exposed_communication\": {:.12g}, "
      "\"pipeline_bubble\": {:.12g}, \"host_bound_idle\": {:.12g}, \"data_movement\": {:.12g}}}, "
      "\"loss_seconds\": {{\"compute_inefficiency\": {:.12g}, \"memory_bound\": {:.12g}, "
      "\"unmodeled_kernels\": {:.12g}, \"exposed_communication\": {:.12g}, \"pipeline_bubble\": {:.12g}, "
      "\"host_bound_idle\": {:.12g}, \"data_movement\": {:.12g}}}",
      span_s, useful_s, achieved, achieved > 0 ? fmt::format("{:.12g}", 1.0 / achieved) : "null",
      f(kernel_union_s), f(l.compute_inefficiency), f(l.memory_bound), f(l.unmodeled_kernels),
      f(l.exposed_communication), f(l.pipeline_bubble), f(l.host_bound_idle), f(l.data_movement),
      l.compute_inefficiency, l.memory_bound, l.unmodeled_kernels, l.exposed_communication, l.pipeline_bubble,
      l.host_bound_idle, l.data_movement);
}

void TruthWriter::Window(const WindowTruth& w, TimeNs offset_ns) {
  fmt::format_to(std::back_inserter(file_.buffer()), "\"window\": {{\"start_us\": {}, \"end_us\": {}}}, ",
                 Us(w.start_ns, offset_ns), Us(w.end_ns, offset_ns));
  Figures(w.span_s, w.useful_s, w.kernel_union_s, w.losses);
}

void TruthWriter::Files(const std::vector<FileTruth>& files, TimeNs offset_ns) {
  auto out = std::back_inserter(file_.buffer());
  file_.buffer().append(std::string_view(",\n      \"files\": ["));
  for (std::size_t i = 0; i < files.size(); ++i) {
    const FileTruth& f = files[i];
    fmt::format_to(out, "{}\n        {{\"file\": \"{}\", \"kind\": \"{}\", \"steps\": [{}]",
                   i == 0 ? "" : ",", f.file, f.kernels ? "window" : "samples", fmt::join(f.steps, ", "));
    if (f.kernels && f.window.span_s > 0) {
      fmt::format_to(out, ", \"dominant_dtype\": \"{}\", ", DtypeName(f.dominant_dtype));
      Window(f.window, offset_ns);
    }
    file_.buffer().push_back('}');
  }
  file_.buffer().push_back(']');
}

Status TruthWriter::AddRank(const RankReport& r) {
  auto out = std::back_inserter(file_.buffer());
  const RankTruth& t = *r.truth;
  if (!first_rank_) file_.buffer().append(std::string_view(",\n"));
  first_rank_ = false;
  fmt::format_to(out,
                 "    {{\"rank\": {}, \"file\": \"{}\", \"clock_offset_ns\": {}, \"dominant_dtype\": \"{}\", "
                 "\"peak_flops_per_s\": {:.6e}, \"mem_bytes_per_s\": {:.6e}, ",
                 r.rank, r.file, r.clock_offset_ns, DtypeName(r.dominant_dtype), r.device.peak_flops_per_s,
                 r.device.mem_bytes_per_s);
  Window(t.run, r.clock_offset_ns);
  fmt::format_to(
      out,
      ",\n      \"per_rank\": {{\"kernel_span_s\": {:.12g}, \"gpu_busy_s\": {:.12g}, \"compute_s\": {:.12g}, "
      "\"communication_s\": {:.12g}, \"communication_overlapped_s\": {:.12g}, "
      "\"collective_wait_s\": {:.12g}}},\n      \"steps\": [",
      t.run.span_s, t.run.gpu_busy_s, t.run.compute_s, t.run.communication_s,
      t.run.communication_overlapped_s, r.collective_wait_s);
  for (std::size_t i = 0; i < t.steps.size(); ++i) {
    const StepTruth& s = t.steps[i];
    fmt::format_to(out, "{}\n        {{\"step\": {}, ", i == 0 ? "" : ",", s.step);
    Window(s.window, r.clock_offset_ns);
    file_.buffer().push_back('}');
    auto it = std::find_if(steps_.begin(), steps_.end(), [&](const auto& p) { return p.first == s.step; });
    if (it == steps_.end()) it = steps_.insert(steps_.end(), {s.step, Totals{}});
    it->second.span_s += s.window.span_s;
    it->second.useful_s += s.window.useful_s;
    it->second.kernel_union_s += s.window.kernel_union_s;
    it->second.losses.Add(s.window.losses);
  }
  file_.buffer().append(std::string_view("],\n      \"kernels\": ["));
  // Per kernel name: class, where its loss goes, and its totals over the run window.
  struct Agg {
    ActivityClass cls = ActivityClass::kCompute;
    LossCategory category = LossCategory::kNone;
    std::int64_t count = 0;
    double busy_s = 0, share_s = 0, useful_s = 0, flops = 0;
    bool mixed = false;
  };
  std::vector<Agg> aggs(r.kernel_names->size());
  for (std::size_t i = 0; i < r.activities->size(); ++i) {
    const TruthActivity& a = (*r.activities)[i];
    Agg& g = aggs[a.name];
    const LossCategory category = ClassifyLoss(a, r.device);
    if (g.count > 0 && g.category != category) g.mixed = true;
    g.cls = a.cls;
    g.category = category;
    ++g.count;
    g.busy_s += NsToSeconds(a.end_ns - a.start_ns);
    g.share_s += t.kernels[i].share_s;
    g.useful_s += t.kernels[i].useful_s;
    g.flops += a.flop_model ? a.flops : 0;
  }
  for (std::size_t n = 0; n < aggs.size(); ++n) {
    const Agg& g = aggs[n];
    fmt::format_to(
        out,
        "{}\n        {{\"name\": \"{}\", \"class\": \"{}\", \"loss_category\": \"{}\", \"count\": {}, "
        "\"duration_s\": {:.12g}, \"share_s\": {:.12g}, \"useful_s\": {:.12g}, \"flops\": {:.12g}}}",
        n == 0 ? "" : ",", (*r.kernel_names)[n], ClassName(g.cls),
        g.mixed ? "mixed" : CategoryName(g.category), g.count, g.busy_s, g.share_s, g.useful_s, g.flops);
  }
  file_.buffer().push_back(']');
  if (r.files != nullptr) Files(*r.files, r.clock_offset_ns);
  file_.buffer().push_back('}');
  // Per module type (docs/layers.md): every activity counts once for each type on its chain.
  for (std::size_t i = 0; i < r.activities->size(); ++i) {
    for (const std::string& type : (*r.layer_types)[(*r.activities)[i].layer]) {
      auto it = std::find_if(layer_types_.begin(), layer_types_.end(),
                             [&](const auto& p) { return p.first == type; });
      if (it == layer_types_.end()) it = layer_types_.insert(layer_types_.end(), {type, LayerTotals{}});
      it->second.gpu_time_s += t.kernels[i].share_s;
      it->second.useful_s += t.kernels[i].useful_s;
    }
  }
  if (r.stalls != nullptr) {
    const auto span = std::span<const TruthActivity>(*r.activities);
    for (const auto& [cause, s] : HostIdleByCause(span, t.run.start_ns, t.run.end_ns, *r.stalls)) {
      auto it = std::find_if(host_idle_causes_.begin(), host_idle_causes_.end(),
                             [&](const auto& p) { return p.first == cause; });
      if (it == host_idle_causes_.end()) it = host_idle_causes_.insert(host_idle_causes_.end(), {cause, 0.0});
      it->second += s;
    }
  }
  for (const TruthActivity& a : *r.activities) {
    flops_ += a.flop_model ? a.flops : 0;
    if (!a.graph_replayed || a.cls != ActivityClass::kCompute) continue;
    ++graph_replayed_kernels_;
    graph_replayed_s_ += NsToSeconds(a.end_ns - a.start_ns);
  }
  job_.span_s += t.run.span_s;
  job_.useful_s += t.run.useful_s;
  job_.kernel_union_s += t.run.kernel_union_s;
  job_.losses.Add(t.run.losses);
  clock_offsets_ns_.push_back(r.clock_offset_ns);
  pipeline_bubbles_.push_back(t.run.span_s > 0 ? t.run.losses.pipeline_bubble / t.run.span_s : 0);
  return file_.MaybeFlush();
}

Status TruthWriter::Finish(const std::vector<StragglerReport>& stragglers) {
  auto out = std::back_inserter(file_.buffer());
  file_.buffer().append(std::string_view("\n  ],\n  \"job\": {"));
  Figures(job_.span_s, job_.useful_s, job_.kernel_union_s, job_.losses);
  file_.buffer().append(std::string_view(", \"steps\": ["));
  std::sort(steps_.begin(), steps_.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (std::size_t i = 0; i < steps_.size(); ++i) {
    fmt::format_to(out, "{}\n    {{\"step\": {}, ", i == 0 ? "" : ",", steps_[i].first);
    const Totals& s = steps_[i].second;
    Figures(s.span_s, s.useful_s, s.kernel_union_s, s.losses);
    file_.buffer().push_back('}');
  }
  file_.buffer().append(std::string_view("]},\n  \"clock_offsets_ns\": ["));
  for (std::size_t i = 0; i < clock_offsets_ns_.size(); ++i) {
    fmt::format_to(out, "{}{}", i == 0 ? "" : ", ", clock_offsets_ns_[i]);
  }
  file_.buffer().append(std::string_view("],\n  \"stragglers\": ["));
  for (std::size_t i = 0; i < stragglers.size(); ++i) {
    fmt::format_to(out, "{}\n    {{\"rank\": {}, \"caused_wait_s\": {:.12g}, \"cause\": \"{}\"}}",
                   i == 0 ? "" : ",", stragglers[i].rank, stragglers[i].caused_wait_s, stragglers[i].cause);
  }
  file_.buffer().append(std::string_view("],\n  \"layer_types\": ["));
  for (std::size_t i = 0; i < layer_types_.size(); ++i) {
    const auto& [type, l] = layer_types_[i];
    fmt::format_to(out,
                   "{}\n    {{\"type\": \"{}\", \"gpu_time_s\": {:.12g}, \"share_of_window\": {:.12g}, "
                   "\"useful_s\": {:.12g}, \"achieved_fraction\": {:.12g}}}",
                   i == 0 ? "" : ",", type, l.gpu_time_s, job_.span_s > 0 ? l.gpu_time_s / job_.span_s : 0,
                   l.useful_s, l.gpu_time_s > 0 ? l.useful_s / l.gpu_time_s : 0);
  }
  // The host-bound idle inside the program's host stalls, by the stall's cause; the rest of the
  // host-bound idle (launch gaps, syncs) is not given a cause here.
  file_.buffer().append(std::string_view("],\n  \"host_idle_causes\": {"));
  for (std::size_t i = 0; i < host_idle_causes_.size(); ++i) {
    fmt::format_to(out, "{}\"{}\": {:.12g}", i == 0 ? "" : ", ", host_idle_causes_[i].first,
                   host_idle_causes_[i].second);
  }
  file_.buffer().push_back('}');
  if (IsGraphed(config_.scenario)) {
    fmt::format_to(out,
                   ",\n  \"graphs\": {{\"capture_trace\": {}, \"graph_replayed_kernels\": {}, "
                   "\"graph_replayed_s\": {:.12g}, \"hardware_flops\": {:.12g}}}",
                   HasCaptureTrace(config_.scenario), graph_replayed_kernels_, graph_replayed_s_, flops_);
  }
  file_.buffer().append(std::string_view(",\n  \"pipeline\": "));
  if (config_.scenario == Scenario::kPipeline) {
    const double s = config_.ranks, m = config_.microbatches;
    fmt::format_to(
        out, "{{\"stages\": {}, \"microbatches\": {}, \"ideal_bubble\": {:.12g}, \"per_stage_bubble\": [",
        config_.ranks, config_.microbatches, (s - 1) / (m + s - 1));
    for (std::size_t i = 0; i < pipeline_bubbles_.size(); ++i) {
      fmt::format_to(out, "{}{:.12g}", i == 0 ? "" : ", ", pipeline_bubbles_[i]);
    }
    file_.buffer().append(std::string_view("]}"));
  } else {
    file_.buffer().append(std::string_view("null"));
  }
  file_.buffer().append(std::string_view("\n}\n"));
  return file_.Close();
}

}  // namespace plasmient::synth
