#include "fleet/analyze_job.h"

#include <algorithm>

#include "ingest/read_trace.h"

namespace plasmient::fleet {

Result<verdict::JobVerdict> AnalyzeJobFiles(const std::vector<std::filesystem::path>& files,
                                            const verdict::AnalyzeOptions& options,
                                            const ingest::OpenRules& rules) {
  if (files.empty()) return Fail("no trace files (.json, .json.gz, .sqlite, .plasmient)");
  std::vector<verdict::RankVerdict> ranks;
  ranks.reserve(files.size());
  for (std::size_t i = 0; i < files.size(); ++i) {
    std::string path = files[i].string();
    ingest::IngestOptions ro;
    ro.open = rules;
    auto trace = ingest::ReadTrace(path, ro);
    if (!trace) return std::unexpected(trace.error());
    if (trace->info.rank < 0 && files.size() > 1) trace->info.rank = static_cast<std::int64_t>(i);
    auto v = verdict::AnalyzeRank(*trace, options);
    if (!v) return std::unexpected(v.error());
    ranks.push_back(std::move(*v));
  }
  verdict::JobVerdict job = verdict::CombineRanks(std::move(ranks), options);
  bool any_gpu =
      std::any_of(job.ranks.begin(), job.ranks.end(), [](const auto& r) { return r.no_gpu_reason.empty(); });
  if (!any_gpu) {
    return Fail("{}: {}", files.front().string(),
                job.ranks.empty() ? "no input" : job.ranks.front().no_gpu_reason);
  }
  return job;
}

}  // namespace plasmient::fleet
