// FakeActivityBuffer: CUPTI activity records (real CUDA 13.0 structs) laid out back to back at
// 8-byte alignment, with an iterator that keeps cuptiActivityGetNextRecord's contract. For tests
// and benchmarks that run without libcupti or a driver.
#pragma once

#include <cupti_activity.h>

#include <cstring>
#include <vector>

namespace plasmient::collect {

class FakeActivityBuffer {
 public:
  template <typename T>
  void Add(const T& record) {
    std::size_t at = bytes_.size();
    bytes_.resize(at + Padded(sizeof(T)), 0);
    std::memcpy(bytes_.data() + at, &record, sizeof(T));
    sizes_.push_back(sizeof(T));
  }
  uint8_t* data() { return bytes_.data(); }
  std::size_t size() const { return bytes_.size(); }
  std::size_t records() const { return sizes_.size(); }

  // Makes `buffer` the one Next() walks (the iterator has no user-data slot, like CUPTI's).
  static void Use(FakeActivityBuffer* buffer) { current_ = buffer; }

  static CUptiResult Next(uint8_t* buffer, size_t valid, CUpti_Activity** record) {
    FakeActivityBuffer* self = current_;
    std::size_t offset = 0;
    if (*record == nullptr) {
      self->index_ = 0;
    } else {
      offset = static_cast<std::size_t>(reinterpret_cast<uint8_t*>(*record) - buffer) +
               Padded(self->sizes_[self->index_++]);
    }
    if (offset >= valid || self->index_ >= self->sizes_.size()) {
      return CUPTI_ERROR_MAX_LIMIT_REACHED;
    }
    *record = reinterpret_cast<CUpti_Activity*>(buffer + offset);
    return CUPTI_SUCCESS;
  }

 private:
  static std::size_t Padded(std::size_t n) { return (n + 7) & ~std::size_t{7}; }
  static inline FakeActivityBuffer* current_ = nullptr;
  std::vector<uint8_t> bytes_;
  std::vector<std::size_t> sizes_;
  std::size_t index_ = 0;
};

}  // namespace plasmient::collect
