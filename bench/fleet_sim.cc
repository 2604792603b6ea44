// fleet_sim: a simulated fleet's verdict rows written into ClickHouse through the store serve
// uses (store::ClickHouseStore::Insert, batched), to measure ingest and what the rollups cost.
//
//   fleet_sim --url http://127.0.0.1:8123 [--cluster NAME --shard-db -] [--gpus 10000] [--jobs 200]
//             [--hours 24] [--window-s 300] [--threads 4] [--batch 1000]
//
// Every GPU (8 per node) belongs to one of --jobs jobs, sized like a fleet's (a few of thousands of
// GPUs, many of 8 to 64: a Zipf law over the jobs), each with a user and a team. Per GPU per
// window: one analysis, its row set as an agent's kernel window gives it (jobs, rank_verdicts,
// bills, 8 kernels, 4 ops, 3 module types, 5 lever projections, 2 steps, 8 collectives, the
// cluster rows; now and then a straggler). Figures are drawn from a seeded generator, so the same
// flags write the same rows. Prints rows, seconds and rows/s on stdout as `key=value`.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "base/text.h"
#include "store/clickhouse_store.h"
#include "store/schema.h"

namespace plasmient::store {
namespace {

struct SimOptions {
  ClickHouseOptions clickhouse;
  std::int64_t gpus = 10'000, gpus_per_node = 8, jobs = 200, hours = 24, window_s = 300, threads = 4,
               batch = 1000;
  std::int64_t start_s = 1'793'491'200;  // 2026-11-01T00:00:00Z
  bool init_schema = false;
};

std::uint64_t Mix(std::uint64_t x) {  // splitmix64
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

class Draw {
 public:
  explicit Draw(std::uint64_t seed) : state_(seed) {}
  double Uniform(double lo, double hi) {
    state_ = Mix(state_);
    return lo + (hi - lo) * static_cast<double>(state_ >> 11) * 0x1.0p-53;
  }
  std::int64_t Int(std::int64_t lo, std::int64_t hi) {
    return lo + static_cast<std::int64_t>(Uniform(0, 1) * (hi - lo));
  }

 private:
  std::uint64_t state_;
};

struct Job {
  std::string id, user, team;
  std::int64_t first_gpu = 0, gpus = 0;
  double achieved = 0;  // the job's typical achieved fraction
};

// Zipf-sized jobs over the fleet's GPUs, in whole nodes where the fleet allows it.
std::vector<Job> MakeJobs(const SimOptions& o) {
  double harmonic = 0;
  for (std::int64_t j = 0; j < o.jobs; ++j) harmonic += 1.0 / static_cast<double>(j + 1);
  std::vector<Job> jobs;
  std::int64_t next = 0;
  Draw d(17);
  for (std::int64_t j = 0; j < o.jobs && next < o.gpus; ++j) {
    std::int64_t size =
        static_cast<std::int64_t>(static_cast<double>(o.gpus) / (harmonic * static_cast<double>(j + 1)));
    size = std::max<std::int64_t>(o.gpus_per_node, size / o.gpus_per_node * o.gpus_per_node);
    if (j + 1 == o.jobs || next + size > o.gpus) size = o.gpus - next;
    std::int64_t user = (j * 7) % 40;
    jobs.push_back({fmt::format("job-{:03}", j), fmt::format("user-{:02}", user),
                    fmt::format("team-{}", user % 8), next, size, d.Uniform(0.15, 0.6)});
    next += size;
  }
  return jobs;
}

constexpr const char* kKernels[] = {"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64",
                                    "flash_fwd_kernel",
                                    "flash_bwd_dq_dk_dv_loop_kernel",
                                    "ncclDevKernel_AllReduce_Sum_bf16_RING_LL",
                                    "ncclDevKernel_AllGather_RING_LL",
                                    "ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL",
                                    "vectorized_elementwise_kernel<4, BinaryFunctor<float>>",
                                    "layer_norm_kernel",
                                    "softmax_warp_forward",
                                    "cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4",
                                    "ampere_fp16_s16816gemm_fp16_256x128_ldg8_f2f_nn",
                                    "reduce_kernel<512, 1>",
                                    "indexSelectLargeIndex",
                                    "fused_adam_kernel",
                                    "rotary_embedding_kernel",
                                    "rms_norm_kernel",
                                    "silu_and_mul_kernel",
                                    "paged_attention_v2_kernel",
                                    "topk_kernel",
                                    "embedding_backward_kernel"};
constexpr const char* kOps[] = {"aten::mm",        "aten::bmm",   "aten::_flash_attention_forward",
                                "aten::add_",      "aten::mul",   "aten::layer_norm",
                                "nccl:all_reduce", "aten::copy_", "aten::softmax",
                                "aten::embedding"};
constexpr const char* kLayers[] = {"LlamaAttention", "LlamaMLP", "LlamaRMSNorm",
                                   "Embedding",      "Linear",   "TransformerBlock"};
constexpr const char* kLosses[] = {"compute_inefficiency", "memory_bound", "exposed_communication",
                                   "host_bound_idle"};
struct LeverRow {
  const char* lever;
  double value;
};
constexpr LeverRow kLevers[] = {
    {"overlap-comm", 0}, {"cuda-graphs", 0}, {"batch-scale", 2}, {"batch-scale", 4}, {"batch-scale", 8}};

// Cells by column name, the rest zero or empty: a row of `table` that names what it sets.
class RowMaker {
 public:
  explicit RowMaker(TableId id) : table_(Table(id)) {}
  Row Make(const Row& common, std::initializer_list<std::pair<std::string_view, Cell>> cells) const {
    Row r = common;
    for (std::size_t i = r.size(); i < table_.columns.size(); ++i) {
      const auto t = table_.columns[i].type;
      r.emplace_back(t == ColumnType::kInt     ? Cell(std::int64_t{0})
                     : t == ColumnType::kFloat ? Cell(0.0)
                                               : Cell(std::string()));
    }
    for (const auto& [name, value] : cells) {
      for (std::size_t i = 0; i < table_.columns.size(); ++i) {
        if (table_.columns[i].name == name) r[i] = value;
      }
    }
    return r;
  }

 private:
  const TableSpec& table_;
};

// One GPU's row set for one window.
void AddAnalysis(const SimOptions& o, const Job& job, std::int64_t gpu, std::int64_t window, Batch& b) {
  Draw d(Mix(static_cast<std::uint64_t>(gpu) * 1'000'003 + static_cast<std::uint64_t>(window)));
  const std::int64_t rank = gpu - job.first_gpu;
  const std::int64_t at_ns = (o.start_s + window * o.window_s) * 1'000'000'000 + d.Int(0, 2'000'000'000);
  const Row common = {fmt::format("{:016x}{:016x}", Mix(static_cast<std::uint64_t>(gpu)),
                                  Mix(static_cast<std::uint64_t>(window) ^ 0x5eed)),
                      job.id, at_ns, fmt::format("node-{:04}", gpu / o.gpus_per_node)};
  const double wall = static_cast<double>(o.window_s);
  const double achieved = std::clamp(job.achieved * d.Uniform(0.8, 1.2), 0.01, 0.95);
  const double useful = wall * achieved, lost = wall - useful, utilization = d.Uniform(0.85, 1.0);
  const double price = 4.0;
  static const RowMaker jobs(TableId::kJobs), ranks(TableId::kRankVerdicts), bills(TableId::kBills),
      kernels(TableId::kKernelAggregates), ops(TableId::kOpAggregates), layers(TableId::kLayerTypes),
      levers(TableId::kLeverProjections), steps(TableId::kSteps), collectives(TableId::kRankCollectives),
      cranks(TableId::kClusterRanks), csteps(TableId::kClusterSteps), stragglers(TableId::kStragglers);
  const std::string gpu_name = "NVIDIA H100 SXM 80GB";
  b[TableId::kJobs].push_back(jobs.Make(common, {{"user_label", job.user},
                                                 {"team_label", job.team},
                                                 {"labels", "team=" + job.team + ",user=" + job.user},
                                                 {"ranks", std::int64_t{1}},
                                                 {"gpu", gpu_name},
                                                 {"peak_dtype", "bf16"},
                                                 {"wall_s", wall},
                                                 {"useful_s", useful},
                                                 {"kernel_union_s", wall * utilization},
                                                 {"achieved", achieved},
                                                 {"utilization", utilization},
                                                 {"loss_compute_inefficiency_s", lost * 0.5},
                                                 {"loss_exposed_communication_s", lost * 0.3},
                                                 {"loss_host_bound_idle_s", lost * 0.2},
                                                 {"mfu", -1.0}}));
  b[TableId::kRankVerdicts].push_back(ranks.Make(common, {{"rank", rank},
                                                          {"gpu", gpu_name},
                                                          {"format", "native"},
                                                          {"wall_s", wall},
                                                          {"useful_s", useful},
                                                          {"achieved", achieved},
                                                          {"utilization", utilization},
                                                          {"kernels", d.Int(2'000, 20'000)}}));
  b[TableId::kBills].push_back(bills.Make(common, {{"gpus", std::int64_t{1}},
                                                   {"price_per_gpu_hour", price},
                                                   {"gpu_hours", wall / 3600},
                                                   {"spend", wall / 3600 * price},
                                                   {"computed", useful / 3600 * price},
                                                   {"paid_never_computed", lost / 3600 * price}}));
  // Each job runs 8 of the kernels, 4 ops and 3 module types, picked by its index.
  const std::size_t j = static_cast<std::size_t>(job.first_gpu * 31 + job.gpus);
  double left = lost;
  for (std::size_t k = 0; k < 8; ++k) {
    const double share = k == 7 ? 1.0 : d.Uniform(0.05, 0.3);
    const double time = wall * utilization / 8, kernel_lost = left * share;
    left -= kernel_lost;
    b[TableId::kKernelAggregates].push_back(
        kernels.Make(common, {{"rank", rank},
                              {"gpu", gpu_name},
                              {"name", kKernels[(j + k * 3) % std::size(kKernels)]},
                              {"op", kOps[(j + k) % std::size(kOps)]},
                              {"bound", "compute"},
                              {"loss", kLosses[k % 4]},
                              {"calls", d.Int(10, 5'000)},
                              {"time_s", time},
                              {"lost_s", kernel_lost},
                              {"useful_s", std::max(0.0, time - kernel_lost)}}));
  }
  for (std::size_t k = 0; k < 4; ++k) {
    b[TableId::kOpAggregates].push_back(ops.Make(common, {{"rank", rank},
                                                          {"gpu", gpu_name},
                                                          {"name", kOps[(j + k * 2) % std::size(kOps)]},
                                                          {"calls", d.Int(10, 5'000)},
                                                          {"time_s", wall / 4 * utilization},
                                                          {"lost_s", lost / 4 * d.Uniform(0.5, 1.5)}}));
  }
  for (std::size_t k = 0; k < 3; ++k) {
    const double t = wall / 3 * utilization;
    b[TableId::kLayerTypes].push_back(layers.Make(common, {{"gpu", gpu_name},
                                                           {"type", kLayers[(j + k) % std::size(kLayers)]},
                                                           {"instances", d.Int(1, 80)},
                                                           {"calls", d.Int(100, 10'000)},
                                                           {"gpu_time_s", t},
                                                           {"useful_s", t * achieved},
                                                           {"lost_s", t * (1 - achieved)}}));
  }
  for (const auto& l : kLevers) {
    const double gain = d.Uniform(1.0, 1.6);
    b[TableId::kLeverProjections].push_back(
        levers.Make(common, {{"lever", l.lever},
                             {"value", l.value},
                             {"gpus", std::int64_t{1}},
                             {"wall_s", wall},
                             {"projected_wall_s", wall / gain},
                             {"throughput_gain", gain},
                             {"recoverable_gpu_s", wall * (1 - 1 / gain)},
                             {"out_of_range", std::int64_t{d.Uniform(0, 1) < 0.02}},
                             {"price_per_gpu_hour", price}}));
  }
  b[TableId::kClusterRanks].push_back(cranks.Make(common, {{"rank", rank},
                                                           {"window_start_ns", at_ns},
                                                           {"window_end_ns", at_ns + 2'000'000'000},
                                                           {"collectives", std::int64_t{8}},
                                                           {"steps", std::int64_t{2}}}));
  for (std::int64_t s = 0; s < 2; ++s) {
    const std::int64_t step_start = at_ns + s * 1'000'000'000;
    b[TableId::kSteps].push_back(steps.Make(common, {{"rank", rank},
                                                     {"gpu", gpu_name},
                                                     {"step", window * 2 + s},
                                                     {"start_ns", step_start},
                                                     {"end_ns", step_start + 1'000'000'000},
                                                     {"wall_s", 1.0},
                                                     {"useful_s", achieved},
                                                     {"achieved", achieved},
                                                     {"utilization", utilization}}));
    b[TableId::kClusterSteps].push_back(csteps.Make(
        common, {{"rank", rank}, {"step", window * 2 + s}, {"compute_s", 0.8}, {"exposed_wait_s", 0.1}}));
    for (std::int64_t c = 0; c < 4; ++c) {
      const std::int64_t enter = step_start + 200'000'000 * (c + 1);
      b[TableId::kRankCollectives].push_back(
          collectives.Make(common, {{"rank", rank},
                                    {"comm_group", job.id + ":world"},
                                    {"kind", "all_reduce"},
                                    {"seq", window * 8 + s * 4 + c},
                                    {"bytes", std::int64_t{1} << 26},
                                    {"group_size", job.gpus},
                                    {"group_rank", rank},
                                    {"start_ns", enter},
                                    {"end_ns", enter + d.Int(1'000'000, 20'000'000)},
                                    {"step", window * 2 + s},
                                    {"p2p", std::int64_t{0}},
                                    {"peer", std::int64_t{-1}}}));
    }
  }
  if (d.Uniform(0, 1) < 0.01) {  // one window in a hundred names its GPU a straggler
    b[TableId::kStragglers].push_back(stragglers.Make(common, {{"rank", rank},
                                                               {"kind", "all_reduce"},
                                                               {"caused_wait_s", d.Uniform(0.01, 0.5)},
                                                               {"capacity_fraction", d.Uniform(0.001, 0.1)},
                                                               {"late_collectives", d.Int(1, 8)},
                                                               {"collectives", std::int64_t{8}},
                                                               {"steps", std::int64_t{2}},
                                                               {"mean_late_s", d.Uniform(0.001, 0.05)}}));
  }
}

int Run(const SimOptions& o) {
  const std::vector<Job> jobs = MakeJobs(o);
  std::vector<const Job*> job_of(static_cast<std::size_t>(o.gpus));
  for (const auto& j : jobs) {
    for (std::int64_t g = j.first_gpu; g < j.first_gpu + j.gpus; ++g)
      job_of[static_cast<std::size_t>(g)] = &j;
  }
  if (o.init_schema) {
    auto store = ClickHouseStore::Open(o.clickhouse);
    if (!store) return std::fprintf(stderr, "fleet_sim: %s\n", store.error().message.c_str()), 1;
    if (auto s = (*store)->EnsureSchema(); !s)
      return std::fprintf(stderr, "fleet_sim: %s\n", s.error().message.c_str()), 1;
  }
  const std::int64_t windows = o.hours * 3600 / o.window_s;
  const std::int64_t analyses = windows * o.gpus;
  std::atomic<std::int64_t> next{0}, rows{0}, make_ns{0}, insert_ns{0};
  std::atomic<bool> failed{false};
  auto t0 = std::chrono::steady_clock::now();
  auto worker = [&] {
    auto store = ClickHouseStore::Open(o.clickhouse);
    if (!store) {
      std::fprintf(stderr, "fleet_sim: %s\n", store.error().message.c_str());
      failed = true;
      return;
    }
    // Analyses in time order (window-major), --batch at a time: what a fleet's outboxes send.
    for (std::int64_t first = next.fetch_add(o.batch); first < analyses && !failed;
         first = next.fetch_add(o.batch)) {
      auto made = std::chrono::steady_clock::now();
      Batch b;
      for (std::int64_t a = first; a < std::min(analyses, first + o.batch); ++a) {
        const std::int64_t window = a / o.gpus, gpu = a % o.gpus;
        AddAnalysis(o, *job_of[static_cast<std::size_t>(gpu)], gpu, window, b);
      }
      auto inserting = std::chrono::steady_clock::now();
      // Fresh rows, as an outbox's first send of them (a retry asks first which keys are there).
      auto n = (*store)->Insert(b, ClickHouseStore::Sent::kNever);
      make_ns += std::chrono::nanoseconds(inserting - made).count();
      insert_ns += std::chrono::nanoseconds(std::chrono::steady_clock::now() - inserting).count();
      if (!n) {
        std::fprintf(stderr, "fleet_sim: %s\n", n.error().message.c_str());
        failed = true;
        return;
      }
      rows += static_cast<std::int64_t>(*n);
    }
  };
  std::vector<std::thread> threads;
  for (std::int64_t t = 0; t < o.threads; ++t) threads.emplace_back(worker);
  for (auto& t : threads) t.join();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (failed) return 1;
  // Thread-seconds making rows and inside Insert (its pre-check reads and its INSERTs).
  std::printf(
      "jobs=%zu gpus=%lld windows=%lld analyses=%lld rows=%lld seconds=%.3f rows_per_s=%.0f "
      "make_thread_s=%.3f "
      "insert_thread_s=%.3f\n",
      jobs.size(), static_cast<long long>(o.gpus), static_cast<long long>(windows),
      static_cast<long long>(analyses), static_cast<long long>(rows.load()), seconds,
      static_cast<double>(rows.load()) / seconds, static_cast<double>(make_ns.load()) * 1e-9,
      static_cast<double>(insert_ns.load()) * 1e-9);
  return 0;
}

}  // namespace
}  // namespace plasmient::store

int main(int argc, char** argv) {
  using plasmient::ParseInt;
  plasmient::store::SimOptions o;
  for (int i = 1; i < argc; ++i) {
    std::string_view flag = argv[i];
    if (flag == "--init-schema") {
      o.init_schema = true;
      continue;
    }
    if (i + 1 >= argc) return std::fprintf(stderr, "fleet_sim: %s needs a value\n", argv[i]), 2;
    std::string_view value = argv[++i];
    std::int64_t* number = flag == "--gpus"            ? &o.gpus
                           : flag == "--gpus-per-node" ? &o.gpus_per_node
                           : flag == "--jobs"          ? &o.jobs
                           : flag == "--hours"         ? &o.hours
                           : flag == "--window-s"      ? &o.window_s
                           : flag == "--threads"       ? &o.threads
                           : flag == "--batch"         ? &o.batch
                           : flag == "--start-s"       ? &o.start_s
                                                       : nullptr;
    if (number) {
      auto v = ParseInt(value);
      if (!v || *v <= 0)
        return std::fprintf(stderr, "fleet_sim: %s %s: expected a positive integer\n", argv[i - 1], argv[i]),
               2;
      *number = *v;
    } else if (flag == "--url") {
      o.clickhouse.url = value;
    } else if (flag == "--db") {
      o.clickhouse.database = value;
    } else if (flag == "--cluster") {
      o.clickhouse.cluster = value;
    } else if (flag == "--shard-db") {
      o.clickhouse.shard_database = value;
    } else {
      return std::fprintf(stderr, "fleet_sim: unknown flag %s\n", argv[i - 1]), 2;
    }
  }
  o.clickhouse.timeout_s = 120;
  return plasmient::store::Run(o);
}
