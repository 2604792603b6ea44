#include "export/explain_sink.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "export/json_writer.h"
#include "export/units_text.h"

namespace plasmient::exporting {
namespace {

using join::ActivityClass;
using verdict::Column;
using verdict::ColumnActivity;

constexpr std::size_t kShortNameMax = 60;

std::string Ms(TimeNs ns) { return MsText(ns); }
std::string Pct(double fraction) { return fmt::format("{:.0f}%", fraction * 100); }

// The cluster state at t, when a matched collective is resident.
std::optional<cluster::InFlight> InFlightOf(const Explanation& e) {
  if (!e.collective || !e.collective->matched) return std::nullopt;
  return cluster::InFlightAt(*e.collective, e.column.rank, e.column.t_ns);
}

std::string KernelClause(const Column& c) {
  if (c.resident.empty()) {
    return fmt::format("because no kernel is resident (host-bound idle, a {} gap)",
                       Ms(c.gap_end_ns - c.gap_start_ns));
  }
  const ColumnActivity& k = c.resident.front();
  std::string name = KernelBaseName(k.name);
  std::string clause;
  switch (k.cls) {
    case ActivityClass::kCompute:
      clause = k.modeled ? fmt::format("because {} runs at {} of its roofline ceiling ({}-bound)", name,
                                       Pct(k.roofline_fraction), verdict::BoundName(k.bound))
                         : fmt::format("because {} has no FLOP model (unmodeled)", name);
      break;
    case ActivityClass::kCollective:
      clause = fmt::format("because only communication is resident, {} (exposed communication)", name);
      break;
    case ActivityClass::kP2P:
      clause = fmt::format("because only a send/recv is resident, {} (pipeline bubble)", name);
      break;
    case ActivityClass::kMemory:
      clause = fmt::format("because only a copy is resident, {} (data movement)", name);
      break;
  }
  std::size_t same = 0;
  for (const auto& a : c.resident) same += a.cls == k.cls;
  if (same > 1) clause += fmt::format(" beside {} other{}", same - 1, same > 2 ? "s" : "");
  return clause;
}

// The cause the verdict's host-bound idle reads for an idle instant's host ranges
// (verdict/host_causes.h).
verdict::HostCause IdleCause(const Column& c) {
  if (c.idle_cause) return *c.idle_cause;  // the slice the verdict charged t to
  std::vector<verdict::HostRangeRef> stack;
  stack.reserve(c.host.size());
  for (const auto& h : c.host)
    stack.push_back({h.name, h.kind == "api", h.kind == "step" || h.kind == "module"});
  return verdict::CauseOfStack(stack);
}

// The op and model layer that launched the focus kernel; for an idle instant, the host.
std::vector<SentencePiece> HostClause(const Column& c) {
  auto text = [](std::string t) { return std::vector<SentencePiece>{{.text = std::move(t)}}; };
  if (!c.resident.empty()) {
    const ColumnActivity& k = c.resident.front();
    if (k.op.empty()) return text(k.layer.empty() ? "" : fmt::format("because the layer is {}", k.layer));
    return text(k.layer.empty() ? fmt::format("because the op is {}", k.op)
                                : fmt::format("because the op is {} in {}", k.op, k.layer));
  }
  const verdict::HostCause cause = IdleCause(c);
  const bool named_cause = cause != verdict::HostCause::kHostWork && cause != verdict::HostCause::kUnknown;
  // The profiler's records are on no range of the program's: they say the profiler was at work.
  if (cause == verdict::HostCause::kProfilerOverhead)
    return text("because the profiler's own work holds the host (cause: profiler_overhead)");
  for (const auto& h : c.host) {
    const auto named = verdict::CauseOfHostRange(h.name, h.kind == "api");
    if (named_cause && named == cause)
      return text(fmt::format("because the host is in {} ({}; cause: {})", h.name, h.kind,
                              verdict::HostCauseName(cause)));
  }
  // A cause read from timing, not from a range's name (a sync still blocking long after the GPU
  // went idle, a slow launch, the launch cadence): the innermost range, with the verdict's cause.
  for (const auto& h : c.host) {
    if (h.kind == "step") continue;
    return text(named_cause ? fmt::format("because the host is in {} ({}; cause: {})", h.name, h.kind,
                                          verdict::HostCauseName(cause))
                            : fmt::format("because the host is in {} ({})", h.name, h.kind));
  }
  if (c.next && c.next->launch_ns != kNoTime) {
    return {{.text = fmt::format("because the host launches nothing until {} ", c.next->launch)},
            {.kind = SentencePiece::Kind::kUntil, .at_ns = c.next->launch_ns},
            {.text = " later"}};
  }
  return text("because the host launches nothing");
}

void ActivityJson(JsonWriter& w, const ColumnActivity& a, TimeNs origin) {
  w.BeginObject();
  w.Field("name", a.name).Field("short_name", KernelBaseName(a.name));
  w.Field("device", a.device).Field("stream", a.stream).Field("class", join::ClassName(a.cls));
  w.Field("start_ns", a.start_ns - origin).Field("end_ns", a.end_ns - origin);
  w.Field("modeled", a.modeled);
  if (a.modeled) {
    w.Field("roofline_fraction", a.roofline_fraction).Field("achieved_fraction", a.achieved_fraction);
  } else {
    w.Key("roofline_fraction").Null().Key("achieved_fraction").Null();
  }
  w.Field("bound", verdict::BoundName(a.bound)).Field("loss", verdict::LossKey(a.loss));
  auto text_or_null = [&](std::string_view key, const std::string& v) {
    if (v.empty()) {
      w.Key(key).Null();
    } else {
      w.Field(key, v);
    }
  };
  text_or_null("op", a.op);
  text_or_null("layer", a.layer);
  if (a.step >= 0) {
    w.Field("step", a.step);
  } else {
    w.Key("step").Null();
  }
  text_or_null("launch", a.launch);
  if (a.launch_ns != kNoTime) {
    w.Field("launch_ns", a.launch_ns - origin);
  } else {
    w.Key("launch_ns").Null();
  }
  text_or_null("collective", a.collective);
  w.EndObject();
}

}  // namespace

std::string KernelBaseName(std::string_view name) {
  std::string_view s = name;
  if (s.starts_with("void ")) s.remove_prefix(5);
  std::size_t cut = s.find_first_of("<(");
  if (cut != std::string_view::npos && cut > 0) s = s.substr(0, cut);
  if (s.size() > kShortNameMax) s = s.substr(0, kShortNameMax);
  return PrintableText(s);
}

std::string FirstFixPointer(const verdict::JobVerdict& job, std::string_view command) {
  auto at = verdict::FirstFixInstant(job);
  if (!at || command.empty()) return "";
  return fmt::format("{} --at {:.3f}ms{}", command, static_cast<double>(at->offset_ns) / 1e6,
                     job.ranks.size() > 1 ? fmt::format(" --rank {}", at->rank) : "");
}

std::string MsText(TimeNs ns) {
  const TimeNs us = ((ns < 0 ? -ns : ns) + 500) / 1000;
  return fmt::format("{}{}.{:03d} ms", ns < 0 && us > 0 ? "-" : "", us / 1000, us % 1000);
}

std::vector<SentenceClause> SentenceClauses(const Column& c) {
  std::vector<SentenceClause> out{{{.text = "at t = "},
                                   {.kind = SentencePiece::Kind::kOffset},
                                   {.text = fmt::format("{} the device is {} utilized and {} of peak",
                                                        c.step >= 0 ? fmt::format(" (step {})", c.step) : "",
                                                        Pct(c.bucket.utilization), Pct(c.bucket.achieved))}},
                                  {{.text = KernelClause(c)}},
                                  HostClause(c)};
  for (auto& clause : out) {
    for (auto& p : clause) p.text = PrintableText(p.text);
    if (clause.size() == 1 && clause.front().text.empty()) clause.clear();
  }
  return out;
}

std::string ClusterClause(const std::optional<cluster::CollectiveArrivals>& c, std::int64_t rank, TimeNs t) {
  if (!c || !c->matched) return "";
  const auto f = cluster::InFlightAt(*c, rank, t);
  std::string what = fmt::format("{}{}", c->kind_text, c->seq >= 0 ? fmt::format(" #{}", c->seq) : "");
  if (f.waiting) {
    return PrintableText(fmt::format("because rank {} waits in {} for rank {}, {} late", rank, what,
                                     fmt::join(f.waiting_for, ", rank "), Ms(c->late_ns)));
  }
  return PrintableText(
      fmt::format("because the cluster is mid-{}: all {} ranks arrived", what, c->arrivals.size()));
}

std::string RenderSentence(const std::vector<SentenceClause>& clauses, const std::string& cluster, TimeNs t,
                           TimeNs window_start_ns) {
  std::string s;
  auto join = [&](const std::string& text) {
    if (text.empty()) return;
    s += (s.empty() ? "" : ", ") + text;
  };
  for (const auto& clause : clauses) {
    std::string text;
    for (const auto& p : clause) {
      switch (p.kind) {
        case SentencePiece::Kind::kText:
          text += p.text;
          break;
        case SentencePiece::Kind::kOffset:
          text += Ms(t - window_start_ns);
          break;
        case SentencePiece::Kind::kUntil:
          text += Ms(p.at_ns - t);
          break;
      }
    }
    join(text);
  }
  join(cluster);
  return PrintableText(s + ".");
}

std::string ExplainSentence(const Explanation& e) {
  const Column& c = e.column;
  return RenderSentence(SentenceClauses(c), ClusterClause(e.collective, c.rank, c.t_ns), c.t_ns,
                        c.window_start_ns);
}

std::string RenderExplainText(const Explanation& e) {
  const Column& c = e.column;
  const TimeNs o = c.window_start_ns;
  std::string out = fmt::format("plasmient explain · {}{} · t = {} of {}\n", PrintableText(e.input),
                                c.rank >= 0 ? fmt::format(" · rank {}", c.rank) : "", Ms(c.offset_ns()),
                                Ms(c.window_end_ns - c.window_start_ns));
  auto line = [&](std::string_view layer, const std::string& text) {
    out += fmt::format("  {:<8} {}\n", layer, PrintableText(text));
  };
  std::string counters;
  for (const auto& v : c.counters) counters += fmt::format(", {} {:g}", v.metric, v.value);
  line("device",
       fmt::format("{} · bucket {} to {}: {} utilized, {} of peak{}", e.device, Ms(c.bucket.start_ns - o),
                   Ms(c.bucket.end_ns - o), Pct(c.bucket.utilization), Pct(c.bucket.achieved), counters));
  if (c.resident.empty()) {
    line("kernel", fmt::format("none resident: the device is idle from {} to {}", Ms(c.gap_start_ns - o),
                               Ms(c.gap_end_ns - o)));
    if (c.next) {
      line("", fmt::format("next: {} on stream {} at {}, launched by {} at {}", KernelBaseName(c.next->name),
                           c.next->stream, Ms(c.next->start_ns - o),
                           c.next->launch.empty() ? "(no launch in the trace)" : c.next->launch,
                           c.next->launch_ns == kNoTime ? "-" : Ms(c.next->launch_ns - o)));
    }
  }
  for (const auto& k : c.resident) {
    std::string figures = k.modeled ? fmt::format("{} of roofline ceiling, {} of peak",
                                                  Pct(k.roofline_fraction), Pct(k.achieved_fraction))
                                    : "unmodeled";
    line("kernel",
         fmt::format("{} · stream {} · {} · {} to {} · {} · {}-bound, loss: {}", KernelBaseName(k.name),
                     k.stream, join::ClassName(k.cls), Ms(k.start_ns - o), Ms(k.end_ns - o), figures,
                     verdict::BoundName(k.bound), verdict::LossLabel(k.loss)));
  }
  if (!c.resident.empty()) {
    const auto& k = c.resident.front();
    line("op", k.op.empty() ? "(none: launched outside any op)" : k.op);
    line("layer", k.layer.empty() ? "(no module)" : k.layer);
  }
  for (const auto& h : c.host) {
    line("host", fmt::format("{} ({}, thread {}) {} to {}", h.name, h.kind, h.tid, Ms(h.start_ns - o),
                             Ms(h.end_ns - o)));
  }
  line("step", c.step >= 0 ? fmt::format("{}", c.step) : "(outside every step)");
  if (e.collective) {
    const auto& col = *e.collective;
    std::string head =
        fmt::format("{}{} · group {} · {} · {} ranks", col.kind_text,
                    col.seq >= 0 ? fmt::format(" #{}", col.seq) : "", col.group.empty() ? "?" : col.group,
                    col.bytes >= 0 ? fmt::format("{} bytes", col.bytes) : "size unknown",
                    col.group_size > 0 ? col.group_size : static_cast<std::int32_t>(col.arrivals.size()));
    if (auto f = InFlightOf(e)) {
      head +=
          fmt::format(" · arrived: {} · waiting for: {} · rank {} last, {} late · this rank waited {}",
                      f->arrived.empty() ? "none" : fmt::format("{}", fmt::join(f->arrived, ", ")),
                      f->waiting_for.empty() ? "none" : fmt::format("{}", fmt::join(f->waiting_for, ", ")),
                      col.last_rank, Ms(col.late_ns), Ms(f->waited_ns));
    } else {
      head += " · not matched across ranks";
    }
    line("cluster", head);
  }
  out += fmt::format("\n{}\n", ExplainSentence(e));
  return out;
}

std::string ExplainToJson(const Explanation& e) {
  const Column& c = e.column;
  const TimeNs o = c.window_start_ns;
  std::string s;
  JsonWriter w(s);
  w.BeginObject();
  w.Field("schema", "plasmient.explain/1").Field("input", e.input);
  if (c.rank >= 0) {
    w.Field("rank", c.rank);
  } else {
    w.Key("rank").Null();
  }
  w.Field("t_ns", c.offset_ns()).Field("trace_t_ns", c.t_ns);
  w.Key("window")
      .BeginObject()
      .Field("start_ns", c.window_start_ns)
      .Field("duration_ns", c.window_end_ns - o)
      .EndObject();
  if (c.step >= 0) {
    w.Field("step", c.step);
  } else {
    w.Key("step").Null();
  }
  w.Key("device").BeginObject().Field("name", e.device);
  w.Field("bucket_start_ns", c.bucket.start_ns - o).Field("bucket_end_ns", c.bucket.end_ns - o);
  w.Field("utilization", c.bucket.utilization).Field("achieved_fraction", c.bucket.achieved);
  w.Key("counters").BeginArray();
  for (const auto& v : c.counters) {
    w.BeginObject().Field("metric", v.metric).Field("value", v.value).Field("ts_ns", v.ts_ns - o).EndObject();
  }
  w.EndArray().EndObject();
  if (c.deciding) {
    w.Field("class", join::ClassName(*c.deciding));
  } else {
    w.Key("class").Null();
  }
  w.Field("loss", verdict::LossKey(c.loss));
  if (c.resident.empty()) {
    w.Field("host_cause", verdict::HostCauseName(IdleCause(c)));  // as the verdict's causes[] name it
  } else {
    w.Key("host_cause").Null();
  }
  w.Key("kernels").BeginArray();
  for (const auto& k : c.resident) ActivityJson(w, k, o);
  w.EndArray();
  w.Key("host").BeginArray();
  for (const auto& h : c.host) {
    w.BeginObject().Field("name", h.name).Field("kind", h.kind).Field("tid", h.tid);
    w.Field("start_ns", h.start_ns - o).Field("end_ns", h.end_ns - o).EndObject();
  }
  w.EndArray();
  if (c.resident.empty()) {
    w.Key("gap").BeginObject().Field("start_ns", c.gap_start_ns - o).Field("end_ns", c.gap_end_ns - o);
    w.Key("next");
    if (c.next) {
      ActivityJson(w, *c.next, o);
    } else {
      w.Null();
    }
    w.EndObject();
  } else {
    w.Key("gap").Null();
  }
  w.Key("cluster");
  if (e.collective) {
    const auto& col = *e.collective;
    w.BeginObject().Field("kind", join::CollectiveKindName(col.kind)).Field("name", col.kind_text);
    w.Field("group", col.group).Field("seq", col.seq).Field("step", col.step).Field("bytes", col.bytes);
    w.Field("group_size", static_cast<std::int64_t>(col.group_size)).Field("matched", col.matched);
    w.Key("arrivals").BeginArray();
    for (const auto& a : col.arrivals) {
      w.BeginObject()
          .Field("rank", a.rank)
          .Field("arrival_ns", a.arrival_ns + col.clock_offset_ns - o)
          .EndObject();
    }
    w.EndArray();
    if (auto f = InFlightOf(e)) {
      auto ranks = [&](std::string_view key, const std::vector<std::int64_t>& v) {
        w.Key(key).BeginArray();
        for (auto r : v) w.Int(r);
        w.EndArray();
      };
      ranks("arrived", f->arrived);
      ranks("waiting_for", f->waiting_for);
      w.Field("waiting", f->waiting).Field("waited_ns", f->waited_ns);
      w.Field("last_rank", col.last_rank).Field("late_ns", col.late_ns);
    }
    w.EndObject();
  } else {
    w.Null();
  }
  w.Field("sentence", ExplainSentence(e));
  w.EndObject();
  s += "\n";
  return s;
}

}  // namespace plasmient::exporting
