#include "cli/diff_command.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>

#include <fmt/format.h>

#include "cli/analyze_command.h"
#include "export/diff_sink.h"

namespace plasmient::cli {
namespace {

struct DiffArgs {
  std::string before, after;
  AnalyzeArgs analyze;  // the verdict options both sides share
  std::string json_path, html_path;
  bool quiet = false, no_color = false;
};

std::string Label(const std::string& path) {
  std::string name = std::filesystem::path(path).filename().string();
  if (name.empty()) name = std::filesystem::path(path).parent_path().filename().string();
  return name.empty() ? path : name;
}

int RunDiff(DiffArgs& a) {
  if (!FinishVerdictOptions(a.analyze)) return 2;
  verdict::JobVerdict sides[2];
  const std::string* paths[2] = {&a.before, &a.after};
  for (int s = 0; s < 2; ++s) {
    auto inputs = ExpandInputs({*paths[s]});
    if (!inputs) {
      fmt::print(stderr, "plasmient: {}\n", inputs.error().message);
      return 1;
    }
    if (int rc = AnalyzeJob(*inputs, a.analyze.options, a.quiet, sides[s]); rc != 0) return rc;
    if (sides[s].job.wall_s <= 0) {
      fmt::print(stderr, "plasmient: {}: no GPU activity to compare\n", *paths[s]);
      return 3;
    }
  }
  verdict::VerdictDiff diff = verdict::DiffVerdicts(sides[0], sides[1], a.analyze.options.top_n);
  exporting::DiffLabels labels{Label(a.before), Label(a.after)};
  if (labels.before == labels.after) labels = {a.before, a.after};
  if (!a.json_path.empty() && !WriteOutput(a.json_path, exporting::DiffToJson(diff, labels), "JSON diff"))
    return 1;
  if (!a.html_path.empty() && !WriteOutput(a.html_path, exporting::RenderDiffHtml(diff, labels), "HTML diff"))
    return 1;
  if (!a.quiet && a.json_path != "-" && a.html_path != "-") {
    bool color = isatty(STDOUT_FILENO) && !a.no_color && std::getenv("NO_COLOR") == nullptr;
    std::string text = exporting::RenderDiffTerminal(diff, labels, color);
    std::fwrite(text.data(), 1, text.size(), stdout);
  }
  return 0;
}

}  // namespace

CommandHook RegisterDiff(CLI::App& app) {
  auto args = std::make_shared<DiffArgs>();
  auto* c = app.add_subcommand("diff", "compare two runs (files or folders, each analyzed like `analyze`)");
  c->add_option("before", args->before, "the baseline: a trace file or a folder of per-rank traces")
      ->required();
  c->add_option("after", args->after, "the run to compare with it")->required();
  AddVerdictOptions(*c, args->analyze);
  AddJsonOption(*c, args->json_path, "write the diff as JSON (plasmient.diff/1)");
  c->add_option("--html", args->html_path, "write the diff as a self-contained HTML page to FILE");
  c->add_flag("-q,--quiet", args->quiet, "no terminal output, no progress");
  c->add_flag("--no-color", args->no_color, "no ANSI colours (NO_COLOR is respected too)");
  return {c, [args] { return RunDiff(*args); }};
}

}  // namespace plasmient::cli
