// For tests: runs a body in a forked child with its stderr captured, so a test can check what
// the agent says and that the process survives it.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <string>

namespace plasmient::collect {

struct ChildResult {
  int status = -1;   // as waitpid gives it; -1 when the child could not be started
  std::string said;  // its stderr
  bool ExitedWith(int code) const { return WIFEXITED(status) && WEXITSTATUS(status) == code; }
};

// `body()` in a child, which exits with what it returns (or execs another program).
template <typename Body>
ChildResult RunInChild(Body body) {
  ChildResult r;
  int err[2];
  if (pipe(err) != 0) return r;
  pid_t child = fork();
  if (child < 0) return r;
  if (child == 0) {
    close(err[0]);
    dup2(err[1], 2);
    _exit(body());
  }
  close(err[1]);
  char buf[512];
  for (ssize_t n; (n = read(err[0], buf, sizeof buf)) > 0;) r.said.append(buf, static_cast<std::size_t>(n));
  close(err[0]);
  waitpid(child, &r.status, 0);
  return r;
}

}  // namespace plasmient::collect
