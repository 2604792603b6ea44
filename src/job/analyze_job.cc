#include "job/analyze_job.h"

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
#include "base/result.h"
#include "cluster/job_identity.h"
#include "ingest/read_trace.h"
#include "ingest/trace_kinds.h"
#include "job/combine.h"
#include "join/graph_replay.h"
#include "verdict/job_inputs.h"

namespace plasmient::job {
namespace {

// Inputs smaller than this on disk (a rank of a large job: hundreds of KB) are read on the
// thread that analyzes them: starting a framing and a parsing thread costs more than they save
// on a few MB of JSON, and the job's ranks already keep the cores busy.
constexpr std::uintmax_t kThreadedReadFromBytes = 1u << 20;

// Inputs committed in input order without anyone waiting for a turn: each input reports when it
// is done (Finish), and the done inputs at the front are committed then, one at a time and in
// order, by the thread whose report completed them. A worker that finishes early moves on to
// its next input instead of waiting for a slower one before it.
class InOrder {
 public:
  explicit InOrder(std::size_t n) : done_(n, 0) {}

  // Input i is done: commits it and every done input after it that was waiting on it.
  void Finish(std::size_t i, const std::function<void(std::size_t)>& commit) {
    {
      std::lock_guard lock(mutex_);
      done_[i] = 1;
      while (next_ < done_.size() && done_[next_] != 0) commit(next_++);
    }
    committed_.notify_all();
  }

  // Runs `then` once every input before i is committed, one at a time with the commits.
  void AfterEarlier(std::size_t i, const std::function<void()>& then) {
    std::unique_lock lock(mutex_);
    committed_.wait(lock, [&] { return next_ >= i; });
    then();
  }

 private:
  std::mutex mutex_;
  std::condition_variable committed_;
  std::vector<char> done_;
  std::size_t next_ = 0;  // inputs before it are committed
};

// What became of one input.
struct Outcome {
  enum class Kind { kRank, kNotATrace, kRepeat, kFailed, kUnread } kind = Kind::kUnread;
  std::optional<verdict::RankVerdict> rank;
  std::string warning;
  Error error;
  std::exception_ptr exception;  // e.g. bad_alloc, rethrown on the caller's thread
  // A trace that was read: the capture it is, and whether it was checked against the earlier ones.
  std::optional<verdict::InputSet::Key> capture;
  bool admitted = false;
  // A graph replay with no capture to match, analyzed without the observer: a capture may be among
  // the inputs still to come (docs/graphs.md, "A capture beside the replay").
  bool deferred = false;
};

// The capture a replay trace's graphs were captured in: the one of its rank, else the only one;
// none for a trace that replayed no graph.
const model::Trace* CaptureFor(const std::vector<model::Trace>& captures, const model::Trace& trace) {
  if (captures.empty() || join::TraceKindOf(trace) != join::TraceKind::kGraphReplay) return nullptr;
  for (const model::Trace& c : captures) {
    if (c.info.rank >= 0 && c.info.rank == trace.info.rank) return &c;
  }
  return captures.size() == 1 ? &captures.front() : nullptr;
}

// Reads and analyzes the inputs on `workers` threads, each input on one thread from read to
// verdict, so at most `workers` traces are in memory. Whatever depends on the order of the inputs
// is decided as the inputs are committed, in input order, whatever the timing: which input
// repeats which, the warnings, the observer's ranks, the first failure. A repeat is analyzed
// before it is known to be one, and its verdict dropped: copies are rare, waiting on every input
// before would cost every job. The outcome is the one reading them one by one gives.
class JobReader {
 public:
  JobReader(const std::vector<std::filesystem::path>& files, const verdict::AnalyzeOptions& options,
            const JobReadHooks& hooks, const ingest::OpenRules& rules,
            const std::vector<model::Trace>& captures = {}, bool defer_replays = false)
      : files_(files),
        captures_(captures),
        defer_replays_(defer_replays),
        options_(options),
        hooks_(hooks),
        rules_(rules),
        parse_threads_(ParseThreadsEach(options, files.size())),
        rank_threads_(
            CoresEach(std::clamp<std::size_t>(options.workers, 1, std::max<std::size_t>(1, files.size())),
                      options.cores)),
        outcomes_(files.size()),
        order_(files.size()) {}

  std::vector<Outcome> Run(std::size_t workers) {
    // One task per input, taken in input order; the caller's thread is a worker too, and a worker
    // that cannot start leaves the inputs to the others.
    std::vector<std::function<void()>> tasks;
    tasks.reserve(files_.size());
    for (std::size_t i = 0; i < files_.size(); ++i) tasks.emplace_back([this, i] { Work(i); });
    RunConcurrently(workers, tasks);
    return std::move(outcomes_);
  }

 private:
  // Passes a rank to the observer once every input before it is committed (ranks reach it in
  // input order), unless it repeats an earlier input or an earlier input failed.
  class InOrderObserver final : public verdict::RankObserver {
   public:
    InOrderObserver(JobReader& job, std::size_t i) : job_(job), i_(i) {}
    void OnRank(const verdict::RankDetail& detail) override {
      job_.order_.AfterEarlier(i_, [&] {
        if (job_.stopped_) return;
        job_.Admit(i_);
        if (job_.outcomes_[i_].kind != Outcome::Kind::kRepeat) job_.options_.observer->OnRank(detail);
      });
    }

   private:
    JobReader& job_;
    std::size_t i_;
  };

  void Work(std::size_t i) {
    try {
      Process(i);
    } catch (...) {
      Failed(i, std::current_exception());
    }
    order_.Finish(i, [this](std::size_t k) { Commit(k); });
  }

  void Process(std::size_t i) {
    Outcome& out = outcomes_[i];
    if (first_failure_.load() < i) return;  // past a failure nothing is needed
    std::string path = files_[i].string();
    Result<model::Trace> trace = Read(path, i);
    if (!trace) {
      // A file that is no trace at all (a config.json in the job's folder) is set aside while
      // other inputs remain; a damaged trace is an error.
      if (files_.size() > 1 && ingest::IsNotATrace(trace.error())) {
        out.kind = Outcome::Kind::kNotATrace;
        out.warning = fmt::format("{}: skipped: not a trace", path);
        out.error = trace.error();
      } else {
        Fail(i, out, trace.error());
      }
      return;
    }
    out.capture = verdict::InputSet::KeyOf(*trace);  // before the rank is guessed from the position
    if (const model::Trace* c = CaptureFor(captures_, *trace))
      *trace = join::WithCapture(std::move(*trace), *c);
    if (trace->info.rank < 0 && files_.size() > 1) trace->info.rank = static_cast<std::int64_t>(i);
    InOrderObserver observer(*this, i);
    verdict::AnalyzeOptions options = options_;
    options.rank_threads = rank_threads_;
    if (options_.observer != nullptr) options.observer = &observer;
    out.deferred = defer_replays_ && join::TraceKindOf(*trace) == join::TraceKind::kGraphReplay;
    if (out.deferred) options.observer = nullptr;
    auto v = verdict::AnalyzeRank(*trace, options);
    if (out.kind == Outcome::Kind::kRepeat) return;  // the observer found it out
    if (!v) {
      out.kind = Outcome::Kind::kFailed;  // a failure once it is known not to be a repeat
      out.error = v.error();
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

  // In input order (committing, or the observer's turn): whether a trace that was read repeats
  // an earlier input; a repeat's verdict or failure is dropped.
  void Admit(std::size_t i) {
    Outcome& out = outcomes_[i];
    if (!out.capture || out.admitted) return;
    out.admitted = true;
    if (std::string earlier = seen_.Repeats(*out.capture, files_[i].string()); !earlier.empty()) {
      out = Outcome{.kind = Outcome::Kind::kRepeat,
                    .warning = fmt::format("{}: skipped: the same trace as {}", files_[i].string(), earlier),
                    .admitted = true};
    }
  }

  // Out of memory, or a thread that cannot start, while input i was read or analyzed (on any of
  // the reader's threads): its error, naming the file, as every bad input's is. Anything else is
  // rethrown on the caller's thread.
  void Failed(std::size_t i, const std::exception_ptr& e) {
    Outcome& out = outcomes_[i];
    if (out.kind == Outcome::Kind::kRepeat) return;  // dropped whatever became of it
    out.kind = Outcome::Kind::kFailed;
    out.rank.reset();
    try {
      try {
        std::rethrow_exception(e);
      } catch (const std::bad_alloc&) {
        out.error = Error{fmt::format("{}: out of memory", files_[i].string())};
        return;
      } catch (const std::system_error& s) {
        out.error = Error{fmt::format("{}: cannot start a thread: {}", files_[i].string(), s.what())};
        return;
      }
    } catch (...) {  // another exception, or no memory left even for the message
    }
    out.exception = e;
    out.error = {};
  }

  // An input that cannot be read: a failure whatever came before it, so inputs after it need not
  // be read.
  void Fail(std::size_t i, Outcome& out, Error error) {
    out.kind = Outcome::Kind::kFailed;
    out.error = std::move(error);
    NoteFailure(i);
  }

  void NoteFailure(std::size_t i) {
    std::size_t first = first_failure_.load();
    while (i < first && !first_failure_.compare_exchange_weak(first, i)) {
    }
  }

  // In input order, once input i and every input before it are done.
  void Commit(std::size_t i) {
    Outcome& out = outcomes_[i];
    if (stopped_) {
      out = Outcome{};
      return;
    }
    Admit(i);
    if (!out.warning.empty() && hooks_.warn) hooks_.warn(out.warning);
    if (out.kind == Outcome::Kind::kFailed) {
      stopped_ = true;
      NoteFailure(i);
    }
  }

  const std::vector<std::filesystem::path>& files_;
  const std::vector<model::Trace>& captures_;
  const bool defer_replays_;
  const verdict::AnalyzeOptions& options_;
  const JobReadHooks& hooks_;
  const ingest::OpenRules& rules_;
  const std::size_t parse_threads_;
  const std::size_t rank_threads_;
  std::vector<Outcome> outcomes_;
  std::atomic<std::size_t> first_failure_{SIZE_MAX};
  InOrder order_;
  verdict::InputSet seen_;  // in input order only
  bool stopped_ = false;    // in input order only: an earlier input failed
  std::mutex hooks_mutex_;
};

std::size_t MachineCores() { return std::max(1u, std::thread::hardware_concurrency()); }

// The --graph-capture traces, each checked to be one.
Result<std::vector<model::Trace>> ReadCaptures(const std::vector<std::string>& paths,
                                               const ingest::OpenRules& rules) {
  std::vector<model::Trace> captures;
  for (const std::string& path : paths) {
    ingest::IngestOptions ro;
    ro.open = rules;
    Result<model::Trace> trace = ingest::ReadTrace(path, ro);
    if (!trace) return std::unexpected(trace.error());
    if (join::TraceKindOf(*trace) != join::TraceKind::kCapture) {
      return Fail(
          "{}: --graph-capture: not a graph capture (no stream capture or graph instantiation, or "
          "graphs replayed in it)",
          path);
    }
    captures.push_back(std::move(*trace));
  }
  return captures;
}

// A job folder's capture traces, beside its replays: the ranks whose trace is a capture, when some
// other rank replayed a graph with nothing to match (docs/graphs.md, "A capture beside the replay").
std::vector<std::string> CapturesBesideReplays(const std::vector<Outcome>& outcomes) {
  std::vector<std::string> captures;
  bool unmatched_replays = false;
  for (const Outcome& out : outcomes) {
    if (out.kind != Outcome::Kind::kRank) continue;
    const verdict::RankVerdict& r = *out.rank;
    if (r.evidence.trace_kind() == join::TraceKind::kCapture) captures.push_back(r.path);
    unmatched_replays = unmatched_replays || r.quality.Get(model::Dq::kGraphReplayNoCapture) > 0;
  }
  if (!unmatched_replays) captures.clear();
  return captures;
}

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
  Result<std::vector<model::Trace>> captures = ReadCaptures(options.graph_captures, rules);
  if (!captures) return std::unexpected(captures.error());
  // Graph replays in a job of several inputs may have their captures among the inputs: they are
  // analyzed once all are read, beside those captures (which are then no ranks), or without any.
  const bool defer = captures->empty() && files.size() > 1;
  std::vector<Outcome> outcomes =
      JobReader(files, options, hooks, rules, *captures, defer).Run(options.workers);
  if (defer) {
    const std::vector<std::string> beside = CapturesBesideReplays(outcomes);
    captures = ReadCaptures(beside, rules);
    if (!captures) return std::unexpected(captures.error());
    std::vector<std::filesystem::path> again;
    std::vector<std::size_t> again_of;
    for (std::size_t i = 0; i < files.size(); ++i) {
      Outcome& out = outcomes[i];
      if (out.kind != Outcome::Kind::kRank) continue;
      PLASMIENT_CHECK(out.rank.has_value());
      if (std::find(beside.begin(), beside.end(), out.rank->path) != beside.end()) {
        out = Outcome{};  // a capture: its launches are the replays' now
      } else if (out.deferred && (!captures->empty() || options.observer != nullptr)) {
        again.push_back(files[i]);
        again_of.push_back(i);
      }
    }
    if (!again.empty()) {
      std::vector<Outcome> redone =
          JobReader(again, options, JobReadHooks{.warn = hooks.warn}, rules, *captures).Run(options.workers);
      for (std::size_t k = 0; k < redone.size(); ++k) {
        // The rank the first reading gave it (its own, or guessed from its place among all inputs).
        Outcome& first = outcomes[again_of[k]];
        Outcome& second = redone[k];
        if (second.kind == Outcome::Kind::kRank) {
          PLASMIENT_CHECK(first.rank.has_value() && second.rank.has_value());
          second.rank->rank = first.rank->rank;
        }
        first = std::move(second);
      }
    }
  }
  std::vector<verdict::RankVerdict> ranks;
  std::int64_t repeated = 0, skipped = 0;
  Error last_skip;
  for (Outcome& out : outcomes) {
    if (out.exception) std::rethrow_exception(out.exception);
    switch (out.kind) {
      case Outcome::Kind::kRank:
        PLASMIENT_CHECK(out.rank.has_value());
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
  if (auto why = cluster::NotOneJob(ranks); !why.empty()) {
    return Fail("the inputs are not one job: {}; analyze each job's traces on their own",
                fmt::join(why, "; "));
  }
  return CombineRanks(std::move(ranks), options, {.repeated = repeated, .skipped = skipped});
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

}  // namespace plasmient::job
