// The test binary links the agent .so before a fake cuBLAS, so the agent's cuBLAS entry points
// come first (as with LD_PRELOAD) and must forward to the fake one.
#include <cublas_v2.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include <gtest/gtest.h>

#include "ingest/native/native_reader.h"

extern "C" int fake_cublas_calls();
extern "C" void plasmient_agent_shutdown();
extern "C" const char* plasmient_agent_trace_path();
extern "C" int plasmient_agent_start();

namespace {

TEST(GemmInterposer, RecordsShapesAndForwards) {
  std::string dir = ::testing::TempDir() + "/cublas_" + std::to_string(getpid());
  ASSERT_EQ(system(("mkdir -p " + dir).c_str()), 0);
  setenv("PLASMIENT_OUT_DIR", dir.c_str(), 1);
  setenv("PLASMIENT_NVML_PERIOD_MS", "0", 1);
  setenv("PLASMIENT_PERIOD_S", "0", 1);  // one whole-run file
  ASSERT_EQ(plasmient_agent_start(), 0);

  auto h = reinterpret_cast<cublasHandle_t>(0x1);
  float one = 1;
  EXPECT_EQ(cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, 4096, 1024, 512, &one, nullptr, CUDA_R_16BF, 512,
                         nullptr, CUDA_R_16BF, 512, &one, nullptr, CUDA_R_16BF, 4096, CUBLAS_COMPUTE_32F,
                         CUBLAS_GEMM_DEFAULT),
            CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(cublasGemmStridedBatchedEx(h, CUBLAS_OP_N, CUBLAS_OP_N, 128, 64, 32, &one, nullptr, CUDA_R_16F,
                                       128, 0, nullptr, CUDA_R_16F, 32, 0, &one, nullptr, CUDA_R_16F, 128, 0,
                                       8, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
            CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(cublasSgemm_v2(h, CUBLAS_OP_N, CUBLAS_OP_N, 10, 20, 30, &one, nullptr, 10, nullptr, 30, &one,
                           nullptr, 10),
            CUBLAS_STATUS_EXECUTION_FAILED);
  EXPECT_EQ(fake_cublas_calls(), 3);

  // A forked child (a data-loader worker) inherits the agent but must not write to its file:
  // its GEMM is forwarded, not recorded, and its exit handlers leave the file alone.
  pid_t child = fork();
  if (child == 0) {
    cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, 1, 1, 1, &one, nullptr, CUDA_R_32F, 1, nullptr, CUDA_R_32F, 1,
                 &one, nullptr, CUDA_R_32F, 1, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    plasmient_agent_shutdown();
    exit(fake_cublas_calls() == 4 ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);

  std::string path = plasmient_agent_trace_path();
  plasmient_agent_shutdown();
  auto t = plasmient::ingest::native::ReadNative(path);
  ASSERT_TRUE(t) << t.error().message;
  ASSERT_EQ(t->cpu.size(), 3u);
  EXPECT_EQ(t->quality.Get(plasmient::model::Dq::kTruncatedNativeFile), 0);
  EXPECT_EQ(t->quality.Get(plasmient::model::Dq::kCorruptChunk), 0);
  EXPECT_EQ(t->Str(t->cpu.name[0]), plasmient::ingest::native::kGemmOpName);
  EXPECT_EQ(t->Str(t->cpu.input_dims[0]), "[[4096,512],[512,1024]]");
  EXPECT_EQ(t->Str(t->cpu.input_types[0]), "[\"c10::BFloat16\",\"c10::BFloat16\"]");
  EXPECT_EQ(t->Str(t->cpu.input_dims[1]), "[[8,128,32],[8,32,64]]");
  EXPECT_EQ(t->Str(t->cpu.input_types[1]), "[\"c10::Half\",\"c10::Half\"]");
  EXPECT_EQ(t->Str(t->cpu.input_dims[2]), "[[10,30],[30,20]]");
  EXPECT_EQ(t->Str(t->cpu.input_types[2]), "[\"float\",\"float\"]");
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(t->cpu.kind[i], plasmient::model::CpuOpKind::kOp);
    EXPECT_GE(t->cpu.end_ns[i], t->cpu.start_ns[i]);
    EXPECT_NE(t->cpu.external_id[i], plasmient::model::kNoId);
  }
  std::remove(path.c_str());
}

// A duty-cycled agent between windows forwards GEMM calls and records none (no kernels to tie
// them to). Run in a fresh process (this binary again): the agent starts once per process.
TEST(GemmInterposer, NothingRecordedBetweenWindows) {
  if (const char* spool = getenv("PLASMIENT_TEST_WINDOWED_CHILD")) {
    setenv("PLASMIENT_SPOOL", spool, 1);
    setenv("PLASMIENT_NVML_PERIOD_MS", "0", 1);
    setenv("PLASMIENT_PERIOD_S", "100", 1);  // the first window opens after 99 s
    setenv("PLASMIENT_WINDOW_PHASE", "start", 1);
    setenv("PLASMIENT_WINDOW_S", "1", 1);
    if (plasmient_agent_start() != 0) exit(3);
    float one = 1;
    cublasGemmEx(reinterpret_cast<cublasHandle_t>(0x1), CUBLAS_OP_N, CUBLAS_OP_N, 64, 64, 64, &one, nullptr,
                 CUDA_R_16BF, 64, nullptr, CUDA_R_16BF, 64, &one, nullptr, CUDA_R_16BF, 64,
                 CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    plasmient_agent_shutdown();
    exit(fake_cublas_calls() == 1 ? 0 : 4);
  }
  std::string spool = ::testing::TempDir() + "/cublas_windowed_" + std::to_string(getpid());
  ASSERT_EQ(system(("rm -rf " + spool + " && mkdir -p " + spool).c_str()), 0);
  pid_t child = fork();
  if (child == 0) {
    setenv("PLASMIENT_TEST_WINDOWED_CHILD", spool.c_str(), 1);
    execl("/proc/self/exe", "gemm_interposer_test",
          "--gtest_filter=GemmInterposer.NothingRecordedBetweenWindows", static_cast<char*>(nullptr));
    _exit(5);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
      << "the GEMM was not forwarded, status " << status;
  std::string list = spool + "/list";
  ASSERT_EQ(system(("ls " + spool + "/*.pltrace > " + list).c_str()), 0) << "no samples file";
  std::FILE* f = std::fopen(list.c_str(), "r");
  char line[4096];
  int files = 0;
  while (std::fgets(line, sizeof line, f) != nullptr) {
    std::string path(line);
    path.pop_back();
    auto t = plasmient::ingest::native::ReadNative(path);
    ASSERT_TRUE(t) << t.error().message;
    EXPECT_EQ(t->cpu.size(), 0u) << path << ": a GEMM call recorded between windows";
    ++files;
  }
  std::fclose(f);
  EXPECT_EQ(files, 1);
  system(("rm -rf " + spool).c_str());
}

}  // namespace
