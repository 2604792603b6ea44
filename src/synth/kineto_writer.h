// Streams one rank's simulated items to a Kineto (PyTorch profiler) JSON trace and keeps
// the GPU activity intervals the truth calculator needs. Holds one rank at a time.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/result.h"
#include "synth/gpu_table.h"
#include "synth/output_file.h"
#include "synth/rank_simulator.h"
#include "synth/synth_config.h"
#include "synth/truth_calculator.h"

namespace plasmient::synth {

// Base of the trace clock: ts (us) = (true_ns + clock offset) / 1000 relative to it.
inline constexpr std::int64_t kBaseTimeNanoseconds = 1767189312000000000;
inline constexpr TimeNs kTraceOriginNs = 1'234'567'890'000'000;

struct RankFileInfo {
  int rank = 0;
  int world = 1;
  TimeNs clock_offset_ns = 0;  // written ts = true time + offset
  std::string path;
};

class KinetoRankWriter final : public SimSink {
 public:
  KinetoRankWriter(const SynthConfig& config, const GpuSpec& gpu, RankFileInfo info);

  Status Open();
  void OnItem(const SimEvent& event) override;
  void OnProgramEnd(const Program& program, TimeNs cpu_ns) override;
  Status Finish();
  // First write error seen while streaming (OnItem cannot return one).
  const Status& status() const { return status_; }

  const std::vector<TruthActivity>& activities() const { return activities_; }
  const std::vector<std::string>& kernel_names() const { return kernel_names_; }
  const std::vector<std::vector<std::string>>& layer_types() const { return layer_types_; }
  std::int64_t bytes_written() const { return file_.bytes_written(); }

 private:
  void WriteHeader();
  void Comma();
  void Ts(TimeNs true_ns);
  void Dur(TimeNs dur_ns);
  std::int64_t CpuRange(std::string_view cat, std::string_view name, TimeNs start, TimeNs end,
                        const Item* shapes, std::int64_t sequence_number, const SimEvent* comm,
                        std::string_view raw_args = {});
  void Runtime(std::string_view cat, std::string_view name, int cbid, TimeNs start, TimeNs end,
               std::int64_t correlation, std::int64_t external_id);
  void GpuActivity(const SimEvent& ev, std::string_view name, std::int64_t correlation,
                   std::int64_t external_id);
  void CommArgs(const Item& item, std::int64_t seq);
  void CloseModules(std::size_t keep);
  void ModuleRange(std::string_view name, TimeNs start, TimeNs end);
  void OpenModules(const SimEvent& ev);
  std::uint32_t LayerIndex(const Program& program, const Item& item);
  void Flows(std::int64_t correlation, TimeNs launch_ns, TimeNs gpu_ns, int stream);
  std::uint32_t NameIndex(std::string_view name);
  int StreamId(int slot) const;

  const SynthConfig& config_;
  const GpuSpec& gpu_;
  RankFileInfo info_;
  OutputFile file_;
  Status status_;
  bool first_event_ = true;
  int pid_ = 0;
  int tid_ = 0;
  int device_ = 0;
  std::int64_t next_correlation_ = 1000;
  std::int64_t next_external_id_ = 1;
  std::int64_t ev_idx_ = 0;
  std::string group_ranks_;  // "[0, 1, ...]"
  // The open module ranges (outermost first) and ProfilerStep range.
  struct OpenModule {
    std::int16_t module;
    std::string name;
    TimeNs start_ns, end_ns;
  };
  std::vector<OpenModule> open_modules_;
  const Program* module_program_ = nullptr;
  std::int64_t python_id_ = 1;
  TimeNs step_start_ns_ = 0;
  // Per layer index (TruthActivity::layer): the types an activity under it counts for.
  std::vector<std::vector<std::string>> layer_types_;
  std::unordered_map<std::string, std::uint32_t> layer_index_;
  std::vector<TruthActivity> activities_;
  std::vector<std::string> kernel_names_;
  std::unordered_map<std::string_view, std::uint32_t> name_index_;
};

}  // namespace plasmient::synth
