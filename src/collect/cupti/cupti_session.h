// The CUPTI side of the agent (libplasmient_agent.so only): activity tracing into an
// ActivityConverter, CUPTI's clock set to the agent's, launch callbacks for the cuBLAS tie-up.
#pragma once

#include <string>

namespace plasmient::collect {
class Agent;

// Sets up CUPTI per gpu-apis.md 2.1. Empty string on success, else why CUPTI is not used
// (another CUPTI client, version mismatch, ...); the agent then carries on without it.
std::string StartCuptiSession(Agent& agent);

}  // namespace plasmient::collect
