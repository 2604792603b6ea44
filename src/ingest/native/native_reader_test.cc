#include "ingest/native/native_reader.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "ingest/testing/native_test_file.h"
#include "wire/chunk_codec.h"
#include "wire/crc32c.h"

namespace plasmient::ingest::native {
namespace {

using model::Dq;
using testing::FileMaker;
using wire::HeaderFor;
using wire::RecordKind;

using testing::Collective;
using testing::Kernel;
using testing::kMonotonic;
using testing::kRealtime;
using testing::Launch;

FileMaker RichFile() {
  FileMaker f;
  f.String(1, "_Z6vecAddPfS_S_i");
  f.String(2, "cudaLaunchKernel_v7000");
  f.String(3, "forward");
  f.String(4, "host-a");
  f.String(5, "job-42");
  f.String(6, "AllReduce");
  f.String(7, "ncclBfloat16");
  f.String(8, "NVIDIA H200");
  wire::ProcessRecord p{};
  p.header = HeaderFor<wire::ProcessRecord>(RecordKind::kProcess);
  p.pid = 100;
  p.rank = 3;
  p.world_size = 8;
  p.host_id = 4;
  p.job_id = 5;
  f.Add(p);
  wire::DeviceRecord d{};
  d.header = HeaderFor<wire::DeviceRecord>(RecordKind::kDevice);
  d.name_id = 8;
  d.sm_count = 132;
  d.cc_major = 9;
  d.core_clock_khz = 1'980'000;
  d.global_memory_bytes = 141ull << 30;
  d.memory_bandwidth_kbps = 4'800'000'000;
  f.Add(d);
  f.Cut();
  f.Add(Launch(2'000'000, 11, 9));
  f.Add(Kernel(2'010'000, 2'030'000, 11, 1));
  wire::MemcpyRecord m{};
  m.header = HeaderFor<wire::MemcpyRecord>(RecordKind::kMemcpy);
  m.start_ns = 2'100'000;
  m.end_ns = 2'200'000;
  m.bytes = 1 << 20;
  m.stream = 7;
  m.correlation = 900;
  m.runtime_correlation = 12;
  m.copy_kind = 1;
  m.src_kind = 2;
  m.dst_kind = 3;
  f.Add(m);
  wire::MarkerRecord start{}, end{};
  start.header = end.header = HeaderFor<wire::MarkerRecord>(RecordKind::kMarker);
  start.id = end.id = 77;
  start.flags = wire::kMarkerStart;
  end.flags = wire::kMarkerEnd;
  start.timestamp_ns = 1'900'000;
  end.timestamp_ns = 2'500'000;
  start.tid = 9;
  start.name_id = 3;
  f.Add(start);
  f.Add(end);
  f.Cut();
  wire::GemmRecord g{};
  g.header = HeaderFor<wire::GemmRecord>(RecordKind::kGemm);
  g.start_ns = 3'000'000;
  g.end_ns = 3'010'000;
  g.m = 4096;
  g.n = 1024;
  g.k = 512;
  g.batch = 1;
  g.tid = 9;
  g.first_correlation = 20;
  g.launches = 1;
  g.a_type = g.b_type = g.c_type = 14;
  f.Add(g);
  f.Add(Launch(3'001'000, 20, 9));
  f.Add(Kernel(3'002'000, 3'900'000, 20, 1));
  wire::CollectiveRecord c = Collective(4'000'000, 4'500'000, 0xabcdef, 5, 6, 9);
  c.count = 1000;
  c.bytes = 2000;
  c.rank = 3;
  c.nranks = 8;
  c.dtype_id = 7;
  f.Add(c);
  wire::NvmlSampleRecord s{};
  s.header = HeaderFor<wire::NvmlSampleRecord>(RecordKind::kNvmlSample);
  s.ts_ns = 4'000'000;
  s.metric = static_cast<std::uint16_t>(wire::NvmlMetric::kSmClockMhz);
  s.value = 1980;
  f.Add(s);
  wire::DropRecord drop{};
  drop.header = HeaderFor<wire::DropRecord>(RecordKind::kDrops);
  drop.source = 1;
  drop.cumulative = 4;
  f.Add(drop);
  drop.cumulative = 9;  // cumulative: the reader keeps the largest
  f.Add(drop);
  f.Cut(/*last=*/true);
  return f;
}

TEST(NativeReader, RowsFieldByField) {
  auto f = RichFile();
  auto t = ReadNativeBytes(f.file().data(), f.file().size(), "rich.pltrace");
  ASSERT_TRUE(t) << t.error().message;
  const TimeNs base = kRealtime - kMonotonic;
  EXPECT_EQ(t->info.format, "plasmient-native");
  EXPECT_EQ(t->info.rank, 3);
  EXPECT_EQ(t->info.world_size, 8);
  EXPECT_EQ(t->info.hostname, "host-a");
  EXPECT_EQ(t->info.job_id, "job-42");
  EXPECT_EQ(t->info.base_time_ns, base);
  ASSERT_EQ(t->devices.size(), 1u);
  EXPECT_EQ(t->devices[0].name, "NVIDIA H200");
  EXPECT_EQ(t->devices[0].sm_count, 132);
  EXPECT_EQ(t->devices[0].sm_clock_mhz, 1980);
  EXPECT_EQ(t->devices[0].memory_bandwidth_bytes_per_s, 4'800'000'000'000);

  ASSERT_EQ(t->gpu.size(), 3u);  // two kernels, one memcpy
  EXPECT_EQ(t->Str(t->gpu.name[0]), "vecAdd(float*, float*, float*, int)");
  EXPECT_EQ(t->gpu.start_ns[0], base + 2'010'000);
  EXPECT_EQ(t->gpu.end_ns[0], base + 2'030'000);
  EXPECT_EQ(t->gpu.stream[0], 7);
  EXPECT_EQ(t->gpu.correlation[0], 11);
  EXPECT_EQ(t->gpu.external_id[0], model::kNoId);
  EXPECT_EQ(t->Str(t->gpu.name[2]), "Memcpy HtoD (Pinned -> Device)");
  EXPECT_EQ(t->gpu.kind[2], model::GpuKind::kMemcpy);
  EXPECT_EQ(t->gpu.bytes[2], 1 << 20);
  EXPECT_EQ(t->gpu.correlation[2], 12);  // runtime correlation

  ASSERT_EQ(t->api.size(), 2u);
  EXPECT_EQ(t->Str(t->api.name[0]), "cudaLaunchKernel");
  EXPECT_EQ(t->api.tid[0], 9);

  ASSERT_EQ(t->cpu.size(), 3u);  // NVTX range, cuBLAS op, nccl op
  EXPECT_EQ(t->Str(t->cpu.name[0]), "forward");
  EXPECT_EQ(t->cpu.kind[0], model::CpuOpKind::kAnnotation);
  EXPECT_EQ(t->cpu.end_ns[0] - t->cpu.start_ns[0], 600'000);
  EXPECT_EQ(t->Str(t->cpu.name[1]), kGemmOpName);
  EXPECT_EQ(t->cpu.kind[1], model::CpuOpKind::kOp);
  EXPECT_EQ(t->Str(t->cpu.input_dims[1]), "[[4096,512],[512,1024]]");
  EXPECT_EQ(t->Str(t->cpu.input_types[1]), "[\"c10::BFloat16\",\"c10::BFloat16\"]");
  // The GEMM's kernel and launch carry the op's external id.
  EXPECT_NE(t->cpu.external_id[1], model::kNoId);
  EXPECT_EQ(t->gpu.external_id[1], t->cpu.external_id[1]);
  EXPECT_EQ(t->api.external_id[1], t->cpu.external_id[1]);
  EXPECT_EQ(t->Str(t->cpu.name[2]), "nccl:allreduce");
  EXPECT_EQ(t->cpu.end_ns[2], t->cpu.start_ns[2]);  // its enqueue; the GPU's end is its kernel's

  ASSERT_EQ(t->collectives.size(), 1u);
  EXPECT_EQ(t->Str(t->collectives.name[0]), "allreduce");
  EXPECT_EQ(t->Str(t->collectives.dtype[0]), "BFloat16");
  EXPECT_EQ(t->collectives.seq[0], 5);
  EXPECT_EQ(t->collectives.group_size[0], 8);
  EXPECT_EQ(t->collectives.bytes[0], 2000);
  EXPECT_EQ(t->collectives.cpu_op[0], 2);
  EXPECT_EQ(t->Str(t->collectives.pg_name[0]), "0000000000abcdef");

  ASSERT_EQ(t->samples.size(), 1u);
  EXPECT_EQ(t->Str(t->samples.metric[0]), "nvml.sm_clock_mhz");
  EXPECT_EQ(t->samples.value[0], 1980);

  EXPECT_EQ(t->quality.Get(Dq::kDroppedRecords), 9);
  EXPECT_EQ(t->quality.Get(Dq::kTruncatedNativeFile), 0);
  EXPECT_EQ(t->quality.Get(Dq::kCorruptChunk), 0);
}

TEST(NativeReader, RandomCutsReadWhatIsComplete) {
  auto f = RichFile();
  const auto& bytes = f.file();
  std::mt19937 rng(7);
  std::size_t previous_gpu = 0;
  std::vector<std::size_t> cuts;
  for (int i = 0; i < 200; ++i) cuts.push_back(rng() % bytes.size());
  std::sort(cuts.begin(), cuts.end());
  for (std::size_t cut : cuts) {
    auto t = ReadNativeBytes(bytes.data(), cut, "cut.pltrace");
    ASSERT_TRUE(t) << "cut " << cut << ": " << t.error().message;
    EXPECT_EQ(t->quality.Get(Dq::kTruncatedNativeFile), 1) << "cut " << cut;
    EXPECT_EQ(t->quality.Get(Dq::kCorruptChunk), 0) << "cut " << cut;
    EXPECT_GE(t->gpu.size(), previous_gpu) << "rows only grow with the cut";
    EXPECT_LE(t->gpu.size(), 3u);
    previous_gpu = t->gpu.size();
  }
}

TEST(NativeReader, CorruptChunkCountedOthersRead) {
  auto f = RichFile();
  auto bytes = f.file();
  bytes[sizeof(wire::FileHeader) + sizeof(wire::ChunkHeader) + 3] ^= 0xff;  // first payload
  auto t = ReadNativeBytes(bytes.data(), bytes.size(), "bad.pltrace");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->quality.Get(Dq::kCorruptChunk), 1);
  EXPECT_EQ(t->gpu.size(), 3u);     // later chunks intact
  EXPECT_TRUE(t->devices.empty());  // lost with the first chunk
  EXPECT_EQ(t->Str(t->gpu.name[0]), "<lost string 1>");
}

// A device record whose bandwidth (KB/s) times 1000 leaves int64 (found by native_reader_fuzz),
// or whose memory size does: counted as malformed, those figures unknown, the device kept.
TEST(NativeReader, DeviceSizesPastInt64AreMalformedAndUnknown) {
  FileMaker f;
  f.String(8, "NVIDIA H200");
  wire::DeviceRecord d{};
  d.header = HeaderFor<wire::DeviceRecord>(RecordKind::kDevice);
  d.name_id = 8;
  d.sm_count = 132;
  d.global_memory_bytes = 141ull << 30;
  d.memory_bandwidth_kbps = 316'049'379'944'248'320ull;  // x1000 > 2^63
  f.Add(d);
  d.device = 1;
  d.global_memory_bytes = ~0ull;
  d.memory_bandwidth_kbps = 4'800'000'000;
  f.Add(d);
  f.Cut(/*last=*/true);
  auto bytes = f.file();
  auto t = ReadNativeBytes(bytes.data(), bytes.size(), "dev.pltrace");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->quality.Get(Dq::kMalformedEvent), 2);
  ASSERT_EQ(t->devices.size(), 2u);
  EXPECT_EQ(t->devices[0].memory_bandwidth_bytes_per_s, 0);
  EXPECT_EQ(t->devices[0].total_memory_bytes, std::int64_t{141} << 30);
  EXPECT_EQ(t->devices[0].sm_count, 132);
  EXPECT_EQ(t->devices[1].total_memory_bytes, 0);
  EXPECT_EQ(t->devices[1].memory_bandwidth_bytes_per_s, 4'800'000'000'000);
}

// Found by the native reader's fuzz target: two sources of 8.0e18 drops overflowed their sum.
TEST(NativeReader, DropCountsNoAgentCouldReachAreMalformed) {
  FileMaker f;
  wire::DropRecord drop{};
  drop.header = HeaderFor<wire::DropRecord>(RecordKind::kDrops);
  drop.source = 0;
  drop.cumulative = 8'029'405'112'301'418'867;
  f.Add(drop);
  drop.source = 1;
  f.Add(drop);
  drop.cumulative = -5;
  f.Add(drop);
  drop.cumulative = 7;
  f.Add(drop);
  f.Cut(/*last=*/true);
  auto bytes = f.file();
  auto t = ReadNativeBytes(bytes.data(), bytes.size(), "drops.pltrace");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->quality.Get(Dq::kMalformedEvent), 3);
  EXPECT_EQ(t->quality.Get(Dq::kDroppedRecords), 7);
}

TEST(NativeReader, NotANativeFileFailsWithPath) {
  std::vector<std::uint8_t> junk(64, 'j');
  auto t = ReadNativeBytes(junk.data(), junk.size(), "junk.bin");
  ASSERT_FALSE(t);
  EXPECT_NE(t.error().message.find("junk.bin"), std::string::npos);
  EXPECT_NE(t.error().message.find("offset 0"), std::string::npos);
  EXPECT_FALSE(ReadNative("/nonexistent/x.pltrace"));
}

// NCCL launches a plan's kernel, then starts the Coll events of its operations on the same
// thread: a collective belongs to the thread's latest launch when that launch is NCCL's.
TEST(NativeReader, CollectivesJoinTheNcclKernelLaunchedBeforeThemOnTheirThread) {
  FileMaker f;
  f.String(1, "_Z6vecAddPfS_S_i");
  f.String(2, "cuLaunchKernelEx");
  f.String(3, "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)");
  f.String(6, "AllReduce");
  f.Add(Launch(1'000'000, 30, 9));
  f.Add(Kernel(1'020'000, 1'400'000, 30, 3));
  f.Add(Collective(1'010'000, 1'400'000, 0xc0, 0, 6, 9));  // two operations of one plan
  f.Add(Collective(1'011'000, 1'400'000, 0xc0, 1, 6, 9));
  f.Add(Launch(2'000'000, 31, 9));
  f.Add(Kernel(2'010'000, 2'020'000, 31, 1));
  f.Add(Collective(2'010'000, 2'100'000, 0xc0, 2, 6, 9));   // the latest launch is not NCCL's
  f.Add(Collective(1'010'000, 1'400'000, 0xc0, 3, 6, 77));  // a host-callback thread: no launch
  f.Add(Launch(3'000'000, 32, 9));
  f.Add(Kernel(3'020'000, 3'400'000, 32, 3));
  f.Add(Collective(3'010'000, 3'400'000, 0xc0, 4, 6, 9));
  f.Cut(/*last=*/true);
  auto t = ReadNativeBytes(f.file().data(), f.file().size(), "nccl.pltrace");
  ASSERT_TRUE(t) << t.error().message;
  ASSERT_EQ(t->collectives.size(), 5u);
  auto kernel_of = [&](std::int64_t correlation) {
    for (std::size_t g = 0; g < t->gpu.size(); ++g) {
      if (t->gpu.correlation[g] == correlation) return static_cast<std::int32_t>(g);
    }
    return -2;
  };
  EXPECT_EQ(t->collectives.gpu[0], kernel_of(30));
  EXPECT_EQ(t->collectives.gpu[1], kernel_of(30));
  EXPECT_EQ(t->collectives.gpu[2], -1);
  EXPECT_EQ(t->collectives.gpu[3], -1);
  EXPECT_EQ(t->collectives.gpu[4], kernel_of(32));
}

// Format version 2: an op record is the Kineto cpu_op row, shapes as text; the kernel it launched
// carries its external id (EXTERNAL_CORRELATION), so the op's FLOP model reaches the kernel.
TEST(NativeReader, OpRecordsAreOpRowsWithTheirShapes) {
  FileMaker f;
  f.String(1, "void at::native::layer_norm_kernel<c10::BFloat16>()");
  f.String(2, "cudaLaunchKernel");
  f.String(10, "aten::native_layer_norm");
  f.String(11, "[[4096, 2048], [], [2048], [2048], []]");
  f.String(12, R"(["c10::BFloat16", "ScalarList", "c10::BFloat16", "c10::BFloat16", "Scalar"])");
  f.String(13, R"(["", "[2048]", "", "", "1e-05"])");
  wire::OpRecord op{};
  op.header = HeaderFor<wire::OpRecord>(RecordKind::kOp);
  op.start_ns = 1'000'000;
  op.end_ns = 1'050'000;
  op.external_id = 77;
  op.sequence = 12;
  op.forward_thread = -1;
  op.pid = testing::kPid;
  op.tid = 9;
  op.name_id = 10;
  op.input_dims_id = 11;
  op.input_types_id = 12;
  op.concrete_inputs_id = 13;
  f.Add(op);
  wire::OpRecord bare = op;  // an op without shapes (record_shapes off): no strings
  bare.external_id = 0;
  bare.sequence = -1;
  bare.input_dims_id = bare.input_types_id = bare.concrete_inputs_id = 0;
  f.Add(bare);
  f.Add(Launch(1'010'000, 40, 9));
  f.Add(Kernel(1'020'000, 1'080'000, 40, 1));
  wire::ExternalCorrelationRecord ext{
      HeaderFor<wire::ExternalCorrelationRecord>(RecordKind::kExternalCorrelation), 77, 40, 1};
  f.Add(ext);
  f.Cut(/*last=*/true);
  auto t = ReadNativeBytes(f.file().data(), f.file().size(), "ops.pltrace");
  ASSERT_TRUE(t) << t.error().message;
  ASSERT_EQ(t->cpu.size(), 2u);
  std::size_t with = t->cpu.external_id[0] == 77 ? 0 : 1, without = 1 - with;
  EXPECT_EQ(t->Str(t->cpu.name[with]), "aten::native_layer_norm");
  EXPECT_EQ(t->cpu.kind[with], model::CpuOpKind::kOp);
  EXPECT_EQ(t->Str(t->cpu.input_dims[with]), "[[4096, 2048], [], [2048], [2048], []]");
  EXPECT_EQ(t->Str(t->cpu.input_types[with]),
            R"(["c10::BFloat16", "ScalarList", "c10::BFloat16", "c10::BFloat16", "Scalar"])");
  EXPECT_EQ(t->Str(t->cpu.concrete_inputs[with]), R"(["", "[2048]", "", "", "1e-05"])");
  EXPECT_EQ(t->cpu.sequence[with], 12);
  EXPECT_EQ(t->cpu.forward_thread[with], model::kNoId);
  EXPECT_EQ(t->cpu.tid[with], 9);
  EXPECT_EQ(t->cpu.end_ns[with] - t->cpu.start_ns[with], 50'000);
  EXPECT_EQ(t->cpu.external_id[without], model::kNoId);
  EXPECT_EQ(t->Str(t->cpu.input_dims[without]), "");
  EXPECT_EQ(t->cpu.sequence[without], model::kNoId);
  ASSERT_EQ(t->gpu.size(), 1u);
  EXPECT_EQ(t->gpu.external_id[0], 77);
}

// NVTX and host ranges are read as an Nsight export's NVTX ranges are: steps, emit_nvtx ops with
// their shapes, modules, annotations.
TEST(NativeReader, RangeNamesMeanStepsOpsAndModules) {
  FileMaker f;
  f.String(1, "ProfilerStep#7");
  f.String(2, "aten::mm, seq = 3, sizes = [[8, 512], [512, 1024]]");
  f.String(3, "nn.Module: Linear_1");
  f.String(4, "data loading");
  auto range = [&](std::uint64_t start, std::uint32_t name) {
    wire::CpuRangeRecord c{};
    c.header = HeaderFor<wire::CpuRangeRecord>(RecordKind::kCpuRange);
    c.start_ns = start;
    c.end_ns = start + 1'000;
    c.pid = testing::kPid;
    c.tid = 9;
    c.name_id = name;
    f.Add(c);
  };
  range(1'000'000, 1);
  range(2'000'000, 3);
  range(3'000'000, 4);
  wire::MarkerRecord m{};  // an NVTX push/pop pair
  m.header = HeaderFor<wire::MarkerRecord>(RecordKind::kMarker);
  m.id = 5;
  m.flags = wire::kMarkerStart;
  m.timestamp_ns = 4'000'000;
  m.pid = testing::kPid;
  m.tid = 9;
  m.name_id = 2;
  f.Add(m);
  m.flags = wire::kMarkerEnd;
  m.timestamp_ns = 4'500'000;
  m.name_id = 0;
  f.Add(m);
  f.Cut(/*last=*/true);
  auto t = ReadNativeBytes(f.file().data(), f.file().size(), "ranges.pltrace");
  ASSERT_TRUE(t) << t.error().message;
  ASSERT_EQ(t->cpu.size(), 4u);
  std::map<std::string, std::size_t> row;
  for (std::size_t i = 0; i < t->cpu.size(); ++i) row[std::string(t->Str(t->cpu.name[i]))] = i;
  ASSERT_EQ(row.size(), 4u);
  EXPECT_EQ(t->cpu.kind[row.at("ProfilerStep#7")], model::CpuOpKind::kStep);
  EXPECT_EQ(t->cpu.step[row.at("ProfilerStep#7")], 7);
  EXPECT_EQ(t->cpu.kind[row.at("aten::mm")], model::CpuOpKind::kOp);
  EXPECT_EQ(t->Str(t->cpu.input_dims[row.at("aten::mm")]), "[[8,512],[512,1024]]");
  EXPECT_EQ(t->cpu.end_ns[row.at("aten::mm")] - t->cpu.start_ns[row.at("aten::mm")], 500'000);
  EXPECT_EQ(t->cpu.kind[row.at("Linear_1")], model::CpuOpKind::kModule);
  EXPECT_EQ(t->cpu.kind[row.at("data loading")], model::CpuOpKind::kAnnotation);
}

// Version 1 (before op records) still reads; a version this build does not know is refused.
TEST(NativeReader, ReadsEveryFormatVersionItKnows) {
  for (std::uint32_t version : {wire::kOldestFormatVersion, wire::kFormatVersion, wire::kFormatVersion + 1}) {
    FileMaker f;
    f.String(1, "k");
    f.Add(Kernel(1'000'000, 1'100'000, 5, 1));
    f.Cut(/*last=*/true);
    std::vector<std::uint8_t> bytes = f.file();
    wire::FileHeader h;
    std::memcpy(&h, bytes.data(), sizeof h);
    h.format_version = version;
    h.header_crc = wire::Crc32c(&h, offsetof(wire::FileHeader, header_crc));
    std::memcpy(bytes.data(), &h, sizeof h);
    auto t = ReadNativeBytes(bytes.data(), bytes.size(), "v.pltrace");
    if (version <= wire::kFormatVersion) {
      ASSERT_TRUE(t) << version << ": " << t.error().message;
      EXPECT_EQ(t->gpu.size(), 1u);
    } else {
      ASSERT_FALSE(t);
      EXPECT_NE(t.error().message.find("unsupported format version " + std::to_string(version)),
                std::string::npos)
          << t.error().message;
    }
  }
}

TEST(NativeReader, CoverageFromTheHeader) {
  std::string dir = ::testing::TempDir();
  auto write = [&](const std::string& name, std::uint32_t flags, bool damage = false) {
    auto h = wire::MakeFileHeader(testing::kRealtime, testing::kMonotonic, flags);
    if (damage) h.flags ^= wire::kFileKernels;  // the checksum no longer matches
    std::string path = dir + "/" + name;
    std::FILE* f = std::fopen(path.c_str(), "wb");
    std::fwrite(&h, sizeof h, 1, f);
    std::fclose(f);
    return path;
  };
  EXPECT_EQ(NativeCoverage(write("whole.pltrace", 0)), Coverage::kWholeRun);
  EXPECT_EQ(NativeCoverage(write("w.pltrace", wire::kFileWindow | wire::kFileKernels)), Coverage::kWindow);
  EXPECT_EQ(NativeCoverage(write("s.pltrace", wire::kFileWindow)), Coverage::kSamples);
  EXPECT_EQ(NativeCoverage(write("bad.pltrace", wire::kFileWindow, true)), Coverage::kNotNative);
  std::string junk = dir + "/junk.json";
  std::FILE* f = std::fopen(junk.c_str(), "wb");
  std::fputs("{\"traceEvents\": []}", f);
  std::fclose(f);
  EXPECT_EQ(NativeCoverage(junk), Coverage::kNotNative);
  EXPECT_EQ(NativeCoverage(dir + "/absent.pltrace"), Coverage::kNotNative);
}

}  // namespace
}  // namespace plasmient::ingest::native
