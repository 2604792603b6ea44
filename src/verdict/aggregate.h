// Top kernels and ops by lost GPU time, with their roofline numbers, read from the facts table.
#pragma once

#include <span>
#include <vector>

#include "model/trace.h"
#include "verdict/facts.h"
#include "verdict/verdict.h"

namespace plasmient::verdict {

// Fills v.top_kernels and v.top_ops (at most `limit` each, by lost time); `bandwidth` is the
// device's memory bandwidth, the roofline's slope.
void AggregateKernels(const model::Trace& t, const ActivityFacts& facts, double memory_bandwidth_bytes_per_s,
                      std::size_t limit, RankVerdict& v);

// Merges aggregates of the same name (across ranks), the lists in order and each list in its
// order, keeping the `limit` largest by lost time.
std::vector<KernelAggregate> MergeAggregates(std::span<const std::vector<KernelAggregate>* const> lists,
                                             std::size_t limit);

}  // namespace plasmient::verdict
