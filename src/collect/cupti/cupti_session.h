// The CUPTI side of the agent (libplasmient_agent.so only): activity tracing into an
// ActivityConverter, CUPTI's clock set to the agent's, launch callbacks for the cuBLAS tie-up.
#pragma once

#include <cstdint>
#include <string>

namespace plasmient::collect {
class Agent;

// Sets up CUPTI per gpu-apis.md 2.1. Empty string on success, else why CUPTI is not used
// (another CUPTI client, version mismatch, ...); the agent then carries on without it, and
// whatever the set-up had subscribed or enabled is undone.
std::string StartCuptiSession(Agent& agent);

// A libcupti of the same major version as the build is accepted (PyTorch may load a newer 13.x
// first). The converter reads the 13.0 record structs; that a newer minor version keeps their
// fields in place is an assumption scripts/gpu-check.sh checks (kernel counts and durations).
bool CuptiVersionSupported(std::uint32_t runtime_version);

}  // namespace plasmient::collect
