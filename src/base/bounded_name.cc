#include "base/bounded_name.h"

#include <cstdint>

#include <fmt/format.h>

namespace plasmient {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD
constexpr std::string_view kEllipsis = "\xE2\x80\xA6";     // U+2026
constexpr std::size_t kSuffixBytes = kEllipsis.size() + 1 + 16;

// FNV-1a: fixed by its definition, so a cut name is the same in every build and on every host.
std::uint64_t Fnv1a(std::string_view s) {
  std::uint64_t h = 0xCBF29CE484222325ull;
  for (unsigned char c : s) h = (h ^ c) * 0x100000001B3ull;
  return h;
}

}  // namespace

std::uint64_t NameHash(std::string_view name) { return Fnv1a(name); }

std::size_t Utf8SequenceLength(std::string_view s, std::size_t i) {
  auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]); };
  auto cont = [&](std::size_t k) { return i + k < s.size() && (b(k) & 0xC0) == 0x80; };
  unsigned char c = b(0);
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) return cont(1) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    if (!cont(1) || !cont(2)) return 0;
    if ((c == 0xE0 && b(1) < 0xA0) || (c == 0xED && b(1) > 0x9F)) return 0;
    return 3;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    if (!cont(1) || !cont(2) || !cont(3)) return 0;
    if ((c == 0xF0 && b(1) < 0x90) || (c == 0xF4 && b(1) > 0x8F)) return 0;
    return 4;
  }
  return 0;
}

bool IsBoundedName(std::string_view name) {
  if (name.size() > kMaxNameBytes) return false;
  for (std::size_t i = 0; i < name.size();) {
    if (static_cast<unsigned char>(name[i]) < 0x80) {
      ++i;  // ASCII, nearly every kernel name, without the general path
      continue;
    }
    std::size_t n = Utf8SequenceLength(name, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

std::string BoundName(std::string_view name) {
  if (IsBoundedName(name)) return std::string(name);
  std::string out;  // the valid UTF-8 form, up to a little past the cap
  for (std::size_t i = 0; i < name.size() && out.size() <= kMaxNameBytes;) {
    std::size_t n = Utf8SequenceLength(name, i);
    out += n == 0 ? kReplacement : name.substr(i, n);
    i += n == 0 ? 1 : n;
  }
  if (out.size() <= kMaxNameBytes) return out;  // only invalid bytes replaced
  std::size_t end = kMaxNameBytes - kSuffixBytes;
  while (end > 0 && (static_cast<unsigned char>(out[end]) & 0xC0) == 0x80) --end;  // a character's start
  out.resize(end);
  out += fmt::format("{}#{:016x}", kEllipsis, Fnv1a(name));
  return out;
}

std::string BoundNameTo(std::string_view name, std::size_t max_bytes, std::string_view short_form) {
  if (name.size() <= max_bytes && IsBoundedName(name)) return std::string(name);
  std::size_t room = max_bytes > kSuffixBytes ? max_bytes - kSuffixBytes : 0;
  std::string out;
  for (std::size_t i = 0; i < short_form.size();) {
    std::size_t n = Utf8SequenceLength(short_form, i);
    std::string_view c = n == 0 ? kReplacement : short_form.substr(i, n);
    if (out.size() + c.size() > room) break;
    out += c;
    i += n == 0 ? 1 : n;
  }
  out += fmt::format("{}#{:016x}", kEllipsis, Fnv1a(name));
  return out;
}

std::string BoundLabel(std::string_view value) { return BoundNameTo(value, kMaxLabelBytes, value); }

std::string EscapeForLog(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    auto c = static_cast<unsigned char>(text[i]);
    std::size_t n = Utf8SequenceLength(text, i);
    if (c == '\\') {
      out += "\\\\";
    } else if (n == 0 || c < 0x20 || c == 0x7F) {
      out += fmt::format("\\x{:02x}", c);
      n = 1;
    } else {
      out.append(text, i, n);
    }
    i += n;
  }
  return out;
}

}  // namespace plasmient
