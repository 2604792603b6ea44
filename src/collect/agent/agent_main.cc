// libplasmient_agent.so entry points: CUDA injection, agent services (NVML sampler), and the
// C functions tests and launchers use. The NCCL plugin and cuBLAS interposer export their own.
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "collect/agent/agent.h"
#include "collect/cublas/gemm_scope.h"
#include "collect/cupti/cupti_api.h"
#include "collect/cupti/cupti_session.h"
#include "collect/nvml/nvml_api.h"
#include "collect/nvml/nvml_sampler.h"

namespace plasmient::collect {
namespace {

void StartNvml(Agent& agent) {
  int period_ms = agent.config().nvml_period_ms;
  if (period_ms <= 0) return;
  nvml::NvmlApi api;
  std::string why;
  if (!nvml::LoadNvml(api, why)) {
    std::fprintf(stderr, "plasmient agent: NVML sampling off: %s\n", why.c_str());
    return;
  }
  auto* sampler =
      new nvml::NvmlSampler(agent.sink(), api, period_ms, &nvml::CudaDevices, agent.config().local_rank);
  if (!sampler->Init(why)) {
    std::fprintf(stderr, "plasmient agent: NVML sampling off: %s\n", why.c_str());
    delete sampler;
    return;
  }
  sampler->Start();
  agent.AddPreCloseHook([sampler] { sampler->Stop(); });
}

// Whichever entry point starts the agent first (injection, NCCL, cuBLAS), NVML comes with it.
__attribute__((constructor)) void RegisterServices() { Agent::SetOnStart(&StartNvml); }

Agent* StartedAgent() { return Agent::Get(); }

}  // namespace
}  // namespace plasmient::collect

#define PLASMIENT_EXPORT extern "C" __attribute__((visibility("default")))

// Called by the CUDA driver inside cuInit when CUDA_INJECTION64_PATH names this library.
PLASMIENT_EXPORT int InitializeInjection(void) {
  namespace pc = plasmient::collect;
  pc::Agent* agent = pc::StartedAgent();
  if (agent == nullptr) return 1;  // the agent said why; CUDA carries on untouched
  pc::CuptiApi api;
  std::string why =
      pc::OpenCupti(pc::CuptiCandidates(
                        pc::LoadedObjects(), [](const char* n) -> const char* { return std::getenv(n); },
                        PLASMIENT_CUPTI_BUILD_PATH),
                    api);
  if (!why.empty()) {
    std::fprintf(stderr, "plasmient agent: device counters only: %s\n", why.c_str());
    return 1;
  }
  why = pc::StartCuptiSession(*agent, api);
  if (!why.empty()) {
    std::fprintf(stderr, "plasmient agent: CUDA activity tracing off: %s\n", why.c_str());
  }
  return 1;
}

// Starts the agent without CUDA (NCCL-only or tests). Returns 0 on success.
PLASMIENT_EXPORT int plasmient_agent_start(void) {
  return plasmient::collect::StartedAgent() != nullptr ? 0 : 1;
}

// Flushes and closes the trace file now (it is also done at exit).
PLASMIENT_EXPORT void plasmient_agent_shutdown(void) {
  if (auto* agent = plasmient::collect::Agent::Peek()) agent->Shutdown();
}

// The trace file path, or "" when the agent is not running.
PLASMIENT_EXPORT const char* plasmient_agent_trace_path(void) {
  auto* agent = plasmient::collect::Agent::Peek();
  return agent != nullptr ? agent->path().c_str() : "";
}

// What the CUPTI launch callback does, for tests that have no driver.
PLASMIENT_EXPORT void plasmient_agent_note_launch(unsigned correlation) {
  plasmient::collect::NoteKernelLaunch(correlation);
}
