// GPU_METRICS read into the device tier's samples, on exports built in the shapes Nsight Systems
// writes them (docs/nsys.md, "GPU metrics").
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <map>
#include <tuple>

#include "ingest/nsys_sqlite/nsys_sqlite_reader.h"
#include "ingest/testing/nsys_test_db.h"

namespace plasmient::ingest::nsys {
namespace {

using model::Dq;
using testing::TestDb;

constexpr std::int64_t kEpochNs = 1'700'000'000'000'000'000;
// The high bits public exports carry in typeId; the low byte names the GPU.
constexpr std::int64_t kTypeBase = 0x1000100000000;

// Session start, strings, one kernel on CUDA device 0 from 10 us to 20 us, and TARGET_INFO_GPU
// with GPUs 3 and 7; `cuda_map` adds TARGET_INFO_CUDA_DEVICE saying CUDA device 0 is GPU 7.
void WriteExport(TestDb& db, bool cuda_map) {
  db.Exec(R"sql(
    CREATE TABLE META_DATA_EXPORT (name TEXT NOT NULL, value TEXT);
    INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_SCHEMA_VERSION', '3.13.2'), ('EXPORT_SCHEMA_VERSION_MAJOR', '3');
    CREATE TABLE TARGET_INFO_SESSION_START_TIME (utcEpochNs INTEGER, utcTime TEXT, localTime TEXT);
    INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES (1700000000000000000, '', '');
    CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
    INSERT INTO StringIds VALUES (1, 'gemm_kernel');
    CREATE TABLE TARGET_INFO_GPU (id INTEGER, name TEXT, smCount INTEGER);
    INSERT INTO TARGET_INFO_GPU VALUES (3, 'NVIDIA H100 80GB HBM3', 132), (7, 'NVIDIA H100 80GB HBM3', 132);
    CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
      contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,
      shortName INTEGER NOT NULL);
    INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (10000, 20000, 0, 1, 7, 1, 16777216, 1);
    CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER NOT NULL,
      globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL);
  )sql");
  if (cuda_map) {
    db.Exec(R"sql(
      CREATE TABLE TARGET_INFO_CUDA_DEVICE (gpuId INTEGER, cudaId INTEGER, pid INTEGER, uuid TEXT);
      INSERT INTO TARGET_INFO_CUDA_DEVICE VALUES (7, 0, 1, '');
    )sql");
  }
}

// The current schema: rawTimestamp, integer values, names keyed by (typeId, metricId). Each GPU
// numbers its metrics its own way (ids are "not assumed to be stable"), and one name is one
// Plasmient does not read. Samples every 2 us from 6 us to 16 us.
void WriteGpuMetrics(TestDb& db, const std::vector<std::int64_t>& gpus) {
  db.Exec(R"sql(
    CREATE TABLE TARGET_INFO_GPU_METRICS (typeId INTEGER NOT NULL, sourceId INTEGER NOT NULL,
      typeName TEXT NOT NULL, metricId INTEGER NOT NULL, metricName TEXT NOT NULL);
    CREATE TABLE GPU_METRICS (rawTimestamp INTEGER NOT NULL, timestamp INTEGER NOT NULL, typeId INTEGER NOT NULL,
      metricId INTEGER NOT NULL, value INTEGER NOT NULL);
  )sql");
  std::string sql;
  for (std::int64_t gpu : gpus) {
    std::int64_t type = kTypeBase + gpu, shift = gpu;  // metric ids differ by GPU
    sql += fmt::format(
        "INSERT INTO TARGET_INFO_GPU_METRICS VALUES ({0}, {1}, 'GPU', {2}, 'GR Active [Throughput %]'),"
        " ({0}, {1}, 'GPU', {3}, 'SMs Active [Throughput %]'), ({0}, {1}, 'GPU', {4}, 'Tensor Active "
        "[Throughput %]'),"
        " ({0}, {1}, 'GPU', {5}, 'DRAM Read Bandwidth [Throughput %]'),"
        " ({0}, {1}, 'GPU', {6}, 'DRAM Write Bandwidth [Throughput %]');",
        type, kTypeBase, 1 + shift, 2 + shift, 3 + shift, 4 + shift, 5 + shift);
    for (int i = 0; i < 6; ++i) {
      std::int64_t ts = 6000 + 2000 * i;
      // GR 99; SM 80 + i; tensor 10·i; DRAM read 5·i, write 2·i (written first for odd i).
      std::string read = fmt::format("({0}, {0}, {1}, {2}, {3})", ts, type, 4 + shift, 5 * i);
      std::string write = fmt::format("({0}, {0}, {1}, {2}, {3})", ts, type, 5 + shift, 2 * i);
      sql += fmt::format(
          "INSERT INTO GPU_METRICS VALUES ({0}, {0}, {1}, {2}, 99), ({0}, {0}, {1}, {3}, {4}),"
          " ({0}, {0}, {1}, {5}, {6}), {7}, {8};",
          ts, type, 1 + shift, 2 + shift, 80 + i, 3 + shift, 10 * i, i % 2 ? write : read,
          i % 2 ? read : write);
    }
  }
  db.Exec(sql);
}

model::Trace ReadOk(const std::string& path) {
  auto trace = ReadNsysSqlite(path);
  EXPECT_TRUE(trace.has_value()) << (trace ? "" : trace.error().message);
  return trace ? std::move(*trace) : model::Trace{};
}

// (metric, device, ts since the session start) -> value.
std::map<std::tuple<std::string, std::int32_t, std::int64_t>, double> SamplesOf(const model::Trace& t) {
  std::map<std::tuple<std::string, std::int32_t, std::int64_t>, double> out;
  for (std::size_t i = 0; i < t.samples.size(); ++i) {
    auto key = std::tuple{std::string(t.Str(t.samples.metric[i])), t.samples.device[i],
                          t.samples.ts_ns[i] - kEpochNs};
    EXPECT_TRUE(out.emplace(key, t.samples.value[i]).second) << "a sample twice";
  }
  return out;
}

TEST(NsysGpuMetrics, SamplesOfTheProcessGpuBecomeDeviceTierRows) {
  TestDb db("gpu_metrics_mapped.sqlite");
  WriteExport(db, /*cuda_map=*/true);
  WriteGpuMetrics(db, {3, 7});
  db.Close();
  model::Trace t = ReadOk(db.path());
  auto samples = SamplesOf(t);
  // GPU 7 is CUDA device 0; GPU 3 belongs to another process: its 6 samples x 5 metrics are skipped.
  ASSERT_EQ(samples.size(), 18u);
  for (int i = 0; i < 6; ++i) {
    std::int64_t ts = 6000 + 2000 * i;
    EXPECT_EQ((samples[{std::string(model::kSmActiveMetric), 0, ts}]), 80 + i);
    EXPECT_EQ((samples[{std::string(model::kTensorActiveMetric), 0, ts}]), 10 * i);
    EXPECT_EQ((samples[{std::string(model::kDramActiveMetric), 0, ts}]), 7 * i) << "read + write at " << ts;
  }
  EXPECT_EQ(t.quality.Get(Dq::kGpuMetricOtherGpu), 30);
  EXPECT_EQ(t.quality.Get(Dq::kGpuMetricUnread), 6);  // GR Active of GPU 7
  EXPECT_EQ(t.quality.Get(Dq::kGpuMetricDramUnpaired), 0);
}

TEST(NsysGpuMetrics, WithoutACudaMapTheLowByteIsTheDevice) {
  TestDb db("gpu_metrics_unmapped.sqlite");
  WriteExport(db, /*cuda_map=*/false);
  WriteGpuMetrics(db, {0, 3});
  db.Close();
  model::Trace t = ReadOk(db.path());
  auto samples = SamplesOf(t);
  ASSERT_EQ(samples.size(), 36u);
  EXPECT_EQ((samples[{std::string(model::kTensorActiveMetric), 3, 16000}]), 50);
  EXPECT_EQ((samples[{std::string(model::kSmActiveMetric), 0, 6000}]), 80);
  EXPECT_EQ(t.quality.Get(Dq::kGpuMetricOtherGpu), 0);
  EXPECT_EQ(t.quality.Get(Dq::kGpuMetricUnread), 12);
}

// An older shape: no rawTimestamp, REAL values, names by metricId alone; a DRAM read whose
// write never came, and a sample of an id the names table lacks.
TEST(NsysGpuMetrics, OlderShapeAndOddRowsAreCountedNotGuessed) {
  TestDb db("gpu_metrics_old.sqlite");
  WriteExport(db, /*cuda_map=*/false);
  db.Exec(R"sql(
    CREATE TABLE TARGET_INFO_GPU_METRICS (metricId INTEGER, metricName TEXT);
    INSERT INTO TARGET_INFO_GPU_METRICS VALUES (1, 'Tensor Active [Throughput %]'), (2, 'DRAM Read Bandwidth [Throughput %]'),
      (3, 'DRAM Write Bandwidth [Throughput %]'), (4, 'Tensor Active / FP16 Active [Throughput %]');
    CREATE TABLE GPU_METRICS (timestamp INTEGER, typeId INTEGER, metricId INTEGER, value REAL);
    INSERT INTO GPU_METRICS VALUES (1000, 0, 1, 12.5), (1000, 0, 2, 30.0), (1000, 0, 3, 20.0),
      (2000, 0, 1, 37.5), (2000, 0, 2, 31.0), (3000, 0, 2, 32.0), (3000, 0, 3, 21.0), (3000, 0, 4, 70.0),
      (3000, 0, 9, 1.0);
  )sql");
  db.Close();
  model::Trace t = ReadOk(db.path());
  auto samples = SamplesOf(t);
  ASSERT_EQ(samples.size(), 4u);
  EXPECT_EQ((samples[{std::string(model::kTensorActiveMetric), 0, 1000}]), 12.5);
  EXPECT_EQ((samples[{std::string(model::kTensorActiveMetric), 0, 2000}]), 37.5);
  EXPECT_EQ((samples[{std::string(model::kDramActiveMetric), 0, 1000}]), 50.0);
  EXPECT_EQ((samples[{std::string(model::kDramActiveMetric), 0, 3000}]), 53.0);
  EXPECT_EQ(t.quality.Get(Dq::kGpuMetricDramUnpaired), 1);  // the read at 2 us
  EXPECT_EQ(t.quality.Get(Dq::kGpuMetricUnread), 2);        // FP16-mixed tensor, unknown id 9
}

TEST(NsysGpuMetrics, NoTableNoSamplesAndNoCounters) {
  TestDb db("gpu_metrics_absent.sqlite");
  WriteExport(db, /*cuda_map=*/true);
  db.Close();
  model::Trace t = ReadOk(db.path());
  EXPECT_EQ(t.samples.size(), 0u);
  EXPECT_EQ(t.gpu.size(), 1u);
  EXPECT_EQ(t.quality.Get(Dq::kGpuMetricUnread), 0);
  EXPECT_EQ(t.quality.Get(Dq::kMissingTable), 0);
}

TEST(NsysGpuMetrics, SamplesWithoutTheirNamesTableAreUnread) {
  TestDb db("gpu_metrics_nameless.sqlite");
  WriteExport(db, /*cuda_map=*/false);
  db.Exec(R"sql(
    CREATE TABLE GPU_METRICS (timestamp INTEGER, typeId INTEGER, metricId INTEGER, value REAL);
    INSERT INTO GPU_METRICS VALUES (1000, 0, 1, 12.5), (2000, 0, 1, 13.5);
  )sql");
  db.Close();
  model::Trace t = ReadOk(db.path());
  EXPECT_EQ(t.samples.size(), 0u);
  EXPECT_EQ(t.quality.Get(Dq::kGpuMetricUnread), 2);
  EXPECT_EQ(t.quality.Get(Dq::kMissingTable), 1);
}

}  // namespace
}  // namespace plasmient::ingest::nsys
