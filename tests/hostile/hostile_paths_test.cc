// Symbolic links on the way to a spool file (docs/fleet.md, "Hostile input"): O_NOFOLLOW guards
// only the last component, so a job folder, done/ or failed/ swapped for a link after serve
// checked it must still not lead serve's reads or writes elsewhere. Each test makes the state a
// swap leaves behind and checks what serve's calls do with it.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ingest/input_file.h"
#include "serve/spool.h"

namespace plasmient {
namespace {
namespace fs = std::filesystem;
using ::testing::HasSubstr;

class HostilePaths : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("plasmient_paths_" + std::to_string(::getpid()) + "_" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(spool_ = root_ / "spool");
    fs::create_directories(elsewhere_ = root_ / "elsewhere");  // what the writer may not read or write
    Write(elsewhere_ / "rank0.json", "{\"traceEvents\": []}");
    Write(elsewhere_ / ".done", "secret=hunter2\n");
  }
  void TearDown() override { fs::remove_all(root_); }
  static void Write(const fs::path& p, const std::string& text) { std::ofstream(p) << text; }
  // A job folder listed by serve, then swapped for a link to elsewhere/ (as a writer can).
  serve::SpoolEntry ListThenSwap() {
    fs::create_directories(spool_ / "job");
    Write(spool_ / "job" / "rank0.json", "{\"traceEvents\": []}");
    Write(spool_ / "job" / ".done", "user=alice\n");
    auto entries = serve::ListReady(spool_, 10, nullptr);
    EXPECT_EQ(entries.size(), 1u);
    fs::rename(spool_ / "job", root_ / "job.real");
    fs::create_directory_symlink(elsewhere_, spool_ / "job");
    return entries.at(0);
  }
  ingest::OpenRules Beneath() const { return {.no_follow = true, .beneath = spool_.string()}; }

  fs::path root_, spool_, elsewhere_;
};

TEST_F(HostilePaths, AFolderOnTheWayThatIsALinkIsRefused) {
  fs::create_directory_symlink(elsewhere_, spool_ / "job");
  std::string path = (spool_ / "job" / "rank0.json").string();
  // O_NOFOLLOW alone follows the folder: the hole this closes.
  EXPECT_TRUE(ingest::InputFile::Open(path, {.no_follow = true}));
  auto f = ingest::InputFile::Open(path, Beneath());
  ASSERT_FALSE(f);
  EXPECT_THAT(f.error().message, HasSubstr(path + ": a symbolic link"));
  // Deeper: a real folder holding a link to a folder.
  fs::create_directories(spool_ / "real");
  fs::create_directory_symlink(elsewhere_, spool_ / "real" / "sub");
  EXPECT_FALSE(ingest::InputFile::Open((spool_ / "real" / "sub" / "rank0.json").string(), Beneath()));
  // The spool itself may be reached through a link (the administrator's path is trusted as given).
  fs::create_directory_symlink(spool_, root_ / "spool-link");
  Write(spool_ / "real" / "rank1.json", "{}");
  ingest::OpenRules via_link{.no_follow = true, .beneath = (root_ / "spool-link").string() + "/"};
  EXPECT_TRUE(ingest::InputFile::Open((root_ / "spool-link" / "real" / "rank1.json").string(), via_link));
}

TEST_F(HostilePaths, DotDotBelowTheSpoolIsRefused) {
  std::string path = (spool_ / ".." / "elsewhere" / "rank0.json").string();
  errno = 0;
  EXPECT_LT(ingest::OpenBeneath(path, spool_.string(), O_RDONLY), 0);
  EXPECT_EQ(errno, EACCES);
}

TEST_F(HostilePaths, ASwappedJobFolderIsNeitherHashedNorItsMarkerRead) {
  serve::SpoolEntry entry = ListThenSwap();
  // Without the walk both would read elsewhere/: its marker's secret would become a label.
  auto leaked = serve::ReadMarkerLabels(entry, {.no_follow = true});
  ASSERT_TRUE(leaked);
  EXPECT_EQ(leaked->at(0).second, "hunter2");
  auto labels = serve::ReadMarkerLabels(entry, Beneath());
  ASSERT_FALSE(labels);
  EXPECT_THAT(labels.error().message, HasSubstr("symbolic link"));
  EXPECT_THAT(labels.error().message, ::testing::Not(HasSubstr("hunter2")));
  auto key = store::HashEntry(entry, Beneath());
  ASSERT_FALSE(key);
  EXPECT_THAT(key.error().message, HasSubstr("symbolic link"));
}

TEST_F(HostilePaths, FailedOrDoneThatIsALinkIsNotWrittenThrough) {
  Write(spool_ / "bad.json", "{");
  fs::create_directory_symlink(elsewhere_, spool_ / "failed");
  fs::create_directory_symlink(elsewhere_, spool_ / "done");
  auto entry = serve::ListReady(spool_, 10, nullptr).at(0);
  auto failed = serve::FailEntry(entry, spool_, "bad.json: byte 1: cut short");
  ASSERT_FALSE(failed);
  EXPECT_THAT(failed.error().message, HasSubstr("failed: a symbolic link"));
  auto moved = serve::MoveEntry(entry, spool_, "done");
  ASSERT_FALSE(moved);
  EXPECT_THAT(moved.error().message, HasSubstr("done: a symbolic link"));
  EXPECT_TRUE(fs::exists(spool_ / "bad.json"));
  EXPECT_FALSE(fs::exists(elsewhere_ / "bad.json"));
  EXPECT_FALSE(fs::exists(elsewhere_ / "bad.json.error"));
  // A real failed/ still works, the error file beside the entry.
  fs::remove(spool_ / "failed");
  ASSERT_TRUE(serve::FailEntry(entry, spool_, "bad.json: byte 1: cut short"));
  EXPECT_TRUE(fs::exists(spool_ / "failed" / "bad.json.error"));
}

}  // namespace
}  // namespace plasmient
