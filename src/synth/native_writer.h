// Streams one rank's simulated items to the agent's native files through the agent's own writer
// (collect/agent/trace_writer.h): what the agent would have recorded of the same run — CUPTI
// kernels, copies, runtime calls and external correlations, the ops with their shapes
// (wire::OpRecord), annotation ranges for modules, steps and NVTX ranges, NCCL collectives —
// and the device tier: GPM/NVML samples derived from the GPU timeline. One whole-run file, or
// the agent's duty cycle: kernel windows and the stretches between them (docs/synth.md).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "base/result.h"
#include "synth/rank_writer.h"

namespace plasmient::collect {
class RecordSink;
class BlockProducer;
class TraceWriter;
}  // namespace plasmient::collect

namespace plasmient::synth {

// The agent's whole-run file name of `rank`: plasmient.rank<R>.<host>.<pid>.pltrace.
std::string NativeRankFileName(const SynthConfig& config, int rank);

// One file a windowed rank wrote: a kernel window or a stretch of samples between windows.
struct NativeFile {
  std::string name;        // relative to the job folder
  bool kernels = false;    // a kernel window
  std::vector<int> steps;  // the steps (ProfilerStep#N numbers) whose activity it holds
};

class NativeRankWriter final : public RankWriter {
 public:
  NativeRankWriter(const SynthConfig& config, const GpuSpec& gpu, RankFileInfo info);
  ~NativeRankWriter() override;

  Status Open() override;
  Status Finish() override;
  std::int64_t bytes_written() const override { return bytes_written_; }
  // Windowed: every file written, in order.
  const std::vector<NativeFile>& files() const { return files_; }

 private:
  void WriteRange(const HostRange& range) override;
  void WriteRuntime(const RuntimeCall& call) override;
  void WriteFlows(std::int64_t, TimeNs, TimeNs, int) override {}  // no such records
  void WriteGpu(const SimEvent& ev, std::string_view name, std::int64_t correlation,
                std::int64_t external_id) override;
  void WriteModuleRange(std::string_view name, TimeNs start, TimeNs end) override;
  Status MaybeFlush() override;
  void StepBegins(int step, TimeNs start_ns) override;
  void StepEnded(TimeNs end_ns) override;

  template <typename T>
  void Add(const T& record);
  std::uint32_t Intern(std::string_view text);
  std::uint64_t Clock(TimeNs true_ns) const;  // the rank's monotonic clock
  void WriteCollective(const SimEvent& ev);
  void SampleActivity(const Item& item, TimeNs start_ns, TimeNs end_ns);
  void WriteSamplesBefore(TimeNs t);  // every sample period that ends by t
  Status Pump();
  Status StartFile(bool kernels);

  std::unique_ptr<collect::RecordSink> sink_;
  std::unique_ptr<collect::BlockProducer> producer_;
  std::unique_ptr<collect::TraceWriter> writer_;
  std::unordered_map<std::string, std::uint32_t> strings_;
  std::uint32_t next_string_id_ = 1;
  std::size_t unpumped_bytes_ = 0;
  std::int64_t bytes_written_ = 0;
  bool file_open_ = false;
  // Windowed: the file being written is period `period_` (from the trace origin), window or not.
  std::vector<NativeFile> files_;
  std::int64_t period_ = -1;
  bool tracing_ = true;  // kernel activity, API calls, ops and ranges are recorded
  // The device tier, per sample period (index from the trace origin) until written.
  struct SampleBucket {
    std::vector<std::pair<TimeNs, TimeNs>> any, kernels;  // resident intervals, clipped
    double tensor_s = 0, dram_s = 0;
  };
  std::map<std::int64_t, SampleBucket> buckets_;
  std::int64_t next_bucket_ = 0;
  TimeNs last_activity_end_ns_ = 0;
};

}  // namespace plasmient::synth
