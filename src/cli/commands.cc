#include "cli/commands.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>

#include <fmt/format.h>

#include "cli/analyze_command.h"
#include "cli/diff_command.h"
#include "cli/explain_command.h"
#include "cli/fleet_commands.h"
#include "cli/synth_options.h"
#include "cli/whatif_command.h"
#include "collect/agent/agent_config.h"
#include "collect/agent/run_command.h"
#include "roofline/device_table.h"
#include "synth/synth_command.h"
#include "wire/file_format.h"

namespace plasmient::cli {
namespace {

struct SynthArgs {
  synth::SynthConfig config;
  std::string out_dir;
};

struct CaptureArgs {
  std::string job;
  std::int64_t pid = 0;
  double seconds = 0;
  std::string spool = "/var/spool/plasmient";
};

// Asks the duty-cycled agents of a job (or one process) on this node for a kernel window now:
// a request file in the spool their writer threads poll (collect/agent/agent_config.h).
int RunCapture(const CaptureArgs& c) {
  std::error_code ec;
  if (!std::filesystem::is_directory(c.spool, ec)) {
    fmt::print(stderr, "plasmient capture: {}: no such spool folder (--node-spool)\n", c.spool);
    return 2;
  }
  std::string path = c.job.empty() ? collect::CaptureRequestPath(c.spool, c.pid)
                                   : collect::CaptureRequestPath(c.spool, c.job);
  auto now = std::chrono::system_clock::now().time_since_epoch();
  std::int64_t id = std::chrono::duration_cast<std::chrono::nanoseconds>(now).count();
  if (std::string why = collect::WriteCaptureRequest(path, id, c.seconds); !why.empty()) {
    fmt::print(stderr, "plasmient capture: {}\n", why);
    return 1;
  }
  fmt::print("asked {} for a {:g} s kernel window: {} (agents poll every 100 ms; the window lands in {})\n",
             c.job.empty() ? fmt::format("process {}", c.pid) : fmt::format("the processes of job {}", c.job),
             c.seconds, path, c.spool);
  return 0;
}

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
    fmt::print(
        "plasmient demo: a {}-rank data-parallel training job on {} ({} steps; one rank runs "
        "30% slow), written as PyTorch profiler traces to {}\n\n",
        c.ranks, c.gpu, c.steps, d.out_dir);
  }
  if (int rc = synth::RunSynthCommand(c, d.out_dir); rc != 0) return rc;
  if (!FinishVerdictOptions(d.analyze)) return 2;
  d.analyze.inputs = {d.out_dir};
  auto& out = d.analyze.output;
  if (out.json_path.empty()) out.json_path = (fs::path(d.out_dir) / "plasmient-verdict.json").string();
  if (out.html_path.empty()) out.html_path = (fs::path(d.out_dir) / "plasmient-report.html").string();
  if (out.perfetto_path.empty()) out.perfetto_path = (fs::path(d.out_dir) / "plasmient-trace.json").string();
  int rc = RunAnalyze(d.analyze, fmt::format("demo job, {} ranks", c.ranks));
  if (rc == 0 && !d.analyze.output.quiet) {
    fmt::print(
        "\nwritten to {}:\n  rank-*.pt.trace.json   the generated PyTorch profiler traces (truth.json: the "
        "answer key)\n"
        "  {}   the verdict as JSON\n  {}   the report: open it in a browser\n"
        "  {}   the vertical trace: open it in ui.perfetto.dev\n",
        d.out_dir, fs::path(out.json_path).filename().string(), fs::path(out.html_path).filename().string(),
        fs::path(out.perfetto_path).filename().string());
  }
  return rc;
}

struct RunArgs {
  collect::RunOptions run;
  bool no_analyze = false;
  std::vector<std::string> argv;
  AnalyzeArgs analyze;
};

bool HasTraces(const std::string& dir) {
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    if (e.path().filename().string().ends_with(wire::kFileSuffix)) return true;
  }
  return false;
}

int RunRun(RunArgs& r) {
  namespace fs = std::filesystem;
  if (r.run.out_dir.empty()) r.run.out_dir = "plasmient-run";
  r.run.quiet = r.analyze.output.quiet;
  int status = collect::RunCommand(r.run, r.argv);
  if (r.no_analyze) return status;
  if (!HasTraces(r.run.out_dir)) {
    if (!r.run.quiet) {
      fmt::print(stderr,
                 "plasmient: no traces were written to {} (no CUDA activity, or no driver): "
                 "nothing to analyze\n",
                 r.run.out_dir);
    }
    return status;
  }
  if (!FinishVerdictOptions(r.analyze)) return status != 0 ? status : 2;
  r.analyze.inputs = {r.run.out_dir};
  if (r.analyze.output.json_path.empty()) {
    r.analyze.output.json_path = (fs::path(r.run.out_dir) / "plasmient-verdict.json").string();
  }
  int rc = RunAnalyze(r.analyze, fmt::format("run of {}", r.argv.front()));
  return status != 0 ? status : rc;  // the command's own status comes first
}

}  // namespace

std::vector<CommandHook> RegisterCommands(CLI::App& app) {
  std::vector<CommandHook> hooks;
  hooks.push_back(RegisterDiff(app));
  hooks.push_back(RegisterWhatIf(app));
  hooks.push_back(RegisterExplain(app));

  auto synth_args = std::make_shared<SynthArgs>();
  auto* s = app.add_subcommand("synth",
                               "write a generated job (Kineto traces, one per rank) with its ground truth");
  AddSynthOptions(*s, synth_args->config, synth_args->out_dir);
  hooks.push_back(
      {s, [synth_args] { return synth::RunSynthCommand(synth_args->config, synth_args->out_dir); }});

  auto demo = std::make_shared<DemoArgs>();
  auto* d =
      app.add_subcommand("demo", "generate an 8-rank training job and show its verdict (no GPU needed)");
  d->add_option("-o,--out", demo->out_dir,
                "folder for the traces and outputs (default: a new temporary folder)");
  d->add_option("--gpu", demo->gpu, "GPU model of the generated job")
      ->check(CLI::IsMember({"h100_sxm", "h200_sxm", "a100_sxm_80gb"}));
  d->add_option("--ranks", demo->ranks, "ranks")->check(CLI::Range(2, 1024));
  d->add_option("--steps", demo->steps, "profiled steps")->check(CLI::Range(1, 100));
  d->add_option("--seed", demo->seed, "generator seed");
  AddOutputOptions(*d, demo->analyze.output);
  hooks.push_back({d, [demo] { return RunDemo(*demo); }});

  auto run = std::make_shared<RunArgs>();
  auto* r = app.add_subcommand("run", "run a command with the live agent attached, then analyze what it did");
  r->add_option("-o,--out", run->run.out_dir, "folder for the traces (default ./plasmient-run)");
  r->add_flag("--no-analyze", run->no_analyze, "only collect: write the traces, print no verdict");
  r->add_option("--agent", run->run.agent_path, "the agent library (default: next to plasmient)");
  r->add_option("--job-id", run->run.job_id, "job id recorded in the traces");
  r->add_option("--nvml-period-ms", run->run.nvml_period_ms, "NVML sampling period (default 100)");
  r->add_flag("!--no-gemm-shapes", run->run.gemm_shapes, "do not preload the cuBLAS interposer");
  r->add_option("command", run->argv, "the command and its arguments, after --")->required();
  AddVerdictOptions(*r, run->analyze);
  AddOutputOptions(*r, run->analyze.output);
  hooks.push_back({r, [run] { return RunRun(*run); }});
  auto capture = std::make_shared<CaptureArgs>();
  auto* cap = app.add_subcommand("capture",
                                 "ask the duty-cycled agents of a job on this node for a kernel window now");
  auto* job = cap->add_option("--job", capture->job,
                              "every traced process of this job (PLASMIENT_JOB_ID/SLURM_JOB_ID)");
  auto* pid = cap->add_option("--pid", capture->pid, "one traced process")->check(CLI::PositiveNumber);
  job->excludes(pid);
  pid->excludes(job);
  cap->add_option("--seconds", capture->seconds, "window length")->required()->check(CLI::Range(0.1, 3600.0));
  cap->add_option("--node-spool", capture->spool, "the agents' spool (PLASMIENT_SPOOL)")
      ->capture_default_str();
  cap->callback([job, pid] {
    if (job->count() == 0 && pid->count() == 0) throw CLI::RequiredError("--job or --pid");
  });
  hooks.push_back({cap, [capture] { return RunCapture(*capture); }});
  RegisterFleetCommands(app, hooks);
  return hooks;
}

int RunPeaks() {
  std::string table = roofline::FormatPeakTable();
  std::fwrite(table.data(), 1, table.size(), stdout);
  return 0;
}

}  // namespace plasmient::cli
