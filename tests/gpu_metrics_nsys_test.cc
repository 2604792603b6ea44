// An Nsight Systems export recorded with GPU metrics sampling, end to end: `plasmient analyze`
// shows its GPU_METRICS samples as Perfetto counter tracks and beside each kernel in the HTML
// report. The export is built here in the shapes Nsight Systems writes (docs/nsys.md, "GPU
// metrics"), with known values; every expected figure is computed from the rows written.
#include <gtest/gtest.h>
#include <simdjson.h>
#include <sqlite3.h>

#include <fmt/format.h>

#include <map>
#include <string>
#include <vector>

#include "tests/test_support.h"

namespace plasmient {
namespace {

constexpr std::int64_t kTypeBase = 0x1000100000000;  // typeId's high bits; the low byte names the GPU

struct Sample {
  std::int64_t ts_ns;
  int sm, tensor, dram_read, dram_write;
};

// Two kernels on CUDA device 0 (GPU 4 of the node, by TARGET_INFO_CUDA_DEVICE): "gemm" at
// 100-300 us and 500-650 us, "copy" at 320-480 us. Samples every 50 us from 50 us to 750 us;
// means that fall on a half would round either way, so none does.
std::vector<Sample> Samples() {
  std::vector<Sample> out;
  for (int i = 1; i <= 15; ++i) out.push_back({i * 50'000, 50 + i, 4 * i, 2 * i, i});
  return out;
}

struct Kernel {
  std::int64_t start, end;
  int name;  // StringIds id
};
const std::vector<Kernel> kKernels = {{100'000, 300'000, 1}, {320'000, 480'000, 2}, {500'000, 650'000, 1}};

void Exec(sqlite3* db, const std::string& sql) {
  char* error = nullptr;
  ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error), SQLITE_OK) << (error ? error : "");
}

std::filesystem::path WriteExport(const std::filesystem::path& dir) {
  std::filesystem::path path = dir / "gpu_metrics.sqlite";
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  std::string sql = R"sql(
    CREATE TABLE META_DATA_EXPORT (name TEXT NOT NULL, value TEXT);
    INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_SCHEMA_VERSION', '3.13.2'), ('EXPORT_SCHEMA_VERSION_MAJOR', '3');
    CREATE TABLE TARGET_INFO_SESSION_START_TIME (utcEpochNs INTEGER, utcTime TEXT, localTime TEXT);
    INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES (1700000000000000000, '', '');
    CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
    INSERT INTO StringIds VALUES (1, 'gemm'), (2, 'copy'), (3, 'cudaLaunchKernel_v7000');
    CREATE TABLE TARGET_INFO_GPU (id INTEGER, name TEXT, smCount INTEGER);
    INSERT INTO TARGET_INFO_GPU VALUES (4, 'NVIDIA H100 80GB HBM3', 132), (5, 'NVIDIA H100 80GB HBM3', 132);
    CREATE TABLE TARGET_INFO_CUDA_DEVICE (gpuId INTEGER, cudaId INTEGER, pid INTEGER, uuid TEXT);
    INSERT INTO TARGET_INFO_CUDA_DEVICE VALUES (4, 0, 9, '');
    CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
      contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,
      shortName INTEGER NOT NULL);
    CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER NOT NULL,
      globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL);
    CREATE TABLE TARGET_INFO_GPU_METRICS (typeId INTEGER NOT NULL, sourceId INTEGER NOT NULL,
      typeName TEXT NOT NULL, metricId INTEGER NOT NULL, metricName TEXT NOT NULL);
    CREATE TABLE GPU_METRICS (rawTimestamp INTEGER NOT NULL, timestamp INTEGER NOT NULL, typeId INTEGER NOT NULL,
      metricId INTEGER NOT NULL, value INTEGER NOT NULL);
  )sql";
  constexpr std::int64_t kPid = 9;
  int correlation = 1;
  for (const Kernel& k : kKernels) {
    sql += fmt::format("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES ({}, {}, 0, {}, {}, 3, 0);",
                       k.start - 20'000, k.start - 15'000, (kPid << 24) | 10, correlation);
    sql += fmt::format("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES ({}, {}, 0, 1, 7, {}, {}, {});",
                       k.start, k.end, correlation++, kPid << 24, k.name);
  }
  // GPU 4 is this process's; GPU 5 is sampled too (--gpu-metrics-devices=all) and must not show.
  for (std::int64_t gpu : {4, 5}) {
    std::int64_t type = kTypeBase + gpu;
    sql += fmt::format(
        "INSERT INTO TARGET_INFO_GPU_METRICS VALUES ({0}, {1}, 'GPU', 0, 'GPC Clock Frequency [MHz]'),"
        " ({0}, {1}, 'GPU', 1, 'SMs Active [Throughput %]'), ({0}, {1}, 'GPU', 2, 'Tensor Active [Throughput "
        "%]'),"
        " ({0}, {1}, 'GPU', 3, 'DRAM Read Bandwidth [Throughput %]'),"
        " ({0}, {1}, 'GPU', 4, 'DRAM Write Bandwidth [Throughput %]');",
        type, kTypeBase);
    for (const Sample& s : Samples()) {
      int bias = gpu == 5 ? 7 : 0;
      sql += fmt::format(
          "INSERT INTO GPU_METRICS VALUES ({0}, {0}, {1}, 0, 1980), ({0}, {0}, {1}, 1, {2}), ({0}, {0}, {1}, "
          "2, {3}),"
          " ({0}, {0}, {1}, 3, {4}), ({0}, {0}, {1}, 4, {5});",
          s.ts_ns, type, s.sm + bias, s.tensor + bias, s.dram_read, s.dram_write);
    }
  }
  Exec(db, sql);
  sqlite3_close(db);
  return path;
}

// The means of the samples inside a kernel's calls, in percent, as the report rounds them.
std::string ExpectedActivity(int name) {
  double sm = 0, tensor = 0, dram = 0;
  int n = 0;
  for (const Kernel& k : kKernels) {
    if (k.name != name) continue;
    for (const Sample& s : Samples()) {
      if (s.ts_ns < k.start || s.ts_ns >= k.end) continue;
      sm += s.sm, tensor += s.tensor, dram += s.dram_read + s.dram_write, ++n;
    }
  }
  EXPECT_GT(n, 0);
  return fmt::format("SM {:.0f}% · tensor {:.0f}% · DRAM {:.0f}%", sm / n, tensor / n, dram / n);
}

TEST(GpuMetricsNsys, CounterTracksInPerfettoAndDeviceActivityInHtml) {
  auto dir = testing::TempDir("gpu_metrics_nsys");
  auto sqlite = WriteExport(dir);
  auto run = testing::RunCommand(fmt::format("{} analyze {} --perfetto {} --html {} -q",
                                             testing::PlasmientBinary(), sqlite.string(),
                                             (dir / "trace.json").string(), (dir / "report.html").string()));
  ASSERT_EQ(run.exit_code, 0) << run.out;

  // Perfetto: one counter track per activity of the process's GPU, its values as written.
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.load((dir / "trace.json").string()).get(doc), simdjson::SUCCESS);
  std::map<std::string, std::vector<std::pair<double, double>>> tracks;  // name -> (ts us, value)
  for (simdjson::dom::element e : doc["traceEvents"].get_array()) {
    std::string_view ph, name;
    if (e["ph"].get(ph) || ph != "C" || e["name"].get(name) || !name.starts_with("device · ")) continue;
    double ts = 0, value = 0;
    ASSERT_EQ(e["ts"].get(ts), simdjson::SUCCESS);
    ASSERT_EQ(e["args"]["value"].get(value), simdjson::SUCCESS);
    tracks[std::string(name)].emplace_back(ts, value);
  }
  ASSERT_EQ(tracks.size(), 3u) << "SM, tensor and DRAM activity of one GPU";
  const auto samples = Samples();
  auto check = [&](const std::string& track, auto value_of) {
    const auto& points = tracks[track];
    ASSERT_EQ(points.size(), samples.size()) << track;
    for (std::size_t i = 0; i < points.size(); ++i) {
      EXPECT_DOUBLE_EQ(points[i].second, value_of(samples[i])) << track << " #" << i;
      EXPECT_NEAR(points[i].first - points[0].first, (samples[i].ts_ns - samples[0].ts_ns) / 1e3, 1e-6);
    }
  };
  check("device · gpm.sm_util_pct", [](const Sample& s) { return s.sm; });
  check("device · gpm.tensor_util_pct", [](const Sample& s) { return s.tensor; });
  check("device · gpm.dram_bw_util_pct", [](const Sample& s) { return s.dram_read + s.dram_write; });

  // HTML: each kernel's row carries the mean of its device's samples inside its calls.
  std::string html = testing::ReadFile(dir / "report.html");
  for (auto [name, kernel] : {std::pair{1, "gemm"}, std::pair{2, "copy"}}) {
    std::size_t row =
        html.find(fmt::format("<td class=\"name\" title=\"{}\">", kernel), html.find("id=\"kernels\""));
    ASSERT_NE(row, std::string::npos) << kernel;
    std::string cells = html.substr(row, html.find("</tr>", row) - row);
    const std::string cell = fmt::format(">{}</td>", ExpectedActivity(name));  // (gcc 12: no -Wrestrict)
    EXPECT_NE(cells.find(cell), std::string::npos) << cells;
  }
}

}  // namespace
}  // namespace plasmient
