#include "export/html_sink.h"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "export/html_charts.h"
#include "export/html_layers.h"
#include "export/html_page.h"
#include "export/html_vertical.h"
#include "export/html_whatif.h"
#include "export/units_text.h"

namespace plasmient::exporting {
namespace {

using verdict::Loss;

std::string Kpi(std::string_view value, std::string_view label, std::string_view cls = "") {
  return fmt::format("<div class=\"kpi {}\"><div class=\"v\">{}</div><div class=\"l\">{}</div></div>", cls,
                     HtmlEscape(value), HtmlEscape(label));
}

// Templated kernel names run to hundreds of characters: keep the head, mark the cut.
std::string ShortKernelName(std::string_view name, std::size_t max) {
  if (name.size() <= max) return std::string(name);
  std::size_t cut = max - 1;
  while (cut > 0 && (static_cast<unsigned char>(name[cut]) & 0xC0) == 0x80) --cut;  // UTF-8 boundary
  return std::string(name.substr(0, cut)) + "…";
}

std::string Chip(std::string_view loss_key) {
  return fmt::format("<span class=\"chip\" style=\"background:{}\"></span>", LossColorVar(loss_key));
}

void VerdictSection(std::string& out, const verdict::JobVerdict& job) {
  const auto& f = job.job;
  out += "<section id=\"verdict\"><h2>Verdict</h2><div class=\"kpis\">";
  out += Kpi(Percent(f.utilization()), "utilization (what nvidia-smi shows)");
  const verdict::Judgement& judgement = job.judgement;
  if (judgement.judgeable) {
    out += Kpi(Percent(f.achieved()), "achieved fraction of peak (what you paid for)", "good");
    out += Kpi(Headroom(job.headroom()), "headroom on the same hardware", "small");
  } else if (judgement.assumed_device()) {
    // Against a stand-in device's peak (docs/verdict.md, "Judgeable"): no headroom, no waste.
    out += Kpi("~ " + Percent(f.achieved()), "achieved fraction of an assumed device's peak");
    out += Kpi("unknown", "headroom on the same hardware", "small");
  } else if (!judgement.lower_bound()) {
    // Measured, of a window too small to describe a workload: no headroom, no waste.
    out += Kpi(Percent(f.achieved()), "achieved fraction of peak, of a window too small to judge");
    out += Kpi("unknown", "headroom on the same hardware", "small");
  } else {
    // A lower bound (docs/verdict.md, "Judgeable"): no headroom, no waste.
    out +=
        Kpi("≥ " + Percent(f.achieved()), fmt::format("achieved fraction of peak: a lower bound, at most {}",
                                                      Percent(judgement.achieved_at_most)));
    out += Kpi("unknown", "headroom on the same hardware", "small");
  }
  if (auto mfu = job.mfu()) out += Kpi(Percent(*mfu), "MFU (model FLOPs)", "small");
  out += Kpi((judgement.lower_bound()      ? "≥ "
              : judgement.assumed_device() ? "~ "
                                           : "") +
                 Percent(job.hfu()),
             "HFU (hardware FLOPs)", "small");
  out += "</div>";
  out += "<p class=\"sentence\">" + HtmlEscape(VerdictHeadline(job)) + "</p>";
  if (!judgement.judgeable) {
    out += "<p class=\"note judgement\">" + HtmlEscape(judgement.reason) +
           ". To judge it: " + HtmlEscape(judgement.fix) + "</p>";
  }
  if (job.warm_up.detected) {
    out += "<p class=\"note warm-up\">Warm-up: " + HtmlEscape(job.warm_up.evidence) +
           ". Steady state: " + HtmlEscape(job.warm_up.fix) + "</p>";
  }
  out += fmt::format("<p class=\"note\">Judged against {} at {} ({}) and {} memory bandwidth · {}</p>",
                     HtmlEscape(job.device.name.empty() ? "an unknown GPU" : job.device.name),
                     SiNumber(job.device.peak_flops_per_s, "FLOP/s"), HtmlEscape(job.device.peak_dtype),
                     SiNumber(job.device.memory_bandwidth_bytes_per_s, "B/s"), HtmlEscape(job.device.source));
  const auto& b = job.bill;
  if (b.spend > 0) {
    out += "<div class=\"bill\">";
    out += fmt::format("<div><b>{}</b><span>spent ({:.3g} GPU-hours at {}/GPU-hour)</span></div>",
                       Money(b.spend), b.gpu_hours, Money(b.price_per_gpu_hour));
    if (judgement.judgeable) {
      out += fmt::format("<div><b>{}</b><span>computed useful work</span></div>", Money(b.computed));
      out += fmt::format("<div><b>{}</b><span>paid for, never computed</span></div>",
                         Money(b.paid_never_computed));
      out += fmt::format("<div><b>{}</b><span>addressable at a {} target</span></div>", Money(b.addressable),
                         Percent(b.target_fraction));
    } else {
      out += fmt::format("<div><b>≥ {}</b><span>computed useful work (a lower bound)</span></div>",
                         Money(b.computed));
      out += "<div><b>unknown</b><span>paid for, never computed: usefulness unknown</span></div>";
    }
    out += "</div>";
  }
  out += "</section>\n";
}

void FixesSection(std::string& out, const verdict::JobVerdict& job) {
  if (job.fixes.empty()) return;
  out +=
      "<section id=\"fixes\"><h2>What to change <small>largest loss first</small></h2><ol class=\"fixes\">";
  for (const auto& fx : job.fixes) {
    out += fmt::format("<li>{}<span class=\"pct\">{}</span><b>{}</b> — {}", Chip(verdict::LossKey(fx.loss)),
                       Percent(fx.fraction), HtmlEscape(job.fix_label(fx)), HtmlEscape(fx.action));
    if (fx.layer) out += "<div class=\"culprits\">" + HtmlEscape(FixLayerText(*fx.layer, fx.loss)) + "</div>";
    if (!fx.culprits.empty()) {
      std::string names;
      for (const auto& c : fx.culprits) names += (names.empty() ? "" : " · ") + ShortKernelName(c, 110);
      out += "<div class=\"culprits\">" + HtmlEscape(names) + "</div>";
    }
    out += "</li>";
  }
  out += "</ol></section>\n";
}

void AggregateTable(std::string& out, std::string_view id, std::string_view title,
                    const std::vector<verdict::KernelAggregate>& rows) {
  if (rows.empty()) return;
  out += fmt::format("<section id=\"{}\"><h2>{} <small>by lost GPU time</small></h2><table><thead><tr>", id,
                     title);
  out +=
      "<th>name</th><th class=\"n\">lost</th><th class=\"n\">time</th><th class=\"n\">calls</th>"
      "<th class=\"n\">achieved</th><th class=\"n\">roofline</th><th "
      "class=\"n\">AI</th><th>loss</th>";
  // The device tier beside each row, when the trace has it: the device's activity during its calls.
  bool device = std::any_of(rows.begin(), rows.end(), [](const auto& k) { return k.device.any(); });
  if (device) {
    out +=
        "<th class=\"device\" title=\"mean of the device's samples during its calls\">device activity</th>";
  }
  out += "</tr></thead><tbody>";
  for (const auto& k : rows) {
    std::string sub =
        k.op.empty() || k.op == k.name ? "" : "<br><span class=\"note\">" + HtmlEscape(k.op) + "</span>";
    out += fmt::format(
        "<tr><td class=\"name\" title=\"{}\">{}{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td "
        "class=\"n\">{}</td>"
        "<td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td>{}{}</td>",
        HtmlEscape(k.name), HtmlEscape(ShortKernelName(k.name, 160)), sub, Seconds(k.lost_s),
        Seconds(k.time_s), k.calls, k.modeled() ? Percent(k.achieved_fraction()) : "–",
        k.modeled() ? Percent(k.roofline_fraction()) : "–",
        k.bytes > 0 && k.flops > 0 ? fmt::format("{:.1f}", k.arithmetic_intensity()) : "–",
        Chip(verdict::LossKey(k.loss)), HtmlEscape(verdict::LossLabel(k.loss)));
    if (device) {
      std::string text = DeviceActivityText(k.device);
      out += "<td class=\"device\">" + (text.empty() ? std::string("–") : HtmlEscape(text)) + "</td>";
    }
    out += "</tr>";
  }
  out += "</tbody></table></section>\n";
}

void RanksSection(std::string& out, const verdict::JobVerdict& job, const HtmlOptions& o) {
  bool any_steps =
      std::any_of(job.ranks.begin(), job.ranks.end(), [](const auto& r) { return !r.steps.empty(); });
  if (any_steps) {
    bool clipped = false;
    std::string svg = HeatmapSvg(job.ranks, o.max_heatmap_ranks, o.max_heatmap_steps, &clipped);
    out += "<section><h2>Achieved per rank and step <small>hover a cell for its figures</small></h2>" + svg;
    if (clipped) {
      out +=
          fmt::format("<p class=\"note\">Showing at most {} ranks and {} steps; the JSON output has all.</p>",
                      o.max_heatmap_ranks, o.max_heatmap_steps);
    }
    out += "</section>\n";
  }
  if (job.ranks.size() < 2) return;
  out +=
      "<section id=\"ranks\"><h2>Ranks <small>lowest achieved "
      "first</small></h2><table><thead><tr><th>rank</th>"
      "<th class=\"n\">achieved</th><th class=\"n\">utilization</th><th class=\"n\">exposed comm</th>"
      "<th class=\"n\">bubble</th><th class=\"n\">host idle</th><th "
      "class=\"n\">span</th><th>trace</th></tr></thead><tbody>";
  std::vector<const verdict::RankVerdict*> order;
  order.reserve(job.ranks.size());
  for (const auto& r : job.ranks) order.push_back(&r);
  std::stable_sort(order.begin(), order.end(),
                   [](auto* a, auto* b) { return a->run.achieved() < b->run.achieved(); });
  for (const auto* r : order) {
    out += fmt::format(
        "<tr><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td "
        "class=\"n\">{}</td>"
        "<td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"name\">{}</td></tr>",
        r->rank, Percent(r->run.achieved()), Percent(r->run.utilization()),
        Percent(r->run.loss(Loss::kExposedCommunication)), Percent(r->run.loss(Loss::kPipelineBubble)),
        Percent(r->run.loss(Loss::kHostBoundIdle)), Seconds(r->run.wall_s), HtmlEscape(r->path));
  }
  out += "</tbody></table></section>\n";
}

void StragglersSection(std::string& out, const verdict::JobVerdict& job) {
  if (job.stragglers.empty()) return;
  out +=
      "<section id=\"stragglers\"><h2>Stragglers <small>ranks that arrive last and keep the others "
      "waiting</small>"
      "</h2><table><thead><tr><th>rank</th><th class=\"n\">others' wait caused</th><th class=\"n\">of "
      "capacity</th>"
      "<th class=\"n\">last at</th><th class=\"n\">mean lateness</th><th>mostly at</th><th>worst "
      "steps</th></tr>"
      "</thead><tbody>";
  for (const auto& s : job.stragglers) {
    std::string steps;
    for (std::size_t i = 0; i < s.late_steps.size() && i < 6; ++i)
      steps += fmt::format("{}{}", i ? ", " : "", s.late_steps[i]);
    out += fmt::format(
        "<tr><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{} of {}</td>"
        "<td class=\"n\">{}</td><td class=\"name\">{}</td><td>{}</td></tr>",
        s.rank, Seconds(s.caused_wait_s), Percent(s.capacity_fraction), s.late_collectives, s.collectives,
        Seconds(s.mean_late_s), HtmlEscape(join::CollectiveKindName(s.kind)), steps);
  }
  out += "</tbody></table></section>\n";
}

void CollectivesSection(std::string& out, const verdict::JobVerdict& job) {
  if (job.collective_totals.empty()) return;
  out += fmt::format(
      "<section id=\"collectives\"><h2>Collectives <small>exposed communication: {} of capacity, "
      "pipeline bubble: {}</small></h2>",
      Percent(job.job.loss(Loss::kExposedCommunication)), Percent(job.job.loss(Loss::kPipelineBubble)));
  out +=
      "<table><thead><tr><th>kind</th><th class=\"n\">calls</th><th class=\"n\">ranks</th><th "
      "class=\"n\">GPU time</th>"
      "<th class=\"n\">bytes</th><th class=\"n\">bandwidth</th></tr></thead><tbody>";
  for (const auto& c : job.collective_totals) {
    out += fmt::format(
        "<tr><td class=\"name\">{}{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td "
        "class=\"n\">{}</td>"
        "<td class=\"n\">{}</td><td class=\"n\">{}</td></tr>",
        HtmlEscape(c.name), c.p2p ? " (p2p)" : "", c.calls, c.ranks, Seconds(c.time_s),
        c.bytes > 0 ? SiNumber(static_cast<double>(c.bytes), "B") : "–",
        c.bytes_per_s > 0 ? SiNumber(c.bytes_per_s, "B/s") : "–");
  }
  out += "</tbody></table></section>\n";
}

void QualitySection(std::string& out, const verdict::JobVerdict& job, int unplaced) {
  auto dq = job.quality.NonZero();
  if (dq.empty() && unplaced == 0) return;
  out +=
      "<section id=\"quality\"><h2>Data quality <small>what the trace did not say, and what that "
      "changes</small></h2>"
      "<table><thead><tr><th class=\"n\">count</th><th>severity</th><th>meaning</th></tr></thead><tbody>";
  for (auto [id, count] : dq) {
    const auto& info = model::Describe(id);
    out += fmt::format(
        "<tr><td class=\"n\">{}</td><td>{}</td><td>{} <span class=\"note\">({})</span></td></tr>", count,
        model::SeverityName(info.severity), HtmlEscape(info.meaning), HtmlEscape(info.name));
  }
  if (unplaced > 0) {
    out += fmt::format(
        "<tr><td class=\"n\">{}</td><td>info</td><td>top kernels without both a FLOP and a byte model "
        "are listed in the tables but not placed on the roofline</td></tr>",
        unplaced);
  }
  out += "</tbody></table></section>\n";
}

}  // namespace

std::string VerdictHeadline(const verdict::JobVerdict& job) {
  std::string head(verdict::VerdictWords(job.job, job.judgement.judgeable));
  head[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(head[0])));
  if (!job.judgement.judgeable) return head + ".";
  if (!job.headroom()) return head + ". No modeled useful work.";
  return fmt::format("{}. {} headroom before new hardware.", head, Headroom(job.headroom()));
}

std::string RenderHtml(const verdict::JobVerdict& job, const HtmlOptions& o) {
  std::string title = o.title.empty() ? "trace" : o.title;
  std::string out = HtmlBegin("plasmient · " + title);
  out += fmt::format(
      "<header class=\"top\"><h1>plasmient · {}</h1><span class=\"sub\">{} · {} rank{} · {} of GPU "
      "time</span></header>\n",
      HtmlEscape(title), HtmlEscape(job.device.name.empty() ? "unknown GPU" : job.device.name),
      job.ranks.size(), job.ranks.size() == 1 ? "" : "s", Seconds(job.job.wall_s));
  if (job.job.wall_s <= 0) {
    std::string why = "no GPU activity: nothing to judge";
    for (const auto& r : job.ranks) {
      if (!r.no_gpu_reason.empty()) why = r.no_gpu_reason;
    }
    out += "<section id=\"verdict\"><h2>Verdict</h2><p class=\"sentence\">" + HtmlEscape(why) +
           "</p></section>\n";
    QualitySection(out, job, 0);
    return out + HtmlEnd();
  }
  VerdictSection(out, job);
  int unplaced = 0;
  std::string roofline = RooflineSvg(job.device, job.top_kernels, &unplaced);
  out +=
      "<div class=\"grid2\"><section><h2>Where the capacity went <small>100% of peak × time, down to "
      "achieved</small></h2>";
  out += WaterfallSvg(job.job, job.short_fixes, job.loss_label(Loss::kExposedCommunication)) + "</section>\n";
  out += "<section><h2>Roofline <small>top kernels; area ∝ GPU time, colour = loss</small></h2>" + roofline;
  out += "</section></div>\n<div style=\"height:18px\"></div>\n";
  FixesSection(out, job);
  if (o.whatif != nullptr) out += WhatIfPanel(*o.whatif, whatif::BillInputsOf(job));
  out += VerticalSection(job, o.vertical);
  out += LayersSection(job.layers);
  AggregateTable(out, "kernels", "Top kernels", job.top_kernels);
  AggregateTable(out, "ops", "Top ops", job.top_ops);
  RanksSection(out, job, o);
  StragglersSection(out, job);
  CollectivesSection(out, job);
  QualitySection(out, job, unplaced);
  out += "<footer>Inputs: ";
  for (std::size_t i = 0; i < job.ranks.size() && i < 8; ++i)
    out += (i ? ", " : "") + HtmlEscape(job.ranks[i].path);
  if (job.ranks.size() > 8) out += fmt::format(" and {} more", job.ranks.size() - 8);
  out +=
      ". Achieved fraction of peak = useful FLOPs at peak speed over capacity; every loss is a share of the "
      "same "
      "capacity, so they add up to 100%. Generated by plasmient.</footer>\n";
  return out + HtmlEnd();
}

}  // namespace plasmient::exporting
