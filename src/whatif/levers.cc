#include "whatif/levers.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <ranges>

#include <fmt/format.h>

namespace plasmient::whatif {
namespace {

struct StoredLever {
  LeverKey key;
  Levers levers;
};

std::vector<StoredLever> StoredLevers(const verdict::JobVerdict& job) {
  std::vector<StoredLever> out;
  out.push_back({{"overlap-comm", 0}, {.overlap_comm = true}});
  out.push_back({{"cuda-graphs", 0}, {.cuda_graphs = true}});
  for (double k : kStoredBatchScales) out.push_back({{"batch-scale", k}, {.batch_scale = k}});
  for (const verdict::PipelineStageVerdict& p : job.pipeline) {
    if (p.shape.microbatches > 0 && p.shape.stages > 1) {
      const std::int64_t m = 2 * p.shape.microbatches;
      out.push_back({{"microbatches", static_cast<double>(m)}, {.microbatches = m}});
      break;
    }
  }
  return out;
}

}  // namespace

Result<LeverKey> ParseLever(std::span<const std::string> words, std::string_view flag) {
  if (words.empty())
    return Fail("{}: expected overlap-comm, cuda-graphs, batch-scale K or microbatches M", flag);
  const std::string& name = words[0];
  if (name == "overlap-comm" || name == "cuda-graphs") {
    if (words.size() != 1) return Fail("{} {}: takes no value", flag, name);
    return LeverKey{name, 0};
  }
  if (name != "batch-scale" && name != "microbatches") {
    return Fail("{}: expected overlap-comm, cuda-graphs, batch-scale K or microbatches M, not {}", flag,
                name);
  }
  if (words.size() != 2) return Fail("{} {}: expected one value", flag, name);
  double v = 0;
  const std::string& text = words[1];
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || !(v > 0) || !std::isfinite(v)) {
    return Fail("{} {}: {} is not a positive number", flag, name, text);
  }
  if (name == "microbatches" && v != std::floor(v))
    return Fail("{} microbatches: {} is not a whole count", flag, text);
  return LeverKey{name, v};
}

Result<std::vector<LeverKey>> ParseLeverList(std::string_view text, std::string_view flag) {
  std::vector<LeverKey> out;
  for (std::string_view item : std::views::split(text, ',') | std::views::transform([](auto r) {
                                 return std::string_view(r.begin(), r.end());
                               })) {
    std::vector<std::string> words;
    const std::size_t eq = item.find('=');
    words.emplace_back(item.substr(0, eq));
    if (eq != std::string_view::npos) words.emplace_back(item.substr(eq + 1));
    auto lever = ParseLever(words, flag);
    if (!lever) return std::unexpected(lever.error());
    auto same = [&](const LeverKey& k) { return k.name == lever->name && k.value == lever->value; };
    if (std::ranges::none_of(out, same)) out.push_back(std::move(*lever));
  }
  if (out.empty())
    return Fail("{}: expected overlap-comm, cuda-graphs, batch-scale=K or microbatches=M", flag);
  return out;
}

std::string LeverLabel(const LeverKey& lever) {
  return lever.value > 0 ? fmt::format("{}={:g}", lever.name, lever.value) : lever.name;
}

std::vector<LeverOutcome> ProjectStoredLevers(const verdict::JobVerdict& job) {
  const std::vector<const RankTable*> tables = TablesOf(job);
  std::vector<LeverOutcome> out;
  if (tables.empty() || job.job.wall_s <= 0) return out;
  for (const StoredLever& s : StoredLevers(job)) {
    auto p = Project(tables, job, s.levers);
    if (!p) continue;  // the lever cannot apply to this job
    bool out_of_range = false;
    for (const std::string& w : p->warnings) out_of_range = out_of_range || w.starts_with(kOutOfRangeWarning);
    out.push_back({s.key, std::move(*p), out_of_range});
  }
  return out;
}

}  // namespace plasmient::whatif
