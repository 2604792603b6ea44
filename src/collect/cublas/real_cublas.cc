#include "collect/cublas/real_cublas.h"

#include <cublas_api.h>
#include <dlfcn.h>
#include <link.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace plasmient::collect {
namespace {

#define PLASMIENT_STR2(x) #x
#define PLASMIENT_STR(x) PLASMIENT_STR2(x)
constexpr const char* kCublasSoname = "libcublas.so." PLASMIENT_STR(CUBLAS_VER_MAJOR);
constexpr const char* kCublasLtSoname = "libcublasLt.so." PLASMIENT_STR(CUBLAS_VER_MAJOR);

// The load address of this library.
void* OwnBase() {
  static void* base = [] {
    Dl_info info{};
    return dladdr(reinterpret_cast<void*>(&OwnBase), &info) != 0 ? info.dli_fbase : nullptr;
  }();
  return base;
}

// Ours, or another copy of the agent loaded from another path (an always-on agent beside
// `plasmient run`'s): never the real function. Forwarding to another copy could come back here
// (each would find the other's definition in its caller's scope) and recurse without end.
bool IsInterposer(const void* fn) {
  Dl_info info{};
  if (dladdr(fn, &info) == 0) return false;
  if (info.dli_fbase == OwnBase()) return true;
  if (info.dli_fname == nullptr || info.dli_fname[0] == '\0') return false;
  void* handle = dlopen(info.dli_fname, RTLD_NOLOAD | RTLD_LAZY | RTLD_LOCAL);
  if (handle == nullptr) return false;
  void* marker = dlsym(handle, "plasmient_agent_start");
  Dl_info at{};
  bool agent = marker != nullptr && dladdr(marker, &at) != 0 && at.dli_fbase == info.dli_fbase;
  dlclose(handle);
  return agent;
}

bool IsLt(const char* name) { return std::strncmp(name, "cublasLt", 8) == 0; }

// `name` in the already loaded object `path` and its dependencies, unless an interposer. The
// handle is kept when it provides the function, so the library stays loaded while we call it.
void* InLoaded(const char* path, const char* name) {
  void* handle = dlopen(path, RTLD_NOLOAD | RTLD_LAZY | RTLD_LOCAL);
  if (handle == nullptr) return nullptr;
  void* fn = dlsym(handle, name);
  if (fn == nullptr || IsInterposer(fn)) {
    dlclose(handle);
    return nullptr;
  }
  return fn;
}

void* InCallerScope(const char* name, const void* caller) {
  Dl_info info{};
  if (caller == nullptr || dladdr(caller, &info) == 0 || info.dli_fbase == OwnBase()) return nullptr;
  // The main program (no name) has the global scope as its own, where we come first: step 2.
  if (info.dli_fname == nullptr || info.dli_fname[0] == '\0') return nullptr;
  return InLoaded(info.dli_fname, name);
}

void* InGlobalScope(const char* name) {
  void* fn = dlsym(RTLD_NEXT, name);
  return fn != nullptr && !IsInterposer(fn) ? fn : nullptr;
}

int CollectName(dl_phdr_info* info, std::size_t, void* data) {
  if (info->dlpi_name != nullptr && info->dlpi_name[0] != '\0') {
    static_cast<std::vector<std::string>*>(data)->emplace_back(info->dlpi_name);
  }
  return 0;
}

// The names are copied first and looked up after dl_iterate_phdr returns: it holds the loader's
// lock, and a dlopen inside its callback takes the loader's locks in the other order than a
// dlopen on another thread (a deadlock).
void* InAnyLoaded(const char* name) {
  std::vector<std::string> names;
  dl_iterate_phdr(&CollectName, &names);
  const char* prefix = IsLt(name) ? "libcublasLt.so" : "libcublas.so";
  auto named = [prefix](const std::string& path) {
    std::size_t slash = path.rfind('/');
    return path.compare(slash == std::string::npos ? 0 : slash + 1, std::strlen(prefix), prefix) == 0;
  };
  for (bool cublas_named : {true, false}) {
    for (const std::string& path : names) {
      if (named(path) != cublas_named) continue;
      if (void* fn = InLoaded(path.c_str(), name)) return fn;
    }
  }
  return nullptr;
}

const char* LibraryToLoad(const char* name) {
  const char* chosen = std::getenv(IsLt(name) ? "PLASMIENT_CUBLASLT_LIBRARY" : "PLASMIENT_CUBLAS_LIBRARY");
  if (chosen != nullptr && chosen[0] != '\0') return chosen;
  return IsLt(name) ? kCublasLtSoname : kCublasSoname;
}

void* InLibraryLoaded(const char* name, std::string& why) {
  const char* library = LibraryToLoad(name);
  void* handle = dlopen(library, RTLD_LAZY | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* error = dlerror();
    why = error != nullptr ? error : std::string(library) + ": cannot be loaded";
    return nullptr;
  }
  void* fn = dlsym(handle, name);
  if (fn == nullptr || IsInterposer(fn)) {
    dlclose(handle);
    why = std::string(library) + " does not define it";
    return nullptr;
  }
  return fn;
}

void* Find(const char* name, const void* caller, std::string& why) {
  if (void* fn = InCallerScope(name, caller)) return fn;
  if (void* fn = InGlobalScope(name)) return fn;
  if (void* fn = InAnyLoaded(name)) return fn;
  return InLibraryLoaded(name, why);
}

}  // namespace

void* FindRealCublas(const char* name, const void* caller) {
  std::string why;
  return Find(name, caller, why);
}

void* SiblingSymbol(const void* fn, const char* name) {
  Dl_info info{};
  if (fn == nullptr || dladdr(fn, &info) == 0 || info.dli_fname == nullptr) return nullptr;
  return InLoaded(info.dli_fname, name);
}

std::size_t AddressCache::Slot(std::uintptr_t key, std::size_t probe) {
  std::uint64_t h = static_cast<std::uint64_t>(key >> 2) * 0x9E3779B97F4A7C15ull;
  return (static_cast<std::size_t>(h >> 32) + probe) % kSlots;
}

void* AddressCache::Find(std::uintptr_t key) const {
  for (std::size_t probe = 0; probe < kSlots; ++probe) {
    std::size_t s = Slot(key, probe);
    std::uintptr_t k = keys_[s].load(std::memory_order_acquire);
    if (k == key) return fns_[s].load(std::memory_order_acquire);  // null while being inserted
    if (k == 0) return nullptr;
  }
  return nullptr;
}

void AddressCache::Insert(std::uintptr_t key, void* fn) {
  if (key == 0) return;  // 0 marks a free slot
  for (std::size_t probe = 0; probe < kSlots; ++probe) {
    std::size_t s = Slot(key, probe);
    std::uintptr_t k = 0;
    if (keys_[s].compare_exchange_strong(k, key, std::memory_order_acq_rel) || k == key) {
      fns_[s].store(fn, std::memory_order_release);
      return;
    }
  }
}

void* RealEntry::For(const void* caller) {
  auto key = reinterpret_cast<std::uintptr_t>(caller);
  if (void* fn = cache_.Find(key)) return fn;
  std::string why;
  void* fn = Find(name_, caller, why);
  if (fn != nullptr) {
    cache_.Insert(key, fn);
  } else if (!said_.exchange(true)) {
    std::fprintf(stderr,
                 "plasmient agent: no library in the process defines %s (%s); the call returns "
                 "CUBLAS_STATUS_NOT_INITIALIZED\n",
                 name_, why.c_str());
  }
  return fn;
}

}  // namespace plasmient::collect
