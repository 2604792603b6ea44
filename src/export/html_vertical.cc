#include "export/html_vertical.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>

#include "cluster/arrivals.h"
#include "export/html_page.h"
#include "export/json_writer.h"
#include "export/units_text.h"
#include "verdict/column.h"
#include "verdict/facts.h"
#include "verdict/timeline.h"

namespace plasmient::exporting {
namespace {

using verdict::RankDetail;

constexpr double kWidthPx = 1120;  // the section's inner width at the page's widest
constexpr double kLabelPx = 150;
constexpr double kPlotPx = kWidthPx - kLabelPx - 8;
constexpr double kRowPx = 15;
constexpr double kLaneGapPx = 5;
constexpr double kDevicePx = 26;  // a device row: bar height ∝ the bucket's share
constexpr double kAxisPx = 18;
constexpr int kMaxLayerRows = 3;             // module nesting drawn; deeper ranges are counted only
constexpr std::size_t kMaxOpThreads = 2;     // op lanes: the threads with the most ops in view
constexpr std::size_t kMaxStreamLanes = 16;  // kernel lanes: the streams with the most GPU time

// Only here; the lanes' own rules, so the shared stylesheet stays as it is.
constexpr std::string_view kStyle = R"css(<style>
#lanes .vt svg { display: block; max-width: 100%; height: auto; touch-action: none; cursor: crosshair; }
#lanes .vt text { font-size: 11px; fill: var(--muted); }
#lanes .vt text.bar { fill: #fff; pointer-events: none; }
#lanes .vt .cursor { stroke: var(--fg); stroke-width: 1; }
#lanes .vt-sentence { font-size: 15px; font-weight: 600; min-height: 2.9em; margin: 8px 0 4px; }
</style>)css";

// Reads each view's embedded clauses and writes the sentence of the instant under the pointer
// (or of `#at=<ns>` in the URL, counted from the rank's window start, as `explain --at <ns>ns`).
// Milliseconds as explain_sink.cc's MsText writes them: from whole microseconds, half away from 0.
constexpr std::string_view kScript = R"js(<script>
(function () {
  function ms(ns) {
    var us = Math.round(Math.abs(ns) / 1000);
    return (ns < 0 && us > 0 ? '-' : '') + Math.floor(us / 1000) + '.' + String(us % 1000).padStart(3, '0') + ' ms';
  }
  function piece(p, t) { return p === null ? ms(t) : typeof p === 'number' ? ms(p - t) : p; }
  var hash = /(?:^|[#&])at=(\d+)/.exec(location.hash);
  document.querySelectorAll('#lanes .vt').forEach(function (v) {
    var d = JSON.parse(v.querySelector('.vt-data').textContent);
    var svg = v.querySelector('svg'), cur = v.querySelector('.cursor'), out = v.querySelector('.vt-sentence');
    var a = d.s[0][0], b = d.e, x0 = +svg.getAttribute('data-x0'), w = +svg.getAttribute('data-w');
    var vb = svg.viewBox.baseVal;
    function at(t) {
      var lo = 0, hi = d.s.length - 1;
      while (lo < hi) { var mid = (lo + hi + 1) >> 1; if (d.s[mid][0] <= t) lo = mid; else hi = mid - 1; }
      var s = d.s[lo], parts = [];
      for (var i = 1; i < s.length; i++) {
        if (s[i] >= 0) parts.push(d.c[s[i]].map(function (p) { return piece(p, t); }).join(''));
      }
      out.textContent = parts.join(', ') + '.';
      out.setAttribute('data-at-ns', t);
      var x = x0 + (t - a) / (b - a) * w;
      cur.setAttribute('x1', x); cur.setAttribute('x2', x);
    }
    svg.addEventListener('pointermove', function (e) {
      var r = svg.getBoundingClientRect();
      var x = (e.clientX - r.left) * vb.width / r.width;
      if (x < x0 || x > x0 + w) return;
      at(Math.min(b - 1, Math.max(a, Math.round(a + (x - x0) / w * (b - a)))));
    });
    var t = hash ? +hash[1] : a;
    at(t >= a && t < b ? t : a);
  });
})();
</script>)js";

std::string Px(double v) { return fmt::format("{:.1f}", v); }
std::string MsOf(TimeNs ns) { return fmt::format("{:.3f} ms", static_cast<double>(ns) / 1e6); }

// A kernel's colour: red at 0% of its roofline ceiling to green at 100%; grey when unmodeled.
std::string Shade(double shade) {
  if (shade < 0) return "var(--unmodeled_kernels)";
  return fmt::format("hsl({:.0f},62%,44%)", 120 * std::clamp(shade, 0.0, 1.0));
}

void CapBars(VerticalLane& lane) {
  lane.total = lane.bars.size();
  if (lane.bars.size() > kVerticalMaxBars) {
    std::stable_sort(lane.bars.begin(), lane.bars.end(), [](const VerticalBar& x, const VerticalBar& y) {
      return x.end_ns - x.start_ns > y.end_ns - y.start_ns;
    });
    lane.bars.resize(kVerticalMaxBars);
  }
  std::stable_sort(lane.bars.begin(), lane.bars.end(),
                   [](const VerticalBar& x, const VerticalBar& y) { return x.start_ns < y.start_ns; });
}

bool Overlaps(TimeNs s, TimeNs e, TimeNs a, TimeNs b) { return s < b && e > a && e > s; }

// Model-layer ranges (modules and annotations) in view, one row per nesting depth on their thread.
VerticalLane LayerLane(const model::Trace& tr, TimeNs a, TimeNs b) {
  VerticalLane lane{.name = "model layer"};
  std::vector<std::size_t> rows;
  for (std::size_t i = 0; i < tr.cpu.size(); ++i) {
    auto k = tr.cpu.kind[i];
    if ((k == model::CpuOpKind::kModule || k == model::CpuOpKind::kAnnotation) &&
        Overlaps(tr.cpu.start_ns[i], tr.cpu.end_ns[i], a, b))
      rows.push_back(i);
  }
  std::stable_sort(rows.begin(), rows.end(), [&](auto x, auto y) {
    return tr.cpu.start_ns[x] != tr.cpu.start_ns[y] ? tr.cpu.start_ns[x] < tr.cpu.start_ns[y]
                                                    : tr.cpu.end_ns[x] > tr.cpu.end_ns[y];
  });
  std::map<std::int64_t, std::vector<TimeNs>> open;  // per thread, the ends of the enclosing ranges
  for (std::size_t i : rows) {
    auto& stack = open[tr.cpu.tid[i]];
    while (!stack.empty() && stack.back() <= tr.cpu.start_ns[i]) stack.pop_back();
    int depth = static_cast<int>(stack.size());
    stack.push_back(tr.cpu.end_ns[i]);
    if (depth >= kMaxLayerRows) continue;
    std::string name = PrintableText(tr.Str(tr.cpu.name[i]));
    lane.bars.push_back({tr.cpu.start_ns[i], tr.cpu.end_ns[i], name, name, -1, depth});
    lane.rows = std::max(lane.rows, depth + 1);
  }
  CapBars(lane);
  return lane;
}

// The outermost ops in view, one lane per thread (those with the most ops).
std::vector<VerticalLane> OpLanes(const model::Trace& tr, TimeNs a, TimeNs b) {
  std::map<std::int64_t, std::vector<std::size_t>> by_tid;
  for (std::size_t i = 0; i < tr.cpu.size(); ++i) {
    if (tr.cpu.kind[i] == model::CpuOpKind::kOp) by_tid[tr.cpu.tid[i]].push_back(i);
  }
  std::vector<VerticalLane> lanes;
  for (auto& [tid, rows] : by_tid) {
    std::stable_sort(rows.begin(), rows.end(), [&](auto x, auto y) {
      return tr.cpu.start_ns[x] != tr.cpu.start_ns[y] ? tr.cpu.start_ns[x] < tr.cpu.start_ns[y]
                                                      : tr.cpu.end_ns[x] > tr.cpu.end_ns[y];
    });
    VerticalLane lane{.name = fmt::format("ops · thread {}", tid)};
    TimeNs outer_end = kNoTime;
    for (std::size_t i : rows) {
      if (outer_end != kNoTime && tr.cpu.start_ns[i] < outer_end) continue;  // inside an outer op
      outer_end = tr.cpu.end_ns[i];
      if (!Overlaps(tr.cpu.start_ns[i], tr.cpu.end_ns[i], a, b)) continue;
      std::string name = PrintableText(tr.Str(tr.cpu.name[i]));
      lane.bars.push_back({tr.cpu.start_ns[i], tr.cpu.end_ns[i], name, name, -1, 0});
    }
    if (!lane.bars.empty()) lanes.push_back(std::move(lane));
  }
  std::stable_sort(lanes.begin(), lanes.end(),
                   [](const auto& x, const auto& y) { return x.bars.size() > y.bars.size(); });
  if (lanes.size() > kMaxOpThreads) lanes.resize(kMaxOpThreads);
  for (auto& l : lanes) CapBars(l);
  return lanes;
}

// The kept GPU activities in view, one lane per stream, shaded by their share of the roofline ceiling.
std::vector<VerticalLane> KernelLanes(const RankDetail& d, TimeNs a, TimeNs b) {
  const auto& g = d.trace.gpu;
  const auto& f = d.facts;
  std::map<std::pair<std::int32_t, std::int32_t>, VerticalLane> by_stream;
  std::map<std::pair<std::int32_t, std::int32_t>, TimeNs> busy;
  for (std::size_t i = 0; i < g.size(); ++i) {
    if (!f.kept[i] || !Overlaps(g.start_ns[i], g.end_ns[i], a, b)) continue;
    auto key = std::make_pair(g.device[i], g.stream[i]);
    auto& lane = by_stream[key];
    lane.name = fmt::format("stream {}", g.stream[i]);
    bool modeled = f.flops[i] > 0 || f.bytes[i] > 0;
    std::string name(d.trace.Str(g.name[i]));
    std::string tip =
        fmt::format("{} · {} · {} · {}", KernelBaseName(name), join::ClassName(f.cls[i]),
                    modeled ? fmt::format("{} of its roofline ceiling, {} of peak",
                                          Percent(f.roofline_fraction[i]), Percent(f.achieved_fraction[i]))
                            : std::string("unmodeled"),
                    verdict::LossLabel(f.loss[i]));
    if (f.op[i].has_value()) tip += " · op " + PrintableText(d.trace.Str(d.trace.cpu.name[f.op[i].index()]));
    lane.bars.push_back(
        {g.start_ns[i], g.end_ns[i], KernelBaseName(name), tip, modeled ? f.roofline_fraction[i] : -1, 0});
    busy[key] += std::min(g.end_ns[i], b) - std::max(g.start_ns[i], a);
  }
  std::vector<std::pair<std::pair<std::int32_t, std::int32_t>, TimeNs>> order(busy.begin(), busy.end());
  std::stable_sort(order.begin(), order.end(), [](auto& x, auto& y) { return x.second > y.second; });
  if (order.size() > kMaxStreamLanes) order.resize(kMaxStreamLanes);
  std::sort(order.begin(), order.end());  // by device, then stream
  std::vector<VerticalLane> lanes;
  for (auto& [key, _] : order) {
    lanes.push_back(std::move(by_stream[key]));
    CapBars(lanes.back());
  }
  return lanes;
}

// Every instant in (a, b) where a clause of the sentence may change: activity and host-range
// edges, device buckets.
std::vector<TimeNs> Edges(const RankDetail& d, const verdict::ColumnReader& reader, TimeNs a, TimeNs b) {
  std::vector<TimeNs> edges{a};
  auto add = [&](TimeNs t) {
    if (t > a && t < b) edges.push_back(t);
  };
  const auto& tr = d.trace;
  for (std::size_t i = 0; i < tr.gpu.size(); ++i) {
    if (!d.facts.kept[i]) continue;
    add(tr.gpu.start_ns[i]);
    add(tr.gpu.end_ns[i]);
  }
  for (std::size_t i = 0; i < tr.cpu.size(); ++i) add(tr.cpu.start_ns[i]), add(tr.cpu.end_ns[i]);
  for (std::size_t i = 0; i < tr.api.size(); ++i) add(tr.api.start_ns[i]), add(tr.api.end_ns[i]);
  for (const auto& bk : reader.buckets()) add(bk.start_ns), add(bk.end_ns);
  for (const auto& s : d.verdict.steps) add(s.figures.start_ns), add(s.figures.end_ns);
  std::sort(edges.begin(), edges.end());
  edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
  return edges;
}

VerticalView ReadView(const RankDetail& d, const verdict::ColumnReader& reader, TimeNs a, TimeNs b) {
  VerticalView v;
  v.start_ns = a;
  v.end_ns = b;
  v.step_end_ns = b;
  // One Read per edge; a stretch whose clauses equal the previous one's extends it. The view
  // stops where the cap on stretches is reached.
  for (TimeNs t : Edges(d, reader, a, b)) {
    auto clauses = SentenceClauses(reader.Read(t));
    if (!v.segments.empty() && v.segments.back().clauses == clauses) continue;
    if (v.segments.size() == kVerticalMaxSegments) {
      v.end_ns = t;
      break;
    }
    v.segments.push_back({t, std::move(clauses)});
  }
  v.lanes.push_back(LayerLane(d.trace, v.start_ns, v.end_ns));
  for (auto& l : OpLanes(d.trace, v.start_ns, v.end_ns)) v.lanes.push_back(std::move(l));
  for (auto& l : KernelLanes(d, v.start_ns, v.end_ns)) v.lanes.push_back(std::move(l));
  for (const auto& bk : reader.buckets()) {
    if (Overlaps(bk.start_ns, bk.end_ns, v.start_ns, v.end_ns)) v.buckets.push_back(bk);
  }
  return v;
}

// ---- the section ----

struct Row {
  std::string name;
  std::vector<VerticalBar> bars;
  std::string fill;  // "" → each bar's shade
  int rows = 1;
  std::string note;  // "400 of 2,345 drawn"
};

std::string BarsSvg(const Row& row, double y, TimeNs a, TimeNs b) {
  std::string out;
  const double span = static_cast<double>(b - a);
  for (const auto& bar : row.bars) {
    double x0 = kLabelPx + static_cast<double>(std::max(bar.start_ns, a) - a) / span * kPlotPx;
    double x1 = kLabelPx + static_cast<double>(std::min(bar.end_ns, b) - a) / span * kPlotPx;
    double w = std::max(0.6, x1 - x0);
    double top = y + bar.row * kRowPx;
    out += fmt::format(
        "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"><title>{} · {} to {}</title></rect>",
        Px(x0), top + 1, Px(w), kRowPx - 2, row.fill.empty() ? Shade(bar.shade) : row.fill,
        HtmlEscape(bar.tip), MsOf(bar.start_ns - a), MsOf(bar.end_ns - a));
    if (std::size_t fit = static_cast<std::size_t>(w / 6.5); fit >= 4 && !bar.label.empty()) {
      std::string label = bar.label.size() > fit ? bar.label.substr(0, fit - 1) + "…" : bar.label;
      out += fmt::format("<text class=\"bar\" x=\"{}\" y=\"{}\">{}</text>", Px(x0 + 3), Px(top + kRowPx - 4),
                         HtmlEscape(label));
    }
  }
  return out;
}

// The cluster lanes of the view: the rank's collectives and, when matched, the wait for the last rank.
std::vector<Row> ClusterRows(const std::vector<cluster::CollectiveArrivals>& arrivals, std::int64_t rank,
                             TimeNs a, TimeNs b) {
  Row mine{.name = fmt::format("cluster · rank {}", rank), .fill = "var(--exposed_communication)"};
  Row awaited{.name = "awaited rank", .fill = "var(--pipeline_bubble)"};
  for (const auto& c : arrivals) {
    if (!Overlaps(c.start_ns, c.end_ns, a, b)) continue;
    std::string what =
        fmt::format("{}{}", PrintableText(c.kind_text), c.seq >= 0 ? fmt::format(" #{}", c.seq) : "");
    std::string tip = fmt::format("{} · group {} · {}", what, c.group.empty() ? "?" : PrintableText(c.group),
                                  c.bytes >= 0 ? fmt::format("{} bytes", c.bytes) : "size unknown");
    if (c.matched) tip += fmt::format(" · rank {} last, {} late", c.last_rank, MsOf(c.late_ns));
    mine.bars.push_back({c.start_ns, c.end_ns, what, tip, -1, 0});
    if (!c.matched || c.last_rank == rank) continue;
    TimeNs last = c.arrivals.back().arrival_ns + c.clock_offset_ns;  // on this rank's clock
    if (last <= c.start_ns) continue;
    awaited.bars.push_back(
        {c.start_ns, std::min(last, c.end_ns), fmt::format("rank {}", c.last_rank),
         fmt::format("{}: rank {} waits for rank {}, {} late", what, rank, c.last_rank, MsOf(c.late_ns)), -1,
         0});
  }
  std::vector<Row> rows;
  for (Row* r : {&mine, &awaited}) {
    VerticalLane capped{.bars = std::move(r->bars)};
    CapBars(capped);
    r->bars = std::move(capped.bars);
    if (capped.total > r->bars.size()) r->note = fmt::format("{} of {}", r->bars.size(), capped.total);
    if (!r->bars.empty()) rows.push_back(std::move(*r));
  }
  return rows;
}

// The view's sentence data: the local stretches cut again where the cluster clause changes
// (a collective's edges, each peer's arrival), each stretch its clause ids.
std::string SentenceData(const VerticalView& v, const std::vector<cluster::CollectiveArrivals>& arrivals,
                         std::int64_t rank, TimeNs origin) {
  std::vector<TimeNs> edges;
  edges.reserve(v.segments.size());
  for (const auto& s : v.segments) edges.push_back(s.start_ns);
  auto add = [&](TimeNs t) {
    if (t > v.start_ns && t < v.end_ns) edges.push_back(t);
  };
  for (const auto& c : arrivals) {
    if (!Overlaps(c.start_ns, c.end_ns, v.start_ns, v.end_ns)) continue;
    add(c.start_ns);
    add(c.end_ns);
    for (const auto& p : c.arrivals) add(p.arrival_ns + c.clock_offset_ns);
  }
  std::sort(edges.begin(), edges.end());
  edges.erase(std::unique(edges.begin(), edges.end()), edges.end());

  // One table of clauses, each once; a stretch names its clauses by index (-1: none).
  std::map<std::string, int> clause_id;
  std::string table;
  auto id_of = [&](const std::string& json) {
    auto [it, fresh] = clause_id.emplace(json, static_cast<int>(clause_id.size()));
    if (fresh) table += (table.empty() ? "" : ",") + json;
    return it->second;
  };
  auto clause_json = [&](const SentenceClause& clause) {
    std::string j;
    JsonWriter w(j, false);
    w.BeginArray();
    for (const auto& p : clause) {
      switch (p.kind) {
        case SentencePiece::Kind::kText:
          w.String(p.text);
          break;
        case SentencePiece::Kind::kOffset:
          w.Null();
          break;
        case SentencePiece::Kind::kUntil:
          w.Int(p.at_ns - origin);
          break;
      }
    }
    w.EndArray();
    return j;
  };
  std::vector<std::vector<int>> stretches;
  std::vector<TimeNs> starts;
  std::size_t seg = 0;
  for (TimeNs t : edges) {
    while (seg + 1 < v.segments.size() && v.segments[seg + 1].start_ns <= t) ++seg;
    std::vector<int> ids;
    for (const auto& clause : v.segments[seg].clauses)
      ids.push_back(clause.empty() ? -1 : id_of(clause_json(clause)));
    std::string cluster = ClusterClause(cluster::CollectiveAt(arrivals, t), rank, t);
    ids.push_back(cluster.empty() ? -1 : id_of(clause_json({{.text = cluster}})));
    if (!stretches.empty() && stretches.back() == ids) continue;
    stretches.push_back(std::move(ids));
    starts.push_back(t - origin);
  }
  std::string out = "{\"c\":[" + table + "],\"s\":[";
  for (std::size_t i = 0; i < stretches.size(); ++i) {
    out += fmt::format("{}[{},{}]", i ? "," : "", starts[i], fmt::join(stretches[i], ","));
  }
  return out + fmt::format("],\"e\":{}}}", v.end_ns - origin);
}

// JSON as the text of an element: only what would start markup is escaped.
std::string TextEscape(std::string_view s) {
  std::string out;
  for (char ch : s) {
    if (ch == '&') {
      out += "&amp;";
    } else if (ch == '<') {
      out += "&lt;";
    } else if (ch == '>') {
      out += "&gt;";
    } else {
      out += ch;
    }
  }
  return out;
}

// A device row as one step-shaped area: each bucket's share of the row's height (utilization,
// or achieved fraction); past kVerticalMaxBars buckets, each step is `group` of them merged
// (verdict::MergeBuckets). The figures of the bucket under the cursor are in its sentence.
std::string DevicePath(const std::vector<verdict::TimelineBucket>& merged, std::size_t group, bool achieved,
                       double top, TimeNs a, TimeNs b) {
  if (merged.empty()) return "";
  const double span = static_cast<double>(b - a), base = top + kDevicePx;
  auto x = [&](TimeNs t) { return kLabelPx + static_cast<double>(std::clamp(t, a, b) - a) / span * kPlotPx; };
  std::string d = fmt::format("M{} {}", Px(x(merged.front().start_ns)), Px(base));
  for (const auto& m : merged) {
    const double share = std::clamp(achieved ? m.achieved : m.utilization, 0.0, 1.0);
    d += fmt::format("V{}H{}", Px(base - share * kDevicePx), Px(x(m.end_ns)));
  }
  const std::string what = achieved ? "achieved fraction of peak" : "utilization";
  return fmt::format(
      "<path d=\"{}V{}Z\" fill=\"{}\"><title>{}; the sentence under the cursor gives its bucket's "
      "figures</title></path>",
      d, Px(base), achieved ? "var(--achieved)" : "var(--muted)",
      group > 1 ? fmt::format("{}, the time-weighted mean of every {} device buckets", what, group)
                : what + " per device bucket");
}

std::string ViewHtml(const VerticalView& v, const VerticalTrace& trace,
                     const std::vector<cluster::CollectiveArrivals>& arrivals, std::size_t index) {
  const TimeNs a = v.start_ns, b = v.end_ns, origin = trace.window_start_ns;
  std::vector<Row> rows = ClusterRows(arrivals, trace.rank, a, b);
  std::size_t drawn = 0, total = 0;
  for (const auto& l : v.lanes) {
    if (l.bars.empty()) continue;
    Row r{.name = l.name,
          .bars = l.bars,
          .fill = l.name.starts_with("stream") ? "" : "var(--accent)",
          .rows = l.rows};
    if (l.name.starts_with("ops")) r.fill = "var(--muted)";
    if (l.total > l.bars.size()) r.note = fmt::format("{} of {}", l.bars.size(), l.total);
    drawn += l.bars.size();
    total += l.total;
    rows.push_back(std::move(r));
  }
  double height = kAxisPx;
  for (const auto& r : rows) height += r.rows * kRowPx + kLaneGapPx;
  const double device_top = height;
  height += 2 * (kDevicePx + kLaneGapPx);

  std::string svg = fmt::format(
      "<svg id=\"lanes-{}\" viewBox=\"0 0 {} {}\" width=\"{}\" height=\"{}\" data-x0=\"{}\" data-w=\"{}\" "
      "data-rank=\"{}\" data-start-ns=\"{}\" data-end-ns=\"{}\" role=\"img\">",
      index, kWidthPx, Px(height), kWidthPx, Px(height), kLabelPx, kPlotPx, trace.rank, a - origin,
      b - origin);
  // The axis: ticks in ms from the view's start.
  for (int i = 0; i <= 4; ++i) {
    double x = kLabelPx + kPlotPx * i / 4;
    svg += fmt::format("<text x=\"{}\" y=\"12\" text-anchor=\"{}\">+{}</text>", Px(x),
                       i == 0   ? "start"
                       : i == 4 ? "end"
                                : "middle",
                       MsOf((b - a) * i / 4));
  }
  double y = kAxisPx;
  for (const auto& r : rows) {
    svg += fmt::format("<text x=\"0\" y=\"{}\">{}{}</text>", Px(y + kRowPx - 4), HtmlEscape(r.name),
                       r.note.empty() ? "" : " (" + r.note + ")");
    svg += BarsSvg(r, y, a, b);
    y += r.rows * kRowPx + kLaneGapPx;
  }
  const std::size_t group =
      (v.buckets.size() + kVerticalMaxBars - 1) / std::max<std::size_t>(kVerticalMaxBars, 1);
  const std::vector<verdict::TimelineBucket> merged = verdict::MergeBuckets(v.buckets, group);
  for (int k = 0; k < 2; ++k) {
    double top = device_top + k * (kDevicePx + kLaneGapPx);
    svg += fmt::format("<text x=\"0\" y=\"{}\">{}</text>", Px(top + kDevicePx - 8),
                       k == 0 ? "device · utilization" : "device · achieved");
    svg += DevicePath(merged, group, k == 1, top, a, b);
  }
  svg += fmt::format("<line class=\"cursor\" x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" y2=\"{2}\"/></svg>",
                     Px(kLabelPx), Px(kAxisPx - 4), Px(height));

  std::string out = fmt::format("<div class=\"vt\"><div class=\"vt-data\" hidden>{}</div>",
                                TextEscape(SentenceData(v, arrivals, trace.rank, origin)));
  out += fmt::format("<h3>{} <small class=\"note\">{}</small></h3>", HtmlEscape(v.title), HtmlEscape(v.why));
  out += svg;
  out += "<p class=\"vt-sentence\"></p>";
  std::string cut = v.end_ns < v.step_end_ns
                        ? fmt::format(
                              " The step runs to {}; the view stops at {}, where its {:L} sentence "
                              "stretches reach the cap.",
                              MsOf(v.step_end_ns - origin), MsOf(b - origin), kVerticalMaxSegments)
                        : "";
  const bool ranked = trace.rank >= 0;
  std::string grouped =
      group > 1 ? fmt::format(" The device rows draw {} buckets as means of {}.", v.buckets.size(), group)
                : "";
  out += fmt::format(
      "<p class=\"note\">{}, {} to {} of {} window. {} of {} bars drawn (at most {} per lane, the longest "
      "kept).{}{} Kernels are shaded by their share of their roofline ceiling, red at 0% to green at 100%, "
      "grey "
      "when unmodeled. The same sentence: <code>plasmient explain … --at &lt;ns&gt;ns{}</code>.</p></div>",
      ranked ? fmt::format("Rank {}", trace.rank) : "The trace", MsOf(a - origin), MsOf(b - origin),
      ranked ? "its" : "the", drawn, total, kVerticalMaxBars, cut, grouped,
      ranked ? fmt::format(" --rank {}", trace.rank) : "");
  return out;
}

}  // namespace

VerticalTrace ReadVertical(const RankDetail& d) {
  VerticalTrace out;
  out.rank = d.verdict.rank;
  out.path = d.verdict.path;
  out.window_start_ns = d.verdict.run.start_ns;
  const verdict::ColumnReader reader(d);
  const auto& steps = d.verdict.steps;
  if (steps.empty()) {
    auto v = ReadView(d, reader, d.verdict.run.start_ns, d.verdict.run.end_ns);
    v.title = "the run window";
    v.why = "the trace has no ProfilerStep";
    out.views.push_back(std::move(v));
    return out;
  }
  std::vector<std::size_t> order(steps.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](auto x, auto y) { return steps[x].figures.achieved() < steps[y].figures.achieved(); });
  // The upper median: of two steps, the other one.
  const std::size_t worst = order.front(), median = order[order.size() / 2];
  for (auto [i, title, why] :
       {std::tuple{worst, "worst step", "the lowest achieved fraction of the rank's steps"},
        std::tuple{median, "median step", "the median achieved fraction of the rank's steps"}}) {
    if (title == std::string_view("median step") && i == worst) break;
    const auto& s = steps[i];
    auto v = ReadView(d, reader, s.figures.start_ns, s.figures.end_ns);
    v.step = s.number;
    v.title = fmt::format("{} {}", title, s.number);
    v.why = fmt::format("{}: {} of peak, {} utilized, {}", why, Percent(s.figures.achieved()),
                        Percent(s.figures.utilization()), Seconds(s.figures.wall_s));
    out.views.push_back(std::move(v));
  }
  return out;
}

void VerticalCollector::OnRank(const verdict::RankDetail& d) {
  if (next_ != nullptr) next_->OnRank(d);
  const auto& v = d.verdict;
  if (!v.no_gpu_reason.empty()) return;
  std::shared_ptr<const VerticalTrace> trace;
  auto read = [&] {
    if (!trace) trace = std::make_shared<const VerticalTrace>(ReadVertical(d));
    return trace;
  };
  for (std::size_t l = 0; l < verdict::kLossCount; ++l) {
    if (v.worst_instant_ns[l] == kNoTime || v.run.loss_s[l] <= leads_[l].loss_s) continue;
    leads_[l] = {v.run.loss_s[l], read()};
  }
  if (!lowest_ || v.rank < lowest_->rank) lowest_ = read();
}

std::shared_ptr<const VerticalTrace> VerticalCollector::For(const verdict::JobVerdict& job) const {
  if (!job.fixes.empty()) {
    if (const auto& lead = leads_[static_cast<std::size_t>(job.fixes.front().loss)]; lead.trace)
      return lead.trace;
  }
  return lowest_;
}

std::string VerticalSection(const verdict::JobVerdict& job, const VerticalTrace* trace) {
  if (trace == nullptr || trace->views.empty()) return "";
  const auto arrivals = cluster::RankArrivals(job, trace->rank);
  const auto first_fix = verdict::FirstFixInstant(job);
  std::string out = std::string(kStyle);
  out += fmt::format(
      "<section id=\"lanes\"><h2>One step, top to bottom <small>{}; move the pointer over a step to read its "
      "column</small></h2>",
      job.ranks.size() < 2 ? std::string("the trace's worst and median steps")
      : first_fix && first_fix->rank == trace->rank
          ? fmt::format("rank {}, where the first fix's loss is largest", trace->rank)
          : fmt::format("rank {}", trace->rank));
  for (std::size_t i = 0; i < trace->views.size(); ++i) out += ViewHtml(trace->views[i], *trace, arrivals, i);
  out += std::string(kScript);
  out += "</section>\n";
  return out;
}

}  // namespace plasmient::exporting
