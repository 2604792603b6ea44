// The profiler's own work as a cause of host-bound idle, end to end through `plasmient analyze`:
// a Kineto trace with CUPTI "overhead" events and an Nsight Systems export with PROFILER_OVERHEAD
// rows, built here with known times, charge the GPU idle those records span (and no range of the
// launching thread names) to `profiler_overhead`, with its own advice; the real CloverLeaf export,
// whose overhead rows all lie outside its kernels' span (read by SQL here), charges none to it.
#include <gtest/gtest.h>
#include <simdjson.h>
#include <sqlite3.h>

#include <fmt/format.h>

#include <fstream>
#include <string>

#include "tests/test_support.h"

namespace plasmient {
namespace {

namespace fs = std::filesystem;
using simdjson::dom::element;

// The host-bound idle fix's cause `name` (seconds, or -1 when it lists none) in a verdict.
double CauseSeconds(element verdict, std::string_view name, std::string* action = nullptr) {
  for (element f : verdict["fixes"].get_array()) {
    if (f["loss"].get_string().value() != "host_bound_idle") continue;
    if (action) *action = std::string(f["action"].get_string().value());
    for (element c : f["causes"].get_array()) {
      if (c["cause"].get_string().value() == name) return c["seconds"].get_double().value();
    }
  }
  return -1;
}

void AnalyzeTo(const fs::path& input, simdjson::dom::parser& parser, element& v) {
  const fs::path out = input.parent_path() / "verdict.json";
  testing::CommandResult a = testing::RunCommand(testing::PlasmientBinary() + " analyze -q " +
                                                 input.string() + " --json " + out.string());
  ASSERT_EQ(a.exit_code, 0) << a.out;
  ASSERT_EQ(parser.load(out.string()).get(v), simdjson::SUCCESS);
}

// Two 400 µs kernels 600 µs apart; the host runs an op that launches nothing over the gap, and a
// CUPTI buffer flush (on Kineto's own "CUPTI Overhead" process) spans 450 µs of it.
TEST(ProfilerOverhead, KinetoOverheadEventsOverAnIdleGapAreTheProfilers) {
  const fs::path dir = testing::TempDir("overhead_kineto");
  const fs::path trace = dir / "overhead.pt.trace.json";
  constexpr double kFlushStart = 500, kFlushEnd = 950;  // µs; the gap is 400..1000
  std::ofstream(trace) << fmt::format(R"j({{"schemaVersion": 1, "traceEvents": [
  {{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 0, "dur": 8, "args": {{"External id": 1}}}},
  {{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 2, "dur": 4, "args": {{"correlation": 1, "External id": 1}}}},
  {{"ph": "X", "cat": "kernel", "name": "sm90_gemm", "pid": 0, "tid": 7, "ts": 0, "dur": 400, "args": {{"device": 0, "stream": 7, "correlation": 1}}}},
  {{"ph": "X", "cat": "cpu_op", "name": "aten::copy_", "pid": 1, "tid": 1, "ts": 400, "dur": 590}},
  {{"ph": "X", "cat": "overhead", "name": "Buffer Flush", "pid": -1, "tid": 0, "ts": {}, "dur": {}}},
  {{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 990, "dur": 8, "args": {{"External id": 2}}}},
  {{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 992, "dur": 4, "args": {{"correlation": 2, "External id": 2}}}},
  {{"ph": "X", "cat": "kernel", "name": "sm90_gemm", "pid": 0, "tid": 7, "ts": 1000, "dur": 400, "args": {{"device": 0, "stream": 7, "correlation": 2}}}}
]}})j",
                                      kFlushStart, kFlushEnd - kFlushStart);
  simdjson::dom::parser parser;
  element v;
  ASSERT_NO_FATAL_FAILURE(AnalyzeTo(trace, parser, v));
  std::string action;
  EXPECT_NEAR(CauseSeconds(v, "profiler_overhead", &action), (kFlushEnd - kFlushStart) * 1e-6, 1e-9);
  // The rest of the gap is the op's own work, but the last 10 µs: the next op's launch.
  EXPECT_NEAR(CauseSeconds(v, "host_work"), (600 - (kFlushEnd - kFlushStart) - 10) * 1e-6, 1e-9);
  EXPECT_NE(action.find("the profiler's own work holds the GPU idle"), std::string::npos) << action;
  EXPECT_NE(action.find("with_stack"), std::string::npos) << action;
  fs::remove_all(dir);
}

void Exec(sqlite3* db, const std::string& sql) {
  char* error = nullptr;
  ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error), SQLITE_OK) << (error ? error : "");
}

// The same in an Nsight Systems export: kernels at 0..400 µs and 1000..1400 µs launched from one
// thread, and CUPTI's instrumentation on that thread over 450..900 µs of the gap between.
TEST(ProfilerOverhead, NsysProfilerOverheadRowsOverAnIdleGapAreTheProfilers) {
  const fs::path dir = testing::TempDir("overhead_nsys");
  const fs::path path = dir / "overhead.sqlite";
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  constexpr std::int64_t kThread = (9LL << 24) | 10, kStart = 450'000, kEnd = 900'000;
  std::string sql = R"sql(
    CREATE TABLE META_DATA_EXPORT (name TEXT NOT NULL, value TEXT);
    INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_SCHEMA_VERSION', '3.13.2'), ('EXPORT_SCHEMA_VERSION_MAJOR', '3');
    CREATE TABLE TARGET_INFO_SESSION_START_TIME (utcEpochNs INTEGER, utcTime TEXT, localTime TEXT);
    INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES (1700000000000000000, '', '');
    CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
    INSERT INTO StringIds VALUES (1, 'stencil'), (2, 'cudaLaunchKernel_v7000'), (3, 'CUPTI: Instrumentation');
    CREATE TABLE TARGET_INFO_GPU (id INTEGER, name TEXT, smCount INTEGER);
    INSERT INTO TARGET_INFO_GPU VALUES (0, 'NVIDIA H100 80GB HBM3', 132);
    CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
      contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,
      shortName INTEGER NOT NULL);
    CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER NOT NULL,
      globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL);
    CREATE TABLE PROFILER_OVERHEAD (start INTEGER NOT NULL, end INTEGER NOT NULL, globalTid INTEGER,
      nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL);
  )sql";
  sql += fmt::format(
      "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (0, 5000, 0, {0}, 1, 2, 0), (990000, 995000, 0, {0}, "
      "2, 2, "
      "0);"
      "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (10000, 400000, 0, 1, 7, 1, {1}, 1), (1000000, 1400000, "
      "0, "
      "1, 7, 2, {1}, 1);"
      "INSERT INTO PROFILER_OVERHEAD VALUES ({2}, {3}, {0}, 3, 0);",
      kThread, 9LL << 24, kStart, kEnd);
  Exec(db, sql);
  sqlite3_close(db);
  simdjson::dom::parser parser;
  element v;
  ASSERT_NO_FATAL_FAILURE(AnalyzeTo(path, parser, v));
  std::string action;
  EXPECT_NEAR(CauseSeconds(v, "profiler_overhead", &action), (kEnd - kStart) * 1e-9, 1e-9);
  EXPECT_NE(action.find("nsys --duration"), std::string::npos) << action;
  fs::remove_all(dir);
}

// Integers of the first row of `sql` on `path`.
std::vector<std::int64_t> QueryRow(const fs::path& path, const char* sql) {
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

// CloverLeaf's export records the profiler's work (initialization, CUPTI instrumentation, buffer
// flushes), all of it before its first kernel or after its last (from the raw rows): none of its
// GPU idle is the profiler's.
TEST(ProfilerOverhead, CloverleafsOverheadLiesOutsideItsKernelsAndTakesNoIdle) {
  auto shared = testing::SharedTraces();
  if (!shared)
    GTEST_SKIP() << "shared traces folder absent (PLASMIENT_SHARED_TRACES): real-trace test skipped";
  const fs::path path = *shared / "pipit/cloverleaf-nsys/perlmutter-cloverleaf-cuda.sqlite";
  const auto inside =
      QueryRow(path,
               "SELECT count(*), (SELECT count(*) FROM PROFILER_OVERHEAD) FROM PROFILER_OVERHEAD o, "
               "(SELECT min(start) AS s, max(\"end\") AS e FROM CUPTI_ACTIVITY_KIND_KERNEL) k "
               "WHERE o.\"end\" > k.s AND o.start < k.e");
  ASSERT_EQ(inside.size(), 2u);
  ASSERT_GT(inside[1], 0);  // the export records overhead
  ASSERT_EQ(inside[0], 0);  // none of it inside the kernels' span
  const fs::path dir = testing::TempDir("overhead_cloverleaf");
  const fs::path copy = dir / "cloverleaf.sqlite";
  fs::copy_file(path, copy);
  simdjson::dom::parser parser;
  element v;
  ASSERT_NO_FATAL_FAILURE(AnalyzeTo(copy, parser, v));
  EXPECT_EQ(CauseSeconds(v, "profiler_overhead"), -1);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace plasmient
