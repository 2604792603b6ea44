#include "fleet/analyze_job.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cluster/cluster_verdict.h"
#include "ingest/read_trace.h"
#include "ingest/trace_kinds.h"
#include "verdict/job_inputs.h"

namespace plasmient::fleet {

Result<verdict::JobVerdict> AnalyzeInputs(const std::vector<std::filesystem::path>& files,
                                          const verdict::AnalyzeOptions& options, const JobReadHooks& hooks,
                                          const ingest::OpenRules& rules) {
  if (files.empty()) return Fail("no trace files ({})", ingest::TraceSuffixList());
  auto warn = [&](const std::string& line) {
    if (hooks.warn) hooks.warn(line);
  };
  std::vector<verdict::RankVerdict> ranks;
  ranks.reserve(files.size());
  verdict::InputSet seen;
  std::int64_t repeated = 0, skipped = 0;
  Error last_skip;
  for (std::size_t i = 0; i < files.size(); ++i) {
    std::string path = files[i].string();
    ingest::IngestOptions ro;
    ro.open = rules;
    if (hooks.begin) ro.progress = hooks.begin(path, i, files.size());
    auto trace = ingest::ReadTrace(path, ro);
    if (hooks.done) hooks.done();
    // A file that is no trace at all (a config.json in the job's folder) is set aside while
    // other inputs remain; a damaged trace is an error.
    if (!trace && files.size() > 1 && ingest::IsNotATrace(trace.error())) {
      warn(fmt::format("{}: skipped: not a trace", path));
      last_skip = trace.error();
      ++skipped;
      continue;
    }
    if (!trace) return std::unexpected(trace.error());
    if (std::string earlier = seen.Repeats(*trace); !earlier.empty()) {
      warn(fmt::format("{}: skipped: the same trace as {}", path, earlier));
      ++repeated;
      continue;
    }
    if (trace->info.rank < 0 && files.size() > 1) trace->info.rank = static_cast<std::int64_t>(i);
    auto v = verdict::AnalyzeRank(*trace, options);
    if (!v) return std::unexpected(v.error());
    ranks.push_back(std::move(*v));
  }
  if (ranks.empty()) return std::unexpected(last_skip);
  if (auto why = verdict::NotOneJob(ranks); !why.empty()) {
    return Fail("the inputs are not one job: {}; analyze each job's traces on their own",
                fmt::join(why, "; "));
  }
  verdict::JobVerdict job = verdict::CombineRanks(std::move(ranks), options);
  cluster::AddClusterFigures(job, options);  // after every rank's verdict, before any sink
  job.quality.Add(model::Dq::kDuplicateInput, repeated);
  job.quality.Add(model::Dq::kSkippedInput, skipped);
  return job;
}

Result<verdict::JobVerdict> AnalyzeJobFiles(const std::vector<std::filesystem::path>& files,
                                            const verdict::AnalyzeOptions& options,
                                            const ingest::OpenRules& rules) {
  auto job = AnalyzeInputs(files, options, {}, rules);
  if (!job) return job;
  bool any_gpu = std::any_of(job->ranks.begin(), job->ranks.end(),
                             [](const auto& r) { return r.no_gpu_reason.empty(); });
  if (!any_gpu) {
    return Fail("{}: {}", files.front().string(),
                job->ranks.empty() ? "no input" : job->ranks.front().no_gpu_reason);
  }
  return job;
}

}  // namespace plasmient::fleet
