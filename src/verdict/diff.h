// Before/after: how the verdict changed between two analyses of the same workload (a fix, a new
// version, a new cluster). Fractions are of each side's own capacity, so traces of different
// lengths compare; seconds are given beside them.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "verdict/verdict.h"

namespace plasmient::verdict {

struct FigureChange {
  std::string key;               // "achieved_fraction", "utilization", or a LossKey
  std::string label;             // for people
  double before = 0, after = 0;  // fractions of capacity
  double delta() const { return after - before; }
};

// A kernel or op in either side's top list. A side where it is not in the top list has no value
// (it may have lost less than the list's last entry, or not run at all).
struct AggregateChange {
  std::string name;
  std::string op;
  Loss loss = Loss::kComputeInefficiency;  // where its lost time went (after, else before)
  std::optional<double> before_lost_fraction, after_lost_fraction;  // lost time / capacity
  std::optional<double> before_lost_s, after_lost_s;
  std::optional<double> before_achieved, after_achieved;
  double delta() const { return after_lost_fraction.value_or(0) - before_lost_fraction.value_or(0); }
};

struct VerdictDiff {
  FigureChange achieved, utilization;
  std::vector<FigureChange> losses;                       // every loss, largest |change| first
  std::optional<double> before_step_s, after_step_s;      // mean step time over ranks and steps
  double before_gpu_s = 0, after_gpu_s = 0;               // capacity: GPU-seconds judged
  std::optional<double> before_headroom, after_headroom;  // none when nothing useful was modeled
  std::string before_device, after_device;
  std::vector<AggregateChange> kernels, ops;  // largest |change in lost fraction| first
};

VerdictDiff DiffVerdicts(const JobVerdict& before, const JobVerdict& after, std::size_t top_n);

}  // namespace plasmient::verdict
