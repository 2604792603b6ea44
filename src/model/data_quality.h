// Data quality is data: every odd thing in the input is counted under a catalogued name,
// never fatal unless nothing sensible can come out, never hidden.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "base/time_units.h"

namespace plasmient::model {

enum class Severity : std::uint8_t { kInfo, kWarning, kError };

// The catalogue, the one place a counter is defined: X(id, name, severity, meaning). `name` is
// stable (JSON, the stores); `meaning` is one line a user can act on. Append new counters at the
// end of their group; a counter nothing increments is removed, not kept for later.
#define PLASMIENT_DQ_CATALOGUE(X)                                                                            \
  /* ingest */                                                                                               \
  X(kMalformedEvent, "malformed_event", kWarning, "events that are not objects or lack ts/ph; skipped")      \
  X(kUnknownCategory, "unknown_category", kInfo, "events of a category Plasmient does not model; skipped")   \
  X(kUnknownPhase, "unknown_phase", kInfo, "events with an unknown ph; skipped")                             \
  X(kAsyncEventsSkipped, "async_events_skipped", kInfo,                                                      \
    "async events (ph b/e/n: spans not nested on one thread, such as GPU user annotations); not modeled")    \
  X(kNegativeDuration, "negative_duration", kWarning, "events with dur < 0; clamped to 0")                   \
  X(kMissingDuration, "missing_duration", kWarning, "complete events with no dur; taken as 0")               \
  X(kInstantEventsSkipped, "instant_events_skipped", kInfo, "instant events (memory, markers); not needed")  \
  X(kFlowEventsSkipped, "flow_events_skipped", kInfo,                                                        \
    "flow events; the correlation argument is the join key")                                                 \
  X(kCounterEvents, "counter_events", kInfo, "counter events kept as device samples")                        \
  X(kPythonFunctionsSkipped, "python_functions_skipped", kInfo,                                              \
    "python_function events other than nn.Module ranges; not needed by the verdict")                         \
  X(kCuptiRangeProfilerEvents, "cupti_range_profiler_events", kWarning,                                      \
    "CUPTI range-profiler events: the trace was taken in counter mode and has no kernel timeline")           \
  X(kAmbiguousTimebase, "ambiguous_timebase", kWarning,                                                      \
    "baseTimeNanoseconds present but timestamps look absolute; taken as absolute")                           \
  X(kNonNumericId, "non_numeric_id", kWarning,                                                               \
    "pid/tid/correlation values of an unknown form; event kept with id -1")                                  \
  X(kMissingTable, "missing_table", kWarning,                                                                \
    "tables the reader expects (kernels, launches, strings, devices, session start) absent from the input; " \
    "that layer is empty")                                                                                   \
  X(kMissingColumn, "missing_column", kWarning,                                                              \
    "columns the reader uses absent from a table; their values are left unknown")                            \
  X(kDuplicateApiRow, "duplicate_api_row", kInfo,                                                            \
    "API rows the exporter wrote twice for one call (older Nsight Systems); one kept")                       \
  X(kMalformedModuleHierarchy, "malformed_module_hierarchy", kWarning,                                       \
    "ops whose Module Hierarchy argument is not of the form name(Type).….op; op kept with no module")        \
  X(kGpuMetricUnread, "gpu_metric_unread", kInfo,                                                            \
    "Nsight Systems GPU metric samples of metrics Plasmient does not read (it reads SMs Active, Tensor "     \
    "Active and DRAM read/write bandwidth, in percent); skipped")                                            \
  X(kGpuMetricOtherGpu, "gpu_metric_other_gpu", kInfo,                                                       \
    "Nsight Systems GPU metric samples of GPUs the traced process did not use; skipped")                     \
  X(kGpuMetricDramUnpaired, "gpu_metric_dram_unpaired", kWarning,                                            \
    "Nsight Systems DRAM read or write bandwidth samples without the other at the same instant; no DRAM "    \
    "activity sample made of them")                                                                          \
  /* join */                                                                                                 \
  X(kKernelNoLaunch, "kernel_no_launch", kWarning,                                                           \
    "GPU activity with no matching runtime launch: counts in time, op attribution is partial")               \
  X(kLaunchNoOp, "launch_no_op", kInfo, "launch calls not enclosed by any CPU op on their thread")           \
  X(kExternalIdEqualsCorrelation, "external_id_equals_correlation", kInfo,                                   \
    "kernel External ids equal correlation ids and match no op; ops joined through the launch instead")      \
  X(kOpNoShapes, "op_no_shapes", kWarning,                                                                   \
    "ops with a FLOP model but no input shapes (record_shapes off): their kernels are unmodeled")            \
  X(kDuplicateCorrelation, "duplicate_correlation", kWarning,                                                \
    "launch calls sharing a correlation id within one process; the first is used")                           \
  X(kGpuBeforeLaunch, "gpu_before_launch", kWarning,                                                         \
    "GPU activity starting before its launch call (host/device clock skew)")                                 \
  X(kQueuedBeforeProfiling, "queued_before_profiling", kWarning,                                             \
    "GPU activity launched before profiling began (no launch in the trace, earlier correlation ids): "       \
    "left out of the window")                                                                                \
  X(kGraphReplayed, "graph_replayed", kInfo,                                                                 \
    "GPU activities a CUDA/HIP graph launch replayed: their op, shapes and layer come from the capture "     \
    "they were matched to, else they have none")                                                             \
  X(kGraphReplayNoCapture, "graph_replay_no_capture", kWarning,                                              \
    "graph-replayed GPU activities with no capture trace: no op, shapes or layer; profile the capture too "  \
    "(--graph-capture), warm-up eager steps, or the live agent")                                             \
  X(kGraphReplayUnmatched, "graph_replay_unmatched", kWarning,                                               \
    "graph-replayed GPU activities whose replay matches no recorded capture launch by launch (count or "     \
    "kinds differ): no op, shapes or layer")                                                                 \
  X(kGraphCaptureLaunch, "graph_capture_launch", kInfo,                                                      \
    "launch calls recorded during a stream capture: they run only when the graph is replayed")               \
  /* roofline */                                                                                             \
  X(kUnmodeledKernel, "unmodeled_kernel", kWarning,                                                          \
    "compute kernels with no FLOP or byte model: their time is reported as unmodeled")                       \
  X(kFlopsAbovePeak, "flops_above_peak", kWarning,                                                           \
    "kernels whose modeled FLOPs exceed peak x duration; useful time clamped to the kernel's time")          \
  X(kConvAssumedGeometry, "conv_assumed_geometry", kWarning,                                                 \
    "convolutions without stride/padding and no output tensor in the trace; output size assumed equal "      \
    "to input (stride 1): their FLOPs may be overstated")                                                    \
  X(kConvOutputFromTrace, "conv_output_from_trace", kInfo,                                                   \
    "convolutions without stride/padding whose output size was read from the tensor the next op "            \
    "consumed or from the backward pass's grad_output")                                                      \
  X(kMfuAboveHfu, "mfu_above_hfu", kWarning,                                                                 \
    "derived model FLOPs exceed the hardware FLOPs credited as useful: some kernels' FLOP models need "      \
    "more than peak x duration (overstated shapes or a low peak); MFU is shown as computed, not clamped")    \
  X(kUnknownDevice, "unknown_device", kWarning,                                                              \
    "GPU not in the device table; fallback peak used (override with --gpu or --peak-tflops)")                \
  /* steps */                                                                                                \
  X(kNoProfilerSteps, "no_profiler_steps", kInfo, "no ProfilerStep#N ranges: no per-step verdict")           \
  X(kStepsFilteredOut, "steps_filtered_out", kInfo, "GPU activities left out by --steps")                    \
  X(kStrayActivity, "stray_activity", kWarning,                                                              \
    "GPU activity beyond an idle gap of 10 times the rest of the trace's span: left out of the window")      \
  X(kLongWindow, "long_window", kWarning,                                                                    \
    "the window is over a day long: the bill covers all of it; check for a clock jump or stray activity")    \
  X(kLongKernel, "long_kernel", kWarning,                                                                    \
    "kernels over an hour long (persistent kernels are real): kept, and billed for their whole time")        \
  /* live agent */                                                                                           \
  X(kDroppedRecords, "dropped_records", kError,                                                              \
    "records the live agent dropped when its buffers were full: totals are low by this much")                \
  X(kTruncatedNativeFile, "truncated_native_file", kWarning,                                                 \
    "native trace cut off (process killed): the partial last chunk was ignored")                             \
  X(kCorruptChunk, "corrupt_chunk", kError, "native trace chunks with a bad checksum; skipped")              \
  /* multi-rank */                                                                                           \
  X(kCollectiveUnmatched, "collective_unmatched", kWarning,                                                  \
    "collectives missing on some ranks of their group")                                                      \
  X(kDuplicateRank, "duplicate_rank", kError, "inputs claiming the same rank")                               \
  X(kClockAlignmentWeak, "clock_alignment_weak", kWarning,                                                   \
    "ranks with too few matched collectives to align their clocks")                                          \
  X(kDuplicateInput, "duplicate_input", kWarning,                                                            \
    "inputs identical to an earlier one (same content, or same rank, process and start): counted once")      \
  X(kSkippedInput, "skipped_input", kWarning, "files in a job folder that are not traces: skipped")

enum class Dq : std::uint16_t {
#define PLASMIENT_DQ_ID(id, name, severity, meaning) id,
  PLASMIENT_DQ_CATALOGUE(PLASMIENT_DQ_ID)
#undef PLASMIENT_DQ_ID
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

// Counts per counter; for counters that set activities aside, their GPU time; and where the
// reader knows it, the byte offset (in the uncompressed input file) of the first occurrence.
// Offsets belong to one file: Merge adds counts and GPU time only.
class DataQuality {
 public:
  // gpu_ns: the GPU time of the counted activities, for counters that set activities aside.
  void Add(Dq id, std::int64_t n = 1, std::int64_t gpu_ns = 0) {
    counts_[static_cast<std::size_t>(id)] += n;
    gpu_ns_[static_cast<std::size_t>(id)] += gpu_ns;
  }
  // One occurrence at `byte_offset` of the input; the smallest offset seen is kept.
  void AddAt(Dq id, std::int64_t byte_offset);
  std::int64_t Get(Dq id) const { return counts_[static_cast<std::size_t>(id)]; }
  double GpuSeconds(Dq id) const { return NsToSeconds(gpu_ns_[static_cast<std::size_t>(id)]); }
  // The first occurrence's byte offset in this file's input; -1 when unknown.
  std::int64_t FirstOffset(Dq id) const { return first_offset_[static_cast<std::size_t>(id)]; }
  void Merge(const DataQuality& other);
  // Non-zero counters, in catalogue order.
  std::vector<std::pair<Dq, std::int64_t>> NonZero() const;

 private:
  static constexpr std::size_t kN = static_cast<std::size_t>(Dq::kCount);
  std::array<std::int64_t, kN> counts_{};
  std::array<std::int64_t, kN> gpu_ns_{};
  std::array<std::int64_t, kN> first_offset_ = [] {
    std::array<std::int64_t, kN> a{};
    a.fill(-1);
    return a;
  }();
};

}  // namespace plasmient::model
