#include "cli/whatif_command.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <memory>

#include <fmt/format.h>

#include "cli/analyze_command.h"
#include "export/whatif_sink.h"
#include "whatif/activity_table.h"
#include "whatif/bill.h"
#include "whatif/projection.h"

namespace plasmient::cli {
namespace {

struct WhatIfArgs {
  std::vector<std::string> inputs;
  AnalyzeArgs analyze;  // the verdict options, as analyze takes them
  whatif::Levers levers;
  std::string json_path;
  bool quiet = false, no_color = false;
};

int RunWhatIf(WhatIfArgs& a) {
  if (!FinishVerdictOptions(a.analyze)) return 2;
  if (Status ok = whatif::Validate(a.levers); !ok) {
    fmt::print(stderr, "plasmient: {}\n", ok.error().message);
    return 2;
  }
  auto inputs = ExpandInputs(a.inputs);
  if (!inputs) {
    fmt::print(stderr, "plasmient: {}\n", inputs.error().message);
    return 1;
  }
  verdict::AnalyzeOptions options = a.analyze.options;
  options.keep_activities = true;
  verdict::JobVerdict job;
  if (int rc = AnalyzeJob(*inputs, options, a.quiet, job); rc != 0) return rc;
  if (job.job.wall_s <= 0) {
    fmt::print(stderr, "plasmient: {}: no GPU activity to project\n", a.inputs.front());
    return 3;
  }
  auto projection = whatif::Project(job, a.levers);
  if (!projection) {
    fmt::print(stderr, "plasmient: {}\n", projection.error().message);
    return 2;
  }
  const whatif::BillInputs bill = whatif::BillInputsOf(job);
  if (!a.json_path.empty() &&
      !WriteOutput(a.json_path, exporting::WhatIfToJson(*projection, bill), "JSON what-if"))
    return 1;
  if (!a.quiet && a.json_path != "-") {
    const bool color = isatty(STDOUT_FILENO) && !a.no_color && std::getenv("NO_COLOR") == nullptr;
    const std::string text = exporting::RenderWhatIfTerminal(*projection, bill, color);
    std::fwrite(text.data(), 1, text.size(), stdout);
  }
  return 0;
}

}  // namespace

CommandHook RegisterWhatIf(CLI::App& app) {
  auto args = std::make_shared<WhatIfArgs>();
  auto* c =
      app.add_subcommand("whatif",
                         "project the verdict and the bill under a change: batch, overlap, microbatches, "
                         "CUDA graphs (docs/what-if.md)");
  c->add_option("inputs", args->inputs, "a trace file or a folder of per-rank traces")->required();
  AddVerdictOptions(*c, args->analyze);
  c->add_option("--batch-scale", args->levers.batch_scale,
                "every batch K times larger: FLOPs and activations grow, weights do not");
  c->add_option("--batch", args->levers.batch,
                "the batch N to project to: the current batch is read from the attention and linear "
                "input shapes (else use --batch-scale)");
  c->add_flag("--overlap-comm", args->levers.overlap_comm,
              "exposed collectives hidden behind the backward compute beside them");
  c->add_option("--microbatches", args->levers.microbatches,
                "pipeline microbatches per step (the trace's pipeline at M, projected to this)");
  c->add_flag("--cuda-graphs", args->levers.cuda_graphs, "host gaps between launches under 50 µs removed");
  AddJsonOption(*c, args->json_path, "write the projection as JSON (plasmient.whatif/1)");
  c->add_flag("-q,--quiet", args->quiet, "no terminal output, no progress");
  c->add_flag("--no-color", args->no_color, "no ANSI colours (NO_COLOR is respected too)");
  return {c, [args] { return RunWhatIf(*args); }};
}

}  // namespace plasmient::cli
