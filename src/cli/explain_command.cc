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
  std::string json_path;  // --json [FILE|-]
};

// Reads, as the analysis reaches each rank, the columns `explain` may print. Which rank and which
// loss are chosen is known only once the whole job is (ChooseRank, the job's largest loss), so it
// keeps the candidates: with --rank that rank, else the lowest rank so far; for `worst`, one column
// per loss, from the rank with the most of it so far. At most one column per loss, never a trace:
// the job is read once.
class ColumnObserver : public verdict::RankObserver {
 public:
  struct Slot {
    std::int64_t rank = -1;
    double key = 0;  // what the slot's rank leads by: its loss (worst), else nothing
    bool set = false;
    Result<verdict::Column> column = Fail("no rank read");
  };

  ColumnObserver(InstantSpec spec, std::optional<std::int64_t> rank) : spec_(spec), rank_(rank) {}

  void OnRank(const verdict::RankDetail& d) override {
    const auto& v = d.verdict;
    if (!v.no_gpu_reason.empty() || (rank_ && v.rank != *rank_)) return;
    std::optional<verdict::ColumnReader> reader;
    auto fill = [&](Slot& slot, verdict::Loss loss, double key) {
      if (!reader) reader.emplace(d);
      slot.rank = v.rank;
      slot.key = key;
      slot.set = true;
      auto t = verdict::ResolveInstant(spec_, d, loss);
      slot.column = t ? Result<verdict::Column>(reader->Read(*t)) : std::unexpected(t.error());
    };
    auto leads = [&](const Slot& slot, double key) {
      return !slot.set || key > slot.key || (key == slot.key && v.rank < slot.rank);
    };
    if (spec_.kind != InstantSpec::Kind::kWorst) {
      if (leads(one_, 0)) fill(one_, verdict::Loss::kHostBoundIdle, 0);
      return;
    }
    for (std::size_t l = 0; l < verdict::kLossCount; ++l) {
      double key = rank_ ? 0 : v.run.loss_s[l];
      if (leads(by_loss_[l], key)) fill(by_loss_[l], static_cast<verdict::Loss>(l), key);
    }
  }

  // The slot for `loss` (`worst`) or the only one.
  const Slot& For(verdict::Loss loss) const {
    return spec_.kind == InstantSpec::Kind::kWorst ? by_loss_[static_cast<std::size_t>(loss)] : one_;
  }

 private:
  InstantSpec spec_;
  std::optional<std::int64_t> rank_;
  Slot one_;
  std::array<Slot, verdict::kLossCount> by_loss_;
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
  ColumnObserver observer(*spec, a.rank_given ? std::optional<std::int64_t>(a.rank) : std::nullopt);
  options.observer = &observer;
  verdict::JobVerdict job;
  if (int rc = AnalyzeJob(*inputs, options, true, job); rc != 0) return rc;
  std::string path = inputs->front();
  if (a.rank_given && inputs->size() == 1 && !job.ranks.empty() && job.ranks.front().rank != a.rank) {
    fmt::print(stderr, "plasmient: --rank {}: {} holds rank {} only\n", a.rank, path, job.ranks.front().rank);
    return 2;
  }
  if (std::string none = NoGpuActivity(job); !none.empty()) {
    fmt::print(stderr, "plasmient: {}: {}\n", path, none);
    return 3;
  }
  // The job's largest loss; one input reads its rank's own.
  const auto& loss = inputs->size() == 1 ? job.ranks.front().run.loss_s : job.job.loss_s;
  auto worst = static_cast<verdict::Loss>(std::max_element(loss.begin(), loss.end()) - loss.begin());
  auto chosen = ChooseRank(job, a, *spec, worst);
  if (!chosen) {
    fmt::print(stderr, "plasmient: {}\n", chosen.error().message);
    return 2;
  }
  if (inputs->size() > 1) path = (*chosen)->path;
  const auto& slot = observer.For(worst);
  if (!slot.set || slot.rank != (*chosen)->rank) {
    fmt::print(stderr, "plasmient: {}: rank {} was not read\n", path, (*chosen)->rank);
    return 1;
  }
  if (!slot.column) {
    fmt::print(stderr, "plasmient: {}: {}\n", path, slot.column.error().message);
    return 2;
  }
  exporting::Explanation e{path, job.device.name, *slot.column, std::nullopt};
  if (inputs->size() > 1)
    e.collective = cluster::CollectiveAt(cluster::RankArrivals(job, e.column.rank), e.column.t_ns);
  if (!a.json_path.empty() && !WriteOutput(a.json_path, exporting::ExplainToJson(e), "JSON column")) return 1;
  if (a.json_path != "-") {
    std::string text = exporting::RenderExplainText(e);
    std::fwrite(text.data(), 1, text.size(), stdout);
  }
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
  AddJsonOption(*c, args->json_path, "write the column as JSON (plasmient.explain/1)");
  AddVerdictOptions(*c, args->analyze);
  return {c, [args, rank] {
            args->rank_given = rank->count() > 0;
            return RunExplain(*args);
          }};
}

}  // namespace plasmient::cli
