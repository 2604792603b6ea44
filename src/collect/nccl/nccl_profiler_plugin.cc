#include "collect/nccl/nccl_profiler_plugin.h"

#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>

#include "collect/agent/agent.h"
#include "collect/agent/bounded_queue.h"
#include "collect/agent/clock.h"
#include "wire/records.h"

namespace plasmient::collect::nccl {
namespace {

// The GPU's globaltimer (KernelCh pTimer) on the agent clock. Each KernelCh event pairs a GPU
// time with the host time the proxy thread saw it, never earlier than it happened, so the least
// (host - GPU) difference is the offset plus the shortest observation lag. Minima are kept per
// second and the last two used, so clock drift moves the estimate within two seconds.
class GpuClockFit {
 public:
  void Observe(std::uint64_t host_ns, std::uint64_t gpu_ns) {
    if (gpu_ns == 0) return;  // no timestamp
    std::int64_t d = static_cast<std::int64_t>(host_ns - gpu_ns);
    std::lock_guard<std::mutex> lock(mutex_);
    if (!has_current_ || host_ns - current_start_ns_ >= kBucketNs) {
      previous_ = current_;
      has_previous_ = has_current_;
      current_ = d;
      current_start_ns_ = host_ns;
      has_current_ = true;
    } else {
      current_ = std::min(current_, d);
    }
  }
  // `gpu_ns` on the agent clock; 0 when there is no timestamp or no observation yet.
  std::uint64_t ToHost(std::uint64_t gpu_ns) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (gpu_ns == 0 || !has_current_) return 0;
    std::int64_t offset = has_previous_ ? std::min(previous_, current_) : current_;
    return gpu_ns + static_cast<std::uint64_t>(offset);
  }

 private:
  static constexpr std::uint64_t kBucketNs = 1'000'000'000;
  std::mutex mutex_;  // the communicator's proxy thread, and its app thread at a pool sweep
  std::int64_t current_ = 0, previous_ = 0;
  std::uint64_t current_start_ns_ = 0;
  bool has_current_ = false, has_previous_ = false;
};

struct Context {
  Agent* agent;
  std::uint64_t comm_id;
  std::uint32_t comm_name_id;
  int nranks;
  int rank;
  GpuClockFit gpu_clock;
};

// One in-flight collective or p2p. NCCL stops the Coll/P2p event at enqueue; its KernelCh
// children start afterwards on the proxy thread (one per channel), so the Op lives until its own
// stop, the expected children and every started child have stopped, and then writes one record.
// A handle is the Op's address (64-byte aligned) with a 5-bit generation in bits 1-5 and bit 0
// set for a child, so a late child of a finished Op never attaches to the slot's next user.
struct alignas(64) Op {
  std::mutex mutex;  // uncontended: the app thread and one proxy thread, a few times per Op
  bool live = false;
  std::uint32_t generation = 0;
  bool own_open = false;          // the Coll/P2p event is not stopped yet
  int expected = 0;               // KernelCh children NCCL will start (the channel count)
  int started = 0;                // children started so far
  int in_flight = 0;              // children started and not stopped
  std::uint64_t last_end_ns = 0;  // latest child stop, host clock
  std::uint64_t gpu_end_ns = 0;   // latest KernelCh stop pTimer (GPU globaltimer), 0 if none
  std::uint64_t touched_ns = 0;   // last event of any kind
  Agent* agent = nullptr;
  Context* context = nullptr;
  wire::CollectiveRecord record{};
};

constexpr std::size_t kPoolSize = 4096;
constexpr std::uintptr_t kChildBit = 1;
constexpr std::uintptr_t kGenerationMask = 0x3e;  // bits 1-5
// An Op whose children stopped coming (fewer channels ran than announced, e.g. p2p channels
// with no steps) is written out with the end it has after this long without events; one that
// never saw a child (its kernel may still be queued behind others) after much longer, or after
// the short wait when the pool is empty.
constexpr std::uint64_t kStaleNs = 2'000'000'000;
constexpr std::uint64_t kChildlessStaleNs = 60'000'000'000;
constexpr std::size_t kSweepPerAcquire = 4;

class OpPool {
 public:
  OpPool() : free_(kPoolSize), ops_(new Op[kPoolSize]) {
    for (std::uint32_t i = 0; i < kPoolSize; ++i) free_.TryPush(i);
  }
  Op* Acquire() {
    std::uint32_t i;
    return free_.TryPop(i) ? &ops_[i] : nullptr;
  }
  // Called with op->mutex held, once per Acquire (live goes false here and nowhere else).
  void Release(Op* op) {
    op->live = false;
    free_.TryPush(static_cast<std::uint32_t>(op - ops_.get()));
  }
  Op* At(std::size_t i) { return &ops_[i % kPoolSize]; }
  Op* FromAddress(std::uintptr_t p) const {
    auto b = reinterpret_cast<std::uintptr_t>(ops_.get());
    if (p < b || p >= b + kPoolSize * sizeof(Op) || (p - b) % sizeof(Op) != 0) return nullptr;
    return &ops_[(p - b) / sizeof(Op)];
  }
  std::atomic<std::size_t> sweep_cursor{0};

 private:
  BoundedQueue<std::uint32_t> free_;
  std::unique_ptr<Op[]> ops_;
};
static_assert(alignof(Op) > kGenerationMask + kChildBit);

OpPool& Pool() {
  static OpPool* pool = new OpPool();  // never destroyed: NCCL may call in during exit
  return *pool;
}

std::atomic<Agent*> g_test_agent{nullptr};

Agent* TheAgent() {
  Agent* a = g_test_agent.load(std::memory_order_acquire);
  return a != nullptr ? a : Agent::Get();
}

// The calling thread as CUPTI names it in API records (pthread id, low 32 bits), so the reader can
// find the kernel launch that precedes a collective on its thread.
std::uint32_t ThreadId() { return static_cast<std::uint32_t>(pthread_self()); }

void* Handle(Op* op, bool child) {
  auto bits = reinterpret_cast<std::uintptr_t>(op) | ((op->generation << 1) & kGenerationMask);
  // NOLINTNEXTLINE(performance-no-int-to-ptr): a tagged handle, never dereferenced (LockOp reads it)
  return reinterpret_cast<void*>(child ? bits | kChildBit : bits);
}

// The Op a handle names, locked, or null when the handle is not ours or its Op has finished.
Op* LockOp(void* handle, bool& child, std::unique_lock<std::mutex>& lock) {
  auto bits = reinterpret_cast<std::uintptr_t>(handle);
  child = (bits & kChildBit) != 0;
  Op* op = Pool().FromAddress(bits & ~(kGenerationMask | kChildBit));
  if (op == nullptr) return nullptr;
  lock = std::unique_lock<std::mutex>(op->mutex);
  if (!op->live || ((op->generation << 1) & kGenerationMask) != (bits & kGenerationMask)) {
    lock.unlock();
    return nullptr;
  }
  return op;
}

// Writes the record and frees the slot (op->mutex held). The end is the GPU's completion of the
// last channel when NCCL gave its timestamp, else when the proxy thread saw it; never before the
// start, never after the proxy thread saw it.
void Finish(Op* op) {
  std::uint64_t end = std::max(op->record.end_ns, op->last_end_ns);
  if (std::uint64_t gpu_end = op->context->gpu_clock.ToHost(op->gpu_end_ns); gpu_end != 0) {
    end = std::clamp(gpu_end, op->record.start_ns, end);
  }
  op->record.end_ns = end;
  if (op->record.n_channels == 0)
    op->record.n_channels = static_cast<decltype(op->record.n_channels)>(op->started);
  op->agent->sink().PushSmall(op->record);
  Pool().Release(op);
}

// NCCL 2.28 announces 0 channels for CollNet and multi-node NVLS collectives (the task's
// nChannels is never set on that path) yet sends a KernelCh child per channel: 0 means "unknown",
// and such a collective ends when every child that started has stopped (or goes stale).
void FinishIfDone(Op* op) {
  bool channels_done = op->expected > 0 ? op->started >= op->expected : op->started > 0;
  if (!op->own_open && op->in_flight == 0 && channels_done) Finish(op);
}

enum class SweepFor {
  kStale,     // idle past kStaleNs with a child seen, past kChildlessStaleNs without
  kPressure,  // the pool is empty: idle past kStaleNs, child seen or not
  kAll,       // communicator or agent close
};

bool Stale(const Op& op, std::uint64_t now, SweepFor why) {
  if (op.own_open || op.in_flight > 0) return false;
  // A collective of unknown channel count may have none that report: it goes stale as soon.
  bool short_wait = op.started > 0 || op.expected == 0 || why == SweepFor::kPressure;
  return now - op.touched_ns >= (short_wait ? kStaleNs : kChildlessStaleNs);
}

// Writes out the Ops of `context` (any when null) in slots [first, first + count) that `why`
// lets go.
void Sweep(Context* context, std::size_t first, std::size_t count, SweepFor why) {
  std::uint64_t now = MonotonicNs();
  for (std::size_t i = 0; i < count; ++i) {
    Op* op = Pool().At(first + i);
    std::lock_guard<std::mutex> lock(op->mutex);
    if (!op->live || (context != nullptr && op->context != context)) continue;
    if (why == SweepFor::kAll || Stale(*op, now, why)) Finish(op);
  }
}

NcclResult Init(void** context, std::uint64_t comm_id, int* mask, const char* comm_name, int n_nodes,
                int nranks, int rank, NcclDebugLogger logfn) {
  Agent* agent = TheAgent();
  if (agent == nullptr) return kNcclInternalError;  // disables the plugin for this communicator
  auto* c = new (std::nothrow) Context{agent, comm_id, 0, nranks, rank};
  if (c == nullptr) return kNcclInternalError;
  c->comm_name_id = comm_name != nullptr ? agent->Intern(comm_name) : 0;
  *context = c;
  *mask = kProfileColl | kProfileP2p | kProfileKernelCh;
  static std::once_flag close_hook;
  std::call_once(close_hook,
                 [agent] { agent->AddPreCloseHook([] { Sweep(nullptr, 0, kPoolSize, SweepFor::kAll); }); });
  return kNcclSuccess;
}

void FillRecord(Context* c, const EventDescrV5* d, wire::CollectiveRecord& r) {
  r = wire::CollectiveRecord{};
  r.header = wire::HeaderFor<wire::CollectiveRecord>(wire::RecordKind::kCollective);
  r.start_ns = r.end_ns = MonotonicNs();
  r.comm_hash = c->comm_id;
  r.rank = d->rank;
  r.nranks = c->nranks;
  r.comm_name_id = c->comm_name_id;
  r.pid = static_cast<std::uint32_t>(getpid());
  r.tid = ThreadId();
  Agent* a = c->agent;
  if (d->type == kProfileColl) {
    r.kind = static_cast<std::uint8_t>(wire::CollectiveKind::kCollective);
    r.seq = d->coll.seqNumber;
    r.count = d->coll.count;
    r.bytes = d->coll.count * DatatypeBytes(d->coll.datatype ? d->coll.datatype : "");
    r.root = d->coll.root;
    r.peer = -1;
    r.func_id = a->InternStable(d->coll.func);
    r.dtype_id = a->InternStable(d->coll.datatype);
    r.algo_id = a->InternStable(d->coll.algo);
    r.proto_id = a->InternStable(d->coll.proto);
    r.n_channels = d->coll.nChannels;
    r.n_warps = d->coll.nWarps;
  } else {
    r.kind = static_cast<std::uint8_t>(wire::CollectiveKind::kP2p);
    r.count = d->p2p.count;
    r.bytes = d->p2p.count * DatatypeBytes(d->p2p.datatype ? d->p2p.datatype : "");
    r.root = -1;
    r.peer = d->p2p.peer;
    r.func_id = a->InternStable(d->p2p.func);
    r.dtype_id = a->InternStable(d->p2p.datatype);
    r.n_channels = d->p2p.nChannels;
  }
}

NcclResult StartEvent(void* context, void** handle, EventDescrV5* d) {
  *handle = nullptr;
  auto* c = static_cast<Context*>(context);
  if (c == nullptr || d == nullptr) return kNcclSuccess;
  if (d->type == kProfileColl || d->type == kProfileP2p) {
    Sweep(nullptr, Pool().sweep_cursor.fetch_add(kSweepPerAcquire), kSweepPerAcquire, SweepFor::kStale);
    Op* op = Pool().Acquire();
    if (op == nullptr) {
      Sweep(nullptr, 0, kPoolSize, SweepFor::kPressure);
      op = Pool().Acquire();
    }
    if (op == nullptr) {
      c->agent->sink().CountDrops(wire::DropSource::kNcclEvents, 1);
      return kNcclSuccess;
    }
    std::lock_guard<std::mutex> lock(op->mutex);
    op->live = true;
    ++op->generation;
    op->own_open = true;
    op->expected = d->type == kProfileColl ? d->coll.nChannels : d->p2p.nChannels;
    op->started = op->in_flight = 0;
    op->last_end_ns = op->gpu_end_ns = 0;
    op->agent = c->agent;
    op->context = c;
    FillRecord(c, d, op->record);
    op->touched_ns = op->record.start_ns;
    *handle = Handle(op, false);
    return kNcclSuccess;
  }
  if (d->type == kProfileKernelCh) {
    bool child = false;
    std::unique_lock<std::mutex> lock;
    Op* parent = LockOp(d->parentObj, child, lock);
    if (parent == nullptr || child) return kNcclSuccess;
    ++parent->started;
    ++parent->in_flight;
    parent->touched_ns = MonotonicNs();
    parent->context->gpu_clock.Observe(parent->touched_ns, d->kernelCh.pTimer);
    *handle = Handle(parent, true);
  }
  return kNcclSuccess;
}

NcclResult StopEvent(void* handle) {
  bool child = false;
  std::unique_lock<std::mutex> lock;
  Op* op = LockOp(handle, child, lock);
  if (op == nullptr) return kNcclSuccess;
  std::uint64_t now = MonotonicNs();
  op->touched_ns = now;
  if (child) {
    op->last_end_ns = std::max(op->last_end_ns, now);
    --op->in_flight;
  } else {
    op->record.end_ns = now;  // enqueued; completion comes from the children
    op->own_open = false;
  }
  FinishIfDone(op);
  return kNcclSuccess;
}

NcclResult RecordEventState(void* handle, int state, EventStateArgsV5* args) {
  if (state != kStateKernelChStop) return kNcclSuccess;
  bool child = false;
  std::unique_lock<std::mutex> lock;
  Op* op = LockOp(handle, child, lock);
  if (op == nullptr || !child) return kNcclSuccess;
  std::uint64_t now = MonotonicNs();
  op->last_end_ns = std::max(op->last_end_ns, now);
  if (args != nullptr && args->kernelCh.pTimer != 0) {
    op->context->gpu_clock.Observe(now, args->kernelCh.pTimer);
    op->gpu_end_ns = std::max(op->gpu_end_ns, args->kernelCh.pTimer);
  }
  return kNcclSuccess;
}

NcclResult Finalize(void* context) {
  auto* c = static_cast<Context*>(context);
  Sweep(c, 0, kPoolSize, SweepFor::kAll);  // what is still open for this communicator will not finish
  delete c;
  return kNcclSuccess;
}

// Version 4 (NCCL 2.27): the same implementation behind v4's init order and descriptor.
NcclResult InitV4(void** context, int* mask, const char* comm_name, std::uint64_t comm_hash, int n_nodes,
                  int nranks, int rank, NcclDebugLogger logfn) {
  return Init(context, comm_hash, mask, comm_name, n_nodes, nranks, rank, logfn);
}

NcclResult StartEventV4(void* context, void** handle, EventDescrV4* d4) {
  *handle = nullptr;
  if (d4 == nullptr) return kNcclSuccess;
  EventDescrV5 d{};
  d.type = d4->type;
  d.parentObj = d4->parentObj;
  d.rank = d4->rank;
  // Each v4 union member is a prefix of the v5 one (checked in the ABI header).
  std::memcpy(&d.coll, &d4->coll, sizeof(EventDescrV4) - offsetof(EventDescrV4, coll));
  return StartEvent(context, handle, &d);
}

}  // namespace

std::size_t DatatypeBytes(std::string_view t) {
  if (t == "ncclInt8" || t == "ncclUint8" || t == "ncclChar" || t == "ncclFloat8e4m3" ||
      t == "ncclFloat8e5m2") {
    return 1;
  }
  if (t == "ncclFloat16" || t == "ncclHalf" || t == "ncclBfloat16") return 2;
  if (t == "ncclInt32" || t == "ncclUint32" || t == "ncclInt" || t == "ncclFloat32" || t == "ncclFloat") {
    return 4;
  }
  if (t == "ncclInt64" || t == "ncclUint64" || t == "ncclFloat64" || t == "ncclDouble") return 8;
  return 0;
}

}  // namespace plasmient::collect::nccl

// The symbol NCCL looks up in the plugin library (constant-initialized: valid from dlopen on).
extern "C" __attribute__((visibility("default")))
const plasmient::collect::nccl::ProfilerV5 ncclProfiler_v5 = {"Plasmient",
                                                              plasmient::collect::nccl::Init,
                                                              plasmient::collect::nccl::StartEvent,
                                                              plasmient::collect::nccl::StopEvent,
                                                              plasmient::collect::nccl::RecordEventState,
                                                              plasmient::collect::nccl::Finalize};

extern "C" __attribute__((visibility("default")))
const plasmient::collect::nccl::ProfilerV4 ncclProfiler_v4 = {"Plasmient",
                                                              plasmient::collect::nccl::InitV4,
                                                              plasmient::collect::nccl::StartEventV4,
                                                              plasmient::collect::nccl::StopEvent,
                                                              plasmient::collect::nccl::RecordEventState,
                                                              plasmient::collect::nccl::Finalize};

namespace plasmient::collect::nccl {

const ProfilerV5& PluginV5() { return ncclProfiler_v5; }
const ProfilerV4& PluginV4() { return ncclProfiler_v4; }

void SetPluginAgentForTest(Agent* agent) { g_test_agent.store(agent, std::memory_order_release); }

}  // namespace plasmient::collect::nccl
