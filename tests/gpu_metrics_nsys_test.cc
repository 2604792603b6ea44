// An Nsight Systems export recorded with GPU metrics sampling, end to end: `plasmient analyze`
// shows its GPU_METRICS samples as Perfetto counter tracks and beside each kernel in the HTML
// report. The export is built here in the shapes Nsight Systems writes (docs/nsys.md, "GPU
// metrics"), with known values; every expected figure is computed from the rows written.
#include <gtest/gtest.h>
#include <simdjson.h>
#include <sqlite3.h>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
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

// An export of `kernels` (each "gemm" launched from inside an emit_nvtx "aten::mm" range with
// shapes, so that a FLOP model prices it; none: device-tier samples only) and `samples` of GPU 4 (and of GPU
// 5, biased, which must not show).
void WriteExport(const std::filesystem::path& path, const std::vector<Kernel>& kernels,
                 const std::vector<Sample>& samples) {
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
    CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, rangeId INTEGER,
      category INTEGER, color INTEGER, text TEXT, globalTid INTEGER, endGlobalTid INTEGER, textId INTEGER,
      domainId INTEGER);
  )sql";
  constexpr std::int64_t kPid = 9;
  int correlation = 1;
  for (const Kernel& k : kernels) {
    if (k.name == 1)
      sql += fmt::format(
          "INSERT INTO NVTX_EVENTS VALUES ({}, {}, 59, NULL, NULL, NULL, 'aten::mm, seq = {}, sizes = "
          "[[4096, "
          "4096], [4096, 4096]]', {}, NULL, NULL, 0);",
          k.start - 21'000, k.start - 14'000, correlation, (kPid << 24) | 10);
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
    for (const Sample& s : samples) {
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
}

// The means of the SM, tensor and DRAM samples inside a kernel's calls, in percent.
std::array<double, 3> ExpectedMeans(int name) {
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
  return {sm / n, tensor / n, dram / n};
}

// The same, as the report rounds them.
std::string ExpectedActivity(int name) {
  auto [sm, tensor, dram] = ExpectedMeans(name);
  return fmt::format("SM {:.0f}% · tensor {:.0f}% · DRAM {:.0f}%", sm, tensor, dram);
}

TEST(GpuMetricsNsys, CounterTracksInPerfettoAndDeviceActivityInHtml) {
  auto dir = testing::TempDir("gpu_metrics_nsys");
  auto sqlite = dir / "gpu_metrics.sqlite";
  WriteExport(sqlite, kKernels, Samples());
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

// The verdict JSON: each of the job's top kernels carries the means of its device's
// samples inside its calls, as fractions; the same means the HTML shows rounded.
TEST(GpuMetricsNsys, DeviceActivityOfEachKernelInTheJson) {
  auto dir = testing::TempDir("gpu_metrics_json");
  auto sqlite = dir / "gpu_metrics.sqlite";
  WriteExport(sqlite, kKernels, Samples());
  auto run = testing::RunCommand(fmt::format("{} analyze {} --json {} -q", testing::PlasmientBinary(),
                                             sqlite.string(), (dir / "v.json").string()));
  ASSERT_EQ(run.exit_code, 0) << run.out;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.load((dir / "v.json").string()).get(doc), simdjson::SUCCESS);
  int seen = 0;
  for (simdjson::dom::element k : doc["top_kernels"].get_array()) {
    std::string_view name;
    ASSERT_EQ(k["name"].get(name), simdjson::SUCCESS);
    int id = name == "gemm" ? 1 : name == "copy" ? 2 : 0;
    if (id == 0) continue;
    ++seen;
    std::array<double, 3> want = ExpectedMeans(id);
    const char* keys[] = {"sm_active", "tensor_active", "dram_active"};
    for (std::size_t m = 0; m < 3; ++m) {
      double got = -1;
      ASSERT_EQ(k["device_activity"][keys[m]].get(got), simdjson::SUCCESS) << name << " " << keys[m];
      EXPECT_NEAR(got, want[m] / 100, 1e-12) << name << " " << keys[m];
    }
  }
  EXPECT_EQ(seen, 2);

  // Without samples there is no device_activity key: such traces keep their JSON.
  auto plain = dir / "plain.sqlite";
  WriteExport(plain, kKernels, {});
  run = testing::RunCommand(fmt::format("{} analyze {} --json {} -q", testing::PlasmientBinary(),
                                        plain.string(), (dir / "plain.json").string()));
  ASSERT_EQ(run.exit_code, 0) << run.out;
  EXPECT_EQ(testing::ReadFile(dir / "plain.json").find("device_activity"), std::string::npos);
}

// The value of the one `name` series of /metrics whose labels hold every text of `labels` and no
// `window` label unless asked for; NaN when there is not exactly one.
double SeriesValue(const std::string& metrics, const std::string& name, std::vector<std::string> labels) {
  bool windowed =
      std::any_of(labels.begin(), labels.end(), [](const auto& l) { return l.starts_with("window="); });
  double value = std::nan("");
  int found = 0;
  std::istringstream lines(metrics);
  for (std::string line; std::getline(lines, line);) {
    if (!line.starts_with(name + "{")) continue;
    std::string label_text = line.substr(0, line.rfind('}'));
    if (!windowed && label_text.find("window=") != std::string::npos) continue;
    if (!std::all_of(labels.begin(), labels.end(),
                     [&](const std::string& l) { return label_text.find(l) != std::string::npos; }))
      continue;
    value = std::stod(line.substr(line.rfind(' ') + 1));
    ++found;
  }
  return found == 1 ? value : std::nan("");
}

// serve on an export with kernels and then one with device-tier samples only, both of one job (a
// marker's job= label): the device gauges and the estimate come from GPU_METRICS as they come from
// the agent's NVML samples (docs/fleet.md, "The agent's windows"). The expected means are
// computed from the rows written.
TEST(GpuMetricsNsys, ServeGivesTheDeviceGaugesAndTheEstimateFromExports) {
  auto dir = testing::TempDir("gpu_metrics_serve");
  WriteExport(dir / "measured.sqlite", kKernels, Samples());
  std::vector<Sample> between;
  for (int i = 1; i <= 8; ++i) between.push_back({i * 50'000, 40 + i, 2 * i, i, i});
  WriteExport(dir / "between.sqlite", {}, between);
  std::string script = fmt::format(
      R"sh(set -u; cd {dir}; mkdir spool
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
{bin} serve --spool spool --listen 127.0.0.1:$port --poll-ms 50 --counter-hold-s 0 > serve.log 2>&1 &
pid=$!; trap 'kill $pid' EXIT
for _ in $(seq 100); do curl -s -o /dev/null http://127.0.0.1:$port/healthz && break; sleep 0.1; done
kill -0 $pid || {{ echo serve did not start; cat serve.log; exit 1; }}
for f in measured between; do
  echo job=train7 > spool/$f.sqlite.done; cp $f.sqlite spool/.$f.part; mv spool/.$f.part spool/$f.sqlite
  for _ in $(seq 300); do [ -e spool/done/$f.sqlite ] && break; [ -n "$(ls spool/failed 2>/dev/null)" ] && break; sleep 0.1; done
done
cat spool/failed/*.error 2>/dev/null
curl -s http://127.0.0.1:$port/metrics > metrics.txt)sh",
      fmt::arg("dir", dir.string()), fmt::arg("bin", testing::PlasmientBinary()));
  { std::ofstream(dir / "serve.sh") << script << "\n"; }
  auto run = testing::RunCommand("bash " + (dir / "serve.sh").string());
  ASSERT_EQ(run.exit_code, 0) << run.out;
  ASSERT_TRUE(std::filesystem::exists(dir / "spool/done/between.sqlite"))
      << run.out << testing::ReadFile(dir / "serve.log");
  std::string metrics = testing::ReadFile(dir / "metrics.txt");

  // The measured export: means over its window W, from the first kernel's start to the last's end.
  double sm = 0, tensor = 0, dram = 0;
  int n = 0;
  for (const Sample& s : Samples()) {
    if (s.ts_ns < kKernels.front().start || s.ts_ns >= kKernels.back().end) continue;
    sm += s.sm, tensor += s.tensor, dram += s.dram_read + s.dram_write, ++n;
  }
  ASSERT_GT(n, 0);
  double tensor_measured = tensor / n / 100;
  const std::vector<std::string> job = {"plasmient_job=\"train7\""};
  double achieved = SeriesValue(metrics, "plasmient_achieved_fraction_of_peak_ratio", job);
  EXPECT_GT(achieved, 0) << metrics;  // the GEMMs are priced: a calibration worth checking

  // The samples-only export: the gauges are its means over the whole file, and the estimate is
  // its tensor activity times the measured export's achieved fraction per unit of tensor activity.
  sm = tensor = dram = n = 0;
  for (const Sample& s : between) sm += s.sm, tensor += s.tensor, dram += s.dram_read + s.dram_write, ++n;
  EXPECT_NEAR(SeriesValue(metrics, "plasmient_tensor_active_ratio", job), tensor / n / 100, 1e-9) << metrics;
  EXPECT_NEAR(SeriesValue(metrics, "plasmient_sm_active_ratio", job), sm / n / 100, 1e-9);
  EXPECT_NEAR(SeriesValue(metrics, "plasmient_dram_active_ratio", job), dram / n / 100, 1e-9);
  std::vector<std::string> estimated = {"plasmient_job=\"train7\"", "window=\"between\"",
                                        "figure=\"estimated\""};
  EXPECT_NEAR(SeriesValue(metrics, "plasmient_achieved_fraction_of_peak_ratio", estimated),
              achieved * (tensor / n / 100) / tensor_measured, 1e-9)
      << metrics;
}

}  // namespace
}  // namespace plasmient
