// Top kernels and ops by lost GPU time, with their roofline numbers.
#pragma once

#include <functional>
#include <vector>

#include "join/join.h"
#include "model/trace.h"
#include "verdict/kernel_costs.h"
#include "verdict/verdict.h"

namespace plasmient::verdict {

struct KernelLedger {
  const std::vector<double>& share_ns;  // per activity: compute share or exposed time
  const std::vector<double>& useful_ns;
  const std::vector<Loss>& loss;
  std::function<double(roofline::Dtype)> peak_for;  // peak FLOP/s for a kernel's dtype
  double memory_bandwidth_bytes_per_s = 0;
};

// Fills v.top_kernels and v.top_ops (at most `limit` each, by lost time).
void AggregateKernels(const model::Trace& t, const join::Joined& j, const KernelCosts& costs,
                      const std::vector<char>& kept, const KernelLedger& ledger, std::size_t limit,
                      RankVerdict& v);

// Merges aggregates of the same name (across ranks), keeping the `limit` largest by lost time.
std::vector<KernelAggregate> MergeAggregates(std::vector<KernelAggregate> all, std::size_t limit);

}  // namespace plasmient::verdict
