// Parsing batches on several threads gives the trace a one-thread parse gives: the same rows in
// the same order, the same interned strings, the same data-quality counts and first offsets, and
// on bad input the same one-line error at the same byte.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "ingest/kineto_json/kineto_json_reader.h"
#include "ingest/testing/kineto_json_test_util.h"

namespace plasmient::ingest {
namespace {

void ExpectSameTrace(const model::Trace& a, const model::Trace& b) {
  testing::ExpectSameRows(a, b);
  EXPECT_EQ(a.info.events, b.info.events);
  EXPECT_EQ(a.info.input_bytes, b.info.input_bytes);
  EXPECT_EQ(a.info.base_time_ns, b.info.base_time_ns);
  EXPECT_EQ(a.info.rank, b.info.rank);
  EXPECT_EQ(a.devices.size(), b.devices.size());
}

// A trace with every kind of event the parser tells apart, in a random order: rows of each table,
// collectives on ops and kernels, nccl:* ranges, counters, escaped names, minified arguments and
// events that only the one-event slow path gets through.
std::string MixedTrace(std::size_t events, unsigned seed) {
  std::mt19937 rng(seed);
  std::string text =
      R"({"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA H100", "numSms": 132}],
 "distributedInfo": {"rank": 3, "world_size": 8, "backend": "nccl"}, "traceEvents": [)";
  for (std::size_t i = 0; i < events; ++i) {
    std::string ts = std::to_string(1000 + i * 7) + "." + std::to_string(rng() % 1000);
    std::string dur = std::to_string(rng() % 500);
    std::string n = std::to_string(rng() % 40);
    if (i > 0) text += ",\n";
    switch (rng() % 14) {
      case 0:
        text += R"({"ph": "X", "cat": "cpu_op", "name": "aten::mm)" + n + R"(", "pid": 1, "tid": 2, "ts": )" +
                ts + R"(, "dur": )" + dur + R"(, "args": {"External id": )" + n + R"(, "Input Dims": [[8, )" +
                n + R"(], [512, 1024]], "Input type": ["float", "c10::Half"],
                "Concrete Inputs": ["", "[1, 2]"], "Sequence number": 4, "Fwd thread id": 1,
                "Module Hierarchy": "top.layer)" +
                n + R"(.mm"}})";
        break;
      case 1:
        text += R"({"ph": "X", "cat": "kernel", "name": "sm90_gemm_)" + n +
                R"(", "pid": 0, "tid": 7, "ts": )" + ts + R"(, "dur": )" + dur +
                R"(, "args": {"device": 0, "stream": 7, "correlation": )" + n + "}}";
        break;
      case 2:
        text +=
            R"({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": "2", "ts": )" +
            ts + R"(, "dur": 3, "args": {"correlation": )" + n + R"(, "External id": )" + n + "}}";
        break;
      case 3:
        text += R"({"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy \"HtoD\" \u00e9)" + n +
                R"(", "pid": 0, "tid": "stream 7", "ts": )" + ts + R"(, "dur": 2, "args": {"bytes": 4096}})";
        break;
      case 4:
        text +=
            R"({"ph": "X", "cat": "cpu_op", "name": "record_param_comms", "pid": 1, "tid": 2, "ts": )" + ts +
            R"(, "dur": 5, "args": {"Collective name": "allreduce", "In msg nelems": )" + n +
            R"(, "Group size": 2, "dtype": "Float", "Process Group ID": 3, "Process Group Ranks": [0,  1]}})";
        break;
      case 5:
        text +=
            R"({"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllGather_RING_LL", "pid": 0, "tid": 40,
                "ts": )" +
            ts + R"(, "dur": 10, "args": {"device": 0, "stream": 40}})";
        break;
      case 6:
        text += R"({"ph": "X", "cat": "user_annotation", "name": "nccl:all_reduce_)" + n +
                R"(", "pid": 1, "tid": 2, "ts": )" + ts + R"(, "dur": 3})";
        break;
      case 7:
        text += R"({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#)" + n +
                R"(", "pid": 1, "tid": 2,
                "ts": )" +
                ts + R"(, "dur": 900})";
        break;
      case 8:
        text +=
            R"({"ph": "C", "name": "util", "pid": 0, "ts": )" + ts + R"(, "args": {"sm_)" + n + R"(": 0.5}})";
        break;
      case 9:
        text += R"({"ph": "X", "cat": "python_function", "name": "nn.Module: Linear_)" + n +
                R"(", "pid": 1, "tid": 2, "ts": )" + ts + R"(, "dur": 1})";
        break;
      case 10:  // only the slow path gets through these, or nothing does
        text += rng() % 2 == 0 ? R"({"ph": "X", "cat": "cpu_op", "name": "garbled" "ts": 1})"
                               : R"({"ph": "X", "cat": "cpu_op", "name": "slow)" + n + R"(", "ts": )" + ts +
                                     R"(, "dur": 1, "args": {"Input Dims": [ [1,  2] ]}, "x": [1, 2,]})";
        break;
      case 11:
        text +=
            R"({"ph": "b", "cat": "gpu_user_annotation", "name": "a", "id": 1, "pid": 1, "tid": 1, "ts": )" +
            ts + "}";
        break;
      case 12:
        text += R"({"ph": "X", "cat": "cpu_op", "name": "neg", "pid": "main", "tid": 1, "ts": )" + ts +
                R"(, "dur": -3})";
        break;
      default:
        text +=
            R"({"ph": "f", "id": 9, "pid": 0, "tid": 7, "ts": )" + ts + R"(, "cat": "ac2g", "name": "ac2g"})";
        break;
    }
  }
  text += "],\n \"baseTimeNanoseconds\": 1700000000000000000}";
  return text;
}

Result<model::Trace> Read(std::string_view text, std::size_t threads, std::size_t batch_bytes,
                          std::size_t chunk_bytes = 0) {
  IngestOptions options;
  options.threaded = threads > 0;
  options.parse_threads = threads;
  options.batch_bytes = batch_bytes;
  options.chunk_bytes = chunk_bytes;
  return ReadKinetoJsonBuffer(text, "mixed.json", options);
}

TEST(ParallelParseTest, AnyNumberOfThreadsGivesTheOneThreadTrace) {
  std::string text = MixedTrace(3000, 1);
  auto serial = Read(text, 0, 64 << 10);
  ASSERT_TRUE(serial.has_value()) << serial.error().message;
  ASSERT_GT(serial->cpu.size(), 100u);
  ASSERT_GT(serial->collectives.size(), 100u);
  ASSERT_GT(serial->quality.Get(model::Dq::kMalformedEvent), 0);
  for (std::size_t threads : {1u, 2u, 3u, 8u}) {
    for (std::size_t batch_bytes : {64u, 1000u, 64u << 10, 1u << 20}) {
      SCOPED_TRACE("threads " + std::to_string(threads) + " batch " + std::to_string(batch_bytes));
      auto parallel = Read(text, threads, batch_bytes, 4096);
      ASSERT_TRUE(parallel.has_value()) << parallel.error().message;
      ExpectSameTrace(*serial, *parallel);
    }
  }
  // And gzip, inflated on a thread of its own, in chunks of any size.
  for (std::size_t chunk_bytes : {0u, 1u, 4096u}) {
    auto gz = Read(testing::Gzip(text), 2, 1000, chunk_bytes);
    ASSERT_TRUE(gz.has_value()) << gz.error().message;
    ExpectSameTrace(*serial, *gz);
  }
}

// A file cut short or garbled anywhere fails with the one-thread error: the same words, the same
// byte offset, one line.
TEST(ParallelParseTest, BrokenInputGivesTheOneThreadError) {
  std::string text = MixedTrace(200, 2);
  std::mt19937 rng(3);
  for (int i = 0; i < 60; ++i) {
    std::string broken = text;
    std::size_t at = rng() % text.size();
    if (i % 2 == 0) {
      broken.resize(at);  // cut short
    } else {
      broken[at] = "{}[]\",:x"[rng() % 8];  // garbled
    }
    auto serial = Read(broken, 0, 500);
    for (std::size_t threads : {1u, 2u, 4u}) {
      auto parallel = Read(broken, threads, 500, 333);
      ASSERT_EQ(serial.has_value(), parallel.has_value()) << "at " << at;
      if (!serial) {
        EXPECT_EQ(parallel.error().message, serial.error().message);
        EXPECT_EQ(parallel.error().message.find('\n'), std::string::npos);
        EXPECT_NE(parallel.error().message.find(" at byte "), std::string::npos) << parallel.error().message;
      } else {
        ExpectSameTrace(*serial, *parallel);
      }
    }
  }
}

// The same for gzip cut short or garbled, or holding a broken trace: the error of inflating and
// framing on one thread, though inflating runs ahead on another.
TEST(ParallelParseTest, BrokenGzipGivesTheOneThreadError) {
  std::string text = MixedTrace(200, 4);
  std::mt19937 rng(5);
  for (int i = 0; i < 60; ++i) {
    std::string broken;
    std::size_t at = 0;
    if (i % 3 == 0) {
      broken = text;
      at = rng() % text.size();
      broken.resize(at);  // a whole gzip of a trace cut short
      broken = testing::Gzip(broken);
    } else {
      broken = testing::Gzip(text);
      at = rng() % broken.size();
      if (i % 3 == 1) {
        broken.resize(at);
      } else {
        broken[at] = static_cast<char>(broken[at] ^ (1 + rng() % 255));
      }
    }
    auto serial = Read(broken, 0, 500, 700);
    for (std::size_t threads : {1u, 2u}) {
      auto parallel = Read(broken, threads, 500, 700);
      ASSERT_EQ(serial.has_value(), parallel.has_value()) << "at " << at;
      if (!serial) {
        EXPECT_EQ(parallel.error().message, serial.error().message);
      } else {
        ExpectSameTrace(*serial, *parallel);
      }
    }
  }
}

// Every Kineto trace in the shared set, parsed on two threads and on one.
TEST(ParallelParseTest, RealTracesGiveTheOneThreadTrace) {
  auto traces = testing::SharedTracesOf("kineto-json");
  if (traces.empty()) GTEST_SKIP() << "shared traces not found: set PLASMIENT_SHARED_TRACES";
  int checked = 0;
  for (const auto& [format, path] : traces) {
    SCOPED_TRACE(path.string());
    IngestOptions one_thread;
    one_thread.threaded = false;
    IngestOptions two_threads;
    two_threads.parse_threads = 2;
    two_threads.batch_bytes = 64 << 10;  // many batches in flight at once
    auto serial = ReadKinetoJson(path.string(), one_thread);
    auto parallel = ReadKinetoJson(path.string(), two_threads);
    ASSERT_EQ(serial.has_value(), parallel.has_value());
    if (!serial) {
      EXPECT_EQ(serial.error().message, parallel.error().message);
      continue;
    }
    ExpectSameTrace(*serial, *parallel);
    ++checked;
  }
  EXPECT_GT(checked, 0);
}

}  // namespace
}  // namespace plasmient::ingest
