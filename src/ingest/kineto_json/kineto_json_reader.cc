#include "ingest/kineto_json/kineto_json_reader.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "ingest/kineto_json/event_framer.h"
#include "ingest/kineto_json/event_parser.h"
#include "ingest/kineto_json/parse_pipeline.h"
#include "ingest/kineto_json/top_level_parser.h"
#include "model/trace_builder.h"

namespace plasmient::ingest {
namespace {

constexpr std::size_t kDefaultBatchBytes = 1u << 20;
constexpr std::size_t kQueueBatches = 4;  // batches in flight beyond one per parsing thread
constexpr std::size_t kMaxParseThreads = 8;
constexpr std::int64_t kProgressStepBytes = 4 << 20;
// Relative timestamps (baseTimeNanoseconds traces) are days; absolute epoch ones are decades.
constexpr TimeNs kAbsoluteTimeNs = 10LL * 365 * 24 * 3600 * kNsPerS;  // ~10 years

// Reads and frames the whole input, handing batches to `sink`.
Status FrameAll(ChunkReader& reader, EventFramer& framer, std::atomic<std::int64_t>& raw_done) {
  while (true) {
    auto chunk = reader.Next();
    if (!chunk) return std::unexpected(chunk.error());
    raw_done.store(reader.raw_bytes_done(), std::memory_order_relaxed);
    if (chunk->empty()) return framer.Finish();
    PLASMIENT_TRY(framer.Feed(*chunk));
  }
}

class ProgressReporter {
 public:
  ProgressReporter(const IngestOptions& options, std::int64_t total) : options_(options), total_(total) {}
  void Report(std::int64_t done, bool force = false) {
    if (!options_.progress || (!force && done < next_)) return;
    next_ = done + kProgressStepBytes;
    options_.progress(done, total_);
  }

 private:
  const IngestOptions& options_;
  std::int64_t total_;
  std::int64_t next_ = 0;
};

// The number of parsing threads for `options`: one per core unless told.
std::size_t ParseThreads(const IngestOptions& options) {
  if (options.parse_threads > 0) return options.parse_threads;
  return std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1, kMaxParseThreads);
}

// Frames on a second thread and parses batches on `threads` more, applying rows on this one in
// input order: the same rows, in the same order, as parsing everything here.
Status FrameAndParseInParallel(ChunkReader& reader, EventFramer& framer, ParsePipeline& pipeline,
                               std::size_t threads, RowApplier& applier, ProgressReporter& progress,
                               std::atomic<std::int64_t>& raw_done, const std::string& name) {
  std::mutex failed_mutex;
  std::exception_ptr failed;  // e.g. bad_alloc: every thread is stopped and joined first
  auto fail = [&](std::exception_ptr e) {
    {
      std::lock_guard lock(failed_mutex);
      if (!failed) failed = std::move(e);
    }
    pipeline.Cancel();
  };
  Status framed;
  std::thread producer([&] {
    // An exception escaping this thread would end the process: it becomes this input's error.
    try {
      try {
        framed = FrameAll(reader, framer, raw_done);
      } catch (const std::bad_alloc&) {
        framed = Fail("{}: out of memory while reading at byte {}", name, framer.bytes());
      }
    } catch (...) {  // no memory left even for the message
      fail(std::current_exception());
    }
    pipeline.Close();
  });
  std::vector<std::thread> parsers;
  parsers.reserve(threads);
  auto parse = [&] {
    try {
      EventParser parser;
      while (ParseSlot* slot = pipeline.TakeWork()) {
        parser.ParseBatch(slot->batch, slot->rows);
        pipeline.Parsed(slot);
      }
    } catch (...) {
      fail(std::current_exception());
    }
  };
  // A thread that cannot start (its stack is address space too) stops the others as an error in
  // one does: no thread is left joinable behind an exception.
  try {
    for (std::size_t i = 0; i < threads; ++i) parsers.emplace_back(parse);
  } catch (...) {
    fail(std::current_exception());
  }
  try {
    while (std::unique_ptr<ParseSlot> slot = pipeline.PopParsed()) {
      applier.Apply(slot->rows);
      pipeline.Recycle(std::move(slot));
      progress.Report(raw_done.load(std::memory_order_relaxed));
    }
  } catch (...) {
    fail(std::current_exception());
  }
  producer.join();
  for (std::thread& t : parsers) t.join();
  if (failed) std::rethrow_exception(failed);
  return framed;
}

Result<model::Trace> Ingest(ChunkReader& reader, const std::string& name, bool gzip,
                            const IngestOptions& options) {
  model::TraceInfo info;
  info.path = name;
  info.format = gzip ? "kineto-json.gz" : "kineto-json";
  model::TraceBuilder builder(std::move(info));
  RowApplier applier(builder);
  ProgressReporter progress(options, reader.raw_bytes_total());
  std::atomic<std::int64_t> raw_done{0};
  std::size_t batch_bytes = options.batch_bytes == 0 ? kDefaultBatchBytes : options.batch_bytes;

  std::optional<EventFramer> framer;
  Status framed;
  if (!options.threaded) {
    EventParser parser;
    BatchRows rows;
    framer.emplace(
        name, batch_bytes,
        [&](EventBatch& batch) {
          parser.ParseBatch(batch, rows);
          applier.Apply(rows);
          progress.Report(raw_done.load(std::memory_order_relaxed));
          return true;
        },
        options.max_event_bytes);
    framed = FrameAll(reader, *framer, raw_done);
  } else {
    std::size_t threads = ParseThreads(options);
    ParsePipeline pipeline(threads + kQueueBatches);
    framer.emplace(
        name, batch_bytes,
        [&](EventBatch& batch) {
          std::unique_ptr<ParseSlot> slot = pipeline.TakeFree();
          std::swap(slot->batch, batch);  // the framer goes on with the recycled (empty) batch
          return pipeline.Push(std::move(slot));
        },
        options.max_event_bytes);
    framed = FrameAndParseInParallel(reader, *framer, pipeline, threads, applier, progress, raw_done, name);
  }
  if (!framed) return std::unexpected(framed.error());

  auto& quality = builder.quality();
  quality.Add(model::Dq::kMalformedEvent, framer->non_object_entries());
  quality.Add(model::Dq::kFlowEventsSkipped, framer->prefiltered().flows);
  quality.Add(model::Dq::kInstantEventsSkipped, framer->prefiltered().instants);
  quality.Add(model::Dq::kPythonFunctionsSkipped, framer->prefiltered().python_functions);
  TopLevelFacts facts = ApplyTopLevel(framer->top_level(), builder);
  applier.Finish();
  if (facts.base_time_ns) {
    if (applier.min_ts_ns() != kNoTime && applier.min_ts_ns() >= kAbsoluteTimeNs) {
      quality.Add(model::Dq::kAmbiguousTimebase);
    } else if (!builder.ShiftTime(*facts.base_time_ns)) {
      return Fail("{}: timestamps plus baseTimeNanoseconds {} leave the 64-bit nanosecond range at byte {}",
                  name, *facts.base_time_ns, facts.base_time_offset);
    }
  }
  builder.info().events = framer->events() + framer->non_object_entries();
  builder.info().input_bytes = framer->bytes();
  progress.Report(reader.raw_bytes_total(), true);
  return std::move(builder).Finish();
}

}  // namespace

Result<model::Trace> ReadKinetoJson(const std::string& path, const IngestOptions& options) {
  bool gzip = false;
  auto reader = OpenChunkReader(path, options.chunk_bytes, &gzip, options.open, options.max_decoded_bytes,
                                options.threaded);
  if (!reader) return std::unexpected(reader.error());
  return Ingest(**reader, path, gzip, options);
}

Result<model::Trace> ReadKinetoJsonBuffer(std::string_view bytes, const std::string& name,
                                          const IngestOptions& options) {
  bool gzip = false;
  auto reader = MemoryChunkReaderFor(bytes, name, options.chunk_bytes, &gzip, options.max_decoded_bytes,
                                     options.threaded);
  return Ingest(*reader, name, gzip, options);
}

}  // namespace plasmient::ingest
