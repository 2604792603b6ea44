#include "serve/serve_pool.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <set>

#include <fmt/format.h>

#include "base/replace_file.h"

namespace plasmient::serve {
namespace fs = std::filesystem;

std::vector<std::size_t> FairOrder(const std::vector<std::string>& jobs,
                                   const std::map<std::string, std::uint64_t>& last_turn) {
  // Each job's entries, oldest first, in the order of the job's oldest entry.
  std::vector<std::string_view> order;
  std::map<std::string_view, std::deque<std::size_t>> waiting;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    auto& q = waiting[jobs[i]];
    if (q.empty() && std::find(order.begin(), order.end(), jobs[i]) == order.end()) order.push_back(jobs[i]);
    q.push_back(i);
  }
  // (turn, rank of the job's oldest entry) → job: the smallest goes next, then takes a new turn.
  std::set<std::pair<std::uint64_t, std::size_t>> next;
  std::uint64_t turn = 0;
  for (std::size_t r = 0; r < order.size(); ++r) {
    auto it = last_turn.find(std::string(order[r]));
    std::uint64_t t = it == last_turn.end() ? 0 : it->second;
    turn = std::max(turn, t);
    next.emplace(t, r);
  }
  std::vector<std::size_t> out;
  out.reserve(jobs.size());
  while (!next.empty()) {
    auto [t, r] = *next.begin();
    next.erase(next.begin());
    auto& q = waiting[order[r]];
    out.push_back(q.front());
    q.pop_front();
    if (!q.empty()) next.emplace(++turn, r);
  }
  return out;
}

WorkerPool::WorkerPool(int workers, std::size_t max_queued, const std::function<void()>& thread_setup)
    : max_queued_(max_queued) {
  for (int w = 0; w < std::max(1, workers); ++w) {
    threads_.emplace_back([this, w, thread_setup] { Run(w, thread_setup); });
  }
}

WorkerPool::~WorkerPool() { Shutdown(); }

bool WorkerPool::TrySubmit(Task task) {
  {
    std::lock_guard lock(mu_);
    if (stopping_ || queue_.size() >= max_queued_) return false;
    queue_.push_back(std::move(task));
  }
  cv_.notify_one();
  return true;
}

void WorkerPool::Shutdown() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
    queue_.clear();
  }
  cv_.notify_all();
  for (auto& t : threads_) {
    if (t.joinable()) t.join();
  }
}

int WorkerPool::busy() const {
  std::lock_guard lock(mu_);
  return busy_;
}

std::size_t WorkerPool::queued() const {
  std::lock_guard lock(mu_);
  return queue_.size();
}

void WorkerPool::Run(int worker, const std::function<void()>& thread_setup) {
  if (thread_setup) thread_setup();
  while (true) {
    Task task;
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (stopping_) return;
      task = std::move(queue_.front());
      queue_.pop_front();
      ++busy_;
    }
    task(worker);
    std::lock_guard lock(mu_);
    --busy_;
  }
}

namespace {

std::string Escape(std::string_view name) {
  std::string out;
  for (char c : name) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string Unescape(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 1 < text.size()) {
      ++i;
      out += text[i] == 'n' ? '\n' : text[i];
    } else {
      out += text[i];
    }
  }
  return out;
}

}  // namespace

void InProgressMarks::Load() {
  crashed_.clear();
  int fd = ::open(path_.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return;
  std::string text;
  char buf[1 << 14];
  // Bounded: a few lines per worker are expected; anything beyond 1 MiB is not ours.
  while (text.size() < (1u << 20)) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  for (std::size_t at = 0; at < text.size();) {
    std::size_t end = std::min(text.find('\n', at), text.size());
    std::string_view line(text.data() + at, end - at);
    at = end + 1;
    std::size_t space = line.find(' ');
    if (space == std::string_view::npos) continue;
    int attempts = 0;
    for (char c : line.substr(0, space)) {
      if (c < '0' || c > '9' || attempts > 1000) {
        attempts = -1;
        break;
      }
      attempts = attempts * 10 + (c - '0');
    }
    if (attempts <= 0) continue;
    crashed_[Unescape(line.substr(space + 1))] = attempts;
  }
}

int InProgressMarks::CrashedAttempts(const std::string& name) const {
  auto it = crashed_.find(name);
  return it == crashed_.end() ? 0 : it->second;
}

Status InProgressMarks::Mark(const std::string& name) {
  marked_[name] = CrashedAttempts(name) + 1;
  crashed_.erase(name);
  return Write();
}

void InProgressMarks::Unmark(const std::string& name) {
  marked_.erase(name);
  crashed_.erase(name);
}

void InProgressMarks::KeepCrashedOnly(const std::vector<std::string>& ready) {
  std::set<std::string_view> here(ready.begin(), ready.end());
  std::erase_if(crashed_, [&](const auto& kv) { return !here.contains(kv.first); });
}

Status InProgressMarks::Write() const {
  std::string text;
  for (const auto* marks : {&crashed_, &marked_}) {
    for (const auto& [name, attempts] : *marks) text += fmt::format("{} {}\n", attempts, Escape(name));
  }
  return ReplaceFile(path_, text, {.mode = 0600, .durable = true, .temp_suffix = ".tmp"});
}

void LowerThreadPriority() {
  auto tid = static_cast<id_t>(::syscall(SYS_gettid));
  errno = 0;
  int now = ::getpriority(PRIO_PROCESS, tid);
  if (errno == 0) ::setpriority(PRIO_PROCESS, tid, std::min(19, now + kAnalysisNice));
}

}  // namespace plasmient::serve
