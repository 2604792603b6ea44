#include "whatif/replay.h"

#include <vector>

#include <gtest/gtest.h>

namespace plasmient::whatif {
namespace {

ActivityRow Kernel(TimeNs launch, TimeNs start, TimeNs end, std::int32_t stream = 7) {
  ActivityRow r;
  r.launch_ns = launch;
  r.start_ns = start;
  r.end_ns = end;
  r.stream = stream;
  return r;
}

std::vector<TimeNs> Durations(const std::vector<ActivityRow>& rows, double scale = 1) {
  std::vector<TimeNs> d;
  for (const auto& r : rows) d.push_back(static_cast<TimeNs>(static_cast<double>(r.dur_ns()) * scale));
  return d;
}

// A host that launches every 10 µs kernels of 2 µs (host-bound: 4 µs launch latency), a sync,
// then the next step's launches; a second stream with its own kernel.
std::vector<ActivityRow> HostBound() {
  return {Kernel(0, 4'000, 6'000),        Kernel(10'000, 14'000, 16'000),    Kernel(20'000, 24'000, 26'000),
          Kernel(30'000, 34'000, 36'000), Kernel(31'000, 35'000, 45'000, 9), Kernel(60'000, 64'000, 66'000),
          Kernel(70'000, 74'000, 76'000)};
}
const std::vector<HostWait> kSync = {{40'000, 46'500}};  // waits for the stream-9 kernel (ends 45 µs)

TEST(Replay, UnchangedDurationsReplayExactly) {
  const auto rows = HostBound();
  const auto at = Replay(rows, Durations(rows), kSync, {});
  for (std::size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(at[i].start_ns, rows[i].start_ns) << "row " << i;
    EXPECT_EQ(at[i].end_ns, rows[i].end_ns) << "row " << i;
  }
}

TEST(Replay, LongerKernelsQueueAndTheSyncMovesTheHost) {
  const auto rows = HostBound();
  const auto at = Replay(rows, Durations(rows, 10), kSync, {});  // 20 µs kernels, the stream-9 one 100 µs
  // The first kernel keeps its start; the second, launched at 10 µs, now waits for the first
  // (ends 24 µs) and starts after it by the typical gap (none was traced: 0).
  EXPECT_EQ(at[0].start_ns, 4'000);
  EXPECT_EQ(at[0].end_ns, 24'000);
  EXPECT_EQ(at[1].start_ns, 24'000);
  EXPECT_EQ(at[3].end_ns, 84'000);
  // The stream-9 kernel, launched at 31 µs, starts at 35 µs and ends at 135 µs; the sync that
  // waited for it ends 1.5 µs after it, and the host's later launches move by as much.
  EXPECT_EQ(at[4].end_ns, 135'000);
  EXPECT_EQ(at[5].start_ns, 64'000 + (136'500 - 46'500));
}

TEST(Replay, GraphsRemoveShortHostGapsButNotSyncs) {
  const auto rows = HostBound();
  ReplayOptions graphs;
  graphs.graph_gap_below_ns = 50'000;
  const auto at = Replay(rows, Durations(rows), kSync, graphs);
  // Launches 10 µs apart collapse onto the first: each kernel follows the previous one.
  EXPECT_EQ(at[1].start_ns, at[0].end_ns);
  EXPECT_EQ(at[3].start_ns, at[2].end_ns);
  // After the sync (which still waits for the stream-9 kernel) the next launch is not moved earlier
  // than the wait's end allows.
  EXPECT_GE(at[5].start_ns, at[4].end_ns);
}

}  // namespace
}  // namespace plasmient::whatif
