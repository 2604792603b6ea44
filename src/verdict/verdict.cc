#include "verdict/verdict.h"

#include <algorithm>

#include "base/result.h"

namespace plasmient::verdict {
namespace {

struct LossText {
  Loss loss;
  std::string_view key, label;  // the advice is chosen per trace: diagnose/fixes.cc
};

constexpr LossText kLossText[] = {
    {Loss::kComputeInefficiency, "compute_inefficiency", "compute below peak"},
    {Loss::kMemoryBound, "memory_bound", "memory-bound kernels"},
    {Loss::kUnmodeledKernels, "unmodeled_kernels", "kernels with no FLOP model"},
    {Loss::kExposedCommunication, "exposed_communication", "exposed communication"},
    {Loss::kPipelineBubble, "pipeline_bubble", "pipeline bubble"},
    {Loss::kHostBoundIdle, "host_bound_idle", "host-bound idle"},
    {Loss::kDataMovement, "data_movement", "memcpy/memset only"},
};
static_assert(std::size(kLossText) == kLossCount);

const LossText& Text(Loss l) {
  auto i = static_cast<std::size_t>(l);
  PLASMIENT_CHECK(i < kLossCount && kLossText[i].loss == l);
  return kLossText[i];
}

// A family names the exposed communication when it holds at least this share of it: a label
// that names one kind must be true of most of the time it labels.
constexpr double kCommFamilyDominantShare = 2.0 / 3.0;

constexpr std::string_view kCommFamilyName[] = {"all-reduce", "all-to-all", "all-gather/reduce-scatter",
                                                "other collectives"};
static_assert(std::size(kCommFamilyName) == kCommFamilyCount);

constexpr std::string_view kBoundName[] = {"compute", "memory", "unmodeled", "communication", "memory-copy"};

}  // namespace

std::string_view BoundName(Bound b) {
  auto i = static_cast<std::size_t>(b);
  PLASMIENT_CHECK(i < std::size(kBoundName));
  return kBoundName[i];
}

Bound BoundOfLoss(Loss loss) {
  switch (loss) {
    case Loss::kMemoryBound:
      return Bound::kMemory;
    case Loss::kUnmodeledKernels:
      return Bound::kUnmodeled;
    case Loss::kExposedCommunication:
    case Loss::kPipelineBubble:
      return Bound::kCommunication;
    case Loss::kDataMovement:
      return Bound::kMemoryCopy;
    default:
      return Bound::kCompute;
  }
}

CommFamily FamilyOf(join::CollectiveKind kind) {
  switch (kind) {
    case join::CollectiveKind::kAllReduce:
      return CommFamily::kAllReduce;
    case join::CollectiveKind::kAllToAll:
      return CommFamily::kAllToAll;
    case join::CollectiveKind::kAllGather:
    case join::CollectiveKind::kReduceScatter:
      return CommFamily::kGatherScatter;
    default:
      return CommFamily::kOther;
  }
}

std::string_view CommFamilyName(CommFamily family) {
  auto i = static_cast<std::size_t>(family);
  PLASMIENT_CHECK(i < kCommFamilyCount);
  return kCommFamilyName[i];
}

double Evidence::exposed_comm_total_s() const {
  double total = 0;
  for (double s : exposed_comm_s) total += s;
  return total;
}

double Evidence::median_compute_kernel_us() const {
  std::int64_t seen = 0;
  for (std::size_t us = 0; us < kKernelDurationBuckets; ++us) {
    seen += compute_kernel_us[us];
    if (compute_kernels > 0 && 2 * seen >= compute_kernels) return static_cast<double>(us);
  }
  return 0;
}

std::optional<CommFamily> Evidence::dominant_comm_family() const {
  const double total = exposed_comm_total_s();
  for (std::size_t i = 0; i < kCommFamilyCount; ++i) {
    if (total > 0 && exposed_comm_s[i] >= kCommFamilyDominantShare * total) return static_cast<CommFamily>(i);
  }
  return std::nullopt;
}

std::string_view JobVerdict::loss_label(Loss loss) const {
  if (loss != Loss::kExposedCommunication || evidence.exposed_comm_total_s() <= 0) return LossLabel(loss);
  const auto family = evidence.dominant_comm_family();
  if (!family) return "exposed communication (mixed)";
  return CommFamilyLabel(*family);
}

std::string_view JobVerdict::fix_label(const Fix& fix) const {
  return fix.loss == Loss::kExposedCommunication && fix.family ? CommFamilyLabel(*fix.family)
                                                               : loss_label(fix.loss);
}

std::string_view CommFamilyLabel(CommFamily family) {
  switch (family) {
    case CommFamily::kAllReduce:
      return "exposed all-reduce wait";
    case CommFamily::kAllToAll:
      return "exposed all-to-all wait";
    case CommFamily::kGatherScatter:
      return "all-gather/reduce-scatter wait";  // "exposed" would not fit the terminal's label column
    default:
      return "exposed collective wait";
  }
}

std::string_view LossKey(Loss l) { return Text(l).key; }
std::string_view LossLabel(Loss l) { return Text(l).label; }

std::string_view VerdictWords(const Figures& f, bool judgeable) {
  const double achieved = f.achieved(), util = f.utilization();
  if (!judgeable) return util < 0.5 ? "mostly idle, usefulness unknown" : "busy, usefulness unknown";
  if (util < 0.5) return "mostly idle";
  if (achieved < 0.1 || (util >= 0.8 && achieved < 0.3)) return "busy, not useful";
  if (achieved >= 0.5) return "well used";
  return "partly useful";
}

void Figures::Add(const Figures& o) {
  if (wall_s == 0) {
    start_ns = o.start_ns;
    end_ns = o.end_ns;
  } else {
    start_ns = std::min(start_ns, o.start_ns);
    end_ns = std::max(end_ns, o.end_ns);
  }
  wall_s += o.wall_s;
  kernel_union_s += o.kernel_union_s;
  useful_s += o.useful_s;
  for (std::size_t i = 0; i < kLossCount; ++i) loss_s[i] += o.loss_s[i];
}

bool DeviceActivity::any() const {
  return std::any_of(samples.begin(), samples.end() - 1, [](std::int64_t n) { return n > 0; });
}

double DeviceActivity::Mean(DeviceMetric m) const {
  const double raw = MeanRaw(m);
  return raw >= 0 ? raw / 100 : -1;
}

double DeviceActivity::MeanRaw(DeviceMetric m) const {
  auto i = static_cast<std::size_t>(m);
  return samples[i] > 0 ? sum_pct[i] / static_cast<double>(samples[i]) : -1;
}

roofline::CounterReading DeviceActivity::Reading() const {
  roofline::CounterReading r;
  constexpr std::pair<DeviceMetric, roofline::CounterField> kFields[] = {
      {DeviceMetric::kSmActive, roofline::CounterField::kSmActive},
      {DeviceMetric::kTensorActive, roofline::CounterField::kTensorActive},
      {DeviceMetric::kDramActive, roofline::CounterField::kDramActive}};
  for (auto [metric, field] : kFields) {
    if (double v = Mean(metric); v >= 0) r.Set(field, std::clamp(v, 0.0, 1.0));
  }
  if (double mhz = MeanRaw(DeviceMetric::kSmClockMhz); mhz > 0)
    r.Set(roofline::CounterField::kSmClockMhz, mhz);
  return r;
}

void DeviceActivity::Merge(const DeviceActivity& other) {
  for (std::size_t i = 0; i < kDeviceMetricCount; ++i) {
    sum_pct[i] += other.sum_pct[i];
    samples[i] += other.samples[i];
  }
}

roofline::RooflinePoint KernelAggregate::roofline_point() const {
  return roofline::Evaluate(flops, bytes, time_s, peak_flops_per_s, memory_bandwidth_bytes_per_s);
}

std::optional<double> JobVerdict::model_coverage() const {
  if (compute_kernel_s <= 0) return std::nullopt;
  return modeled_compute_s / compute_kernel_s;
}

std::optional<double> JobVerdict::mfu() const {
  if (model_flops < 0 || capacity_flops <= 0) return std::nullopt;
  // Not clamped to HFU: a derived MFU above it is reported in data quality (mfu_above_hfu).
  return model_flops / capacity_flops;
}

}  // namespace plasmient::verdict
