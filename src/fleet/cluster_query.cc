#include "fleet/cluster_query.h"

#include <algorithm>
#include <charconv>
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/text.h"
#include "cluster/cluster_verdict.h"
#include "export/terminal_sink.h"
#include "fleet/fleet_query.h"
#include "job/combine.h"

namespace plasmient::fleet {
namespace {

// The cells of one stored row, read by type; the first bad cell names the table and column.
class Cells {
 public:
  Cells(const std::vector<std::string>& cells, std::string_view table, std::string& error)
      : cells_(cells), table_(table), error_(error) {}

  std::int64_t Int(std::size_t i, std::string_view column) {
    auto v = i < cells_.size() ? ParseInt(cells_[i]) : std::nullopt;
    if (!v) Bad(i, column);
    return v.value_or(0);
  }
  double Float(std::size_t i, std::string_view column) {
    double v = 0;
    const std::string* c = i < cells_.size() ? &cells_[i] : nullptr;
    auto r = c ? std::from_chars(c->data(), c->data() + c->size(), v) : std::from_chars_result{};
    if (!c || r.ec != std::errc() || r.ptr != c->data() + c->size()) Bad(i, column);
    return v;
  }
  const std::string& Text(std::size_t i, std::string_view column) {
    static const std::string kEmpty;
    if (i >= cells_.size()) Bad(i, column);
    return i < cells_.size() ? cells_[i] : kEmpty;
  }

 private:
  void Bad(std::size_t i, std::string_view column) {
    if (!error_.empty()) return;
    error_ = fmt::format("{}.{}: not a number: '{}'", table_, column, i < cells_.size() ? cells_[i] : "");
  }
  const std::vector<std::string>& cells_;
  std::string_view table_;
  std::string& error_;
};

struct ChosenRank {
  std::string job_key;
  std::int64_t at_ns = -1;
  TimeNs start_ns = 0, end_ns = 0;
};

// Each rank's latest analysis of the job (ties: the larger key, so every store picks the same).
Result<std::map<std::int64_t, ChosenRank>> ChooseAnalyses(store::QueryableStore& store,
                                                          const std::string& job_id) {
  std::map<std::int64_t, ChosenRank> chosen;
  std::string error;
  store::SqlQuery q{
      fmt::format("SELECT rank, job_key, at_ns, window_start_ns, window_end_ns FROM {} WHERE job_id = :job",
                  store.TableName(store::TableId::kClusterRanks)),
      {{":job", job_id}}};
  PLASMIENT_TRY(store.ForEachRow(q, [&](const std::vector<std::string>& row) -> Status {
    Cells c(row, "cluster_ranks", error);
    std::int64_t rank = c.Int(0, "rank"), at_ns = c.Int(2, "at_ns");
    ChosenRank r{c.Text(1, "job_key"), at_ns, c.Int(3, "window_start_ns"), c.Int(4, "window_end_ns")};
    if (!error.empty()) return Fail("{}", error);
    auto [it, fresh] = chosen.try_emplace(rank, r);
    if (!fresh && std::tie(at_ns, r.job_key) > std::tie(it->second.at_ns, it->second.job_key)) it->second = r;
    return Ok();
  }));
  if (chosen.empty()) {
    return Fail(
        "job '{}': no per-rank cluster rows in the store (record its ranks with analyze --db/--clickhouse "
        "--job {} or serve)",
        job_id, job_id);
  }
  return chosen;
}

// Each chosen rank's run figures (the job table), from rank_verdicts.
Status ReadRankFigures(store::QueryableStore& store, const std::string& job_id,
                       const std::map<std::int64_t, ChosenRank>& chosen,
                       std::map<std::int64_t, verdict::RankVerdict>& ranks) {
  std::string columns = "job_key, rank, gpu, wall_s, useful_s, kernel_union_s";
  for (std::size_t l = 0; l < verdict::kLossCount; ++l) {
    columns += fmt::format(", loss_{}_s", verdict::LossKey(static_cast<verdict::Loss>(l)));
  }
  std::string error;
  store::SqlQuery q{fmt::format("SELECT {} FROM {} WHERE job_id = :job", columns,
                                store.TableName(store::TableId::kRankVerdicts)),
                    {{":job", job_id}}};
  return store.ForEachRow(q, [&](const std::vector<std::string>& row) -> Status {
    Cells c(row, "rank_verdicts", error);
    std::int64_t rank = c.Int(1, "rank");
    auto at = chosen.find(rank);
    if (at == chosen.end() || at->second.job_key != c.Text(0, "job_key")) return Ok();
    auto& r = ranks[rank];
    r.rank = rank;
    r.device.name = c.Text(2, "gpu");
    r.run.start_ns = at->second.start_ns;
    r.run.end_ns = at->second.end_ns;
    r.run.wall_s = c.Float(3, "wall_s");
    r.run.useful_s = c.Float(4, "useful_s");
    r.run.kernel_union_s = c.Float(5, "kernel_union_s");
    for (std::size_t l = 0; l < verdict::kLossCount; ++l) r.run.loss_s[l] = c.Float(6 + l, "loss");
    if (!error.empty()) return Fail("{}", error);
    return Ok();
  });
}

// Every chosen rank's collectives, in start order as the rank's analysis kept them.
Result<std::int64_t> ReadCollectives(store::QueryableStore& store, const std::string& job_id,
                                     const std::map<std::int64_t, ChosenRank>& chosen,
                                     std::map<std::int64_t, verdict::RankVerdict>& ranks) {
  std::string error;
  std::int64_t rows = 0;
  store::SqlQuery q{fmt::format("SELECT job_key, rank, comm_group, kind, seq, bytes, group_size, group_rank, "
                                "start_ns, end_ns, step, "
                                "p2p, peer FROM {} WHERE job_id = :job",
                                store.TableName(store::TableId::kRankCollectives)),
                    {{":job", job_id}}};
  PLASMIENT_TRY(store.ForEachRow(q, [&](const std::vector<std::string>& row) -> Status {
    Cells c(row, "rank_collectives", error);
    std::int64_t rank = c.Int(1, "rank");
    auto at = chosen.find(rank);
    if (at == chosen.end() || at->second.job_key != c.Text(0, "job_key")) return Ok();
    join::CollectiveInstance x;
    x.group = c.Text(2, "comm_group");
    x.name = c.Text(3, "kind");
    x.kind = join::ParseCollectiveKind(x.name);
    x.seq = c.Int(4, "seq");
    x.bytes = c.Int(5, "bytes");
    x.group_size = static_cast<std::int32_t>(c.Int(6, "group_size"));
    x.group_rank = static_cast<std::int32_t>(c.Int(7, "group_rank"));
    x.start_ns = c.Int(8, "start_ns");
    x.end_ns = c.Int(9, "end_ns");
    x.step = c.Int(10, "step");
    x.p2p = c.Int(11, "p2p") != 0;
    x.peer = c.Int(12, "peer");
    if (!error.empty()) return Fail("{}", error);
    ranks[rank].collectives.push_back(std::move(x));
    ++rows;
    return Ok();
  }));
  for (auto& [_, r] : ranks) {
    std::stable_sort(r.collectives.begin(), r.collectives.end(),
                     [](const auto& a, const auto& b) { return a.start_ns < b.start_ns; });
  }
  return rows;
}

}  // namespace

Result<StoredClusterJob> LoadStoredCluster(store::QueryableStore& store, const std::string& job_id) {
  auto chosen = ChooseAnalyses(store, job_id);
  if (!chosen) return std::unexpected(chosen.error());
  std::map<std::int64_t, verdict::RankVerdict> ranks;
  PLASMIENT_TRY(ReadRankFigures(store, job_id, *chosen, ranks));
  for (const auto& [rank, c] : *chosen) {
    if (!ranks.contains(rank))
      return Fail("job '{}': rank {} has cluster rows but no rank_verdicts row", job_id, rank);
  }
  auto rows = ReadCollectives(store, job_id, *chosen, ranks);
  if (!rows) return std::unexpected(rows.error());
  StoredClusterJob out;
  out.collective_rows = *rows;
  std::map<std::string, int> keys;
  for (const auto& [_, c] : *chosen) ++keys[c.job_key];
  out.analyses = static_cast<std::int64_t>(keys.size());
  for (auto& [_, r] : ranks) {
    out.job.job.Add(r.run);
    out.job.ranks.push_back(std::move(r));
  }
  out.job.device = out.job.ranks.front().device;
  return out;
}

Result<StoredClusterJob> AnalyzeStoredCluster(store::QueryableStore& store, const std::string& job_id,
                                              const verdict::AnalyzeOptions& options) {
  auto stored = LoadStoredCluster(store, job_id);
  if (!stored) return std::unexpected(stored.error());
  // The stored ranks through the job stage's one assembly: the cluster layer's reading of them.
  stored->job = job::CombineRanks(std::move(stored->job.ranks), options);
  return stored;
}

Result<std::vector<std::string>> ChangedClusterJobs(store::QueryableStore& store, std::int64_t since_ns,
                                                    ClusterWatchState& seen) {
  std::string error;
  std::vector<std::string> changed;
  store::SqlQuery q{
      fmt::format("SELECT job_id, count(DISTINCT rank), max(at_ns) FROM {} WHERE at_ns >= {} GROUP BY job_id",
                  store.TableName(store::TableId::kClusterRanks), since_ns),
      {}};
  PLASMIENT_TRY(store.ForEachRow(q, [&](const std::vector<std::string>& row) -> Status {
    Cells c(row, "cluster_ranks", error);
    std::pair state{c.Int(1, "ranks"), c.Int(2, "at_ns")};
    if (!error.empty()) return Fail("{}", error);
    auto at = seen.find(row[0]);
    if (state.first >= 2 && (at == seen.end() || at->second != state)) {
      seen[row[0]] = state;
      changed.push_back(row[0]);
    }
    return Ok();
  }));
  return changed;
}

std::string RenderStoredCluster(const StoredClusterJob& stored, std::size_t limit) {
  const auto& job = stored.job;
  std::string out = fmt::format(" {} ranks from {} analyses, {} collective rows\n", job.ranks.size(),
                                stored.analyses, stored.collective_rows);
  out += exporting::RenderRankTable(job);
  auto text = [](double v) { return fmt::format("{}", v); };
  store::QueryResult per_rank{{"rank", "clock_offset_s", "clock_aligned", "wait_on_peers_s", "transfer_s",
                               "caused_wait_s", "p2p_wait_s"},
                              {}};
  for (const auto& r : job.ranks) {
    if (per_rank.rows.size() >= limit) break;
    per_rank.rows.push_back({std::to_string(r.rank), text(r.clock_offset_s), r.clock_aligned ? "yes" : "no",
                             text(r.wait_on_peers_s), text(r.transfer_s), text(r.caused_wait_s),
                             text(r.p2p_wait_s)});
  }
  out += "\n clocks and waits\n" + FormatTable(per_rank);
  if (job.ranks.size() > per_rank.rows.size()) {
    out += fmt::format("… {} more ranks (--limit)\n", job.ranks.size() - per_rank.rows.size());
  }
  store::QueryResult stragglers{{"straggler_rank", "caused_wait_s", "capacity_fraction", "kind", "late_steps",
                                 "steps", "late_collectives", "collectives", "mean_late_s"},
                                {}};
  for (const auto& s : job.stragglers) {
    stragglers.rows.push_back({std::to_string(s.rank), text(s.caused_wait_s), text(s.capacity_fraction),
                               std::string(join::CollectiveKindName(s.kind)),
                               std::to_string(s.late_steps.size()), std::to_string(s.steps),
                               std::to_string(s.late_collectives), std::to_string(s.collectives),
                               text(s.mean_late_s)});
  }
  out += "\n stragglers\n" + FormatTable(stragglers);
  if (!job.pipeline.empty()) {
    store::QueryResult pipeline{
        {"rank", "pipeline", "stage", "stages", "microbatches", "ideal_bubble", "measured_bubble"}, {}};
    for (const auto& p : job.pipeline) {
      pipeline.rows.push_back(
          {std::to_string(p.shape.rank), std::to_string(p.shape.pipeline), std::to_string(p.shape.stage),
           std::to_string(p.shape.stages), std::to_string(p.shape.microbatches),
           p.shape.ideal_bubble < 0 ? "" : text(p.shape.ideal_bubble), text(p.measured_bubble)});
    }
    out += "\n pipeline\n" + FormatTable(pipeline);
  }
  for (const auto& s : job.stragglers) out += "\n " + cluster::StragglerFix(s).action + "\n";
  if (!job.job_problems.empty()) {
    out += "\n not one job? (docs/cluster.md)\n";
    for (const auto& p : job.job_problems) out += "  " + p + "\n";
  }
  return out;
}

}  // namespace plasmient::fleet
