// `plasmient synth`: the CLI entry. src/cli owns argv; it adds these options to a
// subcommand and calls RunSynthCommand with the parsed config.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "synth/job_writer.h"
#include "synth/synth_config.h"

namespace plasmient::synth {

// Registers --scenario, --gpu, --ranks, --steps, --seed, --gzip, sizes and scenario knobs,
// and -o/--out (the job folder).
void AddSynthOptions(CLI::App& app, SynthConfig& config, std::string& out_dir);

// Writes the job and prints one summary line; returns the process exit code
// (0 ok, 1 the job could not be written; the error line goes to stderr).
int RunSynthCommand(const SynthConfig& config, const std::string& out_dir, Progress* progress = nullptr);

}  // namespace plasmient::synth
