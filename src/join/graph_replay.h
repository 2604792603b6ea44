// CUDA and HIP graphs in a trace (docs/graphs.md): the GPU activity a graph launch replayed, the
// stream captures that recorded a graph's launches, and the match between the two, so that a
// replayed kernel is attributed to the op, shapes and layer that launched it during capture.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "model/data_quality.h"
#include "model/trace.h"

namespace plasmient::join {

// What a trace shows of the program's steady state (docs/graphs.md, "Trace kinds").
enum class TraceKind : std::uint8_t {
  kEager,        // the program's launches ran (captures, if any, hold a small part of them)
  kGraphReplay,  // some GPU activity ran from a graph launch
  kCapture,      // no graph was replayed and the window's work went into captures: no steady state
};

std::string_view TraceKindName(TraceKind kind);  // "eager", "graph-replay", "capture"

// A capture trace's launches went into graphs rather than to the GPU: at least one in
// kCaptureTraceOneIn of the window's launches (captured, plus the GPU activities that ran) were recorded
// inside a stream capture. A capture is preceded by warm-up runs of the same launches (PyTorch's own recipe
// runs three), so a trace of the warm-up and the capture holds about a quarter captured; an eager run that
// captures a side graph, or only instantiates one captured before the window, holds a few percent or none,
// and its steady state is the eager work it shows (docs/graphs.md, "Trace kinds").
inline constexpr std::int64_t kCaptureTraceOneIn = 5;  // one launch in five, or more
// The kind from the counts: graph launches that ran GPU work, launches recorded inside captures,
// and the GPU activities that ran outside any replay.
TraceKind KindOf(std::int64_t replays, std::int64_t captured_launches, std::int64_t eager_activities);

// cudaGraphLaunch, hipGraphLaunch (and their versioned names).
bool IsGraphLaunch(std::string_view api);
// The calls that open and close a stream capture, and those that instantiate a graph.
bool IsCaptureBegin(std::string_view api);
bool IsCaptureEnd(std::string_view api);
bool IsGraphInstantiate(std::string_view api);

// What a replayed activity could be matched by (docs/graphs.md, "Capture and replay").
enum class GraphMatchSource : std::uint8_t {
  kNone,      // not replayed, or replayed with nothing to match
  kSequence,  // the i-th activity of a replay is the i-th launch of a capture of the same shape
};

struct GraphSummary {
  TraceKind kind = TraceKind::kEager;
  std::int64_t replays = 0;              // graph launches that ran GPU activity
  std::int64_t captures = 0;             // stream captures recorded (begin … end on one thread)
  std::int64_t instantiations = 0;       // graph instantiate calls
  std::int64_t captured_launches = 0;    // launches recorded inside the captures
  std::int64_t eager_activities = 0;     // GPU activities that ran outside any replay
  std::int64_t replayed_activities = 0;  // GPU activities a graph launch ran
  std::int64_t replayed_kernels = 0;     // of which kernels
  TimeNs replayed_kernel_ns = 0;         // their summed durations
  std::int64_t matched_activities = 0;   // replayed activities matched to a captured launch
};

struct GraphReplays {
  // Per GpuActivities row: whether a graph launch ran it, the launch recorded during capture it
  // replays (or none), and how that was found.
  std::vector<char> replayed;
  std::vector<model::ApiRowId> captured;
  std::vector<GraphMatchSource> source;
  // Per ApiCalls row: a launch recorded inside a stream capture (it ran no GPU activity here).
  std::vector<char> capture_launch;
  GraphSummary summary;
};

// Finds the replays among the GPU activities (`launch`: each activity's launch row, or none), the
// captures among the API calls, and matches them; counts what does not match in `quality`.
GraphReplays MatchGraphReplays(const model::Trace& trace, const std::vector<model::ApiRowId>& launch,
                               model::DataQuality& quality);

// The trace's kind from its API calls alone, before any join: for the reader that pairs a capture
// file with the replay files beside it (docs/graphs.md, "A capture beside the replay").
TraceKind TraceKindOf(const model::Trace& trace);

// The replay trace with the host side of a capture trace beside it (its API calls and CPU ranges,
// steps left out), moved on the clock to end just before the replay's first event, so that the
// join matches the replays to the capture as if one trace held both. The capture's correlation
// and External ids are dropped: they number another process's calls and would collide.
model::Trace WithCapture(model::Trace replay, const model::Trace& capture);

}  // namespace plasmient::join
