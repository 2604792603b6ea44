#include "base/replace_file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <gtest/gtest.h>

namespace plasmient {
namespace {

namespace fs = std::filesystem;

std::string Slurp(const fs::path& p) {
  std::ifstream in(p);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// A group member plants links at the names a writer would use (the path, and the old predictable
// temporary names): nothing is written through them, and the path ends up a file of its own.
TEST(ReplaceFileTest, WritesThroughNoPlantedLink) {
  fs::path dir = fs::path(::testing::TempDir()) / ("replace_file_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  fs::path victim = dir / "victim", path = dir / "state";
  { std::ofstream(victim) << "root's file\n"; }
  for (const char* planted : {"state", "state.tmp", "state.part"}) fs::create_symlink(victim, dir / planted);
  ASSERT_TRUE(ReplaceFile(path, "new text\n", {.mode = 0640, .durable = true}).has_value());
  EXPECT_EQ(Slurp(victim), "root's file\n");
  EXPECT_FALSE(fs::is_symlink(path));
  EXPECT_EQ(Slurp(path), "new text\n");
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0640u);
  // No temporary file is left behind.
  int files = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++files;
  EXPECT_EQ(files, 4);  // victim, state, and the two planted links
  fs::remove_all(dir);
}

TEST(ReplaceFileTest, AMissingFolderIsAnError) {
  auto r = ReplaceFile("/nonexistent-folder/x", "a");
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().message.find("/nonexistent-folder/x: cannot write"), std::string::npos);
}

}  // namespace
}  // namespace plasmient
