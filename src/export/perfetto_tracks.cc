#include "export/perfetto_tracks.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include <fmt/format.h>

#include "export/json_writer.h"
#include "verdict/column.h"
#include "verdict/layers.h"
#include "verdict/timeline.h"

namespace plasmient::exporting {
namespace {

using join::ActivityClass;
using verdict::Loss;

constexpr std::int64_t kTidSteps = 1;
constexpr std::int64_t kTidClusterBase = 100;     // + stream index
constexpr std::int64_t kTidModelBase = 10'000;    // + host thread index
constexpr std::int64_t kTidOpsBase = 20'000;      // + host thread index
constexpr std::int64_t kTidKernelsBase = 30'000;  // + stream index

// The JSON text of one event after its timestamp: `"ph":…}`.
template <typename Fill>
std::string Rest(Fill&& fill) {
  std::string s;
  JsonWriter w(s, false);
  w.BeginObject();
  fill(w);
  w.EndObject();
  s.erase(0, 1);
  return s;
}

double Pct(double fraction) { return std::round(fraction * 1e4) / 100; }  // 2 decimals

class TrackWriter {
 public:
  TrackWriter(const verdict::RankDetail& d, std::int64_t pid, const RankTracks::EmitFn& emit)
      : d_(d), t_(d.trace), j_(d.joined), f_(d.facts), pid_(pid), emit_(emit) {}

  void Process() {
    const auto& dev = d_.verdict.device;
    std::string label = fmt::format("rank {} · {}", pid_, dev.name.empty() ? "GPU" : dev.name);
    Meta(0, "process_name", label);
    emit_(kAnyStep, kNoTime, Rest([&](JsonWriter& w) {
            w.Field("ph", "M").Field("pid", pid_).Field("tid", 0).Field("name", "process_sort_index");
            w.Key("args").BeginObject().Field("sort_index", pid_).EndObject();
          }));
  }

  // A track's tid, naming it on first use.
  std::int64_t Track(std::int64_t tid, int sort_index, const std::string& name) {
    if (named_.emplace(tid, true).second) {
      Meta(tid, "thread_name", name);
      emit_(kAnyStep, kNoTime, Rest([&](JsonWriter& w) {
              w.Field("ph", "M").Field("pid", pid_).Field("tid", tid).Field("name", "thread_sort_index");
              w.Key("args").BeginObject().Field("sort_index", sort_index).EndObject();
            }));
    }
    return tid;
  }

  std::int64_t StreamTrack(std::size_t i, bool cluster) {
    auto key = std::pair{t_.gpu.device[i], t_.gpu.stream[i]};
    auto [it, fresh] = streams_.try_emplace(key, static_cast<int>(streams_.size()));
    int idx = it->second;
    std::string suffix = devices_ > 1 ? fmt::format(" · GPU {}", key.first) : "";
    if (cluster) {
      return Track(kTidClusterBase + idx, 100 + idx,
                   fmt::format("cluster · stream {}{}", key.second, suffix));
    }
    return Track(kTidKernelsBase + idx, 4000 + idx, fmt::format("kernels · stream {}{}", key.second, suffix));
  }

  std::int64_t HostTrack(std::size_t row, bool ops) {
    auto key = std::pair{t_.cpu.pid[row], t_.cpu.tid[row]};
    auto [it, fresh] = hosts_.try_emplace(key, static_cast<int>(hosts_.size()));
    int idx = it->second;
    if (ops) return Track(kTidOpsBase + idx, 3000 + idx, fmt::format("ops · thread {}", key.second));
    return Track(kTidModelBase + idx, 2000 + idx, fmt::format("model · thread {}", key.second));
  }

  void Meta(std::int64_t tid, std::string_view what, std::string_view name) {
    emit_(kAnyStep, kNoTime, Rest([&](JsonWriter& w) {
            w.Field("ph", "M").Field("pid", pid_).Field("tid", tid).Field("name", what);
            w.Key("args").BeginObject().Field("name", name).EndObject();
          }));
  }

  void Slice(std::int64_t step, std::int64_t tid, TimeNs start, TimeNs end, std::string_view name,
             std::string_view cat, const std::function<void(JsonWriter&)>& args) {
    emit_(step, start, Rest([&](JsonWriter& w) {
            w.Field("ph", "X").Field("pid", pid_).Field("tid", tid).Field("name", name).Field("cat", cat);
            w.Field("dur", static_cast<double>(std::max<TimeNs>(0, end - start)) / 1e3);
            w.Key("args").BeginObject();
            args(w);
            w.EndObject();
          }));
  }

  void Counter(std::int64_t step, TimeNs ts, std::string_view name, double value) {
    emit_(step, ts, Rest([&](JsonWriter& w) {
            w.Field("ph", "C").Field("pid", pid_).Field("tid", 0).Field("name", name);
            w.Key("args").BeginObject().Field("value", value).EndObject();
          }));
  }

  void Flow(std::int64_t step, std::int64_t id, char ph, std::int64_t tid, TimeNs ts) {
    emit_(step, ts, Rest([&](JsonWriter& w) {
            w.Field("ph", ph == 's' ? "s" : "f").Field("pid", pid_).Field("tid", tid).Field("name", "launch");
            w.Field("cat", "launch").Field("id", id);
            if (ph == 'f') w.Field("bp", "e");
          }));
  }

  // The step whose GPU window holds ts (windows tile the run), or kNoStep.
  std::int64_t StepAt(TimeNs ts) const { return verdict::StepAt(d_.verdict, ts); }

  std::string AnnotationPath(model::CpuOpRowId row) {
    if (!row.has_value()) return "";
    auto cached = paths_.find(row);
    if (cached != paths_.end()) return cached->second;
    std::vector<std::string_view> names;
    for (model::CpuOpRowId r = row; r.has_value() && names.size() < 64; r = j_.op_parent[r.index()]) {
      if (t_.cpu.kind[r.index()] != model::CpuOpKind::kOp) names.push_back(t_.Str(t_.cpu.name[r.index()]));
    }
    std::string path;
    for (auto it = names.rbegin(); it != names.rend(); ++it)
      path += (path.empty() ? "" : " / ") + std::string(*it);
    paths_[row] = path;
    return path;
  }

  const verdict::RankDetail& d_;
  const model::Trace& t_;
  const join::Joined& j_;
  const verdict::ActivityFacts& f_;
  std::int64_t pid_;
  const RankTracks::EmitFn& emit_;
  int devices_ = 1;
  std::map<std::int64_t, bool> named_;
  std::map<std::pair<std::int32_t, std::int32_t>, int> streams_;
  std::map<std::pair<std::int64_t, std::int64_t>, int> hosts_;
  std::map<model::CpuOpRowId, std::string> paths_;
};

// The layer range an activity's time rolls up into (docs/layers.md), as its path of range names.
void ModuleArg(TrackWriter& tw, std::size_t i, JsonWriter& w) {
  std::string path = tw.AnnotationPath(tw.j_.layer[i].has_value() ? tw.j_.layer[i] : tw.j_.annotation[i]);
  if (!path.empty()) w.Field("module", path);
}

// "<loss>_pct" for each of the seven losses.
template <typename FractionOf>
void LossArgs(JsonWriter& w, FractionOf&& fraction_of) {
  for (std::size_t l = 0; l < verdict::kLossCount; ++l) {
    auto loss = static_cast<Loss>(l);
    w.Field(fmt::format("{}_pct", verdict::LossKey(loss)), Pct(fraction_of(loss)));
  }
}

// A module or annotation range: its path and the figures of this call's GPU work (layers.h).
void RangeArgs(TrackWriter& tw, model::CpuOpRowId row, JsonWriter& w) {
  w.Field("path", tw.AnnotationPath(row));
  auto it = tw.d_.ranges.find(row);
  if (it == tw.d_.ranges.end()) return;
  const verdict::RangeFigures& f = it->second;
  w.Field("gpu_time_ns", f.gpu_time_ns)
      .Field("kernels", f.kernels)
      .Field("achieved_pct", Pct(f.achieved_fraction()));
  LossArgs(w, [&](Loss loss) { return f.loss_fraction(loss); });
}

// A field that is null when the fact is unknown (negative).
void FieldOrNull(JsonWriter& w, std::string_view key, double v) {
  if (v >= 0) {
    w.Field(key, v);
  } else {
    w.Key(key).Null();
  }
}

// A kernel's row of the facts table.
// A graph-replayed activity: the replay that ran it, and the captured launch it was matched to
// (docs/graphs.md); nothing for an eager one.
void GraphArgs(TrackWriter& tw, std::size_t i, JsonWriter& w) {
  const join::GraphReplays& g = tw.j_.graphs;
  if (!g.replayed[i]) return;
  const auto& t = tw.t_;
  const std::size_t launch = tw.f_.launch[i].index();
  w.Field("graph_replay", t.Str(t.api.name[launch])).Field("graph_launch_ns", t.api.start_ns[launch]);
  w.Field("graph_match", g.captured[i].has_value() ? "launch sequence" : "none: no capture trace matched");
}

void KernelArgs(TrackWriter& tw, std::size_t i, JsonWriter& w) {
  const auto& t = tw.t_;
  const auto& f = tw.f_;
  w.Field("class", join::ClassName(f.cls[i]))
      .Field("bound", verdict::BoundName(f.bound[i]))
      .Field("loss", verdict::LossKey(f.loss[i]));
  w.Field("step", f.step_number[i])
      .Field("stream", t.gpu.stream[i])
      .Field("correlation", t.gpu.correlation[i]);
  FieldOrNull(w, "flops", f.flops[i]);
  FieldOrNull(w, "bytes", f.bytes[i]);
  if (t.gpu.bytes[i] > 0) w.Field("copy_bytes", t.gpu.bytes[i]);
  FieldOrNull(w, "arithmetic_intensity", f.arithmetic_intensity[i]);
  w.Field("achieved_pct", Pct(f.achieved_fraction[i])).Field("roofline_pct", Pct(f.roofline_fraction[i]));
  w.Field("share_ns", f.share_ns[i]).Field("useful_ns", f.useful_ns[i]).Field("lost_ns", f.lost_ns(i));
  if (f.op[i].has_value()) w.Field("op", t.Str(t.cpu.name[f.op[i].index()]));
  ModuleArg(tw, i, w);
  GraphArgs(tw, i, w);
}

void CollectiveArgs(TrackWriter& tw, std::size_t i, JsonWriter& w) {
  const auto& t = tw.t_;
  const auto& c = t.collectives;
  const auto& f = tw.f_;
  w.Field("class", join::ClassName(f.cls[i])).Field("step", f.step_number[i]);
  w.Field("stream", t.gpu.stream[i]).Field("kernel", t.Str(t.gpu.name[i]));
  w.Field("exposed_wait_ns", f.share_ns[i]);
  w.Field("loss", verdict::LossKey(f.loss[i]));
  ModuleArg(tw, i, w);
  if (!tw.j_.collective[i].has_value()) return;
  const std::size_t r = tw.j_.collective[i].index();
  std::int64_t bytes = c.bytes[r];
  w.Field("collective", t.Str(c.name[r])).Field("group", t.Str(c.pg_name[r]));
  w.Field("peers", t.Str(c.pg_ranks[r])).Field("group_size", c.group_size[r]).Field("seq", c.seq[r]);
  w.Field("in_nelems", c.in_nelems[r]).Field("out_nelems", c.out_nelems[r]).Field("dtype", t.Str(c.dtype[r]));
  if (bytes >= 0) {
    w.Field("bytes", bytes);
    if (f.bytes_per_s[i] >= 0) w.Field("bandwidth_gb_per_s", f.bytes_per_s[i] / 1e9);
  }
}

// Utilization % and achieved % of peak per bucket over the rank's window.
void EmitBuckets(TrackWriter& tw, const TrackOptions& o) {
  const verdict::Figures& run = tw.d_.verdict.run;
  const auto buckets = verdict::Timeline(tw.t_, tw.f_, run, o.bucket_ns, o.max_buckets);
  if (buckets.empty()) return;
  for (const auto& b : buckets) {
    std::int64_t step = tw.StepAt(b.start_ns);
    tw.Counter(step, b.start_ns, kPerfettoCounterUtilization, Pct(b.utilization));
    tw.Counter(step, b.start_ns, kPerfettoCounterAchieved, Pct(b.achieved));
  }
  std::int64_t last = tw.StepAt(run.end_ns - 1);
  tw.Counter(last, run.end_ns, kPerfettoCounterUtilization, 0);
  tw.Counter(last, run.end_ns, kPerfettoCounterAchieved, 0);
}

// Device samples (NVML/GPM, Kineto counters): one counter track per metric and device.
void EmitSamples(TrackWriter& tw) {
  const auto& s = tw.t_.samples;
  std::vector<std::size_t> order(s.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return s.ts_ns[a] < s.ts_ns[b]; });
  std::map<std::pair<std::int32_t, std::uint32_t>, std::string> names;
  for (std::size_t i : order) {
    auto [it, fresh] = names.try_emplace(std::pair{s.device[i], s.metric[i].value});
    if (fresh) {
      it->second = tw.devices_ > 1 ? fmt::format("device · {} · GPU {}", tw.t_.Str(s.metric[i]), s.device[i])
                                   : fmt::format("device · {}", tw.t_.Str(s.metric[i]));
    }
    tw.Counter(tw.StepAt(s.ts_ns[i]), s.ts_ns[i], it->second, s.value[i]);
  }
}

void EmitCounters(TrackWriter& tw, const TrackOptions& o) {
  EmitBuckets(tw, o);
  EmitSamples(tw);
}

}  // namespace

RankTracks::RankTracks(const verdict::RankDetail& d, std::int64_t pid, TrackOptions options)
    : d_(d), pid_(pid), options_(options) {
  const auto& t = d.trace;
  const auto& j = d.joined;
  const auto& f = d.facts;
  op_step_.assign(t.cpu.size(), kNone);
  for (std::size_t i = 0; i < t.gpu.size(); ++i) {
    if (!f.kept[i]) continue;
    std::int64_t step = f.step_number[i];
    for (model::CpuOpRowId start : {j.op[i], j.annotation[i], j.layer[i]}) {
      for (model::CpuOpRowId r = start; r.has_value() && op_step_[r.index()] == kNone;
           r = j.op_parent[r.index()]) {
        op_step_[r.index()] = step;
      }
    }
  }
  // ProfilerStep ranges are joined by time, not nested: each step that launched a kept activity.
  for (std::size_t i = 0; i < t.gpu.size(); ++i) {
    if (!f.kept[i] || !j.step[i].has_value()) continue;
    const join::Step& s = j.steps[j.step[i].index()];
    if (s.cpu_row.has_value()) op_step_[s.cpu_row.index()] = s.number;
  }
}

TimeNs RankTracks::EarliestNs() const {
  TimeNs first = d_.verdict.run.wall_s > 0 ? d_.verdict.run.start_ns : std::numeric_limits<TimeNs>::max();
  for (std::size_t r = 0; r < op_step_.size(); ++r) {
    if (op_step_[r] != kNone) first = std::min(first, d_.trace.cpu.start_ns[r]);
  }
  for (TimeNs ts : d_.trace.samples.ts_ns) first = std::min(first, ts);
  return first == std::numeric_limits<TimeNs>::max() ? 0 : first;
}

void RankTracks::Build(const EmitFn& emit) {
  const auto& t = d_.trace;
  TrackWriter tw(d_, pid_, emit);
  tw.devices_ = static_cast<int>(t.devices.size());
  tw.Process();

  for (const auto& s : d_.verdict.steps) {
    std::int64_t tid = tw.Track(kTidSteps, 1000, "steps · GPU");
    const auto& f = s.figures;
    tw.Slice(s.number, tid, f.start_ns, f.end_ns, fmt::format("step {}", s.number), "step",
             [&](JsonWriter& w) {
               w.Field("step", s.number)
                   .Field("achieved_pct", Pct(f.achieved()))
                   .Field("utilization_pct", Pct(f.utilization()));
               LossArgs(w, [&](Loss loss) { return f.loss(loss); });
             });
  }

  for (std::size_t r = 0; r < op_step_.size(); ++r) {
    if (op_step_[r] == kNone) continue;
    bool is_op = t.cpu.kind[r] == model::CpuOpKind::kOp;
    std::int64_t tid = tw.HostTrack(r, is_op);
    tw.Slice(op_step_[r], tid, t.cpu.start_ns[r], t.cpu.end_ns[r], t.Str(t.cpu.name[r]),
             is_op ? "op" : "model", [&](JsonWriter& w) {
               if (!t.cpu.input_dims[r].empty()) w.Field("input_dims", t.Str(t.cpu.input_dims[r]));
               if (!t.cpu.input_types[r].empty()) w.Field("input_types", t.Str(t.cpu.input_types[r]));
               if (t.cpu.external_id[r] != model::kNoId) w.Field("external_id", t.cpu.external_id[r]);
               if (join::IsLayerRange(t.cpu.kind[r])) RangeArgs(tw, model::CpuOpRowId(r), w);
             });
  }

  const auto& f = d_.facts;
  for (std::size_t i = 0; i < t.gpu.size(); ++i) {
    if (!f.kept[i]) continue;
    bool comm = f.cls[i] == ActivityClass::kCollective || f.cls[i] == ActivityClass::kP2P;
    std::int64_t tid = tw.StreamTrack(i, comm);
    std::int64_t step = f.step_number[i];
    std::string_view name = t.Str(t.gpu.name[i]);
    tw.Slice(step, tid, t.gpu.start_ns[i], t.gpu.end_ns[i], name, comm ? "collective" : "kernel",
             [&](JsonWriter& w) { comm ? CollectiveArgs(tw, i, w) : KernelArgs(tw, i, w); });
    // A replayed kernel's op ran at capture, not when its replay was launched: no arrow.
    if (!f.op[i].has_value() || d_.joined.graphs.replayed[i]) continue;
    const std::size_t op = f.op[i].index();
    std::int64_t id = (pid_ << 32) + static_cast<std::int64_t>(i);
    TimeNs launch = f.launch[i].has_value() ? t.api.start_ns[f.launch[i].index()] : t.cpu.start_ns[op];
    tw.Flow(step, id, 's', tw.HostTrack(op, true), launch);
    tw.Flow(step, id, 'f', tid, t.gpu.start_ns[i]);
  }

  EmitCounters(tw, options_);
}

}  // namespace plasmient::exporting
