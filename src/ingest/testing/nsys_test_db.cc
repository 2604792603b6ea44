#include "ingest/testing/nsys_test_db.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cstdio>
#include <fstream>
#include <sstream>

namespace plasmient::ingest::nsys::testing {

std::string TempPath(std::string_view file_name) {
  std::string path = ::testing::TempDir() + std::string(file_name);
  std::remove(path.c_str());
  return path;
}

TestDb::TestDb(std::string_view file_name) : path_(TempPath(file_name)) {
  if (sqlite3_open(path_.c_str(), &db_) != SQLITE_OK) ADD_FAILURE() << "cannot create " << path_;
  Exec("PRAGMA synchronous = OFF; PRAGMA journal_mode = MEMORY;");  // test files need no durability
}

TestDb::~TestDb() { Close(); }

void TestDb::Exec(std::string_view sql) {
  char* error = nullptr;
  if (sqlite3_exec(db_, std::string(sql).c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
    ADD_FAILURE() << "SQL failed: " << (error ? error : "?") << "\n" << sql;
    sqlite3_free(error);
  }
}

void TestDb::Close() {
  if (db_ != nullptr) sqlite3_close(db_);
  db_ = nullptr;
}

void WriteFile(const std::string& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::string ReadPrefix(const std::string& path, std::size_t keep) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream all;
  all << in.rdbuf();
  return all.str().substr(0, keep);
}

}  // namespace plasmient::ingest::nsys::testing
