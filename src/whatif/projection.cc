#include "whatif/projection.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>

#include <fmt/format.h>

#include "diagnose/fixes.h"
#include "roofline/roofline.h"
#include "verdict/sweep.h"
#include "whatif/replay.h"

namespace plasmient::whatif {
namespace {

using join::ActivityClass;
using verdict::Figures;
using verdict::Loss;

// A kernel's fixed cost (launch, ramp, tail) is read as the shortest modeled compute kernel of
// the rank, at most this: longer minimums are work, not overhead.
constexpr TimeNs kMaxKernelFloorNs = 5'000;
// A kernel whose roofline time is below this is all fixed cost: its efficiency cannot be read
// from it, and it takes the median of the rank's kernels on the same side of the ridge.
constexpr double kMeasurableRoofNs = 1'000;
// The efficiency against the compute roof of a kernel that crosses the ridge when the trace has
// no compute-bound kernel to learn it from: well-shaped bf16 GEMMs on Hopper reach 60–75%.
constexpr double kDefaultComputeEfficiency = 0.6;
// Likewise against the memory roof: streaming kernels reach 60–85% of HBM bandwidth.
constexpr double kDefaultMemoryEfficiency = 0.7;
// CUDA graphs: host gaps between launches below this are per-launch overhead (Python, the
// launch call) that a graph replay removes; longer ones (data loading, scheduling) stay.
constexpr TimeNs kGraphableGapNs = 50'000;
// Past this share of projected compute time timed by a borrowed efficiency, or left unmodeled,
// the projection says so.
constexpr double kWarnShare = 0.10;
constexpr std::size_t kMaxBoundChanges = 10;

// Its roofline time: FLOPs over the ceiling roofline::Evaluate gives, or bytes over the
// bandwidth for a byte-only model; and whether that roof is the memory one.
struct Roof {
  double ns = 0;
  bool memory = false;
};

Roof RoofOf(double flops, double bytes, double peak, double bandwidth) {
  const double f = std::max(flops, 0.0);
  const roofline::RooflinePoint p = roofline::Evaluate(f, bytes, 1.0, peak, bandwidth);
  if (f > 0 && p.ceiling_flops_per_s > 0) return {SecondsToNs(f / p.ceiling_flops_per_s), p.memory_bound};
  if (bytes > 0 && bandwidth > 0) return {SecondsToNs(bytes / bandwidth), true};
  return {};
}

bool Modeled(const ActivityRow& r) { return r.compute() && (r.flops > 0 || r.bytes > 0); }

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
  std::nth_element(v.begin(), mid, v.end());
  return *mid;
}

// What the rank's own kernels say about efficiency (docs/what-if.md, "Re-timing a kernel").
struct Efficiencies {
  TimeNs floor_ns = 0;
  std::vector<double> own;  // per row: its efficiency against its roof; 0 when not measurable
  double memory = kDefaultMemoryEfficiency;
  double compute_heavy = kDefaultComputeEfficiency, compute_other = kDefaultComputeEfficiency;
  bool memory_learned = false, compute_learned = false;
};

Efficiencies Learn(const RankTable& t, std::span<const Roof> roofs) {
  Efficiencies e;
  e.own.assign(t.rows.size(), 0);
  TimeNs floor = kMaxKernelFloorNs;
  for (const ActivityRow& r : t.rows) {
    if (Modeled(r)) floor = std::min(floor, r.dur_ns());
  }
  e.floor_ns = std::max<TimeNs>(floor, 0);
  std::vector<double> memory, heavy, other;
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    const ActivityRow& r = t.rows[i];
    const double work_ns = static_cast<double>(r.dur_ns() - e.floor_ns);
    if (!Modeled(r) || roofs[i].ns < kMeasurableRoofNs || work_ns <= 0) continue;
    e.own[i] = std::min(1.0, roofs[i].ns / work_ns);
    (roofs[i].memory ? memory : r.heavy ? heavy : other).push_back(e.own[i]);
  }
  if (!memory.empty()) {
    e.memory = Median(memory);
    e.memory_learned = true;
  }
  if (!heavy.empty() || !other.empty()) {
    e.compute_learned = true;
    e.compute_heavy = Median(heavy.empty() ? other : heavy);
    e.compute_other = Median(other.empty() ? heavy : other);
  }
  return e;
}

struct RankResult {
  Figures current, projected;
  double memory_bound_ns[2] = {0, 0}, modeled_ns[2] = {0, 0};  // [current, projected]
  double borrowed_ns = 0, unmodeled_ns = 0, compute_ns = 0;    // projected compute time
  double attention_bytes = 0, weight_bytes = 0;                // per step
  double backward_ns = 0;
  double peer_wait_s = 0;                           // exposed communication spent waiting for slower ranks
  std::vector<std::pair<std::size_t, Roof>> moved;  // rows whose roof changed side
  std::vector<TimeNs> dur_ns;
};

// The new duration of each row under the batch scale (docs/what-if.md, "Re-timing a kernel").
void Retime(const RankTable& t, double k, RankResult& out, std::vector<Roof>& roofs_after,
            std::vector<double>& flops_after) {
  std::vector<Roof> roofs(t.rows.size());
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    const ActivityRow& r = t.rows[i];
    if (Modeled(r)) roofs[i] = RoofOf(r.flops, r.bytes, r.peak_flops_per_s, t.bandwidth_bytes_per_s);
  }
  const Efficiencies eff = Learn(t, roofs);
  out.dur_ns.resize(t.rows.size());
  roofs_after = roofs;
  flops_after.resize(t.rows.size());
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    const ActivityRow& r = t.rows[i];
    const TimeNs dur = r.dur_ns();
    out.dur_ns[i] = dur;
    flops_after[i] = r.flops;
    if (!Modeled(r)) {
      if (!r.compute()) continue;
      // No model, no reuse to credit: its time grows with the batch, as if all its bytes did.
      out.dur_ns[i] = std::max<TimeNs>(0, static_cast<TimeNs>(std::llround(static_cast<double>(dur) * k)));
      out.unmodeled_ns += static_cast<double>(out.dur_ns[i]);
      continue;
    }
    const double flops = r.flops > 0 ? r.flops * k : r.flops;
    const double bytes = r.bytes > 0 ? r.weight_bytes + (r.bytes - r.weight_bytes) * k : r.bytes;
    flops_after[i] = flops;
    const Roof before = roofs[i];
    const Roof after = RoofOf(flops, bytes, r.peak_flops_per_s, t.bandwidth_bytes_per_s);
    roofs_after[i] = after;
    double ns = 0;
    if (after.memory == before.memory) {
      // Same roof: the kernel keeps the efficiency it reached against it.
      double e = eff.own[i];
      if (e <= 0) e = before.memory ? eff.memory : (r.heavy ? eff.compute_heavy : eff.compute_other);
      ns = static_cast<double>(dur) + (after.ns - before.ns) / e;
    } else {
      // Across the ridge: the efficiency this rank's kernels of its class reached on that side.
      const double e = after.memory ? eff.memory : (r.heavy ? eff.compute_heavy : eff.compute_other);
      const bool learned = after.memory ? eff.memory_learned : eff.compute_learned;
      ns = static_cast<double>(eff.floor_ns) + after.ns / e;
      out.moved.push_back({i, after});
      if (!learned) out.borrowed_ns += ns;
    }
    // No faster than its roof; a kernel the trace shows already faster than its modeled roof (its
    // FLOPs or bytes overstated, or a peak below the pipe that ran it) keeps that ratio to it, so
    // that an unchanged kernel keeps its duration.
    const double below_roof =
        before.ns > 0 && static_cast<double>(dur) < before.ns ? static_cast<double>(dur) / before.ns : 1.0;
    ns = std::max(ns, after.ns * below_roof);
    out.dur_ns[i] = std::max<TimeNs>(0, static_cast<TimeNs>(std::llround(ns)));
  }
}

// --overlap-comm: in each step, exposed collective time hides behind the backward compute beside
// it (all compute when the rank has no backward pass), except the step's last collective, whose
// gradients are the last produced. Returns the seconds hidden.
double HideCommunication(const RankTable& t, std::span<const ReplayedActivity> at,
                         const verdict::SweepResult& s, bool any_backward) {
  std::vector<double> exposed(t.rows.size(), 0);
  for (auto [k, share] : s.shares) exposed[static_cast<std::size_t>(k)] = share;
  struct Step {
    double exposed_ns = 0, last_exposed_ns = 0, compute_ns = 0, overlapped_ns = 0;
    TimeNs last_start = kNoTime;
  };
  std::map<join::StepRowId, Step> steps;
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    const ActivityRow& r = t.rows[i];
    Step& st = steps[r.step];
    const double dur = static_cast<double>(at[i].end_ns - at[i].start_ns);
    if (r.cls == ActivityClass::kCollective) {
      st.exposed_ns += exposed[i];
      st.overlapped_ns += std::max(0.0, dur - exposed[i]);
      if (at[i].start_ns >= st.last_start) {
        st.last_start = at[i].start_ns;
        st.last_exposed_ns = exposed[i];
      }
    } else if (r.compute() && (r.backward || !any_backward)) {
      st.compute_ns += dur;
    }
  }
  double hidden_ns = 0;
  for (const auto& [step, st] : steps) {
    const double hideable = std::max(0.0, st.exposed_ns - st.last_exposed_ns);
    hidden_ns += std::min(hideable, std::max(0.0, st.compute_ns - st.overlapped_ns));
  }
  return NsToSeconds(hidden_ns);
}

void Hide(Figures& f, Loss loss, double seconds) {
  seconds = std::min(seconds, f.loss_s[static_cast<std::size_t>(loss)]);
  f.loss_s[static_cast<std::size_t>(loss)] -= seconds;
  f.wall_s -= seconds;
}

// --microbatches: 1F1B with S stages idles S − 1 microbatch slots per step whatever M is; the rest
// of the bubble (transfers each microbatch waits on) and all other work repeat per microbatch.
void ScaleMicrobatches(Figures& f, const verdict::PipelineStage& shape, double to_microbatches) {
  const double ratio = to_microbatches / static_cast<double>(shape.microbatches);
  const std::size_t bubble_i = static_cast<std::size_t>(Loss::kPipelineBubble);
  const std::size_t idle_i = static_cast<std::size_t>(Loss::kHostBoundIdle);
  const double bubble = f.loss_s[bubble_i], idle = f.loss_s[idle_i];
  const double work = f.wall_s - bubble - idle;
  const double ideal = std::min(
      bubble, static_cast<double>(shape.stages - 1) * work / static_cast<double>(shape.microbatches));
  const double busy_before = f.wall_s - idle;
  f.useful_s *= ratio;
  for (std::size_t l = 0; l < verdict::kLossCount; ++l) {
    if (l != bubble_i && l != idle_i) f.loss_s[l] *= ratio;
  }
  f.loss_s[bubble_i] = ideal + (bubble - ideal) * ratio;
  f.wall_s = f.useful_s;
  for (double l : f.loss_s) f.wall_s += l;
  if (busy_before > 0) f.kernel_union_s *= (f.wall_s - idle) / busy_before;
}

double WaitOnPeers(const verdict::JobVerdict& job, std::int64_t rank) {
  for (const verdict::RankVerdict& r : job.ranks) {
    if (r.rank == rank) return r.wait_on_peers_s;
  }
  return 0;
}

const verdict::PipelineStage* StageOf(const verdict::JobVerdict& job, std::int64_t rank) {
  for (const verdict::PipelineStageVerdict& p : job.pipeline) {
    if (p.shape.rank == rank && p.shape.microbatches > 0 && p.shape.stages > 1) return &p.shape;
  }
  return nullptr;
}

Result<RankResult> ProjectRank(const RankTable& t, const verdict::JobVerdict& job, const Levers& l) {
  RankResult out;
  out.current = t.current;
  std::vector<Roof> roofs;
  std::vector<double> flops;
  Retime(t, l.batch_scale, out, roofs, flops);

  ReplayOptions replay;
  if (l.cuda_graphs) {
    replay.graph_gap_below_ns = kGraphableGapNs;
  }
  const std::vector<ReplayedActivity> at = Replay(t.rows, out.dur_ns, t.waits, replay);

  std::vector<verdict::SweepActivity> acts;
  acts.reserve(t.rows.size());
  std::vector<Loss> loss(t.rows.size());
  TimeNs lo = std::numeric_limits<TimeNs>::max(), hi = std::numeric_limits<TimeNs>::min();
  bool any_backward = false;
  const double ridge_peak = t.peak_flops_per_s;
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    const ActivityRow& r = t.rows[i];
    acts.push_back({at[i].start_ns, at[i].end_ns, r.cls, static_cast<std::int32_t>(i)});
    lo = std::min(lo, at[i].start_ns);
    hi = std::max(hi, at[i].end_ns);
    any_backward = any_backward || (r.compute() && r.backward);
    loss[i] = r.loss;
    if (Modeled(r) && (r.loss == Loss::kMemoryBound || r.loss == Loss::kComputeInefficiency)) {
      // The verdict's category follows the window's ridge point, which the scale moves the kernel across.
      const double bytes =
          r.bytes > 0 ? r.weight_bytes + (r.bytes - r.weight_bytes) * l.batch_scale : r.bytes;
      const bool memory =
          !(flops[i] > 0) ||
          roofline::Evaluate(flops[i], bytes, 1.0, ridge_peak, t.bandwidth_bytes_per_s).memory_bound;
      if (l.batch_scale != 1) loss[i] = memory ? Loss::kMemoryBound : Loss::kComputeInefficiency;
    }
  }
  if (acts.empty() || hi <= lo) return out;
  const verdict::SweepResult sweep = verdict::Sweep(acts, lo, hi);
  // As the verdict charges its run window: a compute kernel is useful up to its FLOPs over the
  // faster of P and its own dtype's peak (docs/verdict.md, "Compute").
  out.projected = verdict::ChargeSweep(sweep, loss, [&](std::int32_t k, double share) {
    const auto row = static_cast<std::size_t>(k);
    const double f = flops[row];
    if (!(f > 0) || t.peak_flops_per_s <= 0) return 0.0;
    return std::min(SecondsToNs(f / std::max(t.peak_flops_per_s, t.rows[row].peak_flops_per_s)), share);
  });

  if (l.overlap_comm) {
    // Waiting in a collective for a slower rank is not hidden: overlap does not make that rank faster.
    const double exposed = out.projected.loss_s[static_cast<std::size_t>(Loss::kExposedCommunication)];
    out.peer_wait_s = std::min(exposed, WaitOnPeers(job, t.rank));
    const double hideable = exposed - out.peer_wait_s;
    Hide(out.projected, Loss::kExposedCommunication,
         std::min(hideable, HideCommunication(t, at, sweep, any_backward)));
  }
  if (l.microbatches > 0) {
    const verdict::PipelineStage* shape = StageOf(job, t.rank);
    if (shape == nullptr) {
      return Fail(
          "--microbatches: rank {} shows no pipeline stage with a known microbatch count (send/recv "
          "between stages, docs/cluster.md)",
          t.rank);
    }
    ScaleMicrobatches(out.projected, *shape, static_cast<double>(l.microbatches));
  }

  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    const ActivityRow& r = t.rows[i];
    const double before = static_cast<double>(r.dur_ns()), after = static_cast<double>(out.dur_ns[i]);
    if (r.compute()) out.compute_ns += after;
    if (r.backward && r.compute()) out.backward_ns += after;
    if (!Modeled(r)) continue;
    const bool memory_before = RoofOf(r.flops, r.bytes, r.peak_flops_per_s, t.bandwidth_bytes_per_s).memory;
    out.modeled_ns[0] += before;
    out.modeled_ns[1] += after;
    if (memory_before) out.memory_bound_ns[0] += before;
    if (roofs[i].memory) out.memory_bound_ns[1] += after;
    if (r.attention && r.bytes > 0) out.attention_bytes += r.bytes;
    out.weight_bytes += r.weight_bytes;
  }
  const double steps = static_cast<double>(std::max<std::int64_t>(t.steps, 1));
  out.attention_bytes /= steps;
  out.weight_bytes /= steps;
  return out;
}

std::string Gb(double bytes) { return fmt::format("{:.1f} GB", bytes / 1e9); }

void Warn(const RankTable& t, const RankResult& r, const Levers& l, std::vector<std::string>& warnings) {
  auto once = [&warnings](std::string w) {
    if (std::find(warnings.begin(), warnings.end(), w) == warnings.end()) warnings.push_back(std::move(w));
  };
  if (l.batch_scale > 1 && t.memory_bytes > 0 && r.attention_bytes > 0) {
    // Decode reads each layer's KV cache once per token: attention bytes per step stand for it.
    const double need = r.weight_bytes + r.attention_bytes * l.batch_scale;
    if (need > t.memory_bytes) {
      const double fits = (t.memory_bytes - r.weight_bytes) / r.attention_bytes;
      once(fmt::format(
          "{}: at {}× the weights ({}) and the KV cache the attention kernels read "
          "({} "
          "per step, × {}) need {}, over the device's {}; the batch fits up to about {:.1f}× today's",
          kOutOfRangeWarning, l.batch_scale, Gb(r.weight_bytes), Gb(r.attention_bytes), l.batch_scale,
          Gb(need), Gb(t.memory_bytes), std::max(0.0, fits)));
    }
  }
  if (l.batch_scale != 1 && r.compute_ns > 0 && r.unmodeled_ns / r.compute_ns > kWarnShare) {
    once(fmt::format(
        "{:.0f}% of projected compute time is kernels without a FLOP or byte model: their time is "
        "scaled with the batch, no reuse credited",
        100 * r.unmodeled_ns / r.compute_ns));
  }
  if (r.compute_ns > 0 && r.borrowed_ns / r.compute_ns > kWarnShare) {
    once(fmt::format(
        "{:.0f}% of projected compute time is kernels that cross the ridge with no kernel of the trace on "
        "the "
        "other side to learn an efficiency from: they are timed at the default ({:.0f}% of the compute roof)",
        100 * r.borrowed_ns / r.compute_ns, 100 * kDefaultComputeEfficiency));
  }
  if (l.cuda_graphs && t.graph_launches > 0) {
    once(
        "the trace already launches CUDA graphs: --cuda-graphs removes the gaps left between the other "
        "launches");
  }
  if (l.overlap_comm && r.backward_ns == 0 && t.rows.size() > 0) {
    once(
        "--overlap-comm: no backward pass in the trace; collectives are assumed free to run beside any "
        "compute");
  }
}

double MeanStep(Tables tables, const std::vector<Figures>& f) {
  double sum = 0;
  int n = 0;
  for (std::size_t i = 0; i < tables.size(); ++i) {
    if (tables[i]->steps <= 0) continue;
    sum += f[i].wall_s / static_cast<double>(tables[i]->steps);
    ++n;
  }
  return n > 0 ? sum / n : 0;
}

std::optional<double> Headroom(const Figures& f) {
  if (f.useful_s <= 0) return std::nullopt;
  return f.wall_s / f.useful_s;
}

// Kernels a graph replayed with no capture to match have no FLOPs or bytes: a lever would scale
// their time as if nothing in them changed, and past this share of the window that guess, not the
// model, decides the projection (docs/graphs.md, "What-if").
constexpr double kMaxUnmodeledGraphShare = 0.10;

Status ModeledEnoughToProject(const verdict::JobVerdict& job, const Levers& l) {
  if (!l.any() || job.job.wall_s <= 0) return Ok();  // no lever: the verdict as it is
  const double share = job.evidence.graph_unmodeled_s / job.job.wall_s;
  if (share <= kMaxUnmodeledGraphShare) return Ok();
  return Fail(
      "no projection: {:.0f}% of the window is graph-replayed kernels with no capture trace, so no FLOPs "
      "or bytes (over the {:.0f}% a projection can leave unmodeled); analyze the replay with "
      "--graph-capture CAPTURE",
      100 * share, 100 * kMaxUnmodeledGraphShare);
}

}  // namespace

Status Validate(const Levers& l) {
  if (!(l.batch_scale > 0) || !std::isfinite(l.batch_scale) || l.batch_scale > 4096) {
    return Fail("--batch-scale {} out of (0, 4096]", l.batch_scale);
  }
  if (l.batch < 0 || (l.batch > 0 && l.batch_scale != 1 && l.batch_read == 0)) {
    return Fail("--batch {}: give either --batch or --batch-scale, a positive batch", l.batch);
  }
  if (l.microbatches < 0 || l.microbatches > 100000) {
    return Fail("--microbatches {} out of 1..100000", l.microbatches);
  }
  return Ok();
}

std::vector<const RankTable*> TablesOf(const verdict::JobVerdict& job) {
  std::vector<const RankTable*> out;
  for (const verdict::RankVerdict& r : job.ranks) {
    if (r.activities) out.push_back(r.activities.get());
  }
  return out;
}

std::vector<const RankTable*> TablesOf(std::span<const RankTable> tables) {
  std::vector<const RankTable*> out;
  for (const RankTable& t : tables) out.push_back(&t);
  return out;
}

Result<std::int64_t> ReadBatch(Tables tables) {
  std::map<std::int64_t, std::int64_t> calls;  // batch → kernels showing it
  for (const RankTable* t : tables) {
    for (const ActivityRow& r : t->rows) {
      if (r.batch > 0) ++calls[r.batch];
    }
  }
  if (calls.empty()) {
    return Fail(
        "--batch: the trace's shapes show no batch (no attention query [B, H, L, D] or linear input "
        "[B, S, K] with recorded shapes); pass --batch-scale K instead");
  }
  auto most = std::max_element(calls.begin(), calls.end(),
                               [](const auto& a, const auto& b) { return a.second < b.second; });
  return most->first;
}

Result<Projection> Project(const verdict::JobVerdict& job, const Levers& levers) {
  return Project(TablesOf(job), job, levers);
}

Result<Projection> Project(std::span<const RankTable> tables, const verdict::JobVerdict& job,
                           const Levers& levers) {
  return Project(TablesOf(tables), job, levers);
}

Result<Projection> Project(Tables tables, const verdict::JobVerdict& job, const Levers& levers) {
  if (Status ok = Validate(levers); !ok) return std::unexpected(ok.error());
  Levers l = levers;
  if (l.batch > 0) {
    auto batch = ReadBatch(tables);
    if (!batch) return std::unexpected(batch.error());
    l.batch_read = *batch;
    l.batch_scale = static_cast<double>(l.batch) / static_cast<double>(*batch);
  }
  if (Status ok = Validate(l); !ok) return std::unexpected(ok.error());
  if (Status ok = ModeledEnoughToProject(job, l); !ok) return std::unexpected(ok.error());
  Projection p;
  p.levers = l;
  std::vector<Figures> current, projected;
  std::map<std::string, BoundChange> changes;
  double modeled[2] = {0, 0}, memory[2] = {0, 0};
  double microbatch_ratio = 1, peer_wait_s = 0;
  for (const RankTable* table : tables) {
    const RankTable& t = *table;
    auto r = ProjectRank(t, job, l);
    if (!r) return std::unexpected(r.error());
    if (l.microbatches > 0) {
      if (const verdict::PipelineStage* s = StageOf(job, t.rank)) {
        microbatch_ratio = static_cast<double>(l.microbatches) / static_cast<double>(s->microbatches);
      }
    }
    p.current.figures.Add(r->current);
    p.projected.figures.Add(r->projected);
    peer_wait_s += r->peer_wait_s;
    current.push_back(r->current);
    projected.push_back(r->projected);
    for (int s = 0; s < 2; ++s) {
      modeled[s] += r->modeled_ns[s];
      memory[s] += r->memory_bound_ns[s];
    }
    for (const auto& [row, roof] : r->moved) {
      const ActivityRow& a = t.rows[row];
      BoundChange& c = changes[t.names[static_cast<std::size_t>(a.name)]];
      c.from = roof.memory ? "compute" : "memory";
      c.to = roof.memory ? "memory" : "compute";
      ++c.calls;
      c.projected_s += NsToSeconds(r->dur_ns[row]);
    }
    Warn(t, *r, l, p.warnings);
  }
  // Named only when it shows at the printed precision (0.1%): a wait of a few microseconds is no
  // straggler worth a warning.
  constexpr double kPeerWaitWorthWarning = 0.0005;
  if (p.projected.figures.wall_s > 0 && peer_wait_s / p.projected.figures.wall_s >= kPeerWaitWorthWarning) {
    p.warnings.push_back(fmt::format(
        "--overlap-comm: {:.1f}% of the projected GPU time is ranks waiting in collectives for slower ones "
        "(docs/cluster.md): overlap cannot hide it, a fix of the straggler can",
        100 * peer_wait_s / p.projected.figures.wall_s));
  }
  for (int s = 0; s < 2; ++s) {
    (s == 0 ? p.current : p.projected).memory_bound_share = modeled[s] > 0 ? memory[s] / modeled[s] : 0;
  }
  // Capture cannot hold a host sync: the projection assumes they are gone, and says how many.
  if (l.cuda_graphs) {
    if (const std::int64_t blockers = diagnose::CaptureBlockingSyncs(job); blockers > 0) {
      p.warnings.push_back(fmt::format(
          "--cuda-graphs: the window makes {} sync or blocking-copy calls (.item(), .cpu(), stream syncs, "
          "pageable copies), which CUDA-graph capture cannot hold: the projection assumes the step is "
          "rewritten without them",
          blockers));
    }
  }
  p.judgeable = job.judgement.judgeable;
  p.achieved_is = job.judgement.achieved_is;
  if (p.judgeable) {
    p.current.headroom = Headroom(p.current.figures);
    p.projected.headroom = Headroom(p.projected.figures);
  }
  p.current.step_s = MeanStep(tables, current);
  p.projected.step_s = MeanStep(tables, projected);
  p.work_scale = l.batch_scale * microbatch_ratio;
  if (p.projected.figures.wall_s > 0) {
    p.throughput_gain = p.work_scale * p.current.figures.wall_s / p.projected.figures.wall_s;
    p.recoverable_gpu_s = p.current.figures.wall_s * (1 - 1 / p.throughput_gain);
  }
  for (auto& [name, c] : changes) {
    c.kernel = name;
    p.bound_changes.push_back(std::move(c));
  }
  std::sort(p.bound_changes.begin(), p.bound_changes.end(),
            [](const BoundChange& a, const BoundChange& b) { return a.projected_s > b.projected_s; });
  if (p.bound_changes.size() > kMaxBoundChanges) p.bound_changes.resize(kMaxBoundChanges);
  return p;
}

}  // namespace plasmient::whatif
