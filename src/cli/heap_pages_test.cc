#include "cli/heap_pages.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

namespace plasmient::cli {
namespace {

namespace fs = std::filesystem;

HeapPagesFacts Large() {
  HeapPagesFacts facts;
  facts.glibc_supports = true;
  facts.thp_enabled = "madvise";
  facts.input_bytes = kHugePagesMinInputBytes;
  return facts;
}

TEST(HeapPages, ALargeInputOnAKernelWithHugePagesStartsAgain) {
  EXPECT_EQ(WhyNotHugePages(Large()), "");
  HeapPagesFacts always = Large();
  always.thp_enabled = "always";
  EXPECT_EQ(WhyNotHugePages(always), "");
}

TEST(HeapPages, EachReasonAgainstIsNamed) {
  HeapPagesFacts facts = Large();
  facts.input_bytes = kHugePagesMinInputBytes - 1;
  EXPECT_EQ(WhyNotHugePages(facts), "the input is small");
  facts = Large();
  facts.thp_enabled = "never";
  EXPECT_EQ(WhyNotHugePages(facts), "transparent huge pages are off (never)");
  facts = Large();
  facts.thp_enabled = "";
  EXPECT_EQ(WhyNotHugePages(facts), "the kernel does not say whether transparent huge pages are on");
  facts = Large();
  facts.tunables_set = true;
  EXPECT_EQ(WhyNotHugePages(facts), "GLIBC_TUNABLES is set: left as given");
  facts = Large();
  facts.preloaded = true;
  EXPECT_EQ(WhyNotHugePages(facts), "LD_PRELOAD is set: left as started");
  facts = Large();
  facts.glibc_supports = false;
  EXPECT_EQ(WhyNotHugePages(facts), "this build's allocator has no huge-page setting");
}

TEST(HeapPages, InputBytesCountFilesAndAFoldersOwnFiles) {
  fs::path dir = fs::temp_directory_path() / ("plasmient_heap_pages_" + std::to_string(getpid()));
  fs::create_directories(dir / "job" / "nested");
  auto write = [](const fs::path& p, std::size_t n) { std::ofstream(p) << std::string(n, 'x'); };
  write(dir / "one.json", 1000);
  write(dir / "job" / "rank-0.json", 300);
  write(dir / "job" / "rank-1.json", 200);
  write(dir / "job" / "nested" / "deeper.json", 5000);  // two levels down: not counted
  std::string one = (dir / "one.json").string(), job = (dir / "job").string();
  std::string missing = (dir / "missing.json").string();
  HeapPagesFacts facts = ReadHeapPagesFacts({one, "--json", "-q", job, missing});
  EXPECT_EQ(facts.input_bytes, 1500);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace plasmient::cli
