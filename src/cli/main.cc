// plasmient: the one main(). Subcommands parse their flags here and call their stage.
#include <cstdio>
#include <exception>
#include <new>
#include <string_view>
#include <system_error>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "cli/analyze_command.h"
#include "cli/commands.h"
#include "cli/heap_pages.h"
#include "cli/unknown_command.h"

namespace {

constexpr const char* kAbout =
    "Plasmient: the share of your GPUs' peak that did useful work, where the rest went, and what to change.";

// The commands that read whole traces into memory.
bool ReadsTraces(std::string_view command) {
  return command == "analyze" || command == "explain" || command == "whatif" || command == "diff";
}

int Main(int argc, char** argv) {
  using namespace plasmient::cli;
  ConfigureHeap(argc, argv, argc > 1 && ReadsTraces(argv[1]));
  CLI::App app(kAbout, "plasmient");
  app.require_subcommand(1);
  app.set_version_flag("--version", "plasmient " PLASMIENT_VERSION);

  AnalyzeArgs analyze;
  auto* a = app.add_subcommand(
      "analyze", "analyze PyTorch profiler (Kineto JSON), Nsight Systems SQLite or native traces");
  a->add_option("inputs", analyze.inputs, "trace files or folders (one file per rank)")->required();
  AddVerdictOptions(*a, analyze);
  AddOutputOptions(*a, analyze.output);

  auto* peaks = app.add_subcommand("peaks", "list the device table: dense peaks per dtype, bandwidth, price");

  std::vector<CommandHook> hooks = RegisterCommands(app);

  // Before CLI11, whose answer to a mistyped command is that a subcommand is required.
  if (auto unknown = UnknownCommand(app, argc, argv)) {
    fmt::print(stderr, "plasmient: {}\n", *unknown);
    return 2;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  if (a->parsed()) {
    if (!FinishVerdictOptions(analyze)) return 2;
    return RunAnalyze(analyze, "");
  }
  if (peaks->parsed()) return RunPeaks();
  for (auto& hook : hooks) {
    if (hook.command->parsed()) return hook.run();
  }
  return 2;
}

}  // namespace

// Out of memory (or of address space for a thread's stack) anywhere, or any other exception a
// command lets through: one line and exit 1, not std::terminate's abort. The lines are written
// with stdio alone, which throws nothing.
int main(int argc, char** argv) {
  try {
    return Main(argc, argv);
  } catch (const std::bad_alloc&) {
    std::fputs("plasmient: out of memory\n", stderr);
  } catch (const std::system_error& e) {
    std::fprintf(stderr, "plasmient: cannot start a thread: %s\n", e.what());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "plasmient: %s\n", e.what());
  } catch (...) {
    std::fputs("plasmient: unexpected exception\n", stderr);
  }
  return 1;
}
