// The deflate engines behind GzipChunkReader: ISA-L's igzip where Plasmient was built with it
// (libisal-dev; several times zlib's speed), zlib otherwise. zlib is always built, so the two can
// be compared on the same input.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

namespace plasmient::ingest {

enum class GzipEngine { kZlib, kIsal };

// The engine gzip input goes through: kIsal when built with ISA-L, else kZlib.
GzipEngine DefaultGzipEngine();
bool HaveGzipEngine(GzipEngine engine);
// The engines this build has, zlib first.
std::vector<GzipEngine> BuiltGzipEngines();
// "ISA-L igzip" or "zlib", with its version.
std::string_view GzipEngineName(GzipEngine engine);

// One step of inflating one gzip member.
struct InflateStep {
  std::size_t consumed = 0;     // input bytes taken (an engine may buffer some internally)
  std::size_t produced = 0;     // output bytes written
  bool member_end = false;      // the member's trailer was read and its CRC matched
  const char* error = nullptr;  // corrupt input: what the engine says; nullptr when fine
  // At a member's end, bytes the engine had read ahead from earlier calls' input and hands back
  // (they follow the trailer: the next member, or trailing data). The caller feeds them first.
  // Owned by the inflater, valid until its next call.
  std::string_view returned;
};

// Inflates gzip members (header, deflate data, CRC-checked trailer) one at a time.
class Inflater {
 public:
  virtual ~Inflater() = default;
  // Takes what it can of `in` and fills what it can of `out`. Called with empty input, it still
  // writes output it holds back; no progress with no input left means the member is cut short.
  virtual InflateStep Inflate(std::span<const char> in, std::span<char> out) = 0;
  // Starts the next member (concatenated gzip).
  virtual void Reset() = 0;
};

// Null when `engine` was not built in or cannot start.
std::unique_ptr<Inflater> MakeInflater(GzipEngine engine);

}  // namespace plasmient::ingest
