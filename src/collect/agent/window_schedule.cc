#include "collect/agent/window_schedule.h"

namespace plasmient::collect {

WindowSchedule::WindowSchedule(std::uint64_t start_ns, std::uint64_t window_ns, std::uint64_t period_ns)
    : start_ns_(start_ns),
      window_ns_(window_ns),
      period_ns_(period_ns),
      phase_ns_(start_ns % period_ns),
      due_end_ns_(start_ns + period_ns / 2),
      state_(window_ns >= period_ns ? State::kWindow : State::kSamples) {
  if (state_ == State::kWindow) window_end_ns_ = PeriodEnd(PeriodOf(start_ns));
}

void WindowSchedule::PhaseOnRealtime(std::int64_t realtime_minus_monotonic_ns) {
  // Monotonic t is on a boundary when t + offset ≡ 0 (mod P): t ≡ −offset.
  auto p = static_cast<std::int64_t>(period_ns_);
  phase_ns_ = static_cast<std::uint64_t>(((-realtime_minus_monotonic_ns) % p + p) % p);
}

bool WindowSchedule::InWindowStretch(std::uint64_t now_ns) const {
  return (now_ns + period_ns_ - phase_ns_) % period_ns_ >= period_ns_ - window_ns_;
}

bool WindowSchedule::StepsVisible(std::uint64_t now_ns) const {
  std::uint64_t last = last_step_ns_.load(std::memory_order_relaxed);
  return last != 0 && (last >= now_ns || now_ns - last < period_ns_);
}

WindowSchedule::Action WindowSchedule::Tick(std::uint64_t now_ns, std::uint64_t capture_until_ns) {
  if (now_ns < start_ns_) return Action::kNone;
  const bool capture = now_ns < capture_until_ns;
  switch (state_) {
    case State::kSamples: {
      // The period's end identifies it; a phase moved by a clock step moves it by less than
      // half a period, so a period never gets a second window. The first window is the one
      // of the first period that ends a whole period after the start (no warm-up window).
      std::uint64_t end = PeriodEnd(PeriodOf(now_ns));
      if (InWindowStretch(now_ns) && end >= due_end_ns_ + period_ns_ / 2) {
        due_end_ns_ = end;
        if (!capture && StepsVisible(now_ns)) {
          state_ = State::kArmed;
          armed_at_ns_ = now_ns;
          armed_.store(true, std::memory_order_release);
          return Action::kArm;
        }
        state_ = State::kWindow;
        window_end_ns_ = end;
        return Action::kOpen;
      }
      if (!capture) return Action::kNone;
      state_ = State::kWindow;
      window_end_ns_ = now_ns;  // on while the request lasts
      return Action::kOpen;
    }
    case State::kArmed: {
      std::uint64_t step = last_step_ns_.load(std::memory_order_relaxed);
      bool boundary = step > armed_at_ns_;
      if (!boundary && !capture && now_ns < armed_at_ns_ + window_ns_) return Action::kNone;
      state_ = State::kWindow;
      armed_.store(false, std::memory_order_release);
      window_end_ns_ = (boundary ? step : now_ns) + window_ns_;
      return Action::kOpenArmed;
    }
    case State::kWindow:
      if (capture || now_ns < window_end_ns_) return Action::kNone;
      if (window_ns_ >= period_ns_) {  // always on: one file per period
        window_end_ns_ = PeriodEnd(PeriodOf(now_ns));
        return Action::kRenew;
      }
      state_ = State::kSamples;
      return Action::kClose;
  }
  return Action::kNone;
}

}  // namespace plasmient::collect
