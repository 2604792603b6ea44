#include "export/json_writer.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>

#include <fmt/format.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace plasmient::exporting {

namespace {

// Bytes JSON strings cannot hold as they are: the quote, the backslash, control characters.
constexpr bool NeedsEscape(unsigned char c) { return c < 0x20 || c == '"' || c == '\\'; }

// Whether any of the eight bytes of `w` needs an escape, all at once: a byte below 0x20 leaves
// its high bit set in w - 0x20 per byte where its own is clear, and a byte equal to '"' or '\\'
// is a zero byte of w ^ that byte everywhere (exact as a yes/no: a borrow only runs on past a
// byte that already answered yes).
constexpr bool AnyNeedsEscape(std::uint64_t w) {
  constexpr std::uint64_t kOnes = 0x0101010101010101ull, kHighs = kOnes * 0x80;
  constexpr auto below = [](std::uint64_t v, std::uint64_t n) { return (v - kOnes * n) & ~v & kHighs; };
  return (below(w, 0x20) | below(w ^ (kOnes * '"'), 1) | below(w ^ (kOnes * '\\'), 1)) != 0;
}

#if defined(__SSE2__)
// Bit k set where byte k of the sixteen at p needs an escape.
unsigned EscapeMask16(const char* p) {
  const __m128i control = _mm_set1_epi8(0x1f), quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\');
  const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  // A byte below 0x20 is one whose unsigned max with 0x1f is 0x1f.
  const __m128i escapes = _mm_or_si128(_mm_cmpeq_epi8(_mm_max_epu8(v, control), control),
                                       _mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)));
  return static_cast<unsigned>(_mm_movemask_epi8(escapes));
}
#endif

// Index of the first byte at or after i that needs an escape, else s.size(): sixteen bytes at a
// time where SSE2 is there, eight otherwise. A job's JSON is tens of MB of names, paths and keys,
// nearly all plain; kernel names run to hundreds of bytes.
std::size_t NextEscape(std::string_view s, std::size_t i) {
#if defined(__SSE2__)
  for (; i + 16 <= s.size(); i += 16) {
    if (const unsigned mask = EscapeMask16(s.data() + i); mask != 0)
      return i + static_cast<std::size_t>(__builtin_ctz(mask));
  }
#endif
  for (std::uint64_t w; i + 8 <= s.size(); i += 8) {
    std::memcpy(&w, s.data() + i, 8);
    if (AnyNeedsEscape(w)) break;
  }
  while (i < s.size() && !NeedsEscape(static_cast<unsigned char>(s[i]))) ++i;
  return i;
}

// Room for a value's prefix (see JsonWriter::Prefix) and a short text after it.
constexpr std::size_t kShortText = 64;

// Writes "key": (": " pretty) at p and returns the end, or nullptr where `key` is too long for
// kShortText or needs an escape. The key's bytes are checked where they were copied to: p has
// room for kShortText + 16 bytes, so whole 16-byte loads reach no further, and the lanes past the
// key are masked off.
char* WriteShortKey(char* p, std::string_view key, bool pretty) {
  const std::size_t n = key.size();
  if (n + 4 > kShortText) return nullptr;
  *p++ = '"';
  std::memcpy(p, key.data(), n);
#if defined(__SSE2__)
  for (std::size_t i = 0; i < n; i += 16) {
    unsigned mask = EscapeMask16(p + i);
    if (n - i < 16) mask &= (1u << (n - i)) - 1;
    if (mask != 0) return nullptr;
  }
#else
  if (NextEscape(key, 0) != n) return nullptr;
#endif
  p += n;
  *p++ = '"';
  *p++ = ':';
  if (pretty) *p++ = ' ';
  return p;
}

}  // namespace

char* WriteShortestDouble(double value, char* out) {
  // The notation follows from the magnitude alone: 1e16 is a double, and the double nearest 1e-4
  // is the only one whose shortest digits read 1e-4, so no value on the other side of either
  // bound has shortest digits that round onto it. std::to_chars writes the same shortest digits
  // as fmt's dragonbox at about half the cost of formatting through fmt.
  const double magnitude = std::fabs(value);
  // Whole numbers below 2^53 (counts, FLOPs, bytes, and the many zero fractions) as integers:
  // every integer there is a double and its neighbours are at most 1 away, so its shortest
  // round-trip digits are its own; -0 keeps its sign through the general path.
  if (magnitude < 0x1p53 && value == std::trunc(value) && (value != 0 || !std::signbit(value))) {
    return std::to_chars(out, out + kShortestDoubleChars, static_cast<std::int64_t>(value)).ptr;
  }
  const bool fixed = magnitude == 0 || (magnitude >= 1e-4 && magnitude < 1e16);
  return std::to_chars(out, out + kShortestDoubleChars, value,
                       fixed ? std::chars_format::fixed : std::chars_format::scientific)
      .ptr;
}

void JsonWriter::AppendEscaped(std::string& out, std::string_view s) {
  out.push_back('"');
  // Runs of bytes that need no escape go in one append.
  std::size_t run = 0;
  for (std::size_t i = NextEscape(s, 0); i < s.size(); i = NextEscape(s, i + 1)) {
    const auto c = static_cast<unsigned char>(s[i]);
    out.append(s.data() + run, i - run);
    run = i + 1;
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        fmt::format_to(std::back_inserter(out), "\\u{:04x}", c);
    }
  }
  out.append(s.data() + run, s.size() - run);
  out.push_back('"');
}

void JsonWriter::Newline() {
  if (!pretty_) return;
  out_.push_back('\n');
  out_.append(stack_.size() * 2, ' ');
}

void JsonWriter::BeforeValue() {
  if (!after_key_ && !stack_.empty()) {
    if (!stack_.back().empty) out_.push_back(',');
    Newline();
  }
  MarkValue();
}

char* JsonWriter::Prefix(char* p) const {
  if (after_key_ || stack_.empty()) return p;
  if (!stack_.back().empty) *p++ = ',';
  if (pretty_) {
    *p++ = '\n';
    // The deepest indentation in one fixed-size store (the caller's buffer has room for it), of
    // which this level's is kept.
    std::memset(p, ' ', 2 * kInlineDepth);
    p += stack_.size() * 2;
  }
  return p;
}

void JsonWriter::MarkValue() {
  after_key_ = false;
  if (!stack_.empty()) stack_.back().empty = false;
}

void JsonWriter::Raw(std::string_view text) {
  // A job's JSON is millions of short values; several appends each, with their capacity checks,
  // were most of the cost of writing it.
  if (stack_.size() > kInlineDepth || text.size() > kShortText) {
    BeforeValue();
    out_.append(text);
    return;
  }
  char buf[2 + 2 * kInlineDepth + kShortText];
  char* p = Prefix(buf);
  MarkValue();
  std::memcpy(p, text.data(), text.size());
  out_.append(buf, static_cast<std::size_t>(p - buf) + text.size());
}

JsonWriter JsonWriter::Element(std::string& out) {
  JsonWriter element(out, pretty_);
  element.stack_ = stack_;
  element.after_key_ = after_key_;
  after_key_ = false;
  if (!stack_.empty()) stack_.back().empty = false;
  return element;
}

JsonWriter& JsonWriter::BeginObject() {
  Raw("{");
  stack_.push_back({true, true});
  return *this;
}

JsonWriter& JsonWriter::EndObject() {
  bool empty = stack_.back().empty;
  stack_.pop_back();
  if (!empty) Newline();
  out_.push_back('}');
  return *this;
}

JsonWriter& JsonWriter::BeginArray() {
  Raw("[");
  stack_.push_back({false, true});
  return *this;
}

JsonWriter& JsonWriter::EndArray() {
  bool empty = stack_.back().empty;
  stack_.pop_back();
  if (!empty) Newline();
  out_.push_back(']');
  return *this;
}

JsonWriter& JsonWriter::Key(std::string_view key) {
  // Keys are short names that need no escape: quoted, with their colon, in the value's one append.
  char text[kShortText + 16];
  if (char* end = WriteShortKey(text, key, pretty_)) {
    Raw(std::string_view(text, static_cast<std::size_t>(end - text)));
  } else {
    BeforeValue();
    AppendEscaped(out_, key);
    out_ += pretty_ ? ": " : ":";
  }
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::KeyAndText(std::string_view key, std::string_view text) {
  if (stack_.size() <= kInlineDepth && text.size() <= kShortText) {
    char buf[2 + 2 * kInlineDepth + 2 * kShortText + 16];
    if (char* p = WriteShortKey(Prefix(buf), key, pretty_)) {
      MarkValue();
      std::memcpy(p, text.data(), text.size());
      out_.append(buf, static_cast<std::size_t>(p - buf) + text.size());
      return *this;
    }
  }
  Key(key);
  Raw(text);
  return *this;
}

JsonWriter& JsonWriter::Field(std::string_view key, double value) {
  if (!std::isfinite(value)) return KeyAndText(key, "null");
  char buf[kShortestDoubleChars];
  return KeyAndText(key,
                    std::string_view(buf, static_cast<std::size_t>(WriteShortestDouble(value, buf) - buf)));
}

JsonWriter& JsonWriter::Field(std::string_view key, std::int64_t value) {
  char buf[24];
  return KeyAndText(
      key,
      std::string_view(buf, static_cast<std::size_t>(std::to_chars(buf, buf + sizeof buf, value).ptr - buf)));
}

JsonWriter& JsonWriter::String(std::string_view value) {
  BeforeValue();
  AppendEscaped(out_, value);
  return *this;
}

JsonWriter& JsonWriter::Number(double value) {
  if (!std::isfinite(value)) {
    Raw("null");
    return *this;
  }
  char buf[kShortestDoubleChars];
  Raw(std::string_view(buf, static_cast<std::size_t>(WriteShortestDouble(value, buf) - buf)));
  return *this;
}

JsonWriter& JsonWriter::Int(std::int64_t value) {
  char buf[24];
  Raw(std::string_view(buf, static_cast<std::size_t>(std::to_chars(buf, buf + sizeof buf, value).ptr - buf)));
  return *this;
}

JsonWriter& JsonWriter::Bool(bool value) {
  Raw(value ? "true" : "false");
  return *this;
}

JsonWriter& JsonWriter::Null() {
  Raw("null");
  return *this;
}

}  // namespace plasmient::exporting
