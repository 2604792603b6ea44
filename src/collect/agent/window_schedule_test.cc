#include "collect/agent/window_schedule.h"

#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

namespace plasmient::collect {
namespace {

using Action = WindowSchedule::Action;
constexpr std::uint64_t kMs = 1'000'000, kS = 1'000 * kMs;
constexpr std::uint64_t kStart = 1'000 * kS;  // the agent's start on the monotonic clock

// Ticks every 100 ms (the writer's) from `from` to `to`, marking a step every `step_ns` from
// `first_step` (0: no steps) as the application would, with a tick at once while a window is
// armed; returns when kernels went on and off.
struct Switches {
  std::vector<std::uint64_t> on_ns, off_ns, armed_ns;
};
Switches Drive(WindowSchedule& s, std::uint64_t from, std::uint64_t to, std::uint64_t first_step,
               std::uint64_t step_ns) {
  Switches r;
  std::uint64_t next_step = first_step;
  for (std::uint64_t t = from; t < to; t += kMs) {
    bool tick = (t - from) % (100 * kMs) == 0;
    if (step_ns != 0 && t == next_step) {
      s.NoteStep(t);
      tick = tick || s.armed();  // the agent asks its writer for a tick at once
      next_step += step_ns;
    }
    if (!tick) continue;
    switch (s.Tick(t)) {
      case Action::kArm:
        r.armed_ns.push_back(t);
        break;
      case Action::kOpen:
      case Action::kOpenArmed:
        r.on_ns.push_back(t);
        break;
      case Action::kClose:
        r.off_ns.push_back(t);
        break;
      default:
        break;
    }
  }
  return r;
}

// Ranks start CUDA seconds apart. Phased on the wall clock, their windows open at the same
// instants, the last W before each CLOCK_REALTIME multiple of the period; phased on their own
// starts (the default without PhaseOnRealtime) they would not overlap.
TEST(WindowSchedule, RanksStartedApartWindowTheSameSeconds) {
  constexpr std::int64_t kRealtimeMinusMonotonic = 1'764'000'000 * std::int64_t{kS} + 300 * std::int64_t{kMs};
  constexpr std::uint64_t kPeriod = 10 * kS, kWindow = 2 * kS;
  WindowSchedule first(kStart, kWindow, kPeriod), second(kStart + 3'700 * kMs, kWindow, kPeriod);
  first.PhaseOnRealtime(kRealtimeMinusMonotonic);
  second.PhaseOnRealtime(kRealtimeMinusMonotonic);
  Switches a = Drive(first, kStart, kStart + 40 * kS, 0, 0);
  Switches b = Drive(second, kStart + 3'700 * kMs, kStart + 40 * kS, 0, 0);
  ASSERT_GE(b.on_ns.size(), 3u);
  std::vector<std::uint64_t> a_after;
  for (std::uint64_t t : a.on_ns)
    if (t >= kStart + 3'700 * kMs) a_after.push_back(t);
  EXPECT_EQ(a_after, b.on_ns) << "both ranks open their windows at the same instants";
  for (std::uint64_t t : b.on_ns) {
    auto realtime = static_cast<std::uint64_t>(static_cast<std::int64_t>(t) + kRealtimeMinusMonotonic);
    EXPECT_EQ(realtime % kPeriod, kPeriod - kWindow) << "opens W before a wall-clock multiple of P";
  }
  for (std::uint64_t t : b.off_ns) {
    auto realtime = static_cast<std::uint64_t>(static_cast<std::int64_t>(t) + kRealtimeMinusMonotonic);
    EXPECT_EQ(realtime % kPeriod, 0u) << "closes on the multiple";
  }
}

// A clock step (NTP) moves the phase: the period in progress does not get a second window.
TEST(WindowSchedule, ClockStepOpensNoSecondWindowInAPeriod) {
  WindowSchedule s(kStart, 2 * kS, 10 * kS);
  s.PhaseOnRealtime(0);
  std::uint64_t t = kStart;
  int opens = 0;
  for (; t < kStart + 10 * kS; t += 100 * kMs) opens += s.Tick(t) == Action::kOpen;
  EXPECT_EQ(opens, 1);                          // in [8 s, 10 s) of the realtime period
  s.PhaseOnRealtime(-500 * std::int64_t{kMs});  // the wall clock stepped back 0.5 s
  for (; t < kStart + 10'400 * kMs; t += 100 * kMs) opens += s.Tick(t) == Action::kOpen;
  EXPECT_EQ(opens, 1) << "the same period, seen again after the step, is not windowed twice";
}

// No steps seen: windows open on time, in the last W of each period, and close at its end.
TEST(WindowSchedule, WithoutStepsWindowsOpenOnTime) {
  WindowSchedule s(kStart, 2 * kS, 10 * kS);
  Switches r = Drive(s, kStart, kStart + 30 * kS, 0, 0);
  EXPECT_EQ(r.on_ns, (std::vector<std::uint64_t>{kStart + 8 * kS, kStart + 18 * kS, kStart + 28 * kS}));
  EXPECT_EQ(r.off_ns, (std::vector<std::uint64_t>{kStart + 10 * kS, kStart + 20 * kS}));
  EXPECT_TRUE(r.armed_ns.empty());
}

// Steps of 730 ms from t = 0.35 s: each due window is armed on time and opens at the first
// step boundary after it, then lasts W.
TEST(WindowSchedule, WithStepsWindowsOpenAtAStepBoundary) {
  WindowSchedule s(kStart, 2 * kS, 10 * kS);
  const std::uint64_t first = kStart + 350 * kMs, step = 730 * kMs;
  Switches r = Drive(s, kStart, kStart + 30 * kS, first, step);
  ASSERT_EQ(r.armed_ns, (std::vector<std::uint64_t>{kStart + 8 * kS, kStart + 18 * kS, kStart + 28 * kS}));
  ASSERT_EQ(r.on_ns.size(), 3u);
  for (std::size_t i = 0; i < r.on_ns.size(); ++i) {
    std::uint64_t on = r.on_ns[i];
    EXPECT_EQ((on - first) % step, 0u) << "window " << i << " opens on a step boundary";
    EXPECT_GE(on, r.armed_ns[i]);
    EXPECT_LT(on, r.armed_ns[i] + step) << "at the first boundary after it was due";
  }
  // Closed on the first tick at or after opening + W.
  ASSERT_EQ(r.off_ns.size(), 2u);
  for (std::size_t i = 0; i < r.off_ns.size(); ++i) {
    EXPECT_GE(r.off_ns[i], r.on_ns[i] + 2 * kS);
    EXPECT_LT(r.off_ns[i], r.on_ns[i] + 2 * kS + 100 * kMs);
  }
}

// Steps stopped (the last one more than a period ago): back to on time. A boundary that
// does not come within W of arming: the window opens on time, W after it was armed.
TEST(WindowSchedule, StaleOrSlowStepsFallBackToTime) {
  WindowSchedule stale(kStart, 2 * kS, 10 * kS);
  stale.NoteStep(kStart + 1);
  Switches r = Drive(stale, kStart, kStart + 20 * kS, 0, 0);
  EXPECT_EQ(r.armed_ns, (std::vector<std::uint64_t>{kStart + 8 * kS}));
  EXPECT_EQ(r.on_ns, (std::vector<std::uint64_t>{kStart + 10 * kS, kStart + 18 * kS}))
      << "period 0: armed, no boundary within W; period 1: the last step is over a period old";

  WindowSchedule slow(kStart, 2 * kS, 10 * kS);
  r = Drive(slow, kStart, kStart + 11 * kS, kStart + 7 * kS, 5 * kS);  // a step at 7 s, the next at 12 s
  EXPECT_EQ(r.armed_ns, (std::vector<std::uint64_t>{kStart + 8 * kS}));
  EXPECT_EQ(r.on_ns, (std::vector<std::uint64_t>{kStart + 10 * kS}));
  slow.NoteStep(kStart + 11 * kS + kMs);
  EXPECT_EQ(slow.Tick(kStart + 11 * kS + kMs), Action::kNone) << "already open: a boundary changes nothing";
  EXPECT_EQ(slow.window_end_ns(), kStart + 12 * kS);
}

// A window as long as the period is always on: a new file each period, never armed.
TEST(WindowSchedule, AlwaysOnRenewsEachPeriod) {
  WindowSchedule s(kStart, 10 * kS, 10 * kS);
  EXPECT_TRUE(s.kernels_on());
  s.NoteStep(kStart + kS);
  std::vector<Action> actions;
  for (std::uint64_t t = kStart; t < kStart + 25 * kS; t += 100 * kMs) {
    Action a = s.Tick(t);
    if (a != Action::kNone) actions.push_back(a);
  }
  EXPECT_EQ(actions, (std::vector<Action>{Action::kRenew, Action::kRenew}));
  EXPECT_FALSE(s.armed());
}

// An on-demand window opens at once, armed or not, and holds kernels on while it lasts.
TEST(WindowSchedule, CaptureOpensAtOnce) {
  WindowSchedule s(kStart, 2 * kS, 10 * kS);
  EXPECT_EQ(s.Tick(kStart + kS, kStart + 3 * kS), Action::kOpen);
  EXPECT_EQ(s.Tick(kStart + 2 * kS, kStart + 3 * kS), Action::kNone);
  EXPECT_EQ(s.Tick(kStart + 3 * kS, kStart + 3 * kS), Action::kClose);
  s.NoteStep(kStart + 5 * kS);
  EXPECT_EQ(s.Tick(kStart + 8 * kS), Action::kArm);
  EXPECT_TRUE(s.armed());
  EXPECT_EQ(s.Tick(kStart + 8 * kS + 100 * kMs, kStart + 9 * kS), Action::kOpenArmed);
  EXPECT_FALSE(s.armed());
}

}  // namespace
}  // namespace plasmient::collect
