// `plasmient analyze`: traces in, verdict out (terminal, JSON).
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "verdict/analyze.h"

namespace plasmient::cli {

// Where to record the verdict for `plasmient fleet` (src/fleet/record.h).
struct RecordFlags {
  std::string db, clickhouse, clickhouse_db = "plasmient", job, host;
  std::vector<std::string> labels;
};

struct OutputOptions {
  std::string json_path;  // --json [FILE|-]: "-" for stdout (AddJsonOption)
  bool quiet = false;
  bool no_color = false;
  bool brief = false;    // box only
  bool verbose = false;  // each input's format, gzip engine, size and read rate on stderr
  RecordFlags record;
  std::string perfetto_path;             // --perfetto FILE: Chrome-trace JSON for Perfetto UI
  std::size_t perfetto_worst_steps = 0;  // --perfetto-worst-steps N: only the N worst steps
  std::string html_path;                 // --html FILE: the self-contained report
};

struct AnalyzeArgs {
  std::vector<std::string> inputs;
  verdict::AnalyzeOptions options;
  OutputOptions output;
  // Raw flag values, validated after parsing.
  std::string steps, fp32_math = "auto", ceiling = "datasheet", ceilings_path;
  double peak_tflops = 0, peak_bandwidth_gbps = 0, link_bandwidth_gbps = 0, model_flops_per_step = 0,
         price = -1;
};

// Registers the verdict options shared by analyze, demo and run.
void AddVerdictOptions(CLI::App& app, AnalyzeArgs& args);
void AddOutputOptions(CLI::App& app, OutputOptions& out);

// Validates raw flags into args.options; the error is one line.
Status CheckVerdictOptions(AnalyzeArgs& args);
// CheckVerdictOptions, printing the error; false when the flags are bad.
bool FinishVerdictOptions(AnalyzeArgs& args);

// Expands folders into their trace files (sorted), checks every path exists.
Result<std::vector<std::string>> ExpandInputs(const std::vector<std::string>& inputs);

// Why no rank had GPU activity (a sentence), or "" when one had.
std::string NoGpuActivity(const verdict::JobVerdict& job);

// The report's title when none is given: the file's name, or "N ranks".
std::string ReportTitle(const std::vector<std::string>& inputs);

// Reads and analyzes every input (one rank each; `options.observer` sees each rank) into `job`.
// Prints a one-line error and returns the exit code when it fails, else 0.
int AnalyzeJob(const std::vector<std::string>& inputs, const verdict::AnalyzeOptions& options, bool quiet,
               verdict::JobVerdict& job, bool verbose = false);

// `plasmient explain` over the same inputs and window (--steps): the verdict box points at the
// first fix's instant with it (exporting::TerminalOptions::explain_command).
std::string ExplainCommand(const std::vector<std::string>& inputs, const std::string& steps);

// Writes text to path, or to stdout for "-"; prints a one-line error naming `what` and returns
// false when it cannot.
bool WriteOutput(const std::string& path, const std::string& text, std::string_view what);

// `--json [FILE|-]`, the same on every command: a bare --json or - prints the JSON on stdout (and
// nothing else there), a path is written whole or not at all (WriteOutput). `what` ends the help
// line: "write the verdict as JSON (plasmient.verdict/1)".
CLI::Option* AddJsonOption(CLI::App& app, std::string& path, std::string_view what);

// Reads, analyzes and prints; returns the process exit code.
int RunAnalyze(const AnalyzeArgs& args, const std::string& title);

}  // namespace plasmient::cli
