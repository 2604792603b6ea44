#include "ingest/kineto_json/event_batch.h"

namespace plasmient::ingest {

static_assert(kBatchPadding >= simdjson::SIMDJSON_PADDING, "batches must carry simdjson's padding");

void EventBatch::Seal() {
  if (json.empty()) json.push_back('[');
  json.push_back(']');
  json.reserve(json.size() + kBatchPadding);
  if (!parser) parser = std::make_unique<simdjson::ondemand::parser>();
  indexed = parser->iterate(json.data(), json.size(), json.capacity()).get(doc) == simdjson::SUCCESS;
}

bool BatchQueue::Push(EventBatch&& batch) {
  std::unique_lock lock(mutex_);
  not_full_.wait(lock, [&] { return ready_.size() < capacity_ || cancelled_; });
  if (cancelled_) return false;
  ready_.push_back(std::move(batch));
  not_empty_.notify_one();
  return true;
}

void BatchQueue::Close() {
  std::lock_guard lock(mutex_);
  closed_ = true;
  not_empty_.notify_one();
}

bool BatchQueue::Pop(EventBatch* batch) {
  std::unique_lock lock(mutex_);
  not_empty_.wait(lock, [&] { return !ready_.empty() || closed_; });
  if (ready_.empty()) return false;
  *batch = std::move(ready_.front());
  ready_.pop_front();
  not_full_.notify_one();
  return true;
}

void BatchQueue::Recycle(EventBatch&& batch) {
  batch.Clear();
  std::lock_guard lock(mutex_);
  if (free_.size() < capacity_ + 2) free_.push_back(std::move(batch));
}

EventBatch BatchQueue::TakeFree() {
  std::lock_guard lock(mutex_);
  if (free_.empty()) return EventBatch{};
  EventBatch batch = std::move(free_.back());
  free_.pop_back();
  return batch;
}

void BatchQueue::Cancel() {
  std::lock_guard lock(mutex_);
  cancelled_ = true;
  not_full_.notify_all();
}

}  // namespace plasmient::ingest
