#include "export/terminal_sink.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "diagnose/fixes.h"
#include "diagnose/text.h"
#include "export/explain_sink.h"
#include "export/units_text.h"

namespace plasmient::exporting {
namespace {

using verdict::Loss;

constexpr int kWidth = 78;  // inside the box: 80 columns with the borders

// Display columns of UTF-8 text (every code point one column; we print no wide glyphs).
int Columns(std::string_view s) {
  int n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

std::string Truncate(std::string_view text, int cols) {
  std::string printable = PrintableText(text);
  std::string_view s = printable;
  if (Columns(s) <= cols) return printable;
  std::string out;
  int n = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if ((c & 0xC0) != 0x80 && ++n > cols - 1) break;
    out.push_back(s[i]);
  }
  return out + "…";
}

std::string Repeat(std::string_view s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

class Painter {
 public:
  explicit Painter(bool color) : color_(color) {}
  std::string operator()(std::string_view code, std::string_view text) const {
    if (!color_) return std::string(text);
    return fmt::format("\033[{}m{}\033[0m", code, text);
  }

 private:
  bool color_;
};

// One line inside the box; `visible` is the text without colour codes, for padding.
void BoxLine(std::string& out, std::string_view text, int visible) {
  out += "│";
  out += text;
  out += std::string(std::max(0, kWidth - visible), ' ');
  out += "│\n";
}

void Row(std::string& out, const Painter& p, int indent, std::string_view label, std::string value,
         std::string_view note, std::string_view value_color) {
  // "  label ........ 99%   note"
  constexpr int kLabelCols = 36;
  std::string lab = Truncate(label, kLabelCols - indent - 2);
  int dots = kLabelCols - indent - Columns(lab) - 1;
  std::string left = std::string(indent, ' ') + lab + " " + Repeat(".", dots);
  std::string val = fmt::format("{:>5}", value);
  std::string n = Truncate(note, kWidth - kLabelCols - 9);
  std::string plain = fmt::format("{} {}   {}", left, val, n);
  std::string shown = fmt::format("{} {}   {}", left, p(value_color, val), n);
  BoxLine(out, shown, Columns(plain));
}

std::string VerdictSentence(const verdict::JobVerdict& job, Loss* worst) {
  double worst_f = -1;
  for (std::size_t i = 0; i < verdict::kLossCount; ++i) {
    double f = job.job.loss(static_cast<Loss>(i));
    if (f > worst_f) worst_f = f, *worst = static_cast<Loss>(i);
  }
  const bool judged = job.judgement.judgeable;
  std::string room = !judged ? std::string()
                     : job.headroom()
                         ? fmt::format(" {} headroom before new hardware.", Headroom(job.headroom()))
                         : std::string(" no modeled useful work.");
  return fmt::format("VERDICT: {}.{}", verdict::VerdictWords(job.job, judged), room);
}

// The module types that took the most GPU time (docs/layers.md); nothing when the trace has
// no module or annotation ranges.
void RenderTopLayers(std::string& out, const verdict::Layers& layers) {
  constexpr std::size_t kShown = 10;
  if (!layers.has_ranges() || layers.gpu_time_s() <= 0) return;
  out += "\n top layers                            instances  GPU time  achieved  main loss\n";
  for (std::size_t i = 0; i < std::min(layers.types.size(), kShown); ++i) {
    const auto& f = layers.types[i];
    out += fmt::format(" {:<36} {:>9} {:>9} {:>9}  {}\n", Truncate(f.type, 36), f.instances,
                       Percent(layers.share_of_gpu_time(f)), Percent(f.achieved_fraction()),
                       verdict::LossLabel(f.main_loss()));
  }
}

// The graph replays and how their kernels were matched (docs/graphs.md); "" for an eager trace.
std::string GraphsLine(const verdict::Evidence& e) {
  if (e.trace_kind() != join::TraceKind::kGraphReplay) return "";
  const std::string ran =
      fmt::format("  graph-replayed: {} kernels in {} replay{}, {}", e.graph_replayed_kernels,
                  e.graph_replays, e.graph_replays == 1 ? "" : "s", Seconds(e.graph_replayed_s));
  if (e.graph_matched_kernels == e.graph_replayed_kernels) return ran + ", matched to the capture";
  if (e.graph_matched_kernels == 0) return ran + ", no capture trace";
  return ran + fmt::format(", {} matched to the capture", e.graph_matched_kernels);
}

}  // namespace

std::string RenderRankTable(const verdict::JobVerdict& job) {
  std::string out;
  out += "\n rank  achieved  utilization  exposed comm  bubble  idle    wall\n";
  std::size_t shown = 0;
  for (const auto& r : job.ranks) {
    if (++shown > 16) {
      out += fmt::format(" … {} more ranks in the JSON output\n", job.ranks.size() - 16);
      break;
    }
    out +=
        fmt::format(" {:>4}  {:>8}  {:>11}  {:>12}  {:>6}  {:>4}  {:>7}\n", r.rank, Percent(r.run.achieved()),
                    Percent(r.run.utilization()), Percent(r.run.loss(Loss::kExposedCommunication)),
                    Percent(r.run.loss(Loss::kPipelineBubble)), Percent(r.run.loss(Loss::kHostBoundIdle)),
                    Seconds(r.run.wall_s));
  }
  return out;
}

std::string RenderTerminal(const verdict::JobVerdict& job, const TerminalOptions& o) {
  Painter p(o.color);
  std::string out;
  std::string title = fmt::format("─ plasmient · {} · {}{} ", Truncate(o.title, 36),
                                  job.device.name.empty() ? "unknown GPU" : PrintableText(job.device.name),
                                  job.device.assumed                 ? " (assumed)"
                                  : job.device.ceiling == "measured" ? " · measured ceilings"
                                                                     : "");
  title = Truncate(title, kWidth - 1);
  out += "┌" + title + Repeat("─", kWidth - Columns(title)) + "┐\n";

  const auto& f = job.job;
  if (f.wall_s <= 0) {
    std::string msg = "  no GPU activity: nothing to judge";
    BoxLine(out, msg, Columns(msg));
    for (const auto& r : job.ranks) {
      if (r.no_gpu_reason.empty()) continue;
      std::string line = "  " + Truncate(r.no_gpu_reason, kWidth - 4);
      BoxLine(out, line, Columns(line));
      break;
    }
    out += "└" + Repeat("─", kWidth) + "┘\n";
    return out;
  }

  std::string below_box;
  Row(out, p, 2, "utilization (nvidia-smi)", Percent(f.utilization()), "what the dashboard shows", "1");
  const verdict::Judgement& judgement = job.judgement;
  if (judgement.judgeable) {
    Row(out, p, 2, "achieved fraction of peak", Percent(f.achieved()), "what you paid for", "1;32");
  } else if (judgement.assumed_device()) {
    // Against a stand-in device's peak (docs/verdict.md, "Judgeable"): neither bound.
    Row(out, p, 2, "achieved fraction of peak", "~" + Percent(f.achieved()), "against an assumed peak", "1");
  } else if (!judgement.lower_bound()) {
    // Measured, of a window too small to describe a workload (docs/verdict.md, "Judgeable").
    Row(out, p, 2, "achieved fraction of peak", Percent(f.achieved()), "of too small a window", "1");
  } else {
    // A lower bound: the unmodeled kernels' time counts as loss (docs/verdict.md, "Judgeable").
    Row(out, p, 2, "achieved fraction of peak", "≥" + Percent(f.achieved()),
        fmt::format("a lower bound (at most {})", Percent(judgement.achieved_at_most)), "1");
  }
  std::string where = fmt::format("  where the other {} went:", Percent(f.lost()));
  BoxLine(out, where, Columns(where));
  std::vector<std::pair<double, Loss>> losses;
  for (std::size_t i = 0; i < verdict::kLossCount; ++i) {
    auto l = static_cast<Loss>(i);
    losses.emplace_back(f.loss(l), l);
  }
  std::stable_sort(losses.begin(), losses.end(), [](auto& a, auto& b) { return a.first > b.first; });
  for (auto [frac, l] : losses) {
    if (frac < 0.005) continue;
    Row(out, p, 4, job.loss_label(l), Percent(frac), job.short_fixes[static_cast<std::size_t>(l)], "33");
  }
  if (std::string at = FirstFixPointer(job, o.explain_command); !at.empty()) {
    // The first fix's waste in time: inside the box when the command fits, else under it.
    std::string line = "  see it: " + PrintableText(at);
    if (Columns(line) <= kWidth) {
      BoxLine(out, p("2", line), Columns(line));
    } else {
      below_box = line + "\n";
    }
  }
  if (!judgement.judgeable) {
    // What the models miss and how to record a trace that can be judged, in the evidence's words.
    for (std::string line :
         {judgement.cause == "window_too_small"
              ? fmt::format("  usefulness unknown: {} of GPU work, under the {} a verdict needs",
                            diagnose::DurationText(judgement.gpu_busy_s),
                            diagnose::DurationText(judgement.min_gpu_busy_s))
          : judgement.lower_bound()
              ? fmt::format("  usefulness unknown: models cover {} of compute time, under {}",
                            Percent(judgement.coverage.value_or(0)), Percent(judgement.min_coverage))
              : "  usefulness unknown: " + PrintableText(judgement.reason),
          "  why: " + judgement.evidence}) {
      line = Truncate(line, kWidth);
      BoxLine(out, line, Columns(line));
    }
    below_box += "  to judge it: " + PrintableText(judgement.fix) + "\n";
    if (const auto mfu = job.mfu()) {
      std::string line =
          fmt::format("  MFU {} (model FLOPs given) · HFU ≥ {}", Percent(*mfu), Percent(job.hfu()));
      BoxLine(out, line, Columns(line));
    }
  } else if (auto coverage = job.model_coverage()) {
    // MFU only where the model FLOPs are known well enough (docs/verdict.md, "MFU").
    const auto mfu = job.mfu();
    std::string line = mfu ? fmt::format("  MFU {} (model FLOPs) · HFU {} · models cover {}", Percent(*mfu),
                                         Percent(job.hfu()), Percent(*coverage))
                           : fmt::format("  HFU {} (hardware FLOPs) · models cover {} of compute time",
                                         Percent(job.hfu()), Percent(*coverage));
    BoxLine(out, line, Columns(line));
  }
  if (job.bill.price_per_gpu_hour > 0) {
    std::string line =
        judgement.judgeable
            ? fmt::format("  bill: {} of every {} GPU-hour buys no useful work",
                          Money(job.bill.wasted_per_gpu_hour), Money(job.bill.price_per_gpu_hour))
            : fmt::format("  bill: what each {} GPU-hour wastes is unknown",
                          Money(job.bill.price_per_gpu_hour));
    BoxLine(out, Truncate(line, kWidth), Columns(Truncate(line, kWidth)));
  }
  if (job.warm_up.detected) {
    // The figures describe a warm-up: say so inside the box, and how to read the steady state below.
    std::string line = Truncate("  warm-up: " + PrintableText(job.warm_up.evidence), kWidth);
    BoxLine(out, line, Columns(line));
    below_box += "  steady state: " + PrintableText(job.warm_up.fix) + "\n";
  }
  if (std::string line = GraphsLine(job.evidence); !line.empty()) {
    line = Truncate(line, kWidth);
    BoxLine(out, line, Columns(line));
  }
  Loss worst = Loss::kHostBoundIdle;
  std::string sentence = "  " + (job.evidence.trace_kind() == join::TraceKind::kCapture
                                     ? fmt::format("VERDICT: {}.", diagnose::kCaptureNoAdvice)
                                     : VerdictSentence(job, &worst));
  sentence = Truncate(sentence, kWidth);
  BoxLine(out, p("1", sentence), Columns(sentence));
  out += "└" + Repeat("─", kWidth) + "┘\n" + below_box;

  if (o.details) {
    if (!job.top_kernels.empty()) {
      out += "\n top kernels by lost GPU time          lost    calls  achieved  roofline  bound\n";
      for (std::size_t i = 0; i < std::min<std::size_t>(job.top_kernels.size(), 8); ++i) {
        const auto& k = job.top_kernels[i];
        out += fmt::format(" {:<36} {:>7} {:>8} {:>9} {:>9}  {}\n", Truncate(k.name, 36), Seconds(k.lost_s),
                           k.calls, k.modeled() ? Percent(k.achieved_fraction()) : "–",
                           k.modeled() ? Percent(k.roofline_fraction()) : "–", verdict::BoundName(k.bound));
      }
    }
    RenderTopLayers(out, job.layers);
    if (job.ranks.size() > 1) out += RenderRankTable(job);
    if (!job.fixes.empty()) {
      out += "\n what to change\n";
      for (const auto& fx : job.fixes) {
        out += fmt::format(" {:>4}  {}\n", Percent(fx.fraction), Truncate(fx.action, 72));
        if (!fx.evidence.empty()) out += "       evidence: " + Truncate(fx.evidence, 62) + "\n";
        if (fx.layer) {  // two lines at its "; "
          std::string text = FixLayerText(*fx.layer, fx.loss);
          std::size_t cut = text.find("; ");
          out += "       layer:    " + Truncate(text.substr(0, cut), 62) + "\n";
          if (cut != std::string::npos)
            out += "                 " + Truncate(text.substr(cut + 2), 62) + "\n";
        }
        if (!fx.culprits.empty()) {
          out += "       culprits: " + Truncate(fx.culprits.front(), 62) + "\n";
        }
      }
    }
    auto dq = job.quality.NonZero();
    bool header = false;
    for (auto [id, count] : dq) {
      const auto& info = model::Describe(id);
      if (info.severity == model::Severity::kInfo) continue;
      if (!header) out += "\n data quality\n", header = true;
      double gpu_s = job.quality.GpuSeconds(id);
      std::string gpu = gpu_s > 0 ? fmt::format(" ({} of GPU time)", Seconds(gpu_s)) : "";
      out += fmt::format(" {:>8}  {}{}\n", count, Truncate(info.meaning, 68 - static_cast<int>(gpu.size())),
                         gpu);
    }
    if (!job.job_problems.empty()) {
      out += "\n not one job? (docs/cluster.md)\n";
      for (const auto& p : job.job_problems) out += "  " + p + "\n";
    }
  }
  return out;
}

}  // namespace plasmient::exporting
