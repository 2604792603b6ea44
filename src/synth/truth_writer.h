// truth.json (schema plasmient.truth/1): the verdict synth expects per job, rank and step,
// written rank by rank so a large job never holds every rank's figures at once.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "synth/gpu_table.h"
#include "synth/output_file.h"
#include "synth/synth_config.h"
#include "synth/truth_calculator.h"

namespace plasmient::synth {

// One native file of a windowed rank (synth --period-s): which steps it holds and, for a kernel
// window, the verdict of its activities alone over their extent — what analyzing the file gives.
struct FileTruth {
  std::string file;  // relative to the job folder
  bool kernels = false;
  std::vector<int> steps;
  Dtype dominant_dtype = Dtype::kBf16;
  WindowTruth window;  // kernel windows with activity only
};

struct RankReport {
  int rank = 0;
  std::string file;  // trace file name, relative to the job folder
  TimeNs clock_offset_ns = 0;
  Dtype dominant_dtype = Dtype::kBf16;
  DeviceModel device;
  double collective_wait_s = 0;  // time this rank's collectives waited for later ranks
  const RankTruth* truth = nullptr;
  const std::vector<TruthActivity>* activities = nullptr;
  const std::vector<std::string>* kernel_names = nullptr;
  const std::vector<std::vector<std::string>>* layer_types = nullptr;  // per TruthActivity::layer
  const std::vector<FileTruth>* files = nullptr;                       // windowed native ranks only
  const std::vector<HostStallTruth>* stalls = nullptr;
};

struct StragglerReport {
  int rank = 0;
  double caused_wait_s = 0;  // sum over other ranks of their wait for this rank's late arrival
  // Why it arrived late: "slow_work" (straggler: its compute is slower), "late_start" (late-start:
  // its steps begin late, the same work), "jitter" (any other rank that was last now and then).
  std::string_view cause = "jitter";
};

class TruthWriter {
 public:
  Status Open(const std::string& path, const SynthConfig& config, const GpuSpec& gpu);
  Status AddRank(const RankReport& report);
  Status Finish(const std::vector<StragglerReport>& stragglers);

 private:
  struct Totals {
    double span_s = 0;
    double useful_s = 0;
    double kernel_union_s = 0;
    LossSeconds losses;
  };
  void Window(const WindowTruth& w, TimeNs clock_offset_ns);
  void Files(const std::vector<FileTruth>& files, TimeNs clock_offset_ns);
  void Figures(double span_s, double useful_s, double kernel_union_s, const LossSeconds& losses);

  SynthConfig config_;
  const GpuSpec* gpu_ = nullptr;
  OutputFile file_;
  bool first_rank_ = true;
  Totals job_;
  std::vector<std::pair<int, Totals>> steps_;  // by step number
  std::vector<TimeNs> clock_offsets_ns_;
  std::vector<double> pipeline_bubbles_;
  // Graphed scenarios: the kernels graph launches ran, their time, and every activity's FLOPs.
  std::int64_t graph_replayed_kernels_ = 0;
  double graph_replayed_s_ = 0, flops_ = 0;
  struct LayerTotals {
    double gpu_time_s = 0, useful_s = 0;
  };
  std::vector<std::pair<std::string, LayerTotals>> layer_types_;  // in first-seen order
  std::vector<std::pair<std::string, double>> host_idle_causes_;  // in first-seen order
};

}  // namespace plasmient::synth
