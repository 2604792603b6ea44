#include "ingest/kineto_json/gzip_inflater.h"

#include <zlib.h>

#include <cstdint>
#include <string>

#include <fmt/format.h>

#ifdef PLASMIENT_HAVE_ISAL
#include <isa-l.h>
#endif

namespace plasmient::ingest {
namespace {

class ZlibInflater final : public Inflater {
 public:
  ZlibInflater() { ready_ = inflateInit2(&zs_, 15 + 16) == Z_OK; }  // 16: a gzip wrapper, not zlib's
  ~ZlibInflater() override {
    if (ready_) inflateEnd(&zs_);
  }
  bool ready() const { return ready_; }

  InflateStep Inflate(std::span<const char> in, std::span<char> out) override {
    zs_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
    zs_.avail_in = static_cast<uInt>(in.size());
    zs_.next_out = reinterpret_cast<Bytef*>(out.data());
    zs_.avail_out = static_cast<uInt>(out.size());
    int rc = inflate(&zs_, Z_NO_FLUSH);
    InflateStep step{.consumed = in.size() - zs_.avail_in, .produced = out.size() - zs_.avail_out};
    if (rc == Z_STREAM_END) {
      step.member_end = true;
    } else if (rc == Z_NEED_DICT) {
      step.error = "a preset dictionary is needed";
    } else if (rc != Z_OK && rc != Z_BUF_ERROR) {  // Z_BUF_ERROR: no progress possible yet
      step.error = zs_.msg != nullptr ? zs_.msg : "inflate error";
    }
    return step;
  }

  void Reset() override { inflateReset(&zs_); }

 private:
  z_stream zs_{};
  bool ready_ = false;
};

#ifdef PLASMIENT_HAVE_ISAL
// The state holds ISA-L's Huffman tables and 64 KiB of window: ~90 KiB, so it lives on the heap.
class IsalInflater final : public Inflater {
 public:
  IsalInflater() : state_(std::make_unique<inflate_state>()) { Reset(); }

  InflateStep Inflate(std::span<const char> in, std::span<char> out) override {
    state_->next_in = reinterpret_cast<std::uint8_t*>(const_cast<char*>(in.data()));
    state_->avail_in = static_cast<std::uint32_t>(in.size());
    state_->next_out = reinterpret_cast<std::uint8_t*>(out.data());
    state_->avail_out = static_cast<std::uint32_t>(out.size());
    int rc = isal_inflate(state_.get());
    InflateStep step{.consumed = in.size() - state_->avail_in, .produced = out.size() - state_->avail_out};
    if (rc < 0 || rc == ISAL_NEED_DICT) {
      step.error = Describe(rc);
    } else if (state_->block_state == ISAL_BLOCK_FINISH) {
      step.member_end = true;
    }
    return step;
  }

  void Reset() override {
    isal_inflate_init(state_.get());
    state_->crc_flag = ISAL_GZIP;  // parse the gzip header, check the trailer's CRC-32 and size
  }

 private:
  static const char* Describe(int rc) {
    switch (rc) {
      case ISAL_INVALID_BLOCK:
        return "invalid deflate block";
      case ISAL_INVALID_SYMBOL:
        return "invalid deflate symbol";
      case ISAL_INVALID_LOOKBACK:
        return "invalid distance too far back";
      case ISAL_INVALID_WRAPPER:
        return "invalid gzip header";
      case ISAL_UNSUPPORTED_METHOD:
        return "unknown compression method";
      case ISAL_INCORRECT_CHECKSUM:
        return "incorrect data check";
      case ISAL_NEED_DICT:
        return "a preset dictionary is needed";
      default:
        return "inflate error";
    }
  }

  std::unique_ptr<inflate_state> state_;
};
#endif

}  // namespace

GzipEngine DefaultGzipEngine() {
  return HaveGzipEngine(GzipEngine::kIsal) ? GzipEngine::kIsal : GzipEngine::kZlib;
}

bool HaveGzipEngine(GzipEngine engine) {
#ifdef PLASMIENT_HAVE_ISAL
  return true;
#else
  return engine == GzipEngine::kZlib;
#endif
}

std::string_view GzipEngineName(GzipEngine engine) {
#ifdef PLASMIENT_HAVE_ISAL
  static const std::string isal =
      fmt::format("ISA-L igzip {}.{}.{}", ISAL_MAJOR_VERSION, ISAL_MINOR_VERSION, ISAL_PATCH_VERSION);
  if (engine == GzipEngine::kIsal) return isal;
#endif
  if (engine == GzipEngine::kIsal) return "ISA-L igzip (not built)";
  return "zlib " ZLIB_VERSION;
}

std::unique_ptr<Inflater> MakeInflater(GzipEngine engine) {
#ifdef PLASMIENT_HAVE_ISAL
  if (engine == GzipEngine::kIsal) return std::make_unique<IsalInflater>();
#endif
  if (engine != GzipEngine::kZlib) return nullptr;
  auto zlib = std::make_unique<ZlibInflater>();
  if (!zlib->ready()) return nullptr;
  return zlib;
}

}  // namespace plasmient::ingest
