// The NCCL profiler plugin: records collectives and p2p operations (comm hash, rank, nranks,
// seq, count, bytes, dtype, algo, proto) on the agent's clock, one record per operation.
// Exported from the agent .so as `ncclProfiler_v5` (NCCL 2.28) and `ncclProfiler_v4` (2.27),
// one implementation behind both tables.
//
// Timing, on CLOCK_MONOTONIC: start = the Coll/P2p startEvent (NCCL enqueues the operation on
// the thread that launched its kernel, right after the launch); end = the GPU's completion of
// the last channel (the latest KernelCh stop pTimer, NCCL's one child per channel on its proxy
// thread after the Coll/P2p stop, brought onto the host clock by a fitted offset), else the host
// time of that stop, or the operation's own stop when it has no channels.
#pragma once

#include <cstddef>
#include <string_view>

#include "collect/nccl/nccl_profiler_abi.h"

namespace plasmient::collect {
class Agent;
}

namespace plasmient::collect::nccl {

// Bytes per element of an NCCL datatype string ("ncclBfloat16" -> 2); 0 when unknown.
std::size_t DatatypeBytes(std::string_view datatype);

// The plugin's function table, recording into `agent` (Agent::Get() when null).
const ProfilerV5& PluginV5();
const ProfilerV4& PluginV4();
void SetPluginAgentForTest(Agent* agent);

}  // namespace plasmient::collect::nccl
