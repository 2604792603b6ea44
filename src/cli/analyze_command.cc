#include "cli/analyze_command.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <thread>
#include <unordered_map>

#include <fmt/format.h>

#include "base/keep_until_exit.h"
#include "base/output_file.h"
#include "cli/heap_pages.h"
#include "cli/progress.h"
#include "cli/record_flags.h"
#include "cli/step_slice.h"
#include "export/html_sink.h"
#include "export/html_vertical.h"
#include "export/perfetto_sink.h"
#include "export/terminal_sink.h"
#include "export/verdict_json_sink.h"
#include "ingest/kineto_json/gzip_inflater.h"
#include "ingest/own_outputs.h"
#include "ingest/trace_kinds.h"
#include "job/analyze_job.h"
#include "whatif/activity_table.h"
#include "whatif/slider.h"

namespace plasmient::cli {
namespace fs = std::filesystem;

void AddVerdictOptions(CLI::App& app, AnalyzeArgs& a) {
  app.add_option(
      "--steps", a.steps,
      "ProfilerSteps to keep, as a slice A:B (Python rules; ':-1' drops the last, cut-short step)");
  app.add_option("--gpu", a.options.gpu,
                 "GPU model to judge against (see `plasmient peaks`), overriding the trace");
  app.add_option("--peak-tflops", a.peak_tflops,
                 "peak TFLOP/s to judge against, overriding the device table");
  app.add_option("--peak-bandwidth-gbps", a.peak_bandwidth_gbps,
                 "memory bandwidth in GB/s, overriding the table");
  app.add_option("--ceiling", a.ceiling,
                 "judge achieved against the datasheet peaks or the measured ceilings of --ceilings "
                 "(docs/counters.md, \"Measured ceilings\")")
      ->check(CLI::IsMember({"datasheet", "measured"}));
  app.add_option("--ceilings", a.ceilings_path,
                 "a plasmient.ceilings/1 file (scripts/gpu-check.sh writes one): the measured ceilings");
  app.add_option("--model-flops-per-step", a.model_flops_per_step, "the model's FLOPs per step, for MFU");
  app.add_option(
         "--fp32-math", a.fp32_math,
         "how fp32 matrix work runs: auto (matmul fp32, convolution tf32, kernel names decide), fp32, tf32")
      ->check(CLI::IsMember({"auto", "fp32", "tf32"}));
  app.add_option("--price-per-gpu-hour", a.price,
                 "price of one GPU-hour in dollars (default: per-GPU table)");
  app.add_option("--target-mfu", a.options.target_fraction,
                 "target achieved fraction for the bill's addressable share")
      ->check(CLI::Range(0.01, 1.0));
  app.add_option("--link-bandwidth-gbps", a.link_bandwidth_gbps,
                 "GPU-to-GPU link bandwidth in GB/s for collective bandwidth (default: device table)");
  app.add_option(
      "--graph-capture", a.options.graph_captures,
      "a trace of the CUDA/HIP graph capture whose replays the inputs hold, so that replayed kernels "
      "take the ops, shapes and layers that launched them (repeat per rank)");
  app.add_option("--top", a.options.top_n, "how many kernels and ops to list")->check(CLI::Range(1, 1000));
  a.options.workers = std::max(1u, std::thread::hardware_concurrency());
  app.add_option("-j,--jobs", a.options.workers,
                 "ranks read and analyzed at once; each Kineto trace is parsed on cores / N threads "
                 "(at least one)")
      ->capture_default_str()
      ->check(CLI::Range(1, 4096));
}

void AddOutputOptions(CLI::App& app, OutputOptions& out) {
  AddJsonOption(app, out.json_path, "write the verdict as JSON (plasmient.verdict/1)");
  app.add_flag("-q,--quiet", out.quiet, "no terminal verdict, no progress");
  app.add_flag("--no-color", out.no_color, "no ANSI colours (NO_COLOR is respected too)");
  app.add_flag("--brief", out.brief, "print only the verdict box");
  app.add_flag("-v,--verbose", out.verbose,
               "say how each input was read: format, gzip engine, size, events, seconds, MB/s");
  AddRecordOptions(app, out.record);
  app.add_option(
      "--perfetto", out.perfetto_path,
      "write the vertical trace (Chrome-trace JSON) to FILE, for ui.perfetto.dev or chrome://tracing");
  app.add_option("--perfetto-worst-steps", out.perfetto_worst_steps,
                 "keep only the N steps with the lowest achieved fraction in the --perfetto trace");
  app.add_option("--html", out.html_path, "write the self-contained HTML report to FILE");
}

Status CheckVerdictOptions(AnalyzeArgs& a) {
  auto& o = a.options;
  if (!a.steps.empty()) {
    auto slice = ParseStepSlice(a.steps);
    if (!slice) return std::unexpected(slice.error());
    o.steps = *slice;
  }
  if (a.peak_tflops < 0 || a.peak_bandwidth_gbps < 0 || a.model_flops_per_step < 0) {
    return Fail("peaks and FLOPs must be positive");
  }
  if (!o.gpu.empty()) {
    if (auto known = roofline::FindDeviceByKey(o.gpu); !known) return std::unexpected(known.error());
  }
  auto ceiling = roofline::ParseCeilingKind(a.ceiling);
  if (!ceiling) return std::unexpected(ceiling.error());
  o.ceiling = *ceiling;
  if (o.ceiling == roofline::CeilingKind::kMeasured && a.ceilings_path.empty())
    return Fail("--ceiling measured needs --ceilings FILE");
  if (!a.ceilings_path.empty()) {
    auto read = roofline::ReadCeilings(a.ceilings_path);
    if (!read) return std::unexpected(read.error());
    o.ceilings = std::make_shared<const roofline::Ceilings>(*std::move(read));
  }
  if (a.peak_tflops > 0) o.peak_flops_per_s = a.peak_tflops * 1e12;
  if (a.peak_bandwidth_gbps > 0) o.memory_bandwidth_bytes_per_s = a.peak_bandwidth_gbps * 1e9;
  if (a.model_flops_per_step > 0) o.model_flops_per_step = a.model_flops_per_step;
  if (a.price >= 0) o.price_per_gpu_hour = a.price;
  if (a.link_bandwidth_gbps > 0) o.link_bandwidth_bytes_per_s = a.link_bandwidth_gbps * 1e9;
  o.fp32_math = a.fp32_math == "tf32"   ? roofline::Fp32MathOption::kTf32
                : a.fp32_math == "fp32" ? roofline::Fp32MathOption::kIeee
                                        : roofline::Fp32MathOption::kAuto;
  return Ok();
}

bool FinishVerdictOptions(AnalyzeArgs& a) {
  if (auto checked = CheckVerdictOptions(a); !checked) {
    fmt::print(stderr, "plasmient: {}\n", checked.error().message);
    return false;
  }
  return true;
}

Result<std::vector<std::string>> ExpandInputs(const std::vector<std::string>& inputs) {
  std::vector<std::string> out;
  for (const auto& in : inputs) {
    std::error_code ec;
    auto st = fs::status(in, ec);
    if (ec || !fs::exists(st)) return Fail("{}: no such file or folder", in);
    if (!fs::is_directory(st)) {
      out.push_back(in);
      continue;
    }
    std::vector<std::string> found;
    std::string report;  // an Nsight Systems report (the first by name), to be exported to be read
    for (const auto& e : fs::directory_iterator(in, ec)) {
      std::string name = e.path().filename().string();
      if (e.is_regular_file() && ingest::IsNsightReportName(name) && (report.empty() || e.path() < report))
        report = e.path().string();
      // truth.json and Plasmient's own outputs (plasmient-*.json) live beside the traces.
      bool ours = name == "truth.json" || name.starts_with("plasmient-");
      if (e.is_regular_file() && ingest::IsTraceFileName(name) && !ours) {
        found.push_back(e.path().string());
      }
    }
    if (ec) return Fail("{}: cannot list the folder: {}", in, ec.message());
    if (found.empty() && !report.empty()) {
      if (auto hint = ingest::UnexportedReportOf(report)) {
        return Fail("{}: the folder holds no trace files ({}); {}", in, ingest::TraceSuffixList(), *hint);
      }
    }
    if (found.empty()) return Fail("{}: the folder holds no trace files ({})", in, ingest::TraceSuffixList());
    std::sort(found.begin(), found.end());
    out.insert(out.end(), found.begin(), found.end());
  }
  if (out.empty()) return Fail("no input: give one or more trace files or folders");
  return out;
}

std::string NoGpuActivity(const verdict::JobVerdict& job) {
  bool any_gpu =
      std::any_of(job.ranks.begin(), job.ranks.end(), [](const auto& r) { return r.no_gpu_reason.empty(); });
  if (any_gpu) return {};
  return job.ranks.empty() ? "no input" : job.ranks.front().no_gpu_reason;
}

std::string ReportTitle(const std::vector<std::string>& inputs) {
  if (inputs.size() > 1) return fmt::format("{} ranks", inputs.size());
  return inputs.empty() ? std::string() : fs::path(inputs[0]).filename().string();
}

namespace {

// --verbose: one line per input read.
void PrintRead(const model::TraceInfo& info, double seconds) {
  std::string how = info.format;
  if (info.format.ends_with(".gz")) {
    how += fmt::format(" inflated by {}", ingest::GzipEngineName(ingest::DefaultGzipEngine()));
  }
  double mb = static_cast<double>(info.input_bytes) / 1e6;
  fmt::print(stderr, "plasmient: {}: {}, {:.1f} MB, {} events, read in {:.3f} s ({:.0f} MB/s)\n", info.path,
             how, mb, info.events, seconds, seconds > 0 ? mb / seconds : 0.0);
}

}  // namespace

int AnalyzeJob(const std::vector<std::string>& inputs, const verdict::AnalyzeOptions& options, bool quiet,
               verdict::JobVerdict& job, bool verbose) {
  bool tty_err = isatty(STDERR_FILENO) != 0;
  Progress progress(tty_err && !quiet);
  job::JobReadHooks hooks;
  hooks.begin = [&](const std::string& path, std::size_t i, std::size_t n) {
    return progress.Callback(path, i, n);
  };
  hooks.done = [&] { progress.Done(); };
  hooks.warn = [](const std::string& line) { fmt::print(stderr, "plasmient: {}\n", line); };
  if (verbose) {
    hooks.read = PrintRead;
    std::size_t threads = job::ParseThreadsEach(options, inputs.size());
    fmt::print(stderr, "plasmient: {} input{}, {} at once (--jobs), each parsed on {}; gzip through {}; {}\n",
               inputs.size(), inputs.size() == 1 ? "" : "s", std::min(options.workers, inputs.size()),
               threads == 0   ? std::string("one thread per core")
               : threads == 1 ? std::string("1 thread")
                              : fmt::format("{} threads", threads),
               ingest::GzipEngineName(ingest::DefaultGzipEngine()), HeapPagesNote());
  }
  auto analyzed = job::AnalyzeInputs(std::vector<fs::path>(inputs.begin(), inputs.end()), options, hooks);
  if (!analyzed) {
    fmt::print(stderr, "plasmient: {}\n", analyzed.error().message);
    return 1;
  }
  job = std::move(*analyzed);
  return 0;
}

std::string ExplainCommand(const std::vector<std::string>& inputs, const std::string& steps) {
  std::string command = "plasmient explain";
  for (const auto& in : inputs) {
    command += in.find_first_of(" '\"$`\\") == std::string::npos ? " " + in : " '" + in + "'";
  }
  if (!steps.empty()) command += " --steps " + steps;
  return command;
}

CLI::Option* AddJsonOption(CLI::App& app, std::string& path, std::string_view what) {
  // expected(0, 1): the value is optional, and a bare --json takes the default, "-".
  return app.add_option("--json", path, fmt::format("{} to FILE; no FILE, or -, for stdout", what))
      ->expected(0, 1)
      ->default_str("-")
      ->type_name("[FILE|-]");
}

bool WriteOutput(const std::string& path, const std::string& text, std::string_view what) {
  if (path == "-") {
    std::fwrite(text.data(), 1, text.size(), stdout);
    return true;
  }
  auto f = OutputFile::Open(path);
  Status written = f ? (f->Write(text), f->Commit()) : Status(std::unexpected(f.error()));
  if (written) return true;
  fmt::print(stderr, "plasmient: {} (the {})\n", written.error().message, what);
  return false;
}

namespace {

// The report files: --perfetto (completed here, once clock offsets are known) and --html.
int WriteReports(const OutputOptions& out, exporting::PerfettoSink* perfetto, const verdict::JobVerdict& job,
                 const std::string& title, const exporting::VerticalTrace* vertical) {
  if (perfetto != nullptr) {
    std::unordered_map<std::int64_t, double> offsets;  // the cluster layer's, by rank (= pid)
    for (const auto& r : job.ranks) {
      if (r.clock_aligned) offsets[r.rank] = r.clock_offset_s;
    }
    auto stats = perfetto->Finish(offsets);
    if (!stats) {
      fmt::print(stderr, "plasmient: {}\n", stats.error().message);
      return 1;
    }
    if (!out.quiet) {
      fmt::print(
          stderr, "plasmient: wrote {} ({} events, {:.1f} MB){}\n", out.perfetto_path, stats->events,
          static_cast<double>(stats->bytes) / 1e6,
          stats->dropped > 0 ? fmt::format(", kept the {} worst steps", stats->kept_steps.size()) : "");
    }
  }
  if (!out.html_path.empty()) {
    const whatif::Slider slider = whatif::ProjectSlider(job);
    if (!WriteOutput(out.html_path,
                     exporting::RenderHtml(job, {.title = title, .whatif = &slider, .vertical = vertical}),
                     "HTML report")) {
      return 1;
    }
  }
  return 0;
}

// --json: the verdict written to FILE (or stdout, "-") a piece at a time as it is made: a
// 1,024-rank job's tens of MB are never held whole.
bool WriteJsonVerdict(const std::string& path, const verdict::JobVerdict& job) {
  if (path == "-") {
    bool ok = true;
    exporting::WriteVerdictJson(job, [&](std::string_view piece) {
      ok = ok && std::fwrite(piece.data(), 1, piece.size(), stdout) == piece.size();
    });
    if (std::fflush(stdout) == 0 && ok) return true;
    fmt::print(stderr, "plasmient: -: cannot write the JSON verdict\n");
    return false;
  }
  auto f = OutputFile::Open(path);
  Status written = f ? Status() : Status(std::unexpected(f.error()));
  if (f) {
    exporting::WriteVerdictJson(job, [&](std::string_view piece) { f->Write(piece); });
    written = f->Commit();
  }
  if (written) return true;
  fmt::print(stderr, "plasmient: {} (the JSON verdict)\n", written.error().message);
  return false;
}

}  // namespace

int RunAnalyze(const AnalyzeArgs& args, const std::string& title) {
  auto inputs = ExpandInputs(args.inputs);
  if (!inputs) {
    fmt::print(stderr, "plasmient: {}\n", inputs.error().message);
    return 1;
  }
  verdict::AnalyzeOptions options = args.options;
  std::unique_ptr<exporting::PerfettoSink> perfetto;
  if (!args.output.perfetto_path.empty()) {
    auto sink = exporting::PerfettoSink::Create(
        {.path = args.output.perfetto_path, .worst_steps = args.output.perfetto_worst_steps});
    if (!sink) {
      fmt::print(stderr, "plasmient: {}\n", sink.error().message);
      return 1;
    }
    perfetto = std::move(*sink);
    options.observer = perfetto.get();
  }
  std::optional<exporting::VerticalCollector> vertical;  // the report's lanes
  if (!args.output.html_path.empty()) {
    vertical.emplace(options.observer);
    options.observer = &*vertical;
  }
  // The store's lever rows and the report's what-if panel project from the ranks' activity tables.
  options.keep_activities = RecordAsked(args.output.record) || !args.output.html_path.empty();
  verdict::JobVerdict job;
  // The process ends soon after this returns: the verdicts are kept, not freed one block at a time.
  struct KeepJob {
    verdict::JobVerdict& job;
    ~KeepJob() { KeepUntilExit(std::move(job)); }
  } keep{job};
  if (int rc = AnalyzeJob(*inputs, options, args.output.quiet, job, args.output.verbose); rc != 0) return rc;
  if (int rc = RecordIfAsked(args.output.record, job, args.inputs, *inputs); rc != 0) return rc;
  std::string report_title = title.empty() ? ReportTitle(*inputs) : title;
  const auto lanes = vertical ? vertical->For(job) : nullptr;
  if (int rc = WriteReports(args.output, perfetto.get(), job, report_title, lanes.get()); rc != 0) return rc;

  if (!args.output.json_path.empty() && !WriteJsonVerdict(args.output.json_path, job)) return 1;
  bool json_on_stdout = args.output.json_path == "-";
  if (!args.output.quiet && !json_on_stdout) {
    exporting::TerminalOptions to;
    to.title = report_title;
    to.color = isatty(STDOUT_FILENO) && !args.output.no_color && std::getenv("NO_COLOR") == nullptr;
    to.details = !args.output.brief;
    to.explain_command = ExplainCommand(args.inputs, args.steps);
    std::string text = exporting::RenderTerminal(job, to);
    std::fwrite(text.data(), 1, text.size(), stdout);
  }
  if (std::string none = NoGpuActivity(job); !none.empty()) {
    fmt::print(stderr, "plasmient: {}: {}\n", (*inputs)[0], none);
    return 3;
  }
  return 0;
}

}  // namespace plasmient::cli
