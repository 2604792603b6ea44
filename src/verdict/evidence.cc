// The program facts the fixes are chosen by (docs/fixes.md), read once per rank.
#include "verdict/evidence.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <map>
#include <optional>
#include <tuple>
#include <unordered_map>

#include "base/name_memo.h"
#include "base/text.h"
#include "roofline/op_args_parser.h"

namespace plasmient::verdict {
namespace {

// A softmax over attention scores: its input's last two dimensions are both the sequence
// length (an L×L matrix per head), as eager attention materializes it.
constexpr std::int64_t kEagerAttentionMinLength =
    128;  // shorter sequences: score matrices too small to matter

bool IsScoreSoftmax(std::string_view op, std::string_view dims) {
  if (op != "aten::softmax" && op != "aten::_softmax" && op != "aten::_safe_softmax") return false;
  roofline::OpDims d;
  if (!d.Parse(dims) || d.arg_count() == 0) return false;
  auto s = d.Shape(0);
  return s.size() >= 3 && s[s.size() - 1] == s[s.size() - 2] && s.back() >= kEagerAttentionMinLength;
}

// A GEMM dimension under this, with the kernel under kSmallGemmMaxAchieved of its peak, is too
// small to fill the tensor cores' tiles (128×128 or 128×256 output tiles on current parts).
constexpr std::int64_t kSmallGemmDim = 64;
constexpr double kSmallGemmMaxAchieved = 0.25;
// Shapes kept per rank: the job names three. The same for the glue ops.
constexpr std::size_t kGemmShapesKept = 8;
constexpr std::size_t kGlueOpsKept = 8;

// ns→s by division, not NsToSeconds' multiplication by 1e-9: these figures (lost seconds of
// GEMM shapes and glue kernels, exposed communication by collective) were always divided, and the
// verdict JSON keeps their last bit.
double DividedSeconds(double ns) { return ns / static_cast<double>(kNsPerS); }

// A GEMM kernel whose shape wastes the tensor cores, and how: N or K off the 16-byte tile of its
// dtype (8 bf16/fp16 elements, 16 fp8, 4 fp32), or a dimension too small to fill a tile.
std::optional<GemmShapeLoss> PoorGemm(const ActivityFacts& f, std::size_t k) {
  const auto& [m, n, kk] = f.gemm_mnk[k];
  if (m <= 0 || f.loss[k] != Loss::kComputeInefficiency || f.lost_ns(k) <= 0) return std::nullopt;
  const int width = roofline::DtypeBytes(f.dtype[k]);
  const std::int64_t tile = width > 0 ? std::max(1, 16 / width) : 8;
  const bool unaligned = n % tile != 0 || kk % tile != 0;
  const bool small = std::min({m, n, kk}) < kSmallGemmDim && f.achieved_fraction[k] < kSmallGemmMaxAchieved;
  if (!unaligned && !small) return std::nullopt;
  return GemmShapeLoss{.mnk = f.gemm_mnk[k],
                       .dtype = std::string(roofline::DtypeName(f.dtype[k])),
                       .unaligned = unaligned,
                       .kernels = 1,
                       .lost_s = DividedSeconds(f.lost_ns(k))};
}

// Merges (name, seconds) pairs by name, largest first, at most `keep`.
void MergeNamed(std::vector<std::pair<std::string, double>>& into,
                const std::vector<std::pair<std::string, double>>& from, std::size_t keep) {
  for (const auto& [name, s] : from) {
    auto same = std::find_if(into.begin(), into.end(), [&](const auto& o) { return o.first == name; });
    if (same == into.end()) {
      into.emplace_back(name, s);
    } else {
      same->second += s;
    }
  }
  std::stable_sort(into.begin(), into.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  if (into.size() > keep) into.resize(keep);
}

// The rows of a kernel's GEMM: FLOPs over 2·N·K, M times the product's batch; 0 for no GEMM.
double GemmRows(const ActivityFacts& f, std::size_t k) {
  const auto& [m, n, kk] = f.gemm_mnk[k];
  if (m <= 0 || n <= 0 || kk <= 0 || f.flops[k] <= 0) return 0;
  return f.flops[k] / (2.0 * static_cast<double>(n) * static_cast<double>(kk));
}

// Memory-bound lost time split into GEMMs and the glue between heavy ops; the glue by op.
template <typename IsFused>
void CountMemoryBound(const model::Trace& t, const ActivityFacts& f, std::size_t k, double lost_s,
                      std::unordered_map<std::uint32_t, double>& glue_by_name, IsFused& is_fused,
                      Evidence& e) {
  if (f.loss[k] != Loss::kMemoryBound) return;
  if (f.gemm_mnk[k][0] > 0) {
    e.memory_bound_gemm_s += lost_s;
  } else if (!f.heavy_op[k]) {
    e.memory_bound_glue_s += lost_s;
    ++e.memory_bound_glue_kernels;
    if (is_fused(t.gpu.name[k])) e.memory_bound_glue_fused_s += lost_s;
    if (t.gpu.end_ns[k] - t.gpu.start_ns[k] < kShortGlueKernelNs) e.memory_bound_glue_short_s += lost_s;
    const model::CpuOpRowId op = f.cost_op[k].has_value() ? f.cost_op[k] : f.op[k];
    glue_by_name[op.has_value() ? t.cpu.name[op.index()].value : t.gpu.name[k].value] += lost_s;
  }
}

// Merges shapes by (M, N, K, dtype), largest lost time first, at most `keep`.
void MergeShapes(std::vector<GemmShapeLoss>& into, const std::vector<GemmShapeLoss>& from, std::size_t keep) {
  for (const auto& s : from) {
    auto same = std::find_if(into.begin(), into.end(),
                             [&](const GemmShapeLoss& o) { return o.mnk == s.mnk && o.dtype == s.dtype; });
    if (same == into.end()) {
      into.push_back(s);
    } else {
      same->kernels += s.kernels;
      same->lost_s += s.lost_s;
    }
  }
  std::stable_sort(into.begin(), into.end(),
                   [](const GemmShapeLoss& a, const GemmShapeLoss& b) { return a.lost_s > b.lost_s; });
  if (into.size() > keep) into.resize(keep);
}

// The graph replays' kernels in the window, and those the replay left with no model: the time
// a verdict cannot judge for want of the capture (docs/graphs.md).
void CountGraphs(const model::Trace& t, const join::Joined& j, const ActivityFacts& f, Evidence& e) {
  CountGraphLaunches(j.graphs.summary, e);
  for (std::size_t k = 0; k < t.gpu.size(); ++k) {
    if (!f.kept[k] || !j.graphs.replayed[k] || t.gpu.kind[k] != model::GpuKind::kKernel) continue;
    ++e.graph_replayed_kernels;
    e.graph_replayed_s += NsToSeconds(t.gpu.end_ns[k] - t.gpu.start_ns[k]);
    e.graph_matched_kernels += j.graphs.captured[k].has_value();
    if (f.cls[k] == join::ActivityClass::kCompute && f.loss[k] == Loss::kUnmodeledKernels) {
      ++e.graph_unmodeled_kernels;
      e.graph_unmodeled_s += DividedSeconds(f.share_ns[k]);
    }
  }
}

}  // namespace

void CountGraphLaunches(const join::GraphSummary& s, Evidence& e) {
  e.graph_replays = s.replays;
  e.graph_captures = s.captures;
  e.graph_instantiations = s.instantiations;
  e.graph_captured_launches = s.captured_launches;
  e.graph_eager_activities = s.eager_activities;
}

join::TraceKind Evidence::trace_kind() const {
  return join::KindOf(graph_replays, graph_captured_launches, graph_eager_activities);
}

Evidence CollectEvidence(const model::Trace& t, const join::Joined& j, const ActivityFacts& f) {
  Evidence e;
  NameMemo is_backward(t.strings, join::IsBackwardOpName);
  e.cpu_ranges = static_cast<std::int64_t>(t.cpu.size());
  for (std::size_t r = 0; r < t.cpu.size(); ++r) {
    if (t.cpu.kind[r] != model::CpuOpKind::kOp) continue;
    e.aten_ops += t.Str(t.cpu.name[r]).starts_with("aten::");
    e.ops_with_shapes += !t.Str(t.cpu.input_dims[r]).empty();
    e.backward_ops += is_backward(t.cpu.name[r]);
  }
  for (std::size_t a = 0; a < t.api.size(); ++a) {
    std::string_view name = t.Str(t.api.name[a]);
    e.graph_launches += join::IsGraphLaunch(name);
  }
  CountGraphs(t, j, f, e);
  NameMemo is_pytorch_kernel(t.strings, [](std::string_view n) {
    return n.find("at::native::") != std::string_view::npos || n.find("at::cuda::") != std::string_view::npos;
  });
  for (std::size_t k = 0; k < t.gpu.size(); ++k)
    e.pytorch_kernels += f.kept[k] && is_pytorch_kernel(t.gpu.name[k]);
  std::vector<GemmShapeLoss> shapes;
  std::unordered_map<std::uint32_t, double> glue_by_name;
  NameMemo is_fused(t.strings, IsFusedKernelName);
  // Kernel classes by (kernel name, op name, priced heavy): names repeat by the thousand.
  std::map<std::tuple<std::uint32_t, std::uint32_t, bool>, KernelClass> classes;
  auto class_of = [&](StringId kernel, StringId op, bool heavy) {
    auto [it, fresh] = classes.try_emplace({kernel.value, op.value, heavy}, KernelClass::kGlue);
    if (fresh)
      it->second = KernelClassOf(t.Str(kernel), op.value != StringId{}.value ? t.Str(op) : "", heavy);
    return it->second;
  };
  for (std::size_t k = 0; k < t.gpu.size(); ++k) {
    if (!f.kept[k]) continue;
    const double lost_s = DividedSeconds(f.lost_ns(k));
    if (t.gpu.kind[k] != model::GpuKind::kKernel && f.loss[k] == Loss::kDataMovement) {
      const std::string_view name = t.Str(t.gpu.name[k]);
      e.pageable_copies += t.gpu.kind[k] == model::GpuKind::kMemcpy && name.find("Pageable") != name.npos;
      e.copy_lost_s[static_cast<std::size_t>(CopyKindOf(name, t.gpu.kind[k] == model::GpuKind::kMemset))] +=
          DividedSeconds(f.share_ns[k]);
    } else if (t.gpu.kind[k] == model::GpuKind::kMemcpy) {
      e.pageable_copies += t.Str(t.gpu.name[k]).find("Pageable") != std::string_view::npos;
    } else if (f.cls[k] == join::ActivityClass::kCollective) {
      // Its exposed time: the sweep charged it only for slices where no compute kernel ran.
      const std::string_view kernel = t.Str(t.gpu.name[k]);
      const std::string_view collective =
          j.collective[k].has_value() ? t.Str(t.collectives.name[j.collective[k].index()]) : kernel;
      const auto family = static_cast<std::size_t>(FamilyOf(join::ParseCollectiveKind(collective, kernel)));
      e.exposed_comm_s[family] += DividedSeconds(f.share_ns[k]);
    } else if (f.cls[k] == join::ActivityClass::kCompute) {
      const TimeNs dur_ns = t.gpu.end_ns[k] - t.gpu.start_ns[k];
      ++e.compute_kernels;
      ++e.compute_kernel_us[std::min<std::size_t>(
          static_cast<std::size_t>(std::max<TimeNs>(0, dur_ns) / kNsPerUs), kKernelDurationBuckets - 1)];
      if (const double rows = GemmRows(f, k); rows > 0) {
        e.gemm_kernel_s += NsToSeconds(dur_ns);
        e.gemm_rows_kernel_s += rows * NsToSeconds(dur_ns);
      }
      CountMemoryBound(t, f, k, lost_s, glue_by_name, is_fused, e);
      if (f.loss[k] == Loss::kComputeInefficiency || f.loss[k] == Loss::kMemoryBound) {
        const model::CpuOpRowId op = f.cost_op[k].has_value() ? f.cost_op[k] : f.op[k];
        const KernelClass c = class_of(t.gpu.name[k], op.has_value() ? t.cpu.name[op.index()] : StringId{},
                                       f.heavy_op[k] != 0 && f.flops[k] > 0);
        (f.loss[k] == Loss::kMemoryBound ? e.memory_lost_by_class
                                         : e.compute_lost_by_class)[static_cast<std::size_t>(c)] += lost_s;
      }
      if (auto poor = PoorGemm(f, k)) {
        ++e.poor_gemm_kernels;
        e.poor_gemm_lost_s += poor->lost_s;
        MergeShapes(shapes, {*poor}, std::numeric_limits<std::size_t>::max());
      }
      const model::CpuOpRowId op = f.cost_op[k];
      if (op.has_value() && f.loss[k] == Loss::kMemoryBound &&
          IsScoreSoftmax(t.Str(t.cpu.name[op.index()]), t.Str(t.cpu.input_dims[op.index()])))
        e.score_softmax_s += lost_s;
    }
  }
  MergeShapes(e.poor_gemm_shapes, shapes, kGemmShapesKept);
  std::vector<std::pair<std::string, double>> glue;
  glue.reserve(glue_by_name.size());
  for (const auto& [name, s] : glue_by_name) glue.emplace_back(t.Str(StringId{name}), s);
  std::sort(glue.begin(), glue.end());  // the map's order is not the same from run to run
  MergeNamed(e.memory_glue_ops, glue, kGlueOpsKept);
  return e;
}

void Evidence::Merge(const Evidence& o) {
  aten_ops += o.aten_ops;
  cpu_ranges += o.cpu_ranges;
  pytorch_kernels += o.pytorch_kernels;
  ops_with_shapes += o.ops_with_shapes;
  backward_ops += o.backward_ops;
  graph_launches += o.graph_launches;
  graph_replays += o.graph_replays;
  graph_captures += o.graph_captures;
  graph_instantiations += o.graph_instantiations;
  graph_captured_launches += o.graph_captured_launches;
  graph_eager_activities += o.graph_eager_activities;
  graph_replayed_kernels += o.graph_replayed_kernels;
  graph_matched_kernels += o.graph_matched_kernels;
  graph_replayed_s += o.graph_replayed_s;
  graph_unmodeled_kernels += o.graph_unmodeled_kernels;
  graph_unmodeled_s += o.graph_unmodeled_s;
  compute_kernels += o.compute_kernels;
  for (std::size_t i = 0; i < kKernelDurationBuckets; ++i) compute_kernel_us[i] += o.compute_kernel_us[i];
  poor_gemm_kernels += o.poor_gemm_kernels;
  poor_gemm_lost_s += o.poor_gemm_lost_s;
  MergeShapes(poor_gemm_shapes, o.poor_gemm_shapes, kGemmShapesKept);
  pageable_copies += o.pageable_copies;
  for (std::size_t i = 0; i < kCopyKindCount; ++i) copy_lost_s[i] += o.copy_lost_s[i];
  for (std::size_t i = 0; i < kKernelClassCount; ++i) {
    compute_lost_by_class[i] += o.compute_lost_by_class[i];
    memory_lost_by_class[i] += o.memory_lost_by_class[i];
  }
  for (std::size_t i = 0; i < kCommFamilyCount; ++i) exposed_comm_s[i] += o.exposed_comm_s[i];
  score_softmax_s += o.score_softmax_s;
  memory_bound_gemm_s += o.memory_bound_gemm_s;
  memory_bound_glue_s += o.memory_bound_glue_s;
  memory_bound_glue_fused_s += o.memory_bound_glue_fused_s;
  memory_bound_glue_short_s += o.memory_bound_glue_short_s;
  memory_bound_glue_kernels += o.memory_bound_glue_kernels;
  MergeNamed(memory_glue_ops, o.memory_glue_ops, kGlueOpsKept);
  gemm_kernel_s += o.gemm_kernel_s;
  gemm_rows_kernel_s += o.gemm_rows_kernel_s;
  // The device's, the same on every rank of one job: the TF32 advice compares it with the peak.
  fp32_tensor_peak_flops_per_s = std::max(fp32_tensor_peak_flops_per_s, o.fp32_tensor_peak_flops_per_s);
  host_idle.Merge(o.host_idle);
  comm_roles.Merge(o.comm_roles);
}

}  // namespace plasmient::verdict
