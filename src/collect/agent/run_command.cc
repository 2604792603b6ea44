#include "collect/agent/run_command.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>

extern char** environ;

namespace plasmient::collect {
namespace {

std::atomic<pid_t> g_child{0};

void Forward(int sig) {
  pid_t child = g_child.load();
  if (child > 0) kill(child, sig);
}

bool Exists(const std::string& path) {
  struct stat st;
  return !path.empty() && stat(path.c_str(), &st) == 0;
}

std::string ExecutableDir() {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return {};
  std::string path(buf, static_cast<std::size_t>(n));
  return path.substr(0, path.rfind('/'));
}

bool HaveCudaDriver() {
  void* lib = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (lib == nullptr) return false;
  dlclose(lib);
  return true;
}

void MakeDirs(const std::string& dir) {
  for (std::size_t pos = 1; pos <= dir.size(); ++pos) {
    if (pos == dir.size() || dir[pos] == '/') mkdir(dir.substr(0, pos).c_str(), 0755);
  }
}

void Set(std::vector<std::string>& env, const std::string& name, const std::string& value) {
  std::string prefix = name + "=";
  for (auto& e : env) {
    if (e.compare(0, prefix.size(), prefix) == 0) {
      e = prefix + value;
      return;
    }
  }
  env.push_back(prefix + value);
}

std::string Get(const std::vector<std::string>& env, const std::string& name) {
  std::string prefix = name + "=";
  for (const auto& e : env) {
    if (e.compare(0, prefix.size(), prefix) == 0) return e.substr(prefix.size());
  }
  return {};
}

}  // namespace

std::string FindAgentLibrary(const RunOptions& options) {
  if (!options.agent_path.empty()) return Exists(options.agent_path) ? options.agent_path : "";
  // Beside the binary (the build folder), then where `cmake --install` and the .deb put it.
  for (const char* relative : {"/libplasmient_agent.so", "/../lib/plasmient/libplasmient_agent.so"}) {
    std::string candidate = ExecutableDir() + relative;
    if (Exists(candidate)) return candidate;
  }
#ifdef PLASMIENT_AGENT_BUILD_PATH
  if (Exists(PLASMIENT_AGENT_BUILD_PATH)) return PLASMIENT_AGENT_BUILD_PATH;
#endif
  return {};
}

std::vector<std::string> AgentEnvironment(const std::vector<std::string>& base, const RunOptions& options,
                                          const std::string& agent_path, std::vector<std::string>* notes) {
  std::vector<std::string> env = base;
  if (!options.out_dir.empty()) Set(env, "PLASMIENT_OUT_DIR", options.out_dir);
  if (!options.job_id.empty()) Set(env, "PLASMIENT_JOB_ID", options.job_id);
  if (options.nvml_period_ms >= 0) {
    Set(env, "PLASMIENT_NVML_PERIOD_MS", std::to_string(options.nvml_period_ms));
  }
  if (agent_path.empty()) return env;
  // `run` analyzes the whole run: one file per process, unless the caller chose a duty cycle.
  if (Get(env, "PLASMIENT_PERIOD_S").empty()) Set(env, "PLASMIENT_PERIOD_S", "0");
  auto replace = [&](const char* name) {
    std::string old = Get(env, name);
    if (!old.empty() && old != agent_path && notes != nullptr) {
      notes->push_back(std::string(name) + "=" + old + " is replaced by the agent (one tool per process)");
    }
    Set(env, name, agent_path);
  };
  replace("CUDA_INJECTION64_PATH");
  if (options.nccl_plugin) replace("NCCL_PROFILER_PLUGIN");
  // NVTX_INJECTION64_PATH is left to the agent: it names the libcupti the process uses, once
  // the agent has chosen it at cuInit. A path set here could load a second copy.
  if (options.gemm_shapes) {
    std::string preload = Get(env, "LD_PRELOAD");
    Set(env, "LD_PRELOAD", preload.empty() ? agent_path : agent_path + ":" + preload);
  }
  return env;
}

int RunCommand(const RunOptions& options, const std::vector<std::string>& argv) {
  if (argv.empty()) return 127;
  std::string agent = FindAgentLibrary(options);
  if (agent.empty()) {
    if (!options.quiet) {
      std::fprintf(stderr, "plasmient: live agent library not found; running %s without it\n",
                   argv[0].c_str());
    }
  } else if (!HaveCudaDriver()) {
    if (!options.quiet) {
      std::fprintf(stderr, "plasmient: no CUDA driver on this machine; running %s without the agent\n",
                   argv[0].c_str());
    }
    agent.clear();
  }
  if (!options.out_dir.empty()) MakeDirs(options.out_dir);

  std::vector<std::string> base;
  for (char** e = environ; *e != nullptr; ++e) base.emplace_back(*e);
  std::vector<std::string> notes;
  std::vector<std::string> env = AgentEnvironment(base, options, agent, &notes);
  if (!options.quiet) {
    for (const std::string& note : notes) std::fprintf(stderr, "plasmient: %s\n", note.c_str());
  }
  std::vector<char*> envp, args;
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<std::string> argv_copy = argv;
  for (auto& a : argv_copy) args.push_back(a.data());
  args.push_back(nullptr);

  // Forward SIGINT/SIGTERM to CMD while it runs; restore our dispositions afterwards. They stay
  // blocked until CMD's pid is known, so one that arrives while CMD starts is forwarded, not lost;
  // CMD itself starts with our original mask.
  struct sigaction forward, old_int, old_term;
  memset(&forward, 0, sizeof forward);
  forward.sa_handler = Forward;
  sigemptyset(&forward.sa_mask);
  forward.sa_flags = SA_RESTART;
  sigset_t forwarded, old_mask;
  sigemptyset(&forwarded);
  sigaddset(&forwarded, SIGINT);
  sigaddset(&forwarded, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &forwarded, &old_mask);
  sigaction(SIGINT, &forward, &old_int);
  sigaction(SIGTERM, &forward, &old_term);

  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setsigmask(&attr, &old_mask);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK);
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, args[0], nullptr, &attr, args.data(), envp.data());
  posix_spawnattr_destroy(&attr);
  if (rc == 0) g_child.store(pid);
  pthread_sigmask(SIG_SETMASK, &old_mask, nullptr);
  int status = 0;
  int result = 127;
  if (rc != 0) {
    std::fprintf(stderr, "plasmient: cannot start %s: %s\n", argv[0].c_str(), strerror(rc));
  } else {
    while (waitpid(pid, &status, 0) < 0) {
      if (errno != EINTR) break;
    }
    g_child.store(0);
    if (WIFEXITED(status)) result = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) result = 128 + WTERMSIG(status);
  }
  sigaction(SIGINT, &old_int, nullptr);
  sigaction(SIGTERM, &old_term, nullptr);
  return result;
}

}  // namespace plasmient::collect
