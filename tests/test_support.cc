#include "tests/test_support.h"

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace plasmient::testing {

CommandResult RunCommand(const std::string& command_line) {
  CommandResult r;
  std::string cmd = command_line + " 2>&1";
  FILE* pipe = popen(cmd.c_str(), "r");
  if (pipe == nullptr) return r;
  std::array<char, 65536> buf;
  std::size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), pipe)) > 0) r.out.append(buf.data(), n);
  int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

std::string PlasmientBinary() {
  const char* bin = std::getenv("PLASMIENT_BIN");
  return bin != nullptr ? bin : "plasmient";
}

std::optional<std::filesystem::path> SharedTraces() {
  const char* dir = std::getenv("PLASMIENT_SHARED_TRACES");
  if (dir == nullptr || !std::filesystem::is_directory(dir)) return std::nullopt;
  return std::filesystem::path(dir);
}

std::filesystem::path TempDir(const std::string& tag) {
  std::string pattern = (std::filesystem::temp_directory_path() / ("plasmient-" + tag + "-XXXXXX")).string();
  char* made = mkdtemp(pattern.data());
  return made != nullptr ? std::filesystem::path(made) : std::filesystem::temp_directory_path();
}

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

}  // namespace plasmient::testing
