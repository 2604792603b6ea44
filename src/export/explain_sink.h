// `plasmient explain`: one column of the vertical trace as text (one layer a line, bottom to top,
// then the sentence that joins them) and as JSON (plasmient.explain/1, docs/json-schema.md).
#pragma once

#include <optional>
#include <string>

#include "cluster/arrivals.h"
#include "verdict/column.h"

namespace plasmient::exporting {

struct Explanation {
  std::string input;   // the trace file of the rank
  std::string device;  // the device the verdict judged by
  verdict::Column column;
  // The communication kernel resident at t, with its match across ranks (multi-rank jobs).
  std::optional<cluster::CollectiveArrivals> collective;
};

// The report's short form of a kernel name: without a leading "void ", cut at the first '<' or
// '(' (template and parameter lists), at most 60 characters. The report's script applies the
// same rule (html_vertical.cc).
std::string KernelBaseName(std::string_view name);

// "at t = 6.200 ms (step 5) the device is 99% utilized and 4% of peak, because …, because …":
// each clause comes from one layer of the column (docs/explain.md, "The sentence").
std::string ExplainSentence(const Explanation& e);

// `command` (e.g. "plasmient explain job/") with the first fix's instant: " --at 38.567ms --rank 0"
// (verdict::FirstFixInstant); "" when there is none. The verdict box points there.
std::string FirstFixPointer(const verdict::JobVerdict& job, std::string_view command);

std::string RenderExplainText(const Explanation& e);
std::string ExplainToJson(const Explanation& e);

}  // namespace plasmient::exporting
