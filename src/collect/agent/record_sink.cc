#include "collect/agent/record_sink.h"

#include <algorithm>

namespace plasmient::collect {

using wire::DropSource;

RecordSink::RecordSink(const SinkOptions& options)
    : options_(options),
      storage_(new std::uint8_t[options.block_bytes * options.block_count]()),
      blocks_(options.block_count),
      free_(options.block_count),
      full_(options.block_count),
      ring_(options.ring_slots) {
  for (std::size_t i = 0; i < blocks_.size(); ++i) {
    blocks_[i].data = storage_.get() + i * options_.block_bytes;
    free_.TryPush(&blocks_[i]);
  }
}

Block* RecordSink::AcquireBlock() {
  Block* b = nullptr;
  return free_.TryPop(b) ? b : nullptr;
}

void RecordSink::PublishBlock(Block* block) {
  // full_ has room for every block, so this cannot fail.
  full_.TryPush(block);
}

bool RecordSink::PopFullBlock(Block*& block) { return full_.TryPop(block); }

void RecordSink::ReleaseBlock(Block* block) {
  block->used = 0;
  block->records = 0;
  free_.TryPush(block);
}

bool RecordSink::PushSmall(const void* record, std::size_t bytes) {
  Slot slot;
  slot.bytes = static_cast<std::uint32_t>(std::min(bytes, kSlotBytes));
  std::memcpy(slot.data, record, slot.bytes);
  if (ring_.TryPush(slot)) return true;
  CountDrops(DropSource::kEventRing, 1);
  return false;
}

bool RecordSink::PushString(std::uint32_t id, std::string_view text) {
  Slot slot;
  slot.bytes = static_cast<std::uint32_t>(EncodeStringRecord(id, text, kSlotBytes, slot.data));
  if (ring_.TryPush(slot)) return true;
  CountDrops(DropSource::kEventRing, 1);
  return false;
}

std::size_t EncodeStringRecord(std::uint32_t id, std::string_view text, std::size_t max_bytes,
                               std::uint8_t* out) {
  std::size_t room = max_bytes - sizeof(wire::StringRecord);
  room -= room % 8;
  std::size_t length = std::min({text.size(), room, std::size_t{wire::kMaxStringBytes}});
  std::size_t padded = (length + 7) & ~std::size_t{7};
  wire::StringRecord r{};
  r.header = {wire::RecordKind::kString, static_cast<std::uint16_t>(sizeof r + padded), 0};
  r.id = id;
  r.length = static_cast<std::uint32_t>(length);
  std::memcpy(out, &r, sizeof r);
  std::memcpy(out + sizeof r, text.data(), length);
  std::memset(out + sizeof r + length, 0, padded - length);
  return sizeof r + padded;
}

bool BlockProducer::AppendString(std::uint32_t id, std::string_view text) {
  std::size_t need =
      sizeof(wire::StringRecord) + ((std::min<std::size_t>(text.size(), wire::kMaxStringBytes) + 7) & ~7u);
  if (block_ == nullptr || block_->used + need > sink_.block_bytes()) {
    if (!Rotate()) return false;
  }
  block_->used += static_cast<std::uint32_t>(EncodeStringRecord(id, text, need, block_->data + block_->used));
  ++block_->records;
  return true;
}

void BlockProducer::Flush() {
  if (block_ != nullptr && block_->used > 0) {
    sink_.PublishBlock(block_);
    block_ = nullptr;
  }
}

bool BlockProducer::Rotate() {
  if (block_ != nullptr && block_->used > 0) {
    sink_.PublishBlock(block_);
    block_ = nullptr;
  }
  if (block_ == nullptr) block_ = sink_.AcquireBlock();
  if (block_ == nullptr) {
    sink_.CountDrops(DropSource::kHandOff, 1);
    return false;
  }
  return true;
}

}  // namespace plasmient::collect
