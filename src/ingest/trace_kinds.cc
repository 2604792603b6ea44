#include "ingest/trace_kinds.h"

#include <cctype>

#include "base/text.h"

namespace plasmient::ingest {
namespace {

constexpr std::string_view kKinetoInfix = ".pt.trace";
constexpr int kMaxRankDigits = 6;

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
  for (std::string_view s : kTraceSuffixes) {
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

std::int64_t RankFromPath(std::string_view path) {
  std::string name(
      path.substr(path.find_last_of('/') == std::string_view::npos ? 0 : path.find_last_of('/') + 1));
  name = AsciiLower(name);
  auto digits_at = [&](std::size_t pos) {
    std::size_t end = pos;
    while (end < name.size() && std::isdigit(static_cast<unsigned char>(name[end]))) ++end;
    if (end == pos || end - pos > kMaxRankDigits) return std::string_view();
    return std::string_view(name).substr(pos, end - pos);
  };
  for (auto pos = name.find("rank"); pos != std::string::npos; pos = name.find("rank", pos + 1)) {
    std::size_t at = pos + 4;
    if (at < name.size() && (name[at] == '-' || name[at] == '_' || name[at] == '.' || name[at] == '=')) ++at;
    if (auto d = digits_at(at); !d.empty()) return ParseInt(d).value_or(-1);
  }
  // "..._3.sqlite": digits between the last '_' and the extension.
  auto dot = name.rfind('.');
  auto underscore = name.rfind('_', dot);
  if (dot != std::string::npos && underscore != std::string::npos && underscore < dot) {
    if (auto d = digits_at(underscore + 1); d.size() == dot - underscore - 1) return ParseInt(d).value_or(-1);
  }
  return -1;
}

}  // namespace plasmient::ingest
