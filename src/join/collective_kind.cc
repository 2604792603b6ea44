#include "join/collective_kind.h"

#include <string>

#include "base/text.h"

namespace plasmient::join {
namespace {

// Lower case without '_', '-' or spaces: "all_reduce", "AllReduce" and "ncclKernel_AllReduce" agree.
std::string Squash(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '_' || c == '-' || c == ' ') continue;
    out.push_back(AsciiLower(c));
  }
  return out;
}

}  // namespace

CollectiveKind ParseCollectiveKind(std::string_view kind_or_kernel) {
  std::string s = Squash(kind_or_kernel);
  // Most specific first: "reducescatter" and "allreduce" both contain "reduce".
  if (s.find("reducescatter") != std::string::npos) return CollectiveKind::kReduceScatter;
  if (s.find("allreduce") != std::string::npos) return CollectiveKind::kAllReduce;
  if (s.find("allgather") != std::string::npos) return CollectiveKind::kAllGather;
  if (s.find("alltoall") != std::string::npos) return CollectiveKind::kAllToAll;
  // Expert-parallel dispatch and combine (DeepEP's ::internode::/::intranode:: kernels) exchange
  // tokens between every pair of ranks: all-to-all.
  if ((s.find("::internode::") != std::string::npos || s.find("::intranode::") != std::string::npos) &&
      (s.find("dispatch") != std::string::npos || s.find("combine") != std::string::npos ||
       s.find("notify") != std::string::npos))
    return CollectiveKind::kAllToAll;
  if (s.find("broadcast") != std::string::npos) return CollectiveKind::kBroadcast;
  if (s.find("sendrecv") != std::string::npos) return CollectiveKind::kOther;
  if (s.find("send") != std::string::npos) return CollectiveKind::kSend;
  if (s.find("recv") != std::string::npos) return CollectiveKind::kRecv;
  if (s.find("reduce") != std::string::npos) return CollectiveKind::kReduce;
  return CollectiveKind::kOther;
}

CollectiveKind ParseCollectiveKind(std::string_view collective, std::string_view kernel) {
  const CollectiveKind kind = ParseCollectiveKind(collective);
  return kind == CollectiveKind::kOther && collective != kernel ? ParseCollectiveKind(kernel) : kind;
}

std::string_view CollectiveKindName(CollectiveKind kind) {
  switch (kind) {
    case CollectiveKind::kAllReduce:
      return "all_reduce";
    case CollectiveKind::kAllGather:
      return "all_gather";
    case CollectiveKind::kReduceScatter:
      return "reduce_scatter";
    case CollectiveKind::kBroadcast:
      return "broadcast";
    case CollectiveKind::kReduce:
      return "reduce";
    case CollectiveKind::kAllToAll:
      return "all_to_all";
    case CollectiveKind::kSend:
      return "send";
    case CollectiveKind::kRecv:
      return "recv";
    case CollectiveKind::kOther:
      break;
  }
  return "other";
}

std::string_view CollectiveKindName(std::optional<CollectiveKind> kind) {
  return kind ? CollectiveKindName(*kind) : std::string_view();
}

double BusBandwidthFactor(CollectiveKind kind, std::int64_t n) {
  if (n < 1) return 0;
  double share = static_cast<double>(n - 1) / static_cast<double>(n);
  switch (kind) {
    case CollectiveKind::kAllReduce:
      return 2 * share;
    case CollectiveKind::kAllGather:
    case CollectiveKind::kReduceScatter:
    case CollectiveKind::kAllToAll:
      return share;
    case CollectiveKind::kBroadcast:
    case CollectiveKind::kReduce:
    case CollectiveKind::kSend:
    case CollectiveKind::kRecv:
      return 1;
    case CollectiveKind::kOther:
      break;
  }
  return 0;
}

double AlgorithmBytes(CollectiveKind kind, std::int64_t per_rank_input_bytes, std::int64_t n) {
  double bytes = static_cast<double>(per_rank_input_bytes);
  return kind == CollectiveKind::kAllGather ? bytes * static_cast<double>(n) : bytes;
}

}  // namespace plasmient::join
