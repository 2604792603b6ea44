#include "join/join.h"

#include "base/name_memo.h"
#include "base/parallel.h"
#include "base/text.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <limits>
#include <map>
#include <numeric>
#include <span>
#include <string>
#include <string_view>
#include <tuple>

namespace plasmient::join {
namespace {

using model::CpuOpKind;
using model::CpuOpRowId;
using model::Dq;
using model::GpuKind;
using model::kNoId;
using model::Trace;

bool ContainsNoCase(std::string_view hay, std::string_view needle) {
  auto it = std::search(hay.begin(), hay.end(), needle.begin(), needle.end(),
                        [](char a, char b) { return AsciiLower(a) == AsciiLower(b); });
  return it != hay.end();
}

// The communication a name describes (docs/verdict.md, "Communication roles"). kNone: the name
// performs no communication, or only groups it (ncclGroupEnd, a coalescing block), so an
// enclosing range or the kernel name must decide.
enum class CommRole : std::uint8_t { kNone, kCollective, kP2P };

// Words of collective names (all_reduce, _allgather_base, reduce_scatter, all_to_allv, ...).
constexpr std::string_view kCollectiveWords[] = {"reduce",   "gather",     "scatter", "broadcast",
                                                 "alltoall", "all_to_all", "all2all", "barrier"};

bool NamesCollective(std::string_view name) {
  return std::ranges::any_of(kCollectiveWords, [&](std::string_view w) { return ContainsNoCase(name, w); });
}

CommRole RoleOfCollectiveName(std::string_view name) {
  if (ContainsNoCase(name, "batch_isend_irecv")) return CommRole::kP2P;
  if (NamesCollective(name)) return CommRole::kCollective;
  if (ContainsNoCase(name, "send") || ContainsNoCase(name, "recv")) return CommRole::kP2P;
  return CommRole::kNone;
}

// A CPU range that names a communication: PyTorch's c10d::* and nccl:* ops, NCCL's own NVTX ranges
// (ncclAllReduce, ncclSend, ...), batch_isend_irecv, and a model's annotation of its own collective
// (TorchRec's "## all2all_data:kjt splits ##"). Any other range says nothing.
CommRole RoleOfRangeName(std::string_view name) {
  for (std::string_view prefix : {"nccl:", "c10d::"}) {
    if (name.starts_with(prefix)) return RoleOfCollectiveName(name.substr(prefix.size()));
  }
  if (name.size() > 4 && name.starts_with("nccl") && std::isupper(static_cast<unsigned char>(name[4]))) {
    return RoleOfCollectiveName(name.substr(4));
  }
  if (ContainsNoCase(name, "batch_isend_irecv")) return CommRole::kP2P;
  return NamesCollective(name) ? CommRole::kCollective : CommRole::kNone;
}

ActivityClass ClassOfRole(CommRole role) {
  return role == CommRole::kP2P ? ActivityClass::kP2P : ActivityClass::kCollective;
}

// Correlation ids are unique per process; GPU rows know their process only in some formats.
class LaunchIndex {
 public:
  LaunchIndex(const Trace& t, std::size_t threads) : pid_(t.api.pid) {
    entries_.reserve(t.api.size());
    for (std::size_t i = 0; i < t.api.size(); ++i) {
      if (t.api.correlation[i] != kNoId)
        entries_.push_back({t.api.correlation[i], static_cast<std::int32_t>(i)});
    }
    SortTotalOrder(
        entries_.begin(), entries_.end(),
        [this](const Entry& a, const Entry& b) {
          if (a.correlation != b.correlation) return a.correlation < b.correlation;
          return std::tuple(pid_[a.row], a.row) < std::tuple(pid_[b.row], b.row);
        },
        threads);
  }

  // `near`: where the previous search ended, updated to where this one does.
  model::ApiRowId Find(std::int64_t correlation, std::int64_t pid, std::size_t& near) const {
    near = LowerBoundNear(correlation, near);
    for (auto it = entries_.begin() + static_cast<std::ptrdiff_t>(near);
         it != entries_.end() && it->correlation == correlation; ++it) {
      if (pid == kNoId || pid_[it->row] == pid) return model::ApiRowId(it->row);
    }
    return {};
  }

  std::int64_t CountDuplicates() const {
    std::int64_t dup = 0;
    for (std::size_t i = 1; i < entries_.size(); ++i) {
      dup += entries_[i].correlation == entries_[i - 1].correlation &&
             pid_[entries_[i].row] == pid_[entries_[i - 1].row];
    }
    return dup;
  }

 private:
  // 16 bytes: the process is read from the row where correlation ids tie (rarely).
  struct Entry {
    std::int64_t correlation;
    std::int32_t row;
  };
  const std::vector<std::int64_t>& pid_;  // ApiCalls::pid

  // The first entry not below `correlation`. GPU activities come mostly in launch order, so the
  // answer is usually at or just past `hint`: the search widens from there (a plain binary
  // search over millions of entries misses the cache at every step).
  std::size_t LowerBoundNear(std::int64_t correlation, std::size_t hint) const {
    const std::size_t n = entries_.size();
    hint = std::min(hint, n);
    std::size_t lo = 0, hi = n;  // entries before lo are below it, those from hi on are not
    if (hint < n && entries_[hint].correlation < correlation) {
      lo = hint + 1;
      for (std::size_t step = 1;; step *= 2) {
        if (hint + step >= n) break;
        if (entries_[hint + step].correlation >= correlation) {
          hi = hint + step;
          break;
        }
        lo = hint + step + 1;
      }
    } else {
      hi = hint;
      for (std::size_t step = 1;; step *= 2) {
        if (step > hint) break;
        if (entries_[hint - step].correlation < correlation) {
          lo = hint - step + 1;
          break;
        }
        hi = hint - step;
      }
    }
    auto it = std::lower_bound(entries_.begin() + static_cast<std::ptrdiff_t>(lo),
                               entries_.begin() + static_cast<std::ptrdiff_t>(hi), correlation,
                               [](const Entry& e, std::int64_t c) { return e.correlation < c; });
    return static_cast<std::size_t>(it - entries_.begin());
  }

  std::vector<Entry> entries_;
};

// Sweeps each thread's CPU ranges (sorted by start, outer before inner) with a stack, setting
// every range's parent, then answers "innermost enclosing op, annotation, layer and range of any
// kind" for each launch.
struct LaunchContext {
  // per ApiCalls row: innermost enclosing row, or none
  std::vector<CpuOpRowId> op, annotation, layer, innermost;
};

void NestCpuOps(const Trace& t, Joined& j, const std::vector<char>& is_launch, LaunchContext& launch,
                std::size_t threads) {
  const auto& cpu = t.cpu;
  const auto& api = t.api;
  j.op_parent.assign(cpu.size(), {});
  launch.op.assign(api.size(), {});
  launch.annotation.assign(api.size(), {});
  launch.layer.assign(api.size(), {});
  launch.innermost.assign(api.size(), {});

  // Items: CPU ranges and the API calls that launched, each list per thread by time. Threads get
  // dense indices so the sort compares one small integer, not (pid, tid). 16 bytes: the end is
  // read from its row, only where the order needs it (equal starts on a thread) and for ranges.
  struct Item {
    TimeNs start;
    std::uint32_t thread;
    std::int32_t row;
  };
  std::map<std::pair<std::int64_t, std::int64_t>, std::uint32_t> thread_index;
  // Rows of one thread come in runs: the last thread's index is kept at hand.
  std::pair<std::int64_t, std::int64_t> last_key{kNoId, kNoId};
  std::uint32_t last_index = 0;
  auto thread_of = [&](std::int64_t pid, std::int64_t tid) {
    if (thread_index.empty() || last_key != std::pair{pid, tid}) {
      last_key = {pid, tid};
      last_index =
          thread_index.try_emplace(last_key, static_cast<std::uint32_t>(thread_index.size())).first->second;
    }
    return last_index;
  };
  // Reserved at the row counts: pages past the rows kept are never touched.
  std::vector<Item> ranges, calls;
  ranges.reserve(cpu.size());
  calls.reserve(api.size());
  for (std::size_t i = 0; i < cpu.size(); ++i) {
    if (cpu.kind[i] == CpuOpKind::kStep) continue;  // steps are joined by time, per process
    ranges.push_back({cpu.start_ns[i], thread_of(cpu.pid[i], cpu.tid[i]), static_cast<std::int32_t>(i)});
  }
  for (std::size_t i = 0; i < api.size(); ++i) {
    if (!is_launch[i]) continue;  // only calls that launched GPU activity need their op
    calls.push_back({api.start_ns[i], thread_of(api.pid[i], api.tid[i]), static_cast<std::int32_t>(i)});
  }
  // Longer ranges first at equal start so parents precede children; a launch after the ranges
  // it ties with. The order is total, so each list sorts the same on any thread count.
  auto before_by = [](const std::vector<TimeNs>& end_ns) {
    return [&end_ns](const Item& a, const Item& b) {
      if (a.thread != b.thread) return a.thread < b.thread;
      if (a.start != b.start) return a.start < b.start;
      const TimeNs a_end = end_ns[a.row], b_end = end_ns[b.row];
      return a_end != b_end ? a_end > b_end : a.row < b.row;
    };
  };
  auto call_first = [&](const Item& call, const Item& range) {
    if (call.thread != range.thread) return call.thread < range.thread;
    if (call.start != range.start) return call.start < range.start;
    return api.end_ns[call.row] > cpu.end_ns[range.row];
  };
  const std::function<void()> sorts[] = {
      [&] { SortTotalOrder(ranges.begin(), ranges.end(), before_by(cpu.end_ns), 1); },
      [&] { SortTotalOrder(calls.begin(), calls.end(), before_by(api.end_ns), 1); }};
  RunConcurrently(threads, sorts);

  // Each thread's ranges and calls are walked in their merged order (no merged copy) with a
  // stack. Threads are independent: parts of whole threads walk at once, each writing only
  // its own threads' rows.
  auto walk = [&](std::span<const Item> rs, std::span<const Item> ls) {
    std::vector<CpuOpRowId> stack;
    std::uint32_t cur_thread = 0;
    bool first = true;
    std::size_t r = 0, l = 0;
    while (r < rs.size() || l < ls.size()) {
      const bool is_launch = r == rs.size() || (l < ls.size() && call_first(ls[l], rs[r]));
      const Item& it = is_launch ? ls[l++] : rs[r++];
      if (first || it.thread != cur_thread) {
        stack.clear();
        cur_thread = it.thread;
        first = false;
      }
      while (!stack.empty() && cpu.end_ns[stack.back().index()] <= it.start) stack.pop_back();
      if (is_launch) {
        if (!stack.empty()) launch.innermost[it.row] = stack.back();
        CpuOpRowId &op = launch.op[it.row], &annotation = launch.annotation[it.row];
        CpuOpRowId& layer = launch.layer[it.row];
        for (auto s = stack.rbegin(); s != stack.rend(); ++s) {
          CpuOpKind kind = cpu.kind[s->index()];
          if (kind == CpuOpKind::kOp && !op.has_value()) op = *s;
          if (kind == CpuOpKind::kAnnotation && !annotation.has_value()) annotation = *s;
          if (IsLayerRange(kind) && !layer.has_value()) layer = *s;
          if (op.has_value() && annotation.has_value() && layer.has_value()) break;
        }
        continue;
      }
      // A range that starts inside the top but outlives it is not nested: treat as a sibling.
      while (!stack.empty() && cpu.end_ns[stack.back().index()] < cpu.end_ns[it.row]) stack.pop_back();
      j.op_parent[it.row] = stack.empty() ? CpuOpRowId() : stack.back();
      stack.push_back(CpuOpRowId(it.row));
    }
  };
  constexpr std::size_t kItemsPerPart = 1 << 15;  // below this, a thread costs more than it saves
  const std::size_t parts =
      ranges.empty() ? 1 : PartsFor(ranges.size() + calls.size(), threads, kItemsPerPart);
  // Part p walks the threads from the one at its share of the ranges up to the next part's
  // (none when one thread spans both shares).
  auto first_of_thread = [](const std::vector<Item>& v, std::uint32_t thread) {
    return std::ranges::lower_bound(v, thread, {}, &Item::thread) - v.begin();
  };
  std::vector<std::uint32_t> from(parts + 1, std::numeric_limits<std::uint32_t>::max());
  from[0] = 0;
  for (std::size_t p = 1; p < parts; ++p) from[p] = ranges[ranges.size() * p / parts].thread;
  RunOverParts(threads, parts, parts, [&](std::size_t p, std::size_t, std::size_t) {
    auto rb = first_of_thread(ranges, from[p]), re = first_of_thread(ranges, from[p + 1]);
    auto lb = first_of_thread(calls, from[p]), le = first_of_thread(calls, from[p + 1]);
    walk(std::span(ranges).subspan(rb, re - rb), std::span(calls).subspan(lb, le - lb));
  });
}

// Work queued before profiling began: GPU activity with no launch in the trace that was launched
// before the first call the trace recorded (CUPTI and roctracer number calls in issue order, so
// its correlation id is lower than every recorded call's), or, without correlation ids, that
// started before the trace's first host event. Counted here, with its GPU time, instead of as
// activity with no launch.
void MarkQueuedBeforeProfiling(const Trace& t, Joined& j, model::DataQuality& quality) {
  constexpr std::int64_t kNoCorrelation = std::numeric_limits<std::int64_t>::max();
  constexpr TimeNs kNoHost = std::numeric_limits<TimeNs>::max();
  std::int64_t first_correlation = kNoCorrelation;
  TimeNs first_host_ns = kNoHost;
  for (std::size_t i = 0; i < t.api.size(); ++i) {
    if (t.api.correlation[i] != kNoId) first_correlation = std::min(first_correlation, t.api.correlation[i]);
    first_host_ns = std::min(first_host_ns, t.api.start_ns[i]);
  }
  for (std::size_t i = 0; i < t.cpu.size(); ++i) first_host_ns = std::min(first_host_ns, t.cpu.start_ns[i]);
  j.queued_before_profiling.assign(t.gpu.size(), 0);
  std::int64_t queued = 0, no_launch = 0;
  TimeNs queued_ns = 0;
  for (std::size_t i = 0; i < t.gpu.size(); ++i) {
    if (j.launch[i].has_value()) continue;
    std::int64_t c = t.gpu.correlation[i];
    // Both limits stay at their maximum when the trace recorded no such call or event: then
    // nothing can be said, and nothing is set aside.
    bool before = (c != kNoId && first_correlation != kNoCorrelation && c < first_correlation) ||
                  (first_host_ns != kNoHost && t.gpu.start_ns[i] < first_host_ns);
    j.queued_before_profiling[i] = before;
    queued += before;
    no_launch += !before;
    if (before) queued_ns += t.gpu.end_ns[i] - t.gpu.start_ns[i];
  }
  quality.Add(Dq::kQueuedBeforeProfiling, queued, queued_ns);
  quality.Add(Dq::kKernelNoLaunch, no_launch);
}

void CollectSteps(const Trace& t, Joined& j) {
  for (std::size_t i = 0; i < t.cpu.size(); ++i) {
    if (t.cpu.kind[i] != CpuOpKind::kStep) continue;
    j.steps.push_back({t.cpu.step[i], CpuOpRowId(i), t.cpu.pid[i], t.cpu.start_ns[i], t.cpu.end_ns[i]});
  }
  std::sort(j.steps.begin(), j.steps.end(),
            [](const Step& a, const Step& b) { return a.start_ns < b.start_ns; });
}

StepRowId StepAt(const Joined& j, std::int64_t pid, TimeNs ts) {
  // Steps are few; the last one starting at or before ts that still contains it.
  auto it = std::upper_bound(j.steps.begin(), j.steps.end(), ts,
                             [](TimeNs v, const Step& s) { return v < s.start_ns; });
  while (it != j.steps.begin()) {
    --it;
    if (ts < it->end_ns && (it->pid == pid || pid == kNoId)) {
      return StepRowId(it - j.steps.begin());
    }
    if (it->end_ns <= ts) break;
  }
  return {};
}

// Whether a Collectives row carries arguments (sizes, group, sequence), not only a name a
// reader read off the kernel's name.
bool CarriesArguments(const model::Collectives& c, model::CollectiveRowId id) {
  const std::size_t row = id.index();
  return c.in_nelems[row] >= 0 || c.out_nelems[row] >= 0 || c.group_size[row] >= 0 || c.seq[row] != kNoId ||
         c.bytes[row] >= 0 || !c.pg_name[row].empty() || !c.dtype[row].empty() || !c.pg_ranks[row].empty();
}

// The innermost range around `range` (itself included) that names its communication: collective
// arguments (record_param_comms, nccl:* with args), then the range's own name. Ranges that only
// group communications (ncclGroupEnd, a coalescing block) are passed over.
struct CommRange {
  model::CollectiveRowId collective;  // Collectives row of the deciding range, or none
  CommRole role = CommRole::kNone;
};

CommRange InnermostCommRange(const Trace& t, const Joined& j, CpuOpRowId range) {
  CommRange found;
  for (int depth = 0; range.has_value() && depth < 64; ++depth, range = j.op_parent[range.index()]) {
    if (model::CollectiveRowId c = j.op_collective[range.index()]; c.has_value()) {
      if (!found.collective.has_value()) found.collective = c;
      found.role = RoleOfCollectiveName(t.Str(t.collectives.name[c.index()]));
      if (found.role != CommRole::kNone) return found;
    }
    found.role = RoleOfRangeName(t.Str(t.cpu.name[range.index()]));
    if (found.role != CommRole::kNone) return found;
  }
  return found;
}

// Backward kernels take the layer of the forward op that created their autograd node: the op
// with the same sequence number that is neither a backward op nor inside one, the latest one
// to start before the backward op (sequence numbers restart per thread; the latest ran last).
class ForwardLayers {
 public:
  ForwardLayers(const Trace& t, const Joined& j, std::size_t threads) : t_(t) {
    const auto& cpu = t.cpu;
    // Reserved at the op count, a bound, instead of grown by doubling: pages past the entries
    // kept are never touched.
    forward_.reserve(cpu.size());
    for (std::size_t r = 0; r < cpu.size(); ++r) {
      if (cpu.kind[r] == CpuOpKind::kOp && cpu.sequence[r] != kNoId &&
          !BackwardOpOf(j, CpuOpRowId(r)).has_value()) {
        forward_.push_back({cpu.sequence[r], CpuOpRowId(r)});
      }
    }
    SortTotalOrder(
        forward_.begin(), forward_.end(),
        [&cpu](const Entry& a, const Entry& b) {
          if (a.sequence != b.sequence) return a.sequence < b.sequence;
          return std::tuple(cpu.start_ns[a.row.index()], a.row) <
                 std::tuple(cpu.start_ns[b.row.index()], b.row);
        },
        threads);
  }

  bool IsBackwardOp(std::size_t r) const {
    return t_.cpu.forward_thread[r] != kNoId && t_.cpu.forward_thread[r] > 0 && t_.cpu.sequence[r] != kNoId;
  }

  // The backward op enclosing `op` (itself included), or none.
  CpuOpRowId BackwardOpOf(const Joined& j, CpuOpRowId op) const {
    for (int depth = 0; op.has_value() && depth < 64; ++depth, op = j.op_parent[op.index()]) {
      if (IsBackwardOp(op.index())) return op;
    }
    return {};
  }

  // The layer range around the forward op of backward op `bwd`, or none.
  CpuOpRowId LayerOf(const Joined& j, CpuOpRowId bwd) const {
    std::int64_t seq = t_.cpu.sequence[bwd.index()];
    TimeNs start = t_.cpu.start_ns[bwd.index()];
    auto it = std::upper_bound(forward_.begin(), forward_.end(), std::pair{seq, start},
                               [this](const std::pair<std::int64_t, TimeNs>& v, const Entry& e) {
                                 if (v.first != e.sequence) return v.first < e.sequence;
                                 return v.second < t_.cpu.start_ns[e.row.index()];
                               });
    if (it == forward_.begin() || (it - 1)->sequence != seq) return {};
    CpuOpRowId r = (it - 1)->row;
    for (int depth = 0; r.has_value() && depth < 64; ++depth, r = j.op_parent[r.index()]) {
      if (IsLayerRange(t_.cpu.kind[r.index()])) return r;
    }
    return {};
  }

 private:
  // 16 bytes: the start is read from the row where sequence numbers tie.
  struct Entry {
    std::int64_t sequence;
    CpuOpRowId row;
  };
  const Trace& t_;
  std::vector<Entry> forward_;
};

// Every activity's layer: the range around its launch, else (backward kernels) the range around
// its forward op, else the backward branch.
void AssignLayers(const Trace& t, Joined& j, const std::vector<model::ApiRowId>& issued_by,
                  const std::vector<CpuOpRowId>& launch_layer, std::size_t threads) {
  const std::size_t n = t.gpu.size();
  j.layer.assign(n, {});
  j.layer_source.assign(n, LayerSource::kNone);
  ForwardLayers forward(t, j, threads);
  NameMemo is_backward_name(t.strings, IsBackwardOpName);
  for (std::size_t i = 0; i < n; ++i) {
    if (issued_by[i].has_value() && launch_layer[issued_by[i].index()].has_value()) {
      j.layer[i] = launch_layer[issued_by[i].index()];
      j.layer_source[i] = LayerSource::kLaunch;
      continue;
    }
    bool backward = false;
    if (CpuOpRowId bwd = forward.BackwardOpOf(j, j.op[i]); bwd.has_value()) {
      backward = true;
      j.layer[i] = forward.LayerOf(j, bwd);
    } else {
      CpuOpRowId r = j.op[i];
      for (int depth = 0; r.has_value() && depth < 64 && !backward; r = j.op_parent[r.index()], ++depth) {
        backward = is_backward_name(t.cpu.name[r.index()]);
      }
    }
    if (!backward) continue;
    j.layer_source[i] = j.layer[i].has_value() ? LayerSource::kForward : LayerSource::kBackward;
  }
}

// A communication kernel's role (docs/verdict.md, "Communication roles"): collective arguments on
// the kernel itself, else the innermost enclosing communication range, else the kernel name. Only
// kernels whose arguments or names say they communicate are classified here: a bucket copy
// launched inside c10d::allreduce_ is still compute. A name alone never makes a pipeline
// send/recv: NCCL runs all-to-all as grouped send/recv in kernels named ncclDevKernel_SendRecv.
template <typename CommName>
ActivityClass ClassifyKernel(const Trace& t, Joined& j, std::size_t i, CpuOpRowId innermost,
                             CommName& is_comm_name) {
  const model::CollectiveRowId own = j.collective[i];
  const bool own_args = own.has_value() && CarriesArguments(t.collectives, own);
  if (own_args) {
    CommRole role = RoleOfCollectiveName(t.Str(t.collectives.name[own.index()]));
    if (role != CommRole::kNone) return ClassOfRole(role);
  } else if (!own.has_value() && !is_comm_name(t.gpu.name[i])) {
    return ActivityClass::kCompute;
  }
  // A row the reader made from the kernel's name alone ("sendrecv") says less than the range.
  CommRange range = InnermostCommRange(t, j, innermost);
  if (!own_args && range.collective.has_value()) j.collective[i] = range.collective;
  return range.role == CommRole::kP2P ? ActivityClass::kP2P : ActivityClass::kCollective;
}

// Each activity's step and class, and what the join counts as it goes (after NestCpuOps).
void StepsAndClasses(const Trace& t, const LaunchContext& launch,
                     const std::vector<model::ApiRowId>& issued_by, Joined& j, model::DataQuality& quality) {
  const std::size_t n = t.gpu.size();
  CollectSteps(t, j);

  for (std::size_t c = 0; c < t.collectives.size(); ++c) {
    if (auto g = t.collectives.gpu[c]; g >= 0 && static_cast<std::size_t>(g) < n) {
      j.collective[g] = model::CollectiveRowId(c);
    }
    if (auto o = t.collectives.cpu_op[c]; o >= 0 && static_cast<std::size_t>(o) < t.cpu.size()) {
      j.op_collective[o] = model::CollectiveRowId(c);
    }
  }

  NameMemo is_comm_name(t.strings, IsCommKernelName);
  std::int64_t before_launch = 0, ext_equals_corr = 0, ext_present = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (t.gpu.external_id[i] != kNoId) {
      ++ext_present;
      ext_equals_corr += t.gpu.external_id[i] == t.gpu.correlation[i];
    }
    const model::ApiRowId launched_by = j.launch[i];
    if (launched_by.has_value()) {
      const std::size_t l = launched_by.index();
      j.step[i] = StepAt(j, t.api.pid[l], t.api.start_ns[l]);
      before_launch += t.gpu.start_ns[i] < t.api.start_ns[l];
    }
    if (t.gpu.kind[i] != GpuKind::kKernel) {
      j.cls[i] = ActivityClass::kMemory;
      continue;
    }
    j.cls[i] = ClassifyKernel(
        t, j, i, issued_by[i].has_value() ? launch.innermost[issued_by[i].index()] : CpuOpRowId(),
        is_comm_name);
  }
  MarkQueuedBeforeProfiling(t, j, quality);
  quality.Add(Dq::kGpuBeforeLaunch, before_launch);
  if (ext_present > 0 && ext_equals_corr == ext_present) {
    j.external_id_equals_correlation = true;
    quality.Add(Dq::kExternalIdEqualsCorrelation, ext_present);
  }
  std::int64_t launch_no_op = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (j.launch[i].has_value() && !j.op[i].has_value()) ++launch_no_op;
  }
  quality.Add(Dq::kLaunchNoOp, launch_no_op);
}

}  // namespace

bool IsCommKernelName(std::string_view name) {
  // Lower-cased once, then plain searches: kernel names run to hundreds of bytes, and each rank
  // classifies each of its names.
  // NCCL/RCCL and the collective kernels of vLLM/SGLang custom all-reduce; NVSHMEM and MSCCL; and
  // the expert-parallel all-to-all libraries' kernels (DeepEP's internode::/intranode:: dispatch,
  // combine and notify kernels), which carry no NCCL name.
  constexpr std::string_view kWords[] = {"nccl",    "rccl",  "multimem_all_reduce", "cross_device_reduce",
                                         "nvshmem", "msccl", "::internode::",       "::intranode::"};
  const std::string lower = AsciiLower(name);
  return std::ranges::any_of(kWords, [&](std::string_view w) { return lower.find(w) != std::string::npos; });
}

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

Joined Join(const Trace& t, model::DataQuality& quality, std::size_t threads) {
  Joined j;
  const std::size_t n = t.gpu.size();
  j.launch.assign(n, {});
  j.op.assign(n, {});
  j.annotation.assign(n, {});
  j.step.assign(n, {});
  j.cls.assign(n, ActivityClass::kCompute);
  j.collective.assign(n, {});
  j.op_collective.assign(t.cpu.size(), {});

  LaunchIndex launches(t, threads);
  quality.Add(Dq::kDuplicateCorrelation, launches.CountDuplicates());

  std::size_t near = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (t.gpu.correlation[i] != kNoId) j.launch[i] = launches.Find(t.gpu.correlation[i], t.gpu.pid[i], near);
  }
  j.graphs = MatchGraphReplays(t, j.launch, quality);
  // The launch whose host context an activity takes: for a replayed kernel the one recorded
  // during capture, where the op that issued it ran.
  std::vector<model::ApiRowId> issued_by = j.launch;
  for (std::size_t i = 0; i < n; ++i) {
    if (j.graphs.captured[i].has_value()) issued_by[i] = j.graphs.captured[i];
  }
  std::vector<char> is_launch(t.api.size(), 0);
  for (model::ApiRowId l : issued_by) {
    if (l.has_value()) is_launch[l.index()] = 1;
  }
  LaunchContext launch;
  NestCpuOps(t, j, is_launch, launch, threads);
  for (std::size_t i = 0; i < n; ++i) {
    if (const model::ApiRowId l = issued_by[i]; l.has_value()) {
      j.op[i] = launch.op[l.index()];
      j.annotation[i] = launch.annotation[l.index()];
    }
  }
  // The layers need only the CPU-op tree and each activity's op: they are assigned beside the
  // steps and the classes, which write the rest of the join and its data quality.
  const std::function<void()> rest[] = {[&] { StepsAndClasses(t, launch, issued_by, j, quality); },
                                        [&] { AssignLayers(t, j, issued_by, launch.layer, 1); }};
  RunConcurrently(threads, rest);
  if (j.steps.empty() && n > 0) quality.Add(Dq::kNoProfilerSteps);
  return j;
}

TimeNs LaunchTime(const Trace& t, const Joined& j, std::size_t i) {
  return j.launch[i].has_value() ? t.api.start_ns[j.launch[i].index()] : kNoTime;
}

bool IsHostSync(std::string_view api) {
  constexpr std::string_view kSyncs[] = {
      "cudaStreamSynchronize", "cudaDeviceSynchronize", "cudaEventSynchronize", "cudaMemcpy",
      "hipStreamSynchronize",  "hipDeviceSynchronize",  "hipEventSynchronize",  "hipMemcpy"};
  return std::find(std::begin(kSyncs), std::end(kSyncs), api) != std::end(kSyncs);
}

}  // namespace plasmient::join
