// The join: ties every GPU activity to its launch (correlation id), the launch to the innermost
// CPU op and annotation enclosing it on its thread (time containment), and to its ProfilerStep.
// Communication kernels are classified here, from collective arguments first and names last.
#pragma once

#include <cstdint>
#include <vector>

#include "base/result.h"
#include "join/graph_replay.h"
#include "model/trace.h"

namespace plasmient::join {

enum class ActivityClass : std::uint8_t { kCompute, kCollective, kP2P, kMemory };

std::string_view ClassName(ActivityClass c);

// An op of autograd's backward pass, by name ("MmBackward0", "autograd::engine::evaluate_function: …").
bool IsBackwardOpName(std::string_view name);

// A kernel whose name says it communicates (NCCL, RCCL, a multimem or cross-device all-reduce):
// the words in any case.
bool IsCommKernelName(std::string_view name);

struct Step {
  std::int64_t number = -1;   // N of ProfilerStep#N
  model::CpuOpRowId cpu_row;  // its ProfilerStep range
  std::int64_t pid = 0;
  TimeNs start_ns = 0, end_ns = 0;  // CPU range of the step
};

// Module and annotation ranges are the model layer: the ranges a kernel's layer is read from.
inline bool IsLayerRange(model::CpuOpKind kind) {
  return kind == model::CpuOpKind::kModule || kind == model::CpuOpKind::kAnnotation;
}

// How a GPU activity got its layer (docs/layers.md).
enum class LayerSource : std::uint8_t {
  kNone,      // no layer range encloses its launch, and it is not a backward kernel
  kLaunch,    // the innermost layer range enclosing its launch on the launching thread
  kForward,   // a backward kernel: the layer range around the forward op with its autograd sequence number
  kBackward,  // a backward kernel whose forward op is not in the trace
};

// One entry per GpuActivities row, plus the CPU-op tree.
// An entry of Joined::steps (steps by start), not a ProfilerStep number.
using StepRowId = RowId<struct StepsTag>;

struct Joined {
  std::vector<model::ApiRowId> launch;        // its launch, or none
  std::vector<model::CpuOpRowId> op;          // innermost enclosing CpuOps row of kind kOp, or none
  std::vector<model::CpuOpRowId> annotation;  // innermost enclosing kAnnotation row, or none
  std::vector<StepRowId> step;                // its entry of steps (by launch time), or none
  std::vector<ActivityClass> cls;
  std::vector<model::CollectiveRowId> collective;  // Collectives row describing this activity, or none
  std::vector<model::CpuOpRowId> layer;  // its layer range (CpuOps row of kind kModule/kAnnotation), or none
  std::vector<LayerSource> layer_source;
  // No launch in the trace, launched before profiling began (docs/verdict.md, "The window").
  std::vector<char> queued_before_profiling;
  // CUDA/HIP graphs (join/graph_replay.h): which activities a graph launch replayed and the launch
  // recorded during capture each was matched to; op, annotation and layer above come from that
  // captured launch, the step from the replaying one.
  GraphReplays graphs;

  std::vector<model::CpuOpRowId> op_parent;           // per CpuOps row: enclosing row on its thread, or none
  std::vector<model::CollectiveRowId> op_collective;  // per CpuOps row: its Collectives row, or none
  std::vector<Step> steps;                            // ProfilerSteps sorted by start

  bool external_id_equals_correlation = false;
};

// Joins the trace, which stays as ingest left it; counts what does not join in `quality`. Its
// sorts run on up to `threads` threads; the result is the same for any count.
Joined Join(const model::Trace& trace, model::DataQuality& quality, std::size_t threads = 1);

// Launch time of GPU activity i: its launch's start, or kNoTime without a launch.
TimeNs LaunchTime(const model::Trace& trace, const Joined& joined, std::size_t i);

// An API call that blocks the host until the GPU catches up: a stream, device or event
// synchronization, or a synchronous copy (cudaMemcpy, hipMemcpy).
bool IsHostSync(std::string_view api);

}  // namespace plasmient::join
