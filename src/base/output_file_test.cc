#include "base/output_file.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

namespace plasmient {
namespace {

namespace fs = std::filesystem;

class OutputFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("plasmient_output_file_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  static std::string Read(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  // Every file in the folder: no temporary left behind.
  std::size_t Files() const {
    return static_cast<std::size_t>(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()));
  }
  fs::path dir_;
};

TEST_F(OutputFileTest, CommitPutsTheWholeTextAtThePath) {
  fs::path path = dir_ / "v.json";
  auto out = OutputFile::Open(path.string());
  ASSERT_TRUE(out.has_value()) << out.error().message;
  EXPECT_TRUE(out->Write("{\"a\":"));
  std::fputs("1}", out->get());
  EXPECT_FALSE(fs::exists(path));  // nothing at the path before Commit
  ASSERT_TRUE(out->Commit().has_value());
  EXPECT_EQ(Read(path), "{\"a\":1}");
  EXPECT_EQ(Files(), 1U);
}

TEST_F(OutputFileTest, CommitReplacesAnEarlierFileAndLeavesNothingElse) {
  fs::path path = dir_ / "v.json";
  std::ofstream(path) << "earlier, and longer than what replaces it";
  for (std::string text : {"new", "newer"}) {  // the second replaces a file this class wrote
    auto out = OutputFile::Open(path.string());
    ASSERT_TRUE(out.has_value()) << out.error().message;
    out->Write(text);
    EXPECT_EQ(Files(), 2U);  // the earlier file and the one being written
    ASSERT_TRUE(out->Commit().has_value());
    EXPECT_EQ(Read(path), text);
    EXPECT_EQ(Files(), 1U);  // the earlier file is gone, under any name
  }
}

TEST_F(OutputFileTest, DroppedWithoutCommitLeavesTheEarlierFile) {
  fs::path path = dir_ / "v.json";
  std::ofstream(path) << "earlier";
  {
    auto out = OutputFile::Open(path.string());
    ASSERT_TRUE(out.has_value());
    out->Write("half of a new");
  }
  EXPECT_EQ(Read(path), "earlier");
  EXPECT_EQ(Files(), 1U);
}

TEST_F(OutputFileTest, AFullDiskIsAnErrorAndLeavesNoFile) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full here";
  // /dev/full is not a regular file: written in place, and every write fails with ENOSPC.
  auto out = OutputFile::Open("/dev/full");
  ASSERT_TRUE(out.has_value());
  out->Write(std::string(1 << 16, 'x'));
  auto done = out->Commit();
  ASSERT_FALSE(done.has_value());
  EXPECT_EQ(done.error().message, "/dev/full: cannot write: No space left on device");
}

TEST_F(OutputFileTest, AFolderThatDoesNotExistIsAnError) {
  std::string path = (dir_ / "missing" / "v.json").string();
  auto out = OutputFile::Open(path);
  ASSERT_FALSE(out.has_value());
  EXPECT_EQ(out.error().message, path + ": cannot write: No such file or directory");
}

TEST_F(OutputFileTest, ASymbolicLinkIsWrittenThroughNotReplaced) {
  fs::path target = dir_ / "target.json", link = dir_ / "link.json";
  std::ofstream(target) << "old";
  fs::create_symlink(target, link);
  auto out = OutputFile::Open(link.string());
  ASSERT_TRUE(out.has_value());
  out->Write("new");
  ASSERT_TRUE(out->Commit().has_value());
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(Read(target), "new");
}

}  // namespace
}  // namespace plasmient
