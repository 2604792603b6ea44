// The activity-API calls of another CUPTI client in the process (torch.profiler's Kineto), seen
// by the agent when it is preloaded (LD_PRELOAD: its definitions come first in the global
// scope, so libtorch's calls to libcupti land here), and forwarded to the libcupti next in line.
// Loaded only as CUDA_INJECTION64_PATH, the agent does not see them: then a window's close counts
// what never came (DropSource::kWindowClose) instead.
#include <cupti.h>
#include <dlfcn.h>

#include "collect/cupti/cupti_session.h"

namespace {
template <typename Fn>
Fn Next(const char* name) {
  return reinterpret_cast<Fn>(dlsym(RTLD_NEXT, name));
}
}  // namespace

#define PLASMIENT_EXPORT extern "C" __attribute__((visibility("default")))

PLASMIENT_EXPORT CUptiResult cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc requested,
                                                            CUpti_BuffersCallbackCompleteFunc completed) {
  static auto real = Next<decltype(&cuptiActivityRegisterCallbacks)>("cuptiActivityRegisterCallbacks");
  if (real == nullptr) return CUPTI_ERROR_NOT_INITIALIZED;
  return plasmient::collect::ForeignRegisterCallbacks(real, requested, completed);
}

PLASMIENT_EXPORT CUptiResult cuptiActivityDisable(CUpti_ActivityKind kind) {
  static auto real = Next<decltype(&cuptiActivityDisable)>("cuptiActivityDisable");
  if (real == nullptr) return CUPTI_ERROR_NOT_INITIALIZED;
  return plasmient::collect::ForeignDisable(real, kind);
}
