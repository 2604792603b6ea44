#include "fleet/analyze_job.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <new>
#include <optional>
#include <system_error>
#include <thread>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/parallel.h"
#include "cluster/cluster_verdict.h"
#include "ingest/read_trace.h"
#include "ingest/trace_kinds.h"
#include "verdict/job_inputs.h"

namespace plasmient::fleet {
namespace {

// Inputs smaller than this on disk (a rank of a large job: hundreds of KB) are read on the
// thread that analyzes them: starting a framing and a parsing thread costs more than they save
// on a few MB of JSON, and the job's ranks already keep the cores busy.
constexpr std::uintmax_t kThreadedReadFromBytes = 1u << 20;

// Turns in input order: Wait(i) returns once every input before i has called Pass.
class Turnstile {
 public:
  void Wait(std::size_t i) {
    std::unique_lock lock(mutex_);
    turn_.wait(lock, [&] { return next_ == i; });
  }
  void Pass(std::size_t i) {
    {
      std::lock_guard lock(mutex_);
      next_ = i + 1;
    }
    turn_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable turn_;
  std::size_t next_ = 0;
};

// One input's turn at a turnstile: Hold waits for it, Pass (at the latest when it goes out of
// scope, even on an exception) lets the next input in.
class Turn {
 public:
  Turn(Turnstile& turnstile, std::size_t i) : turnstile_(turnstile), i_(i) {}
  Turn(const Turn&) = delete;
  Turn& operator=(const Turn&) = delete;
  ~Turn() { Pass(); }
  void Hold() {
    if (held_) return;
    turnstile_.Wait(i_);
    held_ = true;
  }
  void Pass() {
    if (passed_) return;
    Hold();
    turnstile_.Pass(i_);
    passed_ = true;
  }

 private:
  Turnstile& turnstile_;
  std::size_t i_;
  bool held_ = false, passed_ = false;
};

// What became of one input.
struct Outcome {
  enum class Kind { kRank, kNotATrace, kRepeat, kFailed, kUnread } kind = Kind::kUnread;
  std::optional<verdict::RankVerdict> rank;
  std::string warning;
  Error error;
  std::exception_ptr exception;  // e.g. bad_alloc, rethrown on the caller's thread
};

// Reads and analyzes the inputs on `workers` threads, each input on one thread from read to
// verdict, so at most `workers` traces are in memory. Whatever depends on the order of the inputs
// runs in that order, whatever the timing: which input repeats which (the admission turn), and
// what the caller sees (the commit turn): warnings, the observer's ranks, the first failure.
// The outcome is the one reading them one by one gives.
class JobReader {
 public:
  JobReader(const std::vector<std::filesystem::path>& files, const verdict::AnalyzeOptions& options,
            const JobReadHooks& hooks, const ingest::OpenRules& rules)
      : files_(files),
        options_(options),
        hooks_(hooks),
        rules_(rules),
        parse_threads_(ParseThreadsEach(options, files.size())),
        rank_threads_(
            CoresEach(std::clamp<std::size_t>(options.workers, 1, std::max<std::size_t>(1, files.size())),
                      options.cores)),
        outcomes_(files.size()) {}

  std::vector<Outcome> Run(std::size_t workers) {
    // One task per input, taken in input order (the turns rely on it); the caller's thread is a
    // worker too, and a worker that cannot start leaves the inputs to the others.
    std::vector<std::function<void()>> tasks;
    tasks.reserve(files_.size());
    for (std::size_t i = 0; i < files_.size(); ++i) tasks.emplace_back([this, i] { Work(i); });
    RunConcurrently(workers, tasks);
    return std::move(outcomes_);
  }

 private:
  // Holds the input's commit turn around the observer: ranks reach it in input order, and none
  // after a failure.
  class InOrderObserver final : public verdict::RankObserver {
   public:
    InOrderObserver(JobReader& job, Turn& commit) : job_(job), commit_(commit) {}
    void OnRank(const verdict::RankDetail& detail) override {
      commit_.Hold();
      if (!job_.stopped_) job_.options_.observer->OnRank(detail);
    }

   private:
    JobReader& job_;
    Turn& commit_;
  };

  void Work(std::size_t i) {
    Turn admission(admit_, i), commit(commit_, i);
    try {
      Process(i, admission, commit);
    } catch (...) {
      Failed(i, std::current_exception());
    }
    admission.Pass();
    Commit(i, commit);
  }

  void Process(std::size_t i, Turn& admission, Turn& commit) {
    Outcome& out = outcomes_[i];
    std::string path = files_[i].string();
    std::optional<Result<model::Trace>> trace;
    if (first_failure_.load() > i) trace = Read(path, i);  // past a failure nothing is needed
    admission.Hold();
    bool analyze = trace.has_value() && Admit(i, path, *trace, out);
    if (analyze && (*trace)->info.rank < 0 && files_.size() > 1)
      (*trace)->info.rank = static_cast<std::int64_t>(i);
    admission.Pass();
    if (!analyze) return;
    InOrderObserver observer(*this, commit);
    verdict::AnalyzeOptions options = options_;
    options.rank_threads = rank_threads_;
    if (options_.observer != nullptr) options.observer = &observer;
    auto v = verdict::AnalyzeRank(**trace, options);
    if (!v) {
      Fail(i, out, v.error());
      return;
    }
    out.kind = Outcome::Kind::kRank;
    out.rank = std::move(*v);
  }

  Result<model::Trace> Read(const std::string& path, std::size_t i) {
    ingest::IngestOptions ro;
    ro.open = rules_;
    ro.parse_threads = parse_threads_;
    std::error_code size_error;
    std::uintmax_t bytes = std::filesystem::file_size(files_[i], size_error);
    ro.threaded = size_error || bytes >= kThreadedReadFromBytes;  // no size: as a large file
    if (hooks_.begin) {
      std::lock_guard lock(hooks_mutex_);
      auto progress = hooks_.begin(path, i, files_.size());
      if (progress) {
        ro.progress = [this, progress](std::int64_t done, std::int64_t total) {
          std::lock_guard lock(hooks_mutex_);
          progress(done, total);
        };
      }
    }
    auto start = std::chrono::steady_clock::now();
    auto trace = ingest::ReadTrace(path, ro);
    std::chrono::duration<double> seconds = std::chrono::steady_clock::now() - start;
    std::lock_guard lock(hooks_mutex_);
    if (hooks_.done) hooks_.done();
    if (hooks_.read && trace) hooks_.read(trace->info, seconds.count());
    return trace;
  }

  // On the admission turn: false when the input is set aside or failed.
  bool Admit(std::size_t i, const std::string& path, const Result<model::Trace>& trace, Outcome& out) {
    // A file that is no trace at all (a config.json in the job's folder) is set aside while
    // other inputs remain; a damaged trace is an error.
    if (!trace && files_.size() > 1 && ingest::IsNotATrace(trace.error())) {
      out.kind = Outcome::Kind::kNotATrace;
      out.warning = fmt::format("{}: skipped: not a trace", path);
      out.error = trace.error();
      return false;
    }
    if (!trace) {
      Fail(i, out, trace.error());
      return false;
    }
    if (std::string earlier = seen_.Repeats(*trace); !earlier.empty()) {
      out.kind = Outcome::Kind::kRepeat;
      out.warning = fmt::format("{}: skipped: the same trace as {}", path, earlier);
      return false;
    }
    return true;
  }

  // Out of memory, or a thread that cannot start, while input i was read or analyzed (on any of
  // the reader's threads): its error, naming the file, as every bad input's is. Anything else is
  // rethrown on the caller's thread.
  void Failed(std::size_t i, const std::exception_ptr& e) {
    Outcome& out = outcomes_[i];
    try {
      try {
        std::rethrow_exception(e);
      } catch (const std::bad_alloc&) {
        Fail(i, out, Error{fmt::format("{}: out of memory", files_[i].string())});
        return;
      } catch (const std::system_error& s) {
        Fail(i, out, Error{fmt::format("{}: cannot start a thread: {}", files_[i].string(), s.what())});
        return;
      }
    } catch (...) {  // another exception, or no memory left even for the message
    }
    out.exception = e;
    Fail(i, out, {});
  }

  void Fail(std::size_t i, Outcome& out, Error error) {
    out.kind = Outcome::Kind::kFailed;
    out.error = std::move(error);
    std::size_t first = first_failure_.load();
    while (i < first && !first_failure_.compare_exchange_weak(first, i)) {
    }
  }

  // On the commit turn (already held when the observer saw the rank).
  void Commit(std::size_t i, Turn& commit) {
    commit.Hold();
    Outcome& out = outcomes_[i];
    if (stopped_) {
      out = Outcome{};
    } else {
      if (!out.warning.empty() && hooks_.warn) hooks_.warn(out.warning);
      stopped_ = out.kind == Outcome::Kind::kFailed;
    }
    commit.Pass();
  }

  const std::vector<std::filesystem::path>& files_;
  const verdict::AnalyzeOptions& options_;
  const JobReadHooks& hooks_;
  const ingest::OpenRules& rules_;
  const std::size_t parse_threads_;
  const std::size_t rank_threads_;
  std::vector<Outcome> outcomes_;
  std::atomic<std::size_t> first_failure_{SIZE_MAX};
  Turnstile admit_, commit_;
  verdict::InputSet seen_;  // on the admission turn only
  bool stopped_ = false;    // on the commit turn only: an earlier input failed
  std::mutex hooks_mutex_;
};

std::size_t MachineCores() { return std::max(1u, std::thread::hardware_concurrency()); }

}  // namespace

std::size_t CoresEach(std::size_t at_once, std::size_t cores) {
  return std::max<std::size_t>(1, (cores > 0 ? cores : MachineCores()) / std::max<std::size_t>(1, at_once));
}

std::size_t ParseThreadsEach(const verdict::AnalyzeOptions& options, std::size_t inputs) {
  std::size_t each =
      CoresEach(std::clamp<std::size_t>(options.workers, 1, std::max<std::size_t>(1, inputs)), options.cores);
  return each >= MachineCores() ? 0 : each;
}

Result<verdict::JobVerdict> AnalyzeInputs(const std::vector<std::filesystem::path>& files,
                                          const verdict::AnalyzeOptions& options, const JobReadHooks& hooks,
                                          const ingest::OpenRules& rules) {
  if (files.empty()) return Fail("no trace files ({})", ingest::TraceSuffixList());
  std::vector<Outcome> outcomes = JobReader(files, options, hooks, rules).Run(options.workers);
  std::vector<verdict::RankVerdict> ranks;
  std::int64_t repeated = 0, skipped = 0;
  Error last_skip;
  for (Outcome& out : outcomes) {
    if (out.exception) std::rethrow_exception(out.exception);
    switch (out.kind) {
      case Outcome::Kind::kRank:
        ranks.push_back(std::move(*out.rank));
        break;
      case Outcome::Kind::kNotATrace:
        last_skip = out.error;
        ++skipped;
        break;
      case Outcome::Kind::kRepeat:
        ++repeated;
        break;
      case Outcome::Kind::kFailed:
        return std::unexpected(out.error);
      case Outcome::Kind::kUnread:
        break;
    }
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
  bool recordable = std::any_of(job->ranks.begin(), job->ranks.end(),
                                [](const auto& r) { return r.no_gpu_reason.empty() || r.device_tier.any(); });
  if (!recordable) {
    return Fail("{}: {}", files.front().string(),
                job->ranks.empty() ? "no input" : job->ranks.front().no_gpu_reason);
  }
  return job;
}

}  // namespace plasmient::fleet
