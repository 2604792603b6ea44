#include "store/job_rows.h"

#include <algorithm>

#include "base/bounded_name.h"
#include "job/bill.h"
#include "whatif/levers.h"

namespace plasmient::store {

Row Common(const JobContext& c) {
  Row r;
  r.reserve(40);
  r.emplace_back(c.job_key);
  r.emplace_back(c.job_id);
  r.emplace_back(c.at_ns);
  r.emplace_back(c.host);
  return r;
}

namespace {

// One lever_projections row per stored lever's outcome.
std::vector<Row> LeverRows(std::span<const whatif::LeverOutcome> levers, const verdict::JobVerdict& job,
                           const JobContext& context) {
  std::vector<Row> rows;
  for (const whatif::LeverOutcome& l : levers) {
    Row r = Common(context);
    r.emplace_back(l.key.name);
    r.emplace_back(l.key.value);
    r.emplace_back(static_cast<std::int64_t>(job.ranks.size()));
    r.emplace_back(l.projection.current.figures.wall_s);
    r.emplace_back(l.projection.projected.figures.wall_s);
    r.emplace_back(l.projection.throughput_gain);
    r.emplace_back(l.projection.recoverable_gpu_s);
    r.emplace_back(static_cast<std::int64_t>(l.out_of_range));
    r.emplace_back(job.bill.price_per_gpu_hour);
    rows.push_back(std::move(r));
  }
  return rows;
}

void AddFigures(Row& r, const verdict::Figures& f) {
  r.emplace_back(f.wall_s);
  r.emplace_back(f.useful_s);
  r.emplace_back(f.kernel_union_s);
  r.emplace_back(f.achieved());
  r.emplace_back(f.utilization());
}

void AddLosses(Row& r, const verdict::Figures& f) {
  for (double s : f.loss_s) r.emplace_back(s);
}

std::string LabelValue(const Labels& labels, std::string_view key) {
  for (const auto& [k, v] : labels) {
    if (k == key) return v;
  }
  return "";
}

void AddAggregates(std::vector<Row>& out, const JobContext& c, const verdict::RankVerdict& rank,
                   const std::vector<verdict::KernelAggregate>& list) {
  for (const auto& k : list) {
    Row r = Common(c);
    r.emplace_back(rank.rank);
    r.emplace_back(rank.device.name);
    r.emplace_back(k.name);
    r.emplace_back(k.op);
    r.emplace_back(std::string(verdict::BoundName(k.bound)));
    r.emplace_back(std::string(verdict::LossKey(k.loss)));
    r.emplace_back(k.calls);
    r.emplace_back(k.time_s);
    r.emplace_back(k.share_s);
    r.emplace_back(k.flops);
    r.emplace_back(k.bytes);
    r.emplace_back(k.useful_s);
    r.emplace_back(k.lost_s);
    r.emplace_back(k.achieved_fraction());
    out.push_back(std::move(r));
  }
}

std::int64_t GpuRanks(const verdict::JobVerdict& job) {
  return std::count_if(job.ranks.begin(), job.ranks.end(),
                       [](const auto& r) { return r.no_gpu_reason.empty(); });
}

// A collective's kind, kept short: the canonical name when it has one, else the source's own.
std::string StoredKind(const join::CollectiveInstance& col) {
  return col.kind == join::CollectiveKind::kOther ? col.name
                                                  : std::string(join::CollectiveKindName(col.kind));
}

// What `fleet --cluster` needs of a rank (schema.cc): its collectives, its window, its steps.
void AddClusterRows(Batch& b, const JobContext& c, const verdict::RankVerdict& rank) {
  for (const auto& col : rank.collectives) {
    Row x = Common(c);
    x.emplace_back(rank.rank);
    x.emplace_back(col.group);
    x.emplace_back(StoredKind(col));
    x.emplace_back(col.seq);
    x.emplace_back(col.bytes);
    x.emplace_back(static_cast<std::int64_t>(col.group_size));
    x.emplace_back(static_cast<std::int64_t>(col.group_rank));
    x.emplace_back(col.start_ns);
    x.emplace_back(col.end_ns);
    x.emplace_back(col.step);
    x.emplace_back(std::int64_t{col.p2p ? 1 : 0});
    x.emplace_back(col.peer);
    b[TableId::kRankCollectives].push_back(std::move(x));
  }
  Row r = Common(c);
  r.emplace_back(rank.rank);
  r.emplace_back(rank.run.start_ns);
  r.emplace_back(rank.run.end_ns);
  r.emplace_back(static_cast<std::int64_t>(rank.collectives.size()));
  r.emplace_back(static_cast<std::int64_t>(rank.steps.size()));
  b[TableId::kClusterRanks].push_back(std::move(r));
  for (const auto& s : rank.steps) {
    Row x = Common(c);
    x.emplace_back(rank.rank);
    x.emplace_back(s.number);
    x.emplace_back(s.figures.compute_s());
    x.emplace_back(s.figures.loss_s[static_cast<std::size_t>(verdict::Loss::kExposedCommunication)]);
    b[TableId::kClusterSteps].push_back(std::move(x));
  }
}

}  // namespace

Result<std::pair<std::string, std::string>> ParseLabel(std::string_view text) {
  auto eq = text.find('=');
  if (eq == std::string_view::npos || eq == 0) return Fail("--label {}: expected key=value", text);
  std::string_view key = text.substr(0, eq);
  for (std::size_t i = 0; i < key.size(); ++i) {
    char c = key[i];
    bool ok = c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (i > 0 && c >= '0' && c <= '9');
    if (!ok)
      return Fail("--label {}: the key must be letters, digits and _ (not starting with a digit)", text);
  }
  if (key.size() > kMaxLabelKeyBytes)
    return Fail("--label {}...: the key is longer than {} bytes", text.substr(0, 32), kMaxLabelKeyBytes);
  return std::pair{std::string(key), BoundLabel(text.substr(eq + 1))};
}

Batch BuildRows(const verdict::JobVerdict& job, const JobContext& c) {
  Batch b;
  {
    Row r = Common(c);
    std::string labels, inputs;
    for (const auto& [k, v] : c.labels) {
      if (!labels.empty()) labels += ',';
      labels += k;
      labels += '=';
      labels += v;
    }
    for (const auto& in : c.inputs) inputs += (inputs.empty() ? "" : ",") + in;
    r.emplace_back(LabelValue(c.labels, "user"));
    r.emplace_back(LabelValue(c.labels, "team"));
    r.emplace_back(std::move(labels));
    r.emplace_back(std::move(inputs));
    r.emplace_back(GpuRanks(job));
    r.emplace_back(job.device.name);
    r.emplace_back(job.device.peak_dtype);
    AddFigures(r, job.job);
    AddLosses(r, job.job);
    r.emplace_back(job.hardware_flops);
    r.emplace_back(job.capacity_flops);
    r.emplace_back(job.mfu().value_or(-1.0));
    b[TableId::kJobs].push_back(std::move(r));
  }
  for (const auto& rank : job.ranks) {
    for (const auto& s : rank.steps) {
      Row r = Common(c);
      r.emplace_back(rank.rank);
      r.emplace_back(rank.device.name);
      r.emplace_back(s.number);
      r.emplace_back(s.figures.start_ns);
      r.emplace_back(s.figures.end_ns);
      AddFigures(r, s.figures);
      b[TableId::kSteps].push_back(std::move(r));
    }
    Row r = Common(c);
    r.emplace_back(rank.rank);
    r.emplace_back(rank.device.name);
    r.emplace_back(rank.path);
    r.emplace_back(rank.format);
    AddFigures(r, rank.run);
    AddLosses(r, rank.run);
    r.emplace_back(rank.gpu_busy_s);
    r.emplace_back(rank.compute_s);
    r.emplace_back(rank.communication_s);
    r.emplace_back(rank.communication_overlapped_s);
    r.emplace_back(rank.hardware_flops);
    r.emplace_back(rank.kernels);
    r.emplace_back(rank.no_gpu_reason);
    b[TableId::kRankVerdicts].push_back(std::move(r));
    AddAggregates(b[TableId::kKernelAggregates], c, rank, rank.top_kernels);
    AddAggregates(b[TableId::kOpAggregates], c, rank, rank.top_ops);
    if (rank.no_gpu_reason.empty()) AddClusterRows(b, c, rank);
  }
  // The cluster layer's stragglers (read as the job was assembled): one rule, one place.
  for (const auto& s : job.stragglers) {
    Row r = Common(c);
    r.emplace_back(s.rank);
    r.emplace_back(std::string(join::CollectiveKindName(s.kind)));
    r.emplace_back(s.caused_wait_s);
    r.emplace_back(s.capacity_fraction);
    r.emplace_back(s.late_collectives);
    r.emplace_back(s.collectives);
    r.emplace_back(s.steps);
    r.emplace_back(s.mean_late_s);
    b[TableId::kStragglers].push_back(std::move(r));
  }
  if (job.layers.has_ranges()) {
    for (const auto& f : job.layers.types) {
      Row r = Common(c);
      r.emplace_back(job.device.name);
      r.emplace_back(f.type);
      r.emplace_back(f.instances);
      r.emplace_back(f.calls);
      r.emplace_back(f.kernels);
      r.emplace_back(f.gpu_time_s);
      r.emplace_back(f.useful_s);
      r.emplace_back(f.lost_s());
      r.emplace_back(f.flops);
      r.emplace_back(f.achieved_fraction());
      r.emplace_back(std::string(verdict::LossKey(f.main_loss())));
      for (double s : f.loss_s) r.emplace_back(s);
      r.emplace_back(f.top_kernels.empty() ? std::string() : f.top_kernels.front().first);
      b[TableId::kLayerTypes].push_back(std::move(r));
    }
  }
  {
    const auto& bill = job.bill;
    std::int64_t gpus = GpuRanks(job);
    auto rates = plasmient::job::RatesFor(
        static_cast<double>(gpus), bill.price_per_gpu_hour, std::clamp(job.job.achieved(), 0.0, 1.0),
        bill.target_fraction > 0 ? bill.target_fraction : verdict::kDefaultTargetFraction);
    plasmient::job::BillRates br = rates ? *rates : plasmient::job::BillRates{};
    Row r = Common(c);
    r.emplace_back(gpus);
    r.emplace_back(bill.price_per_gpu_hour);
    r.emplace_back(bill.gpu_hours);
    r.emplace_back(bill.spend);
    r.emplace_back(bill.computed);
    r.emplace_back(bill.paid_never_computed);
    r.emplace_back(bill.target_fraction);
    r.emplace_back(bill.addressable);
    r.emplace_back(br.spend_per_day);
    r.emplace_back(br.paid_never_computed_per_day);
    r.emplace_back(br.addressable_per_day);
    r.emplace_back(br.spend_per_year);
    r.emplace_back(br.addressable_per_year);
    b[TableId::kBills].push_back(std::move(r));
  }
  b[TableId::kLeverProjections] = LeverRows(whatif::ProjectStoredLevers(job), job, c);
  return b;
}

}  // namespace plasmient::store
