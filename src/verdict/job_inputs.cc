#include "verdict/job_inputs.h"

#include <algorithm>
#include <filesystem>
#include <limits>
#include <map>

#include <fmt/format.h>

namespace plasmient::verdict {
namespace {

// Timestamps after 2001-09-09 are wall-clock time (Kineto's epoch microseconds, Nsight Systems'
// UTC session start); smaller ones count from a boot or a process start and say nothing about
// when the capture was taken.
constexpr TimeNs kWallClockFromNs = 1'000'000'000'000'000'000;
// The ranks of one job are traced in one run, within minutes of each other: captures further
// apart than this are different runs.
constexpr TimeNs kMaxCaptureGapNs = 3600 * kNsPerS;

std::string FileName(const std::string& path) { return std::filesystem::path(path).filename().string(); }

// The first input per distinct value of `field` (skipping unknown values), for "A in x but B in y".
template <typename Field>
std::vector<const RankVerdict*> FirstPerValue(const std::vector<RankVerdict>& ranks, Field field) {
  std::vector<const RankVerdict*> firsts;
  for (const auto& r : ranks) {
    auto value = field(r);
    if (value == decltype(value){}) continue;
    bool seen = std::any_of(firsts.begin(), firsts.end(), [&](const auto* f) { return field(*f) == value; });
    if (!seen) firsts.push_back(&r);
  }
  return firsts;
}

// Step numbers (ProfilerStep#N) or collective sequence numbers: which steps the trace holds.
bool SaysItsSteps(const RankVerdict& r) {
  return std::any_of(r.steps.begin(), r.steps.end(), [](const StepFigures& s) { return s.number >= 0; }) ||
         std::any_of(r.collectives.begin(), r.collectives.end(),
                     [](const join::CollectiveInstance& c) { return c.seq >= 0 || c.step >= 0; });
}

}  // namespace

InputSet::Key InputSet::KeyOf(const model::Trace& t) {
  Key key{t.info.rank, -1, std::numeric_limits<TimeNs>::max()};
  if (!t.api.pid.empty()) {
    key.pid = t.api.pid.front();
  } else if (!t.cpu.pid.empty()) {
    key.pid = t.cpu.pid.front();
  }
  for (TimeNs s : t.gpu.start_ns) key.first_ns = std::min(key.first_ns, s);
  if (t.gpu.size() == 0) {
    for (TimeNs s : t.cpu.start_ns) key.first_ns = std::min(key.first_ns, s);
  }
  return key;
}

std::string InputSet::Repeats(const Key& key, const std::string& path) {
  for (const auto& [k, earlier] : seen_) {
    if (k == key) return earlier;
  }
  seen_.emplace_back(key, path);
  return "";
}

std::vector<std::string> NotOneJob(const std::vector<RankVerdict>& ranks) {
  std::vector<std::string> why;
  auto differ = [&](std::string_view what, auto field, auto show) {
    auto firsts = FirstPerValue(ranks, field);
    if (firsts.size() < 2) return;
    why.push_back(fmt::format("{} {} in {} but {} in {}", what, show(*firsts[0]), FileName(firsts[0]->path),
                              show(*firsts[1]), FileName(firsts[1]->path)));
  };
  // 0 is "unknown" for the comparison; world sizes and ranks below 1 say nothing.
  auto world = [](const RankVerdict& r) { return r.world_size > 0 ? r.world_size : 0; };
  differ("world size", world, world);
  auto job = [](const RankVerdict& r) { return r.job_id; };
  differ("run id", job, job);
  // The device-table row each trace's deviceProperties matched: names vary across drivers.
  auto device = [](const RankVerdict& r) { return r.device.source.starts_with("trace") ? r.device.key : ""; };
  differ("GPU", device, [](const RankVerdict& r) { return r.device.name; });

  std::map<std::int64_t, const RankVerdict*> by_rank;
  for (const auto& r : ranks) {
    if (r.rank < 0) continue;
    auto [it, fresh] = by_rank.try_emplace(r.rank, &r);
    if (fresh) continue;
    why.push_back(
        fmt::format("rank {} in {} and again in {}", r.rank, FileName(it->second->path), FileName(r.path)));
    break;  // one such line is evidence enough
  }

  // Capture times count only where no step or sequence numbers say which steps a trace holds:
  // hosts without clock sync are seconds or hours apart, and numbered steps and collectives are
  // matched by their numbers (the cluster layer), however far the clocks.
  const RankVerdict* earliest = nullptr;
  const RankVerdict* latest = nullptr;
  for (const auto& r : ranks) {
    if (!r.no_gpu_reason.empty() || r.run.start_ns < kWallClockFromNs || SaysItsSteps(r)) continue;
    if (earliest == nullptr || r.run.end_ns < earliest->run.end_ns) earliest = &r;
    if (latest == nullptr || r.run.start_ns > latest->run.start_ns) latest = &r;
  }
  if (earliest != nullptr && latest->run.start_ns - earliest->run.end_ns > kMaxCaptureGapNs) {
    why.push_back(fmt::format("{} was captured {:.1f} h after {}", FileName(latest->path),
                              NsToSeconds(latest->run.start_ns - earliest->run.end_ns) / 3600,
                              FileName(earliest->path)));
  }
  return why;
}

}  // namespace plasmient::verdict
