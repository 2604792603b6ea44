#include "diagnose/fixes.h"

#include <gtest/gtest.h>

namespace plasmient::diagnose {
namespace {

using namespace verdict;  // NOLINT(google-build-using-namespace): the verdict's vocabulary throughout

// A job whose only loss is `loss`, at half of capacity.
JobVerdict JobLosing(Loss loss, const Evidence& e) {
  JobVerdict job;
  job.job.wall_s = 1;
  job.job.useful_s = 0.5;
  job.job.loss_s[static_cast<std::size_t>(loss)] = 0.5;
  job.evidence = e;
  return job;
}

const Fix& OnlyFix(const JobVerdict& job) {
  EXPECT_EQ(job.fixes.size(), 1u);
  return job.fixes.front();
}

// The action of the only fix of a job whose only loss is `loss`.
std::string ActionFor(Loss loss, const Evidence& e) {
  JobVerdict job = JobLosing(loss, e);
  Diagnose(job);
  return OnlyFix(job).action;
}

Evidence PyTorch() {
  Evidence e;
  e.aten_ops = 100;
  e.ops_with_shapes = 100;
  return e;
}

LayerFigures Layer(std::string path, std::string type, std::int32_t depth, double gpu_time_s,
                   double memory_bound_s) {
  LayerFigures f;
  f.path = std::move(path);
  f.type = std::move(type);
  f.depth = depth;
  f.instances = 24;
  f.gpu_time_s = gpu_time_s;
  f.useful_s = gpu_time_s - memory_bound_s;
  f.loss_s[static_cast<std::size_t>(Loss::kMemoryBound)] = memory_bound_s;
  f.top_kernels = {{"flash_fwd_kernel", gpu_time_s / 2}};
  return f;
}

// Model (1 s, 0.5 s memory-bound) holds 24 Blocks (0.9 s, 0.45 s), each an Attention (0.5 s,
// 0.3 s) and an MLP (0.4 s, 0.15 s); 0.1 s under no module, 0.05 s memory-bound.
JobVerdict JobWithLayers() {
  JobVerdict job = JobLosing(Loss::kMemoryBound, PyTorch());
  job.layers.window_s = 1.2;
  job.layers.nodes = {Layer("Model_0", "Model", 0, 1.0, 0.5),
                      Layer("(no module)", "(no module)", 0, 0.1, 0.05)};
  job.layers.types = {Layer("", "Model", 0, 1.0, 0.5), Layer("", "Block", 0, 0.9, 0.45),
                      Layer("", "Attention", 0, 0.5, 0.3), Layer("", "MLP", 0, 0.4, 0.15),
                      Layer("", "(no module)", 0, 0.1, 0.05)};
  return job;
}

TEST(FixRules, TheFixNamesTheInnermostTypeHoldingMostOfTheLoss) {
  JobVerdict job = JobWithLayers();
  Diagnose(job);
  ASSERT_TRUE(OnlyFix(job).layer);
  const FixLayer& l = *OnlyFix(job).layer;
  EXPECT_EQ(l.type, "Attention");  // 0.3 of 0.55 s: the smallest type holding half
  EXPECT_EQ(l.instances, 24);
  EXPECT_DOUBLE_EQ(l.share_of_gpu_time, 0.5 / 1.1);
  EXPECT_DOUBLE_EQ(l.achieved_fraction, 0.4);
  EXPECT_DOUBLE_EQ(l.loss_fraction, 0.6);
  EXPECT_DOUBLE_EQ(l.share_of_loss, 0.3 / 0.55);
  EXPECT_EQ(l.top_kernel, "flash_fwd_kernel");
}

TEST(FixRules, NoLayerWhenNoTypeHoldsHalfTheLoss) {
  JobVerdict job = JobWithLayers();
  job.layers.types[2].loss_s[static_cast<std::size_t>(Loss::kMemoryBound)] = 0.25;  // Attention: 0.25 of 0.55
  Diagnose(job);
  ASSERT_TRUE(OnlyFix(job).layer);
  EXPECT_EQ(OnlyFix(job).layer->type, "Block");
  // Most of the loss outside every module: no type owns it, and (no module) is never named.
  job.layers.nodes[1].loss_s[static_cast<std::size_t>(Loss::kMemoryBound)] = 2.0;
  job.layers.types[4].loss_s[static_cast<std::size_t>(Loss::kMemoryBound)] = 2.0;
  Diagnose(job);
  EXPECT_FALSE(OnlyFix(job).layer);
  // No module ranges at all.
  EXPECT_FALSE([] {
    JobVerdict bare = JobLosing(Loss::kMemoryBound, PyTorch());
    Diagnose(bare);
    return OnlyFix(bare).layer.has_value();
  }());
}

TEST(FixRules, InferenceNeverGetsTheBackwardOverlapFix) {
  JobVerdict inference = JobLosing(Loss::kExposedCommunication, PyTorch());
  Diagnose(inference);
  EXPECT_EQ(OnlyFix(inference).action.find("backward"), std::string::npos) << OnlyFix(inference).action;
  EXPECT_NE(OnlyFix(inference).evidence.find("inference"), std::string::npos);
  EXPECT_DOUBLE_EQ(OnlyFix(inference).recoverable, 0.5);

  Evidence training = PyTorch();
  training.backward_ops = 40;
  JobVerdict train = JobLosing(Loss::kExposedCommunication, training);
  Diagnose(train);
  EXPECT_NE(OnlyFix(train).action.find("backward"), std::string::npos);
  EXPECT_NE(OnlyFix(train).evidence.find("40 backward ops"), std::string::npos);
}

// Exposed collectives of `family` that nothing names the role of.
void Expose(Evidence& e, CommFamily family, double seconds) {
  e.exposed_comm_s[static_cast<std::size_t>(family)] = seconds;
  CommRoleFigures& r = e.comm_roles[CommRole::kUnknown];
  r.by_family_s[static_cast<std::size_t>(family)] = seconds;
  r.exposed_s = 0;
  for (double s : r.by_family_s) r.exposed_s += s;
  r.kernels = 1;
}

// Exposed collectives of one role, `named` of `kernels` named by `name`.
void ExposeRole(Evidence& e, CommRole role, CommFamily family, double seconds, std::int64_t kernels,
                std::int64_t named, std::string name) {
  e.exposed_comm_s[static_cast<std::size_t>(family)] += seconds;
  CommRoleFigures& r = e.comm_roles[role];
  r.by_family_s[static_cast<std::size_t>(family)] += seconds;
  r.exposed_s += seconds;
  r.kernels += kernels;
  r.named += named;
  if (named > 0) r.names.push_back({std::move(name), seconds});
}

// Each role's exposed time is a cause with its share of the loss; the fix follows the largest role
// and names the others, and an all-to-all nothing names is not called MoE. Across ranks, most of
// the exposed time waiting for a late peer leads the fix instead: overlap cannot hide it.
TEST(CommCauses, EachRoleIsACauseWithItsShareAndTheFixFollowsTheLargest) {
  Evidence e = PyTorch();
  ExposeRole(e, CommRole::kEmbedding, CommFamily::kAllToAll, 600e-6, 1, 1, "## sparse_data_dist ##");
  ExposeRole(e, CommRole::kMoe, CommFamily::kAllToAll, 200e-6, 1, 1, "nn.module: deepseekmoe_0");
  ExposeRole(e, CommRole::kUnknown, CommFamily::kAllToAll, 100e-6, 1, 0, "");
  ExposeRole(e, CommRole::kTensorParallel, CommFamily::kAllReduce, 100e-6, 1, 1, "mesh_tp");
  JobVerdict job = JobLosing(Loss::kExposedCommunication, e);
  Diagnose(job);
  const Fix& comm = OnlyFix(job);
  ASSERT_EQ(comm.causes.size(), 4u);
  EXPECT_EQ(comm.causes[0].kind, "embedding");
  EXPECT_NEAR(comm.causes[0].share, 0.6, 1e-9);
  EXPECT_NEAR(comm.causes[0].seconds, 0.3, 1e-9);  // 60% of the 0.5 s loss
  EXPECT_EQ(comm.causes[0].confidence, "high");
  EXPECT_EQ(comm.causes[1].kind, "moe");
  EXPECT_EQ(comm.causes[3].kind, "unknown");
  EXPECT_EQ(comm.causes[3].confidence, "low");
  EXPECT_NE(comm.causes[0].evidence.find("named by ## sparse_data_dist ##"), std::string::npos)
      << comm.causes[0].evidence;
  EXPECT_NE(comm.action.find("TrainPipelineSparseDist"), std::string::npos) << comm.action;
  EXPECT_NE(comm.action.find("MoE"), std::string::npos) << comm.action;
  EXPECT_LT(comm.action.find("embedding"), comm.action.find("MoE")) << comm.action;
  EXPECT_EQ(job.short_fixes[static_cast<std::size_t>(Loss::kExposedCommunication)],
            "pipeline embedding all-to-all");

  RankVerdict rank;
  rank.exposed_wait_s = 800e-6;
  rank.exposed_transfer_s = 200e-6;
  job.ranks.push_back(rank);
  Diagnose(job);
  EXPECT_TRUE(OnlyFix(job).action.starts_with("80% of the exposed time is waiting for peers"))
      << OnlyFix(job).action;
  EXPECT_EQ(job.short_fixes[static_cast<std::size_t>(Loss::kExposedCommunication)], "fix the late rank");
  EXPECT_NE(OnlyFix(job).evidence.find("waiting for late peers 0.8 ms"), std::string::npos)
      << OnlyFix(job).evidence;
}

TEST(FixRules, ExposedAllToAllIsNamed) {
  Evidence e = PyTorch();
  e.backward_ops = 10;
  Expose(e, CommFamily::kAllToAll, 0.8);
  Expose(e, CommFamily::kAllReduce, 0.2);
  JobVerdict job = JobLosing(Loss::kExposedCommunication, e);
  Diagnose(job);
  EXPECT_NE(OnlyFix(job).action.find("all-to-all (80% of it)"), std::string::npos) << OnlyFix(job).action;
  EXPECT_NE(OnlyFix(job).action.find("all-reduce (20% of it)"), std::string::npos) << OnlyFix(job).action;
  EXPECT_EQ(job.short_fixes[static_cast<std::size_t>(Loss::kExposedCommunication)], "overlap all-to-all");
  EXPECT_EQ(job.loss_label(Loss::kExposedCommunication), "exposed all-to-all wait");
  EXPECT_NE(
      OnlyFix(job).evidence.find("unknown: 1.00 s exposed in 1 kernel (all-to-all 80%, all-reduce 20%)"),
      std::string::npos)
      << OnlyFix(job).evidence;

  Expose(e, CommFamily::kAllToAll, 0.05);
  Expose(e, CommFamily::kAllReduce, 0.95);
  JobVerdict mostly_all_reduce = JobLosing(Loss::kExposedCommunication, e);
  Diagnose(mostly_all_reduce);
  EXPECT_EQ(OnlyFix(mostly_all_reduce).action.find("all-to-all"), std::string::npos);  // under 10%
  EXPECT_NE(OnlyFix(mostly_all_reduce).evidence.find("all-to-all 5%"), std::string::npos);
  EXPECT_EQ(mostly_all_reduce.loss_label(Loss::kExposedCommunication), "exposed all-reduce wait");
}

TEST(FixRules, MixedExposedCommunicationIsLabelledMixedAndEveryLargeFamilyGetsItsFix) {
  // Two ranks of one job whose all-to-all share differs by 15 points get the same advice
  // (hta/trace_filter's ranks: 48% and 63%).
  for (double all_to_all : {0.46, 0.61}) {
    Evidence e = PyTorch();
    e.backward_ops = 10;
    Expose(e, CommFamily::kAllToAll, all_to_all);
    Expose(e, CommFamily::kAllReduce, (1 - all_to_all) / 2);
    Expose(e, CommFamily::kGatherScatter, (1 - all_to_all) / 2);
    JobVerdict job = JobLosing(Loss::kExposedCommunication, e);
    Diagnose(job);
    EXPECT_EQ(job.loss_label(Loss::kExposedCommunication), "exposed communication (mixed)");
    EXPECT_EQ(job.short_fixes[static_cast<std::size_t>(Loss::kExposedCommunication)], "overlap all-to-all");
    for (std::string_view s : {"all-to-all (", "all-reduce (", "all-gather/reduce-scatter ("}) {
      EXPECT_NE(OnlyFix(job).action.find(s), std::string::npos) << s << " in " << OnlyFix(job).action;
    }
  }
}

TEST(FixRules, NoExposedCollectiveKeepsTheGenericLabel) {
  JobVerdict job = JobLosing(Loss::kExposedCommunication, PyTorch());
  Diagnose(job);
  EXPECT_EQ(job.loss_label(Loss::kExposedCommunication), "exposed communication");
  EXPECT_EQ(job.loss_label(Loss::kHostBoundIdle), "host-bound idle");
}

TEST(FixRules, RecordShapesOnlyForPyTorchWithoutShapes) {
  Evidence no_shapes = PyTorch();
  no_shapes.ops_with_shapes = 0;
  JobVerdict a = JobLosing(Loss::kUnmodeledKernels, no_shapes);
  Diagnose(a);
  EXPECT_NE(OnlyFix(a).action.find("record_shapes"), std::string::npos);

  JobVerdict with_shapes = JobLosing(Loss::kUnmodeledKernels, PyTorch());
  Diagnose(with_shapes);
  EXPECT_EQ(OnlyFix(with_shapes).action.find("record_shapes"), std::string::npos);
  EXPECT_EQ(with_shapes.short_fixes[static_cast<std::size_t>(Loss::kUnmodeledKernels)].find("record"),
            std::string::npos);

  JobVerdict not_pytorch = JobLosing(Loss::kUnmodeledKernels, Evidence{});
  Diagnose(not_pytorch);
  EXPECT_EQ(OnlyFix(not_pytorch).action.find("record_shapes"), std::string::npos);
  EXPECT_NE(OnlyFix(not_pytorch).action.find("not PyTorch"), std::string::npos);
}

// Host-bound idle of `seconds` attributed to `cause` (verdict/host_causes.h).
Evidence& Idle(Evidence& e, HostCause cause, double seconds, std::string name = "", std::int64_t calls = 0,
               double call_s = 0) {
  auto& c = e.host_idle[cause];
  c.idle_s += seconds;
  c.gaps += 1;
  c.calls += calls;
  c.call_s += call_s;
  if (!name.empty()) c.names.push_back({std::move(name), 1, seconds});
  return e;
}

TEST(FixRules, NoCudaGraphsAdviceOnACudaGraphCapture) {
  Evidence graphs = PyTorch();
  graphs.graph_launches = 70;
  Idle(graphs, HostCause::kLaunch, 0.5, "cudaGraphLaunch");
  JobVerdict a = JobLosing(Loss::kHostBoundIdle, graphs);
  Diagnose(a);
  EXPECT_EQ(OnlyFix(a).action.find("CUDA graphs ("), std::string::npos) << OnlyFix(a).action;
  EXPECT_NE(OnlyFix(a).evidence.find("70 graph launches"), std::string::npos);
  EXPECT_EQ(a.short_fixes[static_cast<std::size_t>(Loss::kHostBoundIdle)].find("CUDA graphs"),
            std::string::npos);

  Evidence eager = PyTorch();
  Idle(eager, HostCause::kLaunch, 0.5, "cudaLaunchKernel");
  EXPECT_NE(ActionFor(Loss::kHostBoundIdle, eager).find("CUDA graphs"), std::string::npos);
}

TEST(FixRules, AGraphCaptureIsAdvisedNothing) {
  Evidence capture = PyTorch();
  capture.graph_captures = 2;
  capture.graph_instantiations = 2;
  capture.graph_captured_launches = 40;  // the warm-up's 120 launches ran, the capture's 40 did not
  capture.graph_eager_activities = 120;
  JobVerdict job = JobLosing(Loss::kHostBoundIdle, capture);
  Diagnose(job);
  EXPECT_TRUE(job.fixes.empty());
  for (const std::string& s : job.short_fixes) EXPECT_EQ(s, kCaptureNoAdvice);
  // A side capture in an eager run: the run is judged.
  Evidence side = capture;
  side.graph_eager_activities = 5000;
  JobVerdict eager = JobLosing(Loss::kHostBoundIdle, side);
  Diagnose(eager);
  EXPECT_EQ(eager.fixes.size(), 1u);
  // Replayed graphs make it a run again, judged as one.
  capture.graph_replays = 3;
  JobVerdict replayed = JobLosing(Loss::kHostBoundIdle, capture);
  Diagnose(replayed);
  EXPECT_EQ(replayed.fixes.size(), 1u);
}

TEST(FixRules, UnmodeledGraphReplaysAskForTheCapture) {
  Evidence graphs = PyTorch();
  graphs.graph_replays = 70;
  graphs.graph_replayed_kernels = 135;
  graphs.graph_unmodeled_kernels = 135;
  graphs.graph_unmodeled_s = 0.4;  // of the 0.5 s unmodeled
  JobVerdict job = JobLosing(Loss::kUnmodeledKernels, graphs);
  Diagnose(job);
  EXPECT_TRUE(OnlyFix(job).action.starts_with("graph-replayed, no capture trace")) << OnlyFix(job).action;
  EXPECT_NE(OnlyFix(job).evidence.find("135 of 135 graph-replayed kernels"), std::string::npos);
  EXPECT_NEAR(OnlyFix(job).recoverable, 0.4, 1e-12);
  // Most of the unmodeled time from eager kernels: the op-model advice, not the capture's.
  graphs.graph_unmodeled_s = 0.05;
  EXPECT_FALSE(ActionFor(Loss::kUnmodeledKernels, graphs).starts_with("graph-replayed"));
}

// The fix follows the largest cause, quotes it, and recovers at most its share; the other causes
// stay in causes[] with their shares.
TEST(FixRules, TheLargestHostCauseChoosesTheFix) {
  Evidence syncs = PyTorch();
  Idle(syncs, HostCause::kSync, 0.3, "cudaStreamSynchronize");
  Idle(syncs, HostCause::kHostWork, 0.2, "aten::index");
  JobVerdict a = JobLosing(Loss::kHostBoundIdle, syncs);
  Diagnose(a);
  EXPECT_NE(OnlyFix(a).action.find("remove synchronizations"), std::string::npos) << OnlyFix(a).action;
  EXPECT_NE(OnlyFix(a).evidence.find("sync 60%, host_work 40%"), std::string::npos) << OnlyFix(a).evidence;
  EXPECT_DOUBLE_EQ(OnlyFix(a).recoverable, 0.3);
  ASSERT_EQ(OnlyFix(a).causes.size(), 2u);
  EXPECT_EQ(OnlyFix(a).causes[0].kind, "sync");
  EXPECT_DOUBLE_EQ(OnlyFix(a).causes[0].share, 0.6);
  EXPECT_DOUBLE_EQ(OnlyFix(a).causes[1].seconds, 0.2);

  // Syncs that left the GPU little idle do not lead: the data loader does.
  Evidence loader = PyTorch();
  Idle(loader, HostCause::kSync, 0.05, "cudaStreamSynchronize");
  Idle(loader, HostCause::kDataLoading, 0.45, "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__");
  const std::string action = ActionFor(Loss::kHostBoundIdle, loader);
  EXPECT_EQ(action.rfind("the GPU waits for the data loader", 0), 0u) << action;
  EXPECT_EQ(action.find("synchronizations"), std::string::npos);
}

TEST(FixRules, AllocatorCallsAreQuotedWithTheirCountAndHostTime) {
  Evidence e = PyTorch();
  Idle(e, HostCause::kAllocator, 0.48, "hipFree", 1360, 0.9);
  Idle(e, HostCause::kUnknown, 0.02);
  JobVerdict a = JobLosing(Loss::kHostBoundIdle, e);
  Diagnose(a);
  EXPECT_NE(OnlyFix(a).action.find("1,360 calls hold the host 900.0 ms of the 1.00 s window"),
            std::string::npos)
      << OnlyFix(a).action;
  EXPECT_NE(OnlyFix(a).action.find("caching allocator"), std::string::npos);
  EXPECT_EQ(OnlyFix(a).causes.back().kind, "unknown");
  EXPECT_EQ(OnlyFix(a).causes.back().confidence, "low");
  EXPECT_EQ(OnlyFix(a).causes.front().confidence, "high");
}

TEST(FixRules, CompileReadFromSlowLaunchesIsInferredNotNamed) {
  // A module load seen only as long launch calls is a reading of their length: medium.
  Evidence slow = PyTorch();
  Idle(slow, HostCause::kCompile, 0.4, "hipLaunchKernel", 12, 0.4);
  JobVerdict a = JobLosing(Loss::kHostBoundIdle, slow);
  Diagnose(a);
  ASSERT_FALSE(OnlyFix(a).causes.empty());
  EXPECT_EQ(OnlyFix(a).causes.front().kind, "compile");
  EXPECT_EQ(OnlyFix(a).causes.front().confidence, "medium");
  // A compiler call on the launching thread names it: high.
  Evidence named = PyTorch();
  Idle(named, HostCause::kCompile, 0.4, "nvrtcCompileProgram", 3, 0.4);
  JobVerdict b = JobLosing(Loss::kHostBoundIdle, named);
  Diagnose(b);
  ASSERT_FALSE(OnlyFix(b).causes.empty());
  EXPECT_EQ(OnlyFix(b).causes.front().confidence, "high");
}

TEST(FixRules, IdleNoHostRangeSpansIsSaidToBeUnknown) {
  Evidence e = PyTorch();
  Idle(e, HostCause::kUnknown, 0.5);
  const std::string action = ActionFor(Loss::kHostBoundIdle, e);
  EXPECT_NE(action.find("its cause is unknown"), std::string::npos) << action;
  EXPECT_EQ(action.find("CUDA graphs"), std::string::npos) << action;
  EXPECT_NE(action.find("torch.profiler"), std::string::npos) << action;
  // A program that is not PyTorch (an Nsight export of a CUDA code) is told how to annotate its own
  // host phases, not to use PyTorch's profiler.
  Evidence other;
  Idle(other, HostCause::kUnknown, 0.5);
  const std::string not_pytorch = ActionFor(Loss::kHostBoundIdle, other);
  EXPECT_NE(not_pytorch.find("NVTX"), std::string::npos) << not_pytorch;
  EXPECT_EQ(not_pytorch.find("torch.profiler"), std::string::npos) << not_pytorch;
}

Evidence TinyKernels(double launch_idle_s) {
  Evidence e = PyTorch();
  e.compute_kernels = 1000;
  e.compute_kernel_us[6] = 700;  // median 6 µs
  e.compute_kernel_us[200] = 300;
  Idle(e, HostCause::kLaunch, launch_idle_s, "cudaLaunchKernel");
  Idle(e, HostCause::kDataLoading, 0.5 - launch_idle_s,
       "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__");
  return e;
}

TEST(FixRules, TinyKernelGapsGetCudaGraphsOrFusion) {
  JobVerdict a = JobLosing(Loss::kHostBoundIdle, TinyKernels(0.4));
  Diagnose(a);
  EXPECT_NE(OnlyFix(a).action.find("many short kernels"), std::string::npos) << OnlyFix(a).action;
  EXPECT_NE(OnlyFix(a).evidence.find("1,000 compute kernels, median 6 µs"), std::string::npos)
      << OnlyFix(a).evidence;
  EXPECT_NE(OnlyFix(a).evidence.find("launch_bound 80%"), std::string::npos) << OnlyFix(a).evidence;
  EXPECT_DOUBLE_EQ(OnlyFix(a).recoverable, 0.4);
  EXPECT_EQ(OnlyFix(a).action.find("remove them first"), std::string::npos) << OnlyFix(a).action;

  // A step that synchronizes with the host cannot be captured as it is: the syncs come out first.
  Evidence syncing = TinyKernels(0.4);
  Idle(syncing, HostCause::kSync, 0, "cudaStreamSynchronize", 10, 0.001);
  JobVerdict s = JobLosing(Loss::kHostBoundIdle, syncing);
  Diagnose(s);
  EXPECT_NE(OnlyFix(s).action.find("makes 10 sync or blocking-copy calls (cudaStreamSynchronize"),
            std::string::npos)
      << OnlyFix(s).action;
  EXPECT_NE(OnlyFix(s).action.find("remove them first"), std::string::npos) << OnlyFix(s).action;
  EXPECT_EQ(s.short_fixes[static_cast<std::size_t>(Loss::kHostBoundIdle)], "remove syncs, then CUDA graphs");
  // One sync per step (a loss.item() at its end) leaves the rest of the step capturable.
  JobVerdict per_step = JobLosing(Loss::kHostBoundIdle, syncing);
  per_step.ranks.resize(2);
  for (auto& r : per_step.ranks) r.steps.resize(5);
  Diagnose(per_step);
  EXPECT_EQ(CaptureBlockingSyncs(per_step), 0);
  EXPECT_EQ(OnlyFix(per_step).action.find("remove them first"), std::string::npos)
      << OnlyFix(per_step).action;

  // The idle sits in the data loader: not this fix.
  EXPECT_EQ(ActionFor(Loss::kHostBoundIdle, TinyKernels(0.05)).find("many short kernels"), std::string::npos);
  // CUDA graphs already: never "use CUDA graphs".
  Evidence graphs = TinyKernels(0.4);
  graphs.graph_launches = 5;
  EXPECT_EQ(ActionFor(Loss::kHostBoundIdle, graphs).find("many short kernels"), std::string::npos);
}

// The dtype advice names only the tensor-core types the device has (a V100 has fp16, no bf16).
TEST(FixRules, DtypeAdviceFollowsTheDevicePeakTable) {
  JobVerdict v100 = JobLosing(Loss::kComputeInefficiency, PyTorch());
  v100.device.key = "v100_sxm2";
  v100.device.peak_flops_per_s = 15.7e12;  // fp32: its dominant dtype here
  Diagnose(v100);
  EXPECT_EQ(OnlyFix(v100).action.find("bf16"), std::string::npos) << OnlyFix(v100).action;
  EXPECT_NE(OnlyFix(v100).action.find("fp16 (AMP)"), std::string::npos) << OnlyFix(v100).action;
}

// A PyTorch program recorded without CPU activities is not "not PyTorch".
TEST(FixRules, AGpuOnlyPyTorchTraceIsAskedForCpuActivities) {
  Evidence e;
  e.pytorch_kernels = 40;
  const std::string action = ActionFor(Loss::kUnmodeledKernels, e);
  EXPECT_NE(action.find("recorded without CPU activities"), std::string::npos) << action;
  EXPECT_EQ(action.find("not PyTorch"), std::string::npos);
  Evidence other;
  other.cpu_ranges = 10;
  EXPECT_NE(ActionFor(Loss::kUnmodeledKernels, other).find("not PyTorch"), std::string::npos);
}

TEST(FixRules, SmallOrUnalignedGemmsArePaddedOrBatched) {
  Evidence e = PyTorch();
  e.poor_gemm_kernels = 24;
  e.poor_gemm_lost_s = 0.2;  // 40% of the 0.5 s loss
  e.poor_gemm_shapes = {{{8192, 50257, 768}, "bf16", true, 12, 0.15},
                        {{16, 4096, 4096}, "bf16", false, 12, 0.05}};
  JobVerdict a = JobLosing(Loss::kComputeInefficiency, e);
  Diagnose(a);
  EXPECT_NE(OnlyFix(a).action.find("pad N and K"), std::string::npos) << OnlyFix(a).action;
  EXPECT_NE(OnlyFix(a).evidence.find("8192×50257×768 bf16 (unaligned, 12 kernels, 150.0 ms)"),
            std::string::npos)
      << OnlyFix(a).evidence;
  EXPECT_NE(OnlyFix(a).evidence.find("16×4096×4096 bf16 (small"), std::string::npos);
  EXPECT_NE(OnlyFix(a).evidence.find("40% of the compute-below-peak loss"), std::string::npos);
  EXPECT_DOUBLE_EQ(OnlyFix(a).recoverable, 0.2);

  e.poor_gemm_lost_s = 0.05;  // 10%: the general advice covers more of the loss
  EXPECT_EQ(ActionFor(Loss::kComputeInefficiency, e).find("pad N and K"), std::string::npos);
}

TEST(FixRules, PageableCopiesArePinned) {
  Evidence e = PyTorch();
  e.pageable_copies = 3;
  JobVerdict a = JobLosing(Loss::kDataMovement, e);
  Diagnose(a);
  EXPECT_NE(OnlyFix(a).action.find("pin"), std::string::npos);
  JobVerdict b = JobLosing(Loss::kDataMovement, PyTorch());
  Diagnose(b);
  EXPECT_EQ(OnlyFix(b).action.find("pin"), std::string::npos);
}

TEST(FixRules, EagerAttentionGetsFusedAttention) {
  Evidence e = PyTorch();
  e.score_softmax_s = 0.2;  // 40% of the 0.5 s memory-bound loss
  JobVerdict a = JobLosing(Loss::kMemoryBound, e);
  Diagnose(a);
  EXPECT_NE(OnlyFix(a).action.find("scaled_dot_product_attention"), std::string::npos);
  e.score_softmax_s = 0.05;  // 10%
  JobVerdict b = JobLosing(Loss::kMemoryBound, e);
  Diagnose(b);
  EXPECT_EQ(OnlyFix(b).action.find("scaled_dot_product_attention"), std::string::npos);
}

TEST(FixRules, MemoryBoundGlueIsFusedAndBatchIsNotAdvisedWhenGemmsHaveManyRows) {
  Evidence e = PyTorch();
  e.memory_bound_glue_s = 0.4;  // 80% of the 0.5 s memory-bound loss
  e.memory_bound_gemm_s = 0.05;
  e.memory_glue_ops = {{"aten::mul", 0.2}, {"aten::copy_", 0.1}, {"aten::cat", 0.06}, {"aten::neg", 0.04}};
  e.gemm_kernel_s = 1;
  e.gemm_rows_kernel_s = 8944;  // every GEMM: 16 sequences × 559 tokens
  e.memory_bound_glue_kernels = 120;
  e.memory_bound_glue_short_s = 0.1;
  JobVerdict a = JobLosing(Loss::kMemoryBound, e);
  Diagnose(a);
  const Fix& f = OnlyFix(a);
  EXPECT_NE(f.action.find("fuse the elementwise glue"), std::string::npos) << f.action;
  EXPECT_NE(f.action.find("the GEMMs already see 8944 rows each: a larger batch will not help"),
            std::string::npos)
      << f.action;
  EXPECT_EQ(f.evidence,
            "elementwise, norm and copy kernels: 400.0 ms, 80% of the memory-bound loss (aten::mul 200.0 ms, "
            "aten::copy_ 100.0 ms, aten::cat 60.0 ms); GEMM rows (M × batch, by GEMM time): 8944; 120 glue "
            "kernels, 0% of their lost time in already-fused kernels, 25% in kernels under 10 µs");
  EXPECT_NEAR(f.recoverable, 0.4, 1e-12);
  EXPECT_EQ(a.short_fixes[static_cast<std::size_t>(Loss::kMemoryBound)], "fuse elementwise kernels");
  // With few rows per GEMM the batch is not ruled out.
  e.gemm_rows_kernel_s = 128;
  JobVerdict b = JobLosing(Loss::kMemoryBound, e);
  Diagnose(b);
  EXPECT_NE(OnlyFix(b).action.find("fuse the elementwise glue"), std::string::npos);
  EXPECT_EQ(OnlyFix(b).action.find("larger batch"), std::string::npos) << OnlyFix(b).action;
}

// Glue a compiler already fused (Inductor's triton_poi_fused_*) is not told to fuse: short kernels
// are told to do more work each, longer ones to move fewer bytes.
TEST(FixRules, AlreadyFusedGlueIsNotToldToFuse) {
  Evidence e = PyTorch();
  e.memory_bound_glue_s = 0.5;
  e.memory_bound_glue_kernels = 1;
  e.memory_bound_glue_fused_s = 0.5;
  e.memory_bound_glue_short_s = 0.5;
  e.memory_glue_ops = {{"triton_poi_fused_add_cos_sin_0", 0.5}};
  JobVerdict a = JobLosing(Loss::kMemoryBound, e);
  Diagnose(a);
  const Fix& f = OnlyFix(a);
  EXPECT_EQ(f.action.find("fuse the elementwise glue"), std::string::npos) << f.action;
  EXPECT_NE(f.action.find("already fused (100% of its lost time in fused kernels)"), std::string::npos)
      << f.action;
  EXPECT_NE(f.action.find("more work"), std::string::npos) << f.action;
  EXPECT_NE(f.evidence.find("1 glue kernels, 100% of their lost time in already-fused kernels"),
            std::string::npos)
      << f.evidence;
  EXPECT_EQ(a.short_fixes[static_cast<std::size_t>(Loss::kMemoryBound)],
            "fused already: more work per kernel");

  e.memory_bound_glue_short_s = 0.1;  // long fused kernels: they stream; fewer bytes
  JobVerdict b = JobLosing(Loss::kMemoryBound, e);
  Diagnose(b);
  EXPECT_NE(OnlyFix(b).action.find("fewer bytes"), std::string::npos) << OnlyFix(b).action;
  EXPECT_NE(OnlyFix(b).action.find("max-autotune"), std::string::npos) << OnlyFix(b).action;

  e.memory_bound_glue_fused_s = 0.2;  // mostly unfused: fusing is the fix
  JobVerdict c = JobLosing(Loss::kMemoryBound, e);
  Diagnose(c);
  EXPECT_NE(OnlyFix(c).action.find("fuse the elementwise glue"), std::string::npos) << OnlyFix(c).action;
}

TEST(KernelClass, FusedKernelNamesAreRecognized) {
  for (std::string_view n :
       {"triton_poi_fused_add_cos_sin_0", "triton_red_fused__to_copy_mean_1", "fused_dropout_kernel",
        "void apex::FusedLayerNormKernel<float>", "loop_fusion_3", "CudaCodeGen::kernel1"}) {
    EXPECT_TRUE(IsFusedKernelName(n)) << n;
  }
  for (std::string_view n : {"void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add>",
                             "ampere_sgemm_128x64_tn", "triton_mm_42"}) {
    EXPECT_FALSE(IsFusedKernelName(n)) << n;
  }
}

TEST(FixRules, MemoryBoundGemmsWithFewRowsRaiseTheBatch) {
  Evidence e = PyTorch();
  e.memory_bound_gemm_s = 0.2;  // 40%, the largest part: decode GEMMs reading their weights for 8 rows
  e.memory_bound_glue_s = 0.1;  // the other 0.2 s: attention over the KV cache
  e.gemm_kernel_s = 1;
  e.gemm_rows_kernel_s = 8;
  JobVerdict a = JobLosing(Loss::kMemoryBound, e);
  Diagnose(a);
  const Fix& f = OnlyFix(a);
  EXPECT_EQ(f.action.rfind("the GEMMs read their weights for about 8 rows (tokens) each", 0), 0u) << f.action;
  EXPECT_EQ(
      f.evidence,
      "memory-bound GEMMs: 200.0 ms, 40% of the memory-bound loss; GEMM rows (M × batch, by GEMM time): 8");
  EXPECT_NEAR(f.recoverable, 0.2, 1e-12);
  EXPECT_EQ(f.action.find("fuse the elementwise glue"), std::string::npos);
  // GEMMs with 2048 rows that still wait on memory are narrow (small N and K): a larger batch is
  // not the fix, and the general advice stays.
  e.gemm_rows_kernel_s = 2048;
  JobVerdict b = JobLosing(Loss::kMemoryBound, e);
  Diagnose(b);
  EXPECT_EQ(OnlyFix(b).action.find("the GEMMs read their weights"), std::string::npos) << OnlyFix(b).action;
  EXPECT_EQ(b.short_fixes[static_cast<std::size_t>(Loss::kMemoryBound)], "fuse kernels, raise batch");
}

TEST(FixRules, MemoryBoundAttentionOrConvolutionKeepsTheGeneralAdvice) {
  Evidence e = PyTorch();
  e.memory_bound_gemm_s = 0.1;  // the other 0.3 s of the 0.5 s: attention and convolutions
  e.memory_bound_glue_s = 0.1;
  JobVerdict a = JobLosing(Loss::kMemoryBound, e);
  Diagnose(a);
  EXPECT_EQ(a.short_fixes[static_cast<std::size_t>(Loss::kMemoryBound)], "fuse kernels, raise batch");
  EXPECT_TRUE(OnlyFix(a).evidence.empty());
}

// A loss's fix follows its kernel class, and lists only that class's kernels as culprits.
TEST(FixRules, TheLeadingKernelClassChoosesTheFixAndItsCulprits) {
  Evidence conv = PyTorch();
  conv.compute_lost_by_class[static_cast<std::size_t>(KernelClass::kConv)] = 0.4;
  conv.compute_lost_by_class[static_cast<std::size_t>(KernelClass::kGemm)] = 0.1;
  JobVerdict a = JobLosing(Loss::kComputeInefficiency, conv);
  a.top_kernels.push_back({.name = "batched_transpose_32x32_half",
                           .op = "aten::miopen_convolution",
                           .loss = Loss::kComputeInefficiency});
  a.top_kernels.push_back({.name = "igemm_fwd_gtcx3_nhwc_bf16",
                           .op = "aten::miopen_convolution",
                           .flops = 1e9,
                           .loss = Loss::kComputeInefficiency});
  Diagnose(a);
  EXPECT_NE(OnlyFix(a).action.find("channels_last"), std::string::npos) << OnlyFix(a).action;
  EXPECT_EQ(OnlyFix(a).culprits, std::vector<std::string>{"igemm_fwd_gtcx3_nhwc_bf16"});
  EXPECT_EQ(OnlyFix(a).evidence, "compute below peak by kernel class: conv 80%, gemm 20%");

  Evidence embedding = PyTorch();
  embedding.memory_bound_glue_s = 0.45;  // embedding kernels have no GEMM model: glue by model
  embedding.memory_lost_by_class[static_cast<std::size_t>(KernelClass::kEmbedding)] = 0.3;
  embedding.memory_lost_by_class[static_cast<std::size_t>(KernelClass::kGlue)] = 0.15;
  JobVerdict b = JobLosing(Loss::kMemoryBound, embedding);
  b.top_kernels.push_back({.name = "void at::native::vectorized_elementwise_kernel<4, AddFunctor>",
                           .op = "aten::add",
                           .loss = Loss::kMemoryBound});
  b.top_kernels.push_back({.name = "void split_embedding_codegen_forward_unweighted_kernel<c10::Half>",
                           .op = "fbgemm::split_embedding_codegen_lookup",
                           .loss = Loss::kMemoryBound});
  Diagnose(b);
  EXPECT_EQ(OnlyFix(b).action.find("fuse the elementwise glue"), std::string::npos) << OnlyFix(b).action;
  EXPECT_NE(OnlyFix(b).action.find("embedding lookups"), std::string::npos) << OnlyFix(b).action;
  ASSERT_EQ(OnlyFix(b).culprits.size(), 1u);
  EXPECT_NE(OnlyFix(b).culprits[0].find("split_embedding"), std::string::npos);

  Evidence layout = PyTorch();
  layout.memory_lost_by_class[static_cast<std::size_t>(KernelClass::kLayout)] = 0.3;
  layout.memory_lost_by_class[static_cast<std::size_t>(KernelClass::kGlue)] = 0.2;
  JobVerdict c = JobLosing(Loss::kMemoryBound, layout);
  Diagnose(c);
  EXPECT_NE(OnlyFix(c).action.find("layout transposes"), std::string::npos) << OnlyFix(c).action;
}

// Data movement's fix follows the kind of copy that takes the time: pinning only for pageable.
TEST(FixRules, DataMovementFollowsTheCopyKindThatTakesTheTime) {
  Evidence e = PyTorch();
  e.pageable_copies = 3;  // a few pageable copies that take little time
  e.copy_lost_s[static_cast<std::size_t>(CopyKind::kPageable)] = 0.02;
  e.copy_lost_s[static_cast<std::size_t>(CopyKind::kDevice)] = 0.3;
  e.copy_lost_s[static_cast<std::size_t>(CopyKind::kPinned)] = 0.18;
  const std::string action = ActionFor(Loss::kDataMovement, e);
  EXPECT_TRUE(action.starts_with("device-to-device copies")) << action;
  EXPECT_NE(action.find("the pinned copies (36% of the copy time)"), std::string::npos) << action;
  EXPECT_EQ(action.find("pin the host buffers"), std::string::npos) << action;
}

TEST(FixRules, Fp32OnTensorCorePartsGetsTf32) {
  Evidence e = PyTorch();
  e.fp32_tensor_peak_flops_per_s = 494.7e12;
  JobVerdict a = JobLosing(Loss::kComputeInefficiency, e);
  a.device.peak_dtype = "fp32";
  a.device.peak_flops_per_s = 67e12;
  Diagnose(a);
  EXPECT_NE(OnlyFix(a).action.find("TF32"), std::string::npos);
  // A kernel faster than the FP32 pipe's peak is on the tensor cores already: TF32 is on.
  a.quality.Add(model::Dq::kFlopsAbovePeak, 3);
  Diagnose(a);
  EXPECT_EQ(OnlyFix(a).action.find("TF32"), std::string::npos) << OnlyFix(a).action;
  JobVerdict v100 = JobLosing(Loss::kComputeInefficiency, PyTorch());  // no TF32 pipe
  v100.device.peak_dtype = "fp32";
  v100.device.peak_flops_per_s = 15.7e12;
  Diagnose(v100);
  EXPECT_EQ(OnlyFix(v100).action.find("TF32"), std::string::npos);

  // The job's evidence is the ranks' merged: the device's TF32 peak survives the merge, so the
  // advice fires on a real job as it does on one rank's evidence.
  Evidence rank = PyTorch();
  rank.fp32_tensor_peak_flops_per_s = 156e12;
  Evidence job;
  job.Merge(rank);
  job.Merge(rank);
  EXPECT_DOUBLE_EQ(job.fp32_tensor_peak_flops_per_s, 156e12);
}

TEST(FixRules, SmallLossesGetNoFixButStillAShortPhrase) {
  JobVerdict job = JobLosing(Loss::kHostBoundIdle, PyTorch());
  job.job.loss_s[static_cast<std::size_t>(Loss::kHostBoundIdle)] = 0.005;
  Diagnose(job);
  EXPECT_TRUE(job.fixes.empty());
  EXPECT_FALSE(job.short_fixes[static_cast<std::size_t>(Loss::kHostBoundIdle)].empty());
}

}  // namespace
}  // namespace plasmient::diagnose

namespace plasmient::diagnose {
namespace {

using namespace verdict;  // NOLINT(google-build-using-namespace): the verdict's vocabulary throughout

// A 1 s job at 90% utilization whose compute kernels run 0.8 s, `coverage` of it modeled: the
// modeled part 10% useful, the unmodeled part charged as unmodeled.
JobVerdict JobCovered(double coverage, const Evidence& e) {
  JobVerdict job;
  job.job.wall_s = 1;
  job.job.kernel_union_s = 0.9;
  job.compute_kernel_s = 0.8;
  job.modeled_compute_s = 0.8 * coverage;
  job.job.useful_s = 0.1 * job.modeled_compute_s;
  job.job.loss_s[static_cast<std::size_t>(Loss::kComputeInefficiency)] = 0.9 * job.modeled_compute_s;
  job.job.loss_s[static_cast<std::size_t>(Loss::kUnmodeledKernels)] = 0.8 - job.modeled_compute_s;
  job.job.loss_s[static_cast<std::size_t>(Loss::kHostBoundIdle)] = 0.2;
  job.evidence = e;
  return job;
}

Evidence NoShapes() {
  Evidence e = PyTorch();
  e.ops_with_shapes = 0;
  return e;
}

// One rule at every coverage under kJudgeMinCoverage: 0%, 1% and 15% are all unjudged, with the
// achieved fraction kept as a lower bound and the evidence's reason and fix; at the threshold
// and above the verdict judges.
TEST(Judge, OneRuleAtZeroOneAndFifteenPercentCoverage) {
  for (double coverage : {0.0, 0.01, 0.15, 0.4999}) {
    JobVerdict job = JobCovered(coverage, NoShapes());
    Diagnose(job);
    const Judgement& j = job.judgement;
    EXPECT_FALSE(j.judgeable) << coverage;
    ASSERT_TRUE(j.coverage) << coverage;
    EXPECT_DOUBLE_EQ(*j.coverage, coverage);
    EXPECT_DOUBLE_EQ(j.min_coverage, kJudgeMinCoverage);
    EXPECT_EQ(j.cause, "no_shapes") << coverage;
    EXPECT_NE(j.reason.find("no op in the trace carries Input Dims"), std::string::npos) << j.reason;
    EXPECT_NE(j.fix.find("record_shapes=True"), std::string::npos) << j.fix;
    // The figure is kept; the bound above it counts every unmodeled kernel useful.
    EXPECT_DOUBLE_EQ(job.job.achieved(), 0.1 * 0.8 * coverage);
    EXPECT_NEAR(j.achieved_at_most, 0.1 * 0.8 * coverage + 0.8 * (1 - coverage), 1e-12);
    EXPECT_FALSE(job.headroom()) << coverage;
    EXPECT_EQ(VerdictWords(job.job, j.judgeable), "busy, usefulness unknown") << coverage;
  }
  for (double coverage : {kJudgeMinCoverage, 0.9, 1.0}) {
    JobVerdict job = JobCovered(coverage, NoShapes());
    Diagnose(job);
    EXPECT_TRUE(job.judgement.judgeable) << coverage;
    EXPECT_TRUE(job.judgement.cause.empty()) << coverage;
    EXPECT_TRUE(job.headroom()) << coverage;
  }
}

// Nothing in the trace says which chip ran it (no device record matched, no kernel names an
// architecture): a stand-in's peak judges nothing, so the verdict says the device is unknown,
// keeps the figure neither as measured nor as a lower bound, and asks for --gpu. A device the
// kernel names place in a family (an assumed A100 from sm80 kernels) is still judged.
TEST(Judge, AnUnknownDeviceIsNotJudgedAgainstAStandIn) {
  JobVerdict job = JobCovered(1.0, PyTorch());
  job.device.name = "NVIDIA H100 SXM 80GB";
  job.device.trace_name = "Some Future GPU";
  job.device.source = "assumed NVIDIA H100 SXM 80GB: device 'Some Future GPU' matches no row";
  job.device.assumed = true;
  job.device.unknown = true;
  Diagnose(job);
  const Judgement& j = job.judgement;
  EXPECT_FALSE(j.judgeable);
  EXPECT_EQ(j.cause, "unknown_device");
  EXPECT_EQ(j.achieved_is, "assumed_device");
  EXPECT_FALSE(j.lower_bound());
  EXPECT_NE(j.reason.find("'Some Future GPU'"), std::string::npos) << j.reason;
  EXPECT_NE(j.reason.find("assumed NVIDIA H100 SXM 80GB's peak"), std::string::npos) << j.reason;
  EXPECT_NE(j.fix.find("--gpu"), std::string::npos) << j.fix;
  EXPECT_FALSE(job.headroom());

  job.device.unknown = false;  // assumed from its kernels' architecture: judged
  Diagnose(job);
  EXPECT_TRUE(job.judgement.judgeable);
  EXPECT_EQ(job.judgement.achieved_is, "measured");

  JobVerdict low = JobCovered(0.1, NoShapes());
  Diagnose(low);
  EXPECT_EQ(low.judgement.achieved_is, "lower_bound");
  EXPECT_TRUE(low.judgement.lower_bound());
}

// The reason and the fix come from what the trace lacks, not one canned hint.
TEST(Judge, ReasonAndFixFollowTheUnmodeledEvidence) {
  Evidence gpu_only;  // no host range, PyTorch's own kernels
  gpu_only.pytorch_kernels = 500;
  Evidence not_pytorch;  // host ranges, none of them aten::
  not_pytorch.cpu_ranges = 40;
  Evidence replayed = PyTorch();  // graph replays with no capture to take the ops from
  replayed.graph_replays = 1;
  replayed.graph_replayed_kernels = 544;
  replayed.graph_unmodeled_kernels = 544;
  replayed.graph_unmodeled_s = 0.7;
  Evidence unpriced = PyTorch();  // shapes recorded, ops without a FLOP model
  const struct {
    Evidence evidence;
    std::string_view cause, fix_words;
  } cases[] = {{NoShapes(), "no_shapes", "record_shapes=True"},
               {gpu_only, "gpu_only", "ProfilerActivity.CPU"},
               {not_pytorch, "not_pytorch", "--model-flops-per-step"},
               {replayed, "graph_replay", "--graph-capture"},
               {unpriced, "ops_not_modeled", "no FLOP model"}};
  for (const auto& c : cases) {
    JobVerdict job = JobCovered(0.15, c.evidence);
    Diagnose(job);
    EXPECT_FALSE(job.judgement.judgeable) << c.cause;
    EXPECT_EQ(job.judgement.cause, c.cause);
    EXPECT_NE(job.judgement.fix.find(c.fix_words), std::string::npos) << c.cause << ": " << job.judgement.fix;
    EXPECT_NE(job.judgement.reason.find("15.0%"), std::string::npos) << job.judgement.reason;
  }
}

// No compute kernel: nothing is unmodeled, and the measured answer (no useful work) is judged.
// No GPU activity at all: nothing to judge.
TEST(Judge, NoComputeIsJudgedAndNoGpuActivityIsNot) {
  JobVerdict comm = JobLosing(Loss::kExposedCommunication, PyTorch());
  comm.job.useful_s = 0;
  Diagnose(comm);
  EXPECT_TRUE(comm.judgement.judgeable);
  EXPECT_FALSE(comm.judgement.coverage);
  JobVerdict none;
  RankVerdict cpu;
  cpu.no_gpu_reason = "the trace has no GPU activity";
  none.ranks.push_back(cpu);
  Diagnose(none);
  EXPECT_FALSE(none.judgement.judgeable);
  EXPECT_EQ(none.judgement.cause, "no_gpu_activity");
  EXPECT_NE(none.judgement.reason.find("the trace has no GPU activity"), std::string::npos);
}

}  // namespace
}  // namespace plasmient::diagnose

namespace plasmient::diagnose {
namespace {

using namespace verdict;  // NOLINT(google-build-using-namespace): the verdict's vocabulary throughout

// A window with `busy_s` of GPU work in a 10 ms window, fully modeled, of `activities` activities.
JobVerdict SmallWindow(double busy_s, std::int64_t activities) {
  JobVerdict job;
  job.job.wall_s = 0.010;
  job.job.kernel_union_s = busy_s;
  job.job.useful_s = 0.3 * busy_s;
  job.job.loss_s[static_cast<std::size_t>(Loss::kComputeInefficiency)] = 0.7 * busy_s;
  job.job.loss_s[static_cast<std::size_t>(Loss::kHostBoundIdle)] = 0.010 - busy_s;
  job.compute_kernel_s = job.modeled_compute_s = busy_s;
  RankVerdict r;
  r.kept_activities = activities;
  r.gpu_busy_s = busy_s;
  job.ranks.push_back(r);
  job.evidence = PyTorch();
  return job;
}

// Under kJudgeMinGpuBusyS of GPU work the window is a few kernels' edges, not a workload: not
// judged, whatever its coverage, with the GPU time and the activities in the evidence and a longer
// profile as the fix; the figure stays measured. At the floor, and for a few long kernels, judged.
TEST(Judge, AWindowWithTooLittleGpuWorkIsNotJudged) {
  JobVerdict small = SmallWindow(85e-6, 5);
  Diagnose(small);
  const Judgement& j = small.judgement;
  EXPECT_FALSE(j.judgeable);
  EXPECT_EQ(j.cause, "window_too_small");
  EXPECT_EQ(j.achieved_is, "measured");
  EXPECT_NEAR(j.gpu_busy_s, 85e-6, 1e-12);
  EXPECT_DOUBLE_EQ(j.min_gpu_busy_s, kJudgeMinGpuBusyS);
  EXPECT_NE(j.evidence.find("5 GPU activities with 85 µs of GPU-busy time"), std::string::npos) << j.evidence;
  EXPECT_NE(j.fix.find("torch.profiler.schedule"), std::string::npos) << j.fix;
  EXPECT_FALSE(small.headroom());
  EXPECT_EQ(VerdictWords(small.job, j.judgeable), "mostly idle, usefulness unknown");

  // Too small and unmodeled: the figure is also a lower bound.
  JobVerdict unmodeled = SmallWindow(85e-6, 5);
  unmodeled.modeled_compute_s = 0;
  Diagnose(unmodeled);
  EXPECT_EQ(unmodeled.judgement.cause, "window_too_small");
  EXPECT_EQ(unmodeled.judgement.achieved_is, "lower_bound");

  for (double busy_s : {kJudgeMinGpuBusyS, 0.008}) {
    JobVerdict enough = SmallWindow(busy_s, 5);
    Diagnose(enough);
    EXPECT_TRUE(enough.judgement.judgeable) << busy_s;
  }
}

}  // namespace
}  // namespace plasmient::diagnose
