// Turns a rank's programs into times: the CPU thread issues items in order, each stream
// runs its activities in order, and communication ends when every participant has
// arrived (max arrival + transfer on every rank, on the true clock).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "base/result.h"
#include "base/time_units.h"
#include "synth/rank_program.h"

namespace plasmient::synth {

// Key of one communication: (group, sequence number within the group).
inline std::uint64_t CommKey(std::uint32_t group, std::int64_t seq) {
  return (static_cast<std::uint64_t>(group) << 40) | static_cast<std::uint64_t>(seq);
}

class CommResolver {
 public:
  virtual ~CommResolver() = default;
  // Called once per communication item per rank when its arrival is known.
  virtual void Arrive(std::uint64_t key, int rank, const Item& item, TimeNs arrival_ns) = 0;
  // The communication's end on every participant, or nullopt while one has not arrived.
  virtual std::optional<TimeNs> End(std::uint64_t key) const = 0;
};

// Everything the writer needs to emit one item.
struct SimEvent {
  const Item* item = nullptr;
  const Program* program = nullptr;
  int step = 0;              // ProfilerStep#N number
  TimeNs item_start_ns = 0;  // outermost CPU range (autograd wrapper, or the op)
  TimeNs op_start_ns = 0;
  TimeNs launch_start_ns = 0;  // runtime call (cudaLaunchKernel, cudaMemcpyAsync, ...)
  TimeNs launch_end_ns = 0;
  TimeNs op_end_ns = 0;
  TimeNs item_end_ns = 0;
  TimeNs gpu_start_ns = kNoTime;  // kNoTime when the item has no GPU activity
  TimeNs gpu_end_ns = kNoTime;
  std::int64_t comm_seq = -1;
};

class SimSink {
 public:
  virtual ~SimSink() = default;
  virtual void OnItem(const SimEvent& event) = 0;
  virtual void OnProgramEnd(const Program& program, TimeNs cpu_ns) = 0;
};

struct StreamTail {
  TimeNs known_ns = 0;                 // lower bound, exact when pending is empty
  std::vector<std::uint64_t> pending;  // communication ends still unknown
};

struct RankState {
  int rank = 0;
  TimeNs cpu_ns = 0;
  StreamTail tails[kStreamSlots];
  std::vector<std::int64_t> next_seq;  // by group
  std::size_t next_item = 0;           // position in the current program
};

enum class SimStatus { kDone, kBlocked };

// Runs items from state.next_item until the program ends or an item needs a
// communication end that is not known yet. Returns whether any item was processed
// through `progressed`. With a sink, every communication end must be known.
Result<SimStatus> Simulate(RankState& state, const Program& program, CommResolver& resolver, SimSink* sink,
                           bool* progressed);

// CPU/GPU timing constants (ns), shared with tests.
inline constexpr TimeNs kLaunchApiNs = 5'000;
inline constexpr TimeNs kLaunchLatencyNs = 4'000;
inline constexpr TimeNs kKernelGapNs = 800;
inline constexpr TimeNs kAutogradPadNs = 2'000;

}  // namespace plasmient::synth
