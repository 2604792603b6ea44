// plasmient_agent_dump FILE [--kernels]: reads an agent trace with the wire library only and
// prints a summary, or CSV: one line per kernel, GEMM call, copy, memset, NVTX range,
// collective, NVML sample and drop source, a `file` line (closing chunk seen, corrupt chunks)
// and a `header` line (whole_run, window or samples), for machines without the analyzer
// (scripts/gpu-check.sh).
#include <cxxabi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "wire/chunk_codec.h"

using namespace plasmient::wire;

namespace {

template <typename T>
T Load(const std::uint8_t* p) {
  T r;
  std::memcpy(&r, p, sizeof r);
  return r;
}

std::string Demangle(const std::string& name) {
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> out(
      abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status), &std::free);
  return status == 0 && out ? std::string(out.get()) : name;
}

std::string Csv(std::string s) {
  for (char& c : s) {
    if (c == '"') c = '\'';
  }
  return "\"" + s + "\"";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s FILE [--kernels]\n", argv[0]);
    return 2;
  }
  bool kernels_csv = argc > 2 && std::strcmp(argv[2], "--kernels") == 0;
  std::ifstream in(argv[1], std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "%s: cannot open\n", argv[1]);
    return 1;
  }
  std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)), {});
  std::unordered_map<std::uint32_t, std::string> strings;
  std::vector<KernelRecord> kernels;
  std::vector<GemmRecord> gemms;
  std::vector<MemcpyRecord> memcpys;
  std::vector<MemsetRecord> memsets;
  std::vector<MarkerRecord> markers;
  std::vector<CollectiveRecord> collectives;
  std::vector<NvmlSampleRecord> samples;
  std::map<int, std::int64_t> kinds;
  std::map<int, std::int64_t> drops;  // source -> largest cumulative count
  ScanReport r =
      ScanChunks(bytes.data(), bytes.size(), [&](const ChunkHeader&, const std::uint8_t* raw, std::size_t n) {
        WalkRecords(raw, n, [&](const RecordHeader& h, const std::uint8_t* p) {
          ++kinds[static_cast<int>(h.kind)];
          if (h.kind == RecordKind::kString) {
            auto s = Load<StringRecord>(p);
            strings[s.id].assign(reinterpret_cast<const char*>(p + sizeof s), s.length);
          } else if (h.kind == RecordKind::kKernel) {
            kernels.push_back(Load<KernelRecord>(p));
          } else if (h.kind == RecordKind::kGemm) {
            gemms.push_back(Load<GemmRecord>(p));
          } else if (h.kind == RecordKind::kMemcpy) {
            memcpys.push_back(Load<MemcpyRecord>(p));
          } else if (h.kind == RecordKind::kMemset) {
            memsets.push_back(Load<MemsetRecord>(p));
          } else if (h.kind == RecordKind::kMarker) {
            markers.push_back(Load<MarkerRecord>(p));
          } else if (h.kind == RecordKind::kCollective) {
            collectives.push_back(Load<CollectiveRecord>(p));
          } else if (h.kind == RecordKind::kNvmlSample) {
            samples.push_back(Load<NvmlSampleRecord>(p));
          } else if (h.kind == RecordKind::kDrops) {
            auto d = Load<DropRecord>(p);
            drops[d.source] = std::max(drops[d.source], d.cumulative);
          }
        });
      });
  if (!r.error.empty()) {
    std::fprintf(stderr, "%s: %s\n", argv[1], r.error.c_str());
    return 1;
  }
  if (kernels_csv) {
    std::printf("kind,name,start_ns,end_ns,correlation,m,n,k,batch,bytes\n");
    for (const auto& k : kernels) {
      std::printf("kernel,%s,%llu,%llu,%u,,,,,\n", Csv(Demangle(strings[k.name_id])).c_str(),
                  static_cast<unsigned long long>(k.start_ns), static_cast<unsigned long long>(k.end_ns),
                  k.correlation);
    }
    for (const auto& g : gemms) {
      std::printf("gemm,cublas::gemm,%llu,%llu,%u,%lld,%lld,%lld,%lld,\n",
                  static_cast<unsigned long long>(g.start_ns), static_cast<unsigned long long>(g.end_ns),
                  g.first_correlation, static_cast<long long>(g.m), static_cast<long long>(g.n),
                  static_cast<long long>(g.k), static_cast<long long>(g.batch));
    }
    for (const auto& m : memcpys) {
      std::printf("memcpy,kind%u,%llu,%llu,%u,,,,,%llu\n", m.copy_kind,
                  static_cast<unsigned long long>(m.start_ns), static_cast<unsigned long long>(m.end_ns),
                  m.correlation, static_cast<unsigned long long>(m.bytes));
    }
    for (const auto& m : memsets) {
      std::printf("memset,memset,%llu,%llu,%u,,,,,%llu\n", static_cast<unsigned long long>(m.start_ns),
                  static_cast<unsigned long long>(m.end_ns), m.correlation,
                  static_cast<unsigned long long>(m.bytes));
    }
    std::unordered_map<std::uint32_t, const MarkerRecord*> open;
    for (const auto& m : markers) {
      if (m.flags & kMarkerStart) open[m.id] = &m;
      if ((m.flags & kMarkerEnd) && open.count(m.id) != 0) {
        const MarkerRecord* s = open[m.id];
        std::printf("range,%s,%llu,%llu,,,,,,\n", Csv(strings[s->name_id]).c_str(),
                    static_cast<unsigned long long>(s->timestamp_ns),
                    static_cast<unsigned long long>(m.timestamp_ns));
        open.erase(m.id);
      }
    }
    for (const auto& c : collectives) {
      std::printf("collective,%s,%llu,%llu,%llu,%d,%d,,,%llu\n", Csv(strings[c.func_id]).c_str(),
                  static_cast<unsigned long long>(c.start_ns), static_cast<unsigned long long>(c.end_ns),
                  static_cast<unsigned long long>(c.seq), c.rank, c.nranks,
                  static_cast<unsigned long long>(c.bytes));
    }
    for (const auto& v : samples) {
      std::printf("sample,metric%u,%llu,%llu,%u,,,,,%.6g\n", v.metric,
                  static_cast<unsigned long long>(v.ts_ns), static_cast<unsigned long long>(v.ts_ns),
                  v.device, v.value);
    }
    for (const auto& [source, n] : drops)
      std::printf("drops,source%d,,,,,,,,%lld\n", source, static_cast<long long>(n));
    std::printf("file,%s,,,,,,,,%lld\n", r.truncated ? "truncated" : "last_chunk",
                static_cast<long long>(r.corrupt_chunks));
    // What the file covers: whole-run, a kernel window, or device-tier samples between windows.
    std::printf("header,%s,,,,,,,,%u\n",
                (r.header.flags & kFileWindow) == 0    ? "whole_run"
                : (r.header.flags & kFileKernels) != 0 ? "window"
                                                       : "samples",
                r.header.flags);
    return 0;
  }
  std::printf("file: %s\nchunks: %lld ok, %lld corrupt, truncated: %s%s\n", argv[1],
              static_cast<long long>(r.chunks_ok), static_cast<long long>(r.corrupt_chunks),
              r.truncated ? "yes " : "no", r.truncated ? r.first_problem.c_str() : "");
  for (const auto& [kind, n] : kinds) std::printf("record kind %d: %lld\n", kind, static_cast<long long>(n));
  std::int64_t dropped = 0;
  for (const auto& [source, n] : drops) dropped += n;
  std::printf("kernels: %zu, gemm calls: %zu, collectives: %zu, NVML samples: %zu, dropped records: %lld\n",
              kernels.size(), gemms.size(), collectives.size(), samples.size(),
              static_cast<long long>(dropped));
  return 0;
}
