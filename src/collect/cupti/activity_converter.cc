#include "collect/cupti/activity_converter.h"

#include <unistd.h>

#include <cstring>

namespace plasmient::collect {
namespace {

using wire::HeaderFor;
using wire::RecordKind;

std::size_t HashKey(std::uintptr_t key) {
  key ^= key >> 33;
  key *= 0xff51afd7ed558ccdULL;
  key ^= key >> 33;
  return static_cast<std::size_t>(key);
}

// The fields every CUPTI memcpy record version shares (device-to-device copies add peers).
template <typename CuptiMemcpy>
wire::MemcpyRecord MemcpyCommon(const CuptiMemcpy& m) {
  wire::MemcpyRecord r{};
  r.header = HeaderFor<wire::MemcpyRecord>(RecordKind::kMemcpy);
  r.start_ns = m.start;
  r.end_ns = m.end;
  r.bytes = m.bytes;
  r.context = m.contextId;
  r.stream = m.streamId;
  r.correlation = m.correlationId;
  r.copy_kind = m.copyKind;
  r.src_kind = m.srcKind;
  r.dst_kind = m.dstKind;
  r.flags = m.flags;
  r.graph_id = m.graphId;
  return r;
}

}  // namespace

std::uint32_t* ActivityConverter::IdMap::Find(std::uintptr_t key, bool& inserted) {
  if ((used + 1) * 2 > keys.size()) {  // keep the load under one half
    std::vector<std::uintptr_t> old_keys(keys.empty() ? 1024 : keys.size() * 2, 0);
    std::vector<std::uint32_t> old_ids(old_keys.size(), 0);
    old_keys.swap(keys);
    old_ids.swap(ids);
    for (std::size_t i = 0; i < old_keys.size(); ++i) {
      if (old_keys[i] == 0) continue;
      std::size_t mask = keys.size() - 1;
      std::size_t j = HashKey(old_keys[i]) & mask;
      while (keys[j] != 0) j = (j + 1) & mask;
      keys[j] = old_keys[i];
      ids[j] = old_ids[i];
    }
  }
  std::size_t mask = keys.size() - 1;
  std::size_t j = HashKey(key) & mask;
  while (keys[j] != 0 && keys[j] != key) j = (j + 1) & mask;
  inserted = keys[j] == 0;
  if (inserted) {
    keys[j] = key;
    ++used;
  }
  return &ids[j];
}

ActivityConverter::ActivityConverter(RecordSink& sink, NextRecordFn next, ApiNameFn api_name)
    : sink_(sink),
      next_(next),
      api_name_(api_name),
      producer_(sink),
      pid_(static_cast<std::uint32_t>(getpid())) {}

std::uint32_t ActivityConverter::InternPointer(const char* text) {
  if (text == nullptr || *text == '\0') return 0;
  bool inserted = false;
  std::uint32_t* id = strings_.Find(reinterpret_cast<std::uintptr_t>(text), inserted);
  if (inserted) {
    *id = sink_.NewStringId();
    producer_.AppendString(*id, text);
  }
  return *id;
}

std::uint32_t ActivityConverter::InternText(const char* text) {
  constexpr std::size_t kMaxCached = 1 << 16;  // a program naming every range uniquely
  if (text == nullptr || *text == '\0') return 0;
  auto it = texts_.find(text);
  if (it != texts_.end()) return it->second;
  std::uint32_t id = sink_.NewStringId();
  producer_.AppendString(id, text);
  if (texts_.size() < kMaxCached) texts_.emplace(text, id);
  return id;
}

bool ActivityConverter::Timed(std::uint64_t start, std::uint64_t end) {
  if (start != 0 && end != 0 && end >= start) return true;
  ++stats_.invalid_records;
  sink_.CountDrops(wire::DropSource::kInvalidRecords, 1);
  return false;
}

std::uint32_t ActivityConverter::ApiNameId(wire::ApiDomain domain, std::uint32_t cbid) {
  std::uintptr_t key = (std::uintptr_t{static_cast<std::uint8_t>(domain)} << 32) | cbid;
  bool inserted = false;
  std::uint32_t* id = api_names_.Find(key, inserted);
  if (inserted) {
    const char* name = api_name_ ? api_name_(domain, cbid) : nullptr;
    *id = 0;
    if (name != nullptr && *name != '\0') {
      *id = sink_.NewStringId();
      producer_.AppendString(*id, name);
    }
  }
  return *id;
}

std::size_t ActivityConverter::ConvertBuffer(uint8_t* buffer, std::size_t valid_bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::size_t before = stats_.records;
  CUpti_Activity* record = nullptr;
  for (;;) {
    CUptiResult rc = next_(buffer, valid_bytes, &record);
    if (rc == CUPTI_SUCCESS) {
      Convert(record);
      continue;
    }
    if (rc != CUPTI_ERROR_MAX_LIMIT_REACHED) ++stats_.invalid_buffers;
    break;
  }
  producer_.Flush();
  return stats_.records - before;
}

void ActivityConverter::Convert(const CUpti_Activity* record) {
  switch (record->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
      const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
      kernels_seen_.fetch_add(1, std::memory_order_relaxed);
      if (!Timed(k->start, k->end)) return;
      wire::KernelRecord r;
      r.header = HeaderFor<wire::KernelRecord>(RecordKind::kKernel);
      r.start_ns = k->start;
      r.end_ns = k->end;
      r.device = k->deviceId;
      r.context = k->contextId;
      r.stream = k->streamId;
      r.correlation = k->correlationId;
      r.name_id = InternPointer(k->name);
      r.grid_x = k->gridX;
      r.grid_y = k->gridY;
      r.grid_z = k->gridZ;
      r.block_x = k->blockX;
      r.block_y = k->blockY;
      r.block_z = k->blockZ;
      r.static_shared_bytes = k->staticSharedMemory;
      r.dynamic_shared_bytes = k->dynamicSharedMemory;
      r.registers_per_thread = k->registersPerThread;
      r.launch_type = k->launchType;
      r.is_device_launched = k->isDeviceLaunched;
      r.graph_id = k->graphId;
      r.pad = 0;
      r.graph_node_id = k->graphNodeId;
      r.cluster_x = k->clusterX;
      r.cluster_y = k->clusterY;
      r.cluster_z = k->clusterZ;
      r.pad2 = 0;
      producer_.Append(r);
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
      if (!Timed(m->start, m->end)) return;
      wire::MemcpyRecord r = MemcpyCommon(*m);
      r.device = r.src_device = r.dst_device = m->deviceId;
      r.runtime_correlation = m->runtimeCorrelationId;
      producer_.Append(r);
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY2: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemcpyPtoP4*>(record);
      if (!Timed(m->start, m->end)) return;
      wire::MemcpyRecord r = MemcpyCommon(*m);
      r.device = m->deviceId;
      r.src_device = m->srcDeviceId;
      r.dst_device = m->dstDeviceId;
      producer_.Append(r);
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(record);
      if (!Timed(m->start, m->end)) return;
      wire::MemsetRecord r{};
      r.header = HeaderFor<wire::MemsetRecord>(RecordKind::kMemset);
      r.start_ns = m->start;
      r.end_ns = m->end;
      r.bytes = m->bytes;
      r.device = m->deviceId;
      r.context = m->contextId;
      r.stream = m->streamId;
      r.correlation = m->correlationId;
      r.value = m->value;
      r.memory_kind = m->memoryKind;
      r.flags = m->flags;
      r.graph_id = m->graphId;
      producer_.Append(r);
      break;
    }
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER: {
      const auto* a = reinterpret_cast<const CUpti_ActivityAPI*>(record);
      auto domain =
          record->kind == CUPTI_ACTIVITY_KIND_RUNTIME ? wire::ApiDomain::kRuntime : wire::ApiDomain::kDriver;
      wire::ApiRecord r{};
      r.header = HeaderFor<wire::ApiRecord>(RecordKind::kApi);
      r.start_ns = a->start;
      r.end_ns = a->end;
      r.pid = a->processId;
      r.tid = a->threadId;
      r.correlation = a->correlationId;
      r.cbid = a->cbid;
      r.name_id = ApiNameId(domain, a->cbid);
      r.return_value = a->returnValue;
      r.domain = static_cast<std::uint8_t>(domain);
      producer_.Append(r);
      break;
    }
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: {
      const auto* s = reinterpret_cast<const CUpti_ActivitySynchronization2*>(record);
      wire::SyncRecord r{};
      r.header = HeaderFor<wire::SyncRecord>(RecordKind::kSync);
      r.start_ns = s->start;
      r.end_ns = s->end;
      r.correlation = s->correlationId;
      r.context = s->contextId;
      r.stream = s->streamId;
      r.event = s->cudaEventId;
      r.type = static_cast<std::uint32_t>(s->type);
      producer_.Append(r);
      break;
    }
    case CUPTI_ACTIVITY_KIND_MARKER: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMarker2*>(record);
      wire::MarkerRecord r{};
      r.header = HeaderFor<wire::MarkerRecord>(RecordKind::kMarker);
      r.timestamp_ns = m->timestamp;
      r.id = m->id;
      r.flags = static_cast<std::uint32_t>(m->flags);
      if (m->objectKind == CUPTI_ACTIVITY_OBJECT_THREAD || m->objectKind == CUPTI_ACTIVITY_OBJECT_PROCESS) {
        r.pid = m->objectId.pt.processId;
        r.tid = m->objectId.pt.threadId;
      }
      r.name_id = InternText(m->name);
      r.domain_id = InternText(m->domain);
      producer_.Append(r);
      break;
    }
    case CUPTI_ACTIVITY_KIND_OVERHEAD: {
      const auto* o = reinterpret_cast<const CUpti_ActivityOverhead3*>(record);
      wire::OverheadRecord r{};
      r.header = HeaderFor<wire::OverheadRecord>(RecordKind::kOverhead);
      r.start_ns = o->start;
      r.end_ns = o->end;
      r.overhead_kind = static_cast<std::uint32_t>(o->overheadKind);
      r.object_kind = static_cast<std::uint32_t>(o->objectKind);
      if (o->objectKind == CUPTI_ACTIVITY_OBJECT_THREAD || o->objectKind == CUPTI_ACTIVITY_OBJECT_PROCESS) {
        r.pid = o->objectId.pt.processId;
        r.tid = o->objectId.pt.threadId;
      }
      producer_.Append(r);
      break;
    }
    case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: {
      const auto* e = reinterpret_cast<const CUpti_ActivityExternalCorrelation*>(record);
      wire::ExternalCorrelationRecord r{};
      r.header = HeaderFor<wire::ExternalCorrelationRecord>(RecordKind::kExternalCorrelation);
      r.external_id = e->externalId;
      r.correlation = e->correlationId;
      r.external_kind = static_cast<std::uint32_t>(e->externalKind);
      producer_.Append(r);
      break;
    }
    case CUPTI_ACTIVITY_KIND_DEVICE: {
      const auto* d = reinterpret_cast<const CUpti_ActivityDevice5*>(record);
      wire::DeviceRecord r{};
      r.header = HeaderFor<wire::DeviceRecord>(RecordKind::kDevice);
      r.device = d->id;
      r.name_id = InternPointer(d->name);
      r.sm_count = d->numMultiprocessors;
      r.cc_major = d->computeCapabilityMajor;
      r.cc_minor = d->computeCapabilityMinor;
      r.core_clock_khz = d->coreClockRate;
      r.global_memory_bytes = d->globalMemorySize;
      r.memory_bandwidth_kbps = d->globalMemoryBandwidth;
      static_assert(sizeof(d->uuid) == sizeof(r.uuid));
      std::memcpy(r.uuid, &d->uuid, sizeof r.uuid);
      producer_.Append(r);
      break;
    }
    default:
      ++stats_.ignored;
      return;
  }
  ++stats_.records;
}

}  // namespace plasmient::collect
