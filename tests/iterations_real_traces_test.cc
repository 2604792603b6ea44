// Iterations read from a real trace that marks no steps: the CloverLeaf Nsight Systems export
// (no NVTX, no ProfilerStep) runs the same kernels each timestep. The verdict reads its
// iterations from a kernel that recurs once per timestep; checked here by SQL on the raw rows:
// the kernel recurs as often as the verdict says, every period between its starts runs the same
// number of kernels, and no leading period is 1.5× the later ones' median, so no warm-up.
#include <gtest/gtest.h>
#include <simdjson.h>
#include <sqlite3.h>

#include <algorithm>
#include <string>
#include <vector>

#include "tests/test_support.h"

namespace plasmient {
namespace {

namespace fs = std::filesystem;

// The start of every kernel, by start, and of those named `name` (demangled, as the reader names
// them), read from the export.
void KernelStarts(const fs::path& path, const std::string& name, std::vector<std::int64_t>& all,
                  std::vector<std::int64_t>& named) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* stmt = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db,
                               "SELECT k.start, s.value = ?1 FROM CUPTI_ACTIVITY_KIND_KERNEL k "
                               "JOIN StringIds s ON s.id = k.demangledName ORDER BY k.start",
                               -1, &stmt, nullptr),
            SQLITE_OK);
  sqlite3_bind_text(stmt, 1, name.c_str(), static_cast<int>(name.size()), SQLITE_TRANSIENT);
  while (sqlite3_step(stmt) == SQLITE_ROW) {
    all.push_back(sqlite3_column_int64(stmt, 0));
    if (sqlite3_column_int64(stmt, 1) != 0) named.push_back(sqlite3_column_int64(stmt, 0));
  }
  sqlite3_finalize(stmt);
  sqlite3_close(db);
}

TEST(IterationsRealTraces, CloverleafTimestepsAreItsIterationsAndNoneIsAWarmUp) {
  auto shared = testing::SharedTraces();
  if (!shared)
    GTEST_SKIP() << "shared traces folder absent (PLASMIENT_SHARED_TRACES): real-trace test skipped";
  const fs::path path = *shared / "pipit/cloverleaf-nsys/perlmutter-cloverleaf-cuda.sqlite";
  const fs::path dir = testing::TempDir("iterations_cloverleaf");
  const fs::path copy = dir / "cloverleaf.sqlite", out = dir / "verdict.json";
  fs::copy_file(path, copy);
  testing::CommandResult a = testing::RunCommand(testing::PlasmientBinary() + " analyze -q " + copy.string() +
                                                 " --json " + out.string());
  ASSERT_EQ(a.exit_code, 0) << a.out;
  simdjson::dom::parser parser;
  simdjson::dom::element v;
  ASSERT_EQ(parser.load(out.string()).get(v), simdjson::SUCCESS);
  simdjson::dom::element it = v["warm_up"]["iterations"];
  ASSERT_TRUE(it.is_object()) << "no iterations read";
  EXPECT_EQ(it["source"].get_string().value(), "gpu_kernel");
  const std::string marker(it["marker"].get_string().value());
  std::vector<std::int64_t> all, named;
  ASSERT_NO_FATAL_FAILURE(KernelStarts(copy, marker, all, named));
  ASSERT_GE(named.size(), 4u) << marker;
  EXPECT_EQ(static_cast<std::int64_t>(named.size()) - 1, it["count"].get_int64().value());
  // Every period between its starts runs the same kernels.
  std::vector<std::int64_t> counts;
  for (std::size_t i = 0; i + 1 < named.size(); ++i) {
    counts.push_back(std::lower_bound(all.begin(), all.end(), named[i + 1]) -
                     std::lower_bound(all.begin(), all.end(), named[i]));
  }
  EXPECT_EQ(*std::min_element(counts.begin(), counts.end()), *std::max_element(counts.begin(), counts.end()));
  // No leading period over 1.5× the median of the periods after it: no warm-up.
  std::vector<double> later;
  for (std::size_t i = 2; i < named.size(); ++i)
    later.push_back(static_cast<double>(named[i] - named[i - 1]));
  std::sort(later.begin(), later.end());
  const double median = later.size() % 2 ? later[later.size() / 2]
                                         : (later[later.size() / 2 - 1] + later[later.size() / 2]) / 2;
  ASSERT_LT(static_cast<double>(named[1] - named[0]), 1.5 * median);
  EXPECT_EQ(it["slow"].get_int64().value(), 0);
  EXPECT_FALSE(v["warm_up"]["detected"].get_bool().value());
  fs::remove_all(dir);
}

}  // namespace
}  // namespace plasmient
