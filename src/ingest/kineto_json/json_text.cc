#include "ingest/kineto_json/json_text.h"

#include <charconv>
#include <cstring>

#include "ingest/kineto_json/time_text.h"

namespace plasmient::ingest {
namespace {

bool IsSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

}  // namespace

std::string_view MinifyJson(std::string_view raw, std::string* scratch) {
  while (!raw.empty() && IsSpace(raw.back())) raw.remove_suffix(1);
  const char* p = raw.data();
  const char* end = p + raw.size();
  const char* space = p;
  while (space != end && !IsSpace(*space)) ++space;
  if (space == end) return raw;
  // Written through a pointer into a buffer sized once: every cpu_op's shapes and types come
  // through here, and push_back per byte showed in ingest profiles.
  scratch->resize(raw.size());
  char* out = scratch->data();
  bool in_string = false, escape = false;
  for (; p != end; ++p) {
    char c = *p;
    if (in_string) {
      if (escape) {
        escape = false;
      } else if (c == '\\') {
        escape = true;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (IsSpace(c)) {
      continue;
    }
    *out++ = c;
  }
  scratch->resize(static_cast<std::size_t>(out - scratch->data()));
  return *scratch;
}

bool ParseNumberAsInteger(std::string_view token, std::int64_t* out) {
  while (!token.empty() && IsSpace(token.back())) token.remove_suffix(1);
  if (ParseInteger(token, out)) return true;
  double d = 0;
  auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), d);
  if (ec != std::errc() || end != token.data() + token.size()) return false;
  if (!(d > -9.2e18 && d < 9.2e18)) return false;
  *out = static_cast<std::int64_t>(d);
  return true;
}

}  // namespace plasmient::ingest
