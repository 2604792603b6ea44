// `plasmient synth`: the CLI entry. src/cli owns argv and the flags (cli/synth_options.h) and
// calls RunSynthCommand with the parsed config.
#pragma once

#include <string>

#include "synth/job_writer.h"
#include "synth/synth_config.h"

namespace plasmient::synth {

// Writes the job and prints one summary line; returns the process exit code
// (0 ok, 1 the job could not be written; the error line goes to stderr).
int RunSynthCommand(const SynthConfig& config, const std::string& out_dir, Progress* progress = nullptr);

}  // namespace plasmient::synth
