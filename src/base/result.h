// Result<T>: the return type of every fallible function. No exceptions cross modules.
#pragma once

#include <expected>
#include <string>
#include <utility>

#include <fmt/format.h>

namespace plasmient {

// An error is one line a user can act on: what failed, where (file, byte offset), why.
struct Error {
  std::string message;
};

// [[nodiscard]]: a dropped error fails the build (-Werror), as libstdc++ 12's std::expected is
// not marked so itself. Everything else is std::expected's.
template <typename T>
class [[nodiscard]] Result : public std::expected<T, Error> {
 public:
  using std::expected<T, Error>::expected;
  Result(std::expected<T, Error> e) : std::expected<T, Error>(std::move(e)) {}  // NOLINT: implicit
};

using Status = Result<void>;

template <typename... Args>
[[nodiscard]] std::unexpected<Error> Fail(fmt::format_string<Args...> format, Args&&... args) {
  return std::unexpected(Error{fmt::format(format, std::forward<Args>(args)...)});
}

[[nodiscard]] inline Status Ok() { return {}; }

}  // namespace plasmient

// Evaluates a Result/Status expression; on error returns it from the enclosing function.
#define PLASMIENT_TRY(expr)                                         \
  do {                                                              \
    if (auto _plasmient_status = (expr); !_plasmient_status) {      \
      return std::unexpected(std::move(_plasmient_status.error())); \
    }                                                               \
  } while (0)

// Invariants are checked in every build type, not only debug builds.
#define PLASMIENT_CHECK(cond)                                                   \
  do {                                                                          \
    if (!(cond)) ::plasmient::internal::CheckFailed(#cond, __FILE__, __LINE__); \
  } while (0)

namespace plasmient::internal {
[[noreturn]] void CheckFailed(const char* what, const char* file, int line);
}  // namespace plasmient::internal
