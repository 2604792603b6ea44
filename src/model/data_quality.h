// Data quality is data: every odd thing in the input is counted under a catalogued name,
// never fatal unless nothing sensible can come out, never hidden.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

namespace plasmient::model {

enum class Severity : std::uint8_t { kInfo, kWarning, kError };

// Append new counters at the end of their group; the catalogue in data_quality.cc
// gives each a stable name, a severity and one line of meaning.
enum class Dq : std::uint16_t {
  // ingest
  kMalformedEvent,            // an event that is not an object, or lacks ts/ph
  kUnknownCategory,           // cat we do not model (counted, skipped)
  kUnknownPhase,              // ph other than X/i/s/f/t/M/C/b/e/n
  kNegativeDuration,          // dur < 0: clamped to 0
  kMissingDuration,           // complete event with no dur
  kInstantEventsSkipped,      // ph i/I (memory instants, markers)
  kFlowEventsSkipped,         // ph s/f flows (the correlation arg is the join key)
  kCounterEvents,             // ph C counters kept as samples
  kPythonFunctionsSkipped,    // python_function events (not needed by the verdict)
  kCuptiRangeProfilerEvents,  // cuda_profiler_range events (counter mode, no kernels)
  kAmbiguousTimebase,         // baseTimeNanoseconds present but ts looks absolute
  kNonNumericId,              // pid/tid/correlation that is neither number nor known string form
  kMissingTable,              // a table the reader expects (kernels, launches, strings, devices) is absent
  kMissingColumn,             // a column the reader uses is absent from a table that exists
  kDuplicateApiRow,           // API rows repeated by the exporter (nsys 2022.x): deduplicated
  // join
  kKernelNoLaunch,         // GPU activity whose correlation matches no runtime launch
  kLaunchNoKernel,         // launch API with a correlation id that matched no GPU activity
  kLaunchNoOp,             // launch not enclosed by any CPU op on its thread
  kExternalIdMismatch,     // External id on kernels does not match any CPU op (ids equal correlation)
  kOpNoShapes,             // op with a FLOP model but no Input Dims
  kStreamOverlap,          // two activities on one stream overlap in time
  kDuplicateCorrelation,   // two launches with the same correlation id in one process
  kGpuBeforeLaunch,        // GPU activity that starts before its launch call (clock skew)
  kQueuedBeforeProfiling,  // GPU activity launched before profiling began: left out of the window
  // roofline
  kUnmodeledKernel,      // compute kernel with neither FLOP nor byte model
  kFlopsAbovePeak,       // a kernel whose modeled FLOPs need more than the peak: clamped
  kConvAssumedGeometry,  // convolution without stride/padding: output size assumed
  kConvOutputFromTrace,  // convolution without stride/padding: output size from a tensor the trace shows
  kMfuAboveHfu,          // derived model FLOPs above the hardware FLOPs credited as useful
  kUnknownDevice,        // GPU name matched no device-table row: fallback peak used
  kUnknownDtype,         // op input dtype not recognized: device's bf16 peak assumed
  // steps
  kNoProfilerSteps,   // trace has no ProfilerStep#N ranges: per-step verdict empty
  kStepsFilteredOut,  // GPU activity left out by --steps
  kStrayActivity,     // GPU activity far outside the bulk of the trace: left out of the window
  // live agent
  kDroppedRecords,       // records dropped by the agent when its buffers were full
  kTruncatedNativeFile,  // native trace cut off: trailing partial chunk ignored
  kCorruptChunk,         // native chunk with a bad checksum: skipped
  // multi-rank
  kCollectiveUnmatched,  // collective seen on some ranks of its group but not all
  kDuplicateRank,        // two inputs claim the same rank
  kClockAlignmentWeak,   // too few matched collectives to align a rank's clock
  kDuplicateInput,  // an input identical to an earlier one (same content or rank/pid/start): counted once
  kSkippedInput,    // a file in a job folder that is not a trace: skipped
  kCount
};

struct DqInfo {
  Dq id;
  std::string_view name;
  Severity severity;
  std::string_view meaning;
};

const DqInfo& Describe(Dq id);
std::string_view SeverityName(Severity s);

class DataQuality {
 public:
  // gpu_ns: the GPU time of the counted activities, for counters that set activities aside.
  void Add(Dq id, std::int64_t n = 1, std::int64_t gpu_ns = 0) {
    counts_[static_cast<std::size_t>(id)] += n;
    gpu_ns_[static_cast<std::size_t>(id)] += gpu_ns;
  }
  std::int64_t Get(Dq id) const { return counts_[static_cast<std::size_t>(id)]; }
  double GpuSeconds(Dq id) const { return static_cast<double>(gpu_ns_[static_cast<std::size_t>(id)]) * 1e-9; }
  void Merge(const DataQuality& other);
  // Non-zero counters, in catalogue order.
  std::vector<std::pair<Dq, std::int64_t>> NonZero() const;

 private:
  std::array<std::int64_t, static_cast<std::size_t>(Dq::kCount)> counts_{};
  std::array<std::int64_t, static_cast<std::size_t>(Dq::kCount)> gpu_ns_{};
};

}  // namespace plasmient::model
