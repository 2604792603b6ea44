#include "collect/agent/trace_writer.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>

#include "collect/agent/agent_config.h"
#include "collect/agent/clock.h"

namespace plasmient::collect {

TraceWriter::TraceWriter(RecordSink& sink, const WriterOptions& options)
    : sink_(sink), options_(options), encoder_(options.zstd_level) {
  pending_.reserve(options_.chunk_raw_bytes + sink_.block_bytes());
}

TraceWriter::~TraceWriter() { Close(); }

std::string TraceWriter::Open(const std::string& path, bool start_thread, std::uint32_t file_flags) {
  std::string why = StartFile(path, file_flags);
  if (!why.empty() && !options_.windowed) return why;
  if (start_thread) thread_ = std::thread([this] { Run(); });
  return why;
}

std::string TraceWriter::StartFile(const std::string& path, std::uint32_t file_flags) {
  path_ = path;
  part_path_ = options_.windowed ? PartPath(path) : path;
  file_open_ = true;
  write_failed_ = false;
  capped_ = false;
  file_records_ = 0;
  bytes_written_ = 0;
  encoder_.StartFile();
  std::copy(std::begin(drops_base_), std::end(drops_base_), std::begin(drops_reported_));
  std::string why;
  // Never through a symlink, and in the shared spool only a file of our own making: a name
  // planted there (a link to another file, a file left by someone else) costs the window,
  // counted, never another file's contents.
  fd_ = ::open(part_path_.c_str(),
               O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW | (options_.windowed ? O_EXCL : O_TRUNC), 0644);
  const auto [realtime_ns, monotonic_ns] = ClockPair(MonotonicNs());
  wire::FileHeader h = wire::MakeFileHeader(realtime_ns, monotonic_ns, file_flags);
  if (fd_ < 0) {
    why = part_path_ + ": cannot create trace file: " + strerror(errno);
  } else if (!WriteAll(reinterpret_cast<const std::uint8_t*>(&h), sizeof h)) {
    why = part_path_ + ": cannot write trace file header: " + strerror(errno);
    write_failed_ = true;
  }
  good_bytes_ = static_cast<off_t>(sizeof h);
  if (!why.empty() && options_.windowed && !said_spool_problem_) {
    said_spool_problem_ = true;
    std::fprintf(stderr, "plasmient agent: %s; windows are dropped (counted) until the spool takes them\n",
                 why.c_str());
  }
  pending_.insert(pending_.end(), sticky_.begin(), sticky_.end());
  pending_records_ += sticky_records_;
  pending_meta_ += sticky_records_;
  if (pending_records_ > 0 && oldest_pending_ns_ == 0) oldest_pending_ns_ = MonotonicNs();
  AppendDropsAndClock(/*force_clock=*/true);
  return why;
}

void TraceWriter::Rotate(const std::string& path, std::uint32_t file_flags) {
  FinishFile();
  StartFile(path, file_flags);
}

namespace {

// Appends the string, process and device records among `bytes` to `to` (at most 16 MiB in all):
// what a file needs to read on its own. Returns how many it appended.
std::uint32_t AppendSticky(const std::uint8_t* data, std::size_t bytes, std::vector<std::uint8_t>& to) {
  constexpr std::size_t kMaxStickyBytes = 16 << 20;
  std::uint32_t appended = 0;
  std::size_t at = 0;
  while (at + sizeof(wire::RecordHeader) <= bytes) {
    wire::RecordHeader h;
    std::memcpy(&h, data + at, sizeof h);
    if (h.size_bytes < sizeof h || at + h.size_bytes > bytes) break;
    bool sticky = h.kind == wire::RecordKind::kString || h.kind == wire::RecordKind::kProcess ||
                  h.kind == wire::RecordKind::kDevice;
    if (sticky && to.size() + h.size_bytes <= kMaxStickyBytes) {
      to.insert(to.end(), data + at, data + at + h.size_bytes);
      ++appended;
    }
    at += h.size_bytes;
  }
  return appended;
}

}  // namespace

void TraceWriter::KeepSticky(const std::uint8_t* data, std::size_t bytes) {
  sticky_records_ += AppendSticky(data, bytes, sticky_);
}

void TraceWriter::Run() {
  std::uint64_t last_tick_ns = MonotonicNs();
  while (!stop_.load(std::memory_order_acquire)) {
    std::size_t moved = Drain();
    std::uint64_t now = MonotonicNs();
    if (pending_records_ > 0 && (pending_.size() >= options_.chunk_raw_bytes ||
                                 now - oldest_pending_ns_ >= options_.flush_interval_ns)) {
      AppendDropsAndClock(false);
      WriteChunk(0);
    }
    if (tick_ &&
        (now - last_tick_ns >= 100'000'000 || tick_requested_.exchange(false, std::memory_order_acq_rel))) {
      tick_();
      last_tick_ns = now;
    }
    if (moved == 0) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

std::size_t TraceWriter::Drain() {
  std::size_t moved = 0;
  auto note = [this](std::uint32_t n) {
    if (pending_records_ == 0) oldest_pending_ns_ = MonotonicNs();
    pending_records_ += n;
  };
  Block* block = nullptr;
  while (pending_.size() < options_.chunk_raw_bytes && sink_.PopFullBlock(block)) {
    pending_.insert(pending_.end(), block->data, block->data + block->used);
    if (options_.windowed) KeepSticky(block->data, block->used);
    note(block->records);
    moved += block->records;
    sink_.ReleaseBlock(block);
  }
  Slot slot;
  while (pending_.size() < options_.chunk_raw_bytes && sink_.PopSmall(slot)) {
    pending_.insert(pending_.end(), slot.data, slot.data + slot.bytes);
    if (options_.windowed) KeepSticky(slot.data, slot.bytes);
    note(1);
    ++moved;
  }
  return moved;
}

void TraceWriter::AppendDropsAndClock(bool force_clock) {
  for (std::size_t s = 0; s < static_cast<std::size_t>(wire::DropSource::kCount); ++s) {
    std::int64_t n = sink_.Drops(static_cast<wire::DropSource>(s));
    if (n == drops_reported_[s]) continue;
    drops_reported_[s] = n;
    wire::DropRecord r{};
    r.header = wire::HeaderFor<wire::DropRecord>(wire::RecordKind::kDrops);
    r.source = static_cast<std::uint16_t>(s);
    r.cumulative = n - drops_base_[s];
    const auto* p = reinterpret_cast<const std::uint8_t*>(&r);
    pending_.insert(pending_.end(), p, p + sizeof r);
    ++pending_records_;
    ++pending_meta_;
  }
  std::uint64_t now = MonotonicNs();
  if (force_clock || now - last_clock_sync_ns_ >= options_.clock_sync_interval_ns) {
    last_clock_sync_ns_ = now;
    const auto [realtime_ns, monotonic_ns] = ClockPair(now);
    wire::ClockSyncRecord r{wire::HeaderFor<wire::ClockSyncRecord>(wire::RecordKind::kClockSync), realtime_ns,
                            monotonic_ns};
    const auto* p = reinterpret_cast<const std::uint8_t*>(&r);
    pending_.insert(pending_.end(), p, p + sizeof r);
    ++pending_records_;
    ++pending_meta_;
  }
}

std::pair<std::int64_t, std::int64_t> TraceWriter::ClockPair(std::uint64_t monotonic_now) const {
  if (options_.fixed_realtime_ns != 0 && options_.fixed_monotonic_ns != 0) {
    return {options_.fixed_realtime_ns, options_.fixed_monotonic_ns};
  }
  return {RealtimeNs(), static_cast<std::int64_t>(monotonic_now)};
}

void TraceWriter::DiscardPending() {
  capped_ = true;
  if (!said_cap_) {
    said_cap_ = true;
    std::fprintf(stderr,
                 "plasmient agent: %s reached its size cap (%llu bytes); further records are counted, "
                 "not written\n",
                 path_.c_str(), static_cast<unsigned long long>(options_.max_bytes));
  }
  sink_.CountDrops(wire::DropSource::kSizeCap, pending_records_ - pending_meta_);
  records_lost_ += pending_records_ - pending_meta_;
  ClearPending();
  for (auto& n : drops_reported_) n = -1;  // the discarded drop records go out again
}

void TraceWriter::WriteChunk(std::uint32_t flags) {
  if (pending_records_ == 0 && (flags & wire::kChunkLast) == 0) return;
  out_.clear();
  encoder_.Encode(pending_.data(), pending_.size(), pending_records_, flags, out_);
  bool last = (flags & wire::kChunkLast) != 0;
  if (!last && options_.max_bytes > 0 && bytes_written_ + out_.size() > options_.max_bytes) {
    DiscardPending();
    return;
  }
  std::uint32_t records = pending_records_ - pending_meta_;
  // A window file that failed once is dropped whole; a whole-run file tries every chunk.
  bool attempt = fd_ >= 0 && !(write_failed_ && options_.windowed);
  if (attempt && WriteAll(out_.data(), out_.size())) {
    records_written_ += pending_records_;
    file_records_ += records;
    bytes_written_ += out_.size();
    good_bytes_ += static_cast<off_t>(out_.size());
  } else {
    if (attempt && !write_failed_) {
      std::fprintf(stderr, "plasmient agent: writing %s failed: %s; %s\n", part_path_.c_str(),
                   strerror(errno),
                   options_.windowed ? "the window is dropped"
                                     : "records are dropped (counted) until a later chunk is written");
      // A windowed file is removed whole: what it held is dropped as well.
      if (options_.windowed)
        sink_.CountDrops(wire::DropSource::kSpool, static_cast<std::int64_t>(file_records_));
    }
    if (attempt) write_failed_ = true;
    if (!options_.windowed && fd_ >= 0) {
      DropFailedChunk(records);
      return;
    }
    records_lost_ += records;
    if (options_.windowed) sink_.CountDrops(wire::DropSource::kSpool, records);
  }
  ClearPending();
}

void TraceWriter::ClearPending() {
  pending_.clear();
  pending_records_ = pending_meta_ = 0;
  resent_records_ = 0;
  resent_bytes_ = 0;
}

void TraceWriter::DropFailedChunk(std::uint32_t records) {
  // A partly written chunk is cut off, so the next one follows the last complete chunk.
  if (::ftruncate(fd_, good_bytes_) != 0 || ::lseek(fd_, good_bytes_, SEEK_SET) != good_bytes_) {
    // Not a regular file: the reader skips a torn chunk by resynchronizing at the next header.
  }
  // What an earlier failed chunk handed on is at the front, already counted as meta.
  std::vector<std::uint8_t> kept(pending_.begin(),
                                 pending_.begin() + static_cast<std::ptrdiff_t>(resent_bytes_));
  std::uint32_t sticky = AppendSticky(pending_.data() + resent_bytes_, pending_.size() - resent_bytes_, kept);
  sink_.CountDrops(wire::DropSource::kSpool, records - sticky);
  records_lost_ += records - sticky;
  resent_records_ += sticky;
  resent_bytes_ = kept.size();
  pending_.swap(kept);
  pending_records_ = pending_meta_ = resent_records_;
  oldest_pending_ns_ = MonotonicNs();
  for (auto& n : drops_reported_) n = -1;  // the lost drop records go out again
  last_clock_sync_ns_ = 0;                 // and a clock pair
}

void TraceWriter::FinishFile() {
  if (!file_open_) return;
  file_open_ = false;
  while (Drain() > 0) {
    if (pending_.size() >= options_.chunk_raw_bytes) WriteChunk(0);
  }
  if (capped_ && pending_records_ > 0) DiscardPending();
  AppendDropsAndClock(true);
  WriteChunk(wire::kChunkLast);
  if (write_failed_ && !options_.windowed) {
    std::fprintf(stderr, "plasmient agent: %s: %llu records not written\n", path_.c_str(),
                 static_cast<unsigned long long>(records_lost_));
  }
  bool written = fd_ >= 0 && !write_failed_;
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  if (!options_.windowed) return;
  if (written && ::rename(part_path_.c_str(), path_.c_str()) != 0) {
    std::fprintf(stderr, "plasmient agent: renaming %s failed: %s; the window is dropped\n",
                 part_path_.c_str(), strerror(errno));
    sink_.CountDrops(wire::DropSource::kSpool, static_cast<std::int64_t>(file_records_));
    written = false;
  }
  if (written) {
    ++files_written_;
    std::copy(std::begin(drops_reported_), std::end(drops_reported_), std::begin(drops_base_));
  } else {
    ::unlink(part_path_.c_str());
    ++files_dropped_;
  }
}

void TraceWriter::Close() {
  if (thread_.joinable()) {
    stop_.store(true, std::memory_order_release);
    thread_.join();
  }
  if (!file_open_) return;
  if (tick_) tick_();
  FinishFile();
}

bool TraceWriter::WriteAll(const std::uint8_t* data, std::size_t size) {
  while (size > 0) {
    ssize_t n = options_.write_fn(fd_, data, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace plasmient::collect
