#include "serve/spool.h"

#include <unistd.h>

#include <fstream>

#include <gtest/gtest.h>

namespace plasmient::serve {
namespace {
namespace fs = std::filesystem;

class SpoolTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("plasmient_spool_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  void Write(const fs::path& rel, const std::string& text) {
    fs::create_directories((dir_ / rel).parent_path());
    std::ofstream(dir_ / rel) << text;
  }
  std::vector<std::string> Names() {
    std::vector<std::string> names;
    for (const auto& e : ListReady(dir_, 100, nullptr)) names.push_back(e.name);
    return names;
  }
  fs::path dir_;
};

TEST_F(SpoolTest, OnlyCompleteEntriesAreReady) {
  Write("a.json.gz", "x");
  Write(".b.json.gz", "half");
  Write("c.json.part", "half");
  Write("d.json.tmp", "half");
  Write("jobA/rank0.json", "x");  // no marker yet
  Write("jobB/rank0.json", "x");
  Write("jobB/.done", "");
  Write("jobC/rank1.json", "x");
  Write("jobC.done", "user=bob\n");
  Write("done/old.json", "x");
  Write("failed/bad.json", "x");
  auto names = Names();
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"a.json.gz", "jobB", "jobC"}));
  std::size_t total = 0;
  EXPECT_EQ(ListReady(dir_, 1, &total).size(), 1u);
  EXPECT_EQ(total, 3u);
}

// A job folder marked done while one of its traces is still being written or copied in under
// an in-progress name waits for the rename: its other ranks are not analyzed as the whole job.
TEST_F(SpoolTest, FolderWaitsForItsTracesInProgress) {
  Write("job/rank0.json", "0");
  Write("job/rank1.json.part", "half");
  Write("job/.done", "");
  Write("dotted/rank0.json", "0");
  Write("dotted/.rank1.json.gz", "half");
  Write("dotted.done", "");
  Write("notes/rank0.json", "0");
  Write("notes/readme.txt.part", "not a trace");  // not a trace: holds nothing back
  Write("notes/.done", "");
  EXPECT_EQ(Names(), (std::vector<std::string>{"notes"}));
  std::size_t total = 0;
  ListReady(dir_, 10, &total);
  EXPECT_EQ(total, 1u) << "waiting folders are not in the queue";

  fs::rename(dir_ / "job/rank1.json.part", dir_ / "job/rank1.json");
  fs::rename(dir_ / "dotted/.rank1.json.gz", dir_ / "dotted/rank1.json.gz");
  auto entries = ListReady(dir_, 10, nullptr);
  ASSERT_EQ(entries.size(), 3u);
  for (const auto& e : entries) {
    EXPECT_EQ(e.files.size(), e.name == "notes" ? 1u : 2u) << e.name;
    EXPECT_TRUE(e.refusal.empty()) << e.refusal;
  }
}

// A trace in progress that nothing has written for kAbandonedAge belongs to a writer that died:
// the folder goes on with its complete traces.
TEST_F(SpoolTest, AbandonedTraceInProgressReleasesItsFolder) {
  Write("job/rank0.json", "0");
  Write("job/rank1.json.part", "half");
  Write("job/.done", "");
  EXPECT_TRUE(Names().empty());
  fs::last_write_time(dir_ / "job/rank1.json.part",
                      fs::file_time_type::clock::now() - kAbandonedAge - std::chrono::seconds(5));
  auto entries = ListReady(dir_, 10, nullptr);
  ASSERT_EQ(entries.size(), 1u);
  ASSERT_EQ(entries[0].files.size(), 1u);
  EXPECT_EQ(entries[0].files[0].filename(), "rank0.json");
}

TEST_F(SpoolTest, FolderEntryListsItsTraceFilesAndMarkerLabels) {
  Write("job/rank1.json", "1");
  Write("job/rank0.json", "0");
  Write("job/notes.txt", "n");
  Write("job.done", "# labels\nuser=bob\n\nteam=vision\n");
  auto entries = ListReady(dir_, 10, nullptr);
  ASSERT_EQ(entries.size(), 1u);
  const auto& e = entries[0];
  EXPECT_TRUE(e.is_folder);
  ASSERT_EQ(e.files.size(), 2u);
  EXPECT_EQ(e.files[0].filename(), "rank0.json");
  auto labels = ReadMarkerLabels(e);
  ASSERT_TRUE(labels);
  EXPECT_EQ(*labels, (store::Labels{{"user", "bob"}, {"team", "vision"}}));
  EXPECT_EQ(JobIdOf(e), "job");
}

TEST_F(SpoolTest, BadMarkerLineNamesTheByteOffset) {
  Write("job/rank0.json", "0");
  Write("job.done", "user=bob\nbroken line\n");
  auto e = ListReady(dir_, 10, nullptr).at(0);
  auto labels = ReadMarkerLabels(e);
  ASSERT_FALSE(labels);
  EXPECT_NE(labels.error().message.find("byte 9"), std::string::npos) << labels.error().message;
}

// Issue 36: where protected_hardlinks is 0, a hard link to a root-only file used as a marker put
// its text in the store. A trace or marker with a second name is refused unread.
TEST_F(SpoolTest, HardLinkedEntriesAndMarkersAreRefused) {
  Write(".secret", "user=root-only\n");  // not an entry: a dot name
  Write("job/rank0.json", "0");
  fs::create_hard_link(dir_ / ".secret", dir_ / "job.done");
  Write("other.json", "x");
  fs::create_hard_link(dir_ / "other.json", dir_ / "linked.json");
  int refused = 0;
  for (const auto& e : ListReady(dir_, 10, nullptr)) {
    if (e.refusal.empty()) continue;
    ++refused;
    EXPECT_NE(e.refusal.find("hard links: refused"), std::string::npos) << e.refusal;
  }
  EXPECT_EQ(refused, 3);  // job (its marker), other.json and linked.json
  // Read directly (the marker became a link after the scan): still refused.
  SpoolEntry job;
  job.path = dir_ / "job";
  job.marker = dir_ / "job.done";
  auto labels = ReadMarkerLabels(job);
  ASSERT_FALSE(labels);
  EXPECT_NE(labels.error().message.find("hard links"), std::string::npos);
}

TEST_F(SpoolTest, HashFollowsContentAndName) {
  Write("a.json", "hello");
  auto h1 = HashEntry(ListReady(dir_, 10, nullptr).at(0));
  Write("a.json", "hellp");
  auto h2 = HashEntry(ListReady(dir_, 10, nullptr).at(0));
  ASSERT_TRUE(h1 && h2);
  EXPECT_EQ(h1->size(), 32u);
  EXPECT_NE(*h1, *h2);
  Write("a.json", "hello");
  EXPECT_EQ(*HashEntry(ListReady(dir_, 10, nullptr).at(0)), *h1);
  fs::rename(dir_ / "a.json", dir_ / "b.json");
  EXPECT_NE(*HashEntry(ListReady(dir_, 10, nullptr).at(0)), *h1);
}

TEST_F(SpoolTest, MovesAndFailures) {
  Write("t.pt.trace.json.gz", "x");
  Write("t.pt.trace.json.gz.done", "");
  auto e = ListReady(dir_, 10, nullptr).at(0);
  EXPECT_EQ(JobIdOf(e), "t");
  auto moved = MoveEntry(e, dir_, "done");
  ASSERT_TRUE(moved);
  EXPECT_TRUE(fs::exists(dir_ / "done/t.pt.trace.json.gz"));
  EXPECT_TRUE(fs::exists(dir_ / "done/t.pt.trace.json.gz.done"));
  Write("t.pt.trace.json.gz", "again");
  auto again = MoveEntry(ListReady(dir_, 10, nullptr).at(0), dir_, "done");
  ASSERT_TRUE(again);
  EXPECT_EQ(again->filename(), "t.pt.trace.json.gz.1");

  Write("bad.json", "{");
  ASSERT_TRUE(FailEntry(ListReady(dir_, 10, nullptr).at(0), dir_, "bad.json: byte 1: cut short"));
  std::ifstream err(dir_ / "failed/bad.json.error");
  std::string line;
  std::getline(err, line);
  EXPECT_EQ(line, "bad.json: byte 1: cut short");
  EXPECT_TRUE(Names().empty());
}

// A 255-byte name (the longest a file may have) dropped twice: both copies move, the second
// and its .error under a cut name that fits, so the spool does not keep it for good.
TEST_F(SpoolTest, LongestNamesMoveTwice) {
  std::string name = std::string(255 - 5, 'n') + ".json";
  Write(name, "{}");
  ASSERT_TRUE(MoveEntry(ListReady(dir_, 10, nullptr).at(0), dir_, "done"));
  Write(name, "{}");
  auto again = MoveEntry(ListReady(dir_, 10, nullptr).at(0), dir_, "done");
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_LE(again->filename().string().size() + 6, 255u);
  Write(name, "{");
  ASSERT_TRUE(FailEntry(ListReady(dir_, 10, nullptr).at(0), dir_, "cut short"));
  Write(name, "{");
  auto failed = FailEntry(ListReady(dir_, 10, nullptr).at(0), dir_, "cut short");
  EXPECT_TRUE(failed) << failed.error().message;
  EXPECT_TRUE(Names().empty());
  std::size_t errors = 0;
  for (const auto& f : fs::directory_iterator(dir_ / "failed")) errors += f.path().extension() == ".error";
  EXPECT_EQ(errors, 2u);
}

// The identities change when a file is renamed over the entry's, or written in place.
TEST_F(SpoolTest, IdentitiesTellAReplacedFile) {
  Write("a.json", "hello");
  auto entry = ListReady(dir_, 10, nullptr).at(0);
  std::vector<store::FileIdentity> hashed;
  ASSERT_TRUE(HashEntry(entry, {}, {}, &hashed));
  ASSERT_EQ(hashed.size(), 1u);
  EXPECT_EQ(*IdentitiesOf(entry), hashed);
  Write(".b.json.part", "other");
  fs::rename(dir_ / ".b.json.part", dir_ / "a.json");
  EXPECT_NE(*IdentitiesOf(entry), hashed);
}

TEST(SpoolNamesTest, AgentWindowsOfAJobAreOneJob) {
  auto job = [](std::string name) {
    SpoolEntry e;
    e.name = std::move(name);
    return JobIdOf(e);
  };
  EXPECT_EQ(job("j42-3-node_7-1234-000001.pltrace"), "j42");
  EXPECT_EQ(job("j42-norank-node_7-1234-000002.pltrace"), "j42");
  EXPECT_EQ(job("a-b.pltrace"), "a-b");  // not an agent window name: the stem
  EXPECT_EQ(job("j-3-h-12-x.pltrace"), "j-3-h-12-x");
  EXPECT_EQ(job("x-3-h-12-7.json"), "x-3-h-12-7");
}

TEST(SpoolNamesTest, TraceFileNames) {
  EXPECT_TRUE(IsTraceFileName("r.json"));
  EXPECT_TRUE(IsTraceFileName("r.pt.trace.json.gz"));
  EXPECT_TRUE(IsTraceFileName("r.sqlite"));
  EXPECT_TRUE(IsTraceFileName("j42-3-node_7-1234-000001.pltrace"));
  EXPECT_FALSE(IsTraceFileName(".j42-3-node_7-1234-000001.pltrace.part"));
  EXPECT_TRUE(IsTraceFileName("plasmient.rank3.host.1234.pltrace"));  // the agent's own files
  EXPECT_FALSE(IsTraceFileName("r.plasmient"));
  EXPECT_FALSE(IsTraceFileName(".r.json"));
  EXPECT_FALSE(IsTraceFileName("r.json.part"));
  EXPECT_FALSE(IsTraceFileName("r.txt"));
  EXPECT_FALSE(IsTraceFileName(".json"));
}

}  // namespace
}  // namespace plasmient::serve
