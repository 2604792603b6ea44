// A command's large result, kept until the process ends instead of destroyed: freeing a
// 1,024-rank job's verdicts (millions of small blocks) takes a tenth of a second on one core, and
// the exit that follows returns the whole heap at once anyway.
#pragma once

#include <memory>
#include <new>
#include <type_traits>
#include <utility>

namespace plasmient {

namespace detail {
// Records a kept object: it stays reachable (leak checkers see it from a global) and is never
// destroyed.
void KeepReachable(std::shared_ptr<void> kept);
}  // namespace detail

// Moves `value` into storage that lives until the process exits and is never destroyed. Only for
// commands that end the process soon after: each call keeps its value for good. Without memory
// for the bookkeeping, `value` is left as it was, to be destroyed as usual.
template <typename T>
void KeepUntilExit(T&& value) noexcept {
  try {
    detail::KeepReachable(std::make_shared<std::remove_cvref_t<T>>(std::forward<T>(value)));
  } catch (const std::bad_alloc&) {
  }
}

}  // namespace plasmient
