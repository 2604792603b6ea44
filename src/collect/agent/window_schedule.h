// When a duty-cycled agent's kernel windows open and close (docs/agent.md, "Windows").
// Period k's window is due in the last W seconds of the period. When the
// application's steps are visible — a step range (ProfilerStep#N) began within the last
// period — a due window is armed instead of opened: its file is started with kernels still
// off, and the window opens at the next step boundary and lasts W from it. No boundary within W
// of arming: it opens then, on time. Without visible steps a window opens on time and closes at
// the end of its period, as the stretches say. A window as long as the period (always on) gets a
// new file each period and is never armed.
// Periods are phased on the wall clock (PhaseOnRealtime): period k is [k·P, (k+1)·P) on
// CLOCK_REALTIME, mapped to the monotonic clock at each tick, so every rank of a job, and every
// node under NTP/PTP, windows the same seconds. Without it, periods start at `start_ns`.
// Tick runs on the writer thread; NoteStep, the step clock, is lock-free for the application
// thread that marks steps (it then asks the writer for a tick at once when armed()).
#pragma once

#include <atomic>
#include <cstdint>

namespace plasmient::collect {

class WindowSchedule {
 public:
  WindowSchedule(std::uint64_t start_ns, std::uint64_t window_ns, std::uint64_t period_ns);
  // Phases the periods on CLOCK_REALTIME, given realtime − monotonic now (ns). Called at each
  // tick: a clock step moves the next boundaries with it, and no period opens twice.
  // Period boundaries are then at CLOCK_REALTIME multiples of the period.
  void PhaseOnRealtime(std::int64_t realtime_minus_monotonic_ns);

  enum class Action {
    kNone,
    kArm,        // start a kernel window's file, kernels stay off until a step boundary
    kOpen,       // start a kernel window's file and switch kernels on
    kOpenArmed,  // switch kernels on in the armed file (a step boundary, or W without one)
    kRenew,      // always on: a new window file, kernels stay on
    kClose,      // switch kernels off, then start a samples file
  };
  // On the writer thread, every tick. `capture_until_ns`: an on-demand window holds kernels on
  // until then (0: none).
  Action Tick(std::uint64_t now_ns, std::uint64_t capture_until_ns = 0);
  // A step began at `now_ns` (lock-free: the application thread that marks steps).
  void NoteStep(std::uint64_t now_ns) { last_step_ns_.store(now_ns, std::memory_order_relaxed); }
  // Whether a window waits for a step boundary.
  bool armed() const { return armed_.load(std::memory_order_acquire); }

  bool kernels_on() const { return state_ == State::kWindow; }
  // When the open window closes (0 when none is open); an armed window's: W after the step
  // boundary that opened it.
  std::uint64_t window_end_ns() const { return state_ == State::kWindow ? window_end_ns_ : 0; }

 private:
  enum class State { kSamples, kArmed, kWindow };
  std::uint64_t start_ns_, window_ns_, period_ns_;
  std::uint64_t phase_ns_;    // period boundaries are at monotonic ≡ phase_ns_ (mod period_ns_)
  std::uint64_t due_end_ns_;  // the end of the last period whose window was due
  State state_;
  std::uint64_t window_end_ns_ = 0, armed_at_ns_ = 0;
  std::atomic<std::uint64_t> last_step_ns_{0};
  std::atomic<bool> armed_{false};

  // Period k is [(k − 1)·P + phase, k·P + phase).
  std::uint64_t PeriodOf(std::uint64_t now_ns) const {
    return (now_ns + period_ns_ - phase_ns_) / period_ns_;
  }
  bool InWindowStretch(std::uint64_t now_ns) const;
  bool StepsVisible(std::uint64_t now_ns) const;
  std::uint64_t PeriodEnd(std::uint64_t period) const { return period * period_ns_ + phase_ns_; }
};

}  // namespace plasmient::collect
