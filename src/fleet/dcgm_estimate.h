// A fleet bill from dcgm-exporter's counters alone (`plasmient fleet --prometheus`): an estimated
// achieved fraction of peak per GPU, job and team, beside nvidia-smi's utilization, and the
// GPU-hours and dollars it implies. Estimates from device counters, not traces: the method and
// what it over- and under-states are in docs/fleet.md, "Estimates from DCGM counters".
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "fleet/dcgm_reader.h"

namespace plasmient::fleet {

struct DcgmEstimateOptions {
  std::string job_label = "pod", team_label = "namespace";
  std::optional<double> price_per_gpu_hour;  // else each model's list price from the device table
};

// A GPU, a job, a team or the whole fleet over the window.
struct DcgmRow {
  std::string name;
  std::string model, device_key;  // GPU rows: modelName and the device table's row ("" when none)
  std::int64_t gpus = 0;
  double gpu_hours = 0;  // hours of tensor-active readings: the hours the estimate covers
  // Each counter's mean (ratio 0-1), weighted by the hours it was read; nullopt when never read.
  std::array<std::optional<double>, kDcgmCounters> means;
  double achieved = 0;                         // the estimate, weighted by GPU-hours
  std::optional<double> achieved_flops_per_s;  // × each GPU's dense 16-bit tensor peak (table rows only)
  double priced_gpu_hours = 0;                 // GPU-hours with a price (--price, or a device table row)
  double dollars = 0, wasted_dollars = 0;      // dollars × (1 − achieved), per series

  std::optional<double> Mean(DcgmCounter c) const { return means[static_cast<int>(c)]; }
};

struct DcgmEstimate {
  std::string source, job_label, team_label;
  DcgmWindow window;
  std::optional<double> price_per_gpu_hour;  // as given
  // What bounded the tensor-active reading ("DCGM_FI_PROF_SM_ACTIVE", else the engine's, else none).
  std::string bound_by;
  DcgmRow total;
  std::vector<DcgmRow> teams, jobs, gpus;  // most wasted dollars first, then GPU-hours
  std::vector<std::string> notes;          // missing counters, unpriced models, clamped readings
};

// Fails (one line) when no series has DCGM_FI_PROF_PIPE_TENSOR_ACTIVE: without it there is no
// estimate, only utilization, and the line says so.
Result<DcgmEstimate> EstimateFromDcgm(const DcgmCounters& counters, const DcgmReadOptions& read,
                                      const DcgmEstimateOptions& options);

// The text `fleet --prometheus` prints: teams, jobs (at most `limit`), GPUs (at most `limit`).
std::string FormatDcgmEstimate(const DcgmEstimate& e, std::size_t limit);
// `--json` (plasmient.fleet_dcgm/1, docs/fleet.md).
std::string DcgmEstimateJson(const DcgmEstimate& e);

}  // namespace plasmient::fleet
