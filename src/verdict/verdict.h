// The verdict: achieved fraction of peak, where the rest went (seven losses that sum with it to 1),
// what to change, and what it costs. Built per rank, per step and for the job (docs/verdict.md).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/time_units.h"
#include "join/collective_instance.h"
#include "join/graph_replay.h"
#include "model/data_quality.h"
#include "roofline/counter_model.h"
#include "roofline/roofline.h"
#include "verdict/cluster_figures.h"
#include "verdict/comm_roles.h"
#include "verdict/host_causes.h"
#include "verdict/kernel_class.h"

namespace plasmient::verdict {

enum class Loss : std::uint8_t {
  kComputeInefficiency,
  kMemoryBound,
  kUnmodeledKernels,
  kExposedCommunication,
  kPipelineBubble,
  kHostBoundIdle,
  kDataMovement,
  kCount
};
inline constexpr std::size_t kLossCount = static_cast<std::size_t>(Loss::kCount);

std::string_view LossKey(Loss loss);    // "compute_inefficiency", ...
std::string_view LossLabel(Loss loss);  // "exposed all-reduce wait", ...

// Seconds of one window, split exactly: useful_s + Σ loss_s = wall_s.
struct Figures {
  TimeNs start_ns = 0, end_ns = 0;
  double wall_s = 0;
  double kernel_union_s = 0;  // utilization numerator
  double useful_s = 0;
  std::array<double, kLossCount> loss_s{};

  double utilization() const { return wall_s > 0 ? kernel_union_s / wall_s : 0; }
  double achieved() const { return wall_s > 0 ? useful_s / wall_s : 0; }
  double lost() const { return 1 - achieved(); }  // the share that did no useful work: Σ loss
  double lost_s() const { return wall_s - useful_s; }
  double span_s() const { return NsToSeconds(end_ns - start_ns); }  // first to last instant
  double loss(Loss l) const { return wall_s > 0 ? loss_s[static_cast<std::size_t>(l)] / wall_s : 0; }
  // Seconds with a compute kernel resident: the useful time and the three compute losses.
  double compute_s() const {
    return useful_s + loss_s[static_cast<std::size_t>(Loss::kComputeInefficiency)] +
           loss_s[static_cast<std::size_t>(Loss::kMemoryBound)] +
           loss_s[static_cast<std::size_t>(Loss::kUnmodeledKernels)];
  }
  void Add(const Figures& other);  // capacity-weighted accumulation
};

// What held an activity back, for the reader: communication and copies by their class, a compute
// kernel by where its lost time went.
enum class Bound : std::uint8_t { kCompute, kMemory, kUnmodeled, kCommunication, kMemoryCopy };
std::string_view BoundName(Bound b);  // "compute", "memory", "unmodeled", "communication", "memory-copy"
Bound BoundOfLoss(Loss loss);

// The verdict's words for a window's achieved fraction and utilization (docs/verdict.md, "The
// verdict words"): "busy, not useful", "mostly idle", "well used" or "partly useful". A window
// whose usefulness cannot be judged (Judgement) is "mostly idle, usefulness unknown" or
// "busy, usefulness unknown": utilization is measured, usefulness is not.
std::string_view VerdictWords(const Figures& f, bool judgeable = true);

struct StepFigures {
  std::int64_t number = -1;  // ProfilerStep#N
  Figures figures;
};

// The device tier seen from a kernel (docs/verdict.md, "Device activity beside each kernel"):
// the device's SM, tensor and DRAM activity samples (model::kSmActiveMetric, ...) that fell
// inside its calls, summed, so that means over calls and over ranks add up. The SM clock (MHz,
// nvml.sm_clock_mhz) rides along for the counter model (roofline/counter_model.h); it is not an
// activity and any() does not count it.
enum class DeviceMetric : std::uint8_t { kSmActive, kTensorActive, kDramActive, kSmClockMhz, kCount };
inline constexpr std::size_t kDeviceMetricCount = static_cast<std::size_t>(DeviceMetric::kCount);

struct DeviceActivity {
  std::array<double, kDeviceMetricCount> sum_pct{};
  std::array<std::int64_t, kDeviceMetricCount> samples{};

  bool any() const;  // any activity sample (not only clocks)
  // The mean over its samples, as a fraction (0.42 for 42%); -1 when none fell inside.
  double Mean(DeviceMetric m) const;
  // The mean in the samples' own unit (percent, MHz); -1 when none fell inside.
  double MeanRaw(DeviceMetric m) const;
  // The readings the counter model takes (roofline::EstimateFromCounters).
  roofline::CounterReading Reading() const;
  void Merge(const DeviceActivity& other);
};

// Aggregate over all calls of one kernel name (or one op name).
struct KernelAggregate {
  std::string name;
  std::string op;  // most frequent attributed op ("" when none)
  Bound bound = Bound::kCompute;
  std::int64_t calls = 0;
  double time_s = 0;   // summed durations
  double share_s = 0;  // share of compute time (concurrency split)
  double flops = 0, bytes = 0;
  double useful_s = 0;
  double lost_s = 0;
  Loss loss = Loss::kComputeInefficiency;  // where its lost time went
  double peak_flops_per_s = 0;             // for its dtype
  double memory_bandwidth_bytes_per_s = 0;
  DeviceActivity device;  // its device's activity during its calls

  // Whether any of its calls has a FLOP or byte model; without one it has no point on the roofline
  // and no achieved figure (sinks show none).
  bool modeled() const { return flops > 0 || bytes > 0; }
  // Its calls together as one point on the roofline (roofline::Evaluate).
  roofline::RooflinePoint roofline_point() const;
  double arithmetic_intensity() const { return roofline_point().ai; }  // 0 when bytes are unknown
  double ceiling_flops_per_s() const { return roofline_point().ceiling_flops_per_s; }  // min(P, AI·BW)
  double achieved_flops_per_s() const { return roofline_point().achieved_flops_per_s; }
  double achieved_fraction() const { return roofline_point().peak_fraction; }  // of the peak for its dtype
  double roofline_fraction() const {
    return roofline_point().roofline_fraction;
  }  // of the ceiling, or bandwidth share
};

// The collective families exposed communication is named by (docs/verdict.md, "Exposed
// communication"): each asks for a different fix.
enum class CommFamily : std::uint8_t { kAllReduce, kAllToAll, kGatherScatter, kOther, kCount };
inline constexpr std::size_t kCommFamilyCount = static_cast<std::size_t>(CommFamily::kCount);
CommFamily FamilyOf(join::CollectiveKind kind);
// Exposed communication's label when one family holds it: "exposed all-reduce wait", ...
std::string_view CommFamilyLabel(CommFamily family);
std::string_view CommFamilyName(
    CommFamily family);  // "all-reduce", "all-to-all", "all-gather/reduce-scatter", ...

// Kernel durations by whole microsecond, the last bucket holding the longer ones: a job's median
// over its ranks without keeping every duration.
inline constexpr std::size_t kKernelDurationBuckets = 256;

// GEMM kernels of one shape whose time fell below the tensor-core peak (docs/fixes.md).
struct GemmShapeLoss {
  std::array<std::int64_t, 3> mnk{};  // M, N, K
  std::string dtype;                  // "bf16", ...
  bool unaligned = false;             // N or K not a multiple of the dtype's 16-byte tile
  std::int64_t kernels = 0;
  double lost_s = 0;  // their compute-below-peak lost time
};

// What the trace shows about the program; the fixes are chosen by it (docs/fixes.md).
// A glue kernel shorter than this cannot stream at the memory's bandwidth: its launch and tail
// latency (a few µs) hold most of its time, so its bytes over its duration read low however it is
// written (Evidence::memory_bound_glue_short_s).
inline constexpr TimeNs kShortGlueKernelNs = 10 * kNsPerUs;

struct Evidence {
  std::int64_t aten_ops = 0;         // PyTorch ops
  std::int64_t cpu_ranges = 0;       // host ranges of any kind (0: recorded without CPU activities)
  std::int64_t pytorch_kernels = 0;  // kernels of PyTorch's own (at::native, at::cuda)
  std::int64_t ops_with_shapes = 0;  // ops carrying Input Dims
  std::int64_t backward_ops = 0;     // autograd backward ops: training
  std::int64_t graph_launches = 0;   // cudaGraphLaunch / hipGraphLaunch
  // CUDA/HIP graphs (docs/graphs.md): launches that replayed GPU work, captures and
  // instantiations recorded, and the kept kernels the replays ran, matched to a captured launch
  // or not; of those with no model, the unmodeled time the sweep charged.
  std::int64_t graph_replays = 0, graph_captures = 0, graph_instantiations = 0;
  // Launches recorded inside the captures, GPU activities that ran outside any replay: with the
  // replays, what trace_kind() reads.
  std::int64_t graph_captured_launches = 0, graph_eager_activities = 0;
  std::int64_t graph_replayed_kernels = 0, graph_matched_kernels = 0;
  double graph_replayed_s = 0;
  std::int64_t graph_unmodeled_kernels = 0;
  double graph_unmodeled_s = 0;
  std::int64_t compute_kernels = 0;
  std::array<std::int64_t, kKernelDurationBuckets> compute_kernel_us{};  // their durations, by µs
  // GEMMs with small or unaligned shapes and their lost time; the shapes by lost time (a few).
  std::int64_t poor_gemm_kernels = 0;
  double poor_gemm_lost_s = 0;
  std::vector<GemmShapeLoss> poor_gemm_shapes;
  std::int64_t pageable_copies = 0;  // memcpys from or to pageable host memory
  // The data-movement loss (copies' and memsets' share of the window) by kind of copy.
  std::array<double, kCopyKindCount> copy_lost_s{};
  // Compute-below-peak and memory-bound lost time by kernel class (verdict/kernel_class.h).
  ClassSeconds compute_lost_by_class{}, memory_lost_by_class{};
  // Exposed communication (the sweep's share of collective kernels, docs/verdict.md) by family.
  std::array<double, kCommFamilyCount> exposed_comm_s{};
  double score_softmax_s = 0;  // softmax kernels over L×L attention scores (eager attention)
  // The memory-bound lost time by what lost it: kernels priced by a GEMM model (their weights
  // read for few rows), and the glue between the heavy ops (elementwise, norms, casts, copies,
  // concatenations: kernels of no GEMM, convolution or attention model); the glue's ops by lost
  // time (a few).
  double memory_bound_gemm_s = 0, memory_bound_glue_s = 0;
  std::vector<std::pair<std::string, double>> memory_glue_ops;
  // Of the glue's lost time: in kernels already fused (IsFusedKernelName), and in kernels shorter
  // than kShortGlueKernelNs (too short to stream at the memory's bandwidth: launch and tail latency
  // hold most of their time); and the glue kernels' count.
  double memory_bound_glue_fused_s = 0, memory_bound_glue_short_s = 0;
  std::int64_t memory_bound_glue_kernels = 0;
  // GEMM kernels' time, and Σ of time × rows (M times the product's batch: the tokens each read
  // of the weights serves), for their time-weighted rows.
  double gemm_kernel_s = 0, gemm_rows_kernel_s = 0;
  double fp32_tensor_peak_flops_per_s = 0;  // the device's TF32 peak: what fp32 GEMMs could run at
  // Host-bound idle by what the host was doing while the GPU waited (verdict/host_causes.h).
  HostIdleCauses host_idle;
  // Exposed communication by the role of its collectives (verdict/comm_roles.h).
  CommRoles comm_roles;

  double exposed_comm_total_s() const;
  double exposed_comm(CommFamily family) const { return exposed_comm_s[static_cast<std::size_t>(family)]; }
  // The family holding at least kCommFamilyDominantShare of the exposed time; nullopt when the
  // time is mixed or nothing is exposed.
  std::optional<CommFamily> dominant_comm_family() const;
  double median_compute_kernel_us() const;  // from the histogram: the bucket's µs; 0 with none
  double gemm_rows() const { return gemm_kernel_s > 0 ? gemm_rows_kernel_s / gemm_kernel_s : 0; }
  join::TraceKind trace_kind() const;
  bool pytorch() const { return aten_ops > 0; }
  bool training() const { return backward_ops > 0; }
  void Merge(const Evidence& other);
};

// Below this share of compute-kernel time with a FLOP or byte model, the FLOPs derived from
// the trace miss too much work to be called the model's: MFU is not reported (docs/verdict.md).
inline constexpr double kMfuMinCoverage = 0.90;
// Below this share of compute-kernel time with a FLOP or byte model, the verdict does not judge
// how useful the job was (docs/verdict.md, "Judgeable"): the unmodeled kernels then hold more of
// the compute than the modeled ones, so what is known of the compute is less than what is not;
// their time counts as loss, which makes the achieved fraction a lower bound that could sit
// anywhere up to the unmodeled share higher, and every figure read from it (the verdict's words,
// headroom, MFU derived from the trace, the bill's waste) with it. One rule at every coverage:
// 0% (no shapes recorded) and 15% alike.
inline constexpr double kJudgeMinCoverage = 0.50;
// Below this much GPU-busy time (the union of kernels, copies and memsets, Σ over ranks) the window
// is too small for its shares to describe a workload (docs/verdict.md, "Judgeable"): every activity
// carries fixed costs of its own — a launch latency of a few microseconds between dependent
// kernels, and edges known to about a microsecond (the GPU timer's resolution, the integer
// microseconds of older traces) — so half a millisecond of work holds a few dozen such edges at
// most, and its losses describe those edges, not the work. It is also less than one step of any
// model in the dev traces (the smallest, a batch-1 ViT inference, is 0.6 ms of GPU time a step). No
// floor on the count of activities: five 16-ms GEMMs are a sound measurement of those GEMMs.
inline constexpr double kJudgeMinGpuBusyS = 0.5e-3;

// Whether the models cover enough of the compute for the verdict to judge its usefulness, and if
// not, why and what to record instead: the evidence the unmodeled-kernels fix reads (no shapes
// recorded, no CPU activities, a program that is not PyTorch, graph replays with no capture).
struct Judgement {
  bool judgeable = true;
  std::optional<double> coverage;  // JobVerdict::model_coverage(); none with no compute kernel
  double min_coverage = kJudgeMinCoverage;
  double gpu_busy_s = 0;  // Σ over ranks of the GPU-busy time (kernels, copies, memsets)
  double min_gpu_busy_s = kJudgeMinGpuBusyS;
  // The achieved fraction were every unmodeled kernel's share useful: the fraction's upper bound.
  double achieved_at_most = 0;
  // What the achieved fraction is: "measured"; "lower_bound" (too little modeled: the unmodeled
  // kernels count as loss); "assumed_device" (the device is unknown: against a stand-in's peak,
  // could be higher or lower).
  std::string achieved_is = "measured";
  bool lower_bound() const { return achieved_is == "lower_bound"; }
  bool assumed_device() const { return achieved_is == "assumed_device"; }
  std::string cause;     // "no_shapes", "gpu_only", "not_pytorch", "graph_replay", "ops_not_modeled",
                         // "unknown_device", "no_gpu_activity", "window_too_small"; "" when judgeable
  std::string evidence;  // what the trace lacks: "no op in the trace carries Input Dims"
  std::string reason;    // one line: the coverage and the evidence
  std::string fix;       // what to record (or pass) so that it can be judged
};

// A rank's iterations read from the timeline when the trace marks no steps (verdict/iterations.h,
// docs/verdict.md, "Warm-up"): a host range, or failing one a kernel, that recurs once per
// iteration, each period between its starts launching the same GPU work.
struct Iterations {
  std::string source;            // "host_range" or "gpu_kernel"; "" when none was found
  std::string marker;            // the recurring range's or kernel's name
  std::int64_t occurrences = 0;  // its starts
  // Each iteration's GPU window start (trace clock): the earliest start of the activities it
  // issued; the windows tile the timeline as steps' do (docs/verdict.md, "The window").
  std::vector<TimeNs> start_ns;
  std::vector<double> wall_s;   // each complete iteration's window (start to the next start)
  std::int64_t activities = 0;  // GPU activities a steady iteration launches (the median)
  bool found() const { return !wall_s.empty(); }
};

// A host cost that happened once, early (verdict/iterations.h): GPU idle under one range (cause
// and name) in the run's leading iterations, or before them, that the steady iterations do not
// repeat. Warm-up evidence: the allocator growing, cuDNN's autotuning, handles and streams made at
// first use.
struct OnceEarlyCost {
  std::string name;
  HostCause cause = HostCause::kUnknown;
  double idle_s = 0;
};

// Whether the window holds the run's warm-up rather than its steady state (docs/verdict.md,
// "Warm-up"): leading steps much slower than the rest, or warm-up work (compilation, module
// loading, graph capture) holding the GPU idle for a good part of the window. The figures stay
// the window's; the flag says what they describe and how to read the steady state.
struct WarmUp {
  bool detected = false;
  bool by_steps = false;        // leading steps ran slower than kWarmUpStepRatio × the later steps' median
  bool by_iterations = false;   // no step marks: leading iterations (Iterations) ran as much slower
  bool by_causes = false;       // warm-up causes hold at least kWarmUpMinShare of the capacity
  std::string confidence;       // "high" with the steps' evidence, "medium" from the causes alone
  std::int64_t skip_steps = 0;  // leading steps to leave out (--steps K:), the most of any rank
  double slow_steps_excess_s = 0;  // Σ over ranks of those steps' time beyond the later median
  // The iterations of the rank that speaks for the job (the costliest slow leading iterations, else
  // the first rank whose iterations were found): how they were read and what the first ones took.
  std::string iterations_source, iterations_marker;
  std::int64_t iterations = 0;       // its complete iterations
  std::int64_t slow_iterations = 0;  // of them, the leading ones over the ratio
  double first_iteration_s = 0, iteration_reference_s = 0;
  double slow_iterations_excess_s = 0;  // Σ over ranks of those iterations' time beyond the later median
  // Compile and graph-capture GPU idle, and the once-early costs' (Σ over ranks).
  double warm_up_causes_s = 0;
  double once_early_s = 0;                // of warm_up_causes_s: the once-early costs' idle
  std::vector<OnceEarlyCost> once_early;  // the largest, over the ranks (merged by cause and name)
  double share = 0;                       // the larger of the two over the capacity
  std::string evidence;                   // what the timeline shows of it
  std::string fix;                        // how to read the steady state
};

// Work that reads as faster than its peak by more than this factor counts as above peak
// (model::Dq::kFlopsAbovePeak, kMfuAboveHfu); below it, timestamp rounding.
inline constexpr double kAbovePeakTolerance = 1.0001;

// One node of the module tree, or one module type (all instances of a class together): the
// sweep's figures of the GPU activities under it (docs/layers.md). Inclusive of its subtree.
struct LayerFigures {
  std::string path;                     // "Qwen2Model_0/Qwen2DecoderLayer_3/Qwen2Attention_3"; "" for a type
  std::string name;                     // the last name of the path; "" for a type
  std::string type;                     // "Qwen2Attention"
  std::int32_t depth = 0, parent = -1;  // parent: index in the same list, -1 at the top
  std::int64_t instances = 0;           // a type: module instances (paths) of that type
  std::int64_t calls = 0;               // ranges that ran (forward calls)
  std::int64_t kernels = 0;             // GPU activities
  double gpu_time_s = 0;                // Σ of their sweep shares (concurrent kernels split)
  double useful_s = 0;
  std::array<double, kLossCount> loss_s{};
  double flops = 0;
  std::vector<std::pair<std::string, double>> top_kernels;  // (kernel, GPU time s), largest first

  double achieved_fraction() const { return gpu_time_s > 0 ? useful_s / gpu_time_s : 0; }
  double lost_s() const { return gpu_time_s - useful_s; }
  // Its loss as a fraction of its GPU time: with achieved_fraction(), the losses sum to 1.
  double loss_fraction(Loss loss) const {
    return gpu_time_s > 0 ? loss_s[static_cast<std::size_t>(loss)] / gpu_time_s : 0;
  }
  Loss main_loss() const;  // the largest of loss_s
  void Add(const LayerFigures& other);
};

// The model layer of a rank or job: the tree in depth-first order (parents before children,
// "(backward)" and "(no module)" last) and the types by GPU time. The top-level nodes' figures
// sum to the window's GPU time: wall − host-bound idle.
struct Layers {
  double window_s = 0;  // the rank's wall time; for the job, Σ over ranks
  std::vector<LayerFigures> nodes, types;
  double share_of_window(const LayerFigures& f) const { return window_s > 0 ? f.gpu_time_s / window_s : 0; }
  double gpu_time_s() const;  // Σ of the top-level nodes: wall − host-bound idle
  // Its GPU time over the tree's (gpu_time_s()); 0 when the tree has none.
  double share_of_gpu_time(const LayerFigures& f) const;
  bool has_ranges() const;  // some node is a module or annotation range, not only the catch-alls
};

struct DeviceChoice {
  std::string name;  // device table row name
  std::string key;
  std::string trace_name;   // as the trace reports it
  std::int32_t index = -1;  // the GPU the kernels ran on most (the trace's device id); -1 when none
  std::string source;       // how it was chosen: "trace deviceProperties", "--gpu", ...
  bool assumed = false;     // no --gpu and no device field matched: a guess; `source` says why
  bool unknown = false;     // assumed with no clue at all (no kernel names an architecture either)
  std::string peak_dtype;   // dominant dtype, e.g. "bf16"
  // What the peak and bandwidth are: "datasheet", or "measured" (--ceiling measured) with where
  // and when they were measured in ceiling_source.
  std::string ceiling = "datasheet";
  std::string ceiling_source;
  double peak_flops_per_s = 0;
  double memory_bandwidth_bytes_per_s = 0;
  double price_per_gpu_hour = 0;
};

using join::CollectiveInstance;

template <std::size_t N>
constexpr std::array<TimeNs, N> FilledWith(TimeNs v) {
  std::array<TimeNs, N> a{};
  a.fill(v);
  return a;
}

// One op of a rank's window (its name and input shapes) with the time of the compute kernels it
// launched, per ProfilerStep: what the cluster stage compares across ranks to name a straggler's
// slow ops (docs/fixes.md, "A named straggler and its slow ops"). Kernels launched under no op
// are keyed by their own name, with `op` empty.
struct OpStepTimes {
  std::string op;      // "aten::mm"; "" for kernels launched under no op
  std::string shapes;  // its Input Dims; "" when not recorded
  std::string kernel;  // its kernel with the most time
  // (ProfilerStep number, seconds of its compute kernels), by step; step -1 holds the kernels
  // launched outside any step.
  std::vector<std::pair<std::int64_t, double>> step_s;
  double total_s() const;
};

// Ops per rank whose step times are kept: the heaviest by time. A straggler's slow op is among
// its heaviest; on the other ranks an op missing from the list is not matched.
inline constexpr std::size_t kOpStepTimesKept = 64;

struct ActivityTable;  // verdict/activity_table.h

struct RankVerdict {
  std::string path, format;
  std::int64_t rank = -1;
  std::int64_t world_size = -1;  // as the trace says; -1 when it does not
  std::string job_id;            // a run id the trace carries, else ""
  std::string backend;           // the communication backend ("nccl", "gloo"), else ""
  std::string pg_config;         // the trace's process-group configuration (minified JSON), else ""
  std::int64_t events = 0;
  std::int64_t input_bytes = 0;
  DeviceChoice device;
  Figures run;
  std::vector<StepFigures> steps;
  // Peer figures (HTA's temporal breakdown and comm/comp overlap).
  double gpu_busy_s = 0, compute_s = 0, communication_s = 0, communication_overlapped_s = 0;
  double hardware_flops = 0;       // Σ modeled FLOPs of kept kernels
  double compute_kernel_s = 0;     // Σ durations of kept compute kernels
  double modeled_compute_s = 0;    // of which a FLOP or byte model priced
  double capacity_flops = 0;       // P × T
  double model_flops = -1;         // MFU numerator when known
  std::string model_flops_source;  // "--model-flops-per-step", "derived: 3 × forward ...", ""
  std::int64_t kernels = 0, kept_activities = 0;
  // Its kept activities as priced, past the trace: only when AnalyzeOptions::keep_activities asked
  // (verdict/activity_table.h); null otherwise and for a rank with no GPU activity.
  std::shared_ptr<const ActivityTable> activities;
  std::vector<KernelAggregate> top_kernels, top_ops;  // by lost time, bounded
  std::vector<CollectiveInstance> collectives;        // kept communication kernels, by start
  Layers layers;                                      // the model layer (nn.Module tree)
  std::vector<OpStepTimes> op_times;                  // the heaviest ops' time per step, bounded
  Iterations iterations;                              // only when the trace marks no steps
  std::vector<OnceEarlyCost> once_early;              // by idle, largest first, bounded
  double once_early_s = 0;                            // Σ of every once-early cost's idle
  // Compilation and graph-capture idle that recurs: what the steady iterations (after the slow
  // leading ones, else after the first) hold, and the same per leading iteration. A cost of the
  // loop, not of a warm-up (verdict/iterations.h).
  double steady_compile_capture_s = 0;
  // Cluster figures (docs/cluster.md), set by the cluster stage when the job has two ranks or more.
  double clock_offset_s = 0;  // its clock minus the lowest rank's
  bool clock_aligned = false;
  double wait_on_peers_s = 0, transfer_s = 0, caused_wait_s = 0;  // collectives
  double p2p_wait_s = 0;  // send/recv time spent waiting on the neighbour
  // Its exposed collective time (no compute resident) split into waiting for the last peer and
  // the transfer after, over its matched collectives (docs/cluster.md, "Who made whom wait").
  double exposed_wait_s = 0, exposed_transfer_s = 0;
  Evidence evidence;
  model::DataQuality quality;
  std::string no_gpu_reason;  // non-empty when the trace has no GPU activity
  // The device tier's samples over the run's window W, or over the whole trace when it has no GPU
  // activity (a device-tier-only file): what serve's device gauges and estimate read.
  DeviceActivity device_tier;
  // The counter model's estimate over the same seconds (docs/counters.md), uncalibrated: an
  // estimate beside the exact figures, never in their place. nullopt without pipe activity samples.
  std::optional<roofline::CounterEstimate> counter_estimate;
  // Per loss, a representative instant of it on the rank's clock, kNoTime when it has none
  // (verdict/column.h, WorstInstant): where `plasmient explain --at worst` and the first fix's
  // pointer look.
  std::array<TimeNs, kLossCount> worst_instant_ns = FilledWith<kLossCount>(kNoTime);
};

// The module type where a loss sits, when the evidence is per layer (docs/layers.md): the most
// specific type holding at least half of that loss's time under the job's module tree.
struct FixLayer {
  std::string type;  // "Qwen2Attention"
  std::int64_t instances = 0;
  double share_of_gpu_time = 0;  // its GPU time over the tree's (wall − host-bound idle)
  double achieved_fraction = 0;
  double loss_fraction = 0;  // the fix's loss over its GPU time
  double share_of_loss = 0;  // its part of the fix's loss under the tree
  std::string top_kernel;    // its kernel with the most GPU time; "" when unknown
};

// One cause of a loss, found in the timeline (docs/verdict.md, "Causes"): its share of the loss,
// what was seen, and how directly the evidence shows it.
struct Cause {
  std::string kind;        // "allocator", "data_loading", ... (HostCauseName)
  double seconds = 0;      // of the loss, summed over ranks
  double share = 0;        // of the loss
  std::string evidence;    // the host calls or ranges, their count and time
  std::string confidence;  // "high": a range names it on the launching thread; "medium": inferred
                           // (another thread, gap length, host work); "low": nothing spans it
};

struct Fix {
  Loss loss;
  double fraction = 0;
  std::string action;
  std::vector<std::string> culprits;
  std::string evidence;    // the numbers that chose this advice (docs/fixes.md); empty for general advice
  double recoverable = 0;  // the most of capacity the fix can recover
  std::optional<FixLayer> layer;
  std::vector<Cause> causes;  // the loss split by cause, largest first; empty where none is read
  // The fix's own collective family when it is about one (a straggler's): its label names that
  // family, not the job's dominant one (FixLabel).
  std::optional<CommFamily> family = std::nullopt;
};

// The achieved fraction the bill's addressable share is measured against when none is given
// (--target-mfu).
inline constexpr double kDefaultTargetFraction = 0.40;

// The job window's bill (job/bill.h).
struct Bill {
  double price_per_gpu_hour = 0;
  double gpu_hours = 0;
  double spend = 0;
  double computed = 0;             // spend × achieved
  double paid_never_computed = 0;  // spend × (1 − achieved)
  double target_fraction = kDefaultTargetFraction;
  double addressable = 0;          // spend × max(0, 1 − achieved / target)
  double wasted_per_gpu_hour = 0;  // price × (1 − achieved): what each GPU-hour pays for no useful work
};

// Every call of one collective over the job's ranks, by the source's name ("allreduce", "send",
// ...): the report's collectives table (docs/outputs.md).
struct CollectiveTotals {
  std::string name;
  bool p2p = false;  // some call was a send/recv
  std::int64_t calls = 0;
  std::int64_t ranks = 0;  // ranks that ran it
  double time_s = 0;       // Σ of the kernels' durations
  std::int64_t bytes = 0;  // Σ of the message bytes of the calls that report them; 0 when none does
  double bytes_per_s = 0;  // those bytes over those calls' time; 0 when none reports bytes
};

// A pipeline stage: the shape inferred from send/recv beside the bubble the sweep measured.
struct PipelineStageVerdict {
  PipelineStage shape;
  double measured_bubble = 0;  // the rank's pipeline_bubble loss over its run
};

struct JobVerdict {
  std::vector<RankVerdict> ranks;
  Figures job;
  DeviceChoice device;  // of the first rank; per-rank choices live in ranks[]
  double hardware_flops = 0;
  double capacity_flops = 0;  // Σ over ranks of P × T
  double model_flops = -1;
  std::string model_flops_source;
  std::vector<KernelAggregate> top_kernels, top_ops;
  Layers layers;  // the ranks' trees merged by path, types by name
  std::vector<Fix> fixes;
  std::array<std::string, kLossCount> short_fixes;  // per loss, a few words for the terminal
  Evidence evidence;                                // Σ over ranks
  Bill bill;
  model::DataQuality quality;
  // Cluster layer (docs/cluster.md): empty for one rank.
  std::vector<Straggler> stragglers;
  std::vector<CollectiveFigures> collectives;  // the costliest matched collectives
  std::vector<PipelineStageVerdict> pipeline;
  std::vector<std::string> job_problems;            // why the inputs may not be one job
  std::vector<CollectiveTotals> collective_totals;  // by name; set for one rank too

  double compute_kernel_s = 0, modeled_compute_s = 0;  // Σ over ranks
  Judgement judgement;                                 // Diagnose (diagnose/fixes.h)
  WarmUp warm_up;                                      // Diagnose (diagnose/warm_up.h)

  // A loss's label for this job: LossLabel, except exposed communication, named by the
  // collectives whose time was exposed ("exposed all-to-all wait"; docs/verdict.md).
  std::string_view loss_label(Loss loss) const;
  // A fix's label: its loss's, or its own collective family's when it has one.
  std::string_view fix_label(const Fix& fix) const;
  double hfu() const { return job.achieved(); }
  // Share of compute-kernel time with a FLOP or byte model; nullopt with no compute kernel.
  std::optional<double> model_coverage() const;
  // Model FLOPs over capacity; nullopt when unknown (CombineRanks leaves derived model FLOPs
  // unknown when model coverage is below kMfuMinCoverage: docs/verdict.md, "MFU").
  std::optional<double> mfu() const;
  // How many times more useful work the same hardware could do: 1 / achieved; none when nothing
  // useful was modeled, or when the models cover too little to judge (judgement).
  std::optional<double> headroom() const {
    if (job.useful_s <= 0 || !judgement.judgeable) return std::nullopt;
    return job.wall_s / job.useful_s;
  }
};

}  // namespace plasmient::verdict
