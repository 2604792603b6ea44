// Streams one rank's simulated items to a Kineto (PyTorch profiler) JSON trace.
#pragma once

#include <cstdint>
#include <string_view>

#include "base/result.h"
#include "synth/output_file.h"
#include "synth/rank_writer.h"

namespace plasmient::synth {

class KinetoRankWriter final : public RankWriter {
 public:
  using RankWriter::RankWriter;

  Status Open() override;
  Status Finish() override;
  std::int64_t bytes_written() const override { return file_.bytes_written(); }

 private:
  void WriteRange(const HostRange& range) override;
  void WriteRuntime(const RuntimeCall& call) override;
  void WriteFlows(std::int64_t correlation, TimeNs launch_ns, TimeNs gpu_ns, int stream) override;
  void WriteGpu(const SimEvent& ev, std::string_view name, std::int64_t correlation,
                std::int64_t external_id) override;
  void WriteModuleRange(std::string_view name, TimeNs start, TimeNs end) override;
  Status MaybeFlush() override { return file_.MaybeFlush(); }

  void WriteHeader();
  void Comma();
  void Ts(TimeNs true_ns);
  void Dur(TimeNs dur_ns);
  void CommArgs(const Item& item, std::int64_t seq);

  OutputFile file_;
  bool first_event_ = true;
  std::int64_t ev_idx_ = 0;
  std::int64_t python_id_ = 1;
};

}  // namespace plasmient::synth
