#include "cli/heap_pages.h"

#include <malloc.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <system_error>

#include <fmt/format.h>

#include "base/sanitizers.h"

namespace plasmient::cli {
namespace {

namespace fs = std::filesystem;

// Huge pages for the heap, and a per-thread cache of 200 freed blocks of each small size instead of
// 7: a job's ranks allocate and free thousands of small blocks each (strings, map nodes), which
// overflowed the cache into malloc's slower bins (docs/performance.md, "Heap reuse across a job's
// ranks").
constexpr const char* kTunables = "glibc.malloc.hugetlb=1:glibc.malloc.tcache_count=200";
// Set beside GLIBC_TUNABLES so that the restarted process knows the variable is its own.
constexpr const char* kMarker = "PLASMIENT_HEAP_PAGES";

constexpr bool GlibcSupportsHugeTlb() {
#if defined(PLASMIENT_SANITIZED_ALLOCATOR)
  return false;  // the sanitizer's allocator replaces glibc's
#elif defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 35))
  return true;
#else
  return false;
#endif
}

// The bracketed word of the kernel's setting, "always [madvise] never" -> "madvise".
std::string ChosenMode(std::string_view line) {
  std::size_t open = line.find('[');
  std::size_t close = line.find(']', open);
  if (open == std::string_view::npos || close == std::string_view::npos) return {};
  return std::string(line.substr(open + 1, close - open - 1));
}

std::int64_t BytesOf(const fs::path& path) {
  std::error_code ec;
  fs::file_status status = fs::status(path, ec);
  if (ec) return 0;
  if (fs::is_regular_file(status)) {
    auto size = fs::file_size(path, ec);
    return ec ? 0 : static_cast<std::int64_t>(size);
  }
  if (!fs::is_directory(status)) return 0;
  std::int64_t total = 0;
  for (fs::directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_regular_file(ec)) {
      auto size = it->file_size(ec);
      if (!ec) total += static_cast<std::int64_t>(size);
    }
  }
  return total;
}

std::string& Note() {
  static std::string note = "heap on the default pages";
  return note;
}

}  // namespace

std::string WhyNotHugePages(const HeapPagesFacts& facts) {
  if (!facts.glibc_supports) return "this build's allocator has no huge-page setting";
  if (facts.tunables_set) return "GLIBC_TUNABLES is set: left as given";
  if (facts.preloaded) return "LD_PRELOAD is set: left as started";
  if (facts.thp_enabled.empty()) return "the kernel does not say whether transparent huge pages are on";
  if (facts.thp_enabled == "never") return "transparent huge pages are off (never)";
  if (facts.input_bytes < kHugePagesMinInputBytes) return "the input is small";
  return {};
}

HeapPagesFacts ReadHeapPagesFacts(const std::vector<std::string_view>& args) {
  HeapPagesFacts facts;
  facts.glibc_supports = GlibcSupportsHugeTlb();
  facts.tunables_set = std::getenv("GLIBC_TUNABLES") != nullptr;
  facts.preloaded = std::getenv("LD_PRELOAD") != nullptr;
  std::ifstream thp("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string line;
  if (thp && std::getline(thp, line)) facts.thp_enabled = ChosenMode(line);
  for (std::string_view arg : args) {
    if (!arg.empty() && arg[0] != '-') facts.input_bytes += BytesOf(fs::path(arg));
  }
  return facts;
}

void UseHugePagesForTheHeap(int argc, char** argv) noexcept {
  const char* marker = std::getenv(kMarker);
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  try {
    if (marker != nullptr && tunables != nullptr && std::string_view(tunables) == kTunables) {
      // The restarted process: glibc has read the variable; nothing started from here needs it.
      unsetenv(kMarker);
      unsetenv("GLIBC_TUNABLES");
      Note() = fmt::format("heap on transparent huge pages ({})", kTunables);
      return;
    }
    std::vector<std::string_view> args(argv + 1, argv + argc);
    std::string why = WhyNotHugePages(ReadHeapPagesFacts(args));
    if (!why.empty()) {
      Note() = "heap on the default pages: " + why;
      return;
    }
    if (setenv("GLIBC_TUNABLES", kTunables, 1) == 0 && setenv(kMarker, "1", 1) == 0) {
      execv("/proc/self/exe", argv);
    }
    // Not restarted (no /proc, say): go on as started.
    unsetenv(kMarker);
    unsetenv("GLIBC_TUNABLES");
    Note() = "heap on the default pages: could not start again";
  } catch (...) {  // out of memory this early: the command will say so itself
  }
}

void ConfigureHeap(int argc, char** argv, bool reads_traces) noexcept {
  if (reads_traces) UseHugePagesForTheHeap(argc, argv);
  mallopt(M_MMAP_THRESHOLD, kHeapMmapFromBytes);
  mallopt(M_TRIM_THRESHOLD, kHeapTrimFromBytes);
}

const std::string& HeapPagesNote() { return Note(); }

}  // namespace plasmient::cli
