// The program facts the fixes are chosen by (docs/fixes.md), read once per rank.
#include "verdict/evidence.h"

#include <algorithm>
#include <cctype>

#include "base/name_memo.h"
#include "base/text.h"
#include "roofline/op_args_parser.h"

namespace plasmient::verdict {
namespace {

bool IsGraphLaunch(std::string_view api) {
  return api.starts_with("cudaGraphLaunch") || api.starts_with("hipGraphLaunch");
}

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

}  // namespace

Evidence CollectEvidence(const model::Trace& t, const join::Joined& j, const ActivityFacts& f) {
  Evidence e;
  NameMemo is_backward(t.strings, join::IsBackwardOpName);
  for (std::size_t r = 0; r < t.cpu.size(); ++r) {
    if (t.cpu.kind[r] != model::CpuOpKind::kOp) continue;
    e.aten_ops += t.Str(t.cpu.name[r]).starts_with("aten::");
    e.ops_with_shapes += !t.Str(t.cpu.input_dims[r]).empty();
    e.backward_ops += is_backward(t.cpu.name[r]);
  }
  for (std::size_t a = 0; a < t.api.size(); ++a) {
    std::string_view name = t.Str(t.api.name[a]);
    e.graph_launches += IsGraphLaunch(name);
    e.host_syncs += join::IsHostSync(name);
  }
  for (std::size_t k = 0; k < t.gpu.size(); ++k) {
    if (!f.kept[k]) continue;
    const double dur_s = NsToSeconds(t.gpu.end_ns[k] - t.gpu.start_ns[k]);
    if (t.gpu.kind[k] == model::GpuKind::kMemcpy) {
      e.pageable_copies += t.Str(t.gpu.name[k]).find("Pageable") != std::string_view::npos;
    } else if (f.cls[k] == join::ActivityClass::kCollective) {
      // Its exposed time: the sweep charged it only for slices where no compute kernel ran.
      const std::string_view kernel = t.Str(t.gpu.name[k]);
      const std::string_view collective =
          j.collective[k] >= 0 ? t.Str(t.collectives.name[j.collective[k]]) : kernel;
      const auto family = static_cast<std::size_t>(FamilyOf(join::ParseCollectiveKind(collective, kernel)));
      e.exposed_comm_s[family] += f.share_ns[k] / static_cast<double>(kNsPerS);
    } else if (f.cls[k] == join::ActivityClass::kCompute && f.cost_op[k] >= 0) {
      const std::int32_t op = f.cost_op[k];
      if (IsScoreSoftmax(t.Str(t.cpu.name[op]), t.Str(t.cpu.input_dims[op]))) e.score_softmax_s += dur_s;
    }
  }
  return e;
}

void Evidence::Merge(const Evidence& o) {
  aten_ops += o.aten_ops;
  ops_with_shapes += o.ops_with_shapes;
  backward_ops += o.backward_ops;
  graph_launches += o.graph_launches;
  host_syncs += o.host_syncs;
  pageable_copies += o.pageable_copies;
  for (std::size_t i = 0; i < kCommFamilyCount; ++i) exposed_comm_s[i] += o.exposed_comm_s[i];
  score_softmax_s += o.score_softmax_s;
}

}  // namespace plasmient::verdict
