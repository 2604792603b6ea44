#include <cstdio>
#include <cstdlib>

#include "base/result.h"

namespace plasmient::internal {

void CheckFailed(const char* what, const char* file, int line) {
  std::fprintf(stderr, "plasmient: internal invariant failed: %s (%s:%d)\n", what, file, line);
  std::abort();
}

}  // namespace plasmient::internal
