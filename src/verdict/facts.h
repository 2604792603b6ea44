// The facts table: one row per GPU activity of one rank, filled once by AnalyzeRank after the
// join, the pricing and the sweep, and read-only after. Everything downstream reads it: the
// verdict's roll-ups (window, steps, top kernels and ops, layers, model FLOPs, collective
// instances), every sink (the Perfetto per-kernel arguments and counters) and later stages.
// Row i describes GpuActivities row i, so a reader joins back to the trace (name, stream, times)
// by the same index. Rows outside the window (kept[i] == 0) carry no cost, share or loss.
// Beside the rows, two interval lists of the window: its GPU idle gaps and the host's waits.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "base/time_units.h"
#include "join/join.h"
#include "roofline/dtype.h"
#include "verdict/gemm_shapes.h"
#include "verdict/verdict.h"

namespace plasmient::verdict {

struct ActivityFacts {
  // From the join.
  std::vector<char> kept;                 // inside the window (docs/verdict.md, "The window")
  std::vector<join::ActivityClass> cls;   // compute, collective, P2P, memory
  std::vector<model::ApiRowId> launch;    // ApiCalls row of its launch, or none
  std::vector<model::CpuOpRowId> op;      // innermost CpuOps row of kind kOp that launched it, or none
  std::vector<model::CpuOpRowId> layer;   // its layer range (CpuOps row, docs/layers.md), or none
  std::vector<std::int64_t> step_number;  // N of the ProfilerStep#N that launched it, or -1

  // Pricing (docs/verdict.md: an op's cost goes to its heavy kernels, split by duration).
  std::vector<model::CpuOpRowId> cost_op;  // CpuOps row whose model priced it, or none
  std::vector<roofline::Dtype> dtype;
  std::vector<double> flops;         // -1 when no FLOP model reached it
  std::vector<double> bytes;         // -1 when no byte model reached it
  std::vector<char> heavy_op;        // priced by a GEMM/conv/attention model
  std::vector<char> attention;       // priced by an attention model
  std::vector<double> weight_share;  // of its bytes, those that do not grow with the batch
  std::vector<char> backward;        // launched under autograd's backward pass
  GemmShapes gemm_mnk;               // the pricing GEMM's M, N, K; zeros otherwise

  // Its point on the roofline (roofline::Evaluate), judged by the peak of its dtype.
  std::vector<double> peak_flops_per_s;
  std::vector<double> arithmetic_intensity;  // FLOP per byte; -1 unless FLOPs (> 0) and bytes are modeled
  std::vector<double> ceiling_flops_per_s;   // min(P, AI·BW); P when bytes are unknown
  std::vector<double> achieved_fraction;     // FLOP/s over the peak of its dtype
  std::vector<double> roofline_fraction;     // FLOP/s over the ceiling; bandwidth share for byte-only models
  // Bytes moved per second of its duration: modeled bytes (compute), copied bytes (memcpy,
  // memset), the payload (collectives, P2P); -1 when unknown.
  std::vector<double> bytes_per_s;

  // The sweep over the rank's window (docs/verdict.md, "The sweep").
  std::vector<double> share_ns;   // compute share (concurrency split) or exposed time
  std::vector<double> useful_ns;  // its share at peak speed: min(FLOPs / P, share)
  std::vector<Loss> loss;         // where its lost time (share − useful) went
  std::vector<Bound> bound;       // from its class and loss

  // The window's GPU idle gaps: the sweep's slices with nothing resident, [start, end) by start.
  std::vector<std::pair<TimeNs, TimeNs>> idle_gaps;
  // The host's synchronizing calls (join::IsHostSync: stream/device/event syncs, synchronous
  // copies) over the whole trace, [start, end) by start: where the host waited for the GPU.
  std::vector<std::pair<TimeNs, TimeNs>> host_syncs;

  std::size_t size() const { return kept.size(); }
  double lost_ns(std::size_t i) const { return share_ns[i] > useful_ns[i] ? share_ns[i] - useful_ns[i] : 0; }
};

}  // namespace plasmient::verdict
