#include "ingest/native/native_names.h"

#include <gtest/gtest.h>

namespace plasmient::ingest::native {
namespace {

TEST(NativeNames, MatchKinetoSpelling) {
  EXPECT_EQ(MemcpyName(1, 1, 3), "Memcpy HtoD (Pageable -> Device)");
  EXPECT_EQ(MemcpyName(2, 3, 2), "Memcpy DtoH (Device -> Pinned)");
  EXPECT_EQ(MemsetName(3), "Memset (Device)");
  EXPECT_EQ(StripApiVersion("cudaLaunchKernel_v7000"), "cudaLaunchKernel");
  EXPECT_EQ(StripApiVersion("cudaMemcpyAsync"), "cudaMemcpyAsync");
  EXPECT_EQ(StripApiVersion("cuLaunchKernel_vx"), "cuLaunchKernel_vx");
  EXPECT_EQ(Demangle("_Z6vecAddPfS_S_i"), "vecAdd(float*, float*, float*, int)");
  EXPECT_EQ(Demangle("ampere_bf16_s16816gemm"), "ampere_bf16_s16816gemm");
  EXPECT_EQ(CudaDtypeName(14), "c10::BFloat16");
  EXPECT_EQ(CudaDtypeName(0), "float");
  EXPECT_EQ(NcclDtypeName("ncclBfloat16"), "BFloat16");
  EXPECT_EQ(NcclDtypeName("ncclFloat32"), "Float");
  EXPECT_EQ(NcclCollectiveName("AllReduce"), "allreduce");
  EXPECT_EQ(NcclCollectiveName("AllGather"), "all_gather");
  EXPECT_EQ(NcclCollectiveName("Send"), "send");
}

}  // namespace
}  // namespace plasmient::ingest::native
