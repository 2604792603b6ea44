#include "join/join.h"

#include "base/name_memo.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <string_view>
#include <tuple>

namespace plasmient::join {
namespace {

using model::CpuOpKind;
using model::Dq;
using model::GpuKind;
using model::kNoId;
using model::Trace;

bool ContainsNoCase(std::string_view hay, std::string_view needle) {
  auto it = std::search(hay.begin(), hay.end(), needle.begin(), needle.end(),
                        [](char a, char b) { return (a | 0x20) == (b | 0x20); });
  return it != hay.end();
}

bool IsP2PName(std::string_view collective) {
  return ContainsNoCase(collective, "send") || ContainsNoCase(collective, "recv");
}

// Correlation ids are unique per process; GPU rows know their process only in some formats.
class LaunchIndex {
 public:
  explicit LaunchIndex(const Trace& t) {
    entries_.reserve(t.api.size());
    for (std::size_t i = 0; i < t.api.size(); ++i) {
      if (t.api.correlation[i] != kNoId) {
        entries_.push_back({t.api.correlation[i], t.api.pid[i], static_cast<std::int32_t>(i)});
      }
    }
    std::sort(entries_.begin(), entries_.end(), [](const Entry& a, const Entry& b) {
      return std::tie(a.correlation, a.pid, a.row) < std::tie(b.correlation, b.pid, b.row);
    });
  }

  std::int32_t Find(std::int64_t correlation, std::int64_t pid) const {
    auto it = std::lower_bound(entries_.begin(), entries_.end(), correlation,
                               [](const Entry& e, std::int64_t c) { return e.correlation < c; });
    for (; it != entries_.end() && it->correlation == correlation; ++it) {
      if (pid == kNoId || it->pid == pid) return it->row;
    }
    return -1;
  }

  std::int64_t CountDuplicates() const {
    std::int64_t dup = 0;
    for (std::size_t i = 1; i < entries_.size(); ++i) {
      dup += entries_[i].correlation == entries_[i - 1].correlation && entries_[i].pid == entries_[i - 1].pid;
    }
    return dup;
  }

 private:
  struct Entry {
    std::int64_t correlation, pid;
    std::int32_t row;
  };
  std::vector<Entry> entries_;
};

// Sweeps each thread's CPU ranges (sorted by start, outer before inner) with a stack, setting
// every range's parent, then answers "innermost enclosing op/annotation" for each launch.
struct LaunchContext {
  std::vector<std::int32_t> op, annotation, layer;  // per ApiCalls row: innermost enclosing row, or -1
};

void NestCpuOps(const Trace& t, Joined& j, const std::vector<char>& is_launch, LaunchContext& launch) {
  const auto& cpu = t.cpu;
  const auto& api = t.api;
  j.op_parent.assign(cpu.size(), -1);
  launch.op.assign(api.size(), -1);
  launch.annotation.assign(api.size(), -1);
  launch.layer.assign(api.size(), -1);

  // Items: CPU ranges (is_launch=false) and API calls (is_launch=true), per thread by time.
  // Threads get dense indices so the sort compares one small integer, not (pid, tid).
  struct Item {
    std::uint32_t thread;
    bool is_launch;
    std::int32_t row;
    TimeNs start, end;
  };
  std::map<std::pair<std::int64_t, std::int64_t>, std::uint32_t> thread_index;
  auto thread_of = [&](std::int64_t pid, std::int64_t tid) {
    return thread_index.try_emplace({pid, tid}, static_cast<std::uint32_t>(thread_index.size()))
        .first->second;
  };
  std::vector<Item> items;
  items.reserve(cpu.size() + api.size());
  for (std::size_t i = 0; i < cpu.size(); ++i) {
    if (cpu.kind[i] == CpuOpKind::kStep) continue;  // steps are joined by time, per process
    items.push_back({thread_of(cpu.pid[i], cpu.tid[i]), false, static_cast<std::int32_t>(i), cpu.start_ns[i],
                     cpu.end_ns[i]});
  }
  for (std::size_t i = 0; i < api.size(); ++i) {
    if (!is_launch[i]) continue;  // only calls that launched GPU activity need their op
    items.push_back({thread_of(api.pid[i], api.tid[i]), true, static_cast<std::int32_t>(i), api.start_ns[i],
                     api.end_ns[i]});
  }
  std::sort(items.begin(), items.end(), [](const Item& a, const Item& b) {
    // Longer ranges first at equal start so parents precede children; launches after ranges.
    if (a.thread != b.thread) return a.thread < b.thread;
    if (a.start != b.start) return a.start < b.start;
    if (a.end != b.end) return a.end > b.end;
    if (a.is_launch != b.is_launch) return b.is_launch;
    return a.row < b.row;
  });

  std::vector<std::int32_t> stack;
  std::uint32_t cur_thread = 0;
  bool first = true;
  for (const Item& it : items) {
    if (first || it.thread != cur_thread) {
      stack.clear();
      cur_thread = it.thread;
      first = false;
    }
    while (!stack.empty() && cpu.end_ns[stack.back()] <= it.start) stack.pop_back();
    if (it.is_launch) {
      std::int32_t &op = launch.op[it.row], &annotation = launch.annotation[it.row];
      std::int32_t& layer = launch.layer[it.row];
      for (auto s = stack.rbegin(); s != stack.rend(); ++s) {
        CpuOpKind kind = cpu.kind[*s];
        if (kind == CpuOpKind::kOp && op < 0) op = *s;
        if (kind == CpuOpKind::kAnnotation && annotation < 0) annotation = *s;
        if (IsLayerRange(kind) && layer < 0) layer = *s;
        if (op >= 0 && annotation >= 0 && layer >= 0) break;
      }
      continue;
    }
    // A range that starts inside the top but outlives it is not nested: treat as a sibling.
    while (!stack.empty() && cpu.end_ns[stack.back()] < it.end) stack.pop_back();
    j.op_parent[it.row] = stack.empty() ? -1 : stack.back();
    stack.push_back(it.row);
  }
}

void CollectSteps(const Trace& t, Joined& j) {
  for (std::size_t i = 0; i < t.cpu.size(); ++i) {
    if (t.cpu.kind[i] != CpuOpKind::kStep) continue;
    j.steps.push_back(
        {t.cpu.step[i], static_cast<std::int32_t>(i), t.cpu.pid[i], t.cpu.start_ns[i], t.cpu.end_ns[i]});
  }
  std::sort(j.steps.begin(), j.steps.end(),
            [](const Step& a, const Step& b) { return a.start_ns < b.start_ns; });
}

std::int32_t StepAt(const Joined& j, std::int64_t pid, TimeNs ts) {
  // Steps are few; the last one starting at or before ts that still contains it.
  auto it = std::upper_bound(j.steps.begin(), j.steps.end(), ts,
                             [](TimeNs v, const Step& s) { return v < s.start_ns; });
  while (it != j.steps.begin()) {
    --it;
    if (ts < it->end_ns && (it->pid == pid || pid == kNoId)) {
      return static_cast<std::int32_t>(it - j.steps.begin());
    }
    if (it->end_ns <= ts) break;
  }
  return -1;
}

std::int32_t CollectiveOfOpChain(const Joined& j, std::int32_t op) {
  for (int depth = 0; op >= 0 && depth < 64; ++depth, op = j.op_parent[op]) {
    if (j.op_collective[op] >= 0) return j.op_collective[op];
  }
  return -1;
}

bool OpChainNamesComm(const Trace& t, const Joined& j, std::int32_t op, bool* p2p) {
  for (int depth = 0; op >= 0 && depth < 64; ++depth, op = j.op_parent[op]) {
    std::string_view name = t.Str(t.cpu.name[op]);
    if (name.starts_with("nccl:") || name.starts_with("c10d::")) {
      *p2p = IsP2PName(name);
      return true;
    }
  }
  return false;
}

// Backward kernels take the layer of the forward op that created their autograd node: the op
// with the same sequence number that is neither a backward op nor inside one, the latest one
// to start before the backward op (sequence numbers restart per thread; the latest ran last).
class ForwardLayers {
 public:
  ForwardLayers(const Trace& t, const Joined& j) : t_(t) {
    const auto& cpu = t.cpu;
    for (std::size_t r = 0; r < cpu.size(); ++r) {
      if (cpu.kind[r] == CpuOpKind::kOp && cpu.sequence[r] != kNoId &&
          BackwardOpOf(j, static_cast<std::int32_t>(r)) < 0) {
        forward_.push_back({cpu.sequence[r], cpu.start_ns[r], static_cast<std::int32_t>(r)});
      }
    }
    std::sort(forward_.begin(), forward_.end(), [](const Entry& a, const Entry& b) {
      return std::tie(a.sequence, a.start_ns, a.row) < std::tie(b.sequence, b.start_ns, b.row);
    });
  }

  bool IsBackwardOp(std::size_t r) const {
    return t_.cpu.forward_thread[r] != kNoId && t_.cpu.forward_thread[r] > 0 && t_.cpu.sequence[r] != kNoId;
  }

  // The backward op enclosing `op` (itself included), or -1.
  std::int32_t BackwardOpOf(const Joined& j, std::int32_t op) const {
    for (int depth = 0; op >= 0 && depth < 64; ++depth, op = j.op_parent[op]) {
      if (IsBackwardOp(static_cast<std::size_t>(op))) return op;
    }
    return -1;
  }

  // The layer range around the forward op of backward op `bwd`, or -1.
  std::int32_t LayerOf(const Joined& j, std::int32_t bwd) const {
    std::int64_t seq = t_.cpu.sequence[bwd];
    TimeNs start = t_.cpu.start_ns[bwd];
    auto it = std::upper_bound(forward_.begin(), forward_.end(), std::pair{seq, start},
                               [](const std::pair<std::int64_t, TimeNs>& v, const Entry& e) {
                                 return std::tie(v.first, v.second) < std::tie(e.sequence, e.start_ns);
                               });
    if (it == forward_.begin() || (it - 1)->sequence != seq) return -1;
    std::int32_t r = (it - 1)->row;
    for (int depth = 0; r >= 0 && depth < 64; ++depth, r = j.op_parent[r]) {
      if (IsLayerRange(t_.cpu.kind[r])) return r;
    }
    return -1;
  }

 private:
  struct Entry {
    std::int64_t sequence;
    TimeNs start_ns;
    std::int32_t row;
  };
  const Trace& t_;
  std::vector<Entry> forward_;
};

// Every activity's layer: the range around its launch, else (backward kernels) the range around
// its forward op, else the backward branch.
void AssignLayers(const Trace& t, Joined& j, const std::vector<std::int32_t>& launch_layer) {
  const std::size_t n = t.gpu.size();
  j.layer.assign(n, -1);
  j.layer_source.assign(n, LayerSource::kNone);
  ForwardLayers forward(t, j);
  NameMemo is_backward_name(t.strings, IsBackwardOpName);
  for (std::size_t i = 0; i < n; ++i) {
    if (j.launch[i] >= 0 && launch_layer[j.launch[i]] >= 0) {
      j.layer[i] = launch_layer[j.launch[i]];
      j.layer_source[i] = LayerSource::kLaunch;
      continue;
    }
    bool backward = false;
    if (std::int32_t bwd = forward.BackwardOpOf(j, j.op[i]); bwd >= 0) {
      backward = true;
      j.layer[i] = forward.LayerOf(j, bwd);
    } else {
      for (std::int32_t r = j.op[i], depth = 0; r >= 0 && depth < 64 && !backward;
           r = j.op_parent[r], ++depth) {
        backward = is_backward_name(t.cpu.name[r]);
      }
    }
    if (!backward) continue;
    j.layer_source[i] = j.layer[i] >= 0 ? LayerSource::kForward : LayerSource::kBackward;
  }
}

bool IsCommKernelName(std::string_view name) {
  return ContainsNoCase(name, "nccl") || ContainsNoCase(name, "rccl") ||
         ContainsNoCase(name, "multimem_all_reduce") || ContainsNoCase(name, "cross_device_reduce");
}

// Collective arguments on the kernel itself are trusted; an enclosing record_param_comms or
// nccl:* op only describes kernels whose names say they communicate (a bucket copy launched
// inside c10d::allreduce_ is still compute).
template <typename CommName>
ActivityClass ClassifyKernel(const Trace& t, Joined& j, std::size_t i, CommName& is_comm_name) {
  std::string_view name = t.Str(t.gpu.name[i]);
  if (j.collective[i] < 0) {
    if (!is_comm_name(t.gpu.name[i])) return ActivityClass::kCompute;
    j.collective[i] = CollectiveOfOpChain(j, j.op[i]);
  }
  if (j.collective[i] >= 0) {
    return IsP2PName(t.Str(t.collectives.name[j.collective[i]])) ? ActivityClass::kP2P
                                                                 : ActivityClass::kCollective;
  }
  bool p2p = false;
  if (OpChainNamesComm(t, j, j.op[i], &p2p)) {
    return p2p ? ActivityClass::kP2P : ActivityClass::kCollective;
  }
  return IsP2PName(name) ? ActivityClass::kP2P : ActivityClass::kCollective;
}

}  // namespace

bool IsBackwardOpName(std::string_view name) {
  return name.find("Backward") != std::string_view::npos || name.find("backward") != std::string_view::npos ||
         name.starts_with("autograd::engine::evaluate_function");
}

std::string_view ClassName(ActivityClass c) {
  switch (c) {
    case ActivityClass::kCompute:
      return "compute";
    case ActivityClass::kCollective:
      return "collective";
    case ActivityClass::kP2P:
      return "p2p";
    case ActivityClass::kMemory:
      return "memory";
  }
  return "unknown";
}

Joined Join(Trace& t) {
  Joined j;
  const std::size_t n = t.gpu.size();
  j.launch.assign(n, -1);
  j.op.assign(n, -1);
  j.annotation.assign(n, -1);
  j.step.assign(n, -1);
  j.cls.assign(n, ActivityClass::kCompute);
  j.collective.assign(n, -1);
  j.op_collective.assign(t.cpu.size(), -1);

  LaunchIndex launches(t);
  t.quality.Add(Dq::kDuplicateCorrelation, launches.CountDuplicates());

  for (std::size_t i = 0; i < n; ++i) {
    if (t.gpu.correlation[i] != kNoId) j.launch[i] = launches.Find(t.gpu.correlation[i], t.gpu.pid[i]);
  }
  std::vector<char> is_launch(t.api.size(), 0);
  for (std::int32_t l : j.launch) {
    if (l >= 0) is_launch[l] = 1;
  }
  LaunchContext launch;
  NestCpuOps(t, j, is_launch, launch);
  CollectSteps(t, j);

  for (std::size_t c = 0; c < t.collectives.size(); ++c) {
    if (auto g = t.collectives.gpu[c]; g >= 0 && static_cast<std::size_t>(g) < n) {
      j.collective[g] = static_cast<std::int32_t>(c);
    }
    if (auto o = t.collectives.cpu_op[c]; o >= 0 && static_cast<std::size_t>(o) < t.cpu.size()) {
      j.op_collective[o] = static_cast<std::int32_t>(c);
    }
  }

  NameMemo is_comm_name(t.strings, IsCommKernelName);
  std::int64_t no_launch = 0, before_launch = 0, ext_equals_corr = 0, ext_present = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (t.gpu.external_id[i] != kNoId) {
      ++ext_present;
      ext_equals_corr += t.gpu.external_id[i] == t.gpu.correlation[i];
    }
    std::int32_t l = j.launch[i];
    if (l < 0) {
      ++no_launch;
    } else {
      j.op[i] = launch.op[l];
      j.annotation[i] = launch.annotation[l];
      j.step[i] = StepAt(j, t.api.pid[l], t.api.start_ns[l]);
      before_launch += t.gpu.start_ns[i] < t.api.start_ns[l];
    }
    if (t.gpu.kind[i] != GpuKind::kKernel) {
      j.cls[i] = ActivityClass::kMemory;
      continue;
    }
    j.cls[i] = ClassifyKernel(t, j, i, is_comm_name);
  }
  t.quality.Add(Dq::kKernelNoLaunch, no_launch);
  t.quality.Add(Dq::kGpuBeforeLaunch, before_launch);
  if (ext_present > 0 && ext_equals_corr == ext_present) {
    j.external_id_equals_correlation = true;
    t.quality.Add(Dq::kExternalIdMismatch, ext_present);
  }
  std::int64_t launch_no_op = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (j.launch[i] >= 0 && j.op[i] < 0) ++launch_no_op;
  }
  t.quality.Add(Dq::kLaunchNoOp, launch_no_op);
  AssignLayers(t, j, launch.layer);
  if (j.steps.empty() && n > 0) t.quality.Add(Dq::kNoProfilerSteps);
  return j;
}

TimeNs LaunchTime(const Trace& t, const Joined& j, std::size_t i) {
  return j.launch[i] < 0 ? kNoTime : t.api.start_ns[j.launch[i]];
}

}  // namespace plasmient::join
