// ActivityConverter: turns completed CUPTI activity buffers (CUDA 13.0 record structs) into
// wire records and hands them to a RecordSink. This is the seam between CUPTI and the agent:
// it needs only CUPTI's headers, so tests fill real CUPTI structs in memory and call
// ConvertBuffer with their own record iterator, without libcupti or a driver.
#pragma once

#include <cupti_activity.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "collect/agent/record_sink.h"
#include "wire/records.h"

namespace plasmient::collect {

// CUPTI 13.0 layouts this converter is written against (see gpu-apis.md 2.4).
static_assert(sizeof(CUpti_ActivityKernel10) == 216);
static_assert(offsetof(CUpti_ActivityKernel10, start) == 16);
static_assert(sizeof(CUpti_ActivityAPI) == 40);

// Same contract as cuptiActivityGetNextRecord.
using NextRecordFn = CUptiResult (*)(uint8_t* buffer, size_t valid_bytes, CUpti_Activity** record);
// Name of a runtime/driver API by callback id, or nullptr (cuptiGetCallbackName in the agent).
using ApiNameFn = const char* (*)(wire::ApiDomain domain, std::uint32_t cbid);

struct ConverterStats {
  std::uint64_t records = 0;          // converted to wire records
  std::uint64_t ignored = 0;          // kinds we do not keep (context, stream, name, ...)
  std::uint64_t invalid_buffers = 0;  // iteration stopped on CUPTI_ERROR_INVALID_KIND
  std::uint64_t invalid_records = 0;  // zero timestamps (CUPTI: could not be collected), left out
};

class ActivityConverter {
 public:
  ActivityConverter(RecordSink& sink, NextRecordFn next, ApiNameFn api_name);

  // Converts every record of one completed buffer and publishes them. Thread-safe (CUPTI may
  // complete buffers on its worker thread and on a thread calling cuptiActivityFlushAll).
  std::size_t ConvertBuffer(uint8_t* buffer, std::size_t valid_bytes);

  // The hot path, one record; callers hold the converter (ConvertBuffer does this).
  void Convert(const CUpti_Activity* record);
  // Publishes the partly filled block (at close). Thread-safe like ConvertBuffer.
  void Flush() {
    std::lock_guard<std::mutex> lock(mutex_);
    producer_.Flush();
  }
  ConverterStats stats() const { return stats_; }
  // Kernel records received, timed or not (a window's close waits for its launches' records).
  std::uint64_t kernels_seen() const { return kernels_seen_.load(std::memory_order_relaxed); }

 private:
  // CUPTI strings with a stable address for the session (kernel, device names): by pointer.
  std::uint32_t InternPointer(const char* text);
  // NVTX strings, whose buffers CUPTI may reuse for other text: by content (bounded cache).
  std::uint32_t InternText(const char* text);
  // False (and counted) for a GPU activity CUPTI could not time.
  bool Timed(std::uint64_t start, std::uint64_t end);
  std::uint32_t ApiNameId(wire::ApiDomain domain, std::uint32_t cbid);

  // Open-addressing map from a stable key (CUPTI string pointer, API id) to a string id.
  struct IdMap {
    std::vector<std::uintptr_t> keys;
    std::vector<std::uint32_t> ids;
    std::size_t used = 0;
    std::uint32_t* Find(std::uintptr_t key, bool& inserted);
  };

  RecordSink& sink_;
  NextRecordFn next_;
  ApiNameFn api_name_;
  BlockProducer producer_;
  IdMap strings_;
  IdMap api_names_;
  std::unordered_map<std::string, std::uint32_t> texts_;
  ConverterStats stats_;
  std::atomic<std::uint64_t> kernels_seen_{0};
  std::mutex mutex_;
  std::uint32_t pid_;
};

}  // namespace plasmient::collect
