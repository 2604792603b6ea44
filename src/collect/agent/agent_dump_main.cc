// plasmient_agent_dump FILE [--kernels]: reads an agent trace with the wire library only and
// prints a summary (or one CSV line per kernel / GEMM), for machines without the analyzer.
#include <cxxabi.h>

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
  std::map<int, std::int64_t> kinds;
  std::int64_t drops = 0;
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
          } else if (h.kind == RecordKind::kDrops) {
            drops += Load<DropRecord>(p).cumulative;  // cumulative per source: summary only
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
    return 0;
  }
  std::printf("file: %s\nchunks: %lld ok, %lld corrupt, truncated: %s%s\n", argv[1],
              static_cast<long long>(r.chunks_ok), static_cast<long long>(r.corrupt_chunks),
              r.truncated ? "yes " : "no", r.truncated ? r.first_problem.c_str() : "");
  for (const auto& [kind, n] : kinds) std::printf("record kind %d: %lld\n", kind, static_cast<long long>(n));
  std::printf("kernels: %zu, gemm calls: %zu, drop records (sum of cumulative): %lld\n", kernels.size(),
              gemms.size(), static_cast<long long>(drops));
  return 0;
}
