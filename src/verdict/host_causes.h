// What the host was doing while the GPU waited: every idle gap of a rank's window attributed,
// slice by slice, to the innermost host range that names a cause (docs/verdict.md, "Causes of
// host-bound idle"). The same classifier reads `plasmient explain`'s column.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/time_units.h"
#include "model/trace.h"

namespace plasmient::verdict {

struct ActivityFacts;

// The causes host-bound idle is split into; each asks for a different fix (docs/fixes.md).
enum class HostCause : std::uint8_t {
  kAllocator,         // cudaFree/hipFree/cudaMalloc/...: the caching allocator is off or emptied
  kSync,              // *Synchronize, aten::item/_local_scalar_dense/nonzero: the host waited for the GPU
  kBlockingCopy,      // cudaMemcpy/hipMemcpyWithStream, copies to or from pageable memory
  kCompile,           // NVRTC/hipRTC, module and library loading, compile annotations (JIT warm-up)
  kDataLoading,       // DataLoader __next__
  kGraphCapture,      // stream capture, graph instantiation
  kHostCollective,    // gloo, barriers
  kProfilerOverhead,  // the profiler's own work (CUPTI buffer flushes, instrumentation): not the run's
  kLaunch,            // launch calls, or gaps shorter than a launch: launch-bound
  kUnseenWait,        // the host blocked in a sync while no recorded GPU work ran: it waited on work
                      // the trace does not show (another process or stream, kernels the profiler missed)
  kHostWork,          // the host ran ops or code that launched nothing meanwhile
  kUnknown,           // no host range spans the idle
  kCount,
};
inline constexpr std::size_t kHostCauseCount = static_cast<std::size_t>(HostCause::kCount);
std::string_view HostCauseName(HostCause cause);     // "allocator", "sync", ... (the JSON's words)
HostCause HostCauseFromName(std::string_view name);  // kUnknown for a name of no cause

// The cause a host range names by itself, or nullopt when it names none (a plain op, a module).
// `api`: a runtime/driver call; otherwise an op or annotation.
std::optional<HostCause> CauseOfHostRange(std::string_view name, bool api);

// The cause of one instant from the host ranges holding it, innermost first: the innermost range
// that names a cause; else host work when an op or annotation holds it; else unknown.
struct HostRangeRef {
  std::string_view name;
  bool api = false;
  bool plain = false;  // a step or module range: it holds the instant but says nothing of it
};
HostCause CauseOfStack(const std::vector<HostRangeRef>& innermost_first);

// One host range (by name) that a cause's idle fell in.
struct HostCauseRange {
  std::string name;
  std::int64_t gaps = 0;  // idle gaps it spanned part of
  double idle_s = 0;      // the idle attributed to it
};

struct HostCauseFigures {
  double idle_s = 0;      // GPU idle attributed to the cause
  std::int64_t gaps = 0;  // idle gaps where it holds the most time
  // Its host calls in the window on the launching threads: how many and their time (a call
  // inside another of the same cause counts once).
  std::int64_t calls = 0;
  double call_s = 0;
  bool other_thread = false;  // some of its idle was found on a thread other than the launcher's
  // Its longest idle slice (trace clock), where `explain` shows it: kNoTime when it has none.
  TimeNs longest_start_ns = kNoTime, longest_end_ns = kNoTime;
  std::vector<HostCauseRange> names;  // by idle, largest first, a few
};

// One slice of an idle gap, the cause it went to and the range that named it (trace clock; the
// name is the rank's trace's string, empty when no range holds it).
struct HostIdleSlice {
  TimeNs start_ns = 0, end_ns = 0;
  HostCause cause = HostCause::kUnknown;
  StringId name;
};

struct HostIdleCauses {
  std::array<HostCauseFigures, kHostCauseCount> by_cause{};
  // Every slice of the rank's idle gaps, by start: what `explain` reads at an idle instant, so
  // that it names the cause the verdict charged (one classifier). A rank's only: Merge leaves it.
  std::vector<HostIdleSlice> slices;
  std::optional<HostCause> CauseAt(TimeNs t) const;
  // Sync and blocking-copy calls in the window on the launching threads: what a CUDA-graph
  // capture of the step cannot hold.
  std::int64_t SyncCalls() const {
    return (*this)[HostCause::kSync].calls + (*this)[HostCause::kBlockingCopy].calls;
  }
  double total_s() const;
  const HostCauseFigures& operator[](HostCause c) const { return by_cause[static_cast<std::size_t>(c)]; }
  HostCauseFigures& operator[](HostCause c) { return by_cause[static_cast<std::size_t>(c)]; }
  void Merge(const HostIdleCauses& other);
};

// A sync waits for recorded work no longer than this after the GPU went idle (the driver's wake-up);
// the rest of a longer blocking call inside an idle gap waited on work the trace does not show.
inline constexpr TimeNs kSyncReturnMaxNs = 100 * kNsPerUs;

// Gaps shorter than this, where no range names a cause, are the host's launch cadence.
inline constexpr TimeNs kLaunchBoundGapMaxNs = 50 * kNsPerUs;

// Attributes every idle gap in facts.idle_gaps (the window's slices with nothing resident) of
// the window [window_start_ns, window_end_ns), whose host calls it counts.
HostIdleCauses AttributeHostIdle(const model::Trace& trace, const ActivityFacts& facts,
                                 TimeNs window_start_ns, TimeNs window_end_ns);

}  // namespace plasmient::verdict
