#include "ingest/kineto_json/event_framer.h"

#include <algorithm>
#include <cstddef>
#include <cstring>

#include "ingest/kineto_json/json_text.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace plasmient::ingest {
namespace {

constexpr std::size_t kNotFound = static_cast<std::size_t>(-1);
constexpr std::size_t kMaxReservedBatchBytes = 16 << 20;

bool IsSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

std::size_t SkipSpace(const char* p, std::size_t i, std::size_t n) {
  while (i < n && IsSpace(p[i])) ++i;
  return i;
}

// Index of the next '"', '{', '}', '[' or ']' at or after i, else n.
std::size_t FindStructural(const char* p, std::size_t i, std::size_t n) {
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i lower = _mm_set1_epi8(0x20);  // '[' | 0x20 == '{', ']' | 0x20 == '}'
  const __m128i open = _mm_set1_epi8('{');
  const __m128i close = _mm_set1_epi8('}');
  for (; i + 16 <= n; i += 16) {
    __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
    __m128i folded = _mm_or_si128(v, lower);
    __m128i hits = _mm_or_si128(_mm_cmpeq_epi8(v, quote),
                                _mm_or_si128(_mm_cmpeq_epi8(folded, open), _mm_cmpeq_epi8(folded, close)));
    int mask = _mm_movemask_epi8(hits);
    if (mask != 0) return i + static_cast<std::size_t>(__builtin_ctz(static_cast<unsigned>(mask)));
  }
#endif
  for (; i < n; ++i) {
    char c = p[i];
    if (c == '"' || c == '{' || c == '}' || c == '[' || c == ']') return i;
  }
  return n;
}

// Advances over the rest of a nested value (object, array, or string when depth is 0), one
// token at a time. Returns the index just after the value's end, or kNotFound when `n` comes first.
std::size_t ScanTokens(const char* p, std::size_t i, std::size_t n, EventFramer::Nest& st) {
  while (i < n) {
    if (st.in_string) {
      if (st.escape) {
        st.escape = false;
        ++i;
        continue;
      }
      i = FindStringEnd(p, i, n);
      if (i == n) break;
      if (p[i++] == '\\') {
        st.escape = true;
        continue;
      }
      st.in_string = false;
      if (st.depth == 0) return i;
      continue;
    }
    i = FindStructural(p, i, n);
    if (i == n) break;
    char c = p[i++];
    if (c == '"') {
      st.in_string = true;
    } else if (c == '{' || c == '[') {
      ++st.depth;
    } else if (--st.depth <= 0) {
      return i;
    }
  }
  return kNotFound;
}

#if defined(__SSE2__)
struct BlockMasks {
  std::uint64_t quote = 0, backslash = 0, open = 0, close = 0;
};

// Bit k of each mask says whether byte k of the 64-byte block is that character: 16 bytes a
// step (SSE2, every x86-64), or 32 (AVX2, where the processor has it).
struct Sse2Blocks {
  static BlockMasks Classify(const char* p) {
    const __m128i quote = _mm_set1_epi8('"');
    const __m128i backslash = _mm_set1_epi8('\\');
    const __m128i lower = _mm_set1_epi8(0x20);
    const __m128i open = _mm_set1_epi8('{');
    const __m128i close = _mm_set1_epi8('}');
    BlockMasks m;
    for (std::ptrdiff_t k = 0; k < 4; ++k) {
      __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * k));
      __m128i folded = _mm_or_si128(v, lower);
      auto bits = [&](__m128i hits) {
        return static_cast<std::uint64_t>(static_cast<std::uint32_t>(_mm_movemask_epi8(hits))) << (16 * k);
      };
      m.quote |= bits(_mm_cmpeq_epi8(v, quote));
      m.backslash |= bits(_mm_cmpeq_epi8(v, backslash));
      m.open |= bits(_mm_cmpeq_epi8(folded, open));
      m.close |= bits(_mm_cmpeq_epi8(folded, close));
    }
    return m;
  }
};

#if defined(__x86_64__)
std::uint64_t Bits32(int mask) { return static_cast<std::uint32_t>(mask); }

struct Avx2Blocks {
  [[gnu::target("avx2")]] static BlockMasks Classify(const char* p) {
    const __m256i quote = _mm256_set1_epi8('"');
    const __m256i backslash = _mm256_set1_epi8('\\');
    const __m256i lower = _mm256_set1_epi8(0x20);
    const __m256i open = _mm256_set1_epi8('{');
    const __m256i close = _mm256_set1_epi8('}');
    BlockMasks m;
    for (std::ptrdiff_t k = 0; k < 2; ++k) {
      __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 32 * k));
      __m256i folded = _mm256_or_si256(v, lower);
      // No lambda here: it would not be compiled for AVX2.
      const int shift = 32 * static_cast<int>(k);
      m.quote |= Bits32(_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, quote))) << shift;
      m.backslash |= Bits32(_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, backslash))) << shift;
      m.open |= Bits32(_mm256_movemask_epi8(_mm256_cmpeq_epi8(folded, open))) << shift;
      m.close |= Bits32(_mm256_movemask_epi8(_mm256_cmpeq_epi8(folded, close))) << shift;
    }
    return m;
  }
};
#endif

// Bit k = XOR of bits 0..k: set from an opening quote up to, not including, its closing quote.
std::uint64_t PrefixXor(std::uint64_t x) {
  x ^= x << 1;
  x ^= x << 2;
  x ^= x << 4;
  x ^= x << 8;
  x ^= x << 16;
  x ^= x << 32;
  return x;
}

// ScanTokens, 64 bytes at a time where the block has no backslash (almost always in traces):
// quotes give the in-string mask, brackets outside strings move the depth.
template <typename Blocks>
std::size_t ScanBlocks(const char* p, std::size_t i, std::size_t n, EventFramer::Nest& st) {
  while (i + 64 <= n && st.depth > 0 && !st.escape) {
    BlockMasks m = Blocks::Classify(p + i);
    if (m.backslash != 0) {
      std::size_t end = ScanTokens(p, i, i + 64, st);
      if (end != kNotFound) return end;
      i += 64;
      continue;
    }
    std::uint64_t inside = PrefixXor(m.quote) ^ (st.in_string ? ~std::uint64_t{0} : 0);
    std::uint64_t structural = (m.open | m.close) & ~inside;
    while (structural != 0) {
      int bit = __builtin_ctzll(structural);
      if ((m.open >> bit) & 1) {
        ++st.depth;
      } else if (--st.depth <= 0) {
        st.in_string = false;
        return i + static_cast<std::size_t>(bit) + 1;
      }
      structural &= structural - 1;
    }
    st.in_string = (inside >> 63) != 0;
    i += 64;
  }
  return ScanTokens(p, i, n, st);
}

#if defined(__x86_64__)
// Everything ScanBlocks calls is compiled into this one function for AVX2 (flatten), so the
// wide loads stay inside code that only runs where the processor has them.
[[gnu::target("avx2"), gnu::flatten]] std::size_t ScanBlocksAvx2(const char* p, std::size_t i, std::size_t n,
                                                                 EventFramer::Nest& st) {
  return ScanBlocks<Avx2Blocks>(p, i, n, st);
}
#endif
#endif

std::size_t ScanNested(const char* p, std::size_t i, std::size_t n, EventFramer::Nest& st, FramerScan scan) {
  if (scan == FramerScan::kTokens) return ScanTokens(p, i, n, st);
#if defined(__SSE2__)
#if defined(__x86_64__)
  static const bool avx2 = __builtin_cpu_supports("avx2") != 0;
  if (avx2 && scan == FramerScan::kWidest) return ScanBlocksAvx2(p, i, n, st);
#endif
  return ScanBlocks<Sse2Blocks>(p, i, n, st);
#else
  return ScanTokens(p, i, n, st);
#endif
}

bool WantedTopLevelKey(std::string_view key) {
  return key == "deviceProperties" || key == "distributedInfo" || key == "baseTimeNanoseconds" ||
         key == "schemaVersion" || key == "traceName" || key == "displayTimeUnit" || key == "host_name" ||
         key == "hostname" || key == "trace_id";
}

}  // namespace

EventFramer::EventFramer(std::string name, std::size_t batch_bytes, BatchSink sink,
                         std::size_t max_event_bytes)
    : name_(std::move(name)),
      batch_bytes_(batch_bytes == 0 ? 1 : batch_bytes),
      max_event_bytes_(max_event_bytes),
      sink_(std::move(sink)) {
  // A batch is about batch_bytes long: grown by doubling it would be copied a dozen times over,
  // once per input where nothing is recycled (a job's small ranks read on one thread).
  batch_.json.reserve(std::min(batch_bytes_, kMaxReservedBatchBytes) + kBatchPadding);
}

std::unexpected<Error> EventFramer::Problem(std::string_view what, std::size_t i) const {
  return Fail("{}: {} at byte {}", name_, what, base_ + static_cast<std::int64_t>(i));
}

Status EventFramer::Feed(std::string_view chunk) {
  const char* p = chunk.data();
  std::size_t n = chunk.size();
  std::size_t i = 0;
  start_ = 0;
  while (i < n) PLASMIENT_TRY(Step(p, n, i));
  // Keep what an unfinished event or value has so far; it continues at the next chunk's start.
  if (state_ == State::kEvent || ((state_ == State::kValue || state_ == State::kScalar) && capture_)) {
    if (carry_.size() + (n - start_) > max_event_bytes_) {
      std::int64_t began = state_ == State::kEvent ? base_ + static_cast<std::int64_t>(start_) -
                                                         static_cast<std::int64_t>(carry_.size())
                                                   : value_offset_;
      return Fail("{}: one event or value is longer than {} MiB (the cap) at byte {}", name_,
                  max_event_bytes_ >> 20, began);
    }
    carry_.append(p + start_, n - start_);
  }
  base_ += static_cast<std::int64_t>(n);
  return Ok();
}

void EventFramer::StartValue(const char* p, std::size_t i, bool capture, State after) {
  capture_ = capture;
  after_value_ = after;
  start_ = i;
  value_offset_ = base_ + static_cast<std::int64_t>(i);
  carry_.clear();
  char c = p[i];
  if (c == '{' || c == '[') {
    nest_ = Nest{1, false, false};
    state_ = State::kValue;
  } else if (c == '"') {
    nest_ = Nest{0, true, false};
    state_ = State::kValue;
  } else {
    state_ = State::kScalar;
  }
}

Status EventFramer::Step(const char* p, std::size_t n, std::size_t& i) {
  switch (state_) {
    case State::kStart: {
      if (base_ == 0 && i == 0 && n >= 3 && std::memcmp(p, "\xEF\xBB\xBF", 3) == 0) i = 3;  // UTF-8 BOM
      i = SkipSpace(p, i, n);
      if (i == n) return Ok();
      if (p[i] == '{') {
        state_ = State::kTopKey;
      } else if (p[i] == '[') {
        root_array_ = true;
        saw_events_ = true;
        state_ = State::kEventsArray;
      } else {
        return Problem("not a JSON trace (expected '{')", i);
      }
      ++i;
      return Ok();
    }
    case State::kTopKey: {
      i = SkipSpace(p, i, n);
      if (i == n) return Ok();
      char c = p[i];
      if (c == '"') {
        key_.clear();
        key_escape_ = false;
        state_ = State::kKeyString;
      } else if (c == '}') {
        state_ = State::kDone;
      } else if (c != ',') {
        return Problem("not JSON: expected a key in the top-level object", i);
      }
      ++i;
      return Ok();
    }
    case State::kKeyString: {
      while (i < n) {
        if (key_escape_) {
          key_escape_ = false;
          key_.push_back(p[i++]);
          continue;
        }
        std::size_t j = FindStringEnd(p, i, n);
        key_.append(p + i, j - i);
        if (key_.size() > kMaxTopLevelKeyBytes) return Problem("a top-level key longer than 64 KiB", j);
        i = j;
        if (i == n) return Ok();
        if (p[i] == '\\') {
          key_escape_ = true;
          key_.push_back(p[i++]);
          continue;
        }
        ++i;
        state_ = State::kColon;
        return Ok();
      }
      return Ok();
    }
    case State::kColon: {
      i = SkipSpace(p, i, n);
      if (i == n) return Ok();
      if (p[i] != ':') return Problem("not JSON: expected ':' after a top-level key", i);
      ++i;
      state_ = State::kTopValue;
      return Ok();
    }
    case State::kTopValue: {
      i = SkipSpace(p, i, n);
      if (i == n) return Ok();
      if (key_ == "traceEvents") {
        if (p[i] != '[') return Problem("traceEvents is not an array", i);
        saw_events_ = true;
        state_ = State::kEventsArray;
        ++i;
        return Ok();
      }
      StartValue(p, i, WantedTopLevelKey(key_), State::kTopKey);
      if (state_ == State::kValue) ++i;  // past the opening bracket or quote
      return Ok();
    }
    case State::kEventsArray: {
      i = SkipSpace(p, i, n);
      if (i == n) return Ok();
      char c = p[i];
      if (c == ',') {
        ++i;
      } else if (c == ']') {
        ++i;
        state_ = root_array_ ? State::kDone : State::kTopKey;
      } else if (c == '{') {
        event_offset_ = base_ + static_cast<std::int64_t>(i);
        start_ = i++;
        carry_.clear();
        nest_ = Nest{1, false, false};
        state_ = State::kEvent;
      } else if (c == '}') {
        return Problem("not JSON: '}' inside the traceEvents array", i);
      } else {
        ++non_object_entries_;
        StartValue(p, i, false, State::kEventsArray);
        if (state_ == State::kValue) ++i;
      }
      return Ok();
    }
    case State::kEvent: {
      std::size_t j = ScanNested(p, i, n, nest_, scan_);
      if (j == kNotFound) {
        i = n;
        return Ok();
      }
      PLASMIENT_TRY(EmitEvent(std::string_view(p + start_, j - start_)));
      i = j;
      state_ = State::kEventsArray;
      return Ok();
    }
    case State::kValue:
    case State::kScalar: {
      std::size_t j;
      if (state_ == State::kValue) {
        j = ScanNested(p, i, n, nest_, scan_);
        if (j == kNotFound) {
          i = n;
          return Ok();
        }
      } else {
        j = i;
        while (j < n && p[j] != ',' && p[j] != '}' && p[j] != ']' && !IsSpace(p[j])) ++j;
        if (j == n) {
          i = n;
          return Ok();
        }
      }
      if (capture_) {
        carry_.append(p + start_, j - start_);
        top_level_.push_back(TopLevelValue{key_, std::move(carry_), value_offset_});
        carry_.clear();
      }
      capture_ = false;
      i = j;
      state_ = after_value_;
      return Ok();
    }
    case State::kDone: {
      i = SkipSpace(p, i, n);
      if (i < n) return Problem("not JSON: data after the end of the top-level value", i);
      return Ok();
    }
  }
  return Ok();
}

Status EventFramer::EmitEvent(std::string_view tail) {
  ++events_;
  std::string_view whole = tail;
  if (!carry_.empty()) {  // once per chunk at most: the event that straddled the boundary
    carry_.append(tail);
    whole = carry_;
    tail = {};
  }
  switch (PrefilterEvent(whole)) {
    case Prefiltered::kFlow:
      ++prefiltered_.flows;
      carry_.clear();
      return Ok();
    case Prefiltered::kInstant:
      ++prefiltered_.instants;
      carry_.clear();
      return Ok();
    case Prefiltered::kPythonFunction:
      ++prefiltered_.python_functions;
      carry_.clear();
      return Ok();
    case Prefiltered::kParse:
      break;
  }
  batch_.Add(carry_, tail, event_offset_);
  carry_.clear();
  if (batch_.json.size() >= batch_bytes_) return FlushBatch();
  return Ok();
}

Status EventFramer::FlushBatch() {
  if (batch_.events() == 0) return Ok();
  batch_.Seal();
  if (!sink_(batch_)) return Fail("{}: reading stopped at byte {}", name_, base_);
  batch_.Clear();
  return Ok();
}

Status EventFramer::Finish() {
  switch (state_) {
    case State::kStart:
      return Fail("{}: empty input (no JSON) at byte {}", name_, base_);
    case State::kEventsArray:
    case State::kEvent:
      return Fail("{}: truncated: the traceEvents array is not closed at byte {}", name_, base_);
    case State::kDone:
      break;
    case State::kScalar:
      if (root_array_ || after_value_ == State::kEventsArray) {
        return Fail("{}: truncated: the traceEvents array is not closed at byte {}", name_, base_);
      }
      [[fallthrough]];
    default:
      return Fail("{}: truncated: the top-level object is not closed at byte {}", name_, base_);
  }
  if (!saw_events_) return Fail("{}: {} at byte {}", name_, kNoTraceEvents, base_);
  return FlushBatch();
}

}  // namespace plasmient::ingest
