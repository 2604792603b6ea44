// Test support: small SQLite files built in the test, in the shapes nsys exports take.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

struct sqlite3;

namespace plasmient::ingest::nsys::testing {

// A fresh SQLite file under the test's temp directory, written with Exec().
class TestDb {
 public:
  explicit TestDb(std::string_view file_name);
  TestDb(const TestDb&) = delete;
  TestDb& operator=(const TestDb&) = delete;
  ~TestDb();

  void Exec(std::string_view sql);  // records a test failure on error
  void Close();                     // flushes the file; Exec must not follow
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  sqlite3* db_ = nullptr;
};

// A path under the test temp directory, with no file at it.
std::string TempPath(std::string_view file_name);
// Writes `bytes` to `path`.
void WriteFile(const std::string& path, std::string_view bytes);
// The first `keep` bytes of `path`, as a string.
std::string ReadPrefix(const std::string& path, std::size_t keep);

// nsys serial ids: a thread is pid << 24 | tid, a process pid << 24.
constexpr std::int64_t GlobalTid(std::int64_t pid, std::int64_t tid) { return (pid << 24) | tid; }
constexpr std::int64_t GlobalPid(std::int64_t pid) { return pid << 24; }

}  // namespace plasmient::ingest::nsys::testing
