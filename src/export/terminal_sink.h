// The terminal verdict: one 80-column box a newcomer understands, then the detail.
#pragma once

#include <string>

#include "verdict/verdict.h"

namespace plasmient::exporting {

struct TerminalOptions {
  std::string title;    // the trace or job name
  bool color = false;   // ANSI colours (only on a TTY, never with NO_COLOR)
  bool details = true;  // top kernels, per-rank table, fixes, data quality
  // "plasmient explain job/": the box points at the first fix's instant with it; "" for none.
  std::string explain_command;
};

std::string RenderTerminal(const verdict::JobVerdict& job, const TerminalOptions& options);

// The per-rank table of a job (its first 16 ranks): achieved, utilization, the rank-level losses.
std::string RenderRankTable(const verdict::JobVerdict& job);

}  // namespace plasmient::exporting
