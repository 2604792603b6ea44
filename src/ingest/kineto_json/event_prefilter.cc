#include "ingest/kineto_json/event_prefilter.h"

namespace plasmient::ingest {
namespace {

// Consumes whitespace then `token`; false when the text does not continue that way.
bool Expect(std::string_view& s, std::string_view token) {
  std::size_t i = 0;
  while (i < s.size() && (s[i] == ' ' || s[i] == '\n' || s[i] == '\r' || s[i] == '\t')) ++i;
  if (s.substr(i, token.size()) != token) return false;
  s.remove_prefix(i + token.size());
  return true;
}

}  // namespace

Prefiltered PrefilterEvent(std::string_view s) {
  if (!Expect(s, "{") || !Expect(s, "\"ph\"") || !Expect(s, ":") || !Expect(s, "\""))
    return Prefiltered::kParse;
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
      if (Expect(s, ",") && Expect(s, "\"cat\"") && Expect(s, ":") && Expect(s, "\"python_function\"")) {
        return Prefiltered::kPythonFunction;
      }
      return Prefiltered::kParse;
    default:
      return Prefiltered::kParse;
  }
}

}  // namespace plasmient::ingest
