// Step boundaries from NVTX, for windows that start at a step (docs/agent.md, "Windows"): the
// CUPTI NVTX callbacks of ranges that start, and which of them are the application's steps.
// CUPTI headers only, so tests call it with parameter structs built in memory.
#pragma once

#include <cupti.h>  // the NVTX callback ids (cupti_nvtx_cbid.h has no include guard)

namespace plasmient::collect {

// The ASCII text of a range that starts (nvtxRangePushA/Ex, nvtxRangeStartA/Ex and their
// domain forms) from a CUPTI NVTX callback's id and parameters; nullptr for any other call and
// for text that is not ASCII (wide or registered strings).
const char* NvtxRangeText(CUpti_CallbackId cbid, const void* params);

// A step of the application: the text starts with "ProfilerStep#" (base/step_name.h). False for nullptr.
bool IsStepRangeName(const char* text);

// The callbacks NvtxRangeText reads, to enable in the NVTX domain.
extern const CUpti_CallbackId kNvtxRangeStarts[6];

}  // namespace plasmient::collect
