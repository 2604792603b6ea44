#include "collect/nvml/nvml_sampler.h"

#include <cstring>
#include <map>
#include <vector>

#include <gtest/gtest.h>

namespace plasmient::collect::nvml {
namespace {

// A fake NVML: four GPUs, NVML index N at bus id 0000:1N:00.0 with UUID GPU-0000000N-…; index 1
// supports GPM; index 3 is in MIG mode and holds one MIG instance (MIG-bbbbbbbb-…) with 10 GiB.
constexpr unsigned kGpus = 4;
constexpr unsigned kMigGpu = 3;
const NvmlDevice kMigInstance = reinterpret_cast<NvmlDevice>(std::uintptr_t{100});
constexpr double kGiB = 1024.0 * 1024 * 1024;
int g_inits = 0, g_shutdowns = 0, g_gpm_gets = 0;
std::string BusId(unsigned nvml_index) { return "0000:1" + std::to_string(nvml_index) + ":00.0"; }
std::string Uuid(unsigned nvml_index) {
  return "0000000" + std::to_string(nvml_index) + "-1111-2222-3333-444444444444";
}
const std::string kMigUuid = "bbbbbbbb-1111-2222-3333-444444444444";
NvmlReturn Init() {
  ++g_inits;
  return kNvmlSuccess;
}
NvmlReturn Shutdown() {
  ++g_shutdowns;
  return kNvmlSuccess;
}
NvmlReturn Count(unsigned* n) {
  *n = kGpus;
  return kNvmlSuccess;
}
NvmlDevice Handle(unsigned nvml_index) {
  return reinterpret_cast<NvmlDevice>(std::uintptr_t{nvml_index + 1});
}
unsigned Index(NvmlDevice d) { return static_cast<unsigned>(reinterpret_cast<std::uintptr_t>(d)) - 1; }
constexpr NvmlReturn kNotSupported = 3, kNotFound = 6;

NvmlReturn ByBusId(const char* bus, NvmlDevice* d) {
  for (unsigned i = 0; i < kGpus; ++i) {
    if (BusId(i) == bus) {
      *d = Handle(i);
      return kNvmlSuccess;
    }
  }
  return kNotFound;
}
NvmlReturn ByUuid(const char* uuid, NvmlDevice* d) {
  for (unsigned i = 0; i < kGpus; ++i) {
    if ("GPU-" + Uuid(i) == uuid) {
      *d = Handle(i);
      return kNvmlSuccess;
    }
  }
  if ("MIG-" + kMigUuid == uuid) {
    *d = kMigInstance;
    return kNvmlSuccess;
  }
  return kNotFound;
}
NvmlReturn Util(NvmlDevice d, NvmlUtilization* u) {
  if (d == kMigInstance || Index(d) == kMigGpu) return kNotSupported;
  *u = {90 + Index(d), 40};
  return kNvmlSuccess;
}
NvmlReturn Mig(NvmlDevice d, unsigned* current, unsigned* pending) {
  if (d == kMigInstance) return kNotSupported;
  *current = *pending = Index(d) == kMigGpu ? 1 : 0;
  return kNvmlSuccess;
}
NvmlReturn Clock(NvmlDevice d, int type, unsigned* mhz) {
  if (d == kMigInstance) return kNotSupported;  // a GPU-wide fact: asked of the GPU
  *mhz = type == kNvmlClockSm ? 1980 : 2619;
  return kNvmlSuccess;
}
NvmlReturn Power(NvmlDevice, unsigned*) { return kNotSupported; }
NvmlReturn Reasons(NvmlDevice, unsigned long long* r) {
  *r = 0x4;
  return kNvmlSuccess;
}
NvmlReturn Memory(NvmlDevice d, NvmlMemory* m) {
  if (d == kMigInstance) {
    *m = {static_cast<unsigned long long>(10 * kGiB), 0, static_cast<unsigned long long>(1 * kGiB)};
  } else {
    *m = {static_cast<unsigned long long>(80 * kGiB), 0,
          static_cast<unsigned long long>((50 + Index(d)) * kGiB)};
  }
  return kNvmlSuccess;
}
NvmlReturn GpmSupport(NvmlDevice d, NvmlGpmSupport* s) {
  s->is_supported_device = Index(d) == 1;
  return kNvmlSuccess;
}
int g_samples[4];
NvmlReturn GpmAlloc(NvmlGpmSample* s) {
  static int next = 0;
  *s = reinterpret_cast<NvmlGpmSample>(&g_samples[next++ % 4]);
  return kNvmlSuccess;
}
NvmlReturn GpmFree(NvmlGpmSample) { return kNvmlSuccess; }
NvmlReturn GpmGet(NvmlDevice, NvmlGpmSample) {
  ++g_gpm_gets;
  return kNvmlSuccess;
}
// The metrics array is IN/OUT and NVML's struct has NVML_GPM_METRIC_MAX (333) entries: like a
// driver, the fake writes every one of them, asked for or not. A smaller struct on the caller's
// stack is overwritten past its end (a crash or an ASan stack-buffer-overflow).
constexpr unsigned kNvmlGpmMetricMax = 333;  // NVML_GPM_METRIC_MAX in NVML's nvml.h: not ours
char g_short[] = "sm", g_long[] = "SM utilization", g_unit[] = "%";
NvmlReturn GpmMetrics(NvmlGpmMetricsGet* m) {
  if (m->version != 1 || m->sample1 == m->sample2) return 2;
  for (unsigned i = 0; i < kNvmlGpmMetricMax; ++i) {
    NvmlGpmMetric& metric = m->metrics[i];
    bool asked = i < m->num_metrics;
    metric.nvml_return = !asked ? 2 : metric.metric_id == 12 ? kNotSupported : kNvmlSuccess;
    metric.value = asked ? metric.metric_id * 1.5 : -1.0;
    metric.info = {g_short, g_long, g_unit};
  }
  return kNvmlSuccess;
}

NvmlApi FakeApi() {
  NvmlApi api;
  api.init = Init;
  api.shutdown = Shutdown;
  api.device_count = Count;
  api.device_by_pci_bus_id = ByBusId;
  api.device_by_uuid = ByUuid;
  api.mig_mode = Mig;
  api.utilization = Util;
  api.clock_info = Clock;
  api.power_usage = Power;
  api.clock_reasons = Reasons;
  api.memory_info = Memory;
  api.gpm_query_support = GpmSupport;
  api.gpm_sample_alloc = GpmAlloc;
  api.gpm_sample_free = GpmFree;
  api.gpm_sample_get = GpmGet;
  api.gpm_metrics_get = GpmMetrics;
  return api;
}

// The process's CUDA devices as the driver lists them (CUDA ordinal order).
CudaDevice Gpu(unsigned nvml_index, int in_use = 1) { return {BusId(nvml_index), Uuid(nvml_index), in_use}; }
CudaDevice ByBusOnly(unsigned nvml_index) { return {BusId(nvml_index), "", 1}; }
CudaDevice ByUuidOnly(unsigned nvml_index) { return {"", Uuid(nvml_index), 1}; }
std::vector<CudaDevice> g_cuda_devices = {Gpu(0), Gpu(1)};
bool g_cuda_ready = true;
bool CudaDevicesFake(std::vector<CudaDevice>& out) {
  if (!g_cuda_ready) return false;
  out = g_cuda_devices;
  return true;
}

using Samples = std::map<std::pair<std::uint32_t, std::uint16_t>, std::vector<double>>;
Samples Drain(RecordSink& sink) {
  Samples out;
  Slot slot;
  while (sink.PopSmall(slot)) {
    wire::NvmlSampleRecord r;
    EXPECT_EQ(slot.bytes, sizeof r);
    std::memcpy(&r, slot.data, sizeof r);
    EXPECT_EQ(r.header.kind, wire::RecordKind::kNvmlSample);
    out[{r.device, r.metric}].push_back(r.value);
  }
  return out;
}

using M = wire::NvmlMetric;
std::pair<std::uint32_t, std::uint16_t> Key(std::uint32_t device, M metric) {
  return {device, static_cast<std::uint16_t>(metric)};
}
std::vector<std::uint32_t> Devices(const Samples& s, M metric) {
  std::vector<std::uint32_t> out;
  for (const auto& [key, values] : s) {
    if (key.second == static_cast<std::uint16_t>(metric)) out.push_back(key.first);
  }
  return out;
}

static_assert(sizeof(NvmlGpmMetricsGet) == 24 + 333 * sizeof(NvmlGpmMetric), "NVML's full struct");

TEST(NvmlSampler, PollsEveryDeviceAndGpmFromTheSecondPoll) {
  RecordSink sink;
  NvmlSampler sampler(sink, FakeApi(), 100, &CudaDevicesFake, -1);
  std::string why;
  ASSERT_TRUE(sampler.Init(why)) << why;
  g_cuda_ready = false;  // the application has not initialized CUDA yet: nothing, no devices
  sampler.SampleOnce(500);
  EXPECT_EQ(sampler.devices(), 0u);
  EXPECT_TRUE(Drain(sink).empty());
  g_cuda_ready = true;
  sampler.SampleOnce(1'000);
  EXPECT_EQ(sampler.devices(), 2u);
  auto first = Drain(sink);
  auto key = Key;
  EXPECT_EQ(first[key(0, M::kGpuUtilPct)], std::vector<double>{90});
  EXPECT_EQ(first[key(1, M::kGpuUtilPct)], std::vector<double>{91});
  EXPECT_EQ(first[key(0, M::kSmClockMhz)], std::vector<double>{1980});
  EXPECT_EQ(first[key(1, M::kMemClockMhz)], std::vector<double>{2619});
  EXPECT_EQ(first[key(0, M::kThrottleReasons)], std::vector<double>{4});
  EXPECT_EQ(first[key(1, M::kMemoryUsedBytes)], std::vector<double>{51 * kGiB});
  EXPECT_EQ(first.count(key(0, M::kPowerMw)), 0u);       // not supported: no sample
  EXPECT_EQ(first.count(key(1, M::kGpmSmUtilPct)), 0u);  // one GPM sample is not a window
  sampler.SampleOnce(101'000'000);
  auto second = Drain(sink);
  EXPECT_EQ(second[key(1, M::kGpmSmUtilPct)], std::vector<double>{3.0});
  EXPECT_EQ(second[key(1, M::kGpmDramBwUtilPct)], std::vector<double>{15.0});
  EXPECT_EQ(second.count(key(1, M::kGpmFp32UtilPct)), 0u);  // per-metric error
  EXPECT_EQ(second.count(key(0, M::kGpmSmUtilPct)), 0u);    // device 0 has no GPM
  EXPECT_EQ(g_gpm_gets, 2);
  sampler.SampleOnce(150'000'000);  // 49 ms later: too short a GPM window, skipped
  auto third = Drain(sink);
  EXPECT_EQ(third.count(key(1, M::kGpmSmUtilPct)), 0u);
  EXPECT_EQ(third[key(1, M::kSmClockMhz)], std::vector<double>{1980});
  EXPECT_EQ(g_gpm_gets, 2);
  sampler.Stop();
  EXPECT_EQ(g_inits, 1);
  EXPECT_EQ(g_shutdowns, 1);
}

TEST(NvmlSampler, InitFailureIsReported) {
  RecordSink sink;
  NvmlApi api = FakeApi();
  api.init = [] { return NvmlReturn{1}; };
  NvmlSampler sampler(sink, api, 100, &CudaDevicesFake, -1);
  std::string why;
  EXPECT_FALSE(sampler.Init(why));
  EXPECT_NE(why.find("nvmlInit"), std::string::npos);
}

// Polls of a sampler over CUDA devices `cuda_devices`, at `polls_ns`; the samples of all of them.
struct Polls {
  Polls(std::vector<CudaDevice> cuda_devices, int local_rank, std::vector<std::uint64_t> polls_ns = {1'000})
      : sampler(sink, FakeApi(), 100, &CudaDevicesFake, local_rank) {
    g_cuda_devices = std::move(cuda_devices);
    std::string why;
    EXPECT_TRUE(sampler.Init(why)) << why;
    for (std::uint64_t t : polls_ns) sampler.SampleOnce(t);
    samples = Drain(sink);
    sampler.Stop();
    g_cuda_devices = {Gpu(0), Gpu(1)};
  }
  RecordSink sink;
  NvmlSampler sampler;
  Samples samples;
};

// CUDA_VISIBLE_DEVICES=2,0: CUDA ordinal 0 is NVML index 2. Samples are labelled by CUDA ordinal
// and come from the GPU at that ordinal's bus id, not from NVML's index order.
TEST(NvmlSampler, LabelsByCudaOrdinalUnderVisibleDevices) {
  Polls all({ByBusOnly(2), ByBusOnly(0)}, -1);
  EXPECT_EQ(all.samples[Key(0, M::kGpuUtilPct)], std::vector<double>{92});
  EXPECT_EQ(all.samples[Key(1, M::kGpuUtilPct)], std::vector<double>{90});
  EXPECT_EQ(all.samples.count(Key(2, M::kGpuUtilPct)), 0u);
  // A rank with LOCAL_RANK=1 samples its own GPU only: ordinal 1, NVML index 0.
  Polls ranked({ByBusOnly(2), ByBusOnly(0)}, 1);
  EXPECT_EQ(ranked.sampler.devices(), 1u);
  EXPECT_EQ(ranked.samples[Key(1, M::kGpuUtilPct)], std::vector<double>{90});
  EXPECT_EQ(ranked.samples.count(Key(0, M::kGpuUtilPct)), 0u);
}

// CUDA_VISIBLE_DEVICES=GPU-<uuid of 3>,GPU-<uuid of 1>: found in NVML by UUID, with no bus id.
TEST(NvmlSampler, FindsDevicesByUuid) {
  Polls p({ByUuidOnly(1), ByUuidOnly(0)}, -1);
  EXPECT_EQ(p.samples[Key(0, M::kGpuUtilPct)], std::vector<double>{91});
  EXPECT_EQ(p.samples[Key(1, M::kGpuUtilPct)], std::vector<double>{90});
  EXPECT_TRUE(p.sampler.notes().empty());
  Polls unknown({{"", "99999999-1111-2222-3333-444444444444", 1}}, -1);
  EXPECT_EQ(unknown.sampler.devices(), 0u);
  ASSERT_EQ(unknown.sampler.notes().size(), 1u);
  EXPECT_NE(unknown.sampler.notes()[0].find("not found in NVML"), std::string::npos);
}

// Four GPUs visible and one in use: that one only, others added when they come into use.
TEST(NvmlSampler, SamplesOnlyTheDevicesTheProcessUses) {
  Polls one({Gpu(0, 0), Gpu(1, 1), Gpu(2, 0), Gpu(3, 0)}, -1);
  EXPECT_EQ(Devices(one.samples, M::kSmClockMhz), std::vector<std::uint32_t>{1});

  RecordSink sink;
  NvmlSampler sampler(sink, FakeApi(), 100, &CudaDevicesFake, -1);
  std::string why;
  ASSERT_TRUE(sampler.Init(why));
  g_cuda_devices = {Gpu(0, 0), Gpu(1, 1), Gpu(2, 0)};
  sampler.SampleOnce(1'000);
  g_cuda_devices[2].in_use = 1;  // a second device, later
  sampler.SampleOnce(200'000'000);
  auto later = Drain(sink);
  EXPECT_EQ(later[Key(1, M::kSmClockMhz)].size(), 2u);
  EXPECT_EQ(later[Key(2, M::kSmClockMhz)].size(), 1u);
  EXPECT_EQ(later.count(Key(0, M::kSmClockMhz)), 0u);
  sampler.Stop();
  g_cuda_devices = {Gpu(0), Gpu(1)};

  // Rank 2 also holds a stray context on GPU 0 (a tensor touched on cuda:0): its GPU is ordinal 2.
  Polls stray({Gpu(0, 1), Gpu(1, 0), Gpu(2, 1), Gpu(3, 0)}, 2);
  EXPECT_EQ(Devices(stray.samples, M::kSmClockMhz), std::vector<std::uint32_t>{2});
}

// No primary context yet: wait; none after kOwnDeviceWaitNs (contexts from cuCtxCreate): the
// launcher's rule, LOCAL_RANK or every visible device. A driver that cannot say: that rule now.
TEST(NvmlSampler, WaitsForAContextThenTakesTheLauncherRule) {
  constexpr std::uint64_t t0 = 1'000'000'000, wait = NvmlSampler::kOwnDeviceWaitNs;
  std::vector<CudaDevice> idle = {Gpu(0, 0), Gpu(1, 0), Gpu(2, 0)};
  Polls early(idle, -1, {t0, t0 + wait - 1});
  EXPECT_TRUE(early.samples.empty());
  EXPECT_EQ(early.sampler.devices(), 0u);
  Polls late(idle, -1, {t0, t0 + wait});
  EXPECT_EQ(Devices(late.samples, M::kSmClockMhz), (std::vector<std::uint32_t>{0, 1, 2}));
  Polls ranked(idle, 1, {t0, t0 + wait});
  EXPECT_EQ(Devices(ranked.samples, M::kSmClockMhz), std::vector<std::uint32_t>{1});
  Polls unknown({Gpu(0, -1), Gpu(1, -1)}, 1, {t0});
  EXPECT_EQ(Devices(unknown.samples, M::kSmClockMhz), std::vector<std::uint32_t>{1});
}

// A GPU in MIG mode found by bus id: NVML does not support whole-GPU utilization there, and its
// memory is every instance's: neither is reported, and it is said.
TEST(NvmlSampler, MigGpuGetsNoUtilizationNorWholeGpuMemory) {
  Polls mig({ByBusOnly(kMigGpu)}, -1);
  EXPECT_EQ(mig.samples.count(Key(0, M::kGpuUtilPct)), 0u);
  EXPECT_EQ(mig.samples.count(Key(0, M::kMemoryUtilPct)), 0u);
  EXPECT_EQ(mig.samples.count(Key(0, M::kMemoryUsedBytes)), 0u);
  EXPECT_EQ(mig.samples[Key(0, M::kSmClockMhz)], std::vector<double>{1980});
  ASSERT_EQ(mig.sampler.notes().size(), 1u);
  EXPECT_NE(mig.sampler.notes()[0].find("MIG"), std::string::npos);
}

// CUDA_VISIBLE_DEVICES=MIG-<uuid>: the instance's own memory, its GPU's clocks, no utilization
// and no GPM.
TEST(NvmlSampler, MigInstanceByUuid) {
  Polls mig({{BusId(kMigGpu), kMigUuid, 1}}, -1, {1'000, 200'000'000});
  EXPECT_EQ(mig.samples.count(Key(0, M::kGpuUtilPct)), 0u);
  EXPECT_EQ(mig.samples[Key(0, M::kMemoryTotalBytes)], (std::vector<double>{10 * kGiB, 10 * kGiB}));
  EXPECT_EQ(mig.samples[Key(0, M::kMemoryUsedBytes)], (std::vector<double>{1 * kGiB, 1 * kGiB}));
  EXPECT_EQ(mig.samples[Key(0, M::kSmClockMhz)], (std::vector<double>{1980, 1980}));
  EXPECT_EQ(Devices(mig.samples, M::kGpmSmUtilPct), std::vector<std::uint32_t>{});
  ASSERT_EQ(mig.sampler.notes().size(), 1u);
  EXPECT_NE(mig.sampler.notes()[0].find("MIG instance"), std::string::npos);
}

// NVML writes the whole 333-entry metrics array: the sampler's struct must hold it, and the
// values read back are those of the metrics asked for.
TEST(NvmlSampler, GpmStructHoldsEveryMetricNvmlWrites) {
  Polls gpm({Gpu(1)}, -1, {1'000, 200'000'000, 400'000'000});
  EXPECT_EQ(gpm.samples[Key(0, M::kGpmSmUtilPct)], (std::vector<double>{3.0, 3.0}));
  EXPECT_EQ(gpm.samples[Key(0, M::kGpmTensorUtilPct)], (std::vector<double>{7.5, 7.5}));
  EXPECT_EQ(gpm.samples[Key(0, M::kGpmFp16UtilPct)], (std::vector<double>{19.5, 19.5}));
  EXPECT_EQ(gpm.samples.count(Key(0, M::kGpmFp32UtilPct)), 0u);
}

}  // namespace
}  // namespace plasmient::collect::nvml
