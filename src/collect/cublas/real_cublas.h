// Where the cuBLAS interposer (gemm_interposer.cc) finds the real function it forwards to. The
// interposer is first in the global scope (LD_PRELOAD), so every caller's cuBLAS calls reach it,
// including callers that loaded cuBLAS RTLD_LOCAL (PyTorch: ctypes.CDLL and torch._C), where
// dlsym(RTLD_NEXT) cannot see the real library. Forwarding must never fail where the call would
// have worked without the agent.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace plasmient::collect {

// The real definition of cuBLAS or cuBLASLt entry point `name` for a call made from `caller` (a
// return address in the calling code); never the interposer's own. Searched in order:
//  1. the calling object and its dependencies (its handle from dlopen(RTLD_NOLOAD)): the cuBLAS
//     the caller was linked against, loaded RTLD_LOCAL or not, also when two cuBLAS versions are
//     loaded, and a cuBLAS linked statically into the caller;
//  2. dlsym(RTLD_NEXT): the global scope after the agent;
//  3. every loaded object, libcublas* / libcublasLt* first (a caller that took the function's
//     address from somewhere else);
//  4. the library named by PLASMIENT_CUBLAS_LIBRARY (cublas*) or PLASMIENT_CUBLASLT_LIBRARY
//     (cublasLt*), default the soname of the build's cuBLAS major version, dlopened RTLD_LOCAL.
// Never an interposer: ours, or another copy of the agent. A library that provides a function is
// kept loaded. nullptr when none of these has it.
void* FindRealCublas(const char* name, const void* caller);

// `name` as seen from the library that defines `fn` (its own symbols, then its dependencies):
// cuBLASLt's attribute getters beside the real cublasLtMatmul. nullptr when absent.
void* SiblingSymbol(const void* fn, const char* name);

// Resolved functions by key (a call site, or a real function), lock-free on the hot path. A
// miss is not cached: the library may be loaded later. When full, nothing more is cached.
class AddressCache {
 public:
  void* Find(std::uintptr_t key) const;
  void Insert(std::uintptr_t key, void* fn);

 private:
  static constexpr std::size_t kSlots = 256;  // call sites of one entry point: PyTorch has a few
  static std::size_t Slot(std::uintptr_t key, std::size_t probe);
  std::atomic<std::uintptr_t> keys_[kSlots] = {};
  std::atomic<void*> fns_[kSlots] = {};
};

// One interposed entry point: its real function per call site. When no real function exists
// anywhere (the process has no cuBLAS: the caller found the interposer by a global lookup), one
// line on stderr, once, and nullptr: the interposer then answers CUBLAS_STATUS_NOT_INITIALIZED,
// cuBLAS's own answer to a handle it did not create (docs/agent.md, "cuBLAS").
class RealEntry {
 public:
  explicit RealEntry(const char* name) : name_(name) {}
  void* For(const void* caller);

 private:
  const char* name_;
  AddressCache cache_;
  std::atomic<bool> said_{false};
};

}  // namespace plasmient::collect
