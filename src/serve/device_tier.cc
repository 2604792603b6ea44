#include "serve/device_tier.h"

#include <algorithm>

#include "ingest/native/native_reader.h"

namespace plasmient::serve {
namespace native = ingest::native;

bool KernelWindows(const std::vector<std::filesystem::path>& files, const ingest::OpenRules& rules) {
  return !files.empty() && std::all_of(files.begin(), files.end(), [&](const std::filesystem::path& f) {
    return native::NativeCoverage(f.string(), rules) == native::Coverage::kWindow;
  });
}

}  // namespace plasmient::serve
