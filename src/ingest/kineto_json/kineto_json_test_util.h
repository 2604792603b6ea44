// Helpers shared by the Kineto ingest tests (test-only).
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>

#include <zlib.h>

namespace plasmient::ingest::testing {

// gzip-compresses `text` (one member) at zlib `level` (0: stored blocks only).
inline std::string Gzip(std::string_view text, int level = 6) {
  z_stream zs{};
  deflateInit2(&zs, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
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

}  // namespace plasmient::ingest::testing
