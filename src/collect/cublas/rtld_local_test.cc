// The interposer must forward every call to the cuBLAS the caller would have reached without the
// agent (real_cublas.h), and never answer an error the real library would not have given. The
// test binary links the agent (global scope first, as LD_PRELOAD puts it) and dlopens, RTLD_LOCAL
// as PyTorch does, libraries linked against stand-in libcublas.so.N and libcublasLt.so.13, which
// dlsym(RTLD_NEXT) cannot see.
#include <cublas_v2.h>
#include <dlfcn.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include <gtest/gtest.h>

#include "collect/testing/test_child.h"
#include "ingest/native/native_reader.h"

extern "C" void plasmient_agent_shutdown();
extern "C" const char* plasmient_agent_trace_path();
extern "C" int plasmient_agent_start();

namespace {

using IntFn = int (*)();

// The agent writes one whole-run file into a folder of the test's own.
void UseTestFolder() {
  std::string dir = ::testing::TempDir() + "/cublas_local_" + std::to_string(getpid());
  ASSERT_EQ(system(("mkdir -p " + dir).c_str()), 0);
  setenv("PLASMIENT_OUT_DIR", dir.c_str(), 1);
  setenv("PLASMIENT_NVML_PERIOD_MS", "0", 1);
  setenv("PLASMIENT_PERIOD_S", "0", 1);
}

// A library loaded RTLD_LOCAL; its functions through Fn.
struct Local {
  explicit Local(const char* path) : handle(dlopen(path, RTLD_NOW | RTLD_LOCAL)) {}
  IntFn Fn(const char* name) const {
    return handle != nullptr ? reinterpret_cast<IntFn>(dlsym(handle, name)) : nullptr;
  }
  void* handle;
};

TEST(GemmInterposer, ForwardsEveryEntryPointToCublasLoadedRtldLocal) {
  UseTestFolder();
  ASSERT_EQ(plasmient_agent_start(), 0);
  Local user(PLASMIENT_CUBLAS_USER_SO);
  ASSERT_NE(user.handle, nullptr) << dlerror();
  EXPECT_EQ(dlsym(RTLD_DEFAULT, "standin_cublas_calls"), nullptr) << "the stand-in must stay out of the "
                                                                     "global scope";
  EXPECT_EQ(user.Fn("cublas_user_gemm")(), CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(user.Fn("cublas_user_gemm")(), CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(user.Fn("cublas_user_every_entry_point")(), CUBLAS_STATUS_SUCCESS) << "a status sum of 0";
  EXPECT_EQ(user.Fn("cublas_user_standin_calls")(), 2 + 7);
  EXPECT_EQ(user.Fn("cublas_user_lt_matmul")(), CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(user.Fn("cublas_user_lt_calls")(), 1);

  std::string path = plasmient_agent_trace_path();
  plasmient_agent_shutdown();
  auto t = plasmient::ingest::native::ReadNative(path);
  ASSERT_TRUE(t) << t.error().message;
  ASSERT_EQ(t->cpu.size(), 2u + 7 + 1) << "the interposer still records each call";
  EXPECT_EQ(t->Str(t->cpu.input_dims[0]), "[[64,16],[16,32]]");
  // The cuBLASLt shapes come from the stand-in's attribute getters, beside its cublasLtMatmul.
  EXPECT_EQ(t->Str(t->cpu.input_dims[9]), "[[3,48,24],[3,24,40]]");
  EXPECT_EQ(t->Str(t->cpu.input_types[9]), "[\"c10::BFloat16\",\"c10::BFloat16\"]");
  std::remove(path.c_str());
}

// Two cuBLAS versions in one process (say, PyTorch built for CUDA 13 and another library built
// for CUDA 12): a handle made by one must never reach the other.
TEST(GemmInterposer, EachCallerReachesTheCublasItWasLinkedAgainst) {
  UseTestFolder();
  Local user12(PLASMIENT_CUBLAS_USER12_SO);  // loaded first: the first libcublas.so* in the process
  Local user13(PLASMIENT_CUBLAS_USER_SO);
  ASSERT_NE(user12.handle, nullptr) << dlerror();
  ASSERT_NE(user13.handle, nullptr) << dlerror();
  ASSERT_EQ(user12.Fn("cublas_user_standin_version")(), 12);
  ASSERT_EQ(user13.Fn("cublas_user_standin_version")(), 13);
  int before12 = user12.Fn("cublas_user_standin_calls")();
  int before13 = user13.Fn("cublas_user_standin_calls")();
  EXPECT_EQ(user13.Fn("cublas_user_gemm")(), CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(user13.Fn("cublas_user_gemm")(), CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(user12.Fn("cublas_user_gemm")(), CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(user13.Fn("cublas_user_standin_calls")() - before13, 2) << "libcublas.so.13's calls";
  EXPECT_EQ(user12.Fn("cublas_user_standin_calls")() - before12, 1) << "libcublas.so.12's calls";
  plasmient_agent_shutdown();
}

// cuBLAS linked into its caller (no libcublas.so in the process): the caller's own definition.
TEST(GemmInterposer, ForwardsToCublasLinkedIntoTheCaller) {
  UseTestFolder();
  Local user(PLASMIENT_STATIC_CUBLAS_USER_SO);
  ASSERT_NE(user.handle, nullptr) << dlerror();
  EXPECT_EQ(user.Fn("static_user_gemm")(), CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(user.Fn("static_user_calls")(), 1);
  plasmient_agent_shutdown();
}

// A process with no cuBLAS at all that calls the interposer (it found it by a global lookup):
// one line on stderr, CUBLAS_STATUS_NOT_INITIALIZED, nothing recorded; once the library named by
// PLASMIENT_CUBLAS_LIBRARY can be loaded, calls go there. In a fresh process (this binary
// again), where no earlier test has loaded a stand-in.
TEST(GemmInterposer, NoCublasInTheProcessIsSaidOnceThenTheNamedLibraryIsLoaded) {
  if (getenv("PLASMIENT_TEST_NO_CUBLAS_CHILD") != nullptr) {
    UseTestFolder();
    setenv("PLASMIENT_CUBLAS_LIBRARY", "/nonexistent/libcublas.so.13", 1);
    float one = 1;
    auto sgemm = [&] {
      return cublasSgemm_v2(reinterpret_cast<cublasHandle_t>(0x1), CUBLAS_OP_N, CUBLAS_OP_N, 8, 8, 8, &one,
                            nullptr, 8, nullptr, 8, &one, nullptr, 8);
    };
    if (sgemm() != CUBLAS_STATUS_NOT_INITIALIZED || sgemm() != CUBLAS_STATUS_NOT_INITIALIZED) _exit(3);
    if (plasmient_agent_trace_path()[0] != '\0') _exit(7);  // a call that did not run started the agent
    setenv("PLASMIENT_CUBLAS_LIBRARY", PLASMIENT_STANDIN_CUBLAS_SO, 1);
    if (sgemm() != CUBLAS_STATUS_SUCCESS) _exit(4);
    Local standin(PLASMIENT_STANDIN_CUBLAS_SO);
    if (standin.Fn("standin_cublas_calls") == nullptr || standin.Fn("standin_cublas_calls")() != 1) _exit(5);
    _exit(0);
  }
  auto child = plasmient::collect::RunInChild([] {
    setenv("PLASMIENT_TEST_NO_CUBLAS_CHILD", "1", 1);
    execl("/proc/self/exe", "cublas_rtld_local_test",
          "--gtest_filter=GemmInterposer.NoCublasInTheProcessIsSaidOnceThenTheNamedLibraryIsLoaded",
          static_cast<char*>(nullptr));
    return 6;
  });
  const std::string& said = child.said;
  EXPECT_TRUE(child.ExitedWith(0)) << "status " << child.status << "\n" << said;
  std::string line = "plasmient agent: no library in the process defines cublasSgemm_v2";
  std::size_t at = said.find(line);
  ASSERT_NE(at, std::string::npos) << said;
  EXPECT_EQ(said.find(line, at + 1), std::string::npos) << "said more than once:\n" << said;
  EXPECT_NE(said.find("/nonexistent/libcublas.so.13"), std::string::npos) << said;
}

// Two copies of the agent in the global scope (an always-on agent and `plasmient run`'s, from
// different paths): neither forwards to the other, or each would find the other in its caller's
// scope and the call would recurse until the stack ran out. In a fresh process.
TEST(GemmInterposer, AnotherCopyOfTheAgentIsNotTakenForCublas) {
  if (const char* copy = getenv("PLASMIENT_TEST_AGENT_COPY_CHILD")) {
    UseTestFolder();
    if (dlopen(copy, RTLD_NOW | RTLD_GLOBAL) == nullptr) _exit(3);
    Local user(PLASMIENT_CUBLAS_USER_SO);  // the real cuBLAS, RTLD_LOCAL
    float one = 1;
    // Called from the program itself: its scope is the global one, where both copies come first.
    if (cublasSgemm_v2(reinterpret_cast<cublasHandle_t>(0x1), CUBLAS_OP_N, CUBLAS_OP_N, 8, 8, 8, &one,
                       nullptr, 8, nullptr, 8, &one, nullptr, 8) != CUBLAS_STATUS_SUCCESS) {
      _exit(4);
    }
    _exit(user.Fn("cublas_user_standin_calls")() == 1 ? 0 : 5);
  }
  std::string copy = ::testing::TempDir() + "/libplasmient_agent_copy." + std::to_string(getpid()) + ".so";
  ASSERT_EQ(system(("cp " + std::string(PLASMIENT_AGENT_SO) + " " + copy).c_str()), 0);
  auto child = plasmient::collect::RunInChild([&] {
    setenv("PLASMIENT_TEST_AGENT_COPY_CHILD", copy.c_str(), 1);
    execl("/proc/self/exe", "cublas_rtld_local_test",
          "--gtest_filter=GemmInterposer.AnotherCopyOfTheAgentIsNotTakenForCublas",
          static_cast<char*>(nullptr));
    return 6;
  });
  EXPECT_TRUE(child.ExitedWith(0)) << "status " << child.status << "\n" << child.said;
  std::remove(copy.c_str());
}

}  // namespace
