// The real Nsight Systems export in the shared trace set, checked against SQL run directly.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <set>

#include "ingest/nsys_sqlite/nsys_sqlite_reader.h"

namespace plasmient::ingest::nsys {
namespace {

using model::Dq;
using model::GpuKind;

constexpr const char* kCloverleaf = "pipit/cloverleaf-nsys/perlmutter-cloverleaf-cuda.sqlite";

std::string SharedTrace(const char* relative) {
  const char* root = std::getenv("PLASMIENT_SHARED_TRACES");
  if (root == nullptr) return {};
  std::string path = std::string(root) + "/" + relative;
  return std::filesystem::exists(path) ? path : std::string();
}

// Integers of the first row of `sql`, run on `path` read-only.
std::vector<std::int64_t> QueryRow(const std::string& path, const char* sql) {
  sqlite3* db = nullptr;
  std::vector<std::int64_t> out;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db, sql, -1, &stmt, nullptr) == SQLITE_OK && sqlite3_step(stmt) == SQLITE_ROW) {
      for (int i = 0; i < sqlite3_column_count(stmt); ++i) out.push_back(sqlite3_column_int64(stmt, i));
    }
    sqlite3_finalize(stmt);
  }
  sqlite3_close(db);
  return out;
}

class CloverleafNsys : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = SharedTrace(kCloverleaf);
    if (path_.empty())
      GTEST_SKIP() << "PLASMIENT_SHARED_TRACES/" << kCloverleaf << " not found; real-trace test skipped";
    auto trace = ReadNsysSqlite(path_);
    ASSERT_TRUE(trace.has_value()) << trace.error().message;
    trace_ = std::move(*trace);
  }
  std::int64_t Count(GpuKind kind) const { return std::ranges::count(trace_.gpu.kind, kind); }

  std::string path_;
  model::Trace trace_;
};

// Its PROFILER_OVERHEAD rows (CUPTI instrumentation, resource management, buffer flushes, the
// profiler's own initialization) become the trace's profiler overhead, row for row and time for time.
TEST_F(CloverleafNsys, ProfilerOverheadRowsMatchSql) {
  auto sql = QueryRow(path_, "SELECT count(*), sum(\"end\" - start), min(start) FROM PROFILER_OVERHEAD");
  ASSERT_EQ(sql.size(), 3u);
  ASSERT_GT(sql[0], 0);
  ASSERT_EQ(static_cast<std::int64_t>(trace_.overhead.size()), sql[0]);
  std::int64_t total = 0;
  for (std::size_t i = 0; i < trace_.overhead.size(); ++i)
    total += trace_.overhead.end_ns[i] - trace_.overhead.start_ns[i];
  EXPECT_EQ(total, sql[1]);
  EXPECT_EQ(*std::ranges::min_element(trace_.overhead.start_ns), sql[2] + trace_.info.base_time_ns);
  EXPECT_NE(trace_.overhead.tid[0], model::kNoId);  // nsys says which thread
}

TEST_F(CloverleafNsys, KernelCountAndTimeMatchSql) {
  auto sql = QueryRow(path_, "SELECT count(*), sum(end - start) FROM CUPTI_ACTIVITY_KIND_KERNEL");
  ASSERT_EQ(sql.size(), 2u);
  std::int64_t kernels = 0, kernel_ns = 0;
  for (std::size_t i = 0; i < trace_.gpu.size(); ++i) {
    if (trace_.gpu.kind[i] != GpuKind::kKernel) continue;
    ++kernels;
    kernel_ns += trace_.gpu.end_ns[i] - trace_.gpu.start_ns[i];
  }
  EXPECT_EQ(kernels, sql[0]);
  EXPECT_EQ(kernels, 1312);
  EXPECT_EQ(kernel_ns, sql[1]);
  EXPECT_TRUE(std::ranges::is_sorted(trace_.gpu.start_ns));
}

TEST_F(CloverleafNsys, EveryKernelJoinsItsRuntimeRowByCorrelationAndPid) {
  std::set<std::pair<std::int64_t, std::int64_t>> launches;
  for (std::size_t i = 0; i < trace_.api.size(); ++i)
    launches.insert({trace_.api.pid[i], trace_.api.correlation[i]});
  std::int64_t joined = 0;
  for (std::size_t i = 0; i < trace_.gpu.size(); ++i) {
    if (trace_.gpu.kind[i] != GpuKind::kKernel) continue;
    EXPECT_NE(trace_.gpu.pid[i], model::kNoId);
    joined += launches.contains({trace_.gpu.pid[i], trace_.gpu.correlation[i]});
  }
  EXPECT_EQ(joined, Count(GpuKind::kKernel));
  auto api = QueryRow(path_, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME");
  ASSERT_EQ(api.size(), 1u);
  EXPECT_EQ(static_cast<std::int64_t>(trace_.api.size()), api[0]);
  EXPECT_EQ(trace_.quality.Get(Dq::kDuplicateApiRow), 0);
  auto launch_names =
      std::ranges::count_if(trace_.api.name, [&](StringId n) { return trace_.Str(n) == "cudaLaunchKernel"; });
  EXPECT_EQ(launch_names, 1312);
}

TEST_F(CloverleafNsys, DeviceInfo) {
  ASSERT_FALSE(trace_.devices.empty());
  auto device0 = std::ranges::find(trace_.devices, 0, &model::DeviceInfo::id);
  ASSERT_NE(device0, trace_.devices.end());
  EXPECT_EQ(device0->name, "NVIDIA A100-SXM4-80GB");
  EXPECT_EQ(device0->sm_count, 108);
  EXPECT_EQ(device0->cc_major, 8);
  EXPECT_EQ(device0->cc_minor, 0);
  EXPECT_EQ(device0->sm_clock_mhz, 1410);
  EXPECT_EQ(device0->memory_bandwidth_bytes_per_s, 2039040000000);
}

TEST_F(CloverleafNsys, MemcpyCountsAndBytes) {
  auto sql = QueryRow(
      path_,
      "SELECT count(*), sum(bytes), sum(copyKind = 1), sum(copyKind = 2) FROM CUPTI_ACTIVITY_KIND_MEMCPY");
  ASSERT_EQ(sql.size(), 4u);
  EXPECT_EQ(Count(GpuKind::kMemcpy), sql[0]);
  EXPECT_EQ(Count(GpuKind::kMemset), 0);  // this capture has no memset table
  std::int64_t bytes = 0, htod = 0, dtoh = 0;
  for (std::size_t i = 0; i < trace_.gpu.size(); ++i) {
    if (trace_.gpu.kind[i] != GpuKind::kMemcpy) continue;
    bytes += trace_.gpu.bytes[i];
    htod += trace_.Str(trace_.gpu.name[i]) == "Memcpy HtoD (Pageable -> Device)";
    dtoh += trace_.Str(trace_.gpu.name[i]) == "Memcpy DtoH (Device -> Pageable)";
  }
  EXPECT_EQ(bytes, sql[1]);
  EXPECT_EQ(htod, sql[2]);
  EXPECT_EQ(dtoh, sql[3]);
}

TEST_F(CloverleafNsys, EpochTimeAndIdentity) {
  auto sql = QueryRow(path_,
                      "SELECT utcEpochNs, (SELECT min(start) FROM CUPTI_ACTIVITY_KIND_KERNEL) "
                      "FROM TARGET_INFO_SESSION_START_TIME");
  ASSERT_EQ(sql.size(), 2u);
  EXPECT_EQ(trace_.info.base_time_ns, sql[0]);
  auto first_kernel = std::ranges::find(trace_.gpu.kind, GpuKind::kKernel) - trace_.gpu.kind.begin();
  EXPECT_EQ(trace_.gpu.start_ns[first_kernel], sql[0] + sql[1]);
  EXPECT_EQ(trace_.info.format, "nsys-sqlite");
  EXPECT_EQ(trace_.info.rank, 0);  // PMI_RANK / SLURM_PROCID in the capture's environment
  EXPECT_EQ(trace_.info.world_size, 1);
  EXPECT_EQ(trace_.info.hostname, "nid008553");
  EXPECT_TRUE(trace_.cpu.size() == 0);  // no NVTX in this capture
}

}  // namespace
}  // namespace plasmient::ingest::nsys
