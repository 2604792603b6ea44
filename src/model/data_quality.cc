#include "model/data_quality.h"

#include "base/result.h"

namespace plasmient::model {
namespace {

using enum Severity;

constexpr DqInfo kCatalogue[] = {
    {Dq::kMalformedEvent, "malformed_event", kWarning, "events that are not objects or lack ts/ph; skipped"},
    {Dq::kUnknownCategory, "unknown_category", kInfo,
     "events of a category Plasmient does not model; skipped"},
    {Dq::kUnknownPhase, "unknown_phase", kInfo, "events with an unknown ph; skipped"},
    {Dq::kNegativeDuration, "negative_duration", kWarning, "events with dur < 0; clamped to 0"},
    {Dq::kMissingDuration, "missing_duration", kWarning, "complete events with no dur; taken as 0"},
    {Dq::kInstantEventsSkipped, "instant_events_skipped", kInfo,
     "instant events (memory, markers); not needed"},
    {Dq::kFlowEventsSkipped, "flow_events_skipped", kInfo,
     "flow events; the correlation argument is the join key"},
    {Dq::kCounterEvents, "counter_events", kInfo, "counter events kept as device samples"},
    {Dq::kPythonFunctionsSkipped, "python_functions_skipped", kInfo,
     "python_function events other than nn.Module ranges; not needed by the verdict"},
    {Dq::kCuptiRangeProfilerEvents, "cupti_range_profiler_events", kWarning,
     "CUPTI range-profiler events: the trace was taken in counter mode and has no kernel timeline"},
    {Dq::kAmbiguousTimebase, "ambiguous_timebase", kWarning,
     "baseTimeNanoseconds present but timestamps look absolute; taken as absolute"},
    {Dq::kNonNumericId, "non_numeric_id", kWarning,
     "pid/tid/correlation values of an unknown form; event kept with id -1"},
    {Dq::kMissingTable, "missing_table", kWarning,
     "tables the reader expects (kernels, launches, strings, devices, session start) absent from the input; "
     "that layer is empty"},
    {Dq::kMissingColumn, "missing_column", kWarning,
     "columns the reader uses absent from a table; their values are left unknown"},
    {Dq::kDuplicateApiRow, "duplicate_api_row", kInfo,
     "API rows the exporter wrote twice for one call (older Nsight Systems); one kept"},
    {Dq::kKernelNoLaunch, "kernel_no_launch", kWarning,
     "GPU activity with no matching runtime launch: counts in time, op attribution is partial"},
    {Dq::kLaunchNoKernel, "launch_no_kernel", kInfo, "launch calls whose GPU activity is not in the trace"},
    {Dq::kLaunchNoOp, "launch_no_op", kInfo, "launch calls not enclosed by any CPU op on their thread"},
    {Dq::kExternalIdMismatch, "external_id_equals_correlation", kInfo,
     "kernel External ids equal correlation ids and match no op; ops joined through the launch instead"},
    {Dq::kOpNoShapes, "op_no_shapes", kWarning,
     "ops with a FLOP model but no input shapes (record_shapes off): their kernels are unmodeled"},
    {Dq::kStreamOverlap, "stream_overlap", kWarning, "activities on one stream that overlap in time"},
    {Dq::kDuplicateCorrelation, "duplicate_correlation", kWarning,
     "launch calls sharing a correlation id within one process; the first is used"},
    {Dq::kGpuBeforeLaunch, "gpu_before_launch", kWarning,
     "GPU activity starting before its launch call (host/device clock skew)"},
    {Dq::kQueuedBeforeProfiling, "queued_before_profiling", kWarning,
     "GPU activity launched before profiling began (no launch in the trace, earlier correlation ids): "
     "left out of the window"},
    {Dq::kUnmodeledKernel, "unmodeled_kernel", kWarning,
     "compute kernels with no FLOP or byte model: their time is reported as unmodeled"},
    {Dq::kFlopsAbovePeak, "flops_above_peak", kWarning,
     "kernels whose modeled FLOPs exceed peak x duration; useful time clamped to the kernel's time"},
    {Dq::kConvAssumedGeometry, "conv_assumed_geometry", kWarning,
     "convolutions without stride/padding and no output tensor in the trace; output size assumed equal "
     "to input (stride 1): their FLOPs may be overstated"},
    {Dq::kConvOutputFromTrace, "conv_output_from_trace", kInfo,
     "convolutions without stride/padding whose output size was read from the tensor the next op "
     "consumed or from the backward pass's grad_output"},
    {Dq::kMfuAboveHfu, "mfu_above_hfu", kWarning,
     "derived model FLOPs exceed the hardware FLOPs credited as useful: some kernels' FLOP models need "
     "more than peak x duration (overstated shapes or a low peak); MFU is shown as computed, not clamped"},
    {Dq::kUnknownDevice, "unknown_device", kWarning,
     "GPU not in the device table; fallback peak used (override with --gpu or --peak-tflops)"},
    {Dq::kUnknownDtype, "unknown_dtype", kInfo,
     "ops with an unrecognized input dtype; the run's dominant dtype assumed"},
    {Dq::kNoProfilerSteps, "no_profiler_steps", kInfo, "no ProfilerStep#N ranges: no per-step verdict"},
    {Dq::kStepsFilteredOut, "steps_filtered_out", kInfo, "GPU activities left out by --steps"},
    {Dq::kStrayActivity, "stray_activity", kWarning,
     "GPU activity beyond an idle gap over 100 times the rest of the trace's span: left out of the window"},
    {Dq::kDroppedRecords, "dropped_records", kError,
     "records the live agent dropped when its buffers were full: totals are low by this much"},
    {Dq::kTruncatedNativeFile, "truncated_native_file", kWarning,
     "native trace cut off (process killed): the partial last chunk was ignored"},
    {Dq::kCorruptChunk, "corrupt_chunk", kError, "native trace chunks with a bad checksum; skipped"},
    {Dq::kCollectiveUnmatched, "collective_unmatched", kWarning,
     "collectives missing on some ranks of their group"},
    {Dq::kDuplicateRank, "duplicate_rank", kError, "inputs claiming the same rank"},
    {Dq::kClockAlignmentWeak, "clock_alignment_weak", kWarning,
     "ranks with too few matched collectives to align their clocks"},
    {Dq::kDuplicateInput, "duplicate_input", kWarning,
     "inputs identical to an earlier one (same content, or same rank, process and start): counted once"},
    {Dq::kSkippedInput, "skipped_input", kWarning, "files in a job folder that are not traces: skipped"},
};
static_assert(std::size(kCatalogue) == static_cast<std::size_t>(Dq::kCount),
              "every Dq counter needs a catalogue entry");

constexpr bool CatalogueInOrder() {
  for (std::size_t i = 0; i < std::size(kCatalogue); ++i) {
    if (static_cast<std::size_t>(kCatalogue[i].id) != i) return false;
  }
  return true;
}
static_assert(CatalogueInOrder(), "catalogue entries must follow the enum order");

}  // namespace

const DqInfo& Describe(Dq id) {
  auto i = static_cast<std::size_t>(id);
  PLASMIENT_CHECK(i < std::size(kCatalogue));
  return kCatalogue[i];
}

std::string_view SeverityName(Severity s) {
  switch (s) {
    case kInfo:
      return "info";
    case kWarning:
      return "warning";
    case kError:
      return "error";
  }
  return "unknown";
}

void DataQuality::Merge(const DataQuality& other) {
  for (std::size_t i = 0; i < counts_.size(); ++i) {
    counts_[i] += other.counts_[i];
    gpu_ns_[i] += other.gpu_ns_[i];
  }
}

std::vector<std::pair<Dq, std::int64_t>> DataQuality::NonZero() const {
  std::vector<std::pair<Dq, std::int64_t>> out;
  for (std::size_t i = 0; i < counts_.size(); ++i) {
    if (counts_[i] != 0) out.emplace_back(static_cast<Dq>(i), counts_[i]);
  }
  return out;
}

}  // namespace plasmient::model
