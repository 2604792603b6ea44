// A communication kernel seen on one rank: what the cluster layer matches across ranks.
#pragma once

#include <cstdint>
#include <string>

#include "base/time_units.h"
#include "join/collective_kind.h"

namespace plasmient::join {

struct CollectiveInstance {
  std::string group;                             // process-group name, or its ranks text; "" when unknown
  std::string group_ranks;                       // raw "[0, 1, 2, 3]" when known
  std::int64_t seq = -1;                         // sequence number within the group, or -1
  CollectiveKind kind = CollectiveKind::kOther;  // parsed once, from name then kernel
  std::string name;         // the source's own name, lower case ("allreduce", "send", ...), or the kernel's
  std::int64_t bytes = -1;  // message bytes on this rank (input side), -1 when unknown
  std::int32_t group_size = -1;
  TimeNs start_ns = 0, end_ns = 0;  // the kernel, on this rank's clock
  TimeNs launch_ns = kNoTime;       // its launch call
  std::int64_t step = -1;           // ProfilerStep number
  bool p2p = false;
  // The other side of a send/recv when the source says: its rank within the group when
  // group_rank (this rank's, NCCL's communicator rank) is known, else its job rank; -1 unknown.
  std::int64_t peer = -1;
  std::int32_t group_rank = -1;
  std::string kernel;  // kernel name
  // Its share of the rank's exposed_communication slices (no compute kernel resident; the
  // sweep, docs/verdict.md), seconds; 0 for send/recv and where the source does not say.
  double exposed_s = 0;
};

}  // namespace plasmient::join
