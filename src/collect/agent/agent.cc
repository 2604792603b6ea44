#include "collect/agent/agent.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <future>
#include <thread>

#include "collect/agent/clock.h"

namespace plasmient::collect {
namespace {

std::atomic<Agent*> g_agent{nullptr};
std::atomic<void (*)(Agent&)> g_on_start{nullptr};
std::once_flag g_once;
struct sigaction g_previous[2];
constexpr int kSignals[2] = {SIGINT, SIGTERM};
constexpr auto kSignalFlushLimit = std::chrono::seconds(2);

// Signal hand-off: the handler only writes the signal number into a pipe (async-signal-safe);
// the agent's signal thread reads it, closes the trace, restores the previous disposition and
// sends the signal again. The process keeps running meanwhile, so a signal that interrupted
// malloc, CUPTI or the agent's own locks cannot deadlock the close.
std::atomic<int> g_signal_pipe_write{-1};
std::atomic<pid_t> g_agent_pid{0};
std::atomic<bool> g_signal_pending{false};

void AtExit() {
  if (Agent* a = Agent::Peek()) a->Shutdown();
}

void Reraise(int sig) {
  int i = sig == SIGINT ? 0 : 1;
  sigaction(sig, &g_previous[i], nullptr);
  kill(getpid(), sig);
}

// SIGINT/SIGTERM: when the previous disposition would end the process, have the signal thread
// write out what we have first, then let it. When the application handles the signal itself,
// leave the trace open: it may carry on, and atexit closes the file later.
void OnSignal(int sig, siginfo_t* info, void* ucontext) {
  int i = sig == SIGINT ? 0 : 1;
  const struct sigaction& prev = g_previous[i];
  if (prev.sa_flags & SA_SIGINFO) {
    if (prev.sa_sigaction != nullptr) prev.sa_sigaction(sig, info, ucontext);
    return;
  }
  if (prev.sa_handler == SIG_IGN) return;
  if (prev.sa_handler != SIG_DFL) {
    prev.sa_handler(sig);
    return;
  }
  int saved_errno = errno;
  int fd = g_signal_pipe_write.load();
  // A forked child, or a second signal while the first is being handled: end now.
  if (fd < 0 || g_agent_pid.load() != getpid() || g_signal_pending.exchange(true)) {
    Reraise(sig);
    errno = saved_errno;
    return;
  }
  unsigned char byte = static_cast<unsigned char>(sig);
  if (write(fd, &byte, 1) != 1) Reraise(sig);
  errno = saved_errno;
}

// Closes the trace (bounded by kSignalFlushLimit), then re-sends the signal with the previous
// disposition restored.
void SignalThread(int read_fd) {
  for (;;) {
    unsigned char byte = 0;
    ssize_t n = read(read_fd, &byte, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n != 1) return;
    int sig = byte;
    if (Agent* a = Agent::Peek()) {
      auto done = std::make_shared<std::promise<void>>();
      std::future<void> closed = done->get_future();
      std::thread([a, done] {
        a->Shutdown();
        done->set_value();
      }).detach();
      closed.wait_for(kSignalFlushLimit);
    }
    Reraise(sig);
    return;
  }
}

void InstallSignalHandlers() {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return;  // no hand-off: leave the application's signals alone
  // The signal thread never takes the signals itself: they go to the application's threads.
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  std::thread(SignalThread, fds[0]).detach();
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  g_agent_pid.store(getpid());
  g_signal_pipe_write.store(fds[1]);
  for (int i = 0; i < 2; ++i) {
    struct sigaction sa;
    std::memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = OnSignal;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(kSignals[i], &sa, &g_previous[i]);
  }
}

// getpid() is a system call; GEMM calls ask on every call. Cached, and refreshed in children.
std::atomic<std::int64_t> g_pid{0};

void RefreshPid() { g_pid.store(static_cast<std::int64_t>(getpid()), std::memory_order_relaxed); }

std::int64_t CurrentPid() {
  std::int64_t pid = g_pid.load(std::memory_order_relaxed);
  if (pid != 0) return pid;
  static std::once_flag once;
  std::call_once(once, [] { pthread_atfork(nullptr, nullptr, &RefreshPid); });
  RefreshPid();
  return g_pid.load(std::memory_order_relaxed);
}

std::string HostName() {
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0) return "unknown-host";
  return host;
}

}  // namespace

Agent* Agent::Get() {
  std::call_once(g_once, [] {
    AgentConfig config =
        ConfigFromEnv([](const char* n) { return std::getenv(n); }, CurrentPid(), HostName());
    auto* agent = new Agent(config, SinkOptions{});  // lives until the process ends
    std::string why = agent->Start();
    if (!why.empty()) {
      std::fprintf(stderr, "plasmient agent: %s; not collecting\n", why.c_str());
      delete agent;
      return;
    }
    g_agent.store(agent, std::memory_order_release);
    std::atexit(AtExit);
    InstallSignalHandlers();
    if (auto on_start = g_on_start.load()) on_start(*agent);
  });
  return Peek();
}

void Agent::SetOnStart(void (*on_start)(Agent&)) { g_on_start.store(on_start); }

// A forked child inherits the parent's agent object but not its writer thread; it must not
// write into the parent's file. It gets no agent (its own process gets one only via exec).
Agent* Agent::Peek() {
  Agent* a = g_agent.load(std::memory_order_acquire);
  return a != nullptr && a->config_.pid == CurrentPid() ? a : nullptr;
}

Agent::Agent(const AgentConfig& config, const SinkOptions& sink_options)
    : config_(config),
      sink_(sink_options),
      writer_(sink_,
              WriterOptions{config.zstd_level, 1 << 20, 200'000'000, 5'000'000'000,
                            static_cast<std::uint64_t>(config.max_trace_mb) << 20, config.windowed()}) {}

Agent::~Agent() { Shutdown(); }

namespace {
std::uint64_t Ns(double seconds) { return static_cast<std::uint64_t>(seconds * 1e9); }
std::uint32_t WindowFlags(bool kernels) {
  return wire::kFileWindow | (kernels ? std::uint32_t{wire::kFileKernels} : 0u);
}
}  // namespace

std::string Agent::Start() {
  writer_.SetTick([this] { OnWriterTick(); });
  if (config_.windowed()) {
    std::uint64_t now = MonotonicNs();
    schedule_ = std::make_unique<WindowSchedule>(now, Ns(config_.window_s), Ns(config_.period_s));
    if (config_.phase_on_wall_clock)
      schedule_->PhaseOnRealtime(RealtimeNs() - static_cast<std::int64_t>(now));
    kernels_on_.store(schedule_->kernels_on());
    path_ = config_.spool.empty() ? config_.out_dir : config_.spool;
    writer_.Open(WindowFilePath(config_, file_seq_),
                 /*start_thread=*/true, WindowFlags(kernels_on()));
  } else {
    path_ = TraceFilePath(config_);
    std::string why = writer_.Open(path_);
    if (!why.empty()) return why;
  }
  wire::ProcessRecord p{};
  p.header = wire::HeaderFor<wire::ProcessRecord>(wire::RecordKind::kProcess);
  p.pid = config_.pid;
  p.rank = config_.rank;
  p.local_rank = config_.local_rank;
  p.world_size = config_.world_size;
  p.host_id = Intern(config_.host);
  p.job_id = Intern(config_.job_id);
  p.command_id = 0;
  if (FILE* f = std::fopen("/proc/self/comm", "r")) {
    char comm[64] = {};
    if (std::fgets(comm, sizeof comm, f) != nullptr) {
      comm[std::strcspn(comm, "\n")] = '\0';
      p.command_id = Intern(comm);
    }
    std::fclose(f);
  }
  p.start_realtime_ns = RealtimeNs();
  p.start_monotonic_ns = static_cast<std::int64_t>(MonotonicNs());
  sink_.PushSmall(p);
  return {};
}

void Agent::Shutdown() {
  if (config_.pid != CurrentPid()) return;  // inherited across fork
  // A second caller (exit during a signal-driven close) waits until the file is closed.
  std::lock_guard<std::mutex> closing(shutdown_mutex_);
  if (shut_down_.exchange(true)) return;
  std::vector<std::function<void()>> hooks;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    hooks.swap(pre_close_hooks_);
  }
  for (auto it = hooks.rbegin(); it != hooks.rend(); ++it) (*it)();
  writer_.Close();
}

std::uint32_t Agent::Intern(std::string_view text) {
  if (text.empty()) return 0;
  std::lock_guard<std::mutex> lock(mutex_);
  auto [it, inserted] = interned_.try_emplace(std::string(text), 0);
  if (inserted) {
    it->second = sink_.NewStringId();
    sink_.PushString(it->second, text);
  }
  return it->second;
}

std::uint32_t Agent::InternStable(const char* text) {
  if (text == nullptr || *text == '\0') return 0;
  thread_local std::unordered_map<const char*, std::uint32_t> cache;
  auto it = cache.find(text);
  if (it != cache.end()) return it->second;
  std::uint32_t id = Intern(text);
  cache.emplace(text, id);
  return id;
}

void Agent::SetWriterTick(std::function<void()> tick) {
  std::lock_guard<std::mutex> lock(tick_mutex_);
  tick_ = std::move(tick);
}

void Agent::SetKernelSwitch(std::function<void(bool on)> kernel_switch) {
  std::lock_guard<std::mutex> lock(tick_mutex_);
  kernel_switch_ = std::move(kernel_switch);
  if (kernel_switch_) kernel_switch_(kernels_on());
}

void Agent::SetWindowDrain(std::function<bool(bool force)> drain) {
  std::lock_guard<std::mutex> lock(tick_mutex_);
  window_drain_ = std::move(drain);
}

void Agent::PollCapture(std::uint64_t now_ns) {
  const std::string spool = config_.spool.empty() ? config_.out_dir : config_.spool;
  const std::string paths[2] = {CaptureRequestPath(spool, config_.job_id),
                                CaptureRequestPath(spool, config_.pid)};
  for (int i = 0; i < 2; ++i) {
    CaptureRequest r = ReadCaptureRequest(paths[i]);
    if (r.id == 0 || r.id == capture_seen_[i]) continue;
    capture_seen_[i] = r.id;
    // A request older than its own length (left behind) is over.
    std::int64_t age_ns = RealtimeNs() - r.id;
    std::uint64_t length_ns = Ns(r.seconds);
    if (age_ns < 0 || static_cast<std::uint64_t>(age_ns) >= length_ns) continue;
    capture_until_ns_ = std::max(capture_until_ns_, now_ns + length_ns - static_cast<std::uint64_t>(age_ns));
  }
}

void Agent::OnWriterTick() {
  std::lock_guard<std::mutex> lock(tick_mutex_);
  if (tick_) tick_();
  if (!schedule_) return;
  std::uint64_t mono = MonotonicNs();
  if (config_.phase_on_wall_clock) schedule_->PhaseOnRealtime(RealtimeNs() - static_cast<std::int64_t>(mono));
  PollCapture(mono);
  using Action = WindowSchedule::Action;
  Action action = schedule_->Tick(mono, capture_until_ns_);
  // A closed window's file stays open until its last records are in (or given up on); a new
  // file due meanwhile ends the wait at once.
  if (draining_ && (action != Action::kNone || window_drain_(false))) {
    if (action != Action::kNone) window_drain_(true);
    draining_ = false;
    writer_.Rotate(WindowFilePath(config_, ++file_seq_), WindowFlags(false));
  }
  // A window ends: its records reach the sink before its file is completed. One starts: its
  // file is opened before collection begins.
  if (action == Action::kClose) {
    if (kernel_switch_) kernel_switch_(false);
    kernels_on_.store(false);
    draining_ = static_cast<bool>(window_drain_);
  }
  if (action == Action::kArm || action == Action::kOpen || action == Action::kRenew ||
      (action == Action::kClose && !draining_))
    writer_.Rotate(WindowFilePath(config_, ++file_seq_), WindowFlags(action != Action::kClose));
  if (action == Action::kOpen || action == Action::kOpenArmed) {
    kernels_on_.store(true);
    if (kernel_switch_) kernel_switch_(true);
  }
}

void Agent::OnStepBoundary() {
  if (!schedule_ || config_.pid != CurrentPid()) return;  // a forked child has no writer thread
  schedule_->NoteStep(MonotonicNs());
  if (schedule_->armed()) writer_.RequestTick();
}

void Agent::AddPreCloseHook(std::function<void()> hook) {
  std::lock_guard<std::mutex> lock(mutex_);
  pre_close_hooks_.push_back(std::move(hook));
}

}  // namespace plasmient::collect
