#include "cli/step_slice.h"

#include <cstdint>
#include <optional>

#include "base/text.h"

namespace plasmient::cli {

Result<verdict::StepSlice> ParseStepSlice(std::string_view text) {
  auto colon = text.find(':');
  if (colon == std::string_view::npos) {
    return Fail("--steps '{}': expected a slice A:B (either end may be empty, e.g. ':-1')", text);
  }
  verdict::StepSlice s;
  auto part = [](std::string_view p) -> Result<std::optional<std::int64_t>> {
    if (p.empty()) return std::optional<std::int64_t>{};
    auto v = ParseInt(p);
    if (!v) return Fail("'{}' is not an integer", p);
    return v;
  };
  auto b = part(text.substr(0, colon));
  auto e = part(text.substr(colon + 1));
  if (!b || !e) return Fail("--steps '{}': ends must be integers, e.g. '1:-1'", text);
  s.begin = *b;
  s.end = *e;
  return s;
}

}  // namespace plasmient::cli
