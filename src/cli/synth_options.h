// `plasmient synth`'s flags: src/cli owns argv; synth only takes the parsed config.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "synth/synth_config.h"

namespace plasmient::cli {

// Registers --scenario, --gpu, --ranks, --steps, --seed, --gzip, sizes and scenario knobs,
// and -o/--out (the job folder).
void AddSynthOptions(CLI::App& app, synth::SynthConfig& config, std::string& out_dir);

}  // namespace plasmient::cli
