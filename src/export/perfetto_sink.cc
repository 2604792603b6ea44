#include "export/perfetto_sink.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <set>

#include <fmt/format.h>

#include "export/json_writer.h"
#include "export/perfetto_tracks.h"
#include "ingest/own_outputs.h"

namespace plasmient::exporting {

struct PerfettoSink::Line {
  std::int64_t pid = 0;
  std::int64_t step = kAnyStep;  // kAnyStep: metadata, kept whatever the step filter
  TimeNs ts_ns = kNoTime;        // kNoTime: metadata, written as ts 0
  std::string rest;              // the event's JSON after `{"ts":…,`
};

namespace {

constexpr std::size_t kFlushBytes = 1 << 20;

// Exact microseconds from nanoseconds: "-12.345".
void AppendMicros(std::string& out, TimeNs ns) {
  if (ns < 0) out.push_back('-');
  std::uint64_t a = ns < 0 ? static_cast<std::uint64_t>(-(ns + 1)) + 1 : static_cast<std::uint64_t>(ns);
  fmt::format_to(std::back_inserter(out), "{}.{:03}", a / 1000, a % 1000);
}

TimeNs OffsetNs(const std::unordered_map<std::int64_t, double>& offsets, std::int64_t pid) {
  auto it = offsets.find(pid);
  return it == offsets.end() ? 0 : SecondsToNearestNs(it->second);
}

std::set<std::int64_t> WorstSteps(std::vector<std::pair<double, std::int64_t>> achieved_by_step,
                                  std::size_t n) {
  std::sort(achieved_by_step.begin(), achieved_by_step.end());
  std::set<std::int64_t> keep;
  for (std::size_t i = 0; i < std::min(n, achieved_by_step.size()); ++i)
    keep.insert(achieved_by_step[i].second);
  return keep;
}

}  // namespace

Result<std::unique_ptr<PerfettoSink>> PerfettoSink::Create(PerfettoOptions options) {
  std::unique_ptr<PerfettoSink> sink(new PerfettoSink(std::move(options)));
  const std::string& path = sink->options_.path;
  auto out = OutputFile::Open(path);
  if (!out) return Fail("{} (the Perfetto trace)", out.error().message);
  sink->out_ = sink->out_file_.emplace(std::move(*out)).get();
  if (!sink->options_.clock_offset_s) {
    sink->spool_path_ = path + ".spool";
    sink->spool_ = std::fopen(sink->spool_path_.c_str(), "wb+");
    if (sink->spool_ == nullptr) {
      return Fail("{}: cannot write the Perfetto spool: {}", sink->spool_path_, std::strerror(errno));
    }
  }
  // The producer first: fed back to `analyze`, the file is known for what it is from its head.
  sink->out_buffer_ = ingest::kPerfettoOutputHead;
  sink->out_buffer_ += R"("displayTimeUnit":"ns","traceEvents":[)";
  sink->out_buffer_ += '\n';
  return sink;
}

PerfettoSink::PerfettoSink(PerfettoOptions options) : options_(std::move(options)) {}

PerfettoSink::~PerfettoSink() {
  if (spool_ != nullptr) {
    std::fclose(spool_);
    std::remove(spool_path_.c_str());
  }
}

void PerfettoSink::Flush(std::FILE* f, std::string& buffer) {
  if (!buffer.empty() && std::fwrite(buffer.data(), 1, buffer.size(), f) != buffer.size())
    write_failed_ = true;
  if (f == out_) stats_.bytes += static_cast<std::int64_t>(buffer.size());
  buffer.clear();
}

void PerfettoSink::WriteEvent(std::int64_t pid, TimeNs ts_ns, std::string_view rest) {
  if (!first_event_) out_buffer_ += ",\n";
  first_event_ = false;
  out_buffer_ += R"({"ts":)";
  if (ts_ns == kNoTime) {
    out_buffer_ += '0';
  } else {
    AppendMicros(out_buffer_, ts_ns);
  }
  out_buffer_ += ',';
  out_buffer_ += rest;
  ++stats_.events;
  if (out_buffer_.size() >= kFlushBytes) Flush(out_, out_buffer_);
}

void PerfettoSink::Emit(const Line& line) {
  if (spool_ != nullptr) {
    fmt::format_to(std::back_inserter(spool_buffer_), "{} {} {} {}\n", line.pid, line.step, line.ts_ns,
                   line.rest);
    if (spool_buffer_.size() >= kFlushBytes) Flush(spool_, spool_buffer_);
    return;
  }
  // Direct mode: the offsets are known (Create) and OnRank has set the origin.
  const auto& offsets = options_.clock_offset_s;
  TimeNs ts = line.ts_ns == kNoTime || !offsets || !origin_ns_
                  ? kNoTime
                  : line.ts_ns - OffsetNs(*offsets, line.pid) - *origin_ns_;
  WriteEvent(line.pid, ts, line.rest);
}

void PerfettoSink::OnRank(const verdict::RankDetail& d) {
  const std::int64_t pid = d.verdict.rank >= 0 ? d.verdict.rank : ranks_seen_;
  ++ranks_seen_;
  RankTracks tracks(d, pid, TrackOptions{options_.bucket_ns, options_.max_buckets});
  TimeNs first_ns = tracks.EarliestNs();

  std::set<std::int64_t> keep;  // direct mode with worst_steps: this rank's worst steps
  if (spool_ != nullptr) {
    auto [it, fresh] = rank_first_ns_.try_emplace(pid, first_ns);
    if (!fresh) it->second = std::min(it->second, first_ns);
    for (const auto& s : d.verdict.steps) step_figures_[s.number].Add(s.figures);
  } else {
    const auto& offsets = options_.clock_offset_s;  // known in direct mode (Create)
    if (!origin_ns_ && offsets) origin_ns_ = first_ns - OffsetNs(*offsets, pid);
    std::vector<std::pair<double, std::int64_t>> by_step;
    by_step.reserve(d.verdict.steps.size());
    for (const auto& s : d.verdict.steps) by_step.emplace_back(s.figures.achieved(), s.number);
    keep = WorstSteps(std::move(by_step), options_.worst_steps);
  }

  Line line;
  line.pid = pid;
  tracks.Build([&](std::int64_t step, TimeNs ts_ns, std::string rest) {
    bool filtered = spool_ == nullptr && options_.worst_steps > 0 && step != kAnyStep && !keep.contains(step);
    if (filtered) {
      ++stats_.dropped;
      return;
    }
    line.step = step;
    line.ts_ns = ts_ns;
    line.rest = std::move(rest);
    Emit(line);
  });
}

Result<PerfettoStats> PerfettoSink::Finish(const std::unordered_map<std::int64_t, double>& offsets) {
  if (spool_ != nullptr) {
    Flush(spool_, spool_buffer_);
    std::set<std::int64_t> keep;
    if (options_.worst_steps > 0) {
      std::vector<std::pair<double, std::int64_t>> by_step;
      by_step.reserve(step_figures_.size());
      for (auto& [number, f] : step_figures_) by_step.emplace_back(f.achieved(), number);
      keep = WorstSteps(std::move(by_step), options_.worst_steps);
      stats_.kept_steps.assign(keep.begin(), keep.end());
    }
    TimeNs origin = std::numeric_limits<TimeNs>::max();
    for (auto [pid, first] : rank_first_ns_) origin = std::min(origin, first - OffsetNs(offsets, pid));
    std::fflush(spool_);
    std::ifstream in(spool_path_, std::ios::binary);
    std::string text;
    while (std::getline(in, text)) {
      std::int64_t pid = 0, step = 0;
      TimeNs ts = 0;
      int used = 0;
      if (std::sscanf(text.c_str(), "%ld %ld %ld %n", &pid, &step, &ts, &used) != 3) {
        write_failed_ = true;
        break;
      }
      if (options_.worst_steps > 0 && step != kAnyStep && !keep.contains(step)) {
        ++stats_.dropped;
        continue;
      }
      WriteEvent(pid, ts == kNoTime ? kNoTime : ts - OffsetNs(offsets, pid) - origin,
                 std::string_view(text).substr(static_cast<std::size_t>(used)));
    }
    std::fclose(spool_);
    spool_ = nullptr;
    std::remove(spool_path_.c_str());
  }
  out_buffer_ += "\n]}\n";
  Flush(out_, out_buffer_);
  out_ = nullptr;
  // A failed write to the spool leaves out_ short too: not put at the path.
  const bool written = !write_failed_ && out_file_;
  Status committed = written ? out_file_->Commit() : Status();
  out_file_.reset();
  if (!written || !committed)
    return Fail("{}: writing the Perfetto trace failed (disk full?)", options_.path);
  return stats_;
}

}  // namespace plasmient::exporting
