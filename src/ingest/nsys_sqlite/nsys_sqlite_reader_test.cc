#include "ingest/nsys_sqlite/nsys_sqlite_reader.h"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "ingest/testing/nsys_test_db.h"

namespace plasmient::ingest::nsys {
namespace {

using model::CpuOpKind;
using model::Dq;
using model::GpuKind;
using testing::GlobalPid;
using testing::GlobalTid;
using testing::TestDb;

constexpr std::int64_t kEpochNs = 1'700'000'000'000'000'000;

// The 3.x shape (nsys 2023+): META_DATA_EXPORT, full kernel columns, one row per API call.
// Two processes (pids 100 and 200) both use correlation id 1.
void WriteSchemaV3(TestDb& db) {
  db.Exec(R"sql(
    CREATE TABLE META_DATA_EXPORT (name TEXT NOT NULL, value TEXT);
    INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_PRODUCT_VERSION', '2024.5.1.113'), ('EXPORT_SCHEMA_VERSION', '3.13.2'),
      ('EXPORT_SCHEMA_VERSION_MAJOR', '3');
    CREATE TABLE META_DATA_CAPTURE (name TEXT NOT NULL, value TEXT);
    INSERT INTO META_DATA_CAPTURE VALUES ('DEVICE_DISPLAY_NAME', 'node7'),
      ('PROCESS_0:ENVIRONMENT_VARIABLE', 'WORLD_SIZE="8"'), ('PROCESS_0:ENVIRONMENT_VARIABLE', 'RANK="5"');
    CREATE TABLE TARGET_INFO_SESSION_START_TIME (utcEpochNs INTEGER, utcTime TEXT, localTime TEXT);
    INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES (1700000000000000000, '', '');
    CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);
    INSERT INTO StringIds VALUES (1, 'cudaLaunchKernel_v7000'), (2, 'void gemm<float>(float*)'), (3, 'gemm'),
      (4, 'aten::mm, seq = 12, op_id = 3, sizes = [[8, 512], [512, 1024]], input_op_ids = [1, 2]'),
      (5, 'cudaMemcpyAsync_v3020'), (6, 'ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)');
    CREATE TABLE TARGET_INFO_GPU (vmId INTEGER NOT NULL, id INTEGER NOT NULL, name TEXT, totalMemory INTEGER,
      memoryBandwidth INTEGER, clockRate INTEGER, smCount INTEGER, computeMajor INTEGER, computeMinor INTEGER);
    INSERT INTO TARGET_INFO_GPU VALUES (0, 0, 'NVIDIA H100 PCIe', 85520809984, 2039040000000, 1755000000, 114, 9, 0),
      (0, 1, 'NVIDIA H100 80GB HBM3', 85520809984, 3352320000000, 1980000000, 132, 9, 0),
      (0, 2, 'NVIDIA H100 80GB HBM3', 85520809984, 3352320000000, 1980000000, 132, 9, 0);
    -- Both processes saw their GPUs renumbered: CUDA device 0 is GPU 1, CUDA device 1 is GPU 0.
    CREATE TABLE TARGET_INFO_CUDA_CONTEXT_INFO (nullStreamId INTEGER NOT NULL, hwId INTEGER NOT NULL,
      vmId INTEGER NOT NULL, processId INTEGER NOT NULL, deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL);
    INSERT INTO TARGET_INFO_CUDA_CONTEXT_INFO VALUES (7, 1, 0, 100, 0, 1), (13, 0, 0, 200, 1, 2), (7, 1, 0, 200, 0, 3);
    CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
      contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,
      demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL, mangledName INTEGER, gridX INTEGER NOT NULL,
      registersPerThread INTEGER NOT NULL);
    CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
      contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,
      bytes INTEGER NOT NULL, copyKind INTEGER NOT NULL, srcKind INTEGER, dstKind INTEGER);
    CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
      contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,
      value INTEGER NOT NULL, bytes INTEGER NOT NULL, memKind INTEGER);
    CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER NOT NULL,
      globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL);
    CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, rangeId INTEGER,
      category INTEGER, color INTEGER, text TEXT, globalTid INTEGER, endGlobalTid INTEGER, textId INTEGER,
      domainId INTEGER);
  )sql");
  const std::int64_t t100 = GlobalTid(100, 101), t200 = GlobalTid(200, 201);
  db.Exec(fmt::format(R"sql(
    INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (2100, 2500, 0, {0}, 1, 1, 0), (3000, 3400, 0, {1}, 1, 1, 0),
      (6000, 6100, 0, {0}, 2, 5, 0), (7000, 7300, 0, {1}, 2, 1, 0);
    -- Stored out of start order: the reader must sort.
    INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (9500, 12000, 1, 1, 13, 2, {3}, 6, 6, NULL, 2, 96),
      (4000, 9000, 0, 1, 7, 1, {2}, 2, 3, NULL, 64, 32), (5000, 8000, 1, 1, 13, 1, {3}, 2, 3, NULL, 64, 32);
    INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (6500, 6900, 0, 1, 7, 2, {2}, 4096, 1, 0, 2);
    INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES (9100, 9200, 0, 1, 7, 0, {2}, 0, 512, 2);
    INSERT INTO NVTX_EVENTS VALUES
      (75, NULL, 75, NULL, NULL, NULL, 'my_domain', {0}, NULL, NULL, 1),
      (1000, 10000, 59, NULL, NULL, NULL, 'train_step', {0}, NULL, NULL, 0),
      (2000, 5000, 59, NULL, NULL, NULL, NULL, {0}, NULL, 4, 0),
      (2050, 2400, 59, NULL, NULL, NULL, 'inner', {0}, NULL, NULL, 0),
      (2600, NULL, 34, NULL, NULL, NULL, 'checkpoint', {0}, NULL, NULL, 0),
      (2700, 9900, 60, 1, NULL, NULL, 'async_phase', {1}, {0}, NULL, 0),
      (500, 11000, 59, NULL, NULL, NULL, 'ProfilerStep#4', {1}, NULL, NULL, 0),
      (10500, NULL, 59, NULL, NULL, NULL, 'never_popped', {1}, NULL, NULL, 0);
  )sql",
                      t100, t200, GlobalPid(100), GlobalPid(200)));
}

// The 2.x shape (nsys 2022.x): EXPORT_META_DATA, no session start, only shortName, two runtime
// rows per call (eventClass 0 "..._v7000" and eventClass 67 without the suffix), and
// TARGET_INFO_CUDA_DEVICE mapping CUDA device 0 to GPU 7.
void WriteSchemaV2(TestDb& db) {
  db.Exec(R"sql(
    CREATE TABLE EXPORT_META_DATA (name TEXT, value TEXT);
    INSERT INTO EXPORT_META_DATA VALUES ('EXPORT_PRODUCT_VERSION', '2022.2.1'), ('EXPORT_SCHEMA_VERSION', '2.7.1');
    CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
    INSERT INTO StringIds VALUES (1, 'cudaLaunchKernel_v7000'), (2, 'cudaLaunchKernel'), (3, 'relu_kernel'),
      (4, 'cudaMalloc_v3020'), (5, 'cudaMalloc');
    CREATE TABLE TARGET_INFO_GPU (id INTEGER, name TEXT, busLocation TEXT, totalMemory INTEGER, smCount INTEGER,
      memoryBandwidth INTEGER);
    INSERT INTO TARGET_INFO_GPU VALUES (7, 'NVIDIA A100-SXM4-40GB', '0000:07:00.0', 42505273344, 108, 1555200000000);
    CREATE TABLE TARGET_INFO_CUDA_DEVICE (gpuId INTEGER, cudaId INTEGER, pid INTEGER, uuid TEXT,
      numMultiprocessors INTEGER);
    INSERT INTO TARGET_INFO_CUDA_DEVICE VALUES (7, 0, 300, '', 108);
    CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INT NOT NULL, end INT NOT NULL, deviceId INT NOT NULL,
      contextId INT NOT NULL, streamId INT NOT NULL, correlationId INT, globalPid INT, shortName INT NOT NULL);
    CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INT NOT NULL, end INT NOT NULL, eventClass INT NOT NULL,
      globalTid INT, correlationId INT, nameId INT NOT NULL, returnValue INT NOT NULL);
  )sql");
  const std::int64_t tid = GlobalTid(300, 301);
  std::string sql;
  for (int launch = 1; launch <= 3; ++launch) {
    std::int64_t t = launch * 10'000;
    // The class-67 twin is written first, so keeping the first row would be wrong.
    sql += fmt::format("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES ({0}, {1}, 67, {2}, {3}, 2, 0);", t,
                       t + 900, tid, launch);
    sql += fmt::format("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES ({0}, {1}, 0, {2}, {3}, 1, 0);", t + 1,
                       t + 900, tid, launch);
    sql += fmt::format("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES ({0}, {1}, 0, 1, 7, {2}, {3}, 3);",
                       t + 2000, t + 6000, launch, GlobalPid(300));
  }
  // A call that launches nothing: correlation 0 twice is not a duplicate of anything.
  sql += fmt::format(
      "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (100, 200, 0, {0}, 0, 4, 0),"
      " (300, 400, 0, {0}, 0, 4, 0);",
      tid);
  db.Exec(sql);
}

model::Trace ReadOk(const std::string& path) {
  auto trace = ReadNsysSqlite(path);
  EXPECT_TRUE(trace.has_value()) << (trace ? "" : trace.error().message);
  if (!trace) return {};
  return std::move(*trace);
}

// A fresh schema-3 file named `name`, read.
model::Trace ReadSchemaV3(std::string_view name) {
  TestDb db(name);
  WriteSchemaV3(db);
  db.Close();
  return ReadOk(db.path());
}

std::vector<std::string_view> Names(const model::Trace& t, const std::vector<StringId>& ids) {
  std::vector<std::string_view> out;
  for (auto id : ids) out.push_back(t.Str(id));
  return out;
}

TEST(NsysSqlite, LooksLikeSqliteNeedsTheWholeMagic) {
  EXPECT_TRUE(LooksLikeSqlite(std::string_view("SQLite format 3\0rest", 20)));
  EXPECT_FALSE(LooksLikeSqlite("SQLite format 3"));  // no NUL: a text file that says so
  EXPECT_FALSE(LooksLikeSqlite("{\"traceEvents\": []}"));
  EXPECT_FALSE(LooksLikeSqlite(""));
}

TEST(NsysSqlite, Schema3KeepsPidOnBothSidesOfTheCorrelation) {
  model::Trace t = ReadSchemaV3("schema3.sqlite");
  EXPECT_EQ(t.info.format, "nsys-sqlite");
  EXPECT_EQ(t.info.base_time_ns, kEpochNs);
  ASSERT_EQ(t.gpu.size(), 5u);
  // Kernels, memcpy and memset merged into one start-ordered table.
  EXPECT_TRUE(std::ranges::is_sorted(t.gpu.start_ns));
  EXPECT_EQ(t.gpu.start_ns[0], kEpochNs + 4000);
  EXPECT_EQ(t.gpu.end_ns[0], kEpochNs + 9000);
  EXPECT_EQ(t.gpu.pid[0], 100);
  EXPECT_EQ(t.gpu.pid[1], 200);
  EXPECT_EQ(t.gpu.correlation[0], 1);
  EXPECT_EQ(t.gpu.correlation[1], 1);
  EXPECT_EQ(t.Str(t.gpu.name[0]), "void gemm<float>(float*)");  // demangled, as Kineto names kernels
  EXPECT_EQ(t.gpu.device[1], 1);
  EXPECT_EQ(t.gpu.stream[1], 13);

  std::map<std::pair<std::int64_t, std::int64_t>, std::size_t> launches;  // (pid, correlation) -> api row
  for (std::size_t i = 0; i < t.api.size(); ++i) launches[{t.api.pid[i], t.api.correlation[i]}] = i;
  ASSERT_EQ(launches.size(), 4u);
  for (std::size_t k = 0; k < t.gpu.size(); ++k) {
    if (t.gpu.kind[k] != GpuKind::kKernel) continue;
    auto it = launches.find({t.gpu.pid[k], t.gpu.correlation[k]});
    ASSERT_NE(it, launches.end()) << "kernel " << k;
    EXPECT_LE(t.api.start_ns[it->second], t.gpu.start_ns[k]);
  }
  auto launch200 = launches.at({200, 1});
  EXPECT_EQ(t.api.tid[launch200], 201);
  EXPECT_EQ(t.api.start_ns[launch200], kEpochNs + 3000);
  EXPECT_EQ(t.Str(t.api.name[launch200]), "cudaLaunchKernel");
  EXPECT_EQ(t.Str(t.api.name[launches.at({100, 2})]), "cudaMemcpyAsync");
  EXPECT_EQ(t.quality.Get(Dq::kDuplicateApiRow), 0);
}

TEST(NsysSqlite, Schema3MemoryActivitiesAndNcclKernels) {
  model::Trace t = ReadSchemaV3("schema3_mem.sqlite");
  std::map<GpuKind, std::size_t> by_kind;
  for (std::size_t i = 0; i < t.gpu.size(); ++i) by_kind[t.gpu.kind[i]] = i;
  ASSERT_EQ(by_kind.size(), 3u);
  std::size_t memcpy = by_kind[GpuKind::kMemcpy], memset = by_kind[GpuKind::kMemset];
  EXPECT_EQ(t.Str(t.gpu.name[memcpy]), "Memcpy HtoD (Pageable -> Device)");
  EXPECT_EQ(t.gpu.bytes[memcpy], 4096);
  EXPECT_EQ(t.gpu.correlation[memcpy], 2);
  EXPECT_EQ(t.Str(t.gpu.name[memset]), "Memset (Device)");
  EXPECT_EQ(t.gpu.bytes[memset], 512);
  // NCCL kernels are kernels; the join classifies them by name.
  auto names = Names(t, t.gpu.name);
  EXPECT_EQ(std::ranges::count_if(names, [](auto n) { return n.starts_with("ncclDevKernel_AllReduce"); }), 1);
}

TEST(NsysSqlite, Schema3NvtxNestingOpsAndSteps) {
  model::Trace t = ReadSchemaV3("schema3_nvtx.sqlite");
  std::map<std::string_view, std::size_t> op;
  for (std::size_t i = 0; i < t.cpu.size(); ++i) op[t.Str(t.cpu.name[i])] = i;
  // Ranges only: the domain-create row is metadata, the mark an instant.
  ASSERT_EQ(t.cpu.size(), 6u) << "got: " << fmt::format("{}", fmt::join(Names(t, t.cpu.name), " | "));
  EXPECT_EQ(t.quality.Get(Dq::kInstantEventsSkipped), 1);
  std::size_t outer = op.at("train_step"), mm = op.at("aten::mm"), inner = op.at("inner");
  // Push/pop nesting on thread 101: train_step > aten::mm > inner.
  for (auto i : {outer, mm, inner}) {
    EXPECT_EQ(t.cpu.pid[i], 100);
    EXPECT_EQ(t.cpu.tid[i], 101);
  }
  EXPECT_LT(t.cpu.start_ns[outer], t.cpu.start_ns[mm]);
  EXPECT_LT(t.cpu.start_ns[mm], t.cpu.start_ns[inner]);
  EXPECT_LT(t.cpu.end_ns[inner], t.cpu.end_ns[mm]);
  EXPECT_LT(t.cpu.end_ns[mm], t.cpu.end_ns[outer]);
  EXPECT_EQ(t.cpu.start_ns[outer], kEpochNs + 1000);
  // The registered-string name (textId) is PyTorch's emit_nvtx form: an op with its shapes.
  EXPECT_EQ(t.cpu.kind[mm], CpuOpKind::kOp);
  EXPECT_EQ(t.Str(t.cpu.input_dims[mm]), "[[8,512],[512,1024]]");
  EXPECT_EQ(t.cpu.kind[outer], CpuOpKind::kAnnotation);
  EXPECT_EQ(t.cpu.kind[op.at("async_phase")], CpuOpKind::kAnnotation);
  EXPECT_EQ(t.cpu.tid[op.at("async_phase")], 201);  // a start/end range belongs to its starting thread
  std::size_t step = op.at("ProfilerStep#4");
  EXPECT_EQ(t.cpu.kind[step], CpuOpKind::kStep);
  EXPECT_EQ(t.cpu.step[step], 4);
  std::size_t open = op.at("never_popped");
  EXPECT_EQ(t.cpu.end_ns[open], t.cpu.start_ns[open]);
  EXPECT_EQ(t.quality.Get(Dq::kMissingDuration), 1);
}

TEST(NsysSqlite, Schema3DevicesRankAndHost) {
  model::Trace t = ReadSchemaV3("schema3_dev.sqlite");
  ASSERT_EQ(t.devices.size(), 2u);  // the GPUs the processes used, by their CUDA ids
  auto by_id = [&](int id) {
    auto it = std::ranges::find(t.devices, id, &model::DeviceInfo::id);
    return it == t.devices.end() ? model::DeviceInfo{} : *it;
  };
  const model::DeviceInfo d = by_id(0);
  EXPECT_EQ(d.name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(d.sm_count, 132);
  EXPECT_EQ(d.cc_major, 9);
  EXPECT_EQ(d.cc_minor, 0);
  EXPECT_EQ(d.total_memory_bytes, 85520809984);
  EXPECT_EQ(d.memory_bandwidth_bytes_per_s, 3352320000000);
  EXPECT_EQ(d.sm_clock_mhz, 1980);
  EXPECT_EQ(by_id(1).name, "NVIDIA H100 PCIe");
  EXPECT_EQ(by_id(1).sm_count, 114);
  EXPECT_EQ(t.info.rank, 5);
  EXPECT_EQ(t.info.world_size, 8);
  EXPECT_EQ(t.info.hostname, "node7");
  EXPECT_EQ(t.quality.Get(Dq::kMissingTable), 0);
  EXPECT_EQ(t.info.events, 4 + 3 + 1 + 1 + 8);
}

TEST(NsysSqlite, Schema2DedupesTwinRuntimeRowsAndMapsCudaDevices) {
  TestDb db("job_rank-3.sqlite");
  WriteSchemaV2(db);
  db.Close();
  model::Trace t = ReadOk(db.path());
  EXPECT_EQ(t.quality.Get(Dq::kDuplicateApiRow), 3);
  ASSERT_EQ(t.api.size(), 5u);  // 3 launches + 2 mallocs, each once
  std::size_t launches = 0;
  for (std::size_t i = 0; i < t.api.size(); ++i) {
    EXPECT_EQ(t.api.pid[i], 300);
    EXPECT_EQ(t.api.tid[i], 301);
    if (t.api.correlation[i] == 0) {
      EXPECT_EQ(t.Str(t.api.name[i]), "cudaMalloc");
      continue;
    }
    ++launches;
    EXPECT_EQ(t.Str(t.api.name[i]), "cudaLaunchKernel");
    EXPECT_EQ(t.api.start_ns[i], t.api.correlation[i] * 10'000 + 1);  // the eventClass-0 row was kept
  }
  EXPECT_EQ(launches, 3u);
  ASSERT_EQ(t.gpu.size(), 3u);
  EXPECT_EQ(t.Str(t.gpu.name[0]), "relu_kernel");  // shortName when that is all there is
  EXPECT_EQ(t.gpu.pid[2], 300);
  ASSERT_EQ(t.devices.size(), 1u);
  EXPECT_EQ(t.devices[0].id, 0);  // the CUDA id kernels use, not TARGET_INFO_GPU's 7
  EXPECT_EQ(t.devices[0].name, "NVIDIA A100-SXM4-40GB");
  EXPECT_EQ(t.devices[0].sm_count, 108);
  // No session start in this export: times stay session-relative, and that is counted.
  EXPECT_EQ(t.info.base_time_ns, 0);
  EXPECT_EQ(t.gpu.start_ns[0], 12'000);
  EXPECT_EQ(t.quality.Get(Dq::kMissingTable), 1);
  EXPECT_EQ(t.info.rank, 3);  // from the file name: nothing in the capture says
}

TEST(NsysSqlite, MissingTablesGiveAnEmptyTraceNotAnError) {
  TestDb db("meta_only.sqlite");
  db.Exec(
      "CREATE TABLE META_DATA_EXPORT (name TEXT, value TEXT);"
      "INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_SCHEMA_VERSION', '3.11.0');"
      "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);"
      "CREATE TABLE NVTX_EVENTS (start INTEGER, end INTEGER, text TEXT);"
      "INSERT INTO NVTX_EVENTS VALUES (10, 20, 'load_data');");
  db.Close();
  model::Trace t = ReadOk(db.path());
  EXPECT_EQ(t.gpu.size(), 0u);
  EXPECT_EQ(t.api.size(), 0u);
  EXPECT_TRUE(t.devices.empty());
  // Kernels, API calls, device info and session start are absent.
  EXPECT_EQ(t.quality.Get(Dq::kMissingTable), 4);
  // An NVTX table of an old shape (no eventType, no globalTid) still gives its ranges.
  ASSERT_EQ(t.cpu.size(), 1u);
  EXPECT_EQ(t.Str(t.cpu.name[0]), "load_data");
  EXPECT_EQ(t.cpu.tid[0], model::kNoId);
  EXPECT_EQ(t.quality.Get(Dq::kMissingColumn), 2);
  EXPECT_EQ(t.info.rank, -1);
}

TEST(NsysSqlite, NotSqliteIsOneLineNamingTheFile) {
  std::string path = testing::TempPath("trace.json");
  testing::WriteFile(path, "{\"traceEvents\": []}");
  auto t = ReadNsysSqlite(path);
  ASSERT_FALSE(t.has_value());
  EXPECT_NE(t.error().message.find(path), std::string::npos);
  EXPECT_NE(t.error().message.find("not an SQLite file"), std::string::npos);
  EXPECT_EQ(t.error().message.find('\n'), std::string::npos);
}

TEST(NsysSqlite, MissingFileIsAnError) {
  auto t = ReadNsysSqlite(testing::TempPath("absent.sqlite"));
  ASSERT_FALSE(t.has_value());
  EXPECT_NE(t.error().message.find("cannot open"), std::string::npos);
}

TEST(NsysSqlite, SqliteWithoutTablesOrWithoutNsysTablesIsAnError) {
  TestDb empty("empty.sqlite");
  empty.Exec("CREATE TABLE t (x); DROP TABLE t;");  // a header, no tables
  empty.Close();
  auto t = ReadNsysSqlite(empty.path());
  ASSERT_FALSE(t.has_value());
  EXPECT_NE(t.error().message.find("no tables"), std::string::npos) << t.error().message;

  TestDb other("other.sqlite");
  other.Exec("CREATE TABLE songs (title TEXT);");
  other.Close();
  t = ReadNsysSqlite(other.path());
  ASSERT_FALSE(t.has_value());
  EXPECT_NE(t.error().message.find("none of its 1 tables"), std::string::npos) << t.error().message;
}

// A schema-3 file grown past a few pages, so that cutting it loses data pages.
std::string WriteBigSchemaV3(std::string_view name) {
  TestDb db(name);
  WriteSchemaV3(db);
  db.Exec(
      "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000) "
      "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL SELECT 20000 + i, 20500 + i, 0, 1, 7, 100 + i, 0, 2, 3, NULL, "
      "1, 1 "
      "FROM n;");
  db.Close();
  return db.path();
}

TEST(NsysSqlite, TruncatedSqliteIsACleanError) {
  std::string whole = WriteBigSchemaV3("whole.sqlite");
  ASSERT_TRUE(ReadNsysSqlite(whole).has_value());
  std::string bytes = testing::ReadPrefix(whole, std::string::npos);
  ASSERT_GT(bytes.size(), 8u * 4096);
  for (std::size_t keep : {std::size_t{50}, bytes.size() / 2, std::size_t{4096} * 3}) {
    std::string cut = testing::TempPath("cut.sqlite");
    testing::WriteFile(cut, std::string_view(bytes).substr(0, keep));
    auto t = ReadNsysSqlite(cut);
    ASSERT_FALSE(t.has_value()) << "kept " << keep << " bytes";
    EXPECT_NE(t.error().message.find("truncated"), std::string::npos) << t.error().message;
    EXPECT_NE(t.error().message.find(cut), std::string::npos);
  }
}

TEST(NsysSqlite, CorruptOrEncryptedPagesAreACleanError) {
  std::string whole = WriteBigSchemaV3("corrupt.sqlite");
  std::string bytes = testing::ReadPrefix(whole, std::string::npos);
  // Keep the 100-byte header, scramble the rest as an encrypted database would look.
  for (std::size_t i = 100; i < bytes.size(); ++i) bytes[i] = static_cast<char>((i * 131 + 7) & 0xFF);
  std::string path = testing::TempPath("scrambled.sqlite");
  testing::WriteFile(path, bytes);
  auto t = ReadNsysSqlite(path);
  ASSERT_FALSE(t.has_value());
  EXPECT_EQ(t.error().message.rfind(path, 0), 0u) << t.error().message;
  EXPECT_TRUE(std::ranges::all_of(t.error().message, [](char c) { return c >= 0x20 && c < 0x7F; }))
      << "one printable line: " << t.error().message;
}

TEST(NsysSqlite, ProgressIsReportedPerTable) {
  std::string path = WriteBigSchemaV3("progress.sqlite");
  std::map<std::string, std::int64_t> last;
  NsysReadOptions options{
      .progress = [&](std::string_view table, std::int64_t rows) { last[std::string(table)] = rows; }};
  auto t = ReadNsysSqlite(path, options);
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(last.at("CUPTI_ACTIVITY_KIND_KERNEL"), 3003);
  EXPECT_EQ(last.at("CUPTI_ACTIVITY_KIND_RUNTIME"), 4);
  EXPECT_EQ(last.at("NVTX_EVENTS"), 8);
}

}  // namespace
}  // namespace plasmient::ingest::nsys
