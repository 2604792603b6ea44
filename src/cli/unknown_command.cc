#include "cli/unknown_command.h"

#include <algorithm>
#include <cctype>
#include <vector>

#include <fmt/format.h>

namespace plasmient::cli {
namespace {

char Lower(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }

// One edit in three letters: "analyse" and "anlyze" are near "analyze", "peek" near "peaks".
std::size_t MaxEdits(std::string_view typed) { return std::max<std::size_t>(1, (typed.size() + 2) / 3); }

}  // namespace

std::size_t EditDistance(std::string_view a, std::string_view b) {
  // Optimal string alignment over three rows: row i-2 is kept for the swap of neighbours.
  std::vector<std::size_t> before(b.size() + 1), prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t cost = Lower(a[i - 1]) == Lower(b[j - 1]) ? 0 : 1;
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost});
      if (i > 1 && j > 1 && Lower(a[i - 1]) == Lower(b[j - 2]) && Lower(a[i - 2]) == Lower(b[j - 1]))
        cur[j] = std::min(cur[j], before[j - 2] + 1);
    }
    std::swap(before, prev);
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::optional<std::string> NearestName(std::string_view typed, std::span<const std::string> names) {
  std::optional<std::string> best;
  std::size_t best_edits = MaxEdits(typed) + 1;
  for (const std::string& name : names) {
    std::size_t edits = EditDistance(typed, name);
    if (edits < best_edits) {
      best_edits = edits;
      best = name;
    }
  }
  return best;
}

std::optional<std::string> UnknownCommand(const CLI::App& app, int argc, const char* const* argv) {
  std::string_view typed;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (!arg.starts_with('-')) {
      typed = arg;
      break;
    }
  }
  if (typed.empty()) return std::nullopt;
  std::vector<std::string> names;
  for (const CLI::App* command : app.get_subcommands([](const CLI::App*) { return true; })) {
    if (command->check_name(std::string(typed))) return std::nullopt;
    names.push_back(command->get_name());
  }
  std::optional<std::string> nearest = NearestName(typed, names);
  if (!nearest) return fmt::format("unknown command '{}'; plasmient --help lists the commands", typed);
  return fmt::format("unknown command '{}'; did you mean '{}'?", typed, *nearest);
}

}  // namespace plasmient::cli
