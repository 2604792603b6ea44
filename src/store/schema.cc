#include "store/schema.h"

#include <charconv>
#include <cmath>
#include <cstdlib>

namespace plasmient::store {
namespace {

constexpr ColumnType I = ColumnType::kInt, F = ColumnType::kFloat, S = ColumnType::kString;

#define PLASMIENT_FLEET_COMMON \
  {"job_key", S}, {"job_id", S}, {"at_ns", I}, { "host", S }
#define PLASMIENT_FLEET_FIGURES \
  {"wall_s", F}, {"useful_s", F}, {"kernel_union_s", F}, {"achieved", F}, { "utilization", F }
#define PLASMIENT_FLEET_LOSSES                                                                             \
  {"loss_compute_inefficiency_s", F}, {"loss_memory_bound_s", F}, {"loss_unmodeled_kernels_s", F},         \
      {"loss_exposed_communication_s", F}, {"loss_pipeline_bubble_s", F}, {"loss_host_bound_idle_s", F}, { \
    "loss_data_movement_s", F                                                                              \
  }
#define PLASMIENT_FLEET_AGGREGATE                                                                          \
  {"rank", I}, {"gpu", S}, {"name", S}, {"op", S}, {"bound", S}, {"loss", S}, {"calls", I}, {"time_s", F}, \
      {"share_s", F}, {"flops", F}, {"bytes", F}, {"useful_s", F}, {"lost_s", F}, {                        \
    "achieved", F                                                                                          \
  }

constexpr Column kJobs[] = {PLASMIENT_FLEET_COMMON,
                            {"user_label", S},
                            {"team_label", S},
                            {"labels", S},
                            {"inputs", S},
                            {"ranks", I},
                            {"gpu", S},
                            {"peak_dtype", S},
                            PLASMIENT_FLEET_FIGURES,
                            PLASMIENT_FLEET_LOSSES,
                            {"hardware_flops", F},
                            {"capacity_flops", F},
                            {"mfu", F}};
constexpr Column kSteps[] = {
    PLASMIENT_FLEET_COMMON, {"rank", I}, {"gpu", S}, {"step", I}, {"start_ns", I}, {"end_ns", I},
    PLASMIENT_FLEET_FIGURES};
constexpr Column kRanks[] = {PLASMIENT_FLEET_COMMON,
                             {"rank", I},
                             {"gpu", S},
                             {"path", S},
                             {"format", S},
                             PLASMIENT_FLEET_FIGURES,
                             PLASMIENT_FLEET_LOSSES,
                             {"gpu_busy_s", F},
                             {"compute_s", F},
                             {"communication_s", F},
                             {"communication_overlapped_s", F},
                             {"hardware_flops", F},
                             {"kernels", I},
                             {"no_gpu_reason", S}};
constexpr Column kKernels[] = {PLASMIENT_FLEET_COMMON, PLASMIENT_FLEET_AGGREGATE};
constexpr Column kOps[] = {PLASMIENT_FLEET_COMMON, PLASMIENT_FLEET_AGGREGATE};
// What the cluster layer needs of a rank (docs/cluster.md), so that `fleet --cluster` runs over the
// store without the traces: one row per communication kernel, with enter and exit on the rank's
// own clock, and one row per rank (its run window: the capacity and the clock-offset bound).
constexpr Column kRankCollectives[] = {PLASMIENT_FLEET_COMMON,
                                       {"rank", I},
                                       {"comm_group", S},
                                       {"kind", S},
                                       {"seq", I},
                                       {"bytes", I},
                                       {"group_size", I},
                                       {"group_rank", I},
                                       {"start_ns", I},
                                       {"end_ns", I},
                                       {"step", I},
                                       {"p2p", I},
                                       {"peer", I}};
constexpr Column kClusterRanks[] = {PLASMIENT_FLEET_COMMON, {"rank", I},        {"window_start_ns", I},
                                    {"window_end_ns", I},   {"collectives", I}, {"steps", I}};
// The rank's compute time (a compute kernel resident) and exposed communication wait per step.
constexpr Column kClusterSteps[] = {
    PLASMIENT_FLEET_COMMON, {"rank", I}, {"step", I}, {"compute_s", F}, {"exposed_wait_s", F}};
// The stragglers the cluster layer names in the analysis (docs/cluster.md): the rank whose late
// arrivals caused the wait, and the figures `analyze` prints for it.
constexpr Column kStragglers[] = {
    PLASMIENT_FLEET_COMMON,  {"rank", I},        {"kind", S},  {"caused_wait_s", F}, {"capacity_fraction", F},
    {"late_collectives", I}, {"collectives", I}, {"steps", I}, {"mean_late_s", F}};
constexpr Column kBills[] = {PLASMIENT_FLEET_COMMON,
                             {"gpus", I},
                             {"price_per_gpu_hour", F},
                             {"gpu_hours", F},
                             {"spend", F},
                             {"computed", F},
                             {"paid_never_computed", F},
                             {"target_fraction", F},
                             {"addressable", F},
                             {"spend_per_day", F},
                             {"paid_never_computed_per_day", F},
                             {"addressable_per_day", F},
                             {"spend_per_year", F},
                             {"addressable_per_year", F}};
// The job's module types (docs/layers.md), for jobs whose traces have module or annotation ranges.
constexpr Column kLayerTypes[] = {PLASMIENT_FLEET_COMMON, {"gpu", S},       {"type", S},
                                  {"instances", I},       {"calls", I},     {"kernels", I},
                                  {"gpu_time_s", F},      {"useful_s", F},  {"lost_s", F},
                                  {"flops", F},           {"achieved", F},  {"main_loss", S},
                                  PLASMIENT_FLEET_LOSSES, {"top_kernel", S}};

// The job projected under each stored lever (docs/fleet.md, "Levers"): what it would recover.
constexpr Column kLeverProjections[] = {PLASMIENT_FLEET_COMMON, {"lever", S},
                                        {"value", F},           {"gpus", I},
                                        {"wall_s", F},          {"projected_wall_s", F},
                                        {"throughput_gain", F}, {"recoverable_gpu_s", F},
                                        {"out_of_range", I},    {"price_per_gpu_hour", F}};

#undef PLASMIENT_FLEET_COMMON
#undef PLASMIENT_FLEET_FIGURES
#undef PLASMIENT_FLEET_LOSSES
#undef PLASMIENT_FLEET_AGGREGATE

constexpr TableSpec kTables[] = {
    {TableId::kJobs, "jobs", kJobs},
    {TableId::kSteps, "steps", kSteps},
    {TableId::kRankVerdicts, "rank_verdicts", kRanks},
    {TableId::kKernelAggregates, "kernel_aggregates", kKernels},
    {TableId::kOpAggregates, "op_aggregates", kOps},
    {TableId::kRankCollectives, "rank_collectives", kRankCollectives},
    {TableId::kStragglers, "cluster_stragglers", kStragglers},
    {TableId::kBills, "bills", kBills},
    {TableId::kLayerTypes, "layer_types", kLayerTypes},
    {TableId::kClusterRanks, "cluster_ranks", kClusterRanks},
    {TableId::kClusterSteps, "cluster_steps", kClusterSteps},
    {TableId::kLeverProjections, "lever_projections", kLeverProjections},
};
static_assert(std::size(kTables) == kTableCount);

}  // namespace

std::span<const TableSpec> Tables() { return kTables; }
const TableSpec& Table(TableId id) { return kTables[static_cast<std::size_t>(id)]; }

std::size_t Batch::RowCount() const {
  std::size_t n = 0;
  for (const auto& r : rows) n += r.size();
  return n;
}

void Batch::Append(Batch&& other) {
  for (std::size_t t = 0; t < kTableCount; ++t) {
    auto& dst = rows[t];
    auto& src = other.rows[t];
    dst.insert(dst.end(), std::make_move_iterator(src.begin()), std::make_move_iterator(src.end()));
    src.clear();
  }
}

double StoredDouble(double v) { return std::isfinite(v) ? v : 0.0; }

void AppendTsvCell(std::string& out, const Cell& cell) {
  if (const auto* i = std::get_if<std::int64_t>(&cell)) {
    char buf[24];
    auto r = std::to_chars(buf, buf + sizeof buf, *i);
    out.append(buf, r.ptr);
  } else if (const auto* d = std::get_if<double>(&cell)) {
    char buf[32];
    auto r = std::to_chars(buf, buf + sizeof buf, StoredDouble(*d));
    out.append(buf, r.ptr);
  } else {
    for (char c : std::get<std::string>(cell)) {
      switch (c) {
        case '\t':
          out += "\\t";
          break;
        case '\n':
          out += "\\n";
          break;
        case '\r':
          out += "\\r";
          break;
        case '\\':
          out += "\\\\";
          break;
        case '\0':
          out += "\\0";
          break;
        default:
          out += c;
      }
    }
  }
}

bool ParseTsvRow(std::string_view line, const TableSpec& table, Row& row) {
  row.clear();
  std::size_t pos = 0;
  for (std::size_t c = 0; c < table.columns.size(); ++c) {
    std::size_t end = line.find('\t', pos);
    bool last = c + 1 == table.columns.size();
    if (last != (end == std::string_view::npos)) return false;
    std::string_view field = line.substr(pos, last ? std::string_view::npos : end - pos);
    pos = end + 1;
    switch (table.columns[c].type) {
      case ColumnType::kInt: {
        std::int64_t v = 0;
        auto r = std::from_chars(field.data(), field.data() + field.size(), v);
        if (r.ec != std::errc() || r.ptr != field.data() + field.size()) return false;
        row.emplace_back(v);
        break;
      }
      case ColumnType::kFloat: {
        double v = 0;
        auto r = std::from_chars(field.data(), field.data() + field.size(), v);
        if (r.ec != std::errc() || r.ptr != field.data() + field.size()) return false;
        row.emplace_back(v);
        break;
      }
      case ColumnType::kString: {
        std::string s;
        s.reserve(field.size());
        for (std::size_t i = 0; i < field.size(); ++i) {
          if (field[i] != '\\' || i + 1 == field.size()) {
            s += field[i];
            continue;
          }
          char n = field[++i];
          s += n == 't' ? '\t' : n == 'n' ? '\n' : n == 'r' ? '\r' : n == '0' ? '\0' : n;
        }
        row.emplace_back(std::move(s));
        break;
      }
    }
  }
  return true;
}

}  // namespace plasmient::store
