#include "ingest/own_outputs.h"

#include <algorithm>
#include <array>
#include <utility>

#include <fmt/format.h>

namespace plasmient::ingest {
namespace {

// How Plasmient's Perfetto output began before its head named the producer: the compact keys in
// its writer's order, then the first rank's process_name ("rank 0 · …").
constexpr std::string_view kEarlierPerfettoHead =
    "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n{\"ts\":0,\"ph\":\"M\",\"pid\":";
constexpr std::string_view kEarlierPerfettoFirstName =
    R"(,"tid":0,"name":"process_name","args":{"name":"rank )";

constexpr std::string_view kNsightReportSuffixes[] = {".nsys-rep", ".qdrep"};

constexpr std::string_view kOwnOutput = "this is Plasmient's own ";
constexpr std::string_view kGiveTrace = ", not a trace: give the profiler's trace";

// What each of Plasmient's JSON schemas is, by the name between "plasmient." and the version.
constexpr std::array<std::pair<std::string_view, std::string_view>, 6> kSchemas{{
    {"verdict", "verdict JSON (written by analyze --json)"},
    {"whatif", "what-if JSON (written by whatif --json)"},
    {"explain", "explain JSON (written by explain --json)"},
    {"diff", "diff JSON (written by diff --json)"},
    {"truth", "ground truth (written by synth as truth.json)"},
    {"ceilings", "measured ceilings (give them to analyze --ceilings)"},
}};

void SkipSpace(std::string_view& text) {
  text.remove_prefix(std::min(text.find_first_not_of(" \t\r\n"), text.size()));
}

// `token` after optional white space, consumed; false when the text holds something else there.
bool Take(std::string_view& text, std::string_view token) {
  SkipSpace(text);
  if (!text.starts_with(token)) return false;
  text.remove_prefix(token.size());
  return true;
}

// "verdict" for a document that opens `{"schema": "plasmient.verdict/1"`, every Plasmient JSON
// writer's first key; empty for any other text.
std::string_view PlasmientSchemaName(std::string_view text) {
  if (!Take(text, "{") || !Take(text, R"("schema")") || !Take(text, ":") || !Take(text, R"("plasmient.)"))
    return {};
  std::size_t end = text.find_first_of("/\"");
  return end == std::string_view::npos ? std::string_view{} : text.substr(0, end);
}

std::string OwnOutput(std::string_view path, std::string_view what) {
  return fmt::format("{}: {}{}{}", path, kOwnOutput, what, kGiveTrace);
}

}  // namespace

std::optional<std::string> RefusalOf(std::string_view path, std::string_view head) {
  if (head.starts_with("\xEF\xBB\xBF")) head.remove_prefix(3);
  SkipSpace(head);
  bool earlier_perfetto = head.starts_with(kEarlierPerfettoHead) &&
                          head.substr(kEarlierPerfettoHead.size()).find(kEarlierPerfettoFirstName) < 8;
  if (head.starts_with(kPerfettoOutputHead) || earlier_perfetto)
    return OwnOutput(path, "Perfetto output (written by analyze --perfetto)");
  std::string_view schema = PlasmientSchemaName(head);
  if (schema.empty()) return std::nullopt;
  for (auto [name, what] : kSchemas) {
    if (name == schema) return OwnOutput(path, what);
  }
  return OwnOutput(path, fmt::format("plasmient.{} JSON", schema));
}

bool IsNsightReportName(std::string_view path) {
  return std::ranges::any_of(kNsightReportSuffixes, [&](std::string_view s) { return path.ends_with(s); });
}

std::optional<std::string> UnexportedReportOf(std::string_view path) {
  for (std::string_view suffix : kNsightReportSuffixes) {
    if (!path.ends_with(suffix)) continue;
    std::string_view stem = path.substr(0, path.size() - suffix.size());
    return fmt::format(
        "{}: an Nsight Systems report; export it first: nsys export --type sqlite -o {}.sqlite {}", path,
        stem, path);
  }
  return std::nullopt;
}

bool IsOwnOutputRefusal(std::string_view message) {
  return message.find(kOwnOutput) != std::string_view::npos && message.ends_with(kGiveTrace);
}

}  // namespace plasmient::ingest
