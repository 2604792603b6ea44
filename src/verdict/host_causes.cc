// Host-bound idle by cause (docs/verdict.md, "Causes of host-bound idle"): each GPU idle gap is
// cut where the host ranges of the thread that ends it (the launcher of the next activity) start
// and end, and each slice goes to the innermost range that names a cause.
#include "verdict/host_causes.h"

#include <algorithm>
#include <limits>
#include <map>
#include <unordered_map>

#include "base/text.h"
#include "model/trace_builder.h"
#include "verdict/facts.h"

namespace plasmient::verdict {
namespace {

bool StartsWithAny(std::string_view s, std::initializer_list<std::string_view> prefixes) {
  return std::any_of(prefixes.begin(), prefixes.end(), [&](std::string_view p) { return s.starts_with(p); });
}

bool ContainsAny(std::string_view lower, std::initializer_list<std::string_view> parts) {
  return std::any_of(parts.begin(), parts.end(),
                     [&](std::string_view p) { return lower.find(p) != std::string_view::npos; });
}

std::optional<HostCause> CauseOfApi(std::string_view n) {
  if (n.find("BeginCapture") != std::string_view::npos || n.find("EndCapture") != std::string_view::npos ||
      n.find("GraphInstantiate") != std::string_view::npos || n.find("GraphUpload") != std::string_view::npos)
    return HostCause::kGraphCapture;
  if (StartsWithAny(n, {"nvrtc", "hiprtc", "cuModuleLoad", "cuLibraryLoad", "cudaLibraryLoad",
                        "hipModuleLoad", "cuLinkCreate", "cuLinkAdd", "cuLinkComplete", "hipLinkCreate",
                        "hipLinkAdd", "hipLinkComplete", "cuModuleUnload", "hipModuleUnload"}))
    return HostCause::kCompile;
  if (StartsWithAny(n,
                    {"cudaFree",           "cudaMalloc",        "cudaHostAlloc",     "cudaHostRegister",
                     "cudaHostUnregister", "cuMemAlloc",        "cuMemFree",         "cuMemCreate",
                     "cuMemMap",           "cuMemUnmap",        "cuMemRelease",      "cuMemAddressReserve",
                     "cuMemAddressFree",   "cuMemHostAlloc",    "cuMemHostRegister", "hipFree",
                     "hipMalloc",          "hipHostMalloc",     "hipHostFree",       "hipExtMallocWithFlags",
                     "hipHostRegister",    "hipHostUnregister", "hipMemCreate",      "hipMemMap",
                     "hipMemUnmap",        "hipMemRelease"}))
    return HostCause::kAllocator;
  if (n.find("Synchronize") != std::string_view::npos ||
      StartsWithAny(n, {"cudaEventQuery", "hipEventQuery", "cudaStreamQuery", "hipStreamQuery",
                        "cuEventQuery", "cuStreamQuery"}))
    return HostCause::kSync;
  if (StartsWithAny(n, {"cudaMemcpy", "hipMemcpy", "cuMemcpy"})) {
    // The asynchronous forms return at once unless the host memory is pageable (the copy's own
    // record says so: CauseOfCall); hipMemcpyWithStream blocks.
    if (n.find("Async") == std::string_view::npos) return HostCause::kBlockingCopy;
    return std::nullopt;
  }
  if (n.find("Launch") != std::string_view::npos) return HostCause::kLaunch;  // kernels and graphs
  return std::nullopt;
}

std::optional<HostCause> CauseOfOp(std::string_view name) {
  const std::string lower = AsciiLower(name);
  // Compile and autotune ranges, not the compiled code's own ("Torch-Compiled Region",
  // "CompiledFunction").
  if ((lower.find("compile") != std::string::npos && lower.find("compiled") == std::string::npos) ||
      ContainsAny(lower, {"autotun", "cudnnfind", "nvrtc", "jit_compile", "codegen"}))
    return HostCause::kCompile;
  if (ContainsAny(lower, {"dataloader"})) return HostCause::kDataLoading;
  if (ContainsAny(lower, {"graph capture", "graph_capture", "cudagraph::capture", "capture_begin",
                          "capture_end", "graph.capture", "graph_pool"}))
    return HostCause::kGraphCapture;
  // Host-side communication: gloo, barriers, and MPI's calls as NVTX or profiler ranges record
  // them (MPI_Send, MPI_Recv, MPI_Allreduce, MPI_Wait...).
  if (ContainsAny(lower, {"gloo", "barrier"}) || lower.starts_with("mpi_") || lower.starts_with("pmpi_"))
    return HostCause::kHostCollective;
  if (name == "aten::item" || name == "aten::_local_scalar_dense" || name == "aten::nonzero" ||
      name == "aten::is_nonzero" || name == "aten::equal" || name == "aten::allclose" ||
      name == "aten::masked_select" || name == "aten::unique" || name == "aten::_unique2")
    return HostCause::kSync;
  if (lower.find("empty_cache") != std::string::npos) return HostCause::kAllocator;
  return std::nullopt;
}

bool IsDeviceToHost(std::string_view copy) {
  for (std::string_view d :
       {"DtoH", "Device-to-Host", "Device -> Host", "Device -> Pageable", "Device -> Pinned"}) {
    if (copy.find(d) != std::string_view::npos) return true;
  }
  return false;
}

struct Range {
  TimeNs start_ns, end_ns;
  StringId name;
  std::int8_t cause;      // HostCause, or -1 when the range names none
  bool plain;             // a step or module range
  bool step;              // a step: it holds everything and names nothing
  bool op = false;        // an op (not an annotation)
  bool launches = false;  // an op holding a launch call: its host time is the launch's overhead
};

// A launch call that lasts this long while the GPU idles is not queueing (a full queue means a
// busy GPU): the driver is loading the kernel's module or JIT-compiling it (lazy loading, PTX
// without code for the part). Ordinary launches take a few µs.
constexpr TimeNs kSlowLaunchNs = 100 * kNsPerUs;

struct ThreadRanges {
  std::vector<Range> ranges;  // by (start, longer first)
  std::int64_t launches = 0;
};

// One slice of a gap with its cause and the range that named it.
struct Slice {
  TimeNs ns;
  HostCause cause;
  StringId name;
  bool found = false;  // a range holds it (cause kUnknown otherwise)
  bool drain = false;  // within the launch cadence after a sync the gap began in (SplitAtDrainEnd)
};

// The cause of [from, to) from the ranges holding it (`held`, any order): the innermost that
// names a cause, else the innermost op or annotation (host work), else a module (host work in
// it), else unknown.
Slice ClassifySlice(const std::vector<const Range*>& held, TimeNs ns) {
  const Range* innermost_cause = nullptr;
  const Range* innermost_op = nullptr;
  const Range* innermost_module = nullptr;
  auto inner = [](const Range* a, const Range* b) {
    return !a || b->start_ns > a->start_ns || (b->start_ns == a->start_ns && b->end_ns < a->end_ns);
  };
  for (const Range* r : held) {
    if (r->cause >= 0 && inner(innermost_cause, r)) innermost_cause = r;
    if (!r->plain && inner(innermost_op, r)) innermost_op = r;
    if (r->plain && !r->step && inner(innermost_module, r)) innermost_module = r;
  }
  if (innermost_cause)
    return {ns, static_cast<HostCause>(innermost_cause->cause), innermost_cause->name, true};
  if (innermost_op) {
    return {ns, innermost_op->launches ? HostCause::kLaunch : HostCause::kHostWork, innermost_op->name, true};
  }
  if (innermost_module) return {ns, HostCause::kHostWork, innermost_module->name, true};
  return {ns, HostCause::kUnknown, StringId{}, false};
}

// At most this many ranges starting inside one gap are read (a long data-loading gap holds
// thousands of small ops; the ranges holding the later slices still name them).
constexpr std::size_t kMaxRangesPerGap = 512;

// Slices of each asked interval on one thread. `asks` by start, disjoint.
struct Ask {
  TimeNs start_ns, end_ns;
  std::uint32_t gap;
};
void SliceOnThread(const ThreadRanges& th, const std::vector<Ask>& asks,
                   std::vector<std::vector<Slice>>& slices_by_ask) {
  const auto& rs = th.ranges;
  std::size_t next = 0;
  std::vector<const Range*> open, set, held;
  std::vector<TimeNs> cuts;
  slices_by_ask.assign(asks.size(), {});
  for (std::size_t a = 0; a < asks.size(); ++a) {
    const Ask& q = asks[a];
    while (next < rs.size() && rs[next].start_ns <= q.start_ns) open.push_back(&rs[next++]);
    std::erase_if(open, [&](const Range* r) { return r->end_ns <= q.start_ns; });
    set = open;
    for (std::size_t i = next; i < rs.size() && rs[i].start_ns < q.end_ns && set.size() < kMaxRangesPerGap;
         ++i)
      set.push_back(&rs[i]);
    cuts.assign({q.start_ns, q.end_ns});
    for (const Range* r : set) {
      if (r->start_ns > q.start_ns && r->start_ns < q.end_ns) cuts.push_back(r->start_ns);
      if (r->end_ns > q.start_ns && r->end_ns < q.end_ns) cuts.push_back(r->end_ns);
    }
    std::sort(cuts.begin(), cuts.end());
    cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
    auto& out = slices_by_ask[a];
    for (std::size_t c = 0; c + 1 < cuts.size(); ++c) {
      held.clear();
      for (const Range* r : set) {
        if (r->start_ns <= cuts[c] && r->end_ns > cuts[c]) held.push_back(r);
      }
      Slice s = ClassifySlice(held, cuts[c + 1] - cuts[c]);
      if (!out.empty() && out.back().cause == s.cause && out.back().name == s.name &&
          out.back().found == s.found) {
        out.back().ns += s.ns;
      } else {
        out.push_back(s);
      }
    }
  }
}

// The sync slices of a gap starting at gap_start_ns, past kSyncReturnMaxNs into it, become unseen
// waits under the same name.
void SplitUnseenWaits(TimeNs gap_start_ns, std::vector<Slice>& slices) {
  const TimeNs bound = gap_start_ns + kSyncReturnMaxNs;
  std::vector<Slice> out;
  TimeNs at = gap_start_ns;
  for (const Slice& s : slices) {
    const TimeNs end = at + s.ns;
    if (s.cause == HostCause::kSync && s.found && end > bound) {
      const TimeNs before = std::max<TimeNs>(0, bound - at);
      if (before > 0) out.push_back({before, HostCause::kSync, s.name, true});
      out.push_back({s.ns - before, HostCause::kUnseenWait, s.name, true});
    } else {
      out.push_back(s);
    }
    at = end;
  }
  slices = std::move(out);
}

// A gap that began while the host blocked in a sync: the GPU drained, then waited for the host's
// next launch. That wait is the sync's only as far as the launch cadence after the call returned
// (the end of its leading sync and unseen-wait slices); host time after that is the host's own
// work, or unknown, as its ranges say. Splits the slice that crosses that point and marks the
// slices before it.
void SplitAtDrainEnd(TimeNs gap_start_ns, std::vector<Slice>& slices) {
  TimeNs returned = gap_start_ns;
  for (const Slice& s : slices) {
    if (s.cause != HostCause::kSync && s.cause != HostCause::kUnseenWait) break;
    returned += s.ns;
  }
  const TimeNs drain_end = returned + kLaunchBoundGapMaxNs;
  std::vector<Slice> out;
  TimeNs at = gap_start_ns;
  for (Slice s : slices) {
    const TimeNs end = at + s.ns;
    if (at < drain_end && end > drain_end) {
      Slice before = s;
      before.ns = drain_end - at;
      before.drain = true;
      out.push_back(before);
      s.ns = end - drain_end;
    } else {
      s.drain = at < drain_end;
    }
    out.push_back(s);
    at = end;
  }
  slices = std::move(out);
}

using ThreadKey = std::pair<std::int64_t, std::int64_t>;  // (pid, tid)

// The profiler's own work (model::ProfilerOverhead) as disjoint intervals by start, each with the
// cause it names: the program's JIT compilation for CUPTI's compiler and loading kinds, else the
// profiler's overhead. Where two overlap, the earlier one's name holds the overlap.
struct OverheadSpan {
  TimeNs start_ns, end_ns;
  StringId name;
  HostCause cause;
};
std::vector<OverheadSpan> OverheadSpans(const model::Trace& t) {
  std::vector<OverheadSpan> spans;
  for (std::size_t i = 0; i < t.overhead.size(); ++i) {
    if (t.overhead.end_ns[i] <= t.overhead.start_ns[i]) continue;
    const bool compile = model::IsCompileOverhead(t.Str(t.overhead.name[i]));
    spans.push_back({t.overhead.start_ns[i], t.overhead.end_ns[i], t.overhead.name[i],
                     compile ? HostCause::kCompile : HostCause::kProfilerOverhead});
  }
  std::sort(spans.begin(), spans.end(), [](const OverheadSpan& a, const OverheadSpan& b) {
    return a.start_ns != b.start_ns ? a.start_ns < b.start_ns : a.end_ns > b.end_ns;
  });
  std::vector<OverheadSpan> out;
  for (OverheadSpan s : spans) {
    if (!out.empty()) s.start_ns = std::max(s.start_ns, out.back().end_ns);
    if (s.end_ns > s.start_ns) out.push_back(s);
  }
  return out;
}

// The slices of a gap starting at gap_start_ns that no range names a cause of (host work, a launch
// call or nothing on the launching thread) go, where the profiler's own work spans them, to that
// work: a range of the program's that names a cause says more, and wins.
void OverlayOverhead(TimeNs gap_start_ns, const std::vector<OverheadSpan>& spans,
                     std::vector<Slice>& slices) {
  if (spans.empty()) return;
  std::vector<Slice> out;
  TimeNs at = gap_start_ns;
  for (const Slice& s : slices) {
    const TimeNs end = at + s.ns;
    const bool generic =
        s.cause == HostCause::kHostWork || s.cause == HostCause::kUnknown || s.cause == HostCause::kLaunch;
    if (!generic) {
      out.push_back(s);
      at = end;
      continue;
    }
    auto it = std::upper_bound(spans.begin(), spans.end(), at,
                               [](TimeNs x, const OverheadSpan& o) { return x < o.end_ns; });
    TimeNs from = at;
    for (; it != spans.end() && it->start_ns < end; ++it) {
      const TimeNs lo = std::max(from, it->start_ns), hi = std::min(end, it->end_ns);
      if (hi <= lo) continue;
      if (lo > from) out.push_back({lo - from, s.cause, s.name, s.found, s.drain});
      out.push_back({hi - lo, it->cause, it->name, true, s.drain});
      from = hi;
    }
    if (end > from) out.push_back({end - from, s.cause, s.name, s.found, s.drain});
    at = end;
  }
  slices = std::move(out);
}

constexpr std::size_t kNamesKept = 5;

void KeepNames(std::vector<HostCauseRange>& names) {
  std::stable_sort(names.begin(), names.end(),
                   [](const HostCauseRange& a, const HostCauseRange& b) { return a.idle_s > b.idle_s; });
  if (names.size() > kNamesKept) names.resize(kNamesKept);
}

}  // namespace

std::string_view HostCauseName(HostCause cause) {
  switch (cause) {
    case HostCause::kAllocator:
      return "allocator";
    case HostCause::kSync:
      return "sync";
    case HostCause::kBlockingCopy:
      return "blocking_copy";
    case HostCause::kCompile:
      return "compile";
    case HostCause::kDataLoading:
      return "data_loading";
    case HostCause::kGraphCapture:
      return "graph_capture";
    case HostCause::kHostCollective:
      return "host_collective";
    case HostCause::kProfilerOverhead:
      return "profiler_overhead";
    case HostCause::kLaunch:
      return "launch_bound";
    case HostCause::kUnseenWait:
      return "unseen_wait";
    case HostCause::kHostWork:
      return "host_work";
    case HostCause::kUnknown:
    case HostCause::kCount:
      break;
  }
  return "unknown";
}

HostCause HostCauseFromName(std::string_view name) {
  for (std::size_t i = 0; i < kHostCauseCount; ++i) {
    if (HostCauseName(static_cast<HostCause>(i)) == name) return static_cast<HostCause>(i);
  }
  return HostCause::kUnknown;
}

std::optional<HostCause> CauseOfHostRange(std::string_view name, bool api) {
  return api ? CauseOfApi(name) : CauseOfOp(name);
}

HostCause CauseOfStack(const std::vector<HostRangeRef>& innermost_first) {
  bool held = false;
  for (const auto& r : innermost_first) {
    if (auto c = CauseOfHostRange(r.name, r.api)) return *c;
    held = held || !r.plain;
  }
  return held ? HostCause::kHostWork : HostCause::kUnknown;
}

double HostIdleCauses::total_s() const {
  double s = 0;
  for (const auto& c : by_cause) s += c.idle_s;
  return s;
}

std::optional<HostCause> HostIdleCauses::CauseAt(TimeNs t) const {
  auto it = std::upper_bound(slices.begin(), slices.end(), t,
                             [](TimeNs x, const HostIdleSlice& s) { return x < s.start_ns; });
  if (it == slices.begin()) return std::nullopt;
  --it;
  return t < it->end_ns ? std::optional<HostCause>(it->cause) : std::nullopt;
}

void HostIdleCauses::Merge(const HostIdleCauses& o) {
  for (std::size_t i = 0; i < kHostCauseCount; ++i) {
    auto& into = by_cause[i];
    const auto& from = o.by_cause[i];
    into.idle_s += from.idle_s;
    into.gaps += from.gaps;
    into.calls += from.calls;
    into.call_s += from.call_s;
    into.other_thread = into.other_thread || from.other_thread;
    if (from.longest_start_ns != kNoTime &&
        (into.longest_start_ns == kNoTime ||
         from.longest_end_ns - from.longest_start_ns > into.longest_end_ns - into.longest_start_ns)) {
      into.longest_start_ns = from.longest_start_ns;
      into.longest_end_ns = from.longest_end_ns;
    }
    for (const auto& n : from.names) {
      auto same = std::find_if(into.names.begin(), into.names.end(),
                               [&](const HostCauseRange& x) { return x.name == n.name; });
      if (same == into.names.end()) {
        into.names.push_back(n);
      } else {
        same->gaps += n.gaps;
        same->idle_s += n.idle_s;
      }
    }
    KeepNames(into.names);
  }
}

HostIdleCauses AttributeHostIdle(const model::Trace& t, const ActivityFacts& f, TimeNs w0, TimeNs w1) {
  HostIdleCauses out;
  if (f.idle_gaps.empty()) return out;
  // The host ranges by thread, each with the cause its name says.
  std::map<ThreadKey, ThreadRanges> threads;
  std::vector<std::int8_t> api_cause(t.strings.size(), -2), op_cause(t.strings.size(), -2);
  auto memo = [&](std::vector<std::int8_t>& m, StringId id, bool api) {
    if (id.value >= m.size()) m.resize(t.strings.size(), -2);
    if (m[id.value] == -2) {
      auto c = CauseOfHostRange(t.Str(id), api);
      m[id.value] = c ? static_cast<std::int8_t>(*c) : -1;
    }
    return m[id.value];
  };
  // Asynchronous copies whose host memory is pageable block like synchronous ones: the copy
  // activity's name says so ("Memcpy HtoD (Pageable -> Device)").
  std::vector<char> pageable_call(t.api.size(), 0);
  std::vector<model::GpuRowId> copy_of_call(t.api.size());
  for (std::size_t k = 0; k < t.gpu.size(); ++k) {
    if (!f.launch[k].has_value() || t.gpu.kind[k] != model::GpuKind::kMemcpy) continue;
    copy_of_call[f.launch[k].index()] = model::GpuRowId(static_cast<std::int32_t>(k));
    if (t.Str(t.gpu.name[k]).find("Pageable") != std::string_view::npos)
      pageable_call[f.launch[k].index()] = 1;
  }
  for (std::size_t a = 0; a < t.api.size(); ++a) {
    std::int8_t c = pageable_call[a] ? static_cast<std::int8_t>(HostCause::kBlockingCopy)
                                     : memo(api_cause, t.api.name[a], true);
    StringId name = t.api.name[a];
    if (c == static_cast<std::int8_t>(HostCause::kBlockingCopy) && copy_of_call[a].has_value()) {
      name = t.gpu.name[copy_of_call[a].index()];  // "Memcpy HtoD (Pageable -> Device)": kind and direction
      // A blocking copy to the host waits for the device to produce the values: the host reads
      // results back (.item(), .cpu(), .tolist()), a sync whatever the memory.
      if (IsDeviceToHost(t.Str(name))) c = static_cast<std::int8_t>(HostCause::kSync);
    } else if (c == static_cast<std::int8_t>(HostCause::kLaunch) &&
               t.api.end_ns[a] - t.api.start_ns[a] >= kSlowLaunchNs) {
      c = static_cast<std::int8_t>(HostCause::kCompile);
    }
    threads[{t.api.pid[a], t.api.tid[a]}].ranges.push_back(
        {t.api.start_ns[a], t.api.end_ns[a], name, c, false, false});
  }
  for (std::size_t r = 0; r < t.cpu.size(); ++r) {
    const auto kind = t.cpu.kind[r];
    const bool plain = kind == model::CpuOpKind::kStep || kind == model::CpuOpKind::kModule;
    std::int8_t c = plain ? std::int8_t{-1} : memo(op_cause, t.cpu.name[r], false);
    threads[{t.cpu.pid[r], t.cpu.tid[r]}].ranges.push_back({t.cpu.start_ns[r], t.cpu.end_ns[r], t.cpu.name[r],
                                                            c, plain, kind == model::CpuOpKind::kStep,
                                                            kind == model::CpuOpKind::kOp, false});
  }
  for (auto& [key, th] : threads) {
    std::sort(th.ranges.begin(), th.ranges.end(), [](const Range& a, const Range& b) {
      return a.start_ns != b.start_ns ? a.start_ns < b.start_ns : a.end_ns > b.end_ns;
    });
    // Short ops holding a launch call (any depth): the host time inside them is the per-op
    // overhead of launching. An op whose host time is longer did work of its own.
    std::vector<Range*> open;
    for (Range& r : th.ranges) {
      std::erase_if(open, [&](const Range* o) { return o->end_ns <= r.start_ns; });
      if (r.cause == static_cast<std::int8_t>(HostCause::kLaunch) && !r.op && !r.plain) {
        for (Range* o : open) o->launches = o->launches || o->end_ns - o->start_ns < kSlowLaunchNs;
      }
      if (r.op) open.push_back(&r);
    }
  }
  // Each gap's thread: the launcher of the first kept activity starting at or after its end.
  std::vector<std::pair<TimeNs, ThreadKey>> launches;  // (activity start, launching thread)
  for (std::size_t k = 0; k < t.gpu.size(); ++k) {
    if (!f.kept[k] || !f.launch[k].has_value()) continue;
    const std::size_t a = f.launch[k].index();
    const ThreadKey key{t.api.pid[a], t.api.tid[a]};
    launches.emplace_back(t.gpu.start_ns[k], key);
    ++threads[key].launches;
  }
  std::sort(launches.begin(), launches.end());
  // The thread that launches most, then every other launching thread: where a slice that the
  // gap's own thread leaves unexplained is looked for.
  std::vector<ThreadKey> fallbacks;
  for (const auto& [key, th] : threads) {
    if (th.launches > 0) fallbacks.push_back(key);
  }
  std::stable_sort(fallbacks.begin(), fallbacks.end(), [&](const ThreadKey& a, const ThreadKey& b) {
    return threads[a].launches > threads[b].launches;
  });
  if (fallbacks.empty()) {
    // No launch is correlated: the threads that call the runtime most stand in.
    std::vector<std::pair<std::size_t, ThreadKey>> by_calls;
    by_calls.reserve(threads.size());
    for (const auto& [key, th] : threads) by_calls.emplace_back(th.ranges.size(), key);
    std::stable_sort(by_calls.begin(), by_calls.end(), [](auto& a, auto& b) { return a.first > b.first; });
    for (const auto& [n, key] : by_calls) fallbacks.push_back(key);
  }
  constexpr std::size_t kFallbackThreads = 4;
  if (fallbacks.size() > kFallbackThreads) fallbacks.resize(kFallbackThreads);

  const auto& gaps = f.idle_gaps;
  std::map<ThreadKey, std::vector<Ask>> asks;
  std::vector<ThreadKey> gap_thread(gaps.size());
  for (std::uint32_t g = 0; g < gaps.size(); ++g) {
    auto next = std::lower_bound(launches.begin(), launches.end(), std::pair{gaps[g].second, ThreadKey{}},
                                 [](const auto& a, const auto& b) { return a.first < b.first; });
    const ThreadKey key = next != launches.end() ? next->second
                          : !fallbacks.empty()   ? fallbacks.front()
                                                 : ThreadKey{};
    asks[key].push_back({gaps[g].first, gaps[g].second, g});
    gap_thread[g] = key;
  }
  std::vector<std::vector<Slice>> slices(gaps.size());
  std::vector<std::vector<Slice>> found;
  for (auto& [key, list] : asks) {
    auto th = threads.find(key);
    if (th == threads.end()) {
      for (const Ask& q : list)
        slices[q.gap] = {{q.end_ns - q.start_ns, HostCause::kUnknown, StringId{}, false}};
      continue;
    }
    SliceOnThread(th->second, list, found);
    for (std::size_t i = 0; i < list.size(); ++i) slices[list[i].gap] = std::move(found[i]);
  }
  // Slices no range on the gap's own thread holds: the other launching threads may say what the
  // program was doing (a data-loading or compile range on the main thread while the backward
  // thread waits).
  std::vector<char> other_thread_found(kHostCauseCount, 0);
  for (const ThreadKey& key : fallbacks) {
    std::vector<Ask> unexplained;
    std::vector<std::pair<std::uint32_t, std::size_t>> where;  // (gap, slice)
    for (std::uint32_t g = 0; g < gaps.size(); ++g) {
      if (gap_thread[g] == key) continue;  // its own thread said nothing of it
      TimeNs at = gaps[g].first;
      for (std::size_t s = 0; s < slices[g].size(); ++s) {
        if (!slices[g][s].found) {
          unexplained.push_back({at, at + slices[g][s].ns, g});
          where.emplace_back(g, s);
        }
        at += slices[g][s].ns;
      }
    }
    if (unexplained.empty()) continue;
    SliceOnThread(threads[key], unexplained, found);
    // Each unexplained slice becomes what this thread shows of it: its found parts take their
    // cause, the rest stays unexplained for the next thread.
    std::size_t i = 0;
    while (i < unexplained.size()) {
      const std::uint32_t g = where[i].first;
      std::vector<Slice> merged;
      for (std::size_t s = 0; s < slices[g].size(); ++s) {
        if (i < where.size() && where[i].first == g && where[i].second == s) {
          for (const Slice& got : found[i]) {
            if (got.found) other_thread_found[static_cast<std::size_t>(got.cause)] = 1;
            merged.push_back(got);
          }
          ++i;
        } else {
          merged.push_back(slices[g][s]);
        }
      }
      slices[g] = std::move(merged);
    }
  }
  // Per gap: a sync call still blocking kSyncReturnMaxNs into the gap waited, from then on, on work
  // the trace does not show (nothing recorded was resident); a gap that began while the host
  // blocked in a sync is the sync's up to the launch cadence after the call returned (the host
  // waited for the GPU to drain, then the GPU for the host's next launch: SplitAtDrainEnd); a short
  // gap that no range names is the launch cadence; then the figures.
  std::unordered_map<std::uint64_t, std::pair<std::int64_t, TimeNs>> by_name;  // (cause, name) → (gaps, ns)
  const std::vector<OverheadSpan> overhead = OverheadSpans(t);
  for (std::uint32_t g = 0; g < gaps.size(); ++g) {
    auto& sl = slices[g];
    if (sl.empty()) continue;
    OverlayOverhead(gaps[g].first, overhead, sl);
    SplitUnseenWaits(gaps[g].first, sl);
    const TimeNs len = gaps[g].second - gaps[g].first;
    const bool after_sync = sl.front().cause == HostCause::kSync;
    if (after_sync) SplitAtDrainEnd(gaps[g].first, sl);
    std::array<TimeNs, kHostCauseCount> ns{};
    TimeNs at = gaps[g].first;  // the slices tile the gap from its start
    for (auto& s : sl) {
      const bool generic = s.cause == HostCause::kHostWork || s.cause == HostCause::kUnknown;
      if (generic && after_sync && s.drain) {
        s.cause = HostCause::kSync;
        s.name = sl.front().name;
      } else if (generic && len < kLaunchBoundGapMaxNs) {
        s.cause = HostCause::kLaunch;
      }
      ns[static_cast<std::size_t>(s.cause)] += s.ns;
      if (s.ns > 0) out.slices.push_back({at, at + s.ns, s.cause, s.name});
      HostCauseFigures& fig = out.by_cause[static_cast<std::size_t>(s.cause)];
      if (fig.longest_start_ns == kNoTime || s.ns > fig.longest_end_ns - fig.longest_start_ns) {
        fig.longest_start_ns = at;
        fig.longest_end_ns = at + s.ns;
      }
      at += s.ns;
      auto& n = by_name[(static_cast<std::uint64_t>(s.cause) << 32) | s.name.value];
      n.second += s.ns;
    }
    for (const auto& s : sl) {
      auto& n = by_name[(static_cast<std::uint64_t>(s.cause) << 32) | s.name.value];
      ++n.first;  // once per slice: a name split over two slices of a gap counts twice, rarely
    }
    const auto most = static_cast<std::size_t>(std::max_element(ns.begin(), ns.end()) - ns.begin());
    ++out.by_cause[most].gaps;
    for (std::size_t c = 0; c < kHostCauseCount; ++c) out.by_cause[c].idle_s += NsToSeconds(ns[c]);
  }
  std::vector<std::pair<std::uint64_t, std::pair<std::int64_t, TimeNs>>> sorted(by_name.begin(),
                                                                                by_name.end());
  std::sort(sorted.begin(), sorted.end());  // the map's order is not the same from run to run
  for (const auto& [key, v] : sorted) {
    auto& fig = out.by_cause[key >> 32];
    const StringId name{static_cast<std::uint32_t>(key & 0xffffffffu)};
    fig.names.push_back({std::string(t.Str(name)), v.first, NsToSeconds(v.second)});
  }
  for (std::size_t c = 0; c < kHostCauseCount; ++c) {
    out.by_cause[c].other_thread = other_thread_found[c] != 0;
    KeepNames(out.by_cause[c].names);
  }
  // The cause's calls in the window on the launching threads (a call inside another of the same
  // cause counts once).
  for (const ThreadKey& key : fallbacks) {
    std::array<TimeNs, kHostCauseCount> covered_to = {};
    covered_to.fill(std::numeric_limits<TimeNs>::min());
    for (const Range& r : threads[key].ranges) {
      if (r.cause < 0 || r.cause == static_cast<std::int8_t>(HostCause::kLaunch)) continue;
      if (r.end_ns <= w0 || r.start_ns >= w1) continue;
      const auto cause = static_cast<std::size_t>(static_cast<std::uint8_t>(r.cause));  // >= 0 here
      auto& to = covered_to[cause];
      if (r.start_ns < to) continue;
      to = r.end_ns;
      auto& fig = out.by_cause[cause];
      ++fig.calls;
      fig.call_s += NsToSeconds(std::min(r.end_ns, w1) - std::max(r.start_ns, w0));
    }
  }
  // The profiler's overhead records in the window are its calls.
  for (const OverheadSpan& o : overhead) {
    if (o.cause != HostCause::kProfilerOverhead || o.end_ns <= w0 || o.start_ns >= w1) continue;
    auto& fig = out.by_cause[static_cast<std::size_t>(o.cause)];
    ++fig.calls;
    fig.call_s += NsToSeconds(std::min(o.end_ns, w1) - std::max(o.start_ns, w0));
  }
  return out;
}

}  // namespace plasmient::verdict
