// Compiled, never built, by the test `result_nodiscard` (src/base/CMakeLists.txt): each dropped
// Result or Status below must be refused by the compiler.
#include "base/result.h"

namespace plasmient {

Status Check() { return Ok(); }
Result<int> Count() { return 3; }

void DropsBoth() {
  Check();
  Count();
}

}  // namespace plasmient
