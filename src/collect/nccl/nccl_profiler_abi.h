// The NCCL profiler plugin ABI, versions 5 (NCCL 2.28) and 4 (NCCL 2.27), declared here from the
// documented layouts (NCCL installs no plugin header). Field order and sizes are checked below;
// see gpu-apis.md section 7.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>

namespace plasmient::collect::nccl {

enum NcclResult : int { kNcclSuccess = 0, kNcclInternalError = 3, kNcclInvalidArgument = 4 };

typedef void (*NcclDebugLogger)(int level, unsigned long flags, const char* file, int line, const char* fmt,
                                ...);

enum EventType : std::uint64_t {
  kProfileGroup = 1 << 0,
  kProfileColl = 1 << 1,
  kProfileP2p = 1 << 2,
  kProfileProxyOp = 1 << 3,
  kProfileProxyStep = 1 << 4,
  kProfileProxyCtrl = 1 << 5,
  kProfileKernelCh = 1 << 6,
  kProfileNetPlugin = 1 << 7,
  kProfileGroupApi = 1 << 8,
  kProfileCollApi = 1 << 9,
  kProfileP2pApi = 1 << 10,
  kProfileKernelLaunch = 1 << 11,
};

// ncclProfilerEventState_t (shared by v1-v5); only the values we act on are named.
enum EventState : int {
  kStateKernelChStop = 22,
};

// Union members v4 and v5 share.
struct ProxyOpDescr {
  pid_t pid;
  std::uint8_t channelId;
  int peer;
  int nSteps;
  int chunkSize;
  int isSend;
};
struct ProxyStepDescr {
  int step;
};
struct KernelChDescr {
  std::uint8_t channelId;
  std::uint64_t pTimer;  // GPU globaltimer at the channel's start
};
struct NetPluginDescr {
  std::int64_t id;
  void* data;
};

struct EventDescrV5 {
  std::uint64_t type;
  void* parentObj;
  int rank;
  union {
    struct {
      int graphCaptured;
      int groupDepth;
    } groupApi;
    struct {
      const char* func;
      std::size_t count;
      const char* datatype;
      int root;
      void* stream;
      bool graphCaptured;
    } collApi;
    struct {
      const char* func;
      std::size_t count;
      const char* datatype;
      void* stream;
      bool graphCaptured;
    } p2pApi;
    struct {
      void* stream;
    } kernelLaunch;
    struct {
      std::uint64_t seqNumber;
      const char* func;
      const void* sendBuff;
      void* recvBuff;
      std::size_t count;
      int root;
      const char* datatype;
      std::uint8_t nChannels;
      std::uint8_t nWarps;
      const char* algo;
      const char* proto;
      void* parentGroup;
    } coll;
    struct {
      const char* func;
      void* buff;
      const char* datatype;
      std::size_t count;
      int peer;
      std::uint8_t nChannels;
      void* parentGroup;
    } p2p;
    ProxyOpDescr proxyOp;
    ProxyStepDescr proxyStep;
    KernelChDescr kernelCh;
    NetPluginDescr netPlugin;
  };
};

union EventStateArgsV5 {
  struct {
    std::size_t transSize;
  } proxyStep;
  struct {
    int appendedProxyOps;
  } proxyCtrl;
  struct {
    void* data;
  } netPlugin;
  struct {
    std::uint64_t pTimer;
  } kernelCh;
};

struct ProfilerV5 {
  const char* name;
  NcclResult (*init)(void** context, std::uint64_t commId, int* eActivationMask, const char* commName,
                     int nNodes, int nranks, int rank, NcclDebugLogger logfn);
  NcclResult (*startEvent)(void* context, void** eHandle, EventDescrV5* eDescr);
  NcclResult (*stopEvent)(void* eHandle);
  NcclResult (*recordEventState)(void* eHandle, int eState, EventStateArgsV5* eStateArgs);
  NcclResult (*finalize)(void* context);
};

// Layout checked against NCCL 2.28.9's example headers (gpu-apis.md 7.3).
static_assert(sizeof(EventDescrV5) == 112);
static_assert(offsetof(EventDescrV5, coll) == 24);
static_assert(offsetof(EventDescrV5, coll.datatype) == 24 + 48);
static_assert(offsetof(EventDescrV5, coll.parentGroup) == 24 + 80);
static_assert(offsetof(EventDescrV5, p2p.peer) == 24 + 32);
static_assert(offsetof(EventDescrV5, kernelCh.pTimer) == 24 + 8);
static_assert(sizeof(EventStateArgsV5) == 8);
static_assert(sizeof(ProfilerV5) == 48);
static_assert(offsetof(ProfilerV5, finalize) == 40);

// Version 4: `type` is one byte, coll/p2p lack `parentGroup`, init takes the comm hash after the
// name, and there are no API-level events. Every v4 union member is a prefix of its v5 namesake.
struct EventDescrV4 {
  std::uint8_t type;
  void* parentObj;
  int rank;
  union {
    struct {
      std::uint64_t seqNumber;
      const char* func;
      const void* sendBuff;
      void* recvBuff;
      std::size_t count;
      int root;
      const char* datatype;
      std::uint8_t nChannels;
      std::uint8_t nWarps;
      const char* algo;
      const char* proto;
    } coll;
    struct {
      const char* func;
      void* buff;
      const char* datatype;
      std::size_t count;
      int peer;
      std::uint8_t nChannels;
    } p2p;
    ProxyOpDescr proxyOp;
    ProxyStepDescr proxyStep;
    KernelChDescr kernelCh;
    NetPluginDescr netPlugin;
  };
};
using EventStateArgsV4 = EventStateArgsV5;  // identical union

struct ProfilerV4 {
  const char* name;
  NcclResult (*init)(void** context, int* eActivationMask, const char* commName, std::uint64_t commHash,
                     int nNodes, int nranks, int rank, NcclDebugLogger logfn);
  NcclResult (*startEvent)(void* context, void** eHandle, EventDescrV4* eDescr);
  NcclResult (*stopEvent)(void* eHandle);
  NcclResult (*recordEventState)(void* eHandle, int eState, EventStateArgsV4* eStateArgs);
  NcclResult (*finalize)(void* context);
};

// Layout of NCCL 2.27's profiler_v4.h.
static_assert(sizeof(EventDescrV4) == 104);
static_assert(offsetof(EventDescrV4, parentObj) == 8);
static_assert(offsetof(EventDescrV4, coll) == 24);
static_assert(offsetof(EventDescrV4, coll.datatype) == 24 + 48);
static_assert(offsetof(EventDescrV4, coll.proto) == 24 + 72);
static_assert(offsetof(EventDescrV4, p2p.peer) == 24 + 32);
static_assert(offsetof(EventDescrV4, proxyOp.isSend) == 24 + 20);
static_assert(offsetof(EventDescrV4, kernelCh.pTimer) == 24 + 8);
static_assert(sizeof(ProfilerV4) == 48);
static_assert(offsetof(EventDescrV5, coll.proto) == offsetof(EventDescrV4, coll.proto));
static_assert(offsetof(EventDescrV5, p2p.nChannels) == offsetof(EventDescrV4, p2p.nChannels));

}  // namespace plasmient::collect::nccl
