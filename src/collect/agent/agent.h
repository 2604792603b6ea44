// The agent: one per process, shared by the CUDA injection entry point, the NCCL profiler
// plugin, the cuBLAS interposer and the NVML sampler (all in libplasmient_agent.so).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "collect/agent/agent_config.h"
#include "collect/agent/record_sink.h"
#include "collect/agent/trace_writer.h"
#include "collect/agent/window_schedule.h"

namespace plasmient::collect {

class Agent {
 public:
  // The process's agent, started on first call (configuration from the environment).
  // nullptr when the whole-run trace file cannot be created (one message on stderr); a windowed
  // agent whose spool refuses files carries on, counting what it drops.
  static Agent* Get();
  // The agent if it was started, else nullptr; never starts it.
  static Agent* Peek();
  // Runs once right after the process's agent starts (the .so starts its NVML sampler here).
  static void SetOnStart(void (*on_start)(Agent&));

  Agent(const AgentConfig& config, const SinkOptions& sink_options);
  ~Agent();

  std::string Start();  // opens the file, writes the process record; empty or why not
  // Runs the pre-close hooks (CUPTI flush, sampler stop), then closes the file. Idempotent; a
  // concurrent caller returns once the file is closed.
  void Shutdown();

  RecordSink& sink() { return sink_; }
  const AgentConfig& config() const { return config_; }
  // The whole-run trace file; windowed: the folder the window files go to.
  const std::string& path() const { return path_; }

  // A string id for `text`, interned by content; the string record goes through the ring.
  std::uint32_t Intern(std::string_view text);
  // For strings with a stable address (NCCL's static names): a per-thread pointer cache first.
  std::uint32_t InternStable(const char* text);

  // Called, newest first, before the file is closed.
  void AddPreCloseHook(std::function<void()> hook);
  // Called about every 100 ms on the writer thread.
  void SetWriterTick(std::function<void()> tick);
  // Windowed (config().windowed()): kernel windows also open on request (`plasmient capture`,
  // agent_config.h CaptureRequestPath), polled on the writer thread every tick.
  // `kernel_switch(on)` switches kernel activity collection
  // (CUPTI) on or off. It is called at once with the current state, then on the writer thread
  // at each window's start and end; switched off, it must hand over what was collected (a
  // forced flush) before it returns, so the window's file holds it.
  void SetKernelSwitch(std::function<void(bool on)> kernel_switch);
  // A window's close that waits for its records (CUPTI: kernels launched in the window that the
  // GPU has not run yet). With a drain set, the kernel switch's "off" only stops new records;
  // then `drain(force)` is called on each writer tick, the window's file still open, until it
  // returns true: it has handed over the window's records, or counted those it gave up on. With
  // force (a new file is due) it must finish at once.
  void SetWindowDrain(std::function<bool(bool force)> drain);
  bool kernels_on() const { return kernels_on_.load(std::memory_order_relaxed); }
  // An application thread began a step (a ProfilerStep#N range, IsStepRangeName): lock-free.
  // Windowed, a due window waits for it when steps are visible (window_schedule.h); the writer
  // thread is asked for a tick at once and switches kernels on within its poll (2 ms).
  void OnStepBoundary();
  const TraceWriter& writer() const { return writer_; }

 private:
  AgentConfig config_;
  RecordSink sink_;
  TraceWriter writer_;
  std::string path_;
  std::mutex mutex_;
  std::mutex shutdown_mutex_;
  std::unordered_map<std::string, std::uint32_t> interned_;
  std::vector<std::function<void()>> pre_close_hooks_;
  std::atomic<bool> shut_down_{false};

  void OnWriterTick();  // the user tick, then the duty cycle (windowed)
  std::mutex tick_mutex_;
  std::function<void()> tick_;
  std::function<void(bool)> kernel_switch_;
  std::function<bool(bool)> window_drain_;
  bool draining_ = false;  // a window closed, its file waits for the drain
  std::atomic<bool> kernels_on_{true};
  std::unique_ptr<WindowSchedule> schedule_;  // windowed only; set before the writer starts
  std::uint64_t file_seq_ = 0;
  // On demand (`plasmient capture`): kernels on until then; requests already served.
  void PollCapture(std::uint64_t now_ns);
  std::uint64_t capture_until_ns_ = 0;
  std::int64_t capture_seen_[2] = {0, 0};  // job request, pid request
};

}  // namespace plasmient::collect
