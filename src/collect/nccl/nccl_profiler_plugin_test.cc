// Loads the agent .so like NCCL does (dlopen + dlsym "ncclProfiler_v5" / "_v4"), drives the
// plugin with events in NCCL's order and on its threads, and reads the resulting trace back.
// Each test loads its own copy of the .so (its own agent and trace file), so the tests also run
// together in one process.
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <deque>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "collect/agent/clock.h"
#include "collect/nccl/nccl_profiler_abi.h"
#include "ingest/native/native_reader.h"
#include "wire/chunk_codec.h"

namespace plasmient::collect::nccl {
namespace {

struct Plugin {
  const ProfilerV5* v5 = nullptr;
  const ProfilerV4* v4 = nullptr;
  void (*shutdown)() = nullptr;
  const char* (*trace_path)() = nullptr;
};

// The collective records of a trace as the plugin wrote them, in file order (the order of the
// reader's collective rows). Their extent, enqueue to the GPU's completion, is the record's own:
// the reader's op row is an instant at the enqueue.
std::vector<wire::CollectiveRecord> CollectiveRecords(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<wire::CollectiveRecord> out;
  wire::ScanChunks(
      bytes.data(), bytes.size(), [&](const wire::ChunkHeader&, const std::uint8_t* raw, std::size_t n) {
        wire::WalkRecords(raw, n, [&](const wire::RecordHeader& h, const std::uint8_t* record) {
          if (h.kind != wire::RecordKind::kCollective || h.size_bytes < sizeof(wire::CollectiveRecord))
            return;
          wire::CollectiveRecord c;
          std::memcpy(&c, record, sizeof c);
          out.push_back(c);
        });
      });
  return out;
}

// A private copy of the agent .so, writing into its own folder; a new one per call (copying over
// a loaded library would change its mapped pages, e.g. under --gtest_repeat).
Plugin Load(const std::string& name) {
  static int loads = 0;
  std::string dir =
      ::testing::TempDir() + "/" + name + "_" + std::to_string(getpid()) + "_" + std::to_string(loads++);
  std::string copy = dir + "/libagent_copy.so";
  EXPECT_EQ(system(("mkdir -p " + dir + " && cp " PLASMIENT_AGENT_SO " " + copy).c_str()), 0);
  setenv("PLASMIENT_OUT_DIR", dir.c_str(), 1);
  setenv("PLASMIENT_NVML_PERIOD_MS", "0", 1);
  setenv("PLASMIENT_PERIOD_S", "0", 1);  // one whole-run file
  setenv("RANK", "2", 1);
  Plugin p;
  void* lib = dlopen(copy.c_str(), RTLD_NOW | RTLD_LOCAL);
  EXPECT_NE(lib, nullptr) << dlerror();
  if (lib == nullptr) return p;
  p.v5 = static_cast<const ProfilerV5*>(dlsym(lib, "ncclProfiler_v5"));
  p.v4 = static_cast<const ProfilerV4*>(dlsym(lib, "ncclProfiler_v4"));
  p.shutdown = reinterpret_cast<void (*)()>(dlsym(lib, "plasmient_agent_shutdown"));
  p.trace_path = reinterpret_cast<const char* (*)()>(dlsym(lib, "plasmient_agent_trace_path"));
  return p;
}

TEST(NcclProfilerPlugin, CollectivesAndP2pThroughDlopen) {
  Plugin loaded = Load("nccl_plugin_basic");
  const ProfilerV5* plugin = loaded.v5;
  ASSERT_NE(plugin, nullptr);
  EXPECT_STREQ(plugin->name, "Plasmient");
  auto shutdown = loaded.shutdown;
  auto trace_path = loaded.trace_path;
  ASSERT_NE(shutdown, nullptr);

  void* ctx = nullptr;
  int mask = 0;
  ASSERT_EQ(plugin->init(&ctx, 0x1234abcdull, &mask, "world", 1, 4, 2, nullptr), kNcclSuccess);
  EXPECT_TRUE(mask & kProfileColl);
  EXPECT_TRUE(mask & kProfileP2p);
  EXPECT_TRUE(mask & kProfileKernelCh);

  // An AllReduce of 1000 bf16 on one channel: stopped at enqueue, its kernel channel after.
  EventDescrV5 coll{};
  coll.type = kProfileColl;
  coll.rank = 2;
  coll.coll.seqNumber = 17;
  coll.coll.func = "AllReduce";
  coll.coll.count = 1000;
  coll.coll.datatype = "ncclBfloat16";
  coll.coll.root = 0;
  coll.coll.nChannels = 1;
  coll.coll.nWarps = 16;
  coll.coll.algo = "RING";
  coll.coll.proto = "SIMPLE";
  void* coll_handle = nullptr;
  ASSERT_EQ(plugin->startEvent(ctx, &coll_handle, &coll), kNcclSuccess);
  ASSERT_NE(coll_handle, nullptr);
  plugin->stopEvent(coll_handle);  // enqueued; the kernel has not started
  EventDescrV5 ch{};
  ch.type = kProfileKernelCh;
  ch.parentObj = coll_handle;
  ch.kernelCh.channelId = 0;
  void* ch_handle = nullptr;
  plugin->startEvent(ctx, &ch_handle, &ch);
  ASSERT_NE(ch_handle, nullptr);
  usleep(2000);
  EventStateArgsV5 args{};
  plugin->recordEventState(ch_handle, kStateKernelChStop, &args);
  plugin->stopEvent(ch_handle);

  // A send of 256 floats to peer 3, no children.
  EventDescrV5 p2p{};
  p2p.type = kProfileP2p;
  p2p.rank = 2;
  p2p.p2p.func = "Send";
  p2p.p2p.count = 256;
  p2p.p2p.datatype = "ncclFloat32";
  p2p.p2p.peer = 3;
  void* p2p_handle = nullptr;
  plugin->startEvent(ctx, &p2p_handle, &p2p);
  plugin->stopEvent(p2p_handle);

  // Events we do not track get a null handle and are ignored.
  EventDescrV5 step{};
  step.type = kProfileProxyStep;
  void* step_handle = &step;
  plugin->startEvent(ctx, &step_handle, &step);
  EXPECT_EQ(step_handle, nullptr);
  EXPECT_EQ(plugin->stopEvent(nullptr), kNcclSuccess);
  EXPECT_EQ(plugin->finalize(ctx), kNcclSuccess);

  std::string path = trace_path();
  ASSERT_FALSE(path.empty());
  EXPECT_NE(path.find("rank2"), std::string::npos);
  shutdown();

  auto t = ingest::native::ReadNative(path);
  ASSERT_TRUE(t) << t.error().message;
  EXPECT_EQ(t->info.rank, 2);
  ASSERT_EQ(t->collectives.size(), 2u);
  EXPECT_EQ(t->Str(t->collectives.name[0]), "allreduce");
  EXPECT_EQ(t->Str(t->collectives.dtype[0]), "BFloat16");
  EXPECT_EQ(t->collectives.seq[0], 17);
  EXPECT_EQ(t->collectives.in_nelems[0], 1000);
  EXPECT_EQ(t->collectives.bytes[0], 2000);
  EXPECT_EQ(t->collectives.group_size[0], 4);
  EXPECT_EQ(t->Str(t->collectives.pg_name[0]), "000000001234abcd");
  // The collective ends at its kernel's stop, after the enqueue-time stop.
  std::int32_t op = t->collectives.cpu_op[0];
  ASSERT_GE(op, 0);
  EXPECT_EQ(t->Str(t->cpu.name[static_cast<std::size_t>(op)]), "nccl:allreduce");
  // The thread that enqueued it, named as CUPTI names threads in its API records.
  EXPECT_EQ(t->cpu.tid[static_cast<std::size_t>(op)], static_cast<std::uint32_t>(pthread_self()));
  const auto records = CollectiveRecords(path);
  ASSERT_EQ(records.size(), 2u);
  EXPECT_GE(records[0].end_ns - records[0].start_ns, 2'000'000u);
  EXPECT_EQ(t->Str(t->collectives.name[1]), "send");
  EXPECT_EQ(t->collectives.bytes[1], 1024);
  EXPECT_EQ(t->collectives.seq[1], model::kNoId);
  EXPECT_EQ(t->quality.Get(model::Dq::kTruncatedNativeFile), 0);
  std::remove(path.c_str());
}

// NCCL's order (hostStreamPlanTask, then the proxy thread), the same in 2.27 (v4) and 2.28 (v5):
// the app thread starts and stops each Coll at enqueue; the proxy thread later starts one
// KernelCh per channel with the channel's GPU start time, records its stop state with the GPU end
// time, and stops it. NCCL starts the proxy before it stops the task events, so every 7th
// collective's channels run and stop before its Coll stop. ProxyOp/ProxyStep events come too.
// GPU times are the agent clock plus kGpuClock. More collectives than the plugin's pool holds go
// through, so a slot handed out twice or a record per child shows up as a missing or repeated
// sequence number. Every kSlowEvery-th collective's last channel is seen by the proxy 3 ms after
// the GPU finished it: its record ends when the GPU finished.
constexpr int kCollectives = 6000;
constexpr int kChannels = 2;
constexpr int kSlowEvery = 1000;
constexpr std::uint64_t kGpuClock = 1'000'000'000'000'000'000;
constexpr std::uint64_t kProxyLagNs = 3'000'000;

template <typename Table, typename Descr>
std::map<std::uint64_t, std::uint64_t> DriveNcclCallOrder(const Table& plugin, void* ctx) {
  std::map<std::uint64_t, std::uint64_t> slow_gpu_end;  // seq -> GPU end on the agent clock
  std::mutex m;
  std::condition_variable cv;
  std::deque<std::pair<int, void*>> enqueued;
  int processed = 0;  // collectives whose channels have all stopped
  bool done = false;
  auto descr = [](EventType type, void* parent) {
    Descr d{};
    d.type = static_cast<decltype(d.type)>(type);
    d.parentObj = parent;
    return d;
  };
  std::thread proxy([&] {
    for (;;) {
      std::unique_lock<std::mutex> lock(m);
      cv.wait(lock, [&] { return done || !enqueued.empty(); });
      if (enqueued.empty()) return;
      auto [i, parent] = enqueued.front();
      enqueued.pop_front();
      lock.unlock();
      cv.notify_all();
      Descr op = descr(kProfileProxyOp, parent);
      op.proxyOp.pid = getpid();
      void* op_handle = &op;
      plugin.startEvent(ctx, &op_handle, &op);
      Descr step = descr(kProfileProxyStep, op_handle);
      void* step_handle = &step;
      plugin.startEvent(ctx, &step_handle, &step);
      void* children[kChannels] = {};
      for (int c = 0; c < kChannels; ++c) {
        Descr ch = descr(kProfileKernelCh, parent);
        ch.kernelCh.channelId = static_cast<std::uint8_t>(c);
        ch.kernelCh.pTimer = MonotonicNs() + kGpuClock;
        plugin.startEvent(ctx, &children[c], &ch);
      }
      for (int c = 0; c < kChannels; ++c) {
        EventStateArgsV5 args{};
        args.kernelCh.pTimer = MonotonicNs() + kGpuClock;
        if (c == kChannels - 1 && i % kSlowEvery == kSlowEvery / 2) {
          std::this_thread::sleep_for(std::chrono::nanoseconds(kProxyLagNs));
          std::lock_guard<std::mutex> l(m);
          slow_gpu_end[static_cast<std::uint64_t>(i)] = args.kernelCh.pTimer - kGpuClock;
        }
        plugin.recordEventState(children[c], kStateKernelChStop, &args);
        plugin.stopEvent(children[c]);
      }
      plugin.stopEvent(step_handle);
      plugin.stopEvent(op_handle);
      lock.lock();
      processed = i + 1;
      lock.unlock();
      cv.notify_all();
    }
  });
  for (int i = 0; i < kCollectives; ++i) {
    Descr coll = descr(kProfileColl, nullptr);
    coll.rank = 2;
    coll.coll.seqNumber = static_cast<std::uint64_t>(i);
    coll.coll.func = i % 2 == 0 ? "AllReduce" : "AllGather";
    coll.coll.count = 64;
    coll.coll.datatype = "ncclFloat32";
    coll.coll.nChannels = kChannels;
    void* h = nullptr;
    plugin.startEvent(ctx, &h, &coll);
    EXPECT_NE(h, nullptr) << "collective " << i;
    if (h == nullptr) break;
    bool channels_first = i % 7 == 3;
    if (!channels_first) plugin.stopEvent(h);
    std::unique_lock<std::mutex> lock(m);
    cv.wait(lock, [&] { return enqueued.size() < 256; });  // the proxy lags, within bounds
    enqueued.emplace_back(i, h);
    lock.unlock();
    cv.notify_all();
    if (channels_first) {
      lock.lock();
      cv.wait(lock, [&] { return processed > i; });
      lock.unlock();
      plugin.stopEvent(h);
    }
  }
  {
    std::lock_guard<std::mutex> lock(m);
    done = true;
  }
  cv.notify_all();
  proxy.join();
  EXPECT_EQ(plugin.finalize(ctx), kNcclSuccess);
  return slow_gpu_end;
}

void ExpectOneRecordPerCollective(const std::string& path,
                                  const std::map<std::uint64_t, std::uint64_t>& slow) {
  auto t = ingest::native::ReadNative(path);
  ASSERT_TRUE(t) << t.error().message;
  EXPECT_EQ(t->quality.Get(model::Dq::kDroppedRecords), 0);
  ASSERT_EQ(t->collectives.size(), static_cast<std::size_t>(kCollectives));
  ASSERT_EQ(slow.size(), static_cast<std::size_t>(kCollectives / kSlowEvery));
  const auto records = CollectiveRecords(path);
  std::map<std::int64_t, int> per_seq;
  for (std::size_t i = 0; i < t->collectives.size(); ++i) {
    std::int64_t seq = t->collectives.seq[i];
    ++per_seq[seq];
    std::int32_t op = t->collectives.cpu_op[i];
    ASSERT_GE(op, 0);
    ASSERT_LT(i, records.size());
    auto start = static_cast<TimeNs>(records[i].start_ns) + t->info.base_time_ns,
         end = static_cast<TimeNs>(records[i].end_ns) + t->info.base_time_ns;
    EXPECT_EQ(t->cpu.start_ns[static_cast<std::size_t>(op)], start) << "seq " << seq;
    EXPECT_LE(start, end) << "seq " << seq;
    if (auto it = slow.find(static_cast<std::uint64_t>(seq)); it != slow.end()) {
      // The GPU finished at gpu_end; the proxy saw it 3 ms later.
      auto gpu_end = static_cast<TimeNs>(it->second) + t->info.base_time_ns;
      EXPECT_GE(end, gpu_end) << "seq " << seq;
      EXPECT_LT(end, gpu_end + static_cast<TimeNs>(kProxyLagNs) / 3)
          << "seq " << seq << " ends when the GPU did";
    }
    EXPECT_EQ(t->Str(t->collectives.name[i]), seq % 2 == 0 ? "allreduce" : "all_gather") << seq;
  }
  EXPECT_EQ(per_seq.size(), static_cast<std::size_t>(kCollectives));
  for (const auto& [seq, n] : per_seq) EXPECT_EQ(n, 1) << "seq " << seq;
}

TEST(NcclProfilerPlugin, NcclCallOrderGivesOneRecordPerCollective) {
  Plugin loaded = Load("nccl_plugin_order");
  ASSERT_NE(loaded.v5, nullptr);
  void* ctx = nullptr;
  int mask = 0;
  ASSERT_EQ(loaded.v5->init(&ctx, 0xfeedull, &mask, "world", 1, 8, 2, nullptr), kNcclSuccess);
  auto slow = DriveNcclCallOrder<ProfilerV5, EventDescrV5>(*loaded.v5, ctx);
  std::string path = loaded.trace_path();
  loaded.shutdown();
  ExpectOneRecordPerCollective(path, slow);
  std::remove(path.c_str());
}

// NCCL 2.27 finds `ncclProfiler_v4` and drives it in the same order.
TEST(NcclProfilerPlugin, NcclCallOrderThroughTheVersion4Table) {
  Plugin loaded = Load("nccl_plugin_order_v4");
  ASSERT_NE(loaded.v4, nullptr);
  void* ctx = nullptr;
  int mask = 0;
  ASSERT_EQ(loaded.v4->init(&ctx, &mask, "world", 0xfeedull, 1, 8, 2, nullptr), kNcclSuccess);
  EXPECT_TRUE(mask & kProfileKernelCh);
  auto slow = DriveNcclCallOrder<ProfilerV4, EventDescrV4>(*loaded.v4, ctx);
  std::string path = loaded.trace_path();
  loaded.shutdown();
  ExpectOneRecordPerCollective(path, slow);
  std::remove(path.c_str());
}

// A late child of a collective already written (NCCL announced fewer channels than ran) must not
// attach to the slot's next collective.
TEST(NcclProfilerPlugin, LateChildOfAFinishedCollectiveIsIgnored) {
  Plugin loaded = Load("nccl_plugin_late");
  const ProfilerV5* plugin = loaded.v5;
  ASSERT_NE(plugin, nullptr);
  void* ctx = nullptr;
  int mask = 0;
  ASSERT_EQ(plugin->init(&ctx, 0xabcull, &mask, "world", 1, 2, 0, nullptr), kNcclSuccess);
  EventDescrV5 coll{};
  coll.type = kProfileColl;
  coll.coll.func = "AllReduce";
  coll.coll.datatype = "ncclFloat32";
  coll.coll.count = 8;
  coll.coll.nChannels = 1;
  void* first = nullptr;
  plugin->startEvent(ctx, &first, &coll);
  plugin->stopEvent(first);
  EventDescrV5 ch{};
  ch.type = kProfileKernelCh;
  ch.parentObj = first;
  void* only = nullptr;
  plugin->startEvent(ctx, &only, &ch);
  plugin->stopEvent(only);  // its one channel: written
  void* late = &ch;
  plugin->startEvent(ctx, &late, &ch);
  EXPECT_EQ(late, nullptr);
  EXPECT_EQ(plugin->stopEvent(late), kNcclSuccess);
  EXPECT_EQ(plugin->finalize(ctx), kNcclSuccess);
  std::string path = loaded.trace_path();
  loaded.shutdown();
  auto t = ingest::native::ReadNative(path);
  ASSERT_TRUE(t) << t.error().message;
  EXPECT_EQ(t->collectives.size(), 1u);
  std::remove(path.c_str());
}

// NCCL 2.28's CollNet and multi-node NVLS collectives (SHARP clusters) announce nChannels = 0
// yet send a KernelCh per channel after the enqueue: the record ends with its channels, not at
// the enqueue.
TEST(NcclProfilerPlugin, ZeroChannelCollectiveEndsWithItsChannels) {
  Plugin loaded = Load("nccl_plugin_zero_channels");
  const ProfilerV5* plugin = loaded.v5;
  ASSERT_NE(plugin, nullptr);
  void* ctx = nullptr;
  int mask = 0;
  ASSERT_EQ(plugin->init(&ctx, 0x5a4bull, &mask, "world", 2, 16, 0, nullptr), kNcclSuccess);
  EventDescrV5 coll{};
  coll.type = kProfileColl;
  coll.coll.seqNumber = 7;
  coll.coll.func = "AllReduce";
  coll.coll.datatype = "ncclBfloat16";
  coll.coll.count = 1 << 20;
  coll.coll.algo = "NVLS";
  coll.coll.nChannels = 0;  // what NCCL sends on the collnet path
  void* h = nullptr;
  plugin->startEvent(ctx, &h, &coll);
  ASSERT_NE(h, nullptr);
  plugin->stopEvent(h);  // the enqueue
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EventDescrV5 ch{};
  ch.type = kProfileKernelCh;
  ch.parentObj = h;
  void* ch0 = nullptr;
  void* ch1 = nullptr;
  plugin->startEvent(ctx, &ch0, &ch);
  plugin->startEvent(ctx, &ch1, &ch);
  EXPECT_NE(ch0, nullptr) << "the channels of a 0-channel collective are taken";
  std::this_thread::sleep_for(std::chrono::milliseconds(60));
  plugin->stopEvent(ch0);
  plugin->stopEvent(ch1);
  EXPECT_EQ(plugin->finalize(ctx), kNcclSuccess);
  std::string path = loaded.trace_path();
  loaded.shutdown();
  auto records = CollectiveRecords(path);
  ASSERT_EQ(records.size(), 1u);
  EXPECT_GE(records[0].end_ns - records[0].start_ns, 75'000'000u)
      << "ends when its channels end, not at the enqueue";
  EXPECT_EQ(records[0].n_channels, 2u) << "the channels that reported";
  std::remove(path.c_str());
}

// Collectives whose channels never report (no KernelCh at all) must not hold the pool forever:
// when it is empty, those idle for 2 s are written out with their enqueue-time end.
TEST(NcclProfilerPlugin, ChildlessCollectivesAreReclaimedWhenThePoolRunsOut) {
  Plugin loaded = Load("nccl_plugin_childless");
  const ProfilerV5* plugin = loaded.v5;
  ASSERT_NE(plugin, nullptr);
  void* ctx = nullptr;
  int mask = 0;
  ASSERT_EQ(plugin->init(&ctx, 0x5eedull, &mask, "world", 1, 2, 0, nullptr), kNcclSuccess);
  constexpr int kPool = 4096;
  auto enqueue = [&](int seq) {
    EventDescrV5 coll{};
    coll.type = kProfileColl;
    coll.coll.seqNumber = static_cast<std::uint64_t>(seq);
    coll.coll.func = "AllReduce";
    coll.coll.datatype = "ncclFloat32";
    coll.coll.count = 4;
    coll.coll.nChannels = 2;  // announced, never reported
    void* h = nullptr;
    plugin->startEvent(ctx, &h, &coll);
    if (h != nullptr) plugin->stopEvent(h);
    return h != nullptr;
  };
  for (int i = 0; i < kPool; ++i) ASSERT_TRUE(enqueue(i)) << i;
  EXPECT_FALSE(enqueue(kPool)) << "the pool is full of recent collectives";
  std::this_thread::sleep_for(std::chrono::milliseconds(2100));
  EXPECT_TRUE(enqueue(kPool + 1)) << "idle childless collectives are written out to make room";
  std::string path = loaded.trace_path();
  loaded.shutdown();
  auto t = ingest::native::ReadNative(path);
  ASSERT_TRUE(t) << t.error().message;
  EXPECT_EQ(t->collectives.size(), static_cast<std::size_t>(kPool + 1));
  EXPECT_EQ(t->quality.Get(model::Dq::kDroppedRecords), 1);
  std::remove(path.c_str());
}

// NCCL 2.27 finds `ncclProfiler_v4`: init with the comm hash after the name, one-byte types.
TEST(NcclProfilerPlugin, Version4Table) {
  Plugin loaded = Load("nccl_plugin_v4");
  const ProfilerV4* plugin = loaded.v4;
  ASSERT_NE(plugin, nullptr);
  EXPECT_STREQ(plugin->name, "Plasmient");
  void* ctx = nullptr;
  int mask = 0;
  ASSERT_EQ(plugin->init(&ctx, &mask, "tp", 0x77ull, 1, 4, 1, nullptr), kNcclSuccess);
  EXPECT_TRUE(mask & kProfileColl);
  EXPECT_TRUE(mask & kProfileKernelCh);
  EventDescrV4 coll{};
  coll.type = static_cast<std::uint8_t>(kProfileColl);
  coll.rank = 1;
  coll.coll.seqNumber = 5;
  coll.coll.func = "ReduceScatter";
  coll.coll.count = 300;
  coll.coll.datatype = "ncclFloat16";
  coll.coll.nChannels = 1;
  coll.coll.algo = "RING";
  coll.coll.proto = "LL";
  void* h = nullptr;
  ASSERT_EQ(plugin->startEvent(ctx, &h, &coll), kNcclSuccess);
  ASSERT_NE(h, nullptr);
  plugin->stopEvent(h);
  EventDescrV4 ch{};
  ch.type = static_cast<std::uint8_t>(kProfileKernelCh);
  ch.parentObj = h;
  void* child = nullptr;
  plugin->startEvent(ctx, &child, &ch);
  ASSERT_NE(child, nullptr);
  usleep(2000);
  EventStateArgsV4 args{};
  plugin->recordEventState(child, kStateKernelChStop, &args);
  plugin->stopEvent(child);
  EventDescrV4 p2p{};
  p2p.type = static_cast<std::uint8_t>(kProfileP2p);
  p2p.rank = 1;
  p2p.p2p.func = "Recv";
  p2p.p2p.count = 16;
  p2p.p2p.datatype = "ncclInt64";
  p2p.p2p.peer = 0;
  void* r = nullptr;
  plugin->startEvent(ctx, &r, &p2p);
  plugin->stopEvent(r);
  EXPECT_EQ(plugin->finalize(ctx), kNcclSuccess);
  std::string path = loaded.trace_path();
  loaded.shutdown();

  auto t = ingest::native::ReadNative(path);
  ASSERT_TRUE(t) << t.error().message;
  ASSERT_EQ(t->collectives.size(), 2u);
  EXPECT_EQ(t->Str(t->collectives.name[0]), "reduce_scatter");
  EXPECT_EQ(t->Str(t->collectives.dtype[0]), "Half");
  EXPECT_EQ(t->collectives.seq[0], 5);
  EXPECT_EQ(t->collectives.bytes[0], 600);
  EXPECT_EQ(t->collectives.group_size[0], 4);
  EXPECT_EQ(t->Str(t->collectives.pg_name[0]), "0000000000000077");
  std::int32_t op = t->collectives.cpu_op[0];
  ASSERT_GE(op, 0);
  const auto records = CollectiveRecords(path);
  ASSERT_EQ(records.size(), 2u);
  EXPECT_GE(records[0].end_ns - records[0].start_ns, 2'000'000u);
  EXPECT_EQ(t->Str(t->collectives.name[1]), "recv");
  EXPECT_EQ(t->collectives.bytes[1], 128);
  std::remove(path.c_str());
}

}  // namespace
}  // namespace plasmient::collect::nccl
