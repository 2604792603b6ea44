#include "cli/commands.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>

#include <fmt/format.h>

#include "cli/analyze_command.h"
#include "cli/diff_command.h"
#include "roofline/device_table.h"
#include "synth/synth_command.h"

namespace plasmient::cli {
namespace {

struct SynthArgs {
  synth::SynthConfig config;
  std::string out_dir;
};

struct DemoArgs {
  std::string out_dir, gpu = "h100_sxm";
  int ranks = 8, steps = 4;
  std::uint64_t seed = 7;
  AnalyzeArgs analyze;
};

int RunDemo(DemoArgs& d) {
  namespace fs = std::filesystem;
  if (d.out_dir.empty()) {
    std::string pattern = (fs::temp_directory_path() / "plasmient-demo-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) {
      fmt::print(stderr, "plasmient: cannot make a temporary folder for the demo\n");
      return 1;
    }
    d.out_dir = pattern;
  }
  synth::SynthConfig c;
  c.scenario = synth::Scenario::kStraggler;
  c.gpu = d.gpu;
  c.ranks = d.ranks;
  c.steps = d.steps;
  c.seed = d.seed;
  c.straggler_factor = 1.3;
  if (!d.analyze.output.quiet) {
    fmt::print("plasmient demo: a {}-rank data-parallel training job on {} ({} steps; one rank runs "
               "30% slow), written as PyTorch profiler traces to {}\n\n",
               c.ranks, c.gpu, c.steps, d.out_dir);
  }
  if (int rc = synth::RunSynthCommand(c, d.out_dir); rc != 0) return rc;
  if (!FinishVerdictOptions(d.analyze)) return 2;
  d.analyze.inputs = {d.out_dir};
  if (d.analyze.output.json_path.empty()) d.analyze.output.json_path = (fs::path(d.out_dir) / "plasmient-verdict.json").string();
  int rc = RunAnalyze(d.analyze, fmt::format("demo job, {} ranks", c.ranks));
  if (rc == 0 && !d.analyze.output.quiet) {
    fmt::print("\nwritten: {} (traces, truth.json), verdict JSON {}\n", d.out_dir, d.analyze.output.json_path);
  }
  return rc;
}

}  // namespace

std::vector<CommandHook> RegisterCommands(CLI::App& app) {
  std::vector<CommandHook> hooks;
  hooks.push_back(RegisterDiff(app));

  auto synth_args = std::make_shared<SynthArgs>();
  auto* s = app.add_subcommand("synth", "write a generated job (Kineto traces, one per rank) with its ground truth");
  synth::AddSynthOptions(*s, synth_args->config, synth_args->out_dir);
  hooks.push_back({s, [synth_args] { return synth::RunSynthCommand(synth_args->config, synth_args->out_dir); }});

  auto demo = std::make_shared<DemoArgs>();
  auto* d = app.add_subcommand("demo", "generate an 8-rank training job and show its verdict (no GPU needed)");
  d->add_option("-o,--out", demo->out_dir, "folder for the traces and outputs (default: a new temporary folder)");
  d->add_option("--gpu", demo->gpu, "GPU model of the generated job")->check(CLI::IsMember({"h100_sxm", "h200_sxm", "a100_sxm_80gb"}));
  d->add_option("--ranks", demo->ranks, "ranks")->check(CLI::Range(2, 1024));
  d->add_option("--steps", demo->steps, "profiled steps")->check(CLI::Range(1, 100));
  d->add_option("--seed", demo->seed, "generator seed");
  AddOutputOptions(*d, demo->analyze.output);
  hooks.push_back({d, [demo] { return RunDemo(*demo); }});
  return hooks;
}

int RunPeaks() {
  std::string table = roofline::FormatPeakTable();
  std::fwrite(table.data(), 1, table.size(), stdout);
  return 0;
}

}  // namespace plasmient::cli
