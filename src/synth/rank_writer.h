// One rank's simulated items as the events a profiler records of them (ops with their shapes,
// runtime calls, GPU activity, module and step ranges), and the GPU activity intervals the truth
// calculator needs. A trace format derives from it and writes the events: KinetoRankWriter (the
// PyTorch profiler's JSON), NativeRankWriter (the agent's native files). Holds one rank at a time.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/result.h"
#include "synth/gpu_table.h"
#include "synth/rank_simulator.h"
#include "synth/synth_config.h"
#include "synth/truth_calculator.h"

namespace plasmient::synth {

// Base of the trace clock: ts (us) = (true_ns + clock offset) / 1000 relative to it.
inline constexpr std::int64_t kBaseTimeNanoseconds = 1767189312000000000;
inline constexpr TimeNs kTraceOriginNs = 1'234'567'890'000'000;
inline constexpr int kRankPidBase = 2'100'000;  // rank r runs as process kRankPidBase + r

struct RankFileInfo {
  int rank = 0;
  int world = 1;
  TimeNs clock_offset_ns = 0;  // written ts = true time + offset
  std::string path;
  bool capture = false;  // the trace of the graph's capture, not of its replays (IsGraphed scenarios)
};

// A host range as the profiler records it: an op ("cpu_op") or an annotation ("user_annotation").
struct HostRange {
  std::string_view cat, name;
  TimeNs start_ns = 0, end_ns = 0;  // true clock
  const Item* shapes = nullptr;     // the op records its arguments (AppendShapeArgs)
  std::string_view raw_args;        // or these, already spelled as Kineto args
  std::int64_t sequence_number = -1;
  std::int64_t forward_thread = -1;  // "Fwd thread id" of an op with a sequence number
  const SimEvent* comm = nullptr;    // record_param_comms of this communication
  std::int64_t external_id = 0;
};

// A runtime or driver call.
struct RuntimeCall {
  std::string_view cat, name;  // "cuda_runtime" or "cuda_driver"
  int cbid = 0;
  TimeNs start_ns = 0, end_ns = 0;
  std::int64_t correlation = 0, external_id = 0;  // 0: no external id
};

class RankWriter : public SimSink {
 public:
  RankWriter(const SynthConfig& config, const GpuSpec& gpu, RankFileInfo info);

  virtual Status Open() = 0;
  void OnItem(const SimEvent& event) override;
  void OnProgramEnd(const Program& program, TimeNs cpu_ns) override;
  virtual Status Finish() = 0;
  // First write error seen while streaming (OnItem cannot return one).
  const Status& status() const { return status_; }
  virtual std::int64_t bytes_written() const = 0;

  const std::vector<TruthActivity>& activities() const { return activities_; }
  const std::vector<std::string>& kernel_names() const { return kernel_names_; }
  const std::vector<std::vector<std::string>>& layer_types() const { return layer_types_; }
  const std::vector<HostStallTruth>& stalls() const { return stalls_; }

 protected:
  // What a format writes.
  virtual void WriteRange(const HostRange& range) = 0;
  virtual void WriteRuntime(const RuntimeCall& call) = 0;
  // The launch-to-kernel flow arrows (Kineto only).
  virtual void WriteFlows(std::int64_t correlation, TimeNs launch_ns, TimeNs gpu_ns, int stream) = 0;
  virtual void WriteGpu(const SimEvent& ev, std::string_view name, std::int64_t correlation,
                        std::int64_t external_id) = 0;
  // An nn.Module's forward call ("nn.Module: X") or another annotation around ops.
  virtual void WriteModuleRange(std::string_view name, TimeNs start, TimeNs end) = 0;
  virtual Status MaybeFlush() = 0;
  // Step `step` (its ProfilerStep#N number) begins on the CPU at `start_ns`, before any of its
  // events; it has ended at `end_ns` once all of them are written.
  virtual void StepBegins(int /*step*/, TimeNs /*start_ns*/) {}
  virtual void StepEnded(TimeNs /*end_ns*/) {}

  // Records a host range with a new external id; returns the id.
  std::int64_t Range(HostRange range);
  int StreamId(int slot) const;
  // The class of the GPU activity an item makes (the truth calculator's).
  static ActivityClass ClassOf(OpKind kind);

  const SynthConfig& config_;
  const GpuSpec& gpu_;
  RankFileInfo info_;
  Status status_;
  int pid_ = 0;
  int tid_ = 0;
  int device_ = 0;
  std::string group_ranks_;  // "[0, 1, ...]"
  TimeNs step_start_ns_ = 0;

 private:
  void GpuActivity(const SimEvent& ev, std::string_view name, std::int64_t correlation,
                   std::int64_t external_id);
  // Graphed scenarios: a compute kernel is a node of the step's graph. The replay trace has one
  // graph launch per run of consecutive nodes and their kernels, with no op or module around them;
  // the capture trace has the nodes' ops, modules and launches between a capture's begin and end,
  // and no GPU activity.
  enum class GraphMode : std::uint8_t { kEager, kReplay, kCapture };
  static bool IsGraphNode(const Item& item);
  void ReplayNode(const SimEvent& ev);
  void Capturing(const SimEvent& ev, bool open);
  void CloseModules(std::size_t keep);
  void OpenModules(const SimEvent& ev);
  std::uint32_t LayerIndex(const Program& program, const Item& item);
  std::uint32_t NameIndex(std::string_view name);

  std::vector<HostStallTruth> stalls_;
  GraphMode graph_mode_ = GraphMode::kEager;
  bool graph_open_ = false;  // replay: a graph launch's kernels are being written; capture: inside one
  std::int64_t graph_correlation_ = 0;
  std::int64_t next_correlation_ = 1000;
  std::int64_t next_external_id_ = 1;
  // The open module ranges (outermost first).
  struct OpenModule {
    std::int16_t module;
    std::string name;
    TimeNs start_ns, end_ns;
  };
  std::vector<OpenModule> open_modules_;
  const Program* module_program_ = nullptr;
  // Per layer index (TruthActivity::layer): the types an activity under it counts for.
  std::vector<std::vector<std::string>> layer_types_;
  std::unordered_map<std::string, std::uint32_t> layer_index_;
  std::vector<TruthActivity> activities_;
  std::vector<std::string> kernel_names_;
  std::unordered_map<std::string_view, std::uint32_t> name_index_;
};

}  // namespace plasmient::synth
