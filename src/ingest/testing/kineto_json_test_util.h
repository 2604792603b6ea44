// Helpers shared by the Kineto ingest tests (test-only).
#pragma once

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <simdjson.h>
#include <zlib.h>

#include <gtest/gtest.h>

#include "ingest/kineto_json/chunk_reader.h"
#include "model/data_quality.h"
#include "model/trace.h"

namespace plasmient::ingest::testing {

// gzip-compresses `text` (one member) at zlib `level` (0: stored blocks only), with `header`'s
// optional fields when given.
inline std::string Gzip(std::string_view text, int level = 6, gz_header* header = nullptr) {
  z_stream zs{};
  deflateInit2(&zs, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
  if (header != nullptr) deflateSetHeader(&zs, header);
  std::string out(deflateBound(&zs, text.size()) + 64, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  zs.avail_in = static_cast<uInt>(text.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  deflate(&zs, Z_FINISH);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

// No cap on what a gzip input may inflate to, for tests that give one.
inline constexpr std::int64_t kNoCap = std::int64_t{1} << 40;

// What a reader handed out, read to its end or its error.
struct DrainedChunks {
  std::string bytes;
  std::string error;                   // empty when the input read to its end
  std::vector<std::int64_t> raw_done;  // raw_bytes_done() after each chunk
};

inline DrainedChunks DrainChunks(ChunkReader& reader) {
  DrainedChunks out;
  while (true) {
    auto chunk = reader.Next();
    out.raw_done.push_back(reader.raw_bytes_done());
    if (!chunk) {
      out.error = chunk.error().message;
      return out;
    }
    if (chunk->empty()) return out;
    out.bytes.append(*chunk);
  }
}

inline std::string ReadWholeFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The shared trace folder (PLASMIENT_SHARED_TRACES), or empty when it is not there.
inline std::filesystem::path SharedTraces() {
  const char* env = std::getenv("PLASMIENT_SHARED_TRACES");
  std::filesystem::path dir = env != nullptr ? env : "../shared/traces";
  std::error_code ec;
  return std::filesystem::is_directory(dir, ec) ? dir : std::filesystem::path{};
}

struct SharedTrace {
  std::string format;  // manifest.json's "format": "kineto-json", "kineto-json.gz", ...
  std::filesystem::path path;
};

// The shared traces manifest.json lists, whose format starts with `format_prefix`; empty when
// the folder is not there.
inline std::vector<SharedTrace> SharedTracesOf(std::string_view format_prefix) {
  std::vector<SharedTrace> out;
  auto dir = SharedTraces();
  if (dir.empty()) return out;
  simdjson::dom::parser parser;
  simdjson::dom::element manifest;
  if (parser.load((dir / "manifest.json").string()).get(manifest) != simdjson::SUCCESS) return out;
  for (simdjson::dom::element e : manifest.get_array()) {
    std::string_view format, file;
    if (e["format"].get_string().get(format) != simdjson::SUCCESS || !format.starts_with(format_prefix))
      continue;
    if (e["file"].get_string().get(file) == simdjson::SUCCESS)
      out.push_back({std::string(format), dir / file});
  }
  return out;
}

// Every row of every table, every string in pool order and every data-quality count with its first
// byte offset: `a` and `b` hold the same events, read the same way.
inline void ExpectSameRows(const model::Trace& a, const model::Trace& b) {
  ASSERT_EQ(a.strings.size(), b.strings.size());
  for (std::uint32_t i = 0; i < a.strings.size(); ++i) {
    ASSERT_EQ(a.strings.Get(StringId{i}), b.strings.Get(StringId{i})) << "string " << i;
  }
  EXPECT_EQ(a.gpu.start_ns, b.gpu.start_ns);
  EXPECT_EQ(a.gpu.end_ns, b.gpu.end_ns);
  EXPECT_EQ(a.gpu.device, b.gpu.device);
  EXPECT_EQ(a.gpu.stream, b.gpu.stream);
  EXPECT_EQ(a.gpu.pid, b.gpu.pid);
  EXPECT_TRUE(a.gpu.name == b.gpu.name);
  EXPECT_TRUE(a.gpu.kind == b.gpu.kind);
  EXPECT_EQ(a.gpu.correlation, b.gpu.correlation);
  EXPECT_EQ(a.gpu.external_id, b.gpu.external_id);
  EXPECT_EQ(a.gpu.bytes, b.gpu.bytes);
  EXPECT_EQ(a.api.start_ns, b.api.start_ns);
  EXPECT_EQ(a.api.end_ns, b.api.end_ns);
  EXPECT_EQ(a.api.pid, b.api.pid);
  EXPECT_EQ(a.api.tid, b.api.tid);
  EXPECT_TRUE(a.api.name == b.api.name);
  EXPECT_EQ(a.api.correlation, b.api.correlation);
  EXPECT_EQ(a.api.external_id, b.api.external_id);
  EXPECT_EQ(a.cpu.start_ns, b.cpu.start_ns);
  EXPECT_EQ(a.cpu.end_ns, b.cpu.end_ns);
  EXPECT_EQ(a.cpu.pid, b.cpu.pid);
  EXPECT_EQ(a.cpu.tid, b.cpu.tid);
  EXPECT_TRUE(a.cpu.name == b.cpu.name);
  EXPECT_TRUE(a.cpu.kind == b.cpu.kind);
  EXPECT_EQ(a.cpu.external_id, b.cpu.external_id);
  EXPECT_EQ(a.cpu.step, b.cpu.step);
  EXPECT_TRUE(a.cpu.input_dims == b.cpu.input_dims);
  EXPECT_TRUE(a.cpu.input_types == b.cpu.input_types);
  EXPECT_TRUE(a.cpu.concrete_inputs == b.cpu.concrete_inputs);
  EXPECT_EQ(a.cpu.sequence, b.cpu.sequence);
  EXPECT_EQ(a.cpu.forward_thread, b.cpu.forward_thread);
  EXPECT_TRUE(a.cpu.module_hierarchy == b.cpu.module_hierarchy);
  EXPECT_EQ(a.collectives.cpu_op, b.collectives.cpu_op);
  EXPECT_EQ(a.collectives.gpu, b.collectives.gpu);
  EXPECT_TRUE(a.collectives.name == b.collectives.name);
  EXPECT_EQ(a.collectives.in_nelems, b.collectives.in_nelems);
  EXPECT_EQ(a.collectives.out_nelems, b.collectives.out_nelems);
  EXPECT_TRUE(a.collectives.dtype == b.collectives.dtype);
  EXPECT_EQ(a.collectives.group_size, b.collectives.group_size);
  EXPECT_TRUE(a.collectives.pg_name == b.collectives.pg_name);
  EXPECT_TRUE(a.collectives.pg_ranks == b.collectives.pg_ranks);
  EXPECT_EQ(a.collectives.seq, b.collectives.seq);
  EXPECT_EQ(a.samples.ts_ns, b.samples.ts_ns);
  EXPECT_EQ(a.samples.device, b.samples.device);
  EXPECT_TRUE(a.samples.metric == b.samples.metric);
  EXPECT_EQ(a.samples.value, b.samples.value);
  for (std::size_t i = 0; i < static_cast<std::size_t>(model::Dq::kCount); ++i) {
    auto id = static_cast<model::Dq>(i);
    EXPECT_EQ(a.quality.Get(id), b.quality.Get(id)) << model::Describe(id).name;
    EXPECT_EQ(a.quality.FirstOffset(id), b.quality.FirstOffset(id)) << model::Describe(id).name;
  }
}

}  // namespace plasmient::ingest::testing
