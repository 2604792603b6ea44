// Helpers for cross-stage tests: run the plasmient binary, find the shared real traces.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace plasmient::testing {

struct CommandResult {
  int exit_code = -1;
  std::string out;  // stdout and stderr together
};

// Runs a shell command line, capturing its output.
CommandResult RunCommand(const std::string& command_line);

// The built plasmient binary (PLASMIENT_BIN, set by CTest).
std::string PlasmientBinary();

// The folder of real traces (PLASMIENT_SHARED_TRACES), or nullopt when it is absent.
std::optional<std::filesystem::path> SharedTraces();

// A fresh temporary folder, removed at exit by the caller if it wishes.
std::filesystem::path TempDir(const std::string& tag);

std::string ReadFile(const std::filesystem::path& path);

}  // namespace plasmient::testing
