#include "join/graph_replay.h"

#include <algorithm>
#include <map>
#include <optional>
#include <tuple>
#include <unordered_set>
#include <utility>

#include "base/name_memo.h"
#include "model/trace_builder.h"

namespace plasmient::join {
namespace {

using model::ApiRowId;
using model::Dq;
using model::GpuKind;
using model::kNoId;
using model::Trace;

bool StartsWithEither(std::string_view api, std::string_view cuda, std::string_view hip) {
  return api.starts_with(cuda) || api.starts_with(hip);
}

// The kind of GPU activity a call recorded during capture becomes when the graph is replayed, or
// nothing for a call that adds no node (stream queries, event records, allocations). A graph
// launched inside a capture becomes a child graph whose nodes the trace does not list: nothing.
std::optional<GpuKind> NodeKindOf(std::string_view api) {
  if (IsGraphLaunch(api)) return std::nullopt;
  if (api.find("Launch") != std::string_view::npos && api.find("HostFunc") == std::string_view::npos)
    return GpuKind::kKernel;
  if (api.find("Memcpy") != std::string_view::npos) return GpuKind::kMemcpy;
  if (api.find("Memset") != std::string_view::npos) return GpuKind::kMemset;
  return std::nullopt;
}

struct Capture {
  TimeNs end_ns = 0;
  std::vector<ApiRowId> nodes;  // launches in issue order
  std::vector<GpuKind> kinds;
};

// Stream captures: on each thread, the launches between a capture's begin and its end. A capture
// never closed (the trace stopped inside it) still recorded its launches; one begun inside another
// (a second stream) continues the first.
std::vector<Capture> FindCaptures(const Trace& t, GraphReplays& g) {
  struct Call {
    std::int64_t pid, tid;
    TimeNs start;
    std::int32_t row;
  };
  std::vector<Call> calls;
  NameMemo begin(t.strings, IsCaptureBegin), end(t.strings, IsCaptureEnd),
      inst(t.strings, IsGraphInstantiate);
  bool any = false;
  for (std::size_t a = 0; a < t.api.size(); ++a) {
    g.summary.instantiations += inst(t.api.name[a]);
    any = any || begin(t.api.name[a]);
  }
  if (!any) return {};
  calls.reserve(t.api.size());
  for (std::size_t a = 0; a < t.api.size(); ++a) {
    calls.push_back({t.api.pid[a], t.api.tid[a], t.api.start_ns[a], static_cast<std::int32_t>(a)});
  }
  std::sort(calls.begin(), calls.end(), [](const Call& x, const Call& y) {
    return std::tie(x.pid, x.tid, x.start, x.row) < std::tie(y.pid, y.tid, y.start, y.row);
  });
  std::vector<Capture> captures;
  int depth = 0;
  for (std::size_t c = 0; c < calls.size(); ++c) {
    if (c > 0 && (calls[c].pid != calls[c - 1].pid || calls[c].tid != calls[c - 1].tid)) depth = 0;
    const StringId name = t.api.name[static_cast<std::size_t>(calls[c].row)];
    if (begin(name)) {
      if (depth++ == 0) captures.emplace_back();
      continue;
    }
    if (depth == 0) continue;
    if (end(name)) {
      captures.back().end_ns = t.api.end_ns[static_cast<std::size_t>(calls[c].row)];
      --depth;
      continue;
    }
    if (auto kind = NodeKindOf(t.Str(name))) {
      captures.back().nodes.push_back(ApiRowId(calls[c].row));
      captures.back().kinds.push_back(*kind);
      g.capture_launch[static_cast<std::size_t>(calls[c].row)] = 1;
      captures.back().end_ns =
          std::max(captures.back().end_ns, t.api.end_ns[static_cast<std::size_t>(calls[c].row)]);
    }
  }
  std::erase_if(captures, [](const Capture& c) { return c.nodes.empty(); });
  return captures;
}

// The capture a replay of these activity kinds, launched at `launch_ns`, replays: one of the same
// launches in the same order, the last to end before the launch (a graph captured again replaces
// the earlier one), else the first such; -1 when none has its shape.
int CaptureOf(const std::vector<Capture>& captures, const std::vector<GpuKind>& kinds, TimeNs launch_ns) {
  int found = -1;
  for (std::size_t c = 0; c < captures.size(); ++c) {
    if (captures[c].kinds != kinds) continue;
    if (found < 0 || captures[c].end_ns <= launch_ns) found = static_cast<int>(c);
  }
  return found;
}

}  // namespace

std::string_view TraceKindName(TraceKind kind) {
  switch (kind) {
    case TraceKind::kEager:
      return "eager";
    case TraceKind::kGraphReplay:
      return "graph-replay";
    case TraceKind::kCapture:
      return "capture";
  }
  return "eager";
}

bool IsGraphLaunch(std::string_view api) {
  return StartsWithEither(api, "cudaGraphLaunch", "hipGraphLaunch");
}
bool IsCaptureBegin(std::string_view api) {
  return StartsWithEither(api, "cudaStreamBeginCapture", "hipStreamBeginCapture");
}
bool IsCaptureEnd(std::string_view api) {
  return StartsWithEither(api, "cudaStreamEndCapture", "hipStreamEndCapture");
}
bool IsGraphInstantiate(std::string_view api) {
  return StartsWithEither(api, "cudaGraphInstantiate", "hipGraphInstantiate");
}

GraphReplays MatchGraphReplays(const Trace& t, const std::vector<ApiRowId>& launch,
                               model::DataQuality& quality) {
  const std::size_t n = t.gpu.size();
  GraphReplays g;
  g.replayed.assign(n, 0);
  g.captured.assign(n, {});
  g.source.assign(n, GraphMatchSource::kNone);
  g.capture_launch.assign(t.api.size(), 0);
  GraphSummary& s = g.summary;

  // Each replay's activities, in the order they ran.
  NameMemo is_graph_launch(t.strings, IsGraphLaunch);
  std::map<std::int32_t, std::vector<std::int32_t>> replays;  // launch row → activity rows
  for (std::size_t i = 0; i < n; ++i) {
    if (!launch[i].has_value() || !is_graph_launch(t.api.name[launch[i].index()])) continue;
    g.replayed[i] = 1;
    replays[static_cast<std::int32_t>(launch[i].index())].push_back(static_cast<std::int32_t>(i));
    ++s.replayed_activities;
    if (t.gpu.kind[i] == GpuKind::kKernel) {
      ++s.replayed_kernels;
      s.replayed_kernel_ns += t.gpu.end_ns[i] - t.gpu.start_ns[i];
    }
  }
  const std::vector<Capture> captures = FindCaptures(t, g);
  s.captures = static_cast<std::int64_t>(captures.size());
  for (const Capture& c : captures) s.captured_launches += static_cast<std::int64_t>(c.nodes.size());
  s.replays = static_cast<std::int64_t>(replays.size());
  s.eager_activities = static_cast<std::int64_t>(n) - s.replayed_activities;
  s.kind = KindOf(s.replays, s.captured_launches, s.eager_activities);

  std::int64_t no_capture = 0, unmatched = 0;
  TimeNs no_capture_ns = 0, unmatched_ns = 0;
  std::vector<GpuKind> kinds;
  for (auto& [row, acts] : replays) {
    std::sort(acts.begin(), acts.end(), [&](std::int32_t a, std::int32_t b) {
      return std::pair(t.gpu.start_ns[static_cast<std::size_t>(a)], a) <
             std::pair(t.gpu.start_ns[static_cast<std::size_t>(b)], b);
    });
    kinds.clear();
    TimeNs ns = 0;
    for (std::int32_t a : acts) {
      kinds.push_back(t.gpu.kind[static_cast<std::size_t>(a)]);
      ns += t.gpu.end_ns[static_cast<std::size_t>(a)] - t.gpu.start_ns[static_cast<std::size_t>(a)];
    }
    const int c =
        captures.empty() ? -1 : CaptureOf(captures, kinds, t.api.start_ns[static_cast<std::size_t>(row)]);
    if (c < 0) {
      (captures.empty() ? no_capture : unmatched) += static_cast<std::int64_t>(acts.size());
      (captures.empty() ? no_capture_ns : unmatched_ns) += ns;
      continue;
    }
    const Capture& capture = captures[static_cast<std::size_t>(c)];
    for (std::size_t k = 0; k < acts.size(); ++k) {
      g.captured[static_cast<std::size_t>(acts[k])] = capture.nodes[k];
      g.source[static_cast<std::size_t>(acts[k])] = GraphMatchSource::kSequence;
    }
    s.matched_activities += static_cast<std::int64_t>(acts.size());
  }
  TimeNs replayed_ns = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (g.replayed[i]) replayed_ns += t.gpu.end_ns[i] - t.gpu.start_ns[i];
  }
  quality.Add(Dq::kGraphReplayed, s.replayed_activities, replayed_ns);
  quality.Add(Dq::kGraphReplayNoCapture, no_capture, no_capture_ns);
  quality.Add(Dq::kGraphReplayUnmatched, unmatched, unmatched_ns);
  quality.Add(Dq::kGraphCaptureLaunch, s.captured_launches);
  return g;
}

TraceKind KindOf(std::int64_t replays, std::int64_t captured_launches, std::int64_t eager_activities) {
  if (replays > 0) return TraceKind::kGraphReplay;
  if (captured_launches > 0 &&
      captured_launches * kCaptureTraceOneIn >= captured_launches + eager_activities) {
    return TraceKind::kCapture;
  }
  return TraceKind::kEager;
}

TraceKind TraceKindOf(const Trace& t) {
  std::unordered_set<std::int64_t> graph_launches;
  for (std::size_t a = 0; a < t.api.size(); ++a) {
    const std::string_view name = t.Str(t.api.name[a]);
    if (IsGraphLaunch(name) && t.api.correlation[a] != kNoId) graph_launches.insert(t.api.correlation[a]);
  }
  for (std::size_t i = 0; i < t.gpu.size() && !graph_launches.empty(); ++i) {
    if (graph_launches.contains(t.gpu.correlation[i])) return TraceKind::kGraphReplay;
  }
  GraphReplays scratch;
  scratch.capture_launch.assign(t.api.size(), 0);
  std::int64_t captured = 0;
  for (const Capture& c : FindCaptures(t, scratch)) captured += static_cast<std::int64_t>(c.nodes.size());
  return KindOf(0, captured, static_cast<std::int64_t>(t.gpu.size()));
}

model::Trace WithCapture(model::Trace replay, const model::Trace& capture) {
  // The capture ends this long before the replay's first event: apart on the clock, so that no
  // range of one encloses a call of the other.
  constexpr TimeNs kGapNs = 1'000'000;
  TimeNs first = kNoTime, last = kNoTime;
  auto earliest = [&](const std::vector<TimeNs>& v) {
    for (TimeNs x : v) first = first == kNoTime ? x : std::min(first, x);
  };
  earliest(replay.gpu.start_ns);
  earliest(replay.api.start_ns);
  earliest(replay.cpu.start_ns);
  auto latest = [&](const std::vector<TimeNs>& v) {
    for (TimeNs x : v) last = last == kNoTime ? x : std::max(last, x);
  };
  latest(capture.api.end_ns);
  latest(capture.cpu.end_ns);
  if (first == kNoTime || last == kNoTime) return replay;
  const TimeNs shift = first - kGapNs - last;
  model::TraceBuilder b(std::move(replay));
  for (std::size_t a = 0; a < capture.api.size(); ++a) {
    b.AddApi({.start_ns = capture.api.start_ns[a] + shift,
              .end_ns = capture.api.end_ns[a] + shift,
              .pid = capture.api.pid[a],
              .tid = capture.api.tid[a],
              .name = capture.Str(capture.api.name[a])});
  }
  const auto& c = capture.cpu;
  for (std::size_t r = 0; r < c.size(); ++r) {
    if (c.kind[r] == model::CpuOpKind::kStep) continue;
    b.AddCpuOp({.start_ns = c.start_ns[r] + shift,
                .end_ns = c.end_ns[r] + shift,
                .pid = c.pid[r],
                .tid = c.tid[r],
                .name = capture.Str(c.name[r]),
                .kind = c.kind[r],
                .input_dims = capture.Str(c.input_dims[r]),
                .input_types = capture.Str(c.input_types[r]),
                .concrete_inputs = capture.Str(c.concrete_inputs[r]),
                .sequence = c.sequence[r],
                .forward_thread = c.forward_thread[r],
                .module_hierarchy = capture.Str(c.module_hierarchy[r])});
  }
  return std::move(b).Finish();
}

}  // namespace plasmient::join
