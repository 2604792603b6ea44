#include "export/html_page.h"

namespace plasmient::exporting {
namespace {

constexpr std::string_view kStyle = R"css(
:root {
  color-scheme: light dark;
  --bg: #f7f7f5; --card: #ffffff; --fg: #1d1f23; --muted: #5f6670; --line: #dcdfe4; --grid: #eceef1;
  --accent: #2457c5;
  --achieved: #1f9d55; --compute_inefficiency: #e08a00; --memory_bound: #8a4fd8;
  --unmodeled_kernels: #8c939d; --exposed_communication: #d64545; --pipeline_bubble: #d6589c;
  --host_bound_idle: #4f7cc2; --data_movement: #169b9b;
  --heat-lo: #fbe3d6; --heat-hi: #1f9d55;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #121418; --card: #1b1e24; --fg: #e6e8eb; --muted: #9aa3ad; --line: #2e333b; --grid: #262a31;
    --accent: #7aa2ff;
    --achieved: #3ccf7a; --compute_inefficiency: #f0a030; --memory_bound: #a57cf0;
    --unmodeled_kernels: #7d8590; --exposed_communication: #f06464; --pipeline_bubble: #ee79b8;
    --host_bound_idle: #6f9ae0; --data_movement: #2cc0c0;
    --heat-lo: #3a2622; --heat-hi: #3ccf7a;
  }
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg);
  font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
main { max-width: 1180px; margin: 0 auto; padding: 28px 28px 48px; }
header.top { display: flex; align-items: baseline; gap: 14px; flex-wrap: wrap; margin-bottom: 18px; }
header.top h1 { font-size: 22px; margin: 0; letter-spacing: -0.01em; }
header.top .sub { color: var(--muted); }
section { background: var(--card); border: 1px solid var(--line); border-radius: 10px; padding: 20px 22px;
  margin: 0 0 18px; }
section h2 { font-size: 16px; margin: 0 0 12px; }
section h2 small { font-weight: normal; color: var(--muted); margin-left: 8px; }
.grid2 { display: grid; grid-template-columns: 1fr 1fr; gap: 18px; }
.grid2 > section { margin: 0; }
@media (max-width: 900px) { .grid2 { grid-template-columns: 1fr; } }
.kpis { display: flex; gap: 28px; flex-wrap: wrap; align-items: flex-end; }
.kpi .v { font-size: 40px; font-weight: 700; line-height: 1.05; font-variant-numeric: tabular-nums; }
.kpi .l { color: var(--muted); font-size: 13px; }
.kpi.good .v { color: var(--achieved); }
.kpi.small .v { font-size: 26px; }
.sentence { font-size: 18px; font-weight: 600; margin: 16px 0 6px; }
.note { color: var(--muted); font-size: 13px; }
.bill { display: flex; gap: 22px; flex-wrap: wrap; margin-top: 12px; padding-top: 12px;
  border-top: 1px solid var(--line); }
.bill div b { display: block; font-size: 18px; font-variant-numeric: tabular-nums; }
.bill div span { color: var(--muted); font-size: 13px; }
table { border-collapse: collapse; width: 100%; font-size: 13.5px; }
th, td { text-align: left; padding: 6px 8px; border-bottom: 1px solid var(--grid); vertical-align: top; }
th { color: var(--muted); font-weight: 600; font-size: 12px; text-transform: uppercase; letter-spacing: .03em; }
td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.name { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; font-size: 12.5px;
  word-break: break-all; }
.chip { display: inline-block; width: 10px; height: 10px; border-radius: 2px; margin-right: 6px;
  vertical-align: baseline; }
ol.fixes { margin: 0; padding-left: 20px; }
ol.fixes li { margin: 0 0 10px; }
ol.fixes .pct { font-weight: 700; font-variant-numeric: tabular-nums; margin-right: 6px; }
ol.fixes .culprits { color: var(--muted); font-size: 12.5px; font-family: ui-monospace, Menlo, Consolas, monospace;
  word-break: break-all; }
.up { color: var(--exposed_communication); } .down { color: var(--achieved); }
svg { display: block; max-width: 100%; height: auto; }
svg text { fill: var(--fg); font: 12px system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif; }
svg text.muted { fill: var(--muted); }
svg .axis { stroke: var(--line); stroke-width: 1; }
svg .gridline { stroke: var(--grid); stroke-width: 1; }
svg .roof { stroke: var(--fg); stroke-width: 2; fill: none; }
svg .ridge { stroke: var(--muted); stroke-dasharray: 3 4; }
footer { color: var(--muted); font-size: 12px; margin-top: 24px; }
@media print {
  :root { --bg: #fff; --card: #fff; }
  body { font-size: 11pt; }
  main { max-width: none; padding: 0; }
  section { break-inside: avoid; border-color: #bbb; box-shadow: none; }
  .grid2 { grid-template-columns: 1fr 1fr; }
}
)css";

}  // namespace

std::string HtmlEscape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out.push_back(c);
    }
  }
  return out;
}

std::string HtmlBegin(std::string_view title) {
  std::string out = "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  out += "<meta name=\"color-scheme\" content=\"light dark\">\n";
  out += "<title>" + HtmlEscape(title) + "</title>\n<style>";
  out += kStyle;
  out += "</style>\n</head>\n<body>\n<main>\n";
  return out;
}

std::string HtmlEnd() { return "</main>\n</body>\n</html>\n"; }

std::string LossColorVar(std::string_view loss_key) { return "var(--" + std::string(loss_key) + ")"; }

}  // namespace plasmient::exporting
