#include "ingest/kineto_json/kineto_json_reader.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "ingest/testing/kineto_json_test_util.h"

namespace plasmient::ingest {
namespace {

using model::CpuOpKind;
using model::Dq;
using model::GpuKind;

model::Trace ReadOk(std::string_view text, std::size_t chunk = 0, bool threaded = true) {
  IngestOptions options;
  options.chunk_bytes = chunk;
  options.batch_bytes = 64;  // several batches even for tiny traces
  options.threaded = threaded;
  auto trace = ReadKinetoJsonBuffer(text, "inline.json", options);
  EXPECT_TRUE(trace.has_value()) << (trace ? "" : trace.error().message);
  return trace ? std::move(*trace) : model::Trace{};
}

std::string ReadError(std::string_view text, std::size_t chunk = 0) {
  IngestOptions options;
  options.chunk_bytes = chunk;
  auto trace = ReadKinetoJsonBuffer(text, "bad.json", options);
  EXPECT_FALSE(trace.has_value()) << text;
  return trace ? "" : trace.error().message;
}

// One event of each modeled category, modern names.
constexpr std::string_view kModern = R"j({"schemaVersion": 1,
 "traceEvents": [
  {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 10, "tid": 11, "ts": 100.5, "dur": 20,
   "args": {"External id": 7, "Input Dims": [[8, 512], [512, 1024]], "Input type": ["c10::BFloat16", "c10::BFloat16"],
            "Concrete Inputs": ["", ""]}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 10, "tid": 11, "ts": 110, "dur": 5,
   "args": {"External id": 7, "correlation": 99}},
  {"ph": "X", "cat": "cuda_driver", "name": "cuLaunchKernel", "pid": 10, "tid": 11, "ts": 111, "dur": 1,
   "args": {"correlation": 100}},
  {"ph": "X", "cat": "kernel", "name": "sm90_gemm", "pid": 0, "tid": 7, "ts": 120.25, "dur": 30.125,
   "args": {"External id": 7, "device": 0, "stream": 7, "correlation": 99, "grid": [1, 2, 3]}},
  {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD", "pid": 0, "tid": 7, "ts": 160, "dur": 2,
   "args": {"device": 0, "stream": 7, "correlation": 101, "bytes": 4096}},
  {"ph": "X", "cat": "gpu_memset", "name": "Memset", "pid": 0, "tid": 7, "ts": 170, "dur": 1,
   "args": {"device": 0, "stream": 7, "correlation": 102, "bytes": 128}},
  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#42", "pid": 10, "tid": 11, "ts": 90, "dur": 200},
  {"ph": "X", "cat": "user_annotation", "name": "forward", "pid": 10, "tid": 11, "ts": 95, "dur": 100},
  {"ph": "X", "cat": "gpu_user_annotation", "name": "forward", "pid": 0, "tid": 7, "ts": 120, "dur": 50},
  {"ph": "X", "cat": "python_function", "name": "f.py(1): g", "pid": 10, "tid": 11, "ts": 95, "dur": 1},
  {"ph": "X", "cat": "cuda_profiler_range", "name": "k", "pid": 0, "tid": 7, "ts": 95, "dur": 1},
  {"ph": "X", "cat": "Trace", "name": "PyTorch Profiler (0)", "pid": "Spans", "tid": "PyTorch Profiler", "ts": 90, "dur": 300},
  {"ph": "X", "cat": "overhead", "name": "Buffer Flush", "pid": -1, "tid": 0, "ts": 180, "dur": 4.5},
  {"ph": "s", "id": 99, "pid": 10, "tid": 11, "ts": 110, "cat": "ac2g", "name": "ac2g"},
  {"ph": "f", "id": 99, "pid": 0, "tid": 7, "ts": 120, "cat": "ac2g", "name": "ac2g", "bp": "e"},
  {"ph": "i", "s": "t", "name": "[memory]", "pid": 10, "tid": 11, "ts": 100, "args": {"Bytes": 10}},
  {"ph": "M", "name": "process_name", "pid": 10, "tid": 0, "args": {"name": "pyper:trainer:0:1"}},
  {"ph": "C", "name": "gpu util", "pid": 0, "ts": 130, "args": {"sm_active": 0.5, "dram": 12}}
 ],
 "traceName": "x"}
)j";

TEST(KinetoJsonReaderTest, EachCategoryBecomesItsRow) {
  model::Trace t = ReadOk(kModern);
  EXPECT_EQ(t.info.format, "kineto-json");
  EXPECT_EQ(t.info.events, 18);
  EXPECT_EQ(t.info.input_bytes, static_cast<std::int64_t>(kModern.size()));

  ASSERT_EQ(t.cpu.size(), 3u);
  EXPECT_EQ(t.Str(t.cpu.name[0]), "aten::mm");
  EXPECT_EQ(t.cpu.kind[0], CpuOpKind::kOp);
  EXPECT_EQ(t.cpu.start_ns[0], 100'500);
  EXPECT_EQ(t.cpu.end_ns[0], 120'500);
  EXPECT_EQ(t.cpu.pid[0], 10);
  EXPECT_EQ(t.cpu.tid[0], 11);
  EXPECT_EQ(t.cpu.external_id[0], 7);
  EXPECT_EQ(t.Str(t.cpu.input_dims[0]), "[[8,512],[512,1024]]");
  EXPECT_EQ(t.Str(t.cpu.input_types[0]), R"j(["c10::BFloat16","c10::BFloat16"])j");
  EXPECT_EQ(t.Str(t.cpu.concrete_inputs[0]), R"j(["",""])j");
  EXPECT_EQ(t.cpu.kind[1], CpuOpKind::kStep);
  EXPECT_EQ(t.cpu.step[1], 42);
  EXPECT_EQ(t.cpu.kind[2], CpuOpKind::kAnnotation);
  EXPECT_EQ(t.cpu.step[2], model::kNoId);

  // The profiler's own work, on its own "CUPTI Overhead" process (pid -1): on no thread.
  ASSERT_EQ(t.overhead.size(), 1u);
  EXPECT_EQ(t.Str(t.overhead.name[0]), "Buffer Flush");
  EXPECT_EQ(t.overhead.start_ns[0], 180'000);
  EXPECT_EQ(t.overhead.end_ns[0], 184'500);
  EXPECT_EQ(t.overhead.pid[0], model::kNoId);
  EXPECT_EQ(t.overhead.tid[0], model::kNoId);

  ASSERT_EQ(t.api.size(), 2u);
  EXPECT_EQ(t.api.correlation[0], 99);
  EXPECT_EQ(t.api.external_id[0], 7);
  EXPECT_EQ(t.Str(t.api.name[1]), "cuLaunchKernel");
  EXPECT_EQ(t.api.correlation[1], 100);

  ASSERT_EQ(t.gpu.size(), 3u);
  EXPECT_EQ(t.gpu.kind[0], GpuKind::kKernel);
  EXPECT_EQ(t.gpu.start_ns[0], 120'250);
  EXPECT_EQ(t.gpu.end_ns[0], 150'375);
  EXPECT_EQ(t.gpu.stream[0], 7);
  EXPECT_EQ(t.gpu.correlation[0], 99);
  EXPECT_EQ(t.gpu.bytes[0], 0);
  EXPECT_EQ(t.gpu.kind[1], GpuKind::kMemcpy);
  EXPECT_EQ(t.gpu.bytes[1], 4096);
  EXPECT_EQ(t.gpu.kind[2], GpuKind::kMemset);
  EXPECT_EQ(t.gpu.bytes[2], 128);

  ASSERT_EQ(t.samples.size(), 2u);
  EXPECT_EQ(t.Str(t.samples.metric[0]), "sm_active");
  EXPECT_DOUBLE_EQ(t.samples.value[0], 0.5);
  EXPECT_EQ(t.samples.ts_ns[1], 130'000);

  EXPECT_EQ(t.quality.Get(Dq::kUnknownCategory), 2);  // gpu_user_annotation, Trace
  EXPECT_EQ(t.quality.Get(Dq::kPythonFunctionsSkipped), 1);
  EXPECT_EQ(t.quality.Get(Dq::kCuptiRangeProfilerEvents), 1);
  EXPECT_EQ(t.quality.Get(Dq::kFlowEventsSkipped), 2);
  EXPECT_EQ(t.quality.Get(Dq::kInstantEventsSkipped), 1);
  EXPECT_EQ(t.quality.Get(Dq::kCounterEvents), 1);
  EXPECT_EQ(t.quality.Get(Dq::kMalformedEvent), 0);
  EXPECT_EQ(t.info.base_time_ns, 0);
}

TEST(KinetoJsonReaderTest, EveryChunkBoundaryGivesTheSameTrace) {
  model::Trace whole = ReadOk(kModern, 0, false);
  std::string gz = testing::Gzip(kModern);
  for (std::size_t chunk = 1; chunk <= kModern.size() + 1; chunk += (chunk < 64 ? 1 : 7)) {
    for (std::string_view input : {kModern, std::string_view(gz)}) {
      model::Trace t = ReadOk(input, chunk, chunk % 2 == 0);
      ASSERT_EQ(t.gpu.start_ns, whole.gpu.start_ns) << chunk;
      ASSERT_EQ(t.cpu.end_ns, whole.cpu.end_ns) << chunk;
      ASSERT_EQ(t.api.correlation, whole.api.correlation) << chunk;
      ASSERT_EQ(t.overhead.end_ns, whole.overhead.end_ns) << chunk;
      ASSERT_EQ(t.cpu.input_dims.size(), whole.cpu.input_dims.size());
      ASSERT_EQ(t.Str(t.cpu.input_dims[0]), whole.Str(whole.cpu.input_dims[0])) << chunk;
      ASSERT_EQ(t.quality.NonZero(), whole.quality.NonZero()) << chunk;
    }
  }
}

// Shapes and types are kept compact: the same raw text always gives the same compact text,
// however often it repeats, whatever was read between (more distinct shapes than the parser
// remembers), and texts that differ only in whitespace give one compact text.
TEST(KinetoJsonReaderTest, ShapesAreCompactWhetherSeenBeforeOrNot) {
  std::string text = R"({"traceEvents": [)";
  std::vector<std::string> expected_dims, expected_types;
  for (int pass = 0; pass < 2; ++pass) {
    for (int i = 0; i < 5000; ++i) {
      const int n = i % 3 == 0 ? 7 : i;  // one shape repeated throughout, the rest each its own
      const char* space = i % 2 == 0 ? " " : "  ";
      text += fmt::format(R"({}{{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": {},
        "dur": 1, "args": {{"Input Dims": [[{},{}512], []], "Input type": ["float",{}"c10::Half"],
        "Concrete Inputs": ["",{}"1"]}}}})",
                          pass + i == 0 ? "" : ",", pass * 5000 + i, n, space, space, space);
      expected_dims.push_back(fmt::format("[[{},512],[]]", n));
      expected_types.push_back(R"(["float","c10::Half"])");
    }
  }
  text += "]}";
  for (bool threaded : {false, true}) {
    model::Trace t = ReadOk(text, 0, threaded);
    ASSERT_EQ(t.cpu.size(), expected_dims.size());
    for (std::size_t k = 0; k < t.cpu.size(); ++k) {
      ASSERT_EQ(t.strings.Get(t.cpu.input_dims[k]), expected_dims[k]) << k;
      ASSERT_EQ(t.strings.Get(t.cpu.input_types[k]), expected_types[k]) << k;
      ASSERT_EQ(t.strings.Get(t.cpu.concrete_inputs[k]), R"(["","1"])") << k;
    }
  }
}

TEST(KinetoJsonReaderTest, LegacyNamesStringTidsAndLowerCaseExternalId) {
  constexpr std::string_view kLegacy = R"j({"schemaVersion": 1, "traceEvents": [
    {"ph": "X", "cat": "Operator", "name": "ProfilerStep#5", "pid": 25738, "tid": "25738", "ts": 1000, "dur": 900},
    {"ph": "X", "cat": "Operator", "name": "aten::conv2d", "pid": 25738, "tid": "25738", "ts": 1010, "dur": 50,
     "args": {"External id": 3, "Input dims": [[32, 3, 224, 224], [64, 3, 7, 7]]}},
    {"ph": "X", "cat": "Runtime", "name": "cudaLaunchKernel", "pid": 25738, "tid": "25738", "ts": 1020, "dur": 5,
     "args": {"cbid": 211, "correlation": 500, "external id": 3}},
    {"ph": "X", "cat": "Kernel", "name": "implicit_gemm", "pid": 0, "tid": "stream 7", "ts": 1030, "dur": 10,
     "args": {"correlation": 500, "external id": 3}},
    {"ph": "X", "cat": "Memcpy", "name": "Memcpy DtoH", "pid": 0, "tid": "stream 9", "ts": 1050, "dur": 1,
     "args": {"device": 0, "stream": 9, "bytes": 64}},
    {"ph": "X", "cat": "Memset", "name": "Memset", "pid": 1, "tid": "stream 9", "ts": 1060, "dur": 1},
    {"ph": "X", "cat": "Kernel", "name": "odd", "pid": 0, "tid": "weird", "ts": 1070, "dur": 1},
    {"ph": "s", "id": 500, "pid": 25738, "tid": 25738, "ts": 1020, "cat": "async", "name": "launch"}
  ]})j";
  model::Trace t = ReadOk(kLegacy, 13);
  ASSERT_EQ(t.cpu.size(), 2u);
  EXPECT_EQ(t.cpu.kind[0], CpuOpKind::kStep);
  EXPECT_EQ(t.cpu.step[0], 5);
  EXPECT_EQ(t.cpu.tid[1], 25738);
  EXPECT_EQ(t.cpu.external_id[1], 3);
  EXPECT_EQ(t.Str(t.cpu.input_dims[1]), "[[32,3,224,224],[64,3,7,7]]");
  ASSERT_EQ(t.api.size(), 1u);
  EXPECT_EQ(t.api.external_id[0], 3);
  EXPECT_EQ(t.api.tid[0], 25738);
  ASSERT_EQ(t.gpu.size(), 4u);
  EXPECT_EQ(t.gpu.stream[0], 7);  // from tid "stream 7"
  EXPECT_EQ(t.gpu.device[0], 0);
  EXPECT_EQ(t.gpu.external_id[0], 3);
  EXPECT_EQ(t.gpu.kind[1], GpuKind::kMemcpy);
  EXPECT_EQ(t.gpu.bytes[1], 64);
  EXPECT_EQ(t.gpu.kind[2], GpuKind::kMemset);
  EXPECT_EQ(t.gpu.device[2], 1);  // from pid
  EXPECT_EQ(t.gpu.stream[3], model::kNoId);
  EXPECT_EQ(t.quality.Get(Dq::kNonNumericId), 1);
  EXPECT_EQ(t.quality.Get(Dq::kFlowEventsSkipped), 1);
}

// Keys are matched as written: an escape never makes one of the keys the parser reads, and a
// key runs to its first unescaped quote wherever the escapes fall (before or past 16 bytes).
TEST(KinetoJsonReaderTest, EscapedKeysAreReadAsWritten) {
  constexpr std::string_view kEscaped = R"j({"traceEvents": [
    {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 10, "dur": 1,
     "args": {"devic\u0065": 5, "stream\\": 6, "a long key with \"quotes\" in it": 1, "device": 2,
              "correlation": 9}},
    {"ph": "C", "name": "counters", "pid": 3, "ts": 20,
     "args": {"a\"b": 1.5, "0123456789abcdef\\\"x": 2.5, "plain": 3.5}}
  ]})j";
  model::Trace t = ReadOk(kEscaped);
  ASSERT_EQ(t.gpu.size(), 1u);
  EXPECT_EQ(t.gpu.device[0], 2);
  EXPECT_EQ(t.gpu.stream[0], 7);  // "stream\\" is not "stream": the tid stands
  EXPECT_EQ(t.gpu.correlation[0], 9);
  ASSERT_EQ(t.samples.size(), 3u);
  EXPECT_EQ(t.Str(t.samples.metric[0]), R"(a\"b)");
  EXPECT_EQ(t.Str(t.samples.metric[1]), R"(0123456789abcdef\\\"x)");
  EXPECT_EQ(t.Str(t.samples.metric[2]), "plain");
  EXPECT_EQ(t.samples.value[1], 2.5);
}

TEST(KinetoJsonReaderTest, NanosecondFractionsAreExact) {
  constexpr std::string_view kNs = R"j({"traceEvents": [
    {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1712195495406752.8, "dur": 0.001},
    {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1712195495406753.123, "dur": 2.5}
  ]})j";
  model::Trace t = ReadOk(kNs);
  ASSERT_EQ(t.gpu.size(), 2u);
  EXPECT_EQ(t.gpu.start_ns[0], 1712195495406752800);
  EXPECT_EQ(t.gpu.end_ns[0], 1712195495406752801);
  EXPECT_EQ(t.gpu.start_ns[1], 1712195495406753123);
  EXPECT_EQ(t.gpu.end_ns[1], 1712195495406755623);
}

TEST(KinetoJsonReaderTest, BaseTimeAppliesEvenWhenItComesAfterTheEvents) {
  constexpr std::string_view kAfter = R"j({"traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "a", "pid": 1, "tid": 1, "ts": 4203669604595.407, "dur": 1},
    {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 4203669604600, "dur": 1}
  ], "deviceProperties": [{"id": 2, "name": "AMD Instinct MI300X", "numSms": 304, "computeMajor": 9,
     "computeMinor": 4, "totalGlobalMem": 206141652992, "warpSize": 64}],
   "distributedInfo": {"backend": "nccl", "rank": 3, "world_size": 8,
     "pg_config": [{"pg_name": "0", "ranks": [0, 1]}]},
   "host_name": "node7",
   "baseTimeNanoseconds": 1735632360000000000})j";
  model::Trace t = ReadOk(kAfter, 9);
  EXPECT_EQ(t.info.base_time_ns, 1735632360000000000);
  EXPECT_EQ(t.cpu.start_ns[0], 1735632360000000000 + 4203669604595407);
  EXPECT_EQ(t.gpu.end_ns[0], 1735632360000000000 + 4203669604601000);
  ASSERT_EQ(t.devices.size(), 1u);
  EXPECT_EQ(t.devices[0].id, 2);
  EXPECT_EQ(t.devices[0].name, "AMD Instinct MI300X");
  EXPECT_EQ(t.devices[0].sm_count, 304);
  EXPECT_EQ(t.devices[0].cc_major, 9);
  EXPECT_EQ(t.devices[0].cc_minor, 4);
  EXPECT_EQ(t.devices[0].total_memory_bytes, 206141652992);
  EXPECT_EQ(t.info.rank, 3);
  EXPECT_EQ(t.info.world_size, 8);
  EXPECT_EQ(t.info.backend, "nccl");
  EXPECT_EQ(t.info.pg_config, R"j([{"pg_name":"0","ranks":[0,1]}])j");
  EXPECT_EQ(t.info.hostname, "node7");
}

TEST(KinetoJsonReaderTest, BaseTimeWithAbsoluteTimestampsIsNotAdded) {
  model::Trace t = ReadOk(R"j({"baseTimeNanoseconds": 1735632360000000000, "traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "a", "pid": 1, "tid": 1, "ts": 1712195495406752, "dur": 1}]})j");
  EXPECT_EQ(t.cpu.start_ns[0], 1712195495406752000);
  EXPECT_EQ(t.info.base_time_ns, 0);
  EXPECT_EQ(t.quality.Get(Dq::kAmbiguousTimebase), 1);
}

TEST(KinetoJsonReaderTest, BaseTimeThatOverflowsTheClockIsAnError) {
  // One relative timestamp ~280 years in: adding the epoch base would overflow int64 nanoseconds.
  std::string error = ReadError(R"j({"baseTimeNanoseconds": 1775078550000000000, "traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "a", "pid": 1, "tid": 1, "ts": 5, "dur": 1},
    {"ph": "X", "cat": "cpu_op", "name": "b", "pid": 1, "tid": 1, "ts": 8851138820233472, "dur": 1}]})j");
  EXPECT_NE(error.find("baseTimeNanoseconds"), std::string::npos) << error;
  EXPECT_NE(error.find("64-bit nanosecond range"), std::string::npos) << error;
  // The byte offset is where the key's value begins: just after "baseTimeNanoseconds": .
  EXPECT_NE(error.find("at byte 24"), std::string::npos) << error;
}

TEST(KinetoJsonReaderTest, EndBeyondTheClockIsAMalformedEvent) {
  model::Trace t = ReadOk(R"j({"traceEvents": [
    {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 9000000000000000, "dur": 9000000000000000},
    {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 10, "dur": 1}]})j");
  EXPECT_EQ(t.gpu.size(), 1u);
  EXPECT_EQ(t.quality.Get(Dq::kMalformedEvent), 1);
}

TEST(KinetoJsonReaderTest, CollectiveArgsOnOpsAndKernels) {
  constexpr std::string_view kComms = R"j({"traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "record_param_comms", "pid": 1, "tid": 2, "ts": 10, "dur": 5,
     "args": {"External id": 9, "Collective name": "allreduce", "In msg nelems": 2049000, "Out msg nelems": 2049000,
              "Group size": 2, "dtype": "Float", "Process Group Name": "0", "Process Group Description": "default_pg",
              "Process Group Ranks": "[0, 1]"}},
    {"ph": "X", "cat": "user_annotation", "name": "nccl:all_reduce", "pid": 1, "tid": 2, "ts": 11, "dur": 3},
    {"ph": "X", "cat": "kernel", "name": "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)",
     "pid": 0, "tid": 40, "ts": 20, "dur": 100,
     "args": {"device": 0, "stream": 40, "correlation": 5, "Collective name": "allreduce", "In msg nelems": 6637568,
              "Out msg nelems": 6637568, "Group size": 2, "dtype": "Float", "Process Group Name": "0",
              "Process Group Ranks": "[0, 1]"}},
    {"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
     "pid": 0, "tid": 40, "ts": 130, "dur": 10, "args": {"device": 0, "stream": 40}},
    {"ph": "X", "cat": "cpu_op", "name": "record_param_comms", "pid": 1, "tid": 2, "ts": 40, "dur": 5,
     "args": {"Collective name": "broadcast", "Process Group ID": 3, "Group size": 1, "dtype": "BFloat16"}}
  ]})j";
  model::Trace t = ReadOk(kComms);
  ASSERT_EQ(t.collectives.size(), 4u);
  const auto& c = t.collectives;
  EXPECT_EQ(c.cpu_op[0], 0);
  EXPECT_EQ(c.gpu[0], -1);
  EXPECT_EQ(t.Str(c.name[0]), "allreduce");
  EXPECT_EQ(c.in_nelems[0], 2049000);
  EXPECT_EQ(c.out_nelems[0], 2049000);
  EXPECT_EQ(c.group_size[0], 2);
  EXPECT_EQ(t.Str(c.dtype[0]), "Float");
  EXPECT_EQ(t.Str(c.pg_name[0]), "0");
  EXPECT_EQ(t.Str(c.pg_ranks[0]), "[0, 1]");
  EXPECT_EQ(c.gpu[1], 0);
  EXPECT_EQ(c.cpu_op[1], -1);
  EXPECT_EQ(c.in_nelems[1], 6637568);
  EXPECT_EQ(c.gpu[2], 1);
  EXPECT_EQ(t.Str(c.name[2]), "allgather");  // from the kernel name: no args
  EXPECT_EQ(c.in_nelems[2], -1);
  EXPECT_EQ(c.cpu_op[3], 2);
  EXPECT_EQ(t.Str(c.pg_name[3]), "3");
  EXPECT_EQ(t.Str(c.dtype[3]), "BFloat16");
}

TEST(KinetoJsonReaderTest, NcclRangesDescribeCollectivesWhenOpsCarryNoArgs) {
  model::Trace t = ReadOk(R"j({"traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "record_param_comms", "pid": 1, "tid": 2, "ts": 10, "dur": 5,
     "args": {"Input Dims": [[339738624], []]}},
    {"ph": "X", "cat": "user_annotation", "name": "nccl:all_to_all", "pid": 1, "tid": 2, "ts": 11, "dur": 3}]})j");
  ASSERT_EQ(t.collectives.size(), 1u);
  EXPECT_EQ(t.collectives.cpu_op[0], 1);
  EXPECT_EQ(t.Str(t.collectives.name[0]), "all_to_all");
}

TEST(KinetoJsonReaderTest, BadEventsAreCountedAndSkipped) {
  model::Trace t = ReadOk(R"j({"traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "no_ts", "pid": 1, "tid": 1, "dur": 1},
    {"ph": "X", "cat": "cpu_op", "name": "neg", "pid": 1, "tid": 1, "ts": 5, "dur": -3},
    {"ph": "X", "cat": "cpu_op", "name": "nodur", "pid": 1, "tid": 1, "ts": 6},
    {"cat": "cpu_op", "name": "no_ph", "ts": 1},
    {"ph": "X", "cat": "cpu_op", "name": "str_ts", "ts": "12", "dur": 1},
    {"ph": "X", "cat": "cpu_op", "name": "garbled" "ts": 1},
    {"ph": "Q", "name": "weird phase", "ts": 1},
    [1, 2],
    "text",
    {"ph": "X", "cat": "cpu_op", "name": "fine", "pid": 1, "tid": 1, "ts": 7, "dur": 1}
  ]})j",
                          5);
  ASSERT_EQ(t.cpu.size(), 3u);
  EXPECT_EQ(t.Str(t.cpu.name[0]), "neg");
  EXPECT_EQ(t.cpu.end_ns[0], t.cpu.start_ns[0]);
  EXPECT_EQ(t.Str(t.cpu.name[2]), "fine");
  EXPECT_EQ(t.quality.Get(Dq::kNegativeDuration), 1);
  EXPECT_EQ(t.quality.Get(Dq::kMissingDuration), 1);
  EXPECT_EQ(t.quality.Get(Dq::kUnknownPhase), 1);
  EXPECT_EQ(t.quality.Get(Dq::kMalformedEvent), 6);  // no_ts, no_ph, str_ts, garbled, [1,2], "text"
  EXPECT_EQ(t.info.events, 10);
}

TEST(KinetoJsonReaderTest, AsyncEventsCountAsAsyncWithTheirFirstByteOffset) {
  constexpr std::string_view kText = R"j({"traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "fine", "pid": 1, "tid": 1, "ts": 7, "dur": 1},
    {"ph": "b", "cat": "gpu_user_annotation", "name": "a", "id": 1, "pid": 1, "tid": 1, "ts": 8},
    {"ph": "e", "cat": "gpu_user_annotation", "name": "a", "id": 1, "pid": 1, "tid": 1, "ts": 9},
    {"ph": "X", "cat": "cpu_op", "name": "neg", "pid": 1, "tid": 1, "ts": 5, "dur": -3}
  ]})j";
  for (std::size_t chunk : {std::size_t{0}, std::size_t{7}}) {
    model::Trace t = ReadOk(kText, chunk);
    EXPECT_EQ(t.quality.Get(Dq::kAsyncEventsSkipped), 2);
    EXPECT_EQ(t.quality.Get(Dq::kUnknownCategory), 0);
    // The first async event and the negative duration, where they begin in the file.
    EXPECT_EQ(t.quality.FirstOffset(Dq::kAsyncEventsSkipped),
              static_cast<std::int64_t>(kText.find(R"({"ph": "b")")));
    EXPECT_EQ(t.quality.FirstOffset(Dq::kNegativeDuration),
              static_cast<std::int64_t>(kText.find(R"({"ph": "X", "cat": "cpu_op", "name": "neg")")));
    EXPECT_EQ(t.quality.FirstOffset(Dq::kMissingDuration), -1);  // none
  }
}

TEST(KinetoJsonReaderTest, CpuOnlyTraceIsNotAnError) {
  model::Trace t = ReadOk(R"j({"traceEvents": [
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#551", "pid": 1, "tid": 1, "ts": 5.5, "dur": 1}]})j");
  EXPECT_EQ(t.gpu.size(), 0u);
  EXPECT_EQ(t.cpu.size(), 1u);
}

TEST(KinetoJsonReaderTest, FatalInputsNameTheFileAndByte) {
  const std::string_view cases[] = {
      "",
      "not json at all",
      R"j({"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "ts": 1, "dur": 1},)",
      R"({"traceEvents": [{"ph": "X"}], "deviceProperties": [)",
      R"({"deviceProperties": []})j",
  };
  for (std::string_view text : cases) {
    for (std::size_t chunk : {1u, 3u, 0u}) {
      std::string error = ReadError(text, chunk);
      EXPECT_NE(error.find("bad.json: "), std::string::npos) << error;
      EXPECT_NE(error.find(" at byte "), std::string::npos) << error;
    }
    std::string gz = testing::Gzip(text);
    std::string error = ReadError(gz, 4);
    EXPECT_NE(error.find("bad.json"), std::string::npos) << error;
    EXPECT_NE(error.find("byte"), std::string::npos) << error;
  }
  std::string gz = testing::Gzip(kModern);
  std::string error = ReadError(std::string_view(gz).substr(0, gz.size() - 20), 16);
  EXPECT_NE(error.find("truncated gzip"), std::string::npos) << error;
  gz[gz.size() / 2] ^= 0x55;
  gz[gz.size() / 2 + 1] ^= 0x55;
  EXPECT_FALSE(ReadError(gz, 16).empty());
}

TEST(KinetoJsonReaderTest, ReadsFilesByContentAndReportsProgress) {
  auto path = std::filesystem::temp_directory_path() / "plasmient_kineto_reader_test.trace";
  std::ofstream(path, std::ios::binary) << testing::Gzip(kModern);
  std::int64_t last_done = -1, last_total = -1;
  int calls = 0;
  IngestOptions options;
  options.progress = [&](std::int64_t done, std::int64_t total) {
    EXPECT_GE(done, last_done);
    last_done = done;
    last_total = total;
    ++calls;
  };
  auto t = ReadKinetoJson(path.string(), options);
  ASSERT_TRUE(t.has_value()) << t.error().message;
  EXPECT_EQ(t->info.format, "kineto-json.gz");
  EXPECT_EQ(t->info.input_bytes, static_cast<std::int64_t>(kModern.size()));
  EXPECT_EQ(t->gpu.size(), 3u);
  EXPECT_GE(calls, 1);
  EXPECT_EQ(last_done, last_total);
  EXPECT_EQ(last_total, static_cast<std::int64_t>(std::filesystem::file_size(path)));
  std::filesystem::remove(path);
  auto missing = ReadKinetoJson(path.string());
  ASSERT_FALSE(missing.has_value());
  EXPECT_NE(missing.error().message.find(path.filename().string()), std::string::npos);
}

TEST(KinetoJsonReaderTest, ModuleHierarchyKeptWhenWellFormedElseCounted) {
  constexpr std::string_view kText = R"j({"traceEvents": [
  {"ph": "X", "cat": "cpu_op", "name": "aten::linear", "pid": 1, "tid": 1, "ts": 10, "dur": 5,
   "args": {"Module Hierarchy": "top(Net)::<unknown>.fc(Linear)::forward.aten::linear"}},
  {"ph": "X", "cat": "cpu_op", "name": "aten::relu", "pid": 1, "tid": 1, "ts": 20, "dur": 5,
   "args": {"Module Hierarchy": "top(Net)::<unknown>.act(ReLU::forward.aten::relu"}},
  {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 30, "dur": 5,
   "args": {"Module Hierarchy": ""}},
  {"ph": "X", "cat": "user_annotation", "name": "r", "pid": 1, "tid": 1, "ts": 40, "dur": 5,
   "args": {"Module Hierarchy": "top(Net).r"}}
 ]})j";
  model::Trace t = ReadOk(kText);
  ASSERT_EQ(t.cpu.size(), 4u);
  EXPECT_EQ(t.Str(t.cpu.module_hierarchy[0]), "top(Net)::<unknown>.fc(Linear)::forward.aten::linear");
  EXPECT_TRUE(t.cpu.module_hierarchy[1].empty());  // unbalanced: no module, counted
  EXPECT_TRUE(t.cpu.module_hierarchy[2].empty());  // empty: not a finding
  EXPECT_TRUE(t.cpu.module_hierarchy[3].empty());  // only ops carry one
  EXPECT_EQ(t.quality.Get(Dq::kMalformedModuleHierarchy), 1);
  EXPECT_EQ(t.quality.FirstOffset(Dq::kMalformedModuleHierarchy),
            static_cast<std::int64_t>(kText.find(R"({"ph": "X", "cat": "cpu_op", "name": "aten::relu")")));
}

}  // namespace
}  // namespace plasmient::ingest
