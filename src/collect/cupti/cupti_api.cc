#include "collect/cupti/cupti_api.h"

#include <dlfcn.h>
#include <link.h>

#include <set>

namespace plasmient::collect {

std::string ResolveCupti(void* handle, CuptiApi& api) {
  std::string missing;
  auto get = [&](auto& fn, const char* name) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(handle, name));
    if (fn == nullptr && missing.empty()) missing = name;
  };
  get(api.GetVersion, "cuptiGetVersion");
  get(api.Subscribe, "cuptiSubscribe_v2");
  get(api.Unsubscribe, "cuptiUnsubscribe");
  get(api.EnableCallback, "cuptiEnableCallback");
  get(api.ActivitySetAttribute, "cuptiActivitySetAttribute");
  get(api.RegisterTimestampCallback, "cuptiActivityRegisterTimestampCallback");
  get(api.RegisterCallbacks, "cuptiActivityRegisterCallbacks");
  get(api.ActivityEnable, "cuptiActivityEnable");
  get(api.ActivityEnableAndDump, "cuptiActivityEnableAndDump");
  get(api.ActivityDisable, "cuptiActivityDisable");
  get(api.ActivityFlushAll, "cuptiActivityFlushAll");
  get(api.GetNumDroppedRecords, "cuptiActivityGetNumDroppedRecords");
  get(api.GetNextRecord, "cuptiActivityGetNextRecord");
  get(api.GetResultString, "cuptiGetResultString");
  get(api.GetCallbackName, "cuptiGetCallbackName");
  api.EnableRuntimeApi =
      reinterpret_cast<decltype(api.EnableRuntimeApi)>(dlsym(handle, "cuptiActivityEnableRuntimeApi"));
  api.EnableDriverApi =
      reinterpret_cast<decltype(api.EnableDriverApi)>(dlsym(handle, "cuptiActivityEnableDriverApi"));
  if (missing.empty()) {
    Dl_info info;
    if (dladdr(reinterpret_cast<void*>(api.GetVersion), &info) != 0 && info.dli_fname != nullptr)
      api.path = info.dli_fname;
  }
  return missing;
}

std::vector<std::string> CuptiCandidates(const std::vector<std::string>& loaded,
                                         const char* (*getenv_fn)(const char*), std::string_view build_path) {
  constexpr const char* kSoname = "libcupti.so.13";
  std::vector<std::string> out;
  std::set<std::string> seen;
  auto add = [&](std::string path) {
    if (!path.empty() && seen.insert(path).second) out.push_back(std::move(path));
  };
  if (const char* p = getenv_fn("PLASMIENT_CUPTI_LIBRARY"); p != nullptr && *p != '\0') {
    add(p);  // the user's choice, and only it
    return out;
  }
  // PyTorch's wheels: site-packages/nvidia/cu13/lib (CUDA 13 wheels) or
  // site-packages/nvidia/cuda_cupti/lib (the per-component wheels).
  for (const std::string& file : loaded) {
    for (std::string_view folder : {"/site-packages/", "/dist-packages/"}) {
      std::size_t at = file.find(folder);
      if (at == std::string::npos) continue;
      std::string root = file.substr(0, at + folder.size());
      add(root + "nvidia/cu13/lib/" + kSoname);
      add(root + "nvidia/cuda_cupti/lib/" + kSoname);
    }
  }
  add(kSoname);
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"}) {
    const char* home = getenv_fn(var);
    if (home == nullptr || *home == '\0') continue;
    add(std::string(home) + "/extras/CUPTI/lib64/" + kSoname);
    add(std::string(home) + "/lib64/" + kSoname);
  }
  add(std::string("/usr/local/cuda/extras/CUPTI/lib64/") + kSoname);
  add(std::string("/usr/local/cuda/lib64/") + kSoname);
  add(std::string(build_path));
  return out;
}

std::string OpenCupti(const std::vector<std::string>& candidates, CuptiApi& api) {
  // The copy the application (PyTorch) already loaded: one CUPTI per process.
  for (const char* soname : {"libcupti.so.13", "libcupti.so"}) {
    if (void* h = dlopen(soname, RTLD_NOW | RTLD_NOLOAD)) {
      if (ResolveCupti(h, api).empty()) return {};
    }
  }
  std::string last;
  for (const std::string& path : candidates) {
    void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (h == nullptr) continue;
    std::string missing = ResolveCupti(h, api);
    if (missing.empty()) return {};
    last = path;
    last += " lacks ";
    last += missing;
    dlclose(h);
  }
  return "no usable libcupti.so.13 (" + (last.empty() ? "none found" : last) +
         "; set PLASMIENT_CUPTI_LIBRARY)";
}

std::vector<std::string> LoadedObjects() {
  std::vector<std::string> out;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) {
        if (info->dlpi_name != nullptr && info->dlpi_name[0] != '\0')
          static_cast<std::vector<std::string>*>(data)->push_back(info->dlpi_name);
        return 0;
      },
      &out);
  return out;
}

}  // namespace plasmient::collect
