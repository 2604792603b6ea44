#include "whatif/replay.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <unordered_map>

namespace plasmient::whatif {
namespace {

constexpr TimeNs kNever = std::numeric_limits<TimeNs>::min();

TimeNs ReadyNs(const ActivityRow& r) { return r.launch_ns != kNoTime ? r.launch_ns : r.start_ns; }

struct Issued {
  TimeNs ready_ns, traced_end_ns, new_end_ns;
};

// The host timeline: how far its calls have moved (shift_ns), changed at each wait on the GPU.
class Host {
 public:
  explicit Host(std::span<const HostWait> waits) : waits_(waits) {}

  // Settles every wait that ended by `ready_ns`; true when one did.
  bool SettleWaits(TimeNs ready_ns, std::vector<Issued>& issued) {
    bool settled = false;
    while (next_ < waits_.size() && waits_[next_].end_ns <= ready_ns) {
      Settle(waits_[next_++], issued);
      settled = true;
    }
    return settled;
  }
  TimeNs shift_ns() const { return shift_ns_; }
  void Advance(TimeNs by_ns) { shift_ns_ += by_ns; }

 private:
  // A wait [a, b] waited for the work issued before a that had ended by b. It now ends when that
  // work ends, or at its own shifted start, plus what the call cost after whichever came last.
  void Settle(const HostWait& w, std::vector<Issued>& issued) {
    TimeNs traced = kNever, replayed = kNever;
    std::erase_if(issued, [&](const Issued& i) {
      if (i.ready_ns >= w.start_ns || i.traced_end_ns > w.end_ns) return false;
      traced = std::max(traced, i.traced_end_ns);
      replayed = std::max(replayed, i.new_end_ns);
      return true;
    });
    const TimeNs own_ns = w.end_ns - std::max(w.start_ns, traced);
    const TimeNs new_end = std::max(w.start_ns + shift_ns_, replayed) + own_ns;
    shift_ns_ = new_end - w.end_ns;
  }

  std::span<const HostWait> waits_;
  std::size_t next_ = 0;
  TimeNs shift_ns_ = 0;
};

// Per row, what held it after its launch (latency) and after the previous activity of its
// stream (gap), whichever bound it; the other is the rank's typical value, never more than the
// traced start allows, so that an unchanged timeline replays exactly.
struct Holds {
  std::vector<TimeNs> latency_ns, gap_ns;
};

TimeNs Median(std::vector<TimeNs> v) {
  if (v.empty()) return 0;
  auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
  std::nth_element(v.begin(), mid, v.end());
  return *mid;
}

Holds ReadHolds(std::span<const ActivityRow> rows, std::span<const std::size_t> order) {
  Holds h;
  h.latency_ns.assign(rows.size(), 0);
  h.gap_ns.assign(rows.size(), 0);
  std::vector<char> launch_bound(rows.size(), 0);
  std::unordered_map<std::int32_t, TimeNs> tail;
  std::vector<TimeNs> latencies, gaps;
  for (std::size_t i : order) {
    const ActivityRow& r = rows[i];
    auto it = tail.try_emplace(r.stream, kNever).first;
    const TimeNs after_launch = r.start_ns - ReadyNs(r);
    const TimeNs after_tail =
        it->second == kNever ? std::numeric_limits<TimeNs>::max() : r.start_ns - it->second;
    launch_bound[i] = after_launch <= after_tail;
    h.latency_ns[i] = after_launch;
    h.gap_ns[i] = after_tail;
    if (r.launch_ns != kNoTime && after_launch >= 0 && launch_bound[i]) latencies.push_back(after_launch);
    if (!launch_bound[i] && after_tail >= 0) gaps.push_back(after_tail);
    it->second = r.end_ns;
  }
  const TimeNs latency = Median(std::move(latencies)), gap = Median(std::move(gaps));
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (launch_bound[i]) {
      h.gap_ns[i] = std::min(h.gap_ns[i], gap);
    } else {
      h.latency_ns[i] = std::min(h.latency_ns[i], latency);
    }
  }
  return h;
}

}  // namespace

std::vector<ReplayedActivity> Replay(std::span<const ActivityRow> rows, std::span<const TimeNs> dur_ns,
                                     std::span<const HostWait> waits, const ReplayOptions& options) {
  std::vector<std::size_t> order(rows.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return ReadyNs(rows[a]) < ReadyNs(rows[b]); });
  const Holds holds = ReadHolds(rows, order);
  std::vector<ReplayedActivity> out(rows.size());
  std::unordered_map<std::int32_t, TimeNs> tail;  // replayed end of each stream's last activity
  std::vector<Issued> issued;
  Host host(waits);
  TimeNs previous_launch = kNoTime;
  for (std::size_t i : order) {
    const ActivityRow& r = rows[i];
    const TimeNs ready = ReadyNs(r);
    const bool waited = host.SettleWaits(ready, issued);
    if (options.graph_gap_below_ns > 0 && r.launch_ns != kNoTime) {
      const TimeNs gap = previous_launch == kNoTime ? 0 : r.launch_ns - previous_launch;
      if (!waited && gap > 0 && gap < options.graph_gap_below_ns)
        host.Advance(-gap);  // replayed by the graph
      previous_launch = r.launch_ns;
    }
    TimeNs start = ready + host.shift_ns() + holds.latency_ns[i];
    if (auto it = tail.find(r.stream); it != tail.end())
      start = std::max(start, it->second + holds.gap_ns[i]);
    out[i] = {start, start + dur_ns[i]};
    tail[r.stream] = out[i].end_ns;
    issued.push_back({ready, r.end_ns, out[i].end_ns});
  }
  return out;
}

}  // namespace plasmient::whatif
