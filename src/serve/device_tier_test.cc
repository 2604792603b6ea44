#include "serve/device_tier.h"

#include <unistd.h>

#include <cstdio>

#include <gtest/gtest.h>

#include "wire/chunk_codec.h"

namespace plasmient::serve {
namespace {

// An entry is the agent's kernel windows only when every file is one.
TEST(DeviceTierTest, KernelWindowsFromTheHeaders) {
  std::string dir = ::testing::TempDir();
  auto write = [&](const std::string& name, std::uint32_t flags) {
    auto h = wire::MakeFileHeader(1, 1, flags);
    std::filesystem::path path = dir + "/" + name + std::to_string(getpid());
    std::FILE* f = std::fopen(path.c_str(), "wb");
    std::fwrite(&h, sizeof h, 1, f);
    std::fclose(f);
    return path;
  };
  auto window = write("w", wire::kFileWindow | wire::kFileKernels);
  auto samples = write("s", wire::kFileWindow);
  auto whole = write("r", 0);
  EXPECT_TRUE(KernelWindows({window}, {}));
  EXPECT_TRUE(KernelWindows({window, window}, {}));
  EXPECT_FALSE(KernelWindows({samples}, {}));
  EXPECT_FALSE(KernelWindows({whole}, {}));
  EXPECT_FALSE(KernelWindows({window, samples}, {}));
  EXPECT_FALSE(KernelWindows({}, {}));
  for (const auto& p : {window, samples, whole}) std::filesystem::remove(p);
}

}  // namespace
}  // namespace plasmient::serve
