// Plasmient inside another program (the Python package, python/): the flags of `analyze`, the
// same job pipeline and the same outputs, nothing printed. Errors come back as one line.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "verdict/verdict.h"
#include "whatif/activity_table.h"
#include "whatif/slider.h"

namespace plasmient::exporting {
struct VerticalTrace;
}

namespace plasmient::cli {

struct EmbeddedJob {
  verdict::JobVerdict job;
  std::string title;                     // the report's title, as `analyze` names it
  std::vector<std::string> warnings;     // one line per input set aside
  std::string no_gpu_activity;           // why no rank had GPU activity; "" when one had
  std::string explain_command;           // for the terminal box's pointer, as `analyze` writes it
  std::optional<whatif::Slider> whatif;  // that panel: projected on the first HtmlOf
  std::shared_ptr<const exporting::VerticalTrace>
      vertical;  // the HTML report's lanes, as `analyze` reads them
};

// `inputs`: trace files or folders; `flags`: the verdict options of `plasmient analyze`
// (`--steps :-1`, `--gpu h100`, …) as separate words. Fails on bad flags and unreadable input.
Result<EmbeddedJob> AnalyzeEmbedded(const std::vector<std::string>& inputs,
                                    const std::vector<std::string>& flags);

// The HTML report, as `analyze --html` writes it. The what-if panel's projections (a few dozen
// replays of the timeline) are made here, once, not on every analysis: most callers never ask
// for the page.
std::string HtmlOf(EmbeddedJob& job);

}  // namespace plasmient::cli
