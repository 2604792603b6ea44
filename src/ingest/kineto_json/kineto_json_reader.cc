#include "ingest/kineto_json/kineto_json_reader.h"

#include <atomic>
#include <exception>
#include <optional>
#include <thread>

#include "ingest/kineto_json/event_framer.h"
#include "ingest/kineto_json/event_parser.h"
#include "ingest/kineto_json/top_level_parser.h"
#include "model/trace_builder.h"

namespace plasmient::ingest {
namespace {

constexpr std::size_t kDefaultBatchBytes = 1u << 20;
constexpr std::size_t kQueueBatches = 4;
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

Result<model::Trace> Ingest(ChunkReader& reader, const std::string& name, bool gzip,
                            const IngestOptions& options) {
  model::TraceInfo info;
  info.path = name;
  info.format = gzip ? "kineto-json.gz" : "kineto-json";
  model::TraceBuilder builder(std::move(info));
  EventParser parser(builder);
  ProgressReporter progress(options, reader.raw_bytes_total());
  std::atomic<std::int64_t> raw_done{0};
  std::size_t batch_bytes = options.batch_bytes == 0 ? kDefaultBatchBytes : options.batch_bytes;

  std::optional<EventFramer> framer;
  Status framed;
  if (!options.threaded) {
    framer.emplace(
        name, batch_bytes,
        [&](EventBatch& batch) {
          parser.ParseBatch(batch);
          progress.Report(raw_done.load(std::memory_order_relaxed));
          return true;
        },
        options.max_event_bytes);
    framed = FrameAll(reader, *framer, raw_done);
  } else {
    BatchQueue queue(kQueueBatches);
    framer.emplace(
        name, batch_bytes,
        [&](EventBatch& batch) {
          if (!queue.Push(std::move(batch))) return false;
          batch = queue.TakeFree();
          return true;
        },
        options.max_event_bytes);
    std::thread producer([&] {
      // An exception escaping this thread would end the process: it becomes this input's error.
      try {
        framed = FrameAll(reader, *framer, raw_done);
      } catch (const std::bad_alloc&) {
        framed = Fail("{}: out of memory while reading at byte {}", name, framer->bytes());
      }
      queue.Close();
    });
    EventBatch batch;
    std::exception_ptr parse_failed;  // e.g. bad_alloc: the producer must be stopped and joined first
    try {
      while (queue.Pop(&batch)) {
        parser.ParseBatch(batch);
        queue.Recycle(std::move(batch));
        progress.Report(raw_done.load(std::memory_order_relaxed));
      }
    } catch (...) {
      parse_failed = std::current_exception();
      queue.Cancel();
    }
    producer.join();
    if (parse_failed) std::rethrow_exception(parse_failed);
  }
  if (!framed) return std::unexpected(framed.error());

  auto& quality = builder.quality();
  quality.Add(model::Dq::kMalformedEvent, framer->non_object_entries());
  quality.Add(model::Dq::kFlowEventsSkipped, framer->prefiltered().flows);
  quality.Add(model::Dq::kInstantEventsSkipped, framer->prefiltered().instants);
  quality.Add(model::Dq::kPythonFunctionsSkipped, framer->prefiltered().python_functions);
  TopLevelFacts facts = ApplyTopLevel(framer->top_level(), builder);
  parser.Finish();
  if (facts.base_time_ns) {
    if (parser.min_ts_ns() != kNoTime && parser.min_ts_ns() >= kAbsoluteTimeNs) {
      quality.Add(model::Dq::kAmbiguousTimebase);
    } else if (!builder.ShiftTime(*facts.base_time_ns)) {
      return Fail("{}: timestamps plus baseTimeNanoseconds {} leave the 64-bit nanosecond range", name,
                  *facts.base_time_ns);
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
  auto reader = OpenChunkReader(path, options.chunk_bytes == 0 ? kDefaultChunkBytes : options.chunk_bytes,
                                &gzip, options.open, options.max_decoded_bytes);
  if (!reader) return std::unexpected(reader.error());
  return Ingest(**reader, path, gzip, options);
}

Result<model::Trace> ReadKinetoJsonBuffer(std::string_view bytes, const std::string& name,
                                          const IngestOptions& options) {
  bool gzip = false;
  auto reader =
      MemoryChunkReaderFor(bytes, name, options.chunk_bytes == 0 ? kDefaultChunkBytes : options.chunk_bytes,
                           &gzip, options.max_decoded_bytes);
  return Ingest(*reader, name, gzip, options);
}

}  // namespace plasmient::ingest
