#include "whatif/bill.h"

#include "job/bill.h"

namespace plasmient::whatif {
namespace {

SideBill BillOf(const Side& s, const BillInputs& in, double cost_per_work) {
  SideBill b;
  b.wasted_per_gpu_hour = job::SplitSpend(in.price_per_gpu_hour, s.figures.achieved(), 0).paid_never_computed;
  b.wasted_per_year = b.wasted_per_gpu_hour * job::kHoursPerYear * static_cast<double>(in.gpus);
  b.cost_per_work = cost_per_work;
  return b;
}

}  // namespace

BillInputs BillInputsOf(const verdict::JobVerdict& job) {
  return {.price_per_gpu_hour = job.device.price_per_gpu_hour,
          .gpus = static_cast<std::int64_t>(job.ranks.size()),
          .device = job.device.name};
}

SideBill CurrentBill(const Projection& p, const BillInputs& in) { return BillOf(p.current, in, 1); }

SideBill ProjectedBill(const Projection& p, const BillInputs& in) {
  return BillOf(p.projected, in, p.throughput_gain > 0 ? 1 / p.throughput_gain : 0);
}

}  // namespace plasmient::whatif
