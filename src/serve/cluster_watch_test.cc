#include "serve/cluster_watch.h"

#include <string>

#include <gtest/gtest.h>

#include "store/testing/cluster_rows.h"

namespace plasmient::serve {
namespace {

using store::testing::StoreWithRanks;

TEST(ClusterWatchTest, TheWatchAnalyzesAJobWhenItsRowsChangeAndExportsTheStraggler) {
  auto store = StoreWithRanks(3);
  MetricsRegistry metrics;
  fleet::ClusterWatchState seen;
  auto first = WatchStoredClusters(*store, {}, 0, seen, metrics);
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_EQ(*first, 1);
  std::string text = metrics.Render({});
  EXPECT_NE(text.find("plasmient_cluster_ranks{plasmient_job=\"j\"} 3"), std::string::npos) << text;
  const std::string series =
      "plasmient_cluster_straggler_caused_wait_seconds{plasmient_job=\"j\",rank=\"2\"} ";
  auto at = text.find(series);
  ASSERT_NE(at, std::string::npos) << text;
  EXPECT_NEAR(std::stod(text.substr(at + series.size())), 0.036, 1e-12);
  auto unchanged = WatchStoredClusters(*store, {}, 0, seen, metrics);
  ASSERT_TRUE(unchanged);
  EXPECT_EQ(*unchanged, 0);
  auto later = WatchStoredClusters(*store, {}, 1'000'000, seen, metrics);  // rows older than since_ns
  ASSERT_TRUE(later);
  EXPECT_EQ(*later, 0);
}

}  // namespace
}  // namespace plasmient::serve
