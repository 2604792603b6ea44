#include "export/html_whatif.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>

#include <fmt/format.h>

#include "export/html_page.h"
#include "export/json_writer.h"
#include "export/units_text.h"

namespace plasmient::exporting {
namespace {

using verdict::Loss;

// A trust-range warning (the projection left the range its model holds in) is shown as such.

std::string ToggleText(const whatif::SliderToggle& t) {
  if (t.key == "overlap-comm") return "overlap communication with backward";
  if (t.key == "microbatches") return fmt::format("{} pipeline microbatches", t.microbatches);
  return "CUDA graphs";
}

std::string Times(std::optional<double> v) { return v ? fmt::format("{:.2f}×", *v) : "n/a"; }

// What one setting shows, formatted here so that the page's text is the report's own: the achieved
// fraction to 0.01%, each loss to 0.1% (and its bar's width), dollars as Money.
struct PointText {
  std::string achieved, gain, headroom, bill_hour, bill_year;
  std::array<std::string, verdict::kLossCount> loss;
  std::array<double, verdict::kLossCount> bar_pct{};
};

PointText TextOf(const whatif::Projection& p, const whatif::BillInputs& in) {
  const verdict::Figures& f = p.projected.figures;
  const whatif::SideBill b = whatif::ProjectedBill(p, in);
  PointText t{.achieved = fmt::format("{:.2f}%", 100 * f.achieved()),
              .gain = Times(p.throughput_gain),
              .headroom = p.judgeable ? Times(p.projected.headroom) : "unknown",
              .bill_hour = p.judgeable ? Money(b.wasted_per_gpu_hour) : "unknown",
              .bill_year = p.judgeable ? Money(b.wasted_per_year) : "unknown"};
  // A lower bound, or against an assumed device's peak (docs/verdict.md, "Judgeable").
  if (p.achieved_is == "lower_bound") t.achieved = "≥ " + t.achieved;
  if (p.achieved_is == "assumed_device") t.achieved = "~ " + t.achieved;
  for (std::size_t l = 0; l < verdict::kLossCount; ++l) {
    const double v = f.loss(static_cast<Loss>(l));
    t.loss[l] = fmt::format("{:.1f}%", 100 * v);
    t.bar_pct[l] = std::clamp(100 * v, 0.0, 100.0);
  }
  return t;
}

// The settings as data: {"scales":[…],"toggles":[keys],"losses":[keys],"warnings":[texts],
// "trust":[0|1],"points":[[[achieved, gain, headroom, $/GPU-hour, $/year], [loss texts],
// [bar widths], [warning indices]], …]}.
std::string PanelData(const whatif::Slider& s, const whatif::BillInputs& bill) {
  std::vector<std::string> warnings;
  std::string out;
  JsonWriter w(out, /*pretty=*/false);
  w.BeginObject().Key("scales").BeginArray();
  for (double k : s.batch_scales) w.Number(k);
  w.EndArray().Key("toggles").BeginArray();
  for (const whatif::SliderToggle& t : s.toggles) w.String(t.key);
  w.EndArray().Key("losses").BeginArray();
  for (std::size_t l = 0; l < verdict::kLossCount; ++l) w.String(verdict::LossKey(static_cast<Loss>(l)));
  w.EndArray().Key("points").BeginArray();
  for (const whatif::Projection& p : s.points) {
    const PointText t = TextOf(p, bill);
    w.BeginArray().BeginArray();
    for (const std::string* v : {&t.achieved, &t.gain, &t.headroom, &t.bill_hour, &t.bill_year}) w.String(*v);
    w.EndArray().BeginArray();
    for (const std::string& v : t.loss) w.String(v);
    w.EndArray().BeginArray();
    for (double v : t.bar_pct) w.Number(std::round(v * 100) / 100);
    w.EndArray().BeginArray();
    for (const std::string& text : p.warnings) {
      auto it = std::find(warnings.begin(), warnings.end(), text);
      if (it == warnings.end()) it = warnings.insert(warnings.end(), text);
      w.Int(it - warnings.begin());
    }
    w.EndArray().EndArray();
  }
  w.EndArray().Key("warnings").BeginArray();
  for (const std::string& text : warnings) w.String(text);
  w.EndArray().Key("trust").BeginArray();
  for (const std::string& text : warnings) w.Int(text.starts_with(whatif::kOutOfRangeWarning) ? 1 : 0);
  w.EndArray().EndObject();
  // Inside <script>, "</" would close it: "<\/" reads the same in a JavaScript string.
  std::string safe;
  safe.reserve(out.size());
  for (std::size_t i = 0; i < out.size(); ++i) {
    safe += out[i];
    if (out[i] == '<' && i + 1 < out.size() && out[i + 1] == '/') safe += '\\';
  }
  return safe;
}

// The controls pick a point, at batch position · 2^toggles + the toggles' bit mask (as
// whatif::Slider::At), and place its texts. It computes nothing.
constexpr std::string_view kScript = R"js(
  function $(id) { return document.getElementById(id); }
  function show() {
    var b = +$("whatif-batch").value, mask = 0;
    D.toggles.forEach(function (key, i) { if ($("whatif-" + key).checked) mask |= 1 << i; });
    var p = D.points[(b << D.toggles.length) + mask];
    $("whatif-scale").textContent = D.scales[b] + "\u00d7";
    ["achieved", "gain", "headroom", "bill-hour", "bill-year"].forEach(function (id, i) {
      $("whatif-" + id).textContent = p[0][i];
    });
    D.losses.forEach(function (key, i) {
      $("whatif-loss-" + key).textContent = p[1][i];
      $("whatif-bar-" + key).style.width = p[2][i] + "%";
    });
    var ul = $("whatif-warnings");
    ul.textContent = "";
    p[3].forEach(function (w) {
      var li = document.createElement("li");
      li.textContent = D.warnings[w];
      if (D.trust[w]) li.className = "up";
      ul.appendChild(li);
    });
  }
  // #batch=32&overlap-comm=1: the setting to open at (the slider position nearest the batch); other
  // panels' keys in the URL are theirs.
  location.hash.replace(/^#/, "").split("&").forEach(function (kv) {
    var pair = kv.split("="), key = pair[0], v = parseFloat(pair[1]);
    if (key === "batch" && v > 0) {
      var best = 0;
      D.scales.forEach(function (k, i) {
        if (Math.abs(Math.log(k / v)) < Math.abs(Math.log(D.scales[best] / v))) best = i;
      });
      $("whatif-batch").value = best;
    } else if (D.toggles.indexOf(key) >= 0) {
      $("whatif-" + key).checked = pair[1] !== "0";
    }
  });
  $("whatif-batch").addEventListener("input", show);
  D.toggles.forEach(function (key) { $("whatif-" + key).addEventListener("change", show); });
  show();
})();
)js";

}  // namespace

std::string WhatIfPanel(const whatif::Slider& s, const whatif::BillInputs& bill) {
  if (s.points.empty()) return "";
  // Without the script the panel shows the trace as it ran: the first point (1×, no toggle).
  const whatif::Projection& now = s.points.front();
  const PointText t = TextOf(now, bill);
  std::string out =
      "<section id=\"whatif\"><h2>What if <small>the verdict and the bill under a change, as "
      "<code>plasmient whatif</code> projects them (docs/what-if.md)</small></h2>\n";
  out += fmt::format(
      "<p><label>batch <input type=\"range\" id=\"whatif-batch\" min=\"0\" max=\"{}\" step=\"1\" value=\"0\" "
      "style=\"vertical-align:middle;width:220px\"> <b id=\"whatif-scale\">1×</b></label>",
      s.batch_scales.size() - 1);
  for (const whatif::SliderToggle& toggle : s.toggles) {
    out += fmt::format(" &nbsp; <label><input type=\"checkbox\" id=\"whatif-{}\"> {}</label>",
                       HtmlEscape(toggle.key), HtmlEscape(ToggleText(toggle)));
  }
  out += "</p>\n<div class=\"kpis\">";
  out += fmt::format(
      "<div class=\"kpi good\"><div class=\"v\" id=\"whatif-achieved\">{}</div><div class=\"l\">achieved "
      "fraction "
      "of peak</div></div>",
      t.achieved);
  out += fmt::format(
      "<div class=\"kpi small\"><div class=\"v\" id=\"whatif-gain\">{}</div><div class=\"l\">work per "
      "GPU-second</div></div>",
      t.gain);
  out += fmt::format(
      "<div class=\"kpi small\"><div class=\"v\" id=\"whatif-headroom\">{}</div><div class=\"l\">headroom on "
      "the "
      "same hardware</div></div></div>\n",
      t.headroom);
  out += "<table id=\"whatif-losses\" style=\"margin-top:12px\">";
  for (std::size_t l = 0; l < verdict::kLossCount; ++l) {
    const std::string key(verdict::LossKey(static_cast<Loss>(l)));
    out += fmt::format(
        "<tr><td style=\"width:34%\">{}</td><td><div id=\"whatif-bar-{}\" style=\"background:{};height:10px;"
        "width:{:.2f}%\"></div></td><td class=\"n\" id=\"whatif-loss-{}\" style=\"width:12%\">{}</td></tr>",
        HtmlEscape(verdict::LossLabel(static_cast<Loss>(l))), key, LossColorVar(key), t.bar_pct[l], key,
        t.loss[l]);
  }
  out += "</table>\n<div class=\"bill\">";
  out += fmt::format(
      "<div><b id=\"whatif-bill-hour\">{}</b><span>of each {} GPU-hour buys no useful work</span></div>",
      t.bill_hour, Money(bill.price_per_gpu_hour));
  out += fmt::format(
      "<div><b id=\"whatif-bill-year\">{}</b><span>wasted per year, {} GPU{}</span></div></div>\n",
      t.bill_year, bill.gpus, bill.gpus == 1 ? "" : "s");
  out += "<ul id=\"whatif-warnings\" class=\"note\"></ul>\n";
  out += "<script>\n(function () {\n  var D = " + PanelData(s, bill) + ";" + std::string(kScript) +
         "</script>\n</section>\n";
  return out;
}

}  // namespace plasmient::exporting
