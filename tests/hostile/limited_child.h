// Test support: runs a check in a child process under an address-space and a CPU-time limit,
// so that a reader that allocates or loops without bound fails the test instead of the machine.
#pragma once

#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <functional>
#include <string>

namespace plasmient::testing {

struct ChildResult {
  bool exited = false;  // false: killed by a signal (the limit, or a crash)
  int code = -1;        // the exit code, or the signal
};

// `check` returns the child's exit code (0: as expected).
inline ChildResult RunLimited(const std::function<int()>& check, std::int64_t address_space_mb,
                              int cpu_seconds) {
  pid_t pid = ::fork();
  if (pid == 0) {
    rlimit as{static_cast<rlim_t>(address_space_mb) << 20, static_cast<rlim_t>(address_space_mb) << 20};
    rlimit cpu{static_cast<rlim_t>(cpu_seconds), static_cast<rlim_t>(cpu_seconds)};
    ::setrlimit(RLIMIT_AS, &as);
    ::setrlimit(RLIMIT_CPU, &cpu);
    ::alarm(static_cast<unsigned>(cpu_seconds) * 4);  // wall time too: a blocked read
    int code = 99;
    try {
      code = check();
    } catch (...) {
      code = 98;
    }
    ::_exit(code);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (WIFEXITED(status)) return {true, WEXITSTATUS(status)};
  return {false, WTERMSIG(status)};
}

}  // namespace plasmient::testing
