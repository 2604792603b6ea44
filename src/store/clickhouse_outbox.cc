#include "store/clickhouse_outbox.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "base/bounded_name.h"
#include "base/replace_file.h"

namespace plasmient::store {
namespace fs = std::filesystem;

namespace {

constexpr std::string_view kSuffix = ".tsv";
// "<key>.sent": the key's rows reached ClickHouse. A Put of the key after that (the SQLite write
// failed after the outbox file was sent, and the entry was retried) writes nothing, so a job
// reaches the rollups once whatever happens to the SQLite write. Kept a week, far beyond any
// retry: once SQLite journals the key, serve never puts it again.
constexpr std::string_view kSentSuffix = ".sent";
constexpr auto kSentMemory = std::chrono::hours(24 * 7);

// The file name of a job key: keys are hex hashes; anything else is made a file name.
std::string FileStem(std::string_view key) {
  std::string stem(key);
  for (char& c : stem) {
    bool ok =
        (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-' || c == '_';
    if (!ok) c = '_';
  }
  return stem;
}

// A crash leaves at most a "<file>.XXXXXX.part", removed on the next Open; the rename is durable
// before the caller journals the job as done.
Status WriteDurably(const fs::path& path, std::string_view data) {
  return ReplaceFile(path, data, {.mode = 0644, .durable = true, .temp_suffix = ".part"});
}

std::vector<fs::path> ListPending(const fs::path& dir) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (e.path().extension() == kSuffix) files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

ClickHouseOutbox::ClickHouseOutbox(fs::path dir, std::int64_t max_bytes,
                                   std::unique_ptr<ClickHouseStore> store)
    : dir_(std::move(dir)), max_bytes_(max_bytes), store_(std::move(store)) {}

ClickHouseOutbox::~ClickHouseOutbox() { Stop(); }

Status ClickHouseOutbox::Open() {
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (ec) return Fail("{}: cannot create the ClickHouse outbox: {}", dir_.string(), ec.message());
  // A .part file is a write a crash cut short: its analysis was not journaled, and is redone.
  // A file beside its .sent mark was sent, and the run died before removing it.
  auto now = fs::file_time_type::clock::now();
  for (const auto& e : fs::directory_iterator(dir_, ec)) {
    const fs::path& p = e.path();
    if (p.extension() == ".part") fs::remove(p, ec);
    if (p.extension() == kSentSuffix && now - fs::last_write_time(p, ec) > kSentMemory) fs::remove(p, ec);
    if (p.extension() == kSuffix && fs::exists(fs::path(p).replace_extension(kSentSuffix), ec))
      fs::remove(p, ec);
  }
  std::int64_t bytes = 0, files = 0;
  for (const auto& p : ListPending(dir_)) {
    bytes += static_cast<std::int64_t>(fs::file_size(p, ec));
    ++files;
    maybe_sent_.insert(p.filename().string());
  }
  counters_.pending_bytes = bytes;
  counters_.pending_files = files;
  return Ok();
}

std::string ClickHouseOutbox::Serialize(const Batch& batch) {
  std::string out;
  for (const auto& t : Tables()) {
    const auto& rows = batch[t.id];
    if (rows.empty()) continue;
    out += '@';
    out += t.name;
    out += '\n';
    for (const auto& r : rows) {
      for (std::size_t i = 0; i < r.size(); ++i) {
        if (i) out += '\t';
        AppendTsvCell(out, r[i]);
      }
      out += '\n';
    }
  }
  return out;
}

Result<Batch> ClickHouseOutbox::Deserialize(std::string_view text, const std::string& file) {
  Batch b;
  const TableSpec* table = nullptr;
  std::size_t offset = 0;
  while (offset < text.size()) {
    auto nl = text.find('\n', offset);
    if (nl == std::string_view::npos)
      return Fail("{}: byte {}: line without an end (cut short)", file, offset);
    std::string_view line = text.substr(offset, nl - offset);
    if (line.starts_with('@')) {
      table = nullptr;
      for (const auto& t : Tables()) {
        if (t.name == line.substr(1)) table = &t;
      }
      if (!table) return Fail("{}: byte {}: unknown table {}", file, offset, line.substr(1));
    } else {
      Row row;
      if (!table || !ParseTsvRow(line, *table, row)) return Fail("{}: byte {}: malformed row", file, offset);
      b[table->id].push_back(std::move(row));
    }
    offset = nl + 1;
  }
  return b;
}

Result<bool> ClickHouseOutbox::Put(const std::string& job_key, const Batch& batch) {
  std::string data = Serialize(batch);
  auto size = static_cast<std::int64_t>(data.size());
  std::lock_guard lock(mu_);
  std::string stem = FileStem(job_key);
  std::error_code ec;
  if (fs::exists(dir_ / (stem + std::string(kSentSuffix)), ec)) {
    ++counters_.already_sent;  // a retry of a job ClickHouse has: nothing to send again
    return true;
  }
  // One file per key: a retry rewrites it (same name, same rows), never adds a second.
  fs::path path = dir_ / (stem + std::string(kSuffix));
  auto before = static_cast<std::int64_t>(fs::file_size(path, ec));
  bool pending = !ec;
  if (!pending) before = 0;
  if (counters_.pending_bytes - before + size > max_bytes_) {
    ++counters_.overflow_jobs;
    return false;
  }
  PLASMIENT_TRY(WriteDurably(path, data));
  counters_.pending_bytes += size - before;
  if (!pending) ++counters_.pending_files;
  cv_.notify_all();
  return true;
}

Status ClickHouseOutbox::SendSome(std::size_t max_files) {
  std::lock_guard send_lock(send_mu_);
  if (!schema_ready_) {
    auto s = store_->EnsureSchema();
    counters_.reachable = s.has_value();
    if (!s) return s;
    schema_ready_ = true;
  }
  auto files = ListPending(dir_);
  if (files.size() > max_files) files.resize(max_files);
  if (files.empty()) return Ok();
  Batch batch;
  std::vector<std::pair<fs::path, std::int64_t>> sent;
  std::int64_t jobs = 0;
  auto sent_before = ClickHouseStore::Sent::kNever;
  for (const auto& p : files) {
    std::ifstream f(p, std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    std::string text = ss.str();
    auto b = Deserialize(text, p.string());
    if (!b) {  // a torn file cannot come from WriteDurably; set it aside rather than retry forever
      std::error_code ec;
      fs::rename(p, fs::path(p).replace_extension(".bad"), ec);
      continue;
    }
    if (!maybe_sent_.insert(p.filename().string()).second) sent_before = ClickHouseStore::Sent::kMaybe;
    jobs += static_cast<std::int64_t>((*b)[TableId::kJobs].size());
    batch.Append(std::move(*b));
    sent.emplace_back(p, static_cast<std::int64_t>(text.size()));
  }
  auto inserted = store_->Insert(batch, sent_before);
  counters_.reachable = inserted.has_value();
  if (!inserted) {
    ++counters_.send_failures;
    return std::unexpected(inserted.error());
  }
  std::lock_guard lock(mu_);
  for (const auto& [p, bytes] : sent) {
    std::error_code ec;
    // The mark first: a crash between the two leaves both, and Open removes the file.
    if (auto marked =
            ReplaceFile(fs::path(p).replace_extension(kSentSuffix), "", {.mode = 0644, .durable = true});
        !marked) {
      fmt::print(stderr, "plasmient serve: {}\n", EscapeForLog(marked.error().message));
    }
    fs::remove(p, ec);
    maybe_sent_.erase(p.filename().string());
    counters_.pending_bytes -= bytes;
    --counters_.pending_files;
  }
  counters_.sent_jobs += jobs;
  counters_.sent_rows += static_cast<std::int64_t>(*inserted);
  return Ok();
}

Status ClickHouseOutbox::Flush() {
  while (!ListPending(dir_).empty()) PLASMIENT_TRY(SendSome(64));
  return Ok();
}

void ClickHouseOutbox::Start() {
  if (thread_.joinable()) return;
  stop_ = false;
  thread_ = std::thread([this] { Run(); });
}

void ClickHouseOutbox::Stop() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void ClickHouseOutbox::Run() {
  using namespace std::chrono_literals;
  auto delay = 200ms;
  bool was_failing = false;
  while (true) {
    {
      std::unique_lock lock(mu_);
      cv_.wait_for(lock, delay, [&] { return stop_ || (counters_.pending_files > 0 && delay <= 200ms); });
      if (stop_) return;
    }
    if (counters_.pending_files == 0 && schema_ready_) {
      delay = 200ms;
      continue;
    }
    auto s = SendSome(64);
    if (s) {
      if (was_failing)
        fmt::print(stderr, "plasmient serve: ClickHouse reachable again; sending the outbox\n");
      was_failing = false;
      delay = 200ms;
    } else {
      if (!was_failing)
        fmt::print(stderr, "plasmient serve: {}; keeping rows in the outbox and retrying\n",
                   EscapeForLog(s.error().message));
      was_failing = true;
      delay = std::min<std::chrono::milliseconds>(delay * 2, 5000ms);
    }
  }
}

}  // namespace plasmient::store
