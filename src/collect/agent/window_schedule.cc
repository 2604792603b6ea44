#include "collect/agent/window_schedule.h"

namespace plasmient::collect {

WindowSchedule::WindowSchedule(std::uint64_t start_ns, std::uint64_t window_ns, std::uint64_t period_ns)
    : start_ns_(start_ns),
      window_ns_(window_ns),
      period_ns_(period_ns),
      state_(window_ns >= period_ns ? State::kWindow : State::kSamples) {
  if (state_ == State::kWindow) window_end_ns_ = PeriodEnd(0);
}

bool WindowSchedule::InWindowStretch(std::uint64_t now_ns) const {
  return (now_ns - start_ns_) % period_ns_ >= period_ns_ - window_ns_;
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
      std::uint64_t period = PeriodOf(now_ns);
      if (InWindowStretch(now_ns) && period >= period_) {
        period_ = period + 1;
        if (!capture && StepsVisible(now_ns)) {
          state_ = State::kArmed;
          armed_at_ns_ = now_ns;
          armed_.store(true, std::memory_order_release);
          return Action::kArm;
        }
        state_ = State::kWindow;
        window_end_ns_ = PeriodEnd(period);
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
