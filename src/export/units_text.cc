#include "export/units_text.h"

#include <cmath>

#include <fmt/format.h>

namespace plasmient::exporting {

std::string Percent(double f) {
  if (!std::isfinite(f)) return "n/a";
  double p = f * 100;
  if (p > 0 && p < 1) return fmt::format("{:.1f}%", p);
  return fmt::format("{:.0f}%", p);
}

std::string Seconds(double s) {
  if (s >= 100) return fmt::format("{:.0f} s", s);
  if (s >= 1) return fmt::format("{:.2f} s", s);
  if (s >= 1e-3) return fmt::format("{:.1f} ms", s * 1e3);
  return fmt::format("{:.0f} µs", s * 1e6);
}

std::string SiNumber(double v, std::string_view unit) {
  static constexpr std::pair<double, const char*> kPrefixes[] = {{1e18, "E"}, {1e15, "P"}, {1e12, "T"},
                                                                 {1e9, "G"},  {1e6, "M"},  {1e3, "k"}};
  if (!std::isfinite(v)) return "n/a";
  for (auto [scale, prefix] : kPrefixes) {
    if (std::fabs(v) >= scale) {
      double x = v / scale;
      return fmt::format("{:.{}f} {}{}", x, x >= 100 ? 0 : x >= 10 ? 1 : 2, prefix, unit);
    }
  }
  return fmt::format("{:.3g} {}", v, unit);
}

std::string SignedPoints(double d) {
  double p = d * 100;
  if (std::fabs(p) < 0.05) return "±0.0 pts";
  return fmt::format("{}{:.1f} pts", p > 0 ? "+" : "−", std::fabs(p));
}

std::string Headroom(std::optional<double> times) {
  if (!times) return "n/a";
  // Beyond 100x the digits say nothing more: the work is all but unmodeled or absent.
  if (*times > 100) return "> 100×";
  return fmt::format("{:.1f}×", *times);
}

std::string PrintableText(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 || c == 0x7F) continue;
    // C1 controls, U+0080..U+009F, are C2 80..C2 9F in UTF-8 (0x9B alone is CSI on some terminals).
    if (c == 0xC2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) <= 0x9F &&
        static_cast<unsigned char>(text[i + 1]) >= 0x80) {
      ++i;
      continue;
    }
    out.push_back(text[i]);
  }
  return out;
}

std::string FixLayerText(const verdict::FixLayer& l, verdict::Loss loss) {
  return fmt::format("{} × {}: {} of GPU time at {} of peak; {}: {} of its time, {} of this loss",
                     l.instances, l.type, Percent(l.share_of_gpu_time), Percent(l.achieved_fraction),
                     verdict::LossLabel(loss), Percent(l.loss_fraction), Percent(l.share_of_loss));
}

}  // namespace plasmient::exporting
