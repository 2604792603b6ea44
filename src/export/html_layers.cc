#include "export/html_layers.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "export/html_icicle_zoom.h"
#include "export/html_page.h"
#include "export/units_text.h"
#include "verdict/layers.h"

namespace plasmient::exporting {
namespace {

using verdict::LayerFigures;
using verdict::Layers;
using verdict::Loss;

constexpr double kWidthPx = 1120;  // the section's inner width at the page's widest
constexpr double kRowPx = 22;
constexpr double kLegendPx = 34;
constexpr double kCharPx = 6.8;  // a 12px system-ui glyph, on average: how many fit in a box
constexpr double kMinLabelPx = 28;
constexpr double kLabelPadPx = 4;
constexpr double kMinOpacity = 0.08;             // a box at 0% of peak still shows its outline and label
constexpr std::size_t kTooltipKernelChars = 64;  // templated kernel names run to hundreds

// Only here; the icicle's own rules, so the shared stylesheet stays as it is.
constexpr std::string_view kStyle = R"css(<style>
#icicle g.box { cursor: pointer; }
#icicle g.box rect { stroke: var(--card); stroke-width: 1; }
#icicle g.box:hover rect { stroke: var(--fg); stroke-width: 1.5; }
#icicle g.catch rect { stroke: var(--muted); stroke-dasharray: 3 2; }
#icicle g.more rect { fill: var(--unmodeled_kernels); }
#icicle text { font-size: 11px; pointer-events: none; }
#layer-types td.type { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 12.5px; }
</style>)css";

// Numbers in data attributes exactly as --json writes them (JsonWriter: fmt's shortest form).
std::string Num(double v) { return std::isfinite(v) ? fmt::format("{}", v) : "null"; }

std::size_t Fit(double width_px) { return static_cast<std::size_t>(std::max(0.0, (width_px - 8) / kCharPx)); }

// UTF-8 safe: never cuts inside a code point.
std::string Clip(std::string_view text, std::size_t fit) {
  if (text.size() <= fit) return std::string(text);
  if (fit < 3) return "";
  std::size_t cut = fit - 1;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return std::string(text.substr(0, cut)) + "…";
}

// A box's label: its name, else its tail ("…Layer_17": repeated blocks differ at the end).
// The zoom script (html_icicle_zoom.cc) refits a zoomed box's label by the same rule.
std::string Label(std::string_view name, double width_px) {
  std::size_t fit = Fit(width_px);
  if (name.size() <= fit) return std::string(name);
  if (fit < 4) return "";
  std::size_t from = name.size() - (fit - 1);
  while (from < name.size() && (static_cast<unsigned char>(name[from]) & 0xC0) == 0x80) ++from;
  return "…" + std::string(name.substr(from));
}

// The hover text: what a performance engineer asks of a module first.
std::string Tooltip(const Layers& layers, const LayerFigures& f, std::string_view head) {
  std::string s =
      fmt::format("{}\n{} GPU time · {} of the window · achieved {} of peak", head, Seconds(f.gpu_time_s),
                  Percent(layers.share_of_window(f)), Percent(f.achieved_fraction()));
  std::vector<std::pair<double, Loss>> losses;
  for (std::size_t l = 0; l < verdict::kLossCount; ++l) {
    auto loss = static_cast<Loss>(l);
    if (f.loss_fraction(loss) >= 0.0005) losses.emplace_back(f.loss_fraction(loss), loss);
  }
  std::stable_sort(losses.begin(), losses.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  for (std::size_t k = 0; k < losses.size(); ++k) {
    s += fmt::format("{}{} {}", k == 0 ? "\nlost: " : ", ", verdict::LossLabel(losses[k].second),
                     Percent(losses[k].first));
  }
  s += fmt::format("\n{} calls · {} GPU activities", f.calls, f.kernels);
  if (f.flops > 0) s += " · " + SiNumber(f.flops, "FLOP");
  for (const auto& [name, seconds] : f.top_kernels) {
    s += fmt::format("\n  {}  {}", Seconds(seconds), Clip(name, kTooltipKernelChars));
  }
  return s;
}

class Icicle {
 public:
  Icicle(const Layers& layers, const IcicleOptions& options)
      : layers_(layers), o_(options), scale_(kWidthPx / layers.gpu_time_s()) {
    // The smallest box drawn: as wide as keeps the count within max_boxes.
    for (min_px_ = 1.0; Mark(min_px_) > o_.max_boxes; min_px_ *= 1.5) {
    }
  }

  std::string Svg(std::string& note) {
    const auto& nodes = layers_.nodes;
    const std::size_t n = nodes.size();
    // Per parent (index + 1; 0 for the top): where its next child goes, and what is folded.
    std::vector<double> cursor(n + 1, 0);
    std::vector<LayerFigures> folded(n + 1);
    std::vector<std::int64_t> folded_count(n + 1, 0);
    std::vector<double> x(n, 0);
    double top = 0.01;
    std::size_t rows = 0, hidden = 0;
    for (std::size_t k = 0; k < n; ++k) {
      const LayerFigures& f = nodes[k];
      const std::size_t slot = f.parent < 0 ? 0 : static_cast<std::size_t>(f.parent) + 1;
      if (f.parent >= 0 && !drawn_[f.parent]) continue;  // inside a folded or undrawn node
      if (drawn_[k]) {
        x[k] = cursor[slot];
        cursor[slot] += f.gpu_time_s * scale_;
        cursor[k + 1] = x[k];
        top = std::max(top, f.achieved_fraction());
        rows = std::max(rows, static_cast<std::size_t>(f.depth) + 1);
      } else if (f.gpu_time_s > 0) {
        folded[slot].Add(f);
        ++folded_count[slot];
        ++hidden;
      }
    }
    for (std::size_t s = 0; s <= n; ++s) {
      if (folded_count[s] > 0)
        rows = std::max(rows, s == 0 ? 1 : static_cast<std::size_t>(nodes[s - 1].depth) + 2);
    }
    top_ = top;
    std::string out = fmt::format(
        "<svg id=\"icicle\" viewBox=\"0 0 {0:.0f} {1:.0f}\" width=\"{0:.0f}\" height=\"{1:.0f}\" "
        "role=\"img\" "
        "aria-label=\"module tree: width is GPU time, shade is achieved fraction of peak\">",
        kWidthPx, static_cast<double>(rows) * kRowPx + kLegendPx);
    for (std::size_t k = 0; k < n; ++k) {
      if (!drawn_[k]) continue;
      const LayerFigures& f = nodes[k];
      out += fmt::format("<g class=\"box{}\" data-path=\"{}\"",
                         verdict::IsCatchAllLayer(f.path) ? " catch" : "", HtmlEscape(f.path));
      Box(out, f, x[k], f.depth, f.name, Tooltip(layers_, f, f.path));
    }
    for (std::size_t s = 0; s <= n; ++s) {
      const LayerFigures& f = folded[s];
      if (folded_count[s] == 0) continue;
      const std::string parent = s == 0 ? "" : nodes[s - 1].path;
      const std::int32_t depth = s == 0 ? 0 : nodes[s - 1].depth + 1;
      const std::string label = fmt::format("{} more", folded_count[s]);
      out += fmt::format("<g class=\"box more\" data-parent=\"{}\" data-hidden=\"{}\"", HtmlEscape(parent),
                         folded_count[s]);
      Box(out, f, cursor[s], depth, label,
          Tooltip(layers_, f,
                  fmt::format("{} smaller or deeper nodes under {}", folded_count[s],
                              parent.empty() ? "the top" : parent)));
    }
    Legend(out, static_cast<double>(rows) * kRowPx + 12);
    out += "</svg>";
    note = fmt::format(
        "Width: GPU time ({} in all, wall − host-bound idle); shade: achieved fraction of peak, darkest at "
        "{}. A node's own kernels fill the part of its box that its children leave.",
        Seconds(layers_.gpu_time_s()), Percent(top_));
    if (hidden > 0) {
      note += fmt::format(
          " {} {} narrower than {:.1f} px or deeper than {} levels {} folded into grey “more” boxes; "
          "the JSON output has every node.",
          hidden, hidden == 1 ? "node" : "nodes", min_px_, o_.max_depth, hidden == 1 ? "is" : "are");
    }
    return out;
  }

 private:
  // Marks the nodes drawn at `min_px` and counts them.
  std::size_t Mark(double min_px) {
    const auto& nodes = layers_.nodes;
    drawn_.assign(nodes.size(), 0);
    std::size_t count = 0;
    for (std::size_t k = 0; k < nodes.size(); ++k) {
      const LayerFigures& f = nodes[k];
      bool fits = f.gpu_time_s > 0 && f.gpu_time_s * scale_ >= min_px &&
                  static_cast<std::size_t>(f.depth) < o_.max_depth;
      drawn_[k] = fits && (f.parent < 0 || drawn_[f.parent]);
      count += drawn_[k] ? 1 : 0;
    }
    return count;
  }

  double Opacity(double achieved) const {
    return kMinOpacity + (1 - kMinOpacity) * std::min(1.0, achieved / top_);
  }

  // The rest of a box after its <g>'s identifying attributes.
  void Box(std::string& out, const LayerFigures& f, double x, std::int32_t depth, std::string_view label,
           const std::string& tooltip) const {
    const double w = f.gpu_time_s * scale_, y = depth * kRowPx;
    out += fmt::format(" data-gpu-time-s=\"{}\" data-share=\"{}\" data-achieved=\"{}\"><title>{}</title>",
                       Num(f.gpu_time_s), Num(layers_.share_of_window(f)), Num(f.achieved_fraction()),
                       HtmlEscape(tooltip));
    out += fmt::format(
        "<rect x=\"{:.2f}\" y=\"{:.1f}\" width=\"{:.2f}\" height=\"{:.1f}\" fill=\"var(--achieved)\" "
        "fill-opacity=\"{:.3f}\"/>",
        x, y, std::max(w, 0.5), kRowPx - 1, Opacity(f.achieved_fraction()));
    // Every box has its <text>, empty when too narrow, with what the zoom script relabels it from.
    const std::string pct = Percent(f.achieved_fraction());
    std::string text;
    if (w >= kMinLabelPx) {
      std::string with_pct = fmt::format("{} · {}", label, pct);
      text = with_pct.size() <= Fit(w) ? with_pct : Label(label, w);
    }
    out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" data-label=\"{}\" data-pct=\"{}\">{}</text>",
                       x + kLabelPadPx, y + kRowPx - 7, HtmlEscape(label), HtmlEscape(pct), HtmlEscape(text));
    out += "</g>";
  }

  void Legend(std::string& out, double y) const {
    for (int i = 0; i < 10; ++i) {
      out += fmt::format(
          "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"16\" height=\"10\" fill=\"var(--achieved)\" "
          "fill-opacity=\"{:.2f}\"/>",
          60.0 + 16.0 * i, y, Opacity(top_ * i / 9.0));
    }
    out += fmt::format("<text x=\"54\" y=\"{:.1f}\" text-anchor=\"end\" class=\"muted\">0%</text>", y + 9);
    out += fmt::format("<text x=\"226\" y=\"{:.1f}\" class=\"muted\">{} of peak achieved</text>", y + 9,
                       HtmlEscape(Percent(top_)));
  }

  const Layers& layers_;
  const IcicleOptions& o_;
  double scale_;
  double min_px_ = 1;
  double top_ = 1;
  std::vector<char> drawn_;
};

void TypesTable(std::string& out, const Layers& layers, std::size_t max_rows) {
  out +=
      "<table id=\"layer-types\"><thead><tr><th>module type</th><th class=\"n\">instances</th>"
      "<th class=\"n\">calls</th><th class=\"n\">GPU time</th><th class=\"n\">of GPU time</th>"
      "<th class=\"n\">achieved</th><th>main loss</th><th>top kernel</th></tr></thead><tbody>";
  std::size_t shown = std::min(max_rows, layers.types.size());
  for (std::size_t k = 0; k < shown; ++k) {
    const LayerFigures& f = layers.types[k];
    Loss loss = f.main_loss();
    std::string kernel = f.top_kernels.empty() ? "" : f.top_kernels.front().first;
    out += fmt::format(
        "<tr data-type=\"{}\"><td class=\"type\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>"
        "<td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>"
        "<td><span class=\"chip\" style=\"background:{}\"></span>{} {}</td><td class=\"name\" "
        "title=\"{}\">{}</td>"
        "</tr>",
        HtmlEscape(f.type), HtmlEscape(f.type), f.instances, f.calls, Seconds(f.gpu_time_s),
        Percent(layers.share_of_gpu_time(f)), Percent(f.achieved_fraction()),
        LossColorVar(verdict::LossKey(loss)), HtmlEscape(verdict::LossLabel(loss)),
        Percent(f.loss_fraction(loss)), HtmlEscape(kernel), HtmlEscape(Clip(kernel, kTooltipKernelChars)));
  }
  out += "</tbody></table>";
  if (shown < layers.types.size()) {
    out += fmt::format(
        "<p class=\"note\">The {} types with the most GPU time of {}; the JSON output has all.</p>", shown,
        layers.types.size());
  }
}

}  // namespace

std::string LayersSection(const Layers& layers, const IcicleOptions& options) {
  if (!layers.has_ranges() || layers.gpu_time_s() <= 0) return "";
  std::string out(kStyle);
  out +=
      "<section id=\"layers\"><h2>Model layers <small>the module tree: width = GPU time, shade = "
      "achieved fraction of peak; hover a box for its figures, click it to zoom</small></h2>";
  out += "<p id=\"icicle-crumbs\" class=\"note\">Click a box to lay out its subtree at full width.</p>";
  std::string note;
  out += Icicle(layers, options).Svg(note);
  out += IcicleZoomScript({kRowPx, kCharPx, kMinLabelPx, kLabelPadPx});
  out += "<p class=\"note\">" + HtmlEscape(note) + "</p>";
  out +=
      "<h2>Module types <small>every instance of a class together; types nest, so shares "
      "overlap</small></h2>";
  TypesTable(out, layers, options.max_types);
  out += "</section>\n";
  return out;
}

}  // namespace plasmient::exporting
