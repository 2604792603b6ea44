#include "export/perfetto_tracks.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include <fmt/format.h>

#include "export/json_writer.h"
#include "verdict/kernel_costs.h"
#include "verdict/layers.h"

namespace plasmient::exporting {
namespace {

using join::ActivityClass;
using verdict::Loss;

constexpr std::int64_t kTidSteps = 1;
constexpr std::int64_t kTidClusterBase = 100;     // + stream index
constexpr std::int64_t kTidModelBase = 10'000;    // + host thread index
constexpr std::int64_t kTidOpsBase = 20'000;      // + host thread index
constexpr std::int64_t kTidKernelsBase = 30'000;  // + stream index

Loss LossOf(ActivityClass cls, Loss compute_loss) {
  switch (cls) {
    case ActivityClass::kCollective:
      return Loss::kExposedCommunication;
    case ActivityClass::kP2P:
      return Loss::kPipelineBubble;
    case ActivityClass::kMemory:
      return Loss::kDataMovement;
    case ActivityClass::kCompute:
      return compute_loss;
  }
  return compute_loss;
}

std::string_view BoundName(ActivityClass cls, Loss loss) {
  if (cls == ActivityClass::kCollective || cls == ActivityClass::kP2P) return "communication";
  if (cls == ActivityClass::kMemory) return "memory-copy";
  if (loss == Loss::kMemoryBound) return "memory";
  if (loss == Loss::kUnmodeledKernels) return "unmodeled";
  return "compute";
}

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
      : d_(d), t_(d.trace), j_(d.joined), pid_(pid), emit_(emit) {}

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

  std::int64_t HostTrack(std::int32_t row, bool ops) {
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

  std::int64_t StepOf(std::size_t i) const {
    return j_.step[i] >= 0 ? j_.steps[static_cast<std::size_t>(j_.step[i])].number : kNoStep;
  }

  // The step whose GPU window holds ts (windows tile the run), or kNoStep.
  std::int64_t StepAt(TimeNs ts) const {
    const auto& steps = d_.verdict.steps;
    auto it = std::upper_bound(steps.begin(), steps.end(), ts, [](TimeNs x, const verdict::StepFigures& s) {
      return x < s.figures.start_ns;
    });
    if (it == steps.begin()) return kNoStep;
    --it;
    return ts < it->figures.end_ns ? it->number : kNoStep;
  }

  std::string AnnotationPath(std::int32_t row) {
    if (row < 0) return "";
    auto cached = paths_.find(row);
    if (cached != paths_.end()) return cached->second;
    std::vector<std::string_view> names;
    for (std::int32_t r = row; r >= 0 && names.size() < 64; r = j_.op_parent[r]) {
      if (t_.cpu.kind[r] != model::CpuOpKind::kOp) names.push_back(t_.Str(t_.cpu.name[r]));
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
  std::int64_t pid_;
  const RankTracks::EmitFn& emit_;
  int devices_ = 1;
  std::map<std::int64_t, bool> named_;
  std::map<std::pair<std::int32_t, std::int32_t>, int> streams_;
  std::map<std::pair<std::int64_t, std::int64_t>, int> hosts_;
  std::map<std::int32_t, std::string> paths_;
};

// The layer range an activity's time rolls up into (docs/layers.md), as its path of range names.
void ModuleArg(TrackWriter& tw, std::size_t i, JsonWriter& w) {
  std::string path = tw.AnnotationPath(tw.j_.layer[i] >= 0 ? tw.j_.layer[i] : tw.j_.annotation[i]);
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
void RangeArgs(TrackWriter& tw, std::int32_t row, JsonWriter& w) {
  w.Field("path", tw.AnnotationPath(row));
  auto it = tw.d_.ranges.find(row);
  if (it == tw.d_.ranges.end()) return;
  const verdict::RangeFigures& f = it->second;
  w.Field("gpu_time_ns", f.gpu_time_ns)
      .Field("kernels", f.kernels)
      .Field("achieved_pct", Pct(f.achieved_fraction()));
  LossArgs(w, [&](Loss loss) { return f.loss_fraction(loss); });
}

void KernelArgs(TrackWriter& tw, std::size_t i, JsonWriter& w) {
  const auto& d = tw.d_;
  const auto& t = tw.t_;
  const double peak = d.verdict.device.peak_flops_per_s;
  const double bw = d.verdict.device.memory_bandwidth_bytes_per_s;
  const double dur_s = static_cast<double>(t.gpu.end_ns[i] - t.gpu.start_ns[i]) * 1e-9;
  const double flops = d.costs.flops[i], bytes = d.costs.bytes[i];
  const ActivityClass cls = tw.j_.cls[i];
  const Loss loss = LossOf(cls, d.loss[i]);
  w.Field("class", join::ClassName(cls))
      .Field("bound", BoundName(cls, loss))
      .Field("loss", verdict::LossKey(loss));
  w.Field("step", tw.StepOf(i)).Field("stream", t.gpu.stream[i]).Field("correlation", t.gpu.correlation[i]);
  if (flops >= 0)
    w.Field("flops", flops);
  else
    w.Key("flops").Null();
  if (bytes >= 0)
    w.Field("bytes", bytes);
  else
    w.Key("bytes").Null();
  if (t.gpu.bytes[i] > 0) w.Field("copy_bytes", t.gpu.bytes[i]);
  double ai = flops > 0 && bytes > 0 ? flops / bytes : -1;
  if (ai >= 0)
    w.Field("arithmetic_intensity", ai);
  else
    w.Key("arithmetic_intensity").Null();
  double achieved = flops > 0 && dur_s > 0 && peak > 0 ? flops / dur_s / peak : 0;
  double ceiling = ai > 0 && bw > 0 ? std::min(peak, ai * bw) : peak;
  double roofline = flops > 0 && dur_s > 0 && ceiling > 0 ? flops / dur_s / ceiling
                    : bytes > 0 && dur_s > 0 && bw > 0    ? bytes / dur_s / bw
                                                          : 0;
  w.Field("achieved_pct", Pct(achieved)).Field("roofline_pct", Pct(roofline));
  w.Field("share_ns", d.share_ns[i]).Field("useful_ns", d.useful_ns[i]);
  w.Field("lost_ns", std::max(0.0, d.share_ns[i] - d.useful_ns[i]));
  if (tw.j_.op[i] >= 0) w.Field("op", t.Str(t.cpu.name[tw.j_.op[i]]));
  ModuleArg(tw, i, w);
}

void CollectiveArgs(TrackWriter& tw, std::size_t i, JsonWriter& w) {
  const auto& t = tw.t_;
  const auto& c = t.collectives;
  const double dur_s = static_cast<double>(t.gpu.end_ns[i] - t.gpu.start_ns[i]) * 1e-9;
  w.Field("class", join::ClassName(tw.j_.cls[i])).Field("step", tw.StepOf(i));
  w.Field("stream", t.gpu.stream[i]).Field("kernel", t.Str(t.gpu.name[i]));
  w.Field("exposed_wait_ns", tw.d_.share_ns[i]);
  w.Field("loss", verdict::LossKey(LossOf(tw.j_.cls[i], Loss::kExposedCommunication)));
  ModuleArg(tw, i, w);
  std::int32_t r = tw.j_.collective[i];
  if (r < 0) return;
  std::int64_t bytes = c.bytes[r];
  w.Field("collective", t.Str(c.name[r])).Field("group", t.Str(c.pg_name[r]));
  w.Field("peers", t.Str(c.pg_ranks[r])).Field("group_size", c.group_size[r]).Field("seq", c.seq[r]);
  w.Field("in_nelems", c.in_nelems[r]).Field("out_nelems", c.out_nelems[r]).Field("dtype", t.Str(c.dtype[r]));
  if (bytes >= 0) {
    w.Field("bytes", bytes);
    if (dur_s > 0) w.Field("bandwidth_gb_per_s", static_cast<double>(bytes) / dur_s / 1e9);
  }
}

// Utilization % and achieved % of peak per bucket over the rank's window.
void EmitBuckets(TrackWriter& tw, const TrackOptions& o) {
  const auto& d = tw.d_;
  const auto& t = tw.t_;
  const verdict::Figures& run = d.verdict.run;
  if (run.end_ns <= run.start_ns) return;
  const TimeNs span = run.end_ns - run.start_ns;
  const TimeNs width = std::max<TimeNs>({o.bucket_ns, 1,
                                         (span + static_cast<TimeNs>(o.max_buckets) - 1) /
                                             static_cast<TimeNs>(std::max<std::size_t>(o.max_buckets, 1))});
  const std::size_t n = static_cast<std::size_t>((span + width - 1) / width);
  std::vector<double> busy(n, 0), useful(n, 0);
  auto spread = [&](TimeNs a, TimeNs b, double amount, std::vector<double>& into) {
    a = std::max(a, run.start_ns);
    b = std::min(b, run.end_ns);
    if (b <= a) return;
    double per_ns = amount / static_cast<double>(b - a);
    for (auto k = static_cast<std::size_t>((a - run.start_ns) / width); k < n; ++k) {
      TimeNs lo = run.start_ns + static_cast<TimeNs>(k) * width, hi = lo + width;
      if (lo >= b) break;
      into[k] += per_ns * static_cast<double>(std::min(b, hi) - std::max(a, lo));
    }
  };
  std::vector<std::pair<TimeNs, TimeNs>> kernels;
  for (std::size_t i = 0; i < t.gpu.size(); ++i) {
    if (!d.kept[i]) continue;
    TimeNs a = t.gpu.start_ns[i], b = t.gpu.end_ns[i];
    if (t.gpu.kind[i] == model::GpuKind::kKernel) kernels.emplace_back(a, b);
    if (d.useful_ns[i] > 0) spread(a, b, d.useful_ns[i], useful);
  }
  std::sort(kernels.begin(), kernels.end());
  TimeNs cur_a = 0, cur_b = kNoTime;
  for (auto [a, b] : kernels) {  // the union of kernel intervals
    if (a > cur_b) {
      spread(cur_a, cur_b, static_cast<double>(cur_b - cur_a), busy);
      cur_a = a;
      cur_b = b;
    } else {
      cur_b = std::max(cur_b, b);
    }
  }
  if (cur_b != kNoTime) spread(cur_a, cur_b, static_cast<double>(cur_b - cur_a), busy);
  for (std::size_t k = 0; k < n; ++k) {
    TimeNs lo = run.start_ns + static_cast<TimeNs>(k) * width;
    double len = static_cast<double>(std::min(run.end_ns, lo + width) - lo);
    std::int64_t step = tw.StepAt(lo);
    tw.Counter(step, lo, kPerfettoCounterUtilization, Pct(busy[k] / len));
    tw.Counter(step, lo, kPerfettoCounterAchieved, Pct(useful[k] / len));
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
  op_step_.assign(t.cpu.size(), kNone);
  for (std::size_t i = 0; i < t.gpu.size(); ++i) {
    if (!d.kept[i]) continue;
    std::int64_t step = j.step[i] >= 0 ? j.steps[static_cast<std::size_t>(j.step[i])].number : kNoStep;
    for (std::int32_t start : {j.op[i], j.annotation[i], j.layer[i]}) {
      for (std::int32_t r = start; r >= 0 && op_step_[r] == kNone; r = j.op_parent[r]) op_step_[r] = step;
    }
  }
  // ProfilerStep ranges are joined by time, not nested: each step that launched a kept activity.
  for (std::size_t i = 0; i < t.gpu.size(); ++i) {
    if (!d.kept[i] || j.step[i] < 0) continue;
    const join::Step& s = j.steps[static_cast<std::size_t>(j.step[i])];
    if (s.cpu_row >= 0) op_step_[s.cpu_row] = s.number;
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
  const auto& j = d_.joined;
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
    auto row = static_cast<std::int32_t>(r);
    bool is_op = t.cpu.kind[r] == model::CpuOpKind::kOp;
    std::int64_t tid = tw.HostTrack(row, is_op);
    tw.Slice(op_step_[r], tid, t.cpu.start_ns[r], t.cpu.end_ns[r], t.Str(t.cpu.name[r]),
             is_op ? "op" : "model", [&](JsonWriter& w) {
               if (!t.cpu.input_dims[r].empty()) w.Field("input_dims", t.Str(t.cpu.input_dims[r]));
               if (!t.cpu.input_types[r].empty()) w.Field("input_types", t.Str(t.cpu.input_types[r]));
               if (t.cpu.external_id[r] != model::kNoId) w.Field("external_id", t.cpu.external_id[r]);
               if (join::IsLayerRange(t.cpu.kind[r])) RangeArgs(tw, row, w);
             });
  }

  for (std::size_t i = 0; i < t.gpu.size(); ++i) {
    if (!d_.kept[i]) continue;
    bool comm = j.cls[i] == ActivityClass::kCollective || j.cls[i] == ActivityClass::kP2P;
    std::int64_t tid = tw.StreamTrack(i, comm);
    std::int64_t step = tw.StepOf(i);
    std::string_view name = t.Str(t.gpu.name[i]);
    tw.Slice(step, tid, t.gpu.start_ns[i], t.gpu.end_ns[i], name, comm ? "collective" : "kernel",
             [&](JsonWriter& w) { comm ? CollectiveArgs(tw, i, w) : KernelArgs(tw, i, w); });
    std::int32_t op = j.op[i];
    if (op < 0) continue;
    std::int64_t id = (pid_ << 32) + static_cast<std::int64_t>(i);
    TimeNs launch = j.launch[i] >= 0 ? t.api.start_ns[j.launch[i]] : t.cpu.start_ns[op];
    tw.Flow(step, id, 's', tw.HostTrack(op, true), launch);
    tw.Flow(step, id, 'f', tid, t.gpu.start_ns[i]);
  }

  EmitCounters(tw, options_);
}

}  // namespace plasmient::exporting
