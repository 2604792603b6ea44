// Helpers shared by the Kineto ingest tests (test-only).
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <simdjson.h>
#include <zlib.h>

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

}  // namespace plasmient::ingest::testing
