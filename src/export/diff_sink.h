// A before/after diff (verdict/diff.h) for people and programs: terminal, JSON
// (schema plasmient.diff/1) and one self-contained HTML page.
#pragma once

#include <string>

#include "verdict/diff.h"

namespace plasmient::exporting {

inline constexpr std::string_view kDiffSchema = "plasmient.diff/1";

struct DiffLabels {
  std::string before = "before", after = "after";  // e.g. the inputs' names
};

std::string DiffToJson(const verdict::VerdictDiff& diff, const DiffLabels& labels);
std::string RenderDiffTerminal(const verdict::VerdictDiff& diff, const DiffLabels& labels, bool color);
std::string RenderDiffHtml(const verdict::VerdictDiff& diff, const DiffLabels& labels);

}  // namespace plasmient::exporting
