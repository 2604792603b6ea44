#include "ingest/trace_kinds.h"

namespace plasmient::ingest {
namespace {

constexpr std::string_view kKinetoInfix = ".pt.trace";

std::string_view SuffixOf(std::string_view name) {
  for (std::string_view s : kTraceSuffixes) {
    if (name.ends_with(s) && name.size() > s.size()) return s;
  }
  return {};
}

}  // namespace

bool IsTraceFileName(std::string_view name) { return !SuffixOf(name).empty(); }

std::string TraceSuffixList() {
  std::string out;
  constexpr std::string_view kInOrder[] = {".json", ".json.gz", ".sqlite", wire::kFileSuffix};
  for (std::string_view s : kInOrder) {
    out += (out.empty() ? "" : ", ") + std::string(s);
  }
  return out;
}

std::string_view TraceStem(std::string_view name) {
  std::string_view suffix = SuffixOf(name);
  if (suffix.empty()) return name;
  name.remove_suffix(suffix.size());
  if (name.ends_with(kKinetoInfix) && name.size() > kKinetoInfix.size())
    name.remove_suffix(kKinetoInfix.size());
  return name;
}

}  // namespace plasmient::ingest
