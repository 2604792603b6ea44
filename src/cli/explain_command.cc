#include "cli/explain_command.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <memory>

#include <fmt/format.h>

#include "cli/analyze_command.h"
#include "cluster/arrivals.h"
#include "export/explain_sink.h"

namespace plasmient::cli {
namespace {

using verdict::InstantSpec;

// A duration with its unit: "6.2ms" → 6'200'000 ns.
Result<TimeNs> ParseDuration(std::string_view text, std::string_view whole) {
  static constexpr std::pair<std::string_view, double> kUnits[] = {
      {"ns", 1}, {"us", 1e3}, {"µs", 1e3}, {"ms", 1e6}, {"s", 1e9}};
  for (auto [suffix, scale] : kUnits) {
    if (!text.ends_with(suffix)) continue;
    std::string_view number = text.substr(0, text.size() - suffix.size());
    double v = 0;
    auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), v);
    if (number.empty() || ec != std::errc() || end != number.data() + number.size() || !std::isfinite(v))
      break;
    if (suffix == "s" && (number.ends_with('m') || number.ends_with('u') || number.ends_with('n'))) break;
    return static_cast<TimeNs>(std::llround(v * scale));
  }
  return Fail("--at {}: give a time with its unit (6.2ms, 6200us, 6200000ns, 0.0062s), step:N+Xms or worst",
              whole);
}

struct ExplainArgs {
  std::vector<std::string> inputs;
  AnalyzeArgs analyze;
  std::string at;
  std::int64_t rank = -1;
  bool rank_given = false;
  bool json = false;
};

// Reads the column of one rank when the analysis reaches it.
class ColumnObserver : public verdict::RankObserver {
 public:
  ColumnObserver(InstantSpec spec, std::optional<verdict::Loss> worst) : spec_(spec), worst_(worst) {}

  void OnRank(const verdict::RankDetail& d) override {
    if (column_ || !error_.empty() || !d.verdict.no_gpu_reason.empty()) return;
    const auto& loss = d.verdict.run.loss_s;
    auto own = static_cast<verdict::Loss>(std::max_element(loss.begin(), loss.end()) - loss.begin());
    auto t = verdict::ResolveInstant(spec_, d, worst_.value_or(own));
    if (!t) {
      error_ = t.error().message;
      return;
    }
    column_ = verdict::ReadColumn(d, *t);
  }

  std::optional<verdict::Column> column_;
  std::string error_;

 private:
  InstantSpec spec_;
  std::optional<verdict::Loss> worst_;
};

// The rank to read: --rank, else for `worst` the rank with the most of the job's largest loss,
// else the lowest rank with GPU activity.
Result<const verdict::RankVerdict*> ChooseRank(const verdict::JobVerdict& job, const ExplainArgs& a,
                                               const InstantSpec& spec, verdict::Loss worst) {
  std::vector<const verdict::RankVerdict*> ranks;
  for (const auto& r : job.ranks) {
    if (r.no_gpu_reason.empty()) ranks.push_back(&r);
  }
  std::stable_sort(ranks.begin(), ranks.end(), [](auto* x, auto* y) { return x->rank < y->rank; });
  if (ranks.empty()) return Fail("no rank has GPU activity");
  if (a.rank_given) {
    for (const auto* r : ranks) {
      if (r->rank == a.rank) return r;
    }
    std::string list;
    for (const auto* r : ranks) list += (list.empty() ? "" : ", ") + std::to_string(r->rank);
    return Fail("--rank {}: no such rank with GPU activity; the ranks are {}", a.rank, list);
  }
  if (spec.kind != InstantSpec::Kind::kWorst) return ranks.front();
  auto li = static_cast<std::size_t>(worst);
  return *std::max_element(ranks.begin(), ranks.end(),
                           [&](auto* x, auto* y) { return x->run.loss_s[li] < y->run.loss_s[li]; });
}

// The communication kernel resident at t, with its match: the focus kernel's when it is one.
std::optional<cluster::CollectiveArrivals> CollectiveAt(const verdict::JobVerdict& job,
                                                        const verdict::Column& c) {
  std::optional<cluster::CollectiveArrivals> found;
  for (auto& a : cluster::RankArrivals(job, c.rank)) {
    if (a.start_ns > c.t_ns || a.end_ns <= c.t_ns) continue;
    if (!found || (a.matched && !found->matched)) found = std::move(a);
  }
  return found;
}

int RunExplain(ExplainArgs& a) {
  if (!FinishVerdictOptions(a.analyze)) return 2;
  auto spec = ParseInstant(a.at);
  if (!spec) {
    fmt::print(stderr, "plasmient: {}\n", spec.error().message);
    return 2;
  }
  auto inputs = ExpandInputs(a.inputs);
  if (!inputs) {
    fmt::print(stderr, "plasmient: {}\n", inputs.error().message);
    return 1;
  }
  verdict::AnalyzeOptions options = a.analyze.options;
  verdict::JobVerdict job;
  std::optional<verdict::Loss> worst;
  std::string path = inputs->front();
  std::optional<ColumnObserver> observer;
  if (inputs->size() == 1) {
    observer.emplace(*spec, std::nullopt);
    options.observer = &*observer;
    if (int rc = AnalyzeJob(*inputs, options, true, job); rc != 0) return rc;
  } else {
    // The job first (the cluster layer and the job's largest loss), then the chosen rank's file
    // again with the observer: one rank's detail is held at a time.
    if (int rc = AnalyzeJob(*inputs, options, true, job); rc != 0) return rc;
    const auto& loss = job.job.loss_s;
    worst = static_cast<verdict::Loss>(std::max_element(loss.begin(), loss.end()) - loss.begin());
    auto chosen = ChooseRank(job, a, *spec, *worst);
    if (!chosen) {
      fmt::print(stderr, "plasmient: {}\n", chosen.error().message);
      return 2;
    }
    path = (*chosen)->path;
    observer.emplace(*spec, worst);
    options.observer = &*observer;
    verdict::JobVerdict one;
    if (int rc = AnalyzeJob({path}, options, true, one); rc != 0) return rc;
    if (observer->column_) observer->column_->rank = (*chosen)->rank;
  }
  if (a.rank_given && inputs->size() == 1 && !job.ranks.empty() && job.ranks.front().rank != a.rank) {
    fmt::print(stderr, "plasmient: --rank {}: {} holds rank {} only\n", a.rank, path, job.ranks.front().rank);
    return 2;
  }
  if (!observer->error_.empty()) {
    fmt::print(stderr, "plasmient: {}: {}\n", path, observer->error_);
    return 2;
  }
  if (!observer->column_) {
    std::string none = NoGpuActivity(job);
    fmt::print(stderr, "plasmient: {}: {}\n", path, none.empty() ? "no GPU activity" : none);
    return 3;
  }
  exporting::Explanation e{path, job.device.name, std::move(*observer->column_), std::nullopt};
  if (inputs->size() > 1) e.collective = CollectiveAt(job, e.column);
  std::string text = a.json ? exporting::ExplainToJson(e) : exporting::RenderExplainText(e);
  std::fwrite(text.data(), 1, text.size(), stdout);
  return 0;
}

}  // namespace

Result<InstantSpec> ParseInstant(std::string_view text) {
  InstantSpec spec;
  if (text == "worst") {
    spec.kind = InstantSpec::Kind::kWorst;
    return spec;
  }
  if (text.starts_with("step:")) {
    std::string_view rest = text.substr(5);
    std::size_t plus = rest.find('+');
    std::string_view number = rest.substr(0, plus);
    auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), spec.step);
    if (number.empty() || ec != std::errc() || end != number.data() + number.size()) {
      return Fail("--at {}: the step is a number: step:N or step:N+Xms", text);
    }
    spec.kind = InstantSpec::Kind::kStep;
    if (plus == std::string_view::npos) return spec;
    auto offset = ParseDuration(rest.substr(plus + 1), text);
    if (!offset) return std::unexpected(offset.error());
    spec.offset_ns = *offset;
    return spec;
  }
  auto offset = ParseDuration(text, text);
  if (!offset) return std::unexpected(offset.error());
  if (*offset < 0)
    return Fail("--at {}: the time is counted from the window start and cannot be negative", text);
  spec.offset_ns = *offset;
  return spec;
}

CommandHook RegisterExplain(CLI::App& app) {
  auto args = std::make_shared<ExplainArgs>();
  auto* c = app.add_subcommand(
      "explain",
      "read one column of the vertical trace: what device, kernel, op, layer, step and cluster were "
      "doing at one instant, and why (docs/explain.md)");
  c->add_option("inputs", args->inputs, "a trace file or a folder of per-rank traces")->required();
  c->add_option("--at", args->at,
                "the instant: a time from the window start with its unit (6.2ms, 6200us, 6200000ns), "
                "step:N+Xms (from the start of step N), or worst (the job's largest loss)")
      ->required();
  auto* rank = c->add_option("--rank", args->rank,
                             "the rank to read (default: the lowest; for worst, the rank "
                             "with the most of that loss)");
  c->add_flag("--json", args->json, "print the column as JSON (plasmient.explain/1)");
  AddVerdictOptions(*c, args->analyze);
  return {c, [args, rank] {
            args->rank_given = rank->count() > 0;
            return RunExplain(*args);
          }};
}

}  // namespace plasmient::cli
