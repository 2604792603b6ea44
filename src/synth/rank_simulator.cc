#include "synth/rank_simulator.h"

#include <algorithm>

namespace plasmient::synth {

bool IsCommunication(OpKind kind) {
  return kind == OpKind::kAllReduce || kind == OpKind::kAllToAll || kind == OpKind::kSend ||
         kind == OpKind::kRecv;
}

bool IsP2p(OpKind kind) { return kind == OpKind::kSend || kind == OpKind::kRecv; }

bool HasGpuActivity(OpKind kind) {
  switch (kind) {
    case OpKind::kStepBegin:
    case OpKind::kHostStall:
    case OpKind::kSync:
    case OpKind::kWaitComm:
      return false;
    default:
      return true;
  }
}

namespace {

// Folds known communication ends into the tail; false while one is still unknown.
bool Resolve(StreamTail& tail, const CommResolver& resolver) {
  auto it = tail.pending.begin();
  while (it != tail.pending.end()) {
    if (std::optional<TimeNs> end = resolver.End(*it)) {
      tail.known_ns = std::max(tail.known_ns, *end);
      it = tail.pending.erase(it);
    } else {
      ++it;
    }
  }
  return tail.pending.empty();
}

void Merge(StreamTail& into, const StreamTail& from) {
  into.known_ns = std::max(into.known_ns, from.known_ns);
  for (std::uint64_t key : from.pending) {
    if (std::find(into.pending.begin(), into.pending.end(), key) == into.pending.end()) {
      into.pending.push_back(key);
    }
  }
}

// Lays the CPU ranges of a launching item out from cpu_ns.
void LayOutCpu(const Item& item, TimeNs cpu_ns, SimEvent& ev) {
  const TimeNs pad = item.autograd_fn != nullptr ? kAutogradPadNs : 0;
  const TimeNs pre = item.cpu_ns * 2 / 3;
  ev.item_start_ns = cpu_ns;
  ev.op_start_ns = cpu_ns + pad;
  ev.launch_start_ns = ev.op_start_ns + pre;
  ev.launch_end_ns = ev.launch_start_ns + kLaunchApiNs;
  ev.op_end_ns = ev.launch_end_ns + (item.cpu_ns - pre);
  ev.item_end_ns = ev.op_end_ns + pad + 1'000;
}

}  // namespace

Result<SimStatus> Simulate(RankState& state, const Program& program, CommResolver& resolver, SimSink* sink,
                           bool* progressed) {
  *progressed = false;
  while (state.next_item < program.items.size()) {
    const Item& item = program.items[state.next_item];
    SimEvent ev;
    ev.item = &item;
    ev.program = &program;
    ev.step = program.step;
    StreamTail& compute = state.tails[kComputeStream];
    switch (item.kind) {
      case OpKind::kStepBegin:
      case OpKind::kHostStall:
        // A step's gpu_ns is a delay before it begins (synth late-start), outside the step.
        if (item.kind == OpKind::kStepBegin) state.cpu_ns += item.gpu_ns;
        ev.item_start_ns = ev.op_start_ns = state.cpu_ns;
        state.cpu_ns += item.kind == OpKind::kHostStall ? item.gpu_ns : 2'000;
        ev.op_end_ns = ev.item_end_ns = ev.launch_start_ns = ev.launch_end_ns = state.cpu_ns;
        break;
      case OpKind::kWaitComm:
        for (int s = kCollectiveStream; s < kStreamSlots; ++s) Merge(compute, state.tails[s]);
        ev.item_start_ns = ev.op_start_ns = ev.launch_start_ns = state.cpu_ns;
        state.cpu_ns += 2'000;
        ev.op_end_ns = ev.item_end_ns = ev.launch_end_ns = state.cpu_ns;
        break;
      case OpKind::kSync: {
        TimeNs last = 0;
        for (StreamTail& tail : state.tails) {
          if (!Resolve(tail, resolver)) return SimStatus::kBlocked;
          last = std::max(last, tail.known_ns);
        }
        ev.item_start_ns = ev.op_start_ns = state.cpu_ns;
        ev.launch_start_ns = state.cpu_ns + 1'000;
        ev.launch_end_ns = std::max(ev.launch_start_ns + 2'000, last + 2'000);
        ev.op_end_ns = ev.item_end_ns = ev.launch_end_ns + 1'000;
        state.cpu_ns = ev.item_end_ns;
        break;
      }
      default: {
        if (!HasGpuActivity(item.kind)) break;
        StreamTail& own = state.tails[item.stream];
        if (IsCommunication(item.kind)) {
          if (!Resolve(own, resolver)) return SimStatus::kBlocked;
          const bool data_dependency = item.kind != OpKind::kRecv;
          if (data_dependency && !Resolve(compute, resolver)) return SimStatus::kBlocked;
          LayOutCpu(item, state.cpu_ns, ev);
          TimeNs arrival = std::max(ev.launch_start_ns + kLaunchLatencyNs, own.known_ns + kKernelGapNs);
          if (data_dependency) arrival = std::max(arrival, compute.known_ns + kKernelGapNs);
          if (state.next_seq.size() <= item.group) state.next_seq.resize(item.group + 1, 0);
          const std::int64_t seq = state.next_seq[item.group]++;
          const std::uint64_t key = CommKey(item.group, seq);
          resolver.Arrive(key, state.rank, item, arrival);
          ev.gpu_start_ns = arrival;
          ev.comm_seq = seq;
          own.known_ns = arrival;
          own.pending.assign(1, key);
          if (item.gates_compute) Merge(compute, own);
          if (sink != nullptr) {
            std::optional<TimeNs> end = resolver.End(key);
            if (!end) {
              return Fail("synth: rank {} step {}: communication group {} seq {} never completes", state.rank,
                          program.step, item.group, seq);
            }
            ev.gpu_end_ns = *end;
          }
        } else {
          if (!Resolve(own, resolver)) return SimStatus::kBlocked;
          if (item.stream != kComputeStream && !Resolve(compute, resolver)) {
            return SimStatus::kBlocked;
          }
          LayOutCpu(item, state.cpu_ns, ev);
          ev.gpu_start_ns = std::max(ev.launch_start_ns + kLaunchLatencyNs, own.known_ns + kKernelGapNs);
          ev.gpu_end_ns = ev.gpu_start_ns + std::max<TimeNs>(item.gpu_ns, 1'000);
          own.known_ns = ev.gpu_end_ns;
        }
        state.cpu_ns = ev.item_end_ns;
        break;
      }
    }
    if (sink != nullptr) sink->OnItem(ev);
    ++state.next_item;
    *progressed = true;
  }
  if (sink != nullptr) sink->OnProgramEnd(program, state.cpu_ns);
  return SimStatus::kDone;
}

}  // namespace plasmient::synth
