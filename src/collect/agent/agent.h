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

namespace plasmient::collect {

class Agent {
 public:
  // The process's agent, started on first call (configuration from the environment).
  // nullptr when the trace file cannot be created (one message on stderr).
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
  const std::string& path() const { return path_; }

  // A string id for `text`, interned by content; the string record goes through the ring.
  std::uint32_t Intern(std::string_view text);
  // For strings with a stable address (NCCL's static names): a per-thread pointer cache first.
  std::uint32_t InternStable(const char* text);

  // Called, newest first, before the file is closed.
  void AddPreCloseHook(std::function<void()> hook);
  // Called about every 100 ms on the writer thread.
  void SetWriterTick(std::function<void()> tick) { writer_.SetTick(std::move(tick)); }

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
};

}  // namespace plasmient::collect
