#include "job/bill.h"

#include <algorithm>

#include <fmt/format.h>

#include "base/money_text.h"

namespace plasmient::job {

SpendSplit SplitSpend(double spend, double achieved, double target) {
  SpendSplit s;
  s.computed = spend * achieved;
  s.paid_never_computed = spend - s.computed;
  if (target > 0 && achieved < target) s.addressable = spend * (1 - achieved / target);
  return s;
}

verdict::Bill WindowBill(const verdict::Figures& job, double price_per_gpu_hour, double target) {
  verdict::Bill b;
  b.price_per_gpu_hour = price_per_gpu_hour;
  b.gpu_hours = job.wall_s / 3600.0;
  b.spend = b.gpu_hours * b.price_per_gpu_hour;
  const SpendSplit split = SplitSpend(b.spend, job.achieved(), target);
  b.computed = split.computed;
  b.paid_never_computed = split.paid_never_computed;
  b.target_fraction = target;
  b.addressable = split.addressable;
  b.wasted_per_gpu_hour = SplitSpend(price_per_gpu_hour, job.achieved(), target).paid_never_computed;
  return b;
}

Result<BillRates> RatesFor(double gpus, double price, double achieved, double target) {
  if (!(gpus >= 0)) return Fail("--gpus {} must be zero or more", gpus);
  if (!(price >= 0)) return Fail("--price {} must be zero or more", price);
  if (!(achieved >= 0 && achieved <= 1)) return Fail("--achieved {} must lie in [0, 1]", achieved);
  if (!(target > 0 && target <= 1)) return Fail("--target {} must lie in (0, 1]", target);
  BillRates b;
  b.gpus = gpus;
  b.price_per_gpu_hour = price;
  b.achieved = achieved;
  b.target = target;
  b.spend_per_hour = gpus * price;
  b.spend_per_day = b.spend_per_hour * kHoursPerDay;
  b.spend_per_year = b.spend_per_day * kDaysPerYear;
  const SpendSplit day = SplitSpend(b.spend_per_day, achieved, target);
  b.computed_per_day = day.computed;
  b.paid_never_computed_per_day = day.paid_never_computed;
  b.paid_never_computed_per_year = b.paid_never_computed_per_day * kDaysPerYear;
  b.addressable_per_day = day.addressable;
  b.addressable_per_year = b.addressable_per_day * kDaysPerYear;
  b.gpus_at_target = gpus * std::min(1.0, achieved / target);
  return b;
}

std::string FormatBill(const BillRates& b) {
  std::string out;
  auto line = [&](std::string_view what, double per_day, double per_year) {
    out += fmt::format("  {:<34} {:>16} {:>18}\n", what, Money(per_day), Money(per_year));
  };
  out += fmt::format("{} GPUs at {}/GPU-hour, achieved {:.1f}% of peak, target {:.1f}%\n", b.gpus,
                     Money(b.price_per_gpu_hour), b.achieved * 100, b.target * 100);
  out += fmt::format("  {:<34} {:>16} {:>18}\n", "", "per day", "per year");
  line("spend", b.spend_per_day, b.spend_per_year);
  line("computed (spend x achieved)", b.computed_per_day, b.computed_per_day * kDaysPerYear);
  line("paid, never computed", b.paid_never_computed_per_day, b.paid_never_computed_per_year);
  line("addressable at the target", b.addressable_per_day, b.addressable_per_year);
  out += fmt::format("  the same useful work at the target needs {:.2f} GPUs\n", b.gpus_at_target);
  return out;
}

}  // namespace plasmient::job
