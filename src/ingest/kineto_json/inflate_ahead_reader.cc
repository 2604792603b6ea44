#include "ingest/kineto_json/inflate_ahead_reader.h"

#include <algorithm>
#include <span>
#include <system_error>
#include <utility>

namespace plasmient::ingest {

InflateAheadReader::InflateAheadReader(std::unique_ptr<GzipChunkReader> gzip, std::size_t slots)
    : gzip_(std::move(gzip)), raw_total_(gzip_->raw_bytes_total()), slots_(std::max<std::size_t>(slots, 2)) {
  try {
    thread_ = std::thread([this] { Inflate(); });
  } catch (const std::system_error&) {
    // No thread (its stack is address space too): Next() inflates, as GzipChunkReader alone does.
  }
}

InflateAheadReader::~InflateAheadReader() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  freed_cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void InflateAheadReader::Inflate() {
  const std::size_t chunk_bytes = gzip_->chunk_bytes();
  while (true) {
    std::size_t index = 0;
    {
      std::unique_lock lock(mutex_);
      freed_cv_.wait(lock, [&] { return stop_ || filled_ - freed_ < slots_.size(); });
      if (stop_) return;
      index = filled_ % slots_.size();
    }
    // The consumer does not look at this slot until filled_ passes it.
    Slot& slot = slots_[index];
    bool last = true;
    try {
      // Allocated on first use, then reused: each buffer's pages are faulted in once.
      if (!slot.bytes) slot.bytes = std::make_unique_for_overwrite<char[]>(chunk_bytes);
      auto filled = gzip_->Fill(std::span(slot.bytes.get(), chunk_bytes));
      if (filled) {
        slot.size = *filled;
        last = *filled == 0;
      } else {
        slot.error = std::move(filled.error());
      }
    } catch (...) {
      slot.exception = std::current_exception();
    }
    slot.raw_done = gzip_->raw_bytes_done();
    {
      std::lock_guard lock(mutex_);
      ++filled_;
    }
    filled_cv_.notify_one();
    if (last) return;  // the end, or a failure: nothing follows either
  }
}

Result<std::string_view> InflateAheadReader::Next() {
  if (!thread_.joinable()) {
    auto chunk = gzip_->Next();
    raw_done_ = gzip_->raw_bytes_done();
    return chunk;
  }
  if (finished_) return Hand(*last_);
  Slot* slot = nullptr;
  {
    std::unique_lock lock(mutex_);
    if (taken_ > freed_) {
      ++freed_;  // the chunk handed out last is done with
      freed_cv_.notify_one();
    }
    filled_cv_.wait(lock, [&] { return filled_ > taken_; });
    slot = &slots_[taken_ % slots_.size()];
    ++taken_;
  }
  if (slot->error || slot->exception || slot->size == 0) {
    finished_ = true;
    last_ = slot;
  }
  return Hand(*slot);
}

Result<std::string_view> InflateAheadReader::Hand(Slot& slot) {
  raw_done_ = slot.raw_done;
  if (slot.exception) std::rethrow_exception(slot.exception);
  if (slot.error) return std::unexpected(*slot.error);
  return std::string_view(slot.bytes.get(), slot.size);
}

}  // namespace plasmient::ingest
