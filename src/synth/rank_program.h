// One rank's work for one step, as the CPU thread issues it: ops that launch at most one
// GPU activity each, communication, host stalls and synchronization. Builders make
// programs; the simulator turns them into times; the writer into Kineto events.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/time_units.h"
#include "synth/gpu_table.h"

namespace plasmient::synth {

enum class OpKind : std::uint8_t {
  kStepBegin,  // ProfilerStep#N opens on the CPU
  kHostStall,  // CPU busy, no launch (data loader): gpu_ns is the stall length
  kSync,       // cudaDeviceSynchronize: the CPU waits for every stream
  kWaitComm,   // compute stream waits for every communication issued so far
  kLinear,     // aten::linear > aten::addmm; d = {M, N, K, leading batch}
  kMm,         // aten::mm [M,K]x[K,N]; d = {M, N, K}
  kSdpaFwd,    // aten::_scaled_dot_product_flash_attention; d = {B, H, Lq, Lk, D}
  kSdpaBwd,    // aten::_scaled_dot_product_flash_attention_backward; same d
  kLayerNorm,  // aten::native_layer_norm [M, N]
  kLayerNormBwd,
  kGelu,  // aten::gelu [M, N]
  kGeluBwd,
  kAdd,              // aten::add [M, N] + [M, N]
  kLogSoftmax,       // aten::_log_softmax [M, N]
  kSoftmax,          // aten::_softmax [M, N]
  kTopk,             // aten::topk [M, N], k = d[2]
  kCopy,             // aten::copy_ [M, N] (KV-cache append)
  kArgmax,           // aten::argmax [M, N]
  kAdamUpdate,       // aten::add_ on a flat fp32 parameter buffer [numel]
  kCustomUnmodeled,  // an extension op with no shapes: the kernel has no model
  kTritonNoOp,       // a Triton kernel launched by cuLaunchKernel outside any op
  kMemcpyH2D,        // d[0] = bytes
  kMemcpyD2H,
  kMemsetZero,
  kAllReduce,  // nelems; group
  kAllToAll,
  kSend,  // peer
  kRecv,
};

bool IsCommunication(OpKind kind);
bool IsP2p(OpKind kind);
bool HasGpuActivity(OpKind kind);  // a kernel, memcpy or memset: not a step mark, stall or wait

// Local stream slots; the writer maps them to CUDA stream ids.
enum StreamSlot : std::uint8_t {
  kComputeStream = 0,
  kCollectiveStream = 1,
  kRecvPrevStream = 2,  // recv from the previous pipeline stage
  kSendNextStream = 3,
  kRecvNextStream = 4,
  kSendPrevStream = 5,
  kStreamSlots = 6,
};

struct Item {
  OpKind kind = OpKind::kStepBegin;
  Dtype dtype = Dtype::kBf16;
  bool causal = false;
  bool gates_compute = false;  // communication whose end the next compute kernel waits for
  std::uint8_t stream = kComputeStream;
  std::int16_t module = -1;           // index into Program::modules; -1 none
  std::int16_t forward_module = -1;   // a backward item: the module of the forward op it differentiates
  const char* autograd_fn = nullptr;  // backward node name, e.g. "MmBackward0"
  std::int64_t d[5] = {0, 0, 0, 0, 0};
  double flops = 0;
  double bytes = 0;
  bool flop_model = false;
  bool byte_model = false;
  TimeNs gpu_ns = 0;        // kernel duration; transfer time for communication; stall length
  TimeNs cpu_ns = 0;        // CPU time of the op around its launch
  std::uint32_t group = 0;  // communication group (collective group or P2P channel)
  std::int32_t group_size = 0;
  std::int32_t peer = -1;             // P2P peer rank
  std::int64_t nelems = 0;            // communication elements
  std::int64_t sequence_number = -1;  // autograd "Sequence number"
  // kHostStall: the host range the stall is recorded as (a runtime call when host_call_api, the
  // profiler's overhead when host_call_overhead, else an annotation; "" records none), and the cause the
  // truth gives its GPU idle. Null: the scenario's data loader or scheduler.
  const char* host_call = nullptr;
  bool host_call_api = false;
  bool host_call_overhead = false;  // recorded as the profiler's own work (Kineto cat "overhead")
  const char* cause = nullptr;
};

struct Program {
  int step = 0;  // ProfilerStep#N number
  std::vector<Item> items;
  std::vector<std::string> modules;         // "nn.Module: Linear_3", or an annotation's name
  std::vector<std::int16_t> module_parent;  // per module: the module it runs inside, or -1
};

}  // namespace plasmient::synth
