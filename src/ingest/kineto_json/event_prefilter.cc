#include "ingest/kineto_json/event_prefilter.h"

#include <array>
#include <cstring>
#include <string_view>

namespace plasmient::ingest {
namespace {

// JSON's whitespace, one table lookup a byte: pretty-printed traces put a line break and an
// indent before every event's first key, and four comparisons a byte were a third of this file.
constexpr std::array<bool, 256> kSpace = [] {
  std::array<bool, 256> space{};
  for (unsigned char c : {' ', '\n', '\r', '\t'}) space[c] = true;
  return space;
}();

// Consumes whitespace then `token`; false when the text does not continue that way. The token
// is a literal so its length is a constant and the comparison compiles to a few loads (this
// runs several times per event on the framing thread).
template <std::size_t N>
inline bool Expect(std::string_view& s, const char (&token)[N]) {
  constexpr std::size_t kLength = N - 1;
  std::size_t i = 0;
  while (i < s.size() && kSpace[static_cast<unsigned char>(s[i])]) ++i;
  if (s.size() - i < kLength || std::memcmp(s.data() + i, token, kLength) != 0) return false;
  s.remove_prefix(i + kLength);
  return true;
}

// How PyTorch's profiler starts every event (and Python's json module, and plasmient synth, on one
// line), and the "cat" key after "ph": matched whole, one comparison each, what the token-by-token
// path below would match (a sixth of the framing thread's time went to that path). Any other
// layout takes the token-by-token path.
constexpr std::string_view kKinetoStart = "{\n    \"ph\": \"";
constexpr std::string_view kOneLineStart = "{\"ph\": \"";
constexpr std::string_view kKinetoCat = ", \"cat\": ";

}  // namespace

Prefiltered PrefilterEvent(std::string_view s) {
  if (s.starts_with(kKinetoStart)) {
    s.remove_prefix(kKinetoStart.size());
  } else if (s.starts_with(kOneLineStart)) {
    s.remove_prefix(kOneLineStart.size());
  } else if (!Expect(s, "{") || !Expect(s, "\"ph\"") || !Expect(s, ":") || !Expect(s, "\"")) {
    return Prefiltered::kParse;
  }
  if (s.size() < 2 || s[1] != '"') return Prefiltered::kParse;
  char ph = s[0];
  s.remove_prefix(2);
  switch (ph) {
    case 's':
    case 'f':
    case 't':
      return Prefiltered::kFlow;
    case 'i':
    case 'I':
      return Prefiltered::kInstant;
    case 'X':
      if (s.starts_with(kKinetoCat)) {
        s.remove_prefix(kKinetoCat.size());
      } else if (!Expect(s, ",") || !Expect(s, "\"cat\"") || !Expect(s, ":")) {
        return Prefiltered::kParse;
      }
      if (Expect(s, "\"python_function\"")) {
        // Module ranges ("nn.Module: X", written right after "cat") are the one kind the parser wants.
        if (Expect(s, ",") && Expect(s, "\"name\"") && Expect(s, ":") && Expect(s, "\"nn.Module: ")) {
          return Prefiltered::kParse;
        }
        return Prefiltered::kPythonFunction;
      }
      return Prefiltered::kParse;
    default:
      return Prefiltered::kParse;
  }
}

}  // namespace plasmient::ingest
