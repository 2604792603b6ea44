#include "collect/cupti/nvtx_steps.h"

#include <generated_nvtx_meta.h>

#include <cstring>

#include "base/step_name.h"

namespace plasmient::collect {

const CUpti_CallbackId kNvtxRangeStarts[6] = {
    CUPTI_CBID_NVTX_nvtxRangePushA,        CUPTI_CBID_NVTX_nvtxRangePushEx,
    CUPTI_CBID_NVTX_nvtxRangeStartA,       CUPTI_CBID_NVTX_nvtxRangeStartEx,
    CUPTI_CBID_NVTX_nvtxDomainRangePushEx, CUPTI_CBID_NVTX_nvtxDomainRangeStartEx};

namespace {
const char* AsciiText(const nvtxEventAttributes_t* attributes) {
  if (attributes == nullptr || attributes->messageType != NVTX_MESSAGE_TYPE_ASCII) return nullptr;
  return attributes->message.ascii;
}
}  // namespace

const char* NvtxRangeText(CUpti_CallbackId cbid, const void* params) {
  if (params == nullptr) return nullptr;
  switch (cbid) {
    case CUPTI_CBID_NVTX_nvtxRangePushA:
      return static_cast<const nvtxRangePushA_params*>(params)->message;
    case CUPTI_CBID_NVTX_nvtxRangeStartA:
      return static_cast<const nvtxRangeStartA_params*>(params)->message;
    case CUPTI_CBID_NVTX_nvtxRangePushEx:
      return AsciiText(static_cast<const nvtxRangePushEx_params*>(params)->eventAttrib);
    case CUPTI_CBID_NVTX_nvtxRangeStartEx:
      return AsciiText(static_cast<const nvtxRangeStartEx_params*>(params)->eventAttrib);
    case CUPTI_CBID_NVTX_nvtxDomainRangePushEx:
      return AsciiText(static_cast<const nvtxDomainRangePushEx_params*>(params)->core.eventAttrib);
    case CUPTI_CBID_NVTX_nvtxDomainRangeStartEx:
      return AsciiText(static_cast<const nvtxDomainRangeStartEx_params*>(params)->core.eventAttrib);
    default:
      return nullptr;
  }
}

bool IsStepRangeName(const char* text) {
  return text != nullptr && std::strncmp(text, kStepRangePrefix.data(), kStepRangePrefix.size()) == 0;
}

}  // namespace plasmient::collect
