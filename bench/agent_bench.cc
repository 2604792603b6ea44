// Live agent hot paths: CUPTI record -> wire record -> staging block (per record), and the
// writer's frame + compress + write throughput.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "collect/agent/record_sink.h"
#include "collect/agent/trace_writer.h"
#include "collect/cupti/activity_converter.h"
#include "collect/testing/fake_activity_buffer.h"

namespace plasmient::collect {
namespace {

const char* ApiName(wire::ApiDomain, std::uint32_t) { return "cudaLaunchKernel_v7000"; }

// A buffer like a training step's: kernels with a few dozen distinct names, their launches,
// and some copies.
FakeActivityBuffer StepBuffer(int kernels) {
  static const char* names[32];
  static std::string storage[32];
  for (int i = 0; i < 32; ++i) {
    storage[i] = "_Z12gemm_kernel" + std::to_string(i) + "PfS_S_i";
    names[i] = storage[i].c_str();
  }
  FakeActivityBuffer b;
  for (int i = 0; i < kernels; ++i) {
    CUpti_ActivityAPI api{};
    api.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
    api.cbid = 211;
    api.start = 1000u * i;
    api.end = api.start + 400;
    api.correlationId = i;
    b.Add(api);
    CUpti_ActivityKernel10 k{};
    k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
    k.start = 1000u * i + 500;
    k.end = k.start + 900;
    k.correlationId = i;
    k.name = names[i % 32];
    k.gridX = 128;
    k.blockX = 256;
    b.Add(k);
    if (i % 16 == 0) {
      CUpti_ActivityMemcpy6 m{};
      m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
      m.bytes = 1 << 20;
      m.correlationId = i;
      b.Add(m);
    }
  }
  return b;
}

// Per activity record: iterate, convert, intern (cached), copy into a staging block, publish.
// Published blocks are returned to the pool outside the timed region (an infinitely fast writer).
void BM_ConvertAndEnqueue(benchmark::State& state) {
  RecordSink sink;
  ActivityConverter converter(sink, &FakeActivityBuffer::Next, &ApiName);
  FakeActivityBuffer b = StepBuffer(4096);
  FakeActivityBuffer::Use(&b);
  for (auto _ : state) {
    benchmark::DoNotOptimize(converter.ConvertBuffer(b.data(), b.size()));
    state.PauseTiming();
    Block* block = nullptr;
    while (sink.PopFullBlock(block)) sink.ReleaseBlock(block);
    state.ResumeTiming();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * b.records()));
  state.counters["dropped"] = static_cast<double>(sink.Drops(wire::DropSource::kHandOff));
}
BENCHMARK(BM_ConvertAndEnqueue)->Unit(benchmark::kMicrosecond);

// Small-record ring, one producer (NCCL/cuBLAS/NVML path).
void BM_RingPushPop(benchmark::State& state) {
  RecordSink sink;
  wire::GemmRecord r{};
  r.header = wire::HeaderFor<wire::GemmRecord>(wire::RecordKind::kGemm);
  Slot slot;
  for (auto _ : state) {
    sink.PushSmall(r);
    sink.PopSmall(slot);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_RingPushPop);

// Writer: drain full blocks, frame, compress (level = arg; 0 stores), write to a file.
void BM_WriterThroughput(benchmark::State& state) {
  const int level = static_cast<int>(state.range(0));
  RecordSink sink(SinkOptions{256 << 10, 16, 1024});
  std::string path = "/tmp/plasmient_agent_bench." + std::to_string(getpid());
  TraceWriter writer(sink, WriterOptions{level, 1 << 20, 1'000'000'000, 5'000'000'000});
  if (!writer.Open(path, /*start_thread=*/false).empty()) {
    state.SkipWithError("cannot open bench file");
    return;
  }
  FakeActivityBuffer b = StepBuffer(2048);
  FakeActivityBuffer::Use(&b);
  ActivityConverter converter(sink, &FakeActivityBuffer::Next, &ApiName);
  std::uint64_t records = 0, before = writer.bytes_written();
  for (auto _ : state) {
    state.PauseTiming();
    converter.ConvertBuffer(b.data(), b.size());  // ~100 KiB of wire records
    converter.ConvertBuffer(b.data(), b.size());
    state.ResumeTiming();
    records += writer.Drain();
    writer.WriteChunk(0);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(records));
  state.counters["bytes_per_record"] =
      static_cast<double>(writer.bytes_written() - before) / static_cast<double>(records);
  writer.Close();
  std::remove(path.c_str());
}
BENCHMARK(BM_WriterThroughput)->Arg(0)->Arg(-3)->Arg(-1)->Arg(1)->Arg(3)->Unit(benchmark::kMicrosecond);

// A window switch on the writer thread: complete a file (drops, clock, closing chunk, close,
// rename) and open the next with its preamble of `arg` interned strings (kernel names) plus
// the process and device records. The CUPTI enable/disable and forced flush it comes with are
// measured on a GPU (scripts/gpu-check.sh), not here.
void BM_WindowRotate(benchmark::State& state) {
  RecordSink sink(SinkOptions{256 << 10, 16, 1 << 14});
  std::string dir = "/tmp/plasmient_agent_bench_windows." + std::to_string(getpid());
  if (std::system(("mkdir -p " + dir).c_str()) != 0) {
    state.SkipWithError("cannot create bench folder");
    return;
  }
  WriterOptions options{-3, 1 << 20, 1'000'000'000, 5'000'000'000};
  options.windowed = true;
  TraceWriter writer(sink, options);
  if (!writer.Open(dir + "/w-0.pltrace", /*start_thread=*/false, wire::kFileWindow).empty()) {
    state.SkipWithError("cannot open bench file");
    return;
  }
  wire::ProcessRecord p{};
  p.header = wire::HeaderFor<wire::ProcessRecord>(wire::RecordKind::kProcess);
  sink.PushSmall(p);
  for (std::int64_t i = 0; i < state.range(0); ++i) {
    sink.PushString(
        static_cast<std::uint32_t>(i + 1),
        "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_64x64_32x6_tn_align8>" +
            std::to_string(i));
    if (i % 1000 == 999) writer.Drain();  // the ring holds 16 K slots
  }
  writer.Drain();
  std::uint64_t seq = 1;
  for (auto _ : state) {
    writer.Rotate(dir + "/w-" + std::to_string(seq++ % 4) + ".pltrace", wire::kFileWindow);
  }
  writer.Close();
  std::system(("rm -rf " + dir).c_str());
}
BENCHMARK(BM_WindowRotate)->Arg(100)->Arg(2000)->Arg(10000)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace plasmient::collect
