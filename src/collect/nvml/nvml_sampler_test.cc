#include "collect/nvml/nvml_sampler.h"

#include <cstring>
#include <map>
#include <vector>

#include <gtest/gtest.h>

namespace plasmient::collect::nvml {
namespace {

// A fake NVML: four GPUs at bus ids 0000:1N:00.0 (NVML index N); index 1 supports GPM, index 3
// is in MIG mode.
int g_inits = 0, g_shutdowns = 0, g_gpm_gets = 0;
std::string BusId(unsigned nvml_index) { return "0000:1" + std::to_string(nvml_index) + ":00.0"; }
NvmlReturn Init() {
  ++g_inits;
  return kNvmlSuccess;
}
NvmlReturn Shutdown() {
  ++g_shutdowns;
  return kNvmlSuccess;
}
NvmlReturn Count(unsigned* n) {
  *n = 4;
  return kNvmlSuccess;
}

// The process's CUDA devices: NVML indices 0 and 1 in order, unless a test sets another list.
std::vector<unsigned> g_cuda_devices = {0, 1};
bool g_cuda_ready = true;
bool CudaBusIds(std::vector<std::string>& out) {
  if (!g_cuda_ready) return false;
  out.clear();
  for (unsigned i : g_cuda_devices) out.push_back(BusId(i));
  return true;
}
NvmlReturn ByBusId(const char* bus, NvmlDevice* d) {
  for (unsigned i = 0; i < 4; ++i) {
    if (BusId(i) == bus) {
      *d = reinterpret_cast<NvmlDevice>(static_cast<std::uintptr_t>(i + 1));
      return kNvmlSuccess;
    }
  }
  return 13;  // NOT_FOUND
}
unsigned Index(NvmlDevice d) { return static_cast<unsigned>(reinterpret_cast<std::uintptr_t>(d)) - 1; }
NvmlReturn Util(NvmlDevice d, NvmlUtilization* u) {
  *u = {90 + Index(d), 40};
  return kNvmlSuccess;
}
NvmlReturn Mig(NvmlDevice d, unsigned* current, unsigned* pending) {
  *current = *pending = Index(d) == 3 ? 1 : 0;
  return kNvmlSuccess;
}
NvmlReturn Clock(NvmlDevice, int type, unsigned* mhz) {
  *mhz = type == kNvmlClockSm ? 1980 : 2619;
  return kNvmlSuccess;
}
NvmlReturn Power(NvmlDevice d, unsigned*) { return 3; /* NOT_SUPPORTED */ }
NvmlReturn Reasons(NvmlDevice, unsigned long long* r) {
  *r = 0x4;
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
NvmlReturn GpmMetrics(NvmlGpmMetricsGet* m) {
  if (m->version != 1 || m->sample1 == m->sample2) return 2;
  // The metrics array is IN/OUT and NVML's struct has 333 entries: it may touch all of them.
  m->metrics[332].value = 0;
  for (unsigned i = 0; i < m->num_metrics; ++i) {
    m->metrics[i].nvml_return = m->metrics[i].metric_id == 12 ? 3 : kNvmlSuccess;
    m->metrics[i].value = m->metrics[i].metric_id * 1.5;
  }
  return kNvmlSuccess;
}

NvmlApi FakeApi() {
  NvmlApi api;
  api.init = Init;
  api.shutdown = Shutdown;
  api.device_count = Count;
  api.device_by_pci_bus_id = ByBusId;
  api.mig_mode = Mig;
  api.utilization = Util;
  api.clock_info = Clock;
  api.power_usage = Power;
  api.clock_reasons = Reasons;
  api.gpm_query_support = GpmSupport;
  api.gpm_sample_alloc = GpmAlloc;
  api.gpm_sample_free = GpmFree;
  api.gpm_sample_get = GpmGet;
  api.gpm_metrics_get = GpmMetrics;
  return api;
}

std::map<std::pair<std::uint32_t, std::uint16_t>, std::vector<double>> Drain(RecordSink& sink) {
  std::map<std::pair<std::uint32_t, std::uint16_t>, std::vector<double>> out;
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

static_assert(sizeof(NvmlGpmMetricsGet) == 24 + 333 * sizeof(NvmlGpmMetric), "NVML's full struct");

TEST(NvmlSampler, PollsEveryDeviceAndGpmFromTheSecondPoll) {
  RecordSink sink;
  NvmlSampler sampler(sink, FakeApi(), 100, &CudaBusIds, -1);
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
  NvmlSampler sampler(sink, api, 100, &CudaBusIds, -1);
  std::string why;
  EXPECT_FALSE(sampler.Init(why));
  EXPECT_NE(why.find("nvmlInit"), std::string::npos);
}

// One poll of a sampler over CUDA devices `cuda_devices` (NVML indices in CUDA ordinal order).
struct OnePoll {
  OnePoll(std::vector<unsigned> cuda_devices, int local_rank)
      : sampler(sink, FakeApi(), 100, &CudaBusIds, local_rank) {
    g_cuda_devices = std::move(cuda_devices);
    std::string why;
    EXPECT_TRUE(sampler.Init(why)) << why;
    sampler.SampleOnce(1'000);
    samples = Drain(sink);
    sampler.Stop();
    g_cuda_devices = {0, 1};
  }
  RecordSink sink;
  NvmlSampler sampler;
  std::map<std::pair<std::uint32_t, std::uint16_t>, std::vector<double>> samples;
};

// CUDA_VISIBLE_DEVICES=2,0: CUDA ordinal 0 is NVML index 2. Samples are labelled by CUDA ordinal
// and come from the GPU at that ordinal's bus id, not from NVML's index order.
TEST(NvmlSampler, LabelsByCudaOrdinalUnderVisibleDevices) {
  OnePoll all({2, 0}, -1);
  EXPECT_EQ(all.samples[Key(0, M::kGpuUtilPct)], std::vector<double>{92});
  EXPECT_EQ(all.samples[Key(1, M::kGpuUtilPct)], std::vector<double>{90});
  EXPECT_EQ(all.samples.count(Key(2, M::kGpuUtilPct)), 0u);
  // A rank with LOCAL_RANK=1 samples its own GPU only: ordinal 1, NVML index 0.
  OnePoll ranked({2, 0}, 1);
  EXPECT_EQ(ranked.sampler.devices(), 1u);
  EXPECT_EQ(ranked.samples[Key(1, M::kGpuUtilPct)], std::vector<double>{90});
  EXPECT_EQ(ranked.samples.count(Key(0, M::kGpuUtilPct)), 0u);
}

// Under MIG NVML does not support whole-GPU utilization: none is reported, and it is said.
TEST(NvmlSampler, MigGpuGetsNoUtilization) {
  OnePoll mig({3}, -1);
  EXPECT_EQ(mig.samples.count(Key(0, M::kGpuUtilPct)), 0u);
  EXPECT_EQ(mig.samples.count(Key(0, M::kMemoryUtilPct)), 0u);
  EXPECT_EQ(mig.samples[Key(0, M::kSmClockMhz)], std::vector<double>{1980});
  ASSERT_EQ(mig.sampler.notes().size(), 1u);
  EXPECT_NE(mig.sampler.notes()[0].find("MIG"), std::string::npos);
}

}  // namespace
}  // namespace plasmient::collect::nvml
