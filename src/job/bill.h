// The bill, written once: what GPU time at a price costs, how much of it buys arithmetic at an
// achieved fraction, and how much a target fraction would save. The job's window bill
// (verdict::Bill, in every verdict), the rates per day and year (`plasmient bill`, the store's
// bills table) and the what-if sides (whatif/bill.h) are all this arithmetic.
#pragma once

#include <string>

#include "base/result.h"
#include "verdict/verdict.h"

namespace plasmient::job {

inline constexpr double kHoursPerDay = 24;
inline constexpr double kDaysPerYear = 365;  // a GPU-year: 8,760 GPU-hours
inline constexpr double kHoursPerYear = kHoursPerDay * kDaysPerYear;

// One amount of spend split by the achieved fraction.
struct SpendSplit {
  double computed = 0;             // spend × achieved
  double paid_never_computed = 0;  // spend × (1 − achieved)
  double addressable = 0;          // spend × max(0, 1 − achieved / target); 0 without a target
};
SpendSplit SplitSpend(double spend, double achieved, double target);

// The bill of the job's window at its price and the target fraction (--target-mfu).
verdict::Bill WindowBill(const verdict::Figures& job, double price_per_gpu_hour, double target);

struct BillRates {
  double gpus = 0, price_per_gpu_hour = 0, achieved = 0, target = verdict::kDefaultTargetFraction;
  double spend_per_hour = 0;  // gpus × price
  double spend_per_day = 0, spend_per_year = 0;
  double computed_per_day = 0;             // spend × achieved
  double paid_never_computed_per_day = 0;  // spend × (1 − achieved)
  double paid_never_computed_per_year = 0;
  double addressable_per_day = 0;  // spend × max(0, 1 − achieved / target)
  double addressable_per_year = 0;
  double gpus_at_target = 0;  // GPUs doing the same useful work at the target
};

// What N GPUs at a price cost per hour, day and year. Fails when an input is out of range
// (negative GPUs or price, achieved outside [0, 1], target outside (0, 1]).
Result<BillRates> RatesFor(double gpus, double price_per_gpu_hour, double achieved, double target);

// The what-if table `plasmient bill` prints.
std::string FormatBill(const BillRates& rates);

}  // namespace plasmient::job
