// dcgm-exporter's device counters read back from Prometheus (`fleet --prometheus`): each series'
// per-step means over a window, summed as they arrive so that memory stays one request's worth
// whatever the window's length. The estimate built from them is dcgm_estimate.h.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/result.h"

namespace plasmient::fleet {

// The counters the estimate reads, as dcgm-exporter names them.
enum class DcgmCounter : std::uint8_t {
  kTensorActive,    // DCGM_FI_PROF_PIPE_TENSOR_ACTIVE: ratio 0-1 of cycles a tensor pipe is active
  kSmActive,        // DCGM_FI_PROF_SM_ACTIVE: ratio 0-1 of cycles an SM has a warp resident
  kDramActive,      // DCGM_FI_PROF_DRAM_ACTIVE: ratio 0-1 of cycles device memory is moving data
  kGrEngineActive,  // DCGM_FI_PROF_GR_ENGINE_ACTIVE: ratio 0-1 of time the graphics engine is busy
  kGpuUtil,         // DCGM_FI_DEV_GPU_UTIL: percent 0-100 of time some kernel ran (nvidia-smi's figure)
  kSmClock,         // DCGM_FI_DEV_SM_CLOCK: MHz (kept in MHz: the counter model normalizes by it)
  kCount
};
inline constexpr int kDcgmCounters = static_cast<int>(DcgmCounter::kCount);
std::string_view DcgmCounterName(DcgmCounter c);

// One counter of one series over the window: the sum and number of its per-step means (each a
// ratio 0-1; GPU_UTIL is divided by 100; SM_CLOCK stays MHz), and the points that lay outside
// [0, 1] (for the clock: not above 0) and were clamped (the clock's dropped).
struct CounterSums {
  double sum = 0;
  std::int64_t points = 0;
  std::int64_t clamped = 0;
  double Mean() const { return points > 0 ? sum / static_cast<double>(points) : 0; }
};

// One exporter series: a GPU under one label set (a GPU that changed pods is two series).
struct DcgmSeries {
  std::vector<std::pair<std::string, std::string>> labels;  // sorted by name; no __name__
  std::array<CounterSums, kDcgmCounters> counters;
  const CounterSums& At(DcgmCounter c) const { return counters[static_cast<int>(c)]; }
  std::string_view Label(std::string_view name) const;  // "" when absent
};

// [start_s, end_s] cut into steps: each point is a counter's mean over the step that ends at it
// (avg_over_time over step_s), so points × step_s is the time a series covered.
struct DcgmWindow {
  std::int64_t start_s = 0, end_s = 0, step_s = 60;
  std::int64_t Points() const { return step_s > 0 ? (end_s - start_s) / step_s : 0; }
};

// GET of a path with its query string ("/api/v1/query_range?query=…") on the Prometheus server;
// the body of a 2xx answer, else a one-line error. A seam: tests answer from canned JSON.
using PrometheusGet = std::function<Result<std::string>(const std::string& path_and_query)>;
// The HTTP client for `url` (http://HOST[:PORT], default port 9090).
Result<PrometheusGet> PrometheusHttpGet(const std::string& url, int timeout_s = 30);

struct DcgmReadOptions {
  std::string source;  // the server's URL, for messages
  DcgmWindow window;
  std::string match;  // PromQL label matchers every counter is selected with ('cluster="a"'); "" for all
  std::int64_t max_points_per_request = 240;  // bounds one answer's size: the window is asked in parts
};

struct DcgmCounters {
  std::vector<DcgmSeries> series;                   // sorted by labels
  std::array<std::int64_t, kDcgmCounters> found{};  // series that had the counter
};

// Every counter over the window. Fails on an unreachable server, a non-success answer, a body
// that is not a Prometheus matrix, or when no counter has a series in the window.
Result<DcgmCounters> ReadDcgmCounters(const PrometheusGet& get, const DcgmReadOptions& options);

// One query_range answer's series added to `by_labels` (exposed for tests): the counter's
// per-step means, keyed by the series' label set.
Status AddQueryRangeAnswer(std::string_view body, DcgmCounter counter,
                           std::map<std::string, DcgmSeries>& by_labels);

// "15s", "1m", "2h" or plain seconds, > 0.
Result<std::int64_t> ParseStepSeconds(std::string_view text);

}  // namespace plasmient::fleet
