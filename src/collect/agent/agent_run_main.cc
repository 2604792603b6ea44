// plasmient_agent_run [--out DIR] [--agent PATH] [--no-gemm-shapes] -- CMD [ARGS...]
// RunCommand without the analyzer, for machines where only the agent is built.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "collect/agent/run_command.h"

int main(int argc, char** argv) {
  plasmient::collect::RunOptions options;
  int i = 1;
  for (; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--") {
      ++i;
      break;
    }
    if (a == "--out" && i + 1 < argc) {
      options.out_dir = argv[++i];
    } else if (a == "--agent" && i + 1 < argc) {
      options.agent_path = argv[++i];
    } else if (a == "--no-gemm-shapes") {
      options.gemm_shapes = false;
    } else {
      std::fprintf(stderr, "usage: %s [--out DIR] [--agent PATH] [--no-gemm-shapes] -- CMD...\n", argv[0]);
      return 2;
    }
  }
  std::vector<std::string> cmd(argv + i, argv + argc);
  if (cmd.empty()) {
    std::fprintf(stderr, "%s: no command given\n", argv[0]);
    return 2;
  }
  return plasmient::collect::RunCommand(options, cmd);
}
