#include "ingest/kineto_json/gzip_inflater.h"

#include <zlib.h>

#include <algorithm>
#include <array>
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
// Each member's header is read first with a header struct of ours (isal_inflate's own gzip mode
// parses it with one it leaves uninitialised, so its verdict on corrupt headers varies), then the
// deflate body, whose trailer (CRC-32 and size) ISA-L checks.
class IsalInflater final : public Inflater {
 public:
  IsalInflater() : state_(std::make_unique<inflate_state>()) { Reset(); }

  InflateStep Inflate(std::span<const char> in, std::span<char> out) override {
    std::size_t header_bytes = 0;
    if (in_header_) {
      state_->next_in = reinterpret_cast<std::uint8_t*>(const_cast<char*>(in.data()));
      state_->avail_in = static_cast<std::uint32_t>(in.size());
      int rc = isal_read_gzip_header(state_.get(), &header_);
      header_bytes = in.size() - state_->avail_in;  // a header cut short is kept by ISA-L
      if (rc == ISAL_END_INPUT) return InflateStep{.consumed = header_bytes};
      if (rc != ISAL_DECOMP_OK) {
        return InflateStep{.consumed = header_bytes,
                           .error = rc == ISAL_INCORRECT_CHECKSUM ? "incorrect header check" : Describe(rc)};
      }
      in_header_ = false;
      state_->crc_flag = ISAL_GZIP_NO_HDR_VER;  // the body, then the trailer checked against it
      in = in.subspan(header_bytes);
    }
    InflateStep step = InflateBody(in, out);
    step.consumed += header_bytes;
    return step;
  }

  void Reset() override {
    isal_inflate_init(state_.get());
    isal_gzip_header_init(&header_);  // no name, comment or extra buffers: those fields are skipped
    in_header_ = true;
    history_len_ = 0;
  }

 private:
  InflateStep InflateBody(std::span<const char> in, std::span<char> out) {
    state_->next_in = reinterpret_cast<std::uint8_t*>(const_cast<char*>(in.data()));
    state_->avail_in = static_cast<std::uint32_t>(in.size());
    state_->next_out = reinterpret_cast<std::uint8_t*>(out.data());
    state_->avail_out = static_cast<std::uint32_t>(out.size());
    int rc = isal_inflate(state_.get());
    InflateStep step{.produced = out.size() - state_->avail_out};
    // At a member's end ISA-L gives back the bytes it had read ahead past the trailer, rewinding
    // next_in; some may come from an earlier call's input, before in.data(). Those are taken
    // from the copy of the last bytes fed and handed back to the caller.
    std::size_t left = state_->avail_in;
    if (rc < 0 || rc == ISAL_NEED_DICT) {
      // What was read ahead no longer matters (on some errors avail_in even wraps below zero).
      step.consumed = in.size() - std::min(left, in.size());
      step.error = Describe(rc);
      return step;
    }
    std::size_t before = left > in.size() ? left - in.size() : 0;
    if (before > history_len_) {
      step.error = "the decoder gave back more input than it was fed";
      return step;
    }
    if (before > 0) {
      returned_.assign(history_.data() + history_len_ - before, before);
      returned_.append(in.data(), in.size());
      step.consumed = in.size();
      step.returned = returned_;
    } else {
      step.consumed = in.size() - left;
    }
    Remember(in.first(step.consumed));
    if (state_->block_state == ISAL_BLOCK_FINISH) {
      step.member_end = true;
      history_len_ = 0;
    }
    return step;
  }

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

  // Keeps the last bytes fed (ISA-L reads ahead at most 8 bytes).
  void Remember(std::span<const char> fed) {
    if (fed.size() >= history_.size()) {
      std::copy(fed.end() - history_.size(), fed.end(), history_.begin());
      history_len_ = history_.size();
      return;
    }
    std::size_t keep = std::min(history_len_, history_.size() - fed.size());
    std::copy(history_.begin() + (history_len_ - keep), history_.begin() + history_len_, history_.begin());
    std::copy(fed.begin(), fed.end(), history_.begin() + keep);
    history_len_ = keep + fed.size();
  }

  std::unique_ptr<inflate_state> state_;
  isal_gzip_header header_{};
  bool in_header_ = true;  // the member's header is not read yet
  std::array<char, 16> history_{};
  std::size_t history_len_ = 0;
  std::string returned_;
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

std::vector<GzipEngine> BuiltGzipEngines() {
  std::vector<GzipEngine> out;
  for (GzipEngine e : {GzipEngine::kZlib, GzipEngine::kIsal}) {
    if (HaveGzipEngine(e)) out.push_back(e);
  }
  return out;
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
