#include "export/html_charts.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>

#include "export/html_page.h"
#include "export/units_text.h"
#include "roofline/roofline.h"

namespace plasmient::exporting {
namespace {

using verdict::Loss;

std::string Text(double x, double y, std::string_view text, std::string_view anchor = "start",
                 std::string_view cls = "") {
  return fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"{}\"{}>{}</text>", x, y, anchor,
                     cls.empty() ? "" : fmt::format(" class=\"{}\"", cls), HtmlEscape(text));
}

std::string ShortName(std::string_view name, std::size_t max) {
  std::string s(name);
  if (s.size() > max) s = s.substr(0, max - 1) + "…";
  return s;
}

// 10^k as people write it on an axis: 0.01, 1, 1k, 10T ...
std::string DecadeLabel(int k, std::string_view unit) {
  static constexpr const char* kPrefixes[] = {"", "k", "M", "G", "T", "P", "E"};
  if (k < 0) return fmt::format("{:g}", std::pow(10.0, k));
  if (k / 3 >= static_cast<int>(std::size(kPrefixes))) return fmt::format("1e{}", k);
  int mantissa = k % 3 == 0 ? 1 : k % 3 == 1 ? 10 : 100;
  return fmt::format("{}{}{}{}", mantissa, unit.empty() ? "" : " ", kPrefixes[k / 3], unit);
}

}  // namespace

std::string WaterfallSvg(const verdict::Figures& f, std::span<const std::string> short_fixes,
                         std::string_view comm_label) {
  auto label = [&](Loss l) {
    return l == Loss::kExposedCommunication && !comm_label.empty() ? comm_label : verdict::LossLabel(l);
  };
  constexpr double kW = 540, kLabel = 190, kBarW = 290, kRowH = 30;
  std::vector<std::pair<double, Loss>> losses;
  for (std::size_t i = 0; i < verdict::kLossCount; ++i) {
    auto l = static_cast<Loss>(i);
    if (f.loss(l) >= 0.0005) losses.emplace_back(f.loss(l), l);
  }
  std::stable_sort(losses.begin(), losses.end(), [](auto& a, auto& b) { return a.first > b.first; });
  const double h = kRowH * static_cast<double>(losses.size() + 2) + 28;
  auto x = [&](double frac) { return kLabel + std::clamp(frac, 0.0, 1.0) * kBarW; };
  std::string out = fmt::format(
      "<svg id=\"waterfall\" viewBox=\"0 0 {} {:.0f}\" width=\"{}\" height=\"{:.0f}\" role=\"img\" "
      "aria-label=\"capacity waterfall: from 100% of peak down to achieved\">",
      kW, h, kW, h);
  for (int p = 0; p <= 100; p += 25) {  // gridlines every 25%
    double gx = x(p / 100.0);
    out += fmt::format("<line class=\"gridline\" x1=\"{:.1f}\" y1=\"4\" x2=\"{:.1f}\" y2=\"{:.0f}\"/>", gx,
                       gx, h - 22);
    out += Text(gx, h - 6, fmt::format("{}%", p), "middle", "muted");
  }
  double y = 8, remaining = 1.0;
  auto row = [&](std::string_view label, double from, double to, std::string_view color,
                 std::string_view value, std::string_view tip) {
    out += Text(kLabel - 10, y + 19, label, "end");
    out += fmt::format(
        "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{}\" rx=\"3\" fill=\"{}\">"
        "<title>{}</title></rect>",
        x(from), y + 4, std::max(1.0, x(to) - x(from)), kRowH - 8, color, HtmlEscape(tip));
    out += Text(x(to) + 8, y + 19, value);
    y += kRowH;
  };
  row("capacity (peak × time)", 0, 1, "var(--line)", "100%", "what the hardware could have computed");
  for (auto [frac, l] : losses) {
    out += fmt::format("<line class=\"ridge\" x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\"/>",
                       x(remaining), y - 4, x(remaining), y + 4);
    row(fmt::format("− {}", label(l)), remaining - frac, remaining, LossColorVar(verdict::LossKey(l)),
        fmt::format("−{}", Percent(frac)),
        static_cast<std::size_t>(l) < short_fixes.size() ? short_fixes[static_cast<std::size_t>(l)]
                                                         : label(l));
    remaining -= frac;
  }
  row("= achieved", 0, f.achieved(), "var(--achieved)", Percent(f.achieved()), "useful FLOPs at peak speed");
  out += "</svg>";
  return out;
}

std::string DeviceActivityText(const verdict::DeviceActivity& device) {
  constexpr std::pair<verdict::DeviceMetric, std::string_view> kParts[] = {
      {verdict::DeviceMetric::kSmActive, "SM"},
      {verdict::DeviceMetric::kTensorActive, "tensor"},
      {verdict::DeviceMetric::kDramActive, "DRAM"}};
  std::string out;
  for (auto [metric, label] : kParts) {
    double mean = device.Mean(metric);
    if (mean < 0) continue;
    out += fmt::format("{}{} {}", out.empty() ? "" : " · ", label, Percent(mean));
  }
  return out;
}

std::string RooflineSvg(const verdict::DeviceChoice& dev,
                        const std::vector<verdict::KernelAggregate>& kernels, int* skipped) {
  constexpr double kW = 560, kH = 400, kL = 92, kR = 16, kT = 16, kB = 46;
  const double peak = dev.peak_flops_per_s, bw = dev.memory_bandwidth_bytes_per_s;
  const double ridge = bw > 0 ? roofline::RidgePoint(peak, bw) : 1;
  struct Point {
    double ai, perf, time_s;
    const verdict::KernelAggregate* k;
  };
  std::vector<Point> pts;
  *skipped = 0;
  for (const auto& k : kernels) {
    if (k.flops > 0 && k.bytes > 0 && k.time_s > 0) {
      pts.push_back({k.arithmetic_intensity(), k.achieved_flops_per_s(), k.time_s, &k});
    } else if (k.bound != verdict::Bound::kCommunication && k.bound != verdict::Bound::kMemoryCopy) {
      ++*skipped;
    }
  }
  double ai_lo = ridge / 100, ai_hi = ridge * 100, perf_lo = peak / 1e4;
  for (const auto& p : pts)
    ai_lo = std::min(ai_lo, p.ai), ai_hi = std::max(ai_hi, p.ai), perf_lo = std::min(perf_lo, p.perf);
  int x0 = static_cast<int>(std::floor(std::log10(ai_lo))),
      x1 = static_cast<int>(std::ceil(std::log10(ai_hi)));
  int y1 = static_cast<int>(std::ceil(std::log10(std::max(peak, 1.0) * 1.5)));
  int y0 = std::max(static_cast<int>(std::floor(std::log10(std::max(perf_lo, 1.0)))), y1 - 7);
  auto px = [&](double ai) { return kL + (std::log10(ai) - x0) / (x1 - x0) * (kW - kL - kR); };
  auto py = [&](double perf) {
    double v =
        std::clamp(std::log10(std::max(perf, 1e-30)), static_cast<double>(y0), static_cast<double>(y1));
    return kT + (y1 - v) / (y1 - y0) * (kH - kT - kB);
  };
  std::string out = fmt::format(
      "<svg id=\"roofline\" viewBox=\"0 0 {} {}\" width=\"{}\" height=\"{}\" role=\"img\" "
      "aria-label=\"roofline: FLOP/s against arithmetic intensity\">",
      kW, kH, kW, kH);
  for (int k = x0; k <= x1; ++k) {
    double gx = px(std::pow(10.0, k));
    out += fmt::format("<line class=\"gridline\" x1=\"{:.1f}\" y1=\"{}\" x2=\"{:.1f}\" y2=\"{}\"/>", gx, kT,
                       gx, kH - kB);
    out += Text(gx, kH - kB + 16, DecadeLabel(k, ""), "middle", "muted");
  }
  for (int k = y0; k <= y1; ++k) {
    double gy = py(std::pow(10.0, k));
    out += fmt::format("<line class=\"gridline\" x1=\"{}\" y1=\"{:.1f}\" x2=\"{}\" y2=\"{:.1f}\"/>", kL, gy,
                       kW - kR, gy);
    out += Text(kL - 6, gy + 4, DecadeLabel(k, "FLOP/s"), "end", "muted");
  }
  out += Text((kL + kW - kR) / 2, kH - 8, "arithmetic intensity (FLOP per byte moved)", "middle", "muted");
  // The ceilings: bandwidth slope up to the ridge, then the compute roof.
  double slope_start = std::max(std::pow(10.0, x0), std::pow(10.0, y0) / std::max(bw, 1.0));
  const double slope_start_perf = bw > 0 ? roofline::CeilingAt(slope_start, peak, bw) : 0;
  out += fmt::format("<polyline class=\"roof\" points=\"{:.1f},{:.1f} {:.1f},{:.1f} {:.1f},{:.1f}\"/>",
                     px(slope_start), py(slope_start_perf), px(ridge), py(peak), px(std::pow(10.0, x1)),
                     py(peak));
  out += fmt::format("<line class=\"ridge\" x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{}\"/>", px(ridge),
                     py(peak), px(ridge), kH - kB);
  out += Text(px(ridge) + 4, kH - kB - 6, fmt::format("ridge {:.0f} FLOP/B", ridge), "start", "muted");
  out += Text(kW - kR - 4, py(peak) - 7,
              fmt::format("peak {} ({})", SiNumber(peak, "FLOP/s"),
                          dev.peak_dtype.empty() ? "dense" : dev.peak_dtype),
              "end");
  out += Text(px(slope_start) + 6, py(slope_start_perf) - 8, fmt::format("memory {}", SiNumber(bw, "B/s")),
              "start");
  double max_time = 0;
  for (const auto& p : pts) max_time = std::max(max_time, p.time_s);
  std::sort(pts.begin(), pts.end(), [](const Point& a, const Point& b) { return a.time_s > b.time_s; });
  for (auto it = pts.rbegin(); it != pts.rend(); ++it) {  // largest drawn first... then small on top
    const auto& p = *it;
    double r = 3.5 + 15 * std::sqrt(p.time_s / max_time);
    std::string tip = fmt::format("{}\n{} · AI {:.1f} FLOP/B · {} · {} of peak · {} of its roofline",
                                  p.k->name, Seconds(p.time_s), p.ai, SiNumber(p.perf, "FLOP/s"),
                                  Percent(p.k->achieved_fraction()), Percent(p.k->roofline_fraction()));
    if (p.k->device.any()) tip += "\ndevice during its calls: " + DeviceActivityText(p.k->device);
    out += fmt::format(
        "<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"{:.1f}\" fill=\"{}\" fill-opacity=\"0.72\" "
        "stroke=\"var(--card)\" stroke-width=\"1\"><title>{}</title></circle>",
        px(p.ai), py(p.perf), r, LossColorVar(verdict::LossKey(p.k->loss)), HtmlEscape(tip));
  }
  std::vector<double> label_ys;  // the largest points get a name, moved down until none overlap
  for (std::size_t i = 0; i < std::min<std::size_t>(pts.size(), 4); ++i) {
    double r = 3.5 + 15 * std::sqrt(pts[i].time_s / max_time);
    bool left = px(pts[i].ai) > kW * 0.6;
    double y = py(pts[i].perf) + 4;
    while (std::any_of(label_ys.begin(), label_ys.end(), [&](double o) { return std::fabs(o - y) < 14; }))
      y += 14;
    label_ys.push_back(y);
    out += Text(px(pts[i].ai) + (left ? -r - 4 : r + 4), y, ShortName(pts[i].k->name, 34),
                left ? "end" : "start");
  }
  out += "</svg>";
  return out;
}

std::string HeatmapSvg(const std::vector<verdict::RankVerdict>& ranks, std::size_t max_ranks,
                       std::size_t max_steps, bool* clipped) {
  // Shaded from the lowest to the highest cell, so a slow rank or step stands out even when all
  // cells are close; when they are all within a point, from 0 instead.
  std::set<std::int64_t> numbers;
  double top = 0, bottom = 1;
  for (const auto& r : ranks) {
    for (const auto& s : r.steps) {
      numbers.insert(s.number);
      top = std::max(top, s.figures.achieved());
      bottom = std::min(bottom, s.figures.achieved());
    }
  }
  if (top - bottom < 0.01) bottom = 0;
  auto shade = [&](double a) { return top > bottom ? 0.1 + 0.9 * (a - bottom) / (top - bottom) : 0.1; };
  std::vector<std::int64_t> cols(numbers.begin(), numbers.end());
  std::size_t rows = std::min(ranks.size(), max_ranks);
  *clipped = cols.size() > max_steps || ranks.size() > max_ranks;
  if (cols.size() > max_steps) cols.resize(max_steps);
  std::map<std::int64_t, std::size_t> col_of;
  for (std::size_t c = 0; c < cols.size(); ++c) col_of[cols[c]] = c;
  const double label_w = 64, head_h = 22, legend_h = 34;
  const double cell_w = std::clamp(980.0 / std::max<std::size_t>(cols.size(), 1), 4.0, 36.0);
  const double cell_h = rows > 64 ? 6 : rows > 16 ? 12 : 22;
  const double w = label_w + cell_w * static_cast<double>(cols.size()) + 8;
  const double h = head_h + cell_h * static_cast<double>(rows) + legend_h;
  std::string out = fmt::format(
      "<svg id=\"heatmap\" viewBox=\"0 0 {:.0f} {:.0f}\" width=\"{:.0f}\" height=\"{:.0f}\" role=\"img\" "
      "aria-label=\"achieved fraction per rank and step\">",
      std::max(w, 320.0), h, std::max(w, 320.0), h);
  std::size_t every = std::max<std::size_t>(1, static_cast<std::size_t>(std::ceil(28 / cell_w)));
  for (std::size_t c = 0; c < cols.size(); c += every) {
    out += Text(label_w + cell_w * (static_cast<double>(c) + 0.5), head_h - 7, fmt::format("{}", cols[c]),
                "middle", "muted");
  }
  std::size_t label_every = cell_h < 12 ? 8 : 1;
  for (std::size_t r = 0; r < rows; ++r) {
    double y = head_h + cell_h * static_cast<double>(r);
    if (r % label_every == 0)
      out += Text(label_w - 8, y + cell_h * 0.5 + 4, fmt::format("rank {}", ranks[r].rank), "end", "muted");
    for (const auto& s : ranks[r].steps) {
      auto it = col_of.find(s.number);
      if (it == col_of.end()) continue;
      double a = s.figures.achieved();
      double opacity = shade(a);
      out += fmt::format(
          "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"var(--achieved)\" "
          "fill-opacity=\"{:.3f}\"><title>rank {} · step {}: achieved {}, utilization {}, {}</title></rect>",
          label_w + cell_w * static_cast<double>(it->second) + 0.5, y + 0.5, cell_w - 1, cell_h - 1, opacity,
          ranks[r].rank, s.number, Percent(a), Percent(s.figures.utilization()), Seconds(s.figures.wall_s));
    }
  }
  double ly = head_h + cell_h * static_cast<double>(rows) + 12;
  for (int i = 0; i < 10; ++i) {
    out += fmt::format(
        "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"16\" height=\"10\" fill=\"var(--achieved)\" "
        "fill-opacity=\"{:.2f}\"/>",
        label_w + 16.0 * i, ly, 0.1 + 0.9 * i / 9.0);
  }
  out += Text(label_w - 6, ly + 9, Percent(bottom), "end", "muted");
  out += Text(label_w + 166, ly + 9, fmt::format("{} achieved (darker is better)", Percent(top)), "start",
              "muted");
  out += "</svg>";
  return out;
}

}  // namespace plasmient::exporting
