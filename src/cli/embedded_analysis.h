// Plasmient inside another program (the Python package, python/): the flags of `analyze`, the
// same job pipeline and the same outputs, nothing printed. Errors come back as one line.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "base/result.h"
#include "verdict/verdict.h"
#include "whatif/slider.h"

namespace plasmient::exporting {
struct VerticalTrace;
}

namespace plasmient::cli {

struct EmbeddedJob {
  verdict::JobVerdict job;
  std::string title;                  // the report's title, as `analyze` names it
  std::vector<std::string> warnings;  // one line per input set aside
  std::string no_gpu_activity;        // why no rank had GPU activity; "" when one had
  std::string explain_command;        // for the terminal box's pointer, as `analyze` writes it
  whatif::Slider whatif;              // the report's what-if panel, as `analyze --html` writes it
  std::shared_ptr<const exporting::VerticalTrace>
      vertical;  // the HTML report's lanes, as `analyze` reads them
};

// `inputs`: trace files or folders; `flags`: the verdict options of `plasmient analyze`
// (`--steps :-1`, `--gpu h100`, …) as separate words. Fails on bad flags and unreadable input.
Result<EmbeddedJob> AnalyzeEmbedded(const std::vector<std::string>& inputs,
                                    const std::vector<std::string>& flags);

}  // namespace plasmient::cli
