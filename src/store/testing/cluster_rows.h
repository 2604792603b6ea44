// A store holding one job's ranks, each recorded on its own, for the tests of what reads the
// cluster back from a store (fleet/cluster_query.h, serve/cluster_watch.h).
#pragma once

#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "base/time_units.h"
#include "join/join.h"
#include "store/job_rows.h"
#include "store/sqlite_store.h"
#include "verdict/verdict.h"

namespace plasmient::store::testing {

inline constexpr TimeNs kMs = 1'000'000;

// Rank r's clock runs r ms ahead; rank 2 arrives 3 ms late at each of 6 all-reduces (2 per step).
inline verdict::RankVerdict Rank(std::int64_t rank) {
  verdict::RankVerdict r;
  r.rank = rank;
  r.device.name = "NVIDIA H100 SXM 80GB";
  TimeNs skew = rank * kMs;
  r.run.start_ns = skew;
  r.run.end_ns = skew + 100 * kMs;
  r.run.wall_s = 0.1;
  r.run.useful_s = 0.03;
  r.run.kernel_union_s = 0.09;
  r.run.loss_s[static_cast<std::size_t>(verdict::Loss::kExposedCommunication)] = 0.05;
  for (std::int64_t seq = 0; seq < 6; ++seq) {
    join::CollectiveInstance c;
    c.group = "pg0";
    c.seq = seq;
    c.name = "allreduce";
    c.kind = join::CollectiveKind::kAllReduce;
    c.kernel = "ncclDevKernel_AllReduce_Sum_f32_RING_LL";
    c.group_size = 3;
    c.group_rank = static_cast<std::int32_t>(rank);
    c.bytes = 1 << 20;
    c.step = seq / 2;
    TimeNs exit = 10 * kMs + seq * 12 * kMs;
    c.start_ns = skew + exit - (rank == 2 ? 1 * kMs : 4 * kMs);
    c.end_ns = skew + exit;
    r.collectives.push_back(c);
  }
  verdict::StepFigures s;
  s.number = 0;
  s.figures.wall_s = 0.03;
  s.figures.useful_s = 0.01;
  s.figures.loss_s[static_cast<std::size_t>(verdict::Loss::kMemoryBound)] = 0.005;
  r.steps = {s};
  return r;
}

inline std::filesystem::path TempDb() {
  auto dir =
      std::filesystem::temp_directory_path() / ("plasmient_cluster_rows_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir / "store.sqlite";
}

// Each rank recorded on its own, as `analyze rank.json --db --job j` or serve on its node does.
inline std::unique_ptr<SqliteStore> StoreWithRanks(std::int64_t ranks, std::int64_t at_ns = 100) {
  auto store = SqliteStore::Open(TempDb().string());
  EXPECT_TRUE(store) << store.error().message;
  for (std::int64_t r = 0; r < ranks; ++r) {
    verdict::JobVerdict one;
    one.ranks = {Rank(r)};
    JobContext c{"key" + std::to_string(r) + "-" + std::to_string(at_ns),
                 "j",
                 at_ns + r,
                 "node" + std::to_string(r),
                 {},
                 {}};
    auto n = (*store)->Record(BuildRows(one, c), "rank" + std::to_string(r));
    EXPECT_TRUE(n) << n.error().message;
  }
  return std::move(*store);
}

}  // namespace plasmient::store::testing
