// Loads the agent .so like NCCL does (dlopen + dlsym "ncclProfiler_v5"), drives the plugin with
// fabricated events, and reads the resulting trace back.
#include <dlfcn.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include <gtest/gtest.h>

#include "collect/nccl/nccl_profiler_abi.h"
#include "ingest/native/native_reader.h"

namespace plasmient::collect::nccl {
namespace {

TEST(NcclProfilerPlugin, CollectivesAndP2pThroughDlopen) {
  std::string dir = ::testing::TempDir() + "/nccl_plugin_" + std::to_string(getpid());
  ASSERT_EQ(system(("mkdir -p " + dir).c_str()), 0);
  setenv("PLASMIENT_OUT_DIR", dir.c_str(), 1);
  setenv("PLASMIENT_NVML_PERIOD_MS", "0", 1);
  setenv("RANK", "2", 1);
  void* lib = dlopen(PLASMIENT_AGENT_SO, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(lib, nullptr) << dlerror();
  auto* plugin = static_cast<const ProfilerV5*>(dlsym(lib, "ncclProfiler_v5"));
  ASSERT_NE(plugin, nullptr);
  EXPECT_STREQ(plugin->name, "Plasmient");
  auto shutdown = reinterpret_cast<void (*)()>(dlsym(lib, "plasmient_agent_shutdown"));
  auto trace_path = reinterpret_cast<const char* (*)()>(dlsym(lib, "plasmient_agent_trace_path"));
  ASSERT_NE(shutdown, nullptr);

  void* ctx = nullptr;
  int mask = 0;
  ASSERT_EQ(plugin->init(&ctx, 0x1234abcdull, &mask, "world", 1, 4, 2, nullptr), kNcclSuccess);
  EXPECT_TRUE(mask & kProfileColl);
  EXPECT_TRUE(mask & kProfileP2p);
  EXPECT_TRUE(mask & kProfileKernelCh);

  // An AllReduce of 1000 bf16 with one kernel channel child.
  EventDescrV5 coll{};
  coll.type = kProfileColl;
  coll.rank = 2;
  coll.coll.seqNumber = 17;
  coll.coll.func = "AllReduce";
  coll.coll.count = 1000;
  coll.coll.datatype = "ncclBfloat16";
  coll.coll.root = 0;
  coll.coll.nChannels = 4;
  coll.coll.nWarps = 16;
  coll.coll.algo = "RING";
  coll.coll.proto = "SIMPLE";
  void* coll_handle = nullptr;
  ASSERT_EQ(plugin->startEvent(ctx, &coll_handle, &coll), kNcclSuccess);
  ASSERT_NE(coll_handle, nullptr);
  EventDescrV5 ch{};
  ch.type = kProfileKernelCh;
  ch.parentObj = coll_handle;
  ch.kernelCh.channelId = 0;
  void* ch_handle = nullptr;
  plugin->startEvent(ctx, &ch_handle, &ch);
  ASSERT_NE(ch_handle, nullptr);
  plugin->stopEvent(coll_handle);  // enqueued; the kernel is still running
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
  EXPECT_GE(t->cpu.end_ns[static_cast<std::size_t>(op)] - t->cpu.start_ns[static_cast<std::size_t>(op)],
            2'000'000);
  EXPECT_EQ(t->Str(t->collectives.name[1]), "send");
  EXPECT_EQ(t->collectives.bytes[1], 1024);
  EXPECT_EQ(t->collectives.seq[1], model::kNoId);
  EXPECT_EQ(t->quality.Get(model::Dq::kTruncatedNativeFile), 0);
  std::remove(path.c_str());
}

}  // namespace
}  // namespace plasmient::collect::nccl
