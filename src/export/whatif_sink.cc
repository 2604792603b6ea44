#include "export/whatif_sink.h"

#include <fmt/format.h>

#include "export/json_writer.h"
#include "export/units_text.h"

namespace plasmient::exporting {
namespace {

using verdict::Loss;

void WriteSide(JsonWriter& w, std::string_view key, const whatif::Side& s, const whatif::SideBill& b,
               bool judgeable) {
  w.Key(key).BeginObject();
  w.Field("achieved_fraction", s.figures.achieved());
  w.Key("losses").BeginObject();
  for (std::size_t l = 0; l < verdict::kLossCount; ++l) {
    w.Field(verdict::LossKey(static_cast<Loss>(l)), s.figures.loss(static_cast<Loss>(l)));
  }
  w.EndObject();
  if (s.headroom) {
    w.Field("headroom", *s.headroom);
  } else {
    w.Key("headroom").Null();
  }
  w.Field("wall_s", s.figures.wall_s).Field("useful_s", s.figures.useful_s);
  w.Field("step_s", s.step_s).Field("memory_bound_share", s.memory_bound_share);
  w.Key("bill").BeginObject();
  if (judgeable) {
    w.Field("wasted_per_gpu_hour", b.wasted_per_gpu_hour).Field("wasted_per_year", b.wasted_per_year);
  } else {  // usefulness unknown: so is the waste (docs/verdict.md, "Judgeable")
    w.Key("wasted_per_gpu_hour").Null().Key("wasted_per_year").Null();
  }
  w.Field("relative_cost_per_work", b.cost_per_work).EndObject();
  w.EndObject();
}

// "8×", "1.18×", "1024×".
std::string Times(double v) { return v >= 100 ? fmt::format("{:.0f}×", v) : fmt::format("{:.3g}×", v); }

std::string LeverText(const whatif::Levers& l) {
  std::string out;
  auto add = [&out](const std::string& s) {
    if (!out.empty()) out += ", ";
    out += s;
  };
  if (l.batch > 0) {
    add(fmt::format("batch {} → {} (×{:g}; {} read from the input shapes)", l.batch_read, l.batch,
                    l.batch_scale, l.batch_read));
  } else if (l.batch_scale != 1) {
    add(fmt::format("batch ×{:g}", l.batch_scale));
  }
  if (l.overlap_comm) add("communication overlapped");
  if (l.microbatches > 0) add(fmt::format("{} microbatches", l.microbatches));
  if (l.cuda_graphs) add("CUDA graphs");
  return out.empty() ? "none (the trace as it ran)" : out;
}

}  // namespace

std::string WhatIfToJson(const whatif::Projection& p, const whatif::BillInputs& in) {
  std::string out;
  JsonWriter w(out);
  w.BeginObject().Field("schema", "plasmient.whatif/1");
  w.Key("levers").BeginObject();
  w.Field("batch_scale", p.levers.batch_scale).Field("overlap_comm", p.levers.overlap_comm);
  if (p.levers.microbatches > 0) {
    w.Field("microbatches", p.levers.microbatches);
  } else {
    w.Key("microbatches").Null();
  }
  if (p.levers.batch > 0) {
    w.Field("batch", p.levers.batch).Field("batch_read", p.levers.batch_read);
  } else {
    w.Key("batch").Null().Key("batch_read").Null();
  }
  w.Field("cuda_graphs", p.levers.cuda_graphs).EndObject();
  w.Field("price_per_gpu_hour", in.price_per_gpu_hour).Field("gpus", in.gpus);
  w.Field("judgeable", p.judgeable);
  w.Field("achieved_fraction_is", p.achieved_is);
  WriteSide(w, "current", p.current, whatif::CurrentBill(p, in), p.judgeable);
  WriteSide(w, "projected", p.projected, whatif::ProjectedBill(p, in), p.judgeable);
  w.Field("work_scale", p.work_scale).Field("throughput_gain", p.throughput_gain);
  w.Field("recoverable_gpu_s", p.recoverable_gpu_s);
  w.Key("bound_changes").BeginArray();
  for (const whatif::BoundChange& c : p.bound_changes) {
    w.BeginObject()
        .Field("kernel", c.kernel)
        .Field("from", c.from)
        .Field("to", c.to)
        .Field("calls", c.calls)
        .Field("projected_s", c.projected_s)
        .EndObject();
  }
  w.EndArray();
  w.Key("warnings").BeginArray();
  for (const std::string& s : p.warnings) w.String(s);
  w.EndArray().EndObject();
  out += '\n';
  return out;
}

std::string RenderWhatIfTerminal(const whatif::Projection& p, const whatif::BillInputs& in, bool color) {
  const char* bold = color ? "\x1b[1m" : "";
  const char* reset = color ? "\x1b[0m" : "";
  std::string out =
      fmt::format("{}plasmient what-if{} · {} · {} GPU{}\n  levers: {}\n\n", bold, reset,
                  PrintableText(in.device), in.gpus, in.gpus == 1 ? "" : "s", LeverText(p.levers));
  auto row = [&out](std::string_view label, const std::string& a, const std::string& b) {
    std::string dots(label.size() < 34 ? 34 - label.size() : 1, '.');
    out += fmt::format("  {} {} {:>14}   {:>14}\n", label, dots, a, b);
  };
  // 14 columns: a year's waste in full ("$1,234,567.89").
  out += fmt::format("  {:36} {:>14}   {:>14}\n", "", "current", "projected");
  const verdict::Figures& c = p.current.figures;
  const verdict::Figures& f = p.projected.figures;
  const bool lower_bound = p.achieved_is == "lower_bound";
  const bool assumed = p.achieved_is == "assumed_device";
  const std::string at_least = lower_bound ? "≥" : assumed ? "~" : "";
  row(lower_bound ? "achieved (lower bounds)"
      : assumed   ? "achieved (assumed device)"
                  : "achieved fraction of peak",
      at_least + Percent(c.achieved()), at_least + Percent(f.achieved()));
  for (std::size_t l = 0; l < verdict::kLossCount; ++l) {
    const auto loss = static_cast<Loss>(l);
    if (c.loss(loss) < 0.0005 && f.loss(loss) < 0.0005) continue;
    row(verdict::LossLabel(loss), Percent(c.loss(loss)), Percent(f.loss(loss)));
  }
  if (p.judgeable) {
    row("headroom", Headroom(p.current.headroom), Headroom(p.projected.headroom));
  } else {
    row("headroom", "unknown", "unknown");
  }
  if (p.current.step_s > 0) row("step time", Seconds(p.current.step_s), Seconds(p.projected.step_s));
  row("memory-bound share of kernel time", Percent(p.current.memory_bound_share),
      Percent(p.projected.memory_bound_share));
  row("work per step", "1×", Times(p.work_scale));
  row("work per second", "1×", Times(p.throughput_gain));
  const whatif::SideBill bc = whatif::CurrentBill(p, in);
  const whatif::SideBill bp = whatif::ProjectedBill(p, in);
  const auto money = [&p](double v) { return p.judgeable ? Money(v) : std::string("unknown"); };
  row(fmt::format("wasted of each {} GPU-hour", Money(in.price_per_gpu_hour)), money(bc.wasted_per_gpu_hour),
      money(bp.wasted_per_gpu_hour));
  row(fmt::format("wasted per year, {} GPU{}", in.gpus, in.gpus == 1 ? "" : "s"), money(bc.wasted_per_year),
      money(bp.wasted_per_year));
  row("GPU cost per unit of work", "1×", Times(bp.cost_per_work));
  if (!p.bound_changes.empty()) {
    out += "\n  kernels the change moves across the ridge point:\n";
    for (const whatif::BoundChange& b : p.bound_changes) {
      out += fmt::format("    {} → {}  {:>6} calls  {:>9}  {}\n", b.from, b.to, b.calls,
                         Seconds(b.projected_s), PrintableText(b.kernel.substr(0, 60)));
    }
  }
  for (const std::string& w : p.warnings) out += fmt::format("\n  warning: {}\n", w);
  if (!p.judgeable) {
    // Measured, yet not judged: the window holds too little GPU work (docs/verdict.md, "Judgeable").
    out += !lower_bound && !assumed
               ? "\n  usefulness unknown: the window holds too little GPU work to judge (see the verdict's "
                 "judgement; profile more steps)\n"
           : lower_bound
               ? "\n  usefulness unknown: FLOP or byte models cover too little of the compute to judge it; "
                 "achieved fractions are lower bounds (see the verdict's judgement)\n"
               : "\n  usefulness unknown: the device is unknown, so the fractions are against an assumed "
                 "peak (see the verdict's judgement; --gpu names the device)\n";
  }
  return out;
}

}  // namespace plasmient::exporting
