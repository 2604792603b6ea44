#include "base/keep_until_exit.h"

#include <mutex>
#include <vector>

namespace plasmient::detail {

namespace {

struct Kept {
  std::mutex mutex;
  std::vector<std::shared_ptr<void>> values;
};

}  // namespace

void KeepReachable(std::shared_ptr<void> kept) {
  // Allocated once and never deleted, so no destructor runs at exit; a global points to it, so
  // what it holds is reachable, not leaked.
  static Kept* const all = new Kept;
  std::lock_guard lock(all->mutex);
  all->values.push_back(std::move(kept));
}

}  // namespace plasmient::detail
