// The bill at a rate: what N GPUs at a price cost per hour, day and year, how much of it buys
// arithmetic at an achieved fraction, and how much a target fraction would save. Pure
// arithmetic, shared by `plasmient bill` (what-if) and the store's bills table (observed rate).
#pragma once

#include <string>

#include "base/result.h"

namespace plasmient::fleet {

inline constexpr double kHoursPerDay = 24;
inline constexpr double kDaysPerYear = 365;

struct BillRates {
  double gpus = 0, price_per_gpu_hour = 0, achieved = 0, target = 0.40;
  double spend_per_hour = 0;  // gpus × price
  double spend_per_day = 0, spend_per_year = 0;
  double computed_per_day = 0;             // spend × achieved
  double paid_never_computed_per_day = 0;  // spend × (1 − achieved)
  double paid_never_computed_per_year = 0;
  double addressable_per_day = 0;  // spend × max(0, 1 − achieved / target)
  double addressable_per_year = 0;
  double gpus_at_target = 0;  // GPUs doing the same useful work at the target
};

// Fails when an input is out of range (negative GPUs or price, achieved outside [0, 1],
// target outside (0, 1]).
Result<BillRates> RatesFor(double gpus, double price_per_gpu_hour, double achieved, double target);

// The what-if table `plasmient bill` prints.
std::string FormatBill(const BillRates& rates);

}  // namespace plasmient::fleet
