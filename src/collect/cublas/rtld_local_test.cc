// The interposer must find the real cuBLAS when it was loaded RTLD_LOCAL (PyTorch: ctypes.CDLL
// and torch._C): dlsym(RTLD_NEXT) cannot see it. The test binary links the agent (global scope
// first, as LD_PRELOAD puts it) and dlopens, RTLD_LOCAL, a library linked against a stand-in
// libcublas.so.13.
#include <dlfcn.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include <gtest/gtest.h>

#include "ingest/native/native_reader.h"

extern "C" void plasmient_agent_shutdown();
extern "C" const char* plasmient_agent_trace_path();
extern "C" int plasmient_agent_start();

namespace {

TEST(GemmInterposer, ForwardsToCublasLoadedRtldLocal) {
  std::string dir = ::testing::TempDir() + "/cublas_local_" + std::to_string(getpid());
  ASSERT_EQ(system(("mkdir -p " + dir).c_str()), 0);
  setenv("PLASMIENT_OUT_DIR", dir.c_str(), 1);
  setenv("PLASMIENT_NVML_PERIOD_MS", "0", 1);
  setenv("PLASMIENT_PERIOD_S", "0", 1);  // one whole-run file
  ASSERT_EQ(plasmient_agent_start(), 0);

  void* user = dlopen(PLASMIENT_CUBLAS_USER_SO, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(user, nullptr) << dlerror();
  EXPECT_EQ(dlsym(RTLD_DEFAULT, "standin_cublas_calls"), nullptr) << "the stand-in must stay out of the "
                                                                     "global scope";
  auto gemm = reinterpret_cast<int (*)()>(dlsym(user, "cublas_user_gemm"));
  auto calls = reinterpret_cast<int (*)()>(dlsym(user, "cublas_user_standin_calls"));
  ASSERT_NE(gemm, nullptr);
  ASSERT_NE(calls, nullptr);
  EXPECT_EQ(gemm(), 0) << "CUBLAS_STATUS_SUCCESS from the stand-in";
  EXPECT_EQ(gemm(), 0);
  EXPECT_EQ(calls(), 2);

  std::string path = plasmient_agent_trace_path();
  plasmient_agent_shutdown();
  auto t = plasmient::ingest::native::ReadNative(path);
  ASSERT_TRUE(t) << t.error().message;
  ASSERT_EQ(t->cpu.size(), 2u) << "the interposer still records each call";
  EXPECT_EQ(t->Str(t->cpu.input_dims[0]), "[[64,16],[16,32]]");
  std::remove(path.c_str());
}

}  // namespace
