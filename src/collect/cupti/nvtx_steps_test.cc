// The step clock's input: which NVTX callbacks start a range, their text, and which texts are
// the application's steps. Parameter structs built in memory, as CUPTI passes them.
#include "collect/cupti/nvtx_steps.h"

#include <generated_nvtx_meta.h>

#include <gtest/gtest.h>

namespace plasmient::collect {
namespace {

nvtxEventAttributes_t Attributes(const char* text, int type = NVTX_MESSAGE_TYPE_ASCII) {
  nvtxEventAttributes_t a{};
  a.version = NVTX_VERSION;
  a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  a.messageType = type;
  a.message.ascii = text;
  return a;
}

TEST(NvtxSteps, RangeTextOfEveryRangeStart) {
  nvtxRangePushA_params push{"ProfilerStep#7"};
  EXPECT_STREQ(NvtxRangeText(CUPTI_CBID_NVTX_nvtxRangePushA, &push), "ProfilerStep#7");
  nvtxRangeStartA_params start{"forward"};
  EXPECT_STREQ(NvtxRangeText(CUPTI_CBID_NVTX_nvtxRangeStartA, &start), "forward");
  nvtxEventAttributes_t a = Attributes("ProfilerStep#8");
  nvtxRangePushEx_params push_ex{&a};
  EXPECT_STREQ(NvtxRangeText(CUPTI_CBID_NVTX_nvtxRangePushEx, &push_ex), "ProfilerStep#8");
  nvtxRangeStartEx_params start_ex{&a};
  EXPECT_STREQ(NvtxRangeText(CUPTI_CBID_NVTX_nvtxRangeStartEx, &start_ex), "ProfilerStep#8");
  nvtxDomainRangePushEx_params domain_push{nullptr, {&a}};
  EXPECT_STREQ(NvtxRangeText(CUPTI_CBID_NVTX_nvtxDomainRangePushEx, &domain_push), "ProfilerStep#8");
  nvtxDomainRangeStartEx_params domain_start{nullptr, {&a}};
  EXPECT_STREQ(NvtxRangeText(CUPTI_CBID_NVTX_nvtxDomainRangeStartEx, &domain_start), "ProfilerStep#8");
  for (CUpti_CallbackId id : kNvtxRangeStarts) EXPECT_NE(id, CUPTI_CBID_NVTX_nvtxRangePop);
}

TEST(NvtxSteps, OtherCallsAndNonAsciiTextHaveNone) {
  nvtxRangePushA_params push{"ProfilerStep#7"};
  EXPECT_EQ(NvtxRangeText(CUPTI_CBID_NVTX_nvtxMarkA, &push), nullptr);
  EXPECT_EQ(NvtxRangeText(CUPTI_CBID_NVTX_nvtxRangePop, &push), nullptr);
  EXPECT_EQ(NvtxRangeText(CUPTI_CBID_NVTX_nvtxRangePushA, nullptr), nullptr);
  nvtxEventAttributes_t registered = Attributes("ProfilerStep#1", NVTX_MESSAGE_TYPE_REGISTERED);
  nvtxRangePushEx_params push_ex{&registered};
  EXPECT_EQ(NvtxRangeText(CUPTI_CBID_NVTX_nvtxRangePushEx, &push_ex), nullptr);
  nvtxRangePushEx_params no_attributes{nullptr};
  EXPECT_EQ(NvtxRangeText(CUPTI_CBID_NVTX_nvtxRangePushEx, &no_attributes), nullptr);
}

TEST(NvtxSteps, StepRangeNames) {
  EXPECT_TRUE(IsStepRangeName("ProfilerStep#0"));
  EXPECT_TRUE(IsStepRangeName("ProfilerStep#12345"));
  EXPECT_FALSE(IsStepRangeName("ProfilerStep"));
  EXPECT_FALSE(IsStepRangeName("profilerstep#1"));
  EXPECT_FALSE(IsStepRangeName("aten::mm"));
  EXPECT_FALSE(IsStepRangeName(""));
  EXPECT_FALSE(IsStepRangeName(nullptr));
}

}  // namespace
}  // namespace plasmient::collect
