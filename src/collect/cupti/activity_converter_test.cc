// Synthetic CUPTI activity buffers (real CUDA 13.0 record structs filled in memory) through
// converter -> sink -> writer -> native reader, checked field by field. No driver, no libcupti.
#include "collect/cupti/activity_converter.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "collect/agent/trace_writer.h"
#include "collect/testing/fake_activity_buffer.h"
#include "ingest/native/native_reader.h"

namespace plasmient::collect {
namespace {

using FakeBuffer = FakeActivityBuffer;

const char* ApiName(wire::ApiDomain domain, std::uint32_t cbid) {
  if (domain == wire::ApiDomain::kRuntime && cbid == 211) return "cudaLaunchKernel_v7000";
  if (domain == wire::ApiDomain::kRuntime && cbid == 51) return "cudaMemcpyAsync_v3020";
  return nullptr;
}

const char kKernelName[] = "_Z10triad_gemmPfS_S_i";
const char kRangeName[] = "layer1";
const char kDeviceName[] = "NVIDIA H200";

FakeBuffer MakeBuffer() {
  FakeBuffer b;
  CUpti_ActivityDevice5 dev{};
  dev.kind = CUPTI_ACTIVITY_KIND_DEVICE;
  dev.id = 0;
  dev.numMultiprocessors = 132;
  dev.computeCapabilityMajor = 9;
  dev.coreClockRate = 1'980'000;
  dev.globalMemorySize = 150'000'000'000ull;
  dev.globalMemoryBandwidth = 4'800'000'000ull;
  dev.name = kDeviceName;
  b.Add(dev);
  CUpti_ActivityAPI api{};
  api.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
  api.cbid = 211;
  api.start = 1'000;
  api.end = 3'000;
  api.processId = 77;
  api.threadId = 88;
  api.correlationId = 5;
  b.Add(api);
  CUpti_ActivityKernel10 k{};
  k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  k.start = 4'000;
  k.end = 9'000;
  k.deviceId = 0;
  k.streamId = 13;
  k.correlationId = 5;
  k.gridX = 64;
  k.gridY = 2;
  k.gridZ = 1;
  k.blockX = 256;
  k.blockY = k.blockZ = 1;
  k.registersPerThread = 40;
  k.staticSharedMemory = 1024;
  k.dynamicSharedMemory = 2048;
  k.name = kKernelName;
  k.graphId = 3;
  k.graphNodeId = 99;
  k.clusterX = 2;
  b.Add(k);
  k.start = 10'000;
  k.end = 12'000;
  k.correlationId = 6;
  b.Add(k);  // same name pointer: interned once
  CUpti_ActivityMemcpy6 m{};
  m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
  m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_DTOH;
  m.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  m.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_PINNED;
  m.bytes = 4096;
  m.start = 13'000;
  m.end = 14'000;
  m.streamId = 13;
  m.correlationId = 700;
  m.runtimeCorrelationId = 7;
  b.Add(m);
  CUpti_ActivityMemset4 s{};
  s.kind = CUPTI_ACTIVITY_KIND_MEMSET;
  s.bytes = 512;
  s.start = 15'000;
  s.end = 15'500;
  s.streamId = 14;
  s.correlationId = 8;
  s.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  b.Add(s);
  CUpti_ActivityMarker2 start{}, end{};
  start.kind = end.kind = CUPTI_ACTIVITY_KIND_MARKER;
  start.flags = CUPTI_ACTIVITY_FLAG_MARKER_START;
  end.flags = CUPTI_ACTIVITY_FLAG_MARKER_END;
  start.id = end.id = 1;
  start.timestamp = 500;
  end.timestamp = 20'000;
  start.objectKind = end.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
  start.objectId.pt.processId = 77;
  start.objectId.pt.threadId = 88;
  start.name = kRangeName;
  b.Add(start);
  b.Add(end);
  CUpti_ActivityExternalCorrelation ext{};
  ext.kind = CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION;
  ext.externalKind = CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0;
  ext.externalId = 4242;
  ext.correlationId = 6;
  b.Add(ext);
  CUpti_ActivityContext3 ctx{};
  ctx.kind = CUPTI_ACTIVITY_KIND_CONTEXT;  // not kept
  b.Add(ctx);
  return b;
}

TEST(ActivityConverter, BufferToModelRowsFieldByField) {
  std::string path = ::testing::TempDir() + "/converter." + std::to_string(getpid()) + ".pltrace";
  RecordSink sink;
  ConverterStats stats;
  {
    TraceWriter writer(sink, WriterOptions{});
    ASSERT_EQ(writer.Open(path), "");
    ActivityConverter converter(sink, &FakeBuffer::Next, &ApiName);
    FakeBuffer b = MakeBuffer();
    FakeBuffer::Use(&b);
    EXPECT_EQ(converter.ConvertBuffer(b.data(), b.size()), 9u);
    stats = converter.stats();
    writer.Close();
  }
  EXPECT_EQ(stats.ignored, 1u);
  auto t = ingest::native::ReadNative(path);
  ASSERT_TRUE(t) << t.error().message;
  const TimeNs base = t->info.base_time_ns;

  ASSERT_EQ(t->devices.size(), 1u);
  EXPECT_EQ(t->devices[0].name, "NVIDIA H200");
  EXPECT_EQ(t->devices[0].sm_count, 132);
  EXPECT_EQ(t->devices[0].cc_major, 9);
  EXPECT_EQ(t->devices[0].sm_clock_mhz, 1980);

  ASSERT_EQ(t->api.size(), 1u);
  EXPECT_EQ(t->Str(t->api.name[0]), "cudaLaunchKernel");
  EXPECT_EQ(t->api.start_ns[0] - base, 1'000);
  EXPECT_EQ(t->api.end_ns[0] - base, 3'000);
  EXPECT_EQ(t->api.pid[0], 77);
  EXPECT_EQ(t->api.tid[0], 88);
  EXPECT_EQ(t->api.correlation[0], 5);

  ASSERT_EQ(t->gpu.size(), 4u);
  EXPECT_EQ(t->Str(t->gpu.name[0]), "triad_gemm(float*, float*, float*, int)");
  EXPECT_EQ(t->gpu.name[0], t->gpu.name[1]);
  EXPECT_EQ(t->gpu.start_ns[0] - base, 4'000);
  EXPECT_EQ(t->gpu.end_ns[0] - base, 9'000);
  EXPECT_EQ(t->gpu.stream[0], 13);
  EXPECT_EQ(t->gpu.correlation[0], 5);
  EXPECT_EQ(t->gpu.external_id[0], model::kNoId);
  EXPECT_EQ(t->gpu.external_id[1], 4242);
  EXPECT_EQ(t->gpu.kind[2], model::GpuKind::kMemcpy);
  EXPECT_EQ(t->Str(t->gpu.name[2]), "Memcpy DtoH (Device -> Pinned)");
  EXPECT_EQ(t->gpu.bytes[2], 4096);
  EXPECT_EQ(t->gpu.correlation[2], 7);
  EXPECT_EQ(t->gpu.kind[3], model::GpuKind::kMemset);
  EXPECT_EQ(t->Str(t->gpu.name[3]), "Memset (Device)");
  EXPECT_EQ(t->gpu.bytes[3], 512);
  EXPECT_EQ(t->gpu.stream[3], 14);

  ASSERT_EQ(t->cpu.size(), 1u);
  EXPECT_EQ(t->Str(t->cpu.name[0]), "layer1");
  EXPECT_EQ(t->cpu.kind[0], model::CpuOpKind::kAnnotation);
  EXPECT_EQ(t->cpu.start_ns[0] - base, 500);
  EXPECT_EQ(t->cpu.end_ns[0] - base, 20'000);
  EXPECT_EQ(t->cpu.tid[0], 88);

  EXPECT_EQ(t->quality.Get(model::Dq::kTruncatedNativeFile), 0);
  EXPECT_EQ(t->quality.Get(model::Dq::kDroppedRecords), 0);
  std::remove(path.c_str());
}

TEST(ActivityConverter, KillMidWriteRecoversEveryCompleteChunk) {
  std::string path = ::testing::TempDir() + "/cut." + std::to_string(getpid()) + ".pltrace";
  constexpr int kBuffers = 40;
  {
    RecordSink sink(SinkOptions{4096, 64, 64});
    // Small chunks so the file has many.
    TraceWriter writer(sink, WriterOptions{1, 2048, 1'000'000, 5'000'000'000});
    ASSERT_EQ(writer.Open(path), "");
    ActivityConverter converter(sink, &FakeBuffer::Next, &ApiName);
    FakeBuffer b = MakeBuffer();
    FakeBuffer::Use(&b);
    for (int i = 0; i < kBuffers; ++i) {
      converter.ConvertBuffer(b.data(), b.size());
    }
    writer.Close();
  }
  std::ifstream in(path, std::ios::binary);
  std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)), {});
  auto whole = ingest::native::ReadNativeBytes(bytes.data(), bytes.size(), path);
  ASSERT_TRUE(whole);
  ASSERT_EQ(whole->gpu.size(), 4u * kBuffers);
  std::srand(11);
  std::size_t last_kernels = 0;
  std::vector<std::size_t> cuts;
  for (int i = 0; i < 300; ++i) cuts.push_back(static_cast<std::size_t>(std::rand()) % bytes.size());
  std::sort(cuts.begin(), cuts.end());
  for (std::size_t cut : cuts) {
    auto t = ingest::native::ReadNativeBytes(bytes.data(), cut, path);
    ASSERT_TRUE(t) << "cut " << cut << ": " << t.error().message;
    EXPECT_EQ(t->quality.Get(model::Dq::kTruncatedNativeFile), 1);
    EXPECT_EQ(t->quality.Get(model::Dq::kCorruptChunk), 0);
    EXPECT_GE(t->gpu.size(), last_kernels);
    EXPECT_LE(t->gpu.size(), whole->gpu.size());
    last_kernels = t->gpu.size();
  }
  EXPECT_GT(last_kernels, 0u);
  std::remove(path.c_str());
}

TEST(ActivityConverter, FullPoolDropsAreCountedInTheFile) {
  std::string path = ::testing::TempDir() + "/drops." + std::to_string(getpid()) + ".pltrace";
  {
    RecordSink sink(SinkOptions{1024, 2, 16});  // the writer does not drain until Close
    TraceWriter writer(sink, WriterOptions{});
    ActivityConverter converter(sink, &FakeBuffer::Next, &ApiName);
    FakeBuffer b = MakeBuffer();
    FakeBuffer::Use(&b);
    for (int i = 0; i < 20; ++i) converter.ConvertBuffer(b.data(), b.size());
    EXPECT_GT(sink.Drops(wire::DropSource::kHandOff), 0);
    ASSERT_EQ(writer.Open(path), "");
    writer.Close();
    auto t = ingest::native::ReadNative(path);
    ASSERT_TRUE(t);
    EXPECT_EQ(t->quality.Get(model::Dq::kDroppedRecords), sink.Drops(wire::DropSource::kHandOff));
    // Everything not dropped arrived: 4 GPU activities per buffer.
    EXPECT_GT(t->gpu.size(), 0u);
    EXPECT_LT(t->gpu.size(), 80u);
  }
  std::remove(path.c_str());
}

// Converts `b` through a fresh sink and writer and reads the file back.
auto RoundTrip(FakeBuffer& b, const char* name, ConverterStats* stats = nullptr) {
  std::string path = ::testing::TempDir() + "/" + name + "." + std::to_string(getpid()) + ".pltrace";
  RecordSink sink;
  {
    TraceWriter writer(sink, WriterOptions{});
    EXPECT_EQ(writer.Open(path), "");
    ActivityConverter converter(sink, &FakeBuffer::Next, &ApiName);
    FakeBuffer::Use(&b);
    converter.ConvertBuffer(b.data(), b.size());
    if (stats != nullptr) *stats = converter.stats();
    writer.Close();
  }
  auto t = ingest::native::ReadNative(path);
  std::remove(path.c_str());
  return t;
}

// CUPTI documents a zero start/end as "could not be collected": such records are left out and
// counted as dropped, not kept as kernels at the epoch.
TEST(ActivityConverter, ZeroTimestampRecordsAreDroppedAndCounted) {
  FakeBuffer b;
  CUpti_ActivityKernel10 k{};
  k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  k.name = kKernelName;
  k.correlationId = 1;
  b.Add(k);  // start = end = 0
  k.start = 5'000;
  k.end = 0;
  b.Add(k);
  k.start = 5'000;
  k.end = 6'000;
  k.correlationId = 2;
  b.Add(k);
  CUpti_ActivityMemset4 s{};
  s.kind = CUPTI_ACTIVITY_KIND_MEMSET;
  b.Add(s);
  ConverterStats stats;
  auto t = RoundTrip(b, "zero_ts", &stats);
  ASSERT_TRUE(t) << t.error().message;
  ASSERT_EQ(t->gpu.size(), 1u);
  EXPECT_EQ(t->gpu.correlation[0], 2);
  EXPECT_EQ(stats.invalid_records, 3u);
  EXPECT_EQ(t->quality.Get(model::Dq::kDroppedRecords), 3);
}

// NVTX names live in buffers CUPTI may reuse: the same address with new text is a new name, and
// the same text at two addresses is one string.
TEST(ActivityConverter, MarkerNamesAreInternedByContent) {
  char reused[16] = "forward";
  char copy[16] = "forward";
  FakeBuffer first, second;
  FakeBuffer* b = &first;
  CUpti_ActivityMarker2 m{};
  m.kind = CUPTI_ACTIVITY_KIND_MARKER;
  m.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
  m.objectId.pt.threadId = 88;
  auto range = [&](std::uint32_t id, std::uint64_t at, const char* name) {
    m.id = id;
    m.flags = CUPTI_ACTIVITY_FLAG_MARKER_START;
    m.timestamp = at;
    m.name = name;
    b->Add(m);
    m.flags = CUPTI_ACTIVITY_FLAG_MARKER_END;
    m.timestamp = at + 100;
    m.name = nullptr;
    b->Add(m);
  };
  range(1, 1'000, reused);
  range(2, 2'000, copy);
  std::string path = ::testing::TempDir() + "/markers." + std::to_string(getpid()) + ".pltrace";
  RecordSink sink;
  {
    TraceWriter writer(sink, WriterOptions{});
    ASSERT_EQ(writer.Open(path), "");
    ActivityConverter converter(sink, &FakeBuffer::Next, &ApiName);
    FakeBuffer::Use(&first);
    converter.ConvertBuffer(first.data(), first.size());
    std::strcpy(reused, "backward");  // CUPTI reused the name's memory
    b = &second;
    range(3, 3'000, reused);
    FakeBuffer::Use(&second);
    converter.ConvertBuffer(second.data(), second.size());
    writer.Close();
  }
  auto t = ingest::native::ReadNative(path);
  ASSERT_TRUE(t) << t.error().message;
  ASSERT_EQ(t->cpu.size(), 3u);
  EXPECT_EQ(t->Str(t->cpu.name[0]), "forward");
  EXPECT_EQ(t->Str(t->cpu.name[1]), "forward");
  EXPECT_EQ(t->cpu.name[0], t->cpu.name[1]);
  EXPECT_EQ(t->Str(t->cpu.name[2]), "backward");
  std::remove(path.c_str());
}

// The close path flushes the converter while CUPTI's thread may be converting: every record
// arrives exactly once.
TEST(ActivityConverter, FlushDuringConversionLosesAndRepeatsNothing) {
  constexpr int kBuffers = 400;
  std::string path = ::testing::TempDir() + "/flush_race." + std::to_string(getpid()) + ".pltrace";
  RecordSink sink(SinkOptions{4096, 1024, 1024});  // a block per buffer fits: no hand-off drops
  {
    TraceWriter writer(sink, WriterOptions{});
    ASSERT_EQ(writer.Open(path), "");
    ActivityConverter converter(sink, &FakeBuffer::Next, &ApiName);
    FakeBuffer b = MakeBuffer();
    FakeBuffer::Use(&b);
    std::atomic<bool> converting{true};
    std::thread flusher([&] {
      while (converting.load()) converter.Flush();
    });
    for (int i = 0; i < kBuffers; ++i) converter.ConvertBuffer(b.data(), b.size());
    converting.store(false);
    flusher.join();
    writer.Close();
  }
  auto t = ingest::native::ReadNative(path);
  ASSERT_TRUE(t) << t.error().message;
  EXPECT_EQ(t->quality.Get(model::Dq::kDroppedRecords), 0);
  EXPECT_EQ(t->gpu.size(), 4u * kBuffers);
  std::remove(path.c_str());
}

// The exit hook's Flush waits for a conversion in progress: run beside it, it could publish a
// block still being filled, which the conversion then published again (written twice).
// Deterministic: the conversion pauses inside CUPTI's iterator while another thread flushes.
std::function<void()> g_mid_buffer;
CUptiResult PausingNext(uint8_t* buffer, size_t valid, CUpti_Activity** record) {
  static int calls = 0;
  if (++calls == 3 && g_mid_buffer) g_mid_buffer();
  return FakeBuffer::Next(buffer, valid, record);
}

TEST(ActivityConverter, FlushWaitsForTheConversionInProgress) {
  std::string path = ::testing::TempDir() + "/flush_waits." + std::to_string(getpid()) + ".pltrace";
  RecordSink sink;
  bool flushed_mid_buffer = true;
  {
    TraceWriter writer(sink, WriterOptions{});
    ASSERT_EQ(writer.Open(path), "");
    ActivityConverter converter(sink, &PausingNext, &ApiName);
    FakeBuffer b = MakeBuffer();
    FakeBuffer::Use(&b);
    std::atomic<bool> flushed{false};
    std::thread flusher;
    g_mid_buffer = [&] {
      flusher = std::thread([&] {
        converter.Flush();
        flushed = true;
      });
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      flushed_mid_buffer = flushed.load();
    };
    converter.ConvertBuffer(b.data(), b.size());
    g_mid_buffer = nullptr;
    flusher.join();
    writer.Close();
  }
  EXPECT_FALSE(flushed_mid_buffer) << "Flush ran while a buffer was being converted";
  auto t = ingest::native::ReadNative(path);
  ASSERT_TRUE(t) << t.error().message;
  EXPECT_EQ(t->quality.Get(model::Dq::kDroppedRecords), 0);
  EXPECT_EQ(t->gpu.size(), 4u);
  std::remove(path.c_str());
}

}  // namespace
}  // namespace plasmient::collect
