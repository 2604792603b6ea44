#include "export/diff_sink.h"

#include <cmath>

#include <fmt/format.h>

#include "export/html_page.h"
#include "export/json_writer.h"
#include "export/units_text.h"

namespace plasmient::exporting {
namespace {

using verdict::AggregateChange;
using verdict::FigureChange;

void OptionalField(JsonWriter& w, std::string_view key, const std::optional<double>& v) {
  if (v) {
    w.Field(key, *v);
  } else {
    w.Key(key).Null();
  }
}

void WriteChange(JsonWriter& w, const FigureChange& c) {
  w.BeginObject()
      .Field("key", c.key)
      .Field("label", c.label)
      .Field("before", c.before)
      .Field("after", c.after);
  w.Field("delta", c.delta()).EndObject();
}

void WriteAggregates(JsonWriter& w, std::string_view key, const std::vector<AggregateChange>& v) {
  w.Key(key).BeginArray();
  for (const auto& c : v) {
    w.BeginObject().Field("name", c.name).Field("op", c.op).Field("loss", verdict::LossKey(c.loss));
    OptionalField(w, "before_lost_fraction", c.before_lost_fraction);
    OptionalField(w, "after_lost_fraction", c.after_lost_fraction);
    w.Field("delta_lost_fraction", c.delta());
    OptionalField(w, "before_lost_s", c.before_lost_s);
    OptionalField(w, "after_lost_s", c.after_lost_s);
    OptionalField(w, "before_achieved_fraction", c.before_achieved);
    OptionalField(w, "after_achieved_fraction", c.after_achieved);
    w.EndObject();
  }
  w.EndArray();
}

std::string OptPercent(const std::optional<double>& v) { return v ? Percent(*v) : "–"; }
std::string OptSeconds(const std::optional<double>& v) { return v ? Seconds(*v) : "–"; }

// "+" is worse for a loss, better for achieved; the sign of `good` says which.
std::string Arrow(double delta, int good_sign, bool html) {
  if (std::fabs(delta) < 0.0005) return html ? "<span>=</span>" : "=";
  bool better = (delta > 0) == (good_sign > 0);
  if (!html) return better ? "better" : "worse";
  return better ? "<span class=\"down\">better</span>" : "<span class=\"up\">worse</span>";
}

}  // namespace

std::string DiffToJson(const verdict::VerdictDiff& d, const DiffLabels& l) {
  std::string out;
  JsonWriter w(out);
  w.BeginObject().Field("schema", kDiffSchema).Field("before", l.before).Field("after", l.after);
  w.Key("achieved_fraction");
  WriteChange(w, d.achieved);
  w.Key("utilization");
  WriteChange(w, d.utilization);
  w.Key("losses").BeginArray();
  for (const auto& c : d.losses) WriteChange(w, c);
  w.EndArray();
  w.Key("step_time_s").BeginObject();
  OptionalField(w, "before", d.before_step_s);
  OptionalField(w, "after", d.after_step_s);
  w.EndObject();
  w.Key("gpu_seconds")
      .BeginObject()
      .Field("before", d.before_gpu_s)
      .Field("after", d.after_gpu_s)
      .EndObject();
  w.Key("headroom").BeginObject();
  for (auto [key, value] : {std::pair{"before", d.before_headroom}, std::pair{"after", d.after_headroom}}) {
    if (value) {
      w.Field(key, *value);
    } else {
      w.Key(key).Null();
    }
  }
  w.EndObject();
  w.Key("device").BeginObject().Field("before", d.before_device).Field("after", d.after_device).EndObject();
  WriteAggregates(w, "kernels", d.kernels);
  WriteAggregates(w, "ops", d.ops);
  w.EndObject();
  out.push_back('\n');
  return out;
}

std::string RenderDiffTerminal(const verdict::VerdictDiff& d, const DiffLabels& l, bool color) {
  auto bold = [&](const std::string& s) { return color ? "\033[1m" + s + "\033[0m" : s; };
  std::string out = bold(fmt::format("plasmient diff · {} → {}", l.before, l.after)) + "\n\n";
  out += fmt::format(" {:<34} {:>9} {:>9} {:>11}\n", "", "before", "after", "change");
  auto line = [&](const FigureChange& c, int good) {
    out += fmt::format(" {:<34} {:>9} {:>9} {:>11}  {}\n", c.label, Percent(c.before), Percent(c.after),
                       SignedPoints(c.delta()), Arrow(c.delta(), good, false));
  };
  line(d.achieved, +1);
  line(d.utilization, +1);
  out += "\n where the time went (largest change first)\n";
  for (const auto& c : d.losses) {
    if (c.before < 0.0005 && c.after < 0.0005) continue;
    line(c, -1);
  }
  out += fmt::format("\n {:<34} {:>9} {:>9}\n", "mean step time", OptSeconds(d.before_step_s),
                     OptSeconds(d.after_step_s));
  if (d.before_device != d.after_device)
    out += fmt::format(" device: {} → {}\n", d.before_device, d.after_device);
  if (!d.kernels.empty()) {
    out += "\n kernels whose lost time changed most (share of capacity)\n";
    for (std::size_t i = 0; i < std::min<std::size_t>(d.kernels.size(), 10); ++i) {
      const auto& k = d.kernels[i];
      std::string name = PrintableText(k.name);
      if (name.size() > 44) name = name.substr(0, 43) + "…";
      out += fmt::format(" {:<44} {:>7} {:>7} {:>11}\n", name, OptPercent(k.before_lost_fraction),
                         OptPercent(k.after_lost_fraction), SignedPoints(k.delta()));
    }
  }
  return out;
}

std::string RenderDiffHtml(const verdict::VerdictDiff& d, const DiffLabels& l) {
  std::string out = HtmlBegin(fmt::format("plasmient diff · {} → {}", l.before, l.after));
  out += fmt::format(
      "<header class=\"top\"><h1>plasmient diff</h1><span class=\"sub\">{} → {}</span></header>\n",
      HtmlEscape(l.before), HtmlEscape(l.after));
  out += "<section id=\"verdict\"><h2>Verdict</h2><div class=\"kpis\">";
  out += fmt::format(
      "<div class=\"kpi good\"><div class=\"v\">{} → {}</div><div class=\"l\">achieved fraction of peak "
      "({})</div></div>",
      Percent(d.achieved.before), Percent(d.achieved.after), SignedPoints(d.achieved.delta()));
  out += fmt::format(
      "<div class=\"kpi small\"><div class=\"v\">{} → {}</div><div class=\"l\">utilization</div></div>",
      Percent(d.utilization.before), Percent(d.utilization.after));
  out += fmt::format(
      "<div class=\"kpi small\"><div class=\"v\">{} → {}</div><div class=\"l\">mean step time</div></div>",
      OptSeconds(d.before_step_s), OptSeconds(d.after_step_s));
  out += "</div></section>\n";
  out +=
      "<section id=\"losses\"><h2>Where the time went <small>largest change "
      "first</small></h2><table><thead><tr>"
      "<th>loss</th><th class=\"n\">before</th><th class=\"n\">after</th><th "
      "class=\"n\">change</th><th></th></tr></thead><tbody>";
  for (const auto& c : d.losses) {
    out += fmt::format(
        "<tr><td><span class=\"chip\" style=\"background:{}\"></span>{}</td><td class=\"n\">{}</td>"
        "<td class=\"n\">{}</td><td class=\"n\">{}</td><td>{}</td></tr>",
        LossColorVar(c.key), HtmlEscape(c.label), Percent(c.before), Percent(c.after),
        SignedPoints(c.delta()), Arrow(c.delta(), -1, true));
  }
  out += "</tbody></table></section>\n";
  auto table = [&](std::string_view id, std::string_view title, const std::vector<AggregateChange>& rows) {
    if (rows.empty()) return;
    out += fmt::format(
        "<section id=\"{}\"><h2>{} <small>lost time as a share of capacity; – = not in that side's top list"
        "</small></h2><table><thead><tr><th>name</th><th class=\"n\">before</th><th class=\"n\">after</th>"
        "<th class=\"n\">change</th></tr></thead><tbody>",
        id, title);
    for (const auto& k : rows) {
      out += fmt::format(
          "<tr><td class=\"name\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td "
          "class=\"n\">{}</td></tr>",
          HtmlEscape(k.name), OptPercent(k.before_lost_fraction), OptPercent(k.after_lost_fraction),
          SignedPoints(k.delta()));
    }
    out += "</tbody></table></section>\n";
  };
  table("kernels", "Kernels whose lost time changed most", d.kernels);
  table("ops", "Ops whose lost time changed most", d.ops);
  out += "<footer>Generated by plasmient diff.</footer>\n";
  return out + HtmlEnd();
}

}  // namespace plasmient::exporting
