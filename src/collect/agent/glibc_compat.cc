// libplasmient_agent.so binds only glibc symbol versions that glibc 2.28 has (PyTorch's wheels
// are manylinux_2_28): it is preloaded into every process of a job, and one unmet version need
// stops every program from starting. Built on a newer glibc, the dl* and pthread_* functions
// bind to their 2.34 versions, libstdc++'s and libgcc's objects (linked in statically) to
// __libc_single_threaded (2.32), arc4random (2.36) and _dl_find_object (2.35). The link wraps
// each (-Wl,--wrap=NAME, src/collect/CMakeLists.txt): the wrapper below calls the version every
// glibc since 2.2.5 has, or stands in for a function older glibcs lack.
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <sys/random.h>
#include <sys/stat.h>

#include <cstddef>
#include <cstdint>

#define PLASMIENT_OLD(ret, name, params)      \
  extern "C" ret plasmient_old_##name params; \
  __asm__(".symver plasmient_old_" #name ", " #name "@GLIBC_2.2.5");

PLASMIENT_OLD(void*, dlopen, (const char*, int))
PLASMIENT_OLD(void*, dlsym, (void*, const char*))
PLASMIENT_OLD(char*, dlerror, (void))
PLASMIENT_OLD(int, dladdr, (const void*, Dl_info*))
PLASMIENT_OLD(int, dlclose, (void*))
PLASMIENT_OLD(int, pthread_create, (pthread_t*, const pthread_attr_t*, void* (*)(void*), void*))
PLASMIENT_OLD(int, pthread_join, (pthread_t, void**))
PLASMIENT_OLD(int, pthread_detach, (pthread_t))
PLASMIENT_OLD(int, pthread_once, (pthread_once_t*, void (*)(void)))
PLASMIENT_OLD(int, pthread_key_create, (pthread_key_t*, void (*)(void*)))
PLASMIENT_OLD(int, __pthread_key_create, (pthread_key_t*, void (*)(void*)))
PLASMIENT_OLD(int, pthread_key_delete, (pthread_key_t))
PLASMIENT_OLD(void*, pthread_getspecific, (pthread_key_t))
PLASMIENT_OLD(int, pthread_setspecific, (pthread_key_t, const void*))
PLASMIENT_OLD(int, pthread_sigmask, (int, const sigset_t*, sigset_t*))
// Before 2.33 the stat family were inline calls of these, with the structure's version first.
PLASMIENT_OLD(int, __fxstat, (int, int, struct stat*))
PLASMIENT_OLD(int, __xstat, (int, const char*, struct stat*))
PLASMIENT_OLD(int, __lxstat, (int, const char*, struct stat*))

extern "C" {

// The linker's --wrap=NAME binds the calls of NAME to __wrap_NAME: names reserved to the
// implementation, which is the point here.
// NOLINTBEGIN(bugprone-reserved-identifier)
void* __wrap_dlopen(const char* file, int mode) { return plasmient_old_dlopen(file, mode); }
// dlsym(RTLD_NEXT) looks from its caller's object: the wrapper is in the agent, as its callers are.
void* __wrap_dlsym(void* handle, const char* name) { return plasmient_old_dlsym(handle, name); }
char* __wrap_dlerror(void) { return plasmient_old_dlerror(); }
int __wrap_dladdr(const void* address, Dl_info* info) { return plasmient_old_dladdr(address, info); }
int __wrap_dlclose(void* handle) { return plasmient_old_dlclose(handle); }
int __wrap_pthread_create(pthread_t* t, const pthread_attr_t* a, void* (*f)(void*), void* arg) {
  return plasmient_old_pthread_create(t, a, f, arg);
}
int __wrap_pthread_join(pthread_t t, void** ret) { return plasmient_old_pthread_join(t, ret); }
int __wrap_pthread_detach(pthread_t t) { return plasmient_old_pthread_detach(t); }
int __wrap_pthread_once(pthread_once_t* once, void (*f)(void)) { return plasmient_old_pthread_once(once, f); }
int __wrap_pthread_key_create(pthread_key_t* key, void (*destructor)(void*)) {
  return plasmient_old_pthread_key_create(key, destructor);
}
// libstdc++'s gthreads take this weak reference's presence to mean "threads are in use".
int __wrap___pthread_key_create(pthread_key_t* key, void (*destructor)(void*)) {
  return plasmient_old___pthread_key_create(key, destructor);
}
int __wrap_pthread_key_delete(pthread_key_t key) { return plasmient_old_pthread_key_delete(key); }
void* __wrap_pthread_getspecific(pthread_key_t key) { return plasmient_old_pthread_getspecific(key); }
int __wrap_pthread_setspecific(pthread_key_t key, const void* value) {
  return plasmient_old_pthread_setspecific(key, value);
}
int __wrap_pthread_sigmask(int how, const sigset_t* set, sigset_t* old) {
  return plasmient_old_pthread_sigmask(how, set, old);
}
// fstat, stat and lstat exist as functions from 2.33; x86-64's struct stat is version 1.
constexpr int kStatVersion = 1;
int __wrap_fstat(int fd, struct stat* st) { return plasmient_old___fxstat(kStatVersion, fd, st); }
int __wrap_stat(const char* path, struct stat* st) { return plasmient_old___xstat(kStatVersion, path, st); }
int __wrap_lstat(const char* path, struct stat* st) { return plasmient_old___lxstat(kStatVersion, path, st); }

// libstdc++ skips atomic reference counts when this says the process has one thread. The agent
// starts threads of its own: never single-threaded.
char __wrap___libc_single_threaded = 0;

// std::random_device's default source (glibc 2.36): getrandom (2.25) instead.
std::uint32_t __wrap_arc4random(void) {
  std::uint32_t value = 0;
  while (getrandom(&value, sizeof value, 0) != static_cast<ssize_t>(sizeof value)) {
  }
  return value;
}

// The unwinder's lookup of the object that holds a code address (glibc 2.35), answered from
// dl_iterate_phdr (glibc 2.2.5), as libgcc itself did before 2.35. The layout is glibc's
// struct dl_find_object (dlfcn.h): flags, map start, map end, link map, eh_frame, reserved.
struct PlasmientFindObject {
  unsigned long long flags;
  void* map_start;
  void* map_end;
  struct link_map* link_map;
  void* eh_frame;
  unsigned long long reserved[7];
};

int __wrap__dl_find_object(void* pc, PlasmientFindObject* result) {
  struct Search {
    std::uintptr_t pc;
    PlasmientFindObject* out;
    bool found;
  } search{reinterpret_cast<std::uintptr_t>(pc), result, false};
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) {
        auto* s = static_cast<Search*>(data);
        std::uintptr_t lo = UINTPTR_MAX, hi = 0, eh = 0;
        bool contains = false;
        for (ElfW(Half) i = 0; i < info->dlpi_phnum; ++i) {
          const ElfW(Phdr)& ph = info->dlpi_phdr[i];
          std::uintptr_t start = info->dlpi_addr + ph.p_vaddr;
          if (ph.p_type == PT_LOAD) {
            if (start < lo) lo = start;
            if (start + ph.p_memsz > hi) hi = start + ph.p_memsz;
            if (s->pc >= start && s->pc < start + ph.p_memsz) contains = true;
          } else if (ph.p_type == PT_GNU_EH_FRAME) {
            eh = start;
          }
        }
        if (!contains) return 0;
        s->found = true;
        s->out->flags = 0;
        // The loader gives the object's addresses as integers (dlpi_addr + p_vaddr); the
        // structure wants them as pointers.
        // NOLINTBEGIN(performance-no-int-to-ptr)
        s->out->map_start = reinterpret_cast<void*>(lo);
        s->out->map_end = reinterpret_cast<void*>(hi);
        s->out->link_map = nullptr;
        s->out->eh_frame = reinterpret_cast<void*>(eh);
        // NOLINTEND(performance-no-int-to-ptr)
        return 1;
      },
      &search);
  return search.found ? 0 : -1;
}

// NOLINTEND(bugprone-reserved-identifier)

}  // extern "C"
