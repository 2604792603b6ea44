// Prometheus metrics of the analyses a node made, in the text exposition format (0.0.4).
// Labels as the ecosystem writes them: `plasmient_job` (never `job`, Prometheus's target label),
// `gpu` the GPU's index and `modelName` its model as dcgm-exporter writes them, `Hostname`; the
// job's `--label` and marker labels (team, user) in one `plasmient_job_info` series to join on.
// Counters are born at 0: a new series shows 0 for `counter_hold_s`, then its figures, so
// rate()/increase() count a job's first analysis; their state is saved (SaveState) and loaded
// at start (LoadState), and an analysis (its job key) is counted once.
// Per (host, gpu, job, rank): utilization and achieved fraction (gauges), loss ratios by
// category, GPU-seconds and wasted GPU-seconds (counters) and step durations (histogram). Per
// (host, job): the top kernels' and module types' GPU and lost seconds (gauges, the latest
// analysis of the job).
// Memory is bounded: only the `max_jobs` most recently analyzed jobs keep series.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "base/result.h"
#include "serve/counter_estimate.h"
#include "serve/http_server.h"
#include "store/job_rows.h"
#include "verdict/verdict.h"

namespace plasmient::serve {

inline constexpr std::array<double, 15> kStepBucketsS = {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25,
                                                         0.5,   1,      2.5,   5,    10,    30,   60};

// A live sample of one GPU (utilization, SM activity...) from a sampler such as the live
// agent's NVML reader; exported as plasmient_live_<name>{host,gpu}.
struct LiveSample {
  std::string gpu;
  std::string name;  // e.g. "gpu_utilization_ratio"
  double value = 0;
};

// The seam for live sampling: serve polls it on every scan when one is given.
class LiveSampler {
 public:
  virtual ~LiveSampler() = default;
  virtual std::vector<LiveSample> Poll() = 0;
};

// One self-metric the daemon adds: name, type, help, value; or, when `label` is given, one series
// per (label value, value) in `series` (none: the metric is left out).
struct SelfMetric {
  std::string_view name, type, help;
  double value;
  std::string_view label = {};
  std::vector<std::pair<std::string, double>> series = {};
};

// What a spool entry was: a trace analyzed whole, one kernel window of a duty-cycled agent, or
// the device-tier samples between two windows (no verdict: only the device gauges).
enum class SampleKind : std::uint8_t { kTrace = 0, kWindow = 1, kDeviceTier = 2 };

// What the metrics take from one rank of one analysis: made where the verdict is (serve's
// analysis process) and sent as text to the daemon (SerializeSamples / ParseSamples).
struct RankSample {
  std::int64_t rank = -1;
  std::string gpu;              // the model (the device-table name): the modelName label
  std::int32_t gpu_index = -1;  // the GPU the kernels ran on (the trace's device id): the gpu label
  double utilization = 0, achieved = 0;
  std::array<double, verdict::kLossCount> loss{};
  double gpu_s = 0, wasted_s = 0;
  std::array<std::uint64_t, kStepBucketsS.size()> buckets{};  // steps per bucket (not cumulative)
  std::uint64_t steps = 0;
  double steps_sum_s = 0;
  SampleKind kind = SampleKind::kTrace;
  // The device tier's mean SM, tensor and DRAM activity (ratios) over the analysis's window W, or
  // over the whole file for device-tier samples only (RankVerdict::device_tier), whatever the
  // trace's format; -1 when not sampled.
  double sm_active = -1, tensor_active = -1, dram_active = -1;
  // The start of the window W (its first GPU activity) on the trace's clock (Unix ns in the
  // agent's files); 0 for device-tier samples.
  std::int64_t window_start_ns = 0;
  // The counter model's uncalibrated achieved fraction over the same seconds (docs/counters.md),
  // -1 without pipe activity; and the device it was estimated for (the calibration's key).
  double counter_estimate = -1;
  std::string device_key;

  bool device_sampled() const { return sm_active >= 0 || tensor_active >= 0 || dram_active >= 0; }
};

// Windowed jobs keep their last kRollingWindows kernel windows for the rolling verdict.
inline constexpr std::size_t kRollingWindows = 10;

// A kernel or module type of one analysis: the series of the top-kernel and layer panels.
struct TopSample {
  std::string name;  // the kernel's name, or the module type
  std::string loss;  // where most of its lost time went (verdict::LossKey)
  double gpu_s = 0;  // a kernel's summed durations; a type's GPU time (docs/layers.md)
  double lost_s = 0;
};

// A kernel's or module type's label value: at most kLabelBytes, a long demangled name given as
// its short form (the qualified name before its template arguments and parameters) and a hash.
inline constexpr std::size_t kLabelBytes = 96;
std::string NameLabel(std::string_view name);

// Analyses (job keys) remembered as counted, the most recent: a crash between the metrics' state
// written and the store's commit redoes at most --workers analyses, each found here.
inline constexpr std::size_t kCountedKeys = 256;

// Kernels and module types kept per job (the largest by lost, resp. GPU time): the series stay
// bounded by max_jobs × this.
inline constexpr std::size_t kTopSeries = 10;

struct JobTops {
  std::vector<TopSample> kernels, layer_types;  // at most kTopSeries each
};

// The ranks with GPU activity.
std::vector<RankSample> SampleJob(const verdict::JobVerdict& job);
JobTops SampleTops(const verdict::JobVerdict& job);
// One line per rank, then one per top kernel and module type.
std::string SerializeSamples(const std::vector<RankSample>& samples, const JobTops& tops = {});
// The ranks; the tops into `tops` (a text with tops is refused without it).
Result<std::vector<RankSample>> ParseSamples(std::string_view text, JobTops* tops = nullptr);

class MetricsRegistry {
 public:
  // `counter_hold_s`: how long a new series' counters show 0 before their figures (serve
  // --counter-hold-s); 0: at once.
  explicit MetricsRegistry(std::size_t max_jobs = 200, double counter_hold_s = 0);

  bool RecordJob(const verdict::JobVerdict& job, const store::JobContext& context) {
    return RecordJob(SampleJob(job), context, SampleTops(job));
  }
  // `tops` replace the job's when the samples carry a verdict (not only the device tier). False,
  // and nothing changed, when the analysis (context.job_key, when given) was counted already.
  bool RecordJob(const std::vector<RankSample>& samples, const store::JobContext& context,
                 const JobTops& tops = {});
  // What survives a restart: the counters of every series and when each was born, the gauges,
  // the jobs' labels, the keys counted (text; LoadState takes it back, replacing what is held).
  std::string SaveState() const;
  Status LoadState(std::string_view text);
  // The wall clock in Unix ns (tests set their own).
  void SetClock(std::function<std::int64_t()> now_ns);
  void SetLive(const std::string& host, std::vector<LiveSample> samples);
  // The cluster layer over the store for `job` (serve --cluster-every-s): the ranks it read and
  // its stragglers; the `max_jobs` most recently analyzed jobs are kept.
  void SetCluster(const std::string& job, std::int64_t ranks,
                  const std::vector<verdict::Straggler>& stragglers);
  // The whole exposition: the analyses' series, then `self` (self-metrics of the daemon).
  std::string Render(const std::vector<SelfMetric>& self) const;
  // The analyses' series alone, shared: rebuilt only after a change (or when a held counter is
  // released), so that scrapes in between send, and gzip, the one text. serve's /metrics sends
  // it, then RenderSelf.
  std::shared_ptr<const SharedBody> Series() const;
  static std::string RenderSelf(const std::vector<SelfMetric>& self);
  std::size_t jobs() const;

 private:
  struct RankSeries {
    std::string host, gpu;
    std::int32_t gpu_index = -1;
    std::int64_t release_ns = 0;  // its counters show 0 before this (born at 0)
    double utilization = 0, achieved = 0;
    std::array<double, verdict::kLossCount> loss{};
    double gpu_s = 0, wasted_s = 0;
    std::array<std::uint64_t, kStepBucketsS.size()> buckets{};  // cumulative at render
    std::uint64_t steps = 0;
    double steps_sum_s = 0;
  };
  using Key = std::pair<std::string, std::int64_t>;  // job, rank
  struct HostTops {                                  // the job's latest analysis
    std::string host;
    JobTops tops;
  };
  // A rank with a device tier: a duty-cycled agent's kernel windows (measured) and device tier
  // (estimated between them), or a trace with device-tier samples (an Nsight Systems export's
  // GPU_METRICS), which calibrates the estimate too.
  struct WindowSeries {
    std::string host, gpu;
    std::int32_t gpu_index = -1;
    std::int64_t release_ns = 0;  // plasmient_kernel_windows_total shows 0 before this
    struct Window {
      double achieved, gpu_s;
      std::int64_t start_ns;
    };
    std::deque<Window> recent;  // the last kRollingWindows kernel windows, oldest first
    double lifetime_useful_s = 0, lifetime_gpu_s = 0;
    std::uint64_t windows = 0;
    double sm_active = -1, tensor_active = -1, dram_active = -1;  // the latest file's device tier
    std::string device_key;  // of the latest measured analysis: what a samples file is calibrated by
    double estimated = -1;   // calibrated counter estimate from the device tier since the last window
    double uncalibrated = -1, band = -1;  // the counter model's own figure, the calibrated one's ± band
    std::size_t calibration_pairs = 0;
    bool calibrated = false;
    double Rolling() const;
  };
  void RecordWindow(const RankSample& sample, const store::JobContext& context, std::int64_t release_ns);

  struct JobInfo {
    std::string host;
    store::Labels labels;
  };
  mutable std::mutex mu_;
  std::size_t max_jobs_;
  std::int64_t hold_ns_;
  std::function<std::int64_t()> now_ns_;
  std::map<std::string, JobInfo> info_;   // by job
  std::deque<std::string> counted_keys_;  // the last kCountedKeys analyses counted, oldest first
  std::map<Key, RankSeries> series_;
  std::map<std::string, HostTops> tops_;  // by job
  std::map<Key, WindowSeries> windowed_;
  CounterEstimator counters_;          // the counter model's calibration per device and job
  std::deque<std::string> job_order_;  // least recently analyzed first
  struct ClusterSeries {
    std::int64_t ranks = 0;
    std::vector<verdict::Straggler> stragglers;
  };
  std::map<std::string, ClusterSeries> cluster_;  // by job
  std::deque<std::string> cluster_order_;         // least recently analyzed first
  std::string live_host_;
  std::vector<LiveSample> live_;
  // The series' exposition, rebuilt only after a change.
  mutable std::shared_ptr<const SharedBody> cache_;
  mutable bool dirty_ = true;
  mutable std::int64_t next_release_ns_ = INT64_MAX;  // the cache is stale from then on

  void RenderSeries(std::string& out, std::int64_t now_ns) const;
};

// A label value of the exposition format: valid UTF-8 (each invalid byte becomes U+FFFD) with
// \\, \" and \n escaped, so no file name, host or label can make a scrape invalid.
std::string EscapeLabelValue(std::string_view value);

}  // namespace plasmient::serve
