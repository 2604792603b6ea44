// The CUPTI side of the agent (libplasmient_agent.so only): activity tracing into an
// ActivityConverter, CUPTI's clock set to the agent's, launch callbacks for the cuBLAS tie-up.
#pragma once

#include <cupti.h>

#include <cstdint>
#include <string>

namespace plasmient::collect {
class Agent;
struct CuptiApi;

// Sets up CUPTI per gpu-apis.md 2.1. Empty string on success, else why CUPTI is not used
// (another CUPTI client, version mismatch, ...); the agent then carries on without it, and
// whatever the set-up had subscribed or enabled is undone.
// `api`: the libcupti functions (cupti_api.h), copied.
std::string StartCuptiSession(Agent& agent, const CuptiApi& api);

// Another CUPTI client in the process (torch.profiler's Kineto) calling the activity API, routed
// here by the agent's exported interposers (cupti_interpose.cc) and forwarded to `real`. CUPTI's
// activity API is process-global: Kineto ignores its failed cuptiSubscribe, registers its own
// buffer callbacks (replacing ours, without an error) and timestamp source, and disables its
// kinds when it stops. Its registration marks the start of a span the agent cannot see; its
// disable of CONCURRENT_KERNEL the end: the launches in between are counted as dropped
// (DropSource::kCuptiTaken, one stderr line each way), and the agent's clock, callbacks and
// kinds are re-armed on the writer's next tick.
CUptiResult ForeignRegisterCallbacks(decltype(&cuptiActivityRegisterCallbacks) real,
                                     CUpti_BuffersCallbackRequestFunc requested,
                                     CUpti_BuffersCallbackCompleteFunc completed);
CUptiResult ForeignDisable(decltype(&cuptiActivityDisable) real, CUpti_ActivityKind kind);

// A libcupti of the same major version as the build is accepted (PyTorch may load a newer 13.x
// first: PyTorch 2.15's cu13 wheels ship CUPTI 13.2). The converter reads the 13.0 record structs
// (Kernel10, Device5, Memcpy6, ...), whatever the minor version emits.
bool CuptiVersionSupported(std::uint32_t runtime_version);

// Record layouts by CUPTI version. 13.2 emits Kernel11 (224 bytes) and Device6 (192) where 13.0
// emits Kernel10 (216) and Device5 (184): 8 bytes appended, every field the converter reads at
// the same offset, and the other structs it reads unchanged (compared field by field with CUPTI
// 13.2.86's cupti_activity.h). Newer minors are read the same way, unchecked.
inline constexpr std::uint32_t kCuptiLayoutsCheckedThrough = 130299;
// The known CUPTI bugs that bear on this use (NVIDIA's CUPTI release notes), named at start-up for
// the version in use, one line each; empty when none applies. By API version: the update level
// (13.1 "Update 1") is not visible in it, so a 13.1 or 13.4 minor is named as possibly affected.
std::string CuptiKnownIssues(std::uint32_t runtime_version);

// Empty for a libcupti as old as the build; else the line that names the newer version and says
// whether its layouts were checked (scripts/gpu-check.sh runs the agent on PyTorch's libcupti).
std::string CuptiLayoutNote(std::uint32_t runtime_version);

}  // namespace plasmient::collect
