#include "cli/embedded_analysis.h"

#include <filesystem>

#include <CLI/CLI.hpp>

#include "cli/analyze_command.h"
#include "export/html_sink.h"
#include "export/html_vertical.h"
#include "job/analyze_job.h"
#include "whatif/activity_table.h"

namespace plasmient::cli {
namespace {

Result<AnalyzeArgs> ParseVerdictFlags(const std::vector<std::string>& flags) {
  AnalyzeArgs args;
  CLI::App app("plasmient analyze", "plasmient");
  AddVerdictOptions(app, args);
  std::vector<std::string> words(flags.rbegin(), flags.rend());  // CLI11 takes them last first
  try {
    app.parse(words);
  } catch (const CLI::ParseError& e) {
    return Fail("{}", e.what());
  }
  PLASMIENT_TRY(CheckVerdictOptions(args));
  return args;
}

}  // namespace

Result<EmbeddedJob> AnalyzeEmbedded(const std::vector<std::string>& inputs,
                                    const std::vector<std::string>& flags) {
  auto args = ParseVerdictFlags(flags);
  if (!args) return std::unexpected(args.error());
  auto files = ExpandInputs(inputs);
  if (!files) return std::unexpected(files.error());
  EmbeddedJob out;
  job::JobReadHooks hooks;
  hooks.warn = [&](const std::string& line) { out.warnings.push_back(line); };
  exporting::VerticalCollector vertical(args->options.observer);
  args->options.observer = &vertical;
  args->options.keep_activities = true;  // what the what-if panel projects from
  auto job = job::AnalyzeInputs(std::vector<std::filesystem::path>(files->begin(), files->end()),
                                args->options, hooks);
  if (!job) return std::unexpected(job.error());
  out.job = std::move(*job);
  out.vertical = vertical.For(out.job);
  out.title = ReportTitle(*files);
  out.explain_command = ExplainCommand(inputs, args->steps);
  if (std::string none = NoGpuActivity(out.job); !none.empty()) {
    out.no_gpu_activity = (*files)[0] + ": " + none;
  }
  return out;
}

std::string HtmlOf(EmbeddedJob& job) {
  if (!job.whatif) job.whatif = whatif::ProjectSlider(job.job);
  return exporting::RenderHtml(job.job,
                               {.title = job.title, .whatif = &*job.whatif, .vertical = job.vertical.get()});
}

}  // namespace plasmient::cli
