// A subcommand that is not one: `plasmient analyse` is told the nearest name ("did you mean
// 'analyze'?") before CLI11 would answer that a subcommand is required.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>

namespace plasmient::cli {

// Edits (insert, delete, substitute, swap two neighbours) that turn `a` into `b`, letters
// compared without case.
std::size_t EditDistance(std::string_view a, std::string_view b);

// The name in `names` nearest to `typed`, when it is near enough to be what was meant: at most
// one edit in three letters typed (one at least); the first listed on a tie.
std::optional<std::string> NearestName(std::string_view typed, std::span<const std::string> names);

// For argv whose command word (the first argument that is no option) names none of `app`'s
// subcommands: the line that says so, and the nearest name when there is one
// ("unknown command 'analyse'; did you mean 'analyze'?"). nullopt when the command is known or
// there is none.
std::optional<std::string> UnknownCommand(const CLI::App& app, int argc, const char* const* argv);

}  // namespace plasmient::cli
