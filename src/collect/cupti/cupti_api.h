// The CUPTI functions the agent calls, resolved at run time (libplasmient_agent.so has no
// NEEDED entry on libcupti: a preloaded library whose dependency is missing stops every program
// in the job from starting). At cuInit the agent takes the libcupti already in the process
// (PyTorch's), else one from PyTorch's wheel folders, else the toolkit's; with none it runs on
// device counters only.
#pragma once

#include <cupti.h>

#include <string>
#include <string_view>
#include <vector>

namespace plasmient::collect {

struct CuptiApi {
  decltype(&cuptiGetVersion) GetVersion = nullptr;
  decltype(&cuptiSubscribe_v2) Subscribe = nullptr;
  decltype(&cuptiUnsubscribe) Unsubscribe = nullptr;
  decltype(&cuptiEnableCallback) EnableCallback = nullptr;
  decltype(&cuptiActivitySetAttribute) ActivitySetAttribute = nullptr;
  decltype(&cuptiActivityRegisterTimestampCallback) RegisterTimestampCallback = nullptr;
  decltype(&cuptiActivityRegisterCallbacks) RegisterCallbacks = nullptr;
  decltype(&cuptiActivityEnable) ActivityEnable = nullptr;
  decltype(&cuptiActivityEnableAndDump) ActivityEnableAndDump = nullptr;
  decltype(&cuptiActivityDisable) ActivityDisable = nullptr;
  decltype(&cuptiActivityFlushAll) ActivityFlushAll = nullptr;
  decltype(&cuptiActivityGetNumDroppedRecords) GetNumDroppedRecords = nullptr;
  decltype(&cuptiActivityGetNextRecord) GetNextRecord = nullptr;
  decltype(&cuptiGetResultString) GetResultString = nullptr;
  decltype(&cuptiGetCallbackName) GetCallbackName = nullptr;
  // Optional (null when the libcupti lacks them): per-API record filters.
  decltype(&cuptiActivityEnableRuntimeApi) EnableRuntimeApi = nullptr;
  decltype(&cuptiActivityEnableDriverApi) EnableDriverApi = nullptr;
  std::string path;  // the file the functions came from ("" when unknown)
};

// Fills `api` from an open handle (dlopen's, or RTLD_DEFAULT). Empty on success, else the first
// missing function's name.
std::string ResolveCupti(void* handle, CuptiApi& api);

// Where to look for libcupti.so.13, in order, given the files already loaded in the process
// (`loaded`), and the environment: PLASMIENT_CUPTI_LIBRARY alone when it is set; else PyTorch's
// wheel folders next to any loaded file under a site-packages (or dist-packages) folder, the
// soname (the loader's
// own search), then CUDA_HOME / CUDA_PATH / /usr/local/cuda, then `build_path` (the build's).
// A copy already in the process is preferred over all of these (OpenCupti).
std::vector<std::string> CuptiCandidates(const std::vector<std::string>& loaded,
                                         const char* (*getenv_fn)(const char*), std::string_view build_path);

// The process's own libcupti.so.13 (RTLD_NOLOAD), else the first candidate that opens and has
// every function. Empty on success; else why none was usable (one line).
std::string OpenCupti(const std::vector<std::string>& candidates, CuptiApi& api);

// The paths of the files loaded in this process (dl_iterate_phdr).
std::vector<std::string> LoadedObjects();

}  // namespace plasmient::collect
