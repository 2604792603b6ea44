#include "ingest/kineto_json/parse_pipeline.h"

#include <utility>

namespace plasmient::ingest {

std::unique_ptr<ParseSlot> ParsePipeline::TakeFree() {
  {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return !free_.empty() || made_ < max_slots() || cancelled_; });
    if (!free_.empty()) {
      std::unique_ptr<ParseSlot> slot = std::move(free_.back());
      free_.pop_back();
      return slot;
    }
    ++made_;
  }
  return std::make_unique<ParseSlot>();
}

bool ParsePipeline::Push(std::unique_ptr<ParseSlot> slot) {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return in_flight_.size() < capacity_ || cancelled_; });
  if (cancelled_) return false;
  in_flight_.push_back(InFlight{std::move(slot)});
  changed_.notify_all();
  return true;
}

void ParsePipeline::Close() {
  std::lock_guard lock(mutex_);
  closed_ = true;
  changed_.notify_all();
}

ParseSlot* ParsePipeline::TakeWork() {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return taken_ < in_flight_.size() || closed_ || cancelled_; });
  if (cancelled_ || taken_ == in_flight_.size()) return nullptr;
  return in_flight_[taken_++].slot.get();
}

void ParsePipeline::Parsed(const ParseSlot* slot) {
  std::lock_guard lock(mutex_);
  for (InFlight& entry : in_flight_) {
    if (entry.slot.get() == slot) entry.parsed = true;
  }
  changed_.notify_all();
}

std::unique_ptr<ParseSlot> ParsePipeline::PopParsed() {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] {
    return cancelled_ || (!in_flight_.empty() && in_flight_.front().parsed) ||
           (closed_ && in_flight_.empty());
  });
  if (cancelled_ || in_flight_.empty()) return nullptr;
  std::unique_ptr<ParseSlot> slot = std::move(in_flight_.front().slot);
  in_flight_.pop_front();
  --taken_;  // the front was parsed, so it had been taken
  changed_.notify_all();
  return slot;
}

void ParsePipeline::Recycle(std::unique_ptr<ParseSlot> slot) {
  slot->batch.Clear();
  slot->rows.Clear();
  std::lock_guard lock(mutex_);
  free_.push_back(std::move(slot));
  changed_.notify_all();
}

void ParsePipeline::Cancel() {
  std::lock_guard lock(mutex_);
  cancelled_ = true;
  changed_.notify_all();
}

}  // namespace plasmient::ingest
