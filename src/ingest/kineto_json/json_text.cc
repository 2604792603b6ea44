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
  bool has_space = false;
  for (char c : raw) {
    if (IsSpace(c)) {
      has_space = true;
      break;
    }
  }
  if (!has_space) return raw;
  scratch->clear();
  bool in_string = false, escape = false;
  for (char c : raw) {
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
    scratch->push_back(c);
  }
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
