#include "synth/job_writer.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "synth/kineto_writer.h"
#include "synth/native_writer.h"
#include "synth/program_builder.h"
#include "synth/rank_simulator.h"
#include "synth/truth_writer.h"

namespace plasmient::synth {
namespace {

// Collects every participant's arrival; a communication ends at max(arrival) + transfer on
// all of them. Charges the wait of the early ranks to the last one (collectives only).
class JobResolver final : public CommResolver {
 public:
  explicit JobResolver(int ranks) : caused_wait_ns_(ranks, 0), own_wait_ns_(ranks, 0) {}

  void Arrive(std::uint64_t key, int rank, const Item& item, TimeNs arrival_ns) override {
    if (frozen_) return;
    Pending& p = pending_[key];
    if (p.arrivals.empty()) {
      p.needed = std::max(1, item.group_size);
      p.collective = !IsP2p(item.kind);
    }
    p.transfer_ns = std::max(p.transfer_ns, item.gpu_ns);
    p.arrivals.emplace_back(rank, arrival_ns);
    if (static_cast<int>(p.arrivals.size()) < p.needed) return;
    TimeNs last = p.arrivals.front().second;
    int last_rank = p.arrivals.front().first;
    for (const auto& [r, t] : p.arrivals) {
      if (t > last) {
        last = t;
        last_rank = r;
      }
    }
    ends_[key] = last + p.transfer_ns;
    if (p.collective && p.needed > 1) {
      for (const auto& [r, t] : p.arrivals) {
        own_wait_ns_[r] += static_cast<double>(last - t);
        if (r != last_rank) caused_wait_ns_[last_rank] += static_cast<double>(last - t);
      }
    }
    pending_.erase(key);
  }

  std::optional<TimeNs> End(std::uint64_t key) const override {
    auto it = ends_.find(key);
    if (it == ends_.end()) return std::nullopt;
    return it->second;
  }

  void Freeze() { frozen_ = true; }
  std::size_t unresolved() const { return pending_.size(); }
  const std::vector<double>& caused_wait_ns() const { return caused_wait_ns_; }
  const std::vector<double>& own_wait_ns() const { return own_wait_ns_; }

 private:
  struct Pending {
    int needed = 1;
    bool collective = true;
    TimeNs transfer_ns = 0;
    std::vector<std::pair<int, TimeNs>> arrivals;
  };
  bool frozen_ = false;
  std::unordered_map<std::uint64_t, Pending> pending_;
  std::unordered_map<std::uint64_t, TimeNs> ends_;
  std::vector<double> caused_wait_ns_;
  std::vector<double> own_wait_ns_;
};

RankState InitialState(const SynthConfig& config, int rank) {
  RankState s;
  s.rank = rank;
  Rng rng(MixSeed(config.seed, static_cast<std::uint64_t>(rank), 0, 5));
  s.cpu_ns = kTraceOriginNs + static_cast<TimeNs>(rng.Uniform(0, 300) * 1e3);
  for (StreamTail& tail : s.tails) tail.known_ns = s.cpu_ns;
  return s;
}

TimeNs ClockOffsetNs(const SynthConfig& config, int rank) {
  if (config.clock_offset_ms <= 0 || rank == 0) return 0;
  Rng rng(MixSeed(config.seed, static_cast<std::uint64_t>(rank), 0, 7));
  return static_cast<TimeNs>(std::llround(rng.Uniform(-1, 1) * config.clock_offset_ms * 1e6));
}

// First pass: every rank's arrival at every communication, step by step, so that each
// communication's end is known before any file is written.
Status PlanCommunication(const SynthConfig& config, const GpuSpec& gpu, JobResolver& resolver) {
  std::vector<RankState> states;
  states.reserve(static_cast<std::size_t>(config.ranks));
  for (int r = 0; r < config.ranks; ++r) states.push_back(InitialState(config, r));
  for (int step = 0; step < config.steps; ++step) {
    std::vector<Program> programs;
    programs.reserve(states.size());
    for (int r = 0; r < config.ranks; ++r) {
      programs.push_back(BuildProgram(config, gpu, r, step));
      states[static_cast<std::size_t>(r)].next_item = 0;
    }
    std::vector<char> done(states.size(), 0);
    std::size_t remaining = states.size();
    while (remaining > 0) {
      bool any = false;
      for (std::size_t r = 0; r < states.size(); ++r) {
        if (done[r]) continue;
        bool progressed = false;
        Result<SimStatus> status = Simulate(states[r], programs[r], resolver, nullptr, &progressed);
        if (!status) return std::unexpected(status.error());
        any = any || progressed;
        if (*status == SimStatus::kDone) {
          done[r] = 1;
          --remaining;
          any = true;
        }
      }
      if (!any) {
        return Fail("synth: step {} deadlocks: {} ranks wait on communication no peer reaches",
                    config.first_step_number + step, remaining);
      }
    }
  }
  if (resolver.unresolved() != 0) {
    return Fail("synth: {} communications have participants that never arrived", resolver.unresolved());
  }
  return Ok();
}

// Each kernel window's verdict: its activities alone, over their extent (what analyzing the
// file gives: its run window is its first activity's start to its last one's end).
std::vector<FileTruth> WindowTruths(const std::vector<NativeFile>& written,
                                    const std::vector<TruthActivity>& all, const GpuSpec& gpu) {
  std::vector<FileTruth> files;
  std::vector<TruthActivity> held;
  for (const NativeFile& f : written) {
    FileTruth& t = files.emplace_back(FileTruth{f.name, f.kernels, f.steps});
    if (!f.kernels) continue;
    held.clear();
    for (const TruthActivity& a : all) {
      if (std::find(f.steps.begin(), f.steps.end(), a.step) != f.steps.end()) held.push_back(a);
    }
    if (held.empty()) continue;
    TimeNs start = held.front().start_ns, end = held.front().end_ns;
    for (const TruthActivity& a : held) {
      start = std::min(start, a.start_ns);
      end = std::max(end, a.end_ns);
    }
    t.dominant_dtype = DominantDtype(held);
    t.window = ComputeWindow(held, start, end, {PeakFlops(gpu, t.dominant_dtype), gpu.mem_bytes_per_s});
  }
  return files;
}

// The trace of rank r's graph capture: its first step's program, captured (docs/graphs.md).
Status WriteCapture(const SynthConfig& config, const GpuSpec& gpu, const std::string& out_dir, int r,
                    JobResolver& resolver) {
  RankFileInfo info;
  info.rank = r;
  info.world = config.ranks;
  info.clock_offset_ns = ClockOffsetNs(config, r);
  info.path = (std::filesystem::path(out_dir) / CaptureFileName(config, r)).string();
  info.capture = true;
  KinetoRankWriter writer(config, gpu, info);
  PLASMIENT_TRY(writer.Open());
  RankState state = InitialState(config, r);
  const Program program = BuildProgram(config, gpu, r, 0);
  bool progressed = false;
  Result<SimStatus> status = Simulate(state, program, resolver, &writer, &progressed);
  if (!status) return std::unexpected(status.error());
  if (*status != SimStatus::kDone) return Fail("synth: rank {} capture blocked while writing", r);
  PLASMIENT_TRY(writer.status());
  return writer.Finish();
}

}  // namespace

std::string CaptureFileName(const SynthConfig& config, int rank) {
  return fmt::format("rank-{}.capture.pt.trace.json{}", rank, config.gzip ? ".gz" : "");
}

std::string RankFileName(const SynthConfig& config, int rank) {
  if (config.format == TraceFormat::kNative) return NativeRankFileName(config, rank);
  return fmt::format("rank-{}.pt.trace.json{}", rank, config.gzip ? ".gz" : "");
}

Status WriteJob(const SynthConfig& input, const std::string& out_dir, Progress* progress) {
  SynthConfig config = input;
  if (config.scenario == Scenario::kClockOffset && config.clock_offset_ms == 0) config.clock_offset_ms = 5;
  PLASMIENT_TRY(Validate(config));
  const GpuSpec& gpu = *FindGpu(config.gpu);
  std::error_code ec;
  std::filesystem::create_directories(out_dir, ec);
  if (ec) return Fail("{}: cannot create folder: {}", out_dir, ec.message());

  JobResolver resolver(config.ranks);
  PLASMIENT_TRY(PlanCommunication(config, gpu, resolver));
  resolver.Freeze();

  TruthWriter truth;
  PLASMIENT_TRY(truth.Open((std::filesystem::path(out_dir) / "truth.json").string(), config, gpu));
  for (int r = 0; r < config.ranks; ++r) {
    RankFileInfo info;
    info.rank = r;
    info.world = config.ranks;
    info.clock_offset_ns = ClockOffsetNs(config, r);
    info.path = (std::filesystem::path(out_dir) / RankFileName(config, r)).string();
    std::unique_ptr<RankWriter> rank_writer;
    NativeRankWriter* native = nullptr;
    if (config.format == TraceFormat::kNative) {
      auto n = std::make_unique<NativeRankWriter>(config, gpu, info);
      native = n.get();
      rank_writer = std::move(n);
    } else {
      rank_writer = std::make_unique<KinetoRankWriter>(config, gpu, info);
    }
    RankWriter& writer = *rank_writer;
    PLASMIENT_TRY(writer.Open());
    RankState state = InitialState(config, r);
    for (int step = 0; step < config.steps; ++step) {
      const Program program = BuildProgram(config, gpu, r, step);
      state.next_item = 0;
      bool progressed = false;
      Result<SimStatus> status = Simulate(state, program, resolver, &writer, &progressed);
      if (!status) return std::unexpected(status.error());
      if (*status != SimStatus::kDone) {
        return Fail("synth: rank {} step {} blocked while writing", r, program.step);
      }
      PLASMIENT_TRY(writer.status());
    }
    PLASMIENT_TRY(writer.Finish());
    if (HasCaptureTrace(config.scenario)) PLASMIENT_TRY(WriteCapture(config, gpu, out_dir, r, resolver));

    const std::vector<TruthActivity>& activities = writer.activities();
    RankReport report;
    report.rank = r;
    report.file = RankFileName(config, r);
    report.clock_offset_ns = info.clock_offset_ns;
    report.dominant_dtype = DominantDtype(activities);
    report.device = {PeakFlops(gpu, report.dominant_dtype), gpu.mem_bytes_per_s};
    report.collective_wait_s = NsToSeconds(resolver.own_wait_ns()[static_cast<std::size_t>(r)]);
    const RankTruth rank_truth = ComputeRankTruth(activities, report.device);
    report.truth = &rank_truth;
    report.activities = &activities;
    report.kernel_names = &writer.kernel_names();
    report.layer_types = &writer.layer_types();
    report.stalls = &writer.stalls();
    std::vector<FileTruth> files;
    if (native != nullptr && config.period_s > 0) {
      files = WindowTruths(native->files(), activities, gpu);
      report.files = &files;
      report.file = files.empty() ? std::string() : files.front().file;
    }
    PLASMIENT_TRY(truth.AddRank(report));
    if (progress != nullptr) {
      progress->trace_bytes += writer.bytes_written();
      progress->gpu_activities += static_cast<std::int64_t>(activities.size());
      if (progress->on_rank) progress->on_rank(r + 1, config.ranks);
    }
  }
  std::vector<StragglerReport> stragglers;
  for (int r = 0; r < config.ranks; ++r) {
    const double caused = resolver.caused_wait_ns()[static_cast<std::size_t>(r)];
    if (caused <= 0) continue;
    std::string_view cause = "jitter";
    if (r == StragglerRank(config))
      cause = config.scenario == Scenario::kLateStart ? "late_start" : "slow_work";
    stragglers.push_back({r, NsToSeconds(caused), cause});
  }
  std::sort(stragglers.begin(), stragglers.end(), [](const StragglerReport& a, const StragglerReport& b) {
    return a.caused_wait_s != b.caused_wait_s ? a.caused_wait_s > b.caused_wait_s : a.rank < b.rank;
  });
  return truth.Finish(stragglers);
}

}  // namespace plasmient::synth
