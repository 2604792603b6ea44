#include "collect/nccl/nccl_profiler_plugin.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <new>

#include "collect/agent/agent.h"
#include "collect/agent/bounded_queue.h"
#include "collect/agent/clock.h"
#include "wire/records.h"

namespace plasmient::collect::nccl {
namespace {

struct Context {
  Agent* agent;
  std::uint64_t comm_id;
  std::uint32_t comm_name_id;
  int nranks;
  int rank;
};

// One in-flight collective or p2p. The handle NCCL holds for the operation is the Op's address;
// a child event's handle is the same address with the low bit set.
struct alignas(64) Op {
  std::atomic<int> refs{0};
  std::atomic<std::uint64_t> last_end_ns{0};
  Context* context = nullptr;
  wire::CollectiveRecord record{};
};

constexpr std::size_t kPoolSize = 4096;

class OpPool {
 public:
  OpPool() : free_(kPoolSize), ops_(new Op[kPoolSize]) {
    for (std::uint32_t i = 0; i < kPoolSize; ++i) free_.TryPush(i);
  }
  Op* Acquire() {
    std::uint32_t i;
    return free_.TryPop(i) ? &ops_[i] : nullptr;
  }
  void Release(Op* op) { free_.TryPush(static_cast<std::uint32_t>(op - ops_.get())); }
  bool Owns(const void* p) const {
    auto* b = reinterpret_cast<const std::uint8_t*>(ops_.get());
    auto* q = static_cast<const std::uint8_t*>(p);
    return q >= b && q < b + kPoolSize * sizeof(Op);
  }

 private:
  BoundedQueue<std::uint32_t> free_;
  std::unique_ptr<Op[]> ops_;
};

OpPool& Pool() {
  static OpPool* pool = new OpPool();  // never destroyed: NCCL may call in during exit
  return *pool;
}

std::atomic<Agent*> g_test_agent{nullptr};

Agent* TheAgent() {
  Agent* a = g_test_agent.load(std::memory_order_acquire);
  return a != nullptr ? a : Agent::Get();
}

std::uint32_t ThreadId() { return static_cast<std::uint32_t>(syscall(SYS_gettid)); }

void Unref(Op* op) {
  if (op->refs.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  op->record.end_ns = std::max(op->record.end_ns, op->last_end_ns.load(std::memory_order_acquire));
  op->context->agent->sink().PushSmall(op->record);
  Pool().Release(op);
}

void NoteEnd(Op* op, std::uint64_t t) {
  std::uint64_t prev = op->last_end_ns.load(std::memory_order_relaxed);
  while (prev < t && !op->last_end_ns.compare_exchange_weak(prev, t, std::memory_order_acq_rel)) {
  }
}

Op* AsOp(void* handle, bool& child) {
  auto bits = reinterpret_cast<std::uintptr_t>(handle);
  child = (bits & 1) != 0;
  auto* op = reinterpret_cast<Op*>(bits & ~std::uintptr_t{1});
  return op != nullptr && Pool().Owns(op) ? op : nullptr;
}

NcclResult Init(void** context, std::uint64_t comm_id, int* mask, const char* comm_name, int n_nodes,
                int nranks, int rank, NcclDebugLogger logfn) {
  Agent* agent = TheAgent();
  if (agent == nullptr) return kNcclInternalError;  // disables the plugin for this communicator
  auto* c = new (std::nothrow) Context{agent, comm_id, 0, nranks, rank};
  if (c == nullptr) return kNcclInternalError;
  c->comm_name_id = comm_name != nullptr ? agent->Intern(comm_name) : 0;
  *context = c;
  *mask = kProfileColl | kProfileP2p | kProfileProxyOp | kProfileKernelCh;
  return kNcclSuccess;
}

NcclResult StartEvent(void* context, void** handle, EventDescrV5* d) {
  *handle = nullptr;
  auto* c = static_cast<Context*>(context);
  if (c == nullptr || d == nullptr) return kNcclSuccess;
  if (d->type == kProfileColl || d->type == kProfileP2p) {
    Op* op = Pool().Acquire();
    if (op == nullptr) {
      c->agent->sink().CountDrops(wire::DropSource::kNcclEvents, 1);
      return kNcclSuccess;
    }
    op->context = c;
    op->refs.store(1, std::memory_order_relaxed);
    op->last_end_ns.store(0, std::memory_order_relaxed);
    wire::CollectiveRecord& r = op->record;
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
    *handle = op;
    return kNcclSuccess;
  }
  if (d->type == kProfileKernelCh || d->type == kProfileProxyOp) {
    // PXN: a proxy op created by another process has a parent we must not touch.
    if (d->type == kProfileProxyOp && d->proxyOp.pid != getpid()) return kNcclSuccess;
    bool child = false;
    Op* parent = AsOp(d->parentObj, child);
    if (parent == nullptr || child) return kNcclSuccess;
    parent->refs.fetch_add(1, std::memory_order_acq_rel);
    *handle = reinterpret_cast<void*>(reinterpret_cast<std::uintptr_t>(parent) | 1);
  }
  return kNcclSuccess;
}

NcclResult StopEvent(void* handle) {
  bool child = false;
  Op* op = AsOp(handle, child);
  if (op == nullptr) return kNcclSuccess;
  std::uint64_t now = MonotonicNs();
  if (child) {
    NoteEnd(op, now);
  } else {
    op->record.end_ns = now;  // enqueued; completion comes from the children
  }
  Unref(op);
  return kNcclSuccess;
}

NcclResult RecordEventState(void* handle, int state, EventStateArgsV5* args) {
  bool child = false;
  Op* op = AsOp(handle, child);
  if (op != nullptr && child && state == kStateKernelChStop) NoteEnd(op, MonotonicNs());
  return kNcclSuccess;
}

NcclResult Finalize(void* context) {
  delete static_cast<Context*>(context);
  return kNcclSuccess;
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

namespace plasmient::collect::nccl {

const ProfilerV5& PluginV5() { return ncclProfiler_v5; }

void SetPluginAgentForTest(Agent* agent) { g_test_agent.store(agent, std::memory_order_release); }

}  // namespace plasmient::collect::nccl
