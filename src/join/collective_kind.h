// The kinds of collective, parsed once from a collective's name or its kernel's, with NCCL's
// bandwidth conventions for each (docs/cluster.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace plasmient::join {

enum class CollectiveKind : std::uint8_t {
  kAllReduce,
  kAllGather,
  kReduceScatter,
  kBroadcast,
  kReduce,
  kAllToAll,
  kSend,
  kRecv,
  kOther
};
CollectiveKind ParseCollectiveKind(
    std::string_view kind_or_kernel);  // "all_reduce", "ncclKernel_AllGather_…"
// A communication kernel's kind: its collective's name ("all_to_all" on a SendRecv kernel) when
// that says one, else the kernel's own name.
CollectiveKind ParseCollectiveKind(std::string_view collective, std::string_view kernel);
std::string_view CollectiveKindName(CollectiveKind kind);                 // "all_reduce", ...
std::string_view CollectiveKindName(std::optional<CollectiveKind> kind);  // "" when none
// NCCL's bus-bandwidth factor for n ranks: all-reduce 2(n−1)/n, all-gather, reduce-scatter and
// all-to-all (n−1)/n, broadcast, reduce, send and recv 1; 0 for kOther.
double BusBandwidthFactor(CollectiveKind kind, std::int64_t n);
// The size NCCL's tests divide by time for algorithm bandwidth, from the per-rank input bytes:
// all-gather's input is 1/n of its output, so n × bytes; the input bytes for every other kind.
double AlgorithmBytes(CollectiveKind kind, std::int64_t per_rank_input_bytes, std::int64_t n);

}  // namespace plasmient::join
