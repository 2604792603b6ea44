// The heap's settings: transparent huge pages for the commands that read large traces, and
// glibc's thresholds for every command.
//
// Reading a 400 MB trace allocates a few hundred MB of columns, batches and tables. On 4 KiB pages
// the kernel takes one fault per page touched, and glibc hands memory back between phases only to
// fault it in again: a fifth of the process's CPU went to page faults. glibc's malloc asks for
// huge pages (madvise MADV_HUGEPAGE on what it maps) when started with
// GLIBC_TUNABLES=glibc.malloc.hugetlb=1, and it reads that variable only at startup. So these
// commands start themselves again once, with it set (and a larger cache of freed small blocks),
// when the input is large and nothing speaks against it (docs/performance.md, "Huge pages").
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace plasmient::cli {

// What the process's start says about the heap.
struct HeapPagesFacts {
  bool glibc_supports = false;   // glibc >= 2.35 (the hugetlb tunable), not a sanitizer build
  bool tunables_set = false;     // GLIBC_TUNABLES is in the environment: the user's say wins
  bool preloaded = false;        // LD_PRELOAD is set: valgrind, heaptrack or another allocator
  std::string thp_enabled;       // /sys/kernel/mm/transparent_hugepage/enabled, "" if unreadable
  std::int64_t input_bytes = 0;  // the on-disk size of the inputs named on the command line
};

// Inputs smaller than this (on disk; a gzip trace inflates ~10x) gain less than a restart costs.
inline constexpr std::int64_t kHugePagesMinInputBytes = 8 << 20;

// Whether to start again with huge pages for the heap: why not, or "" to do it.
std::string WhyNotHugePages(const HeapPagesFacts& facts);

// The facts of this process, its inputs being whichever of `args` name files or folders (a
// folder's own files count, one level down, as in a job folder).
HeapPagesFacts ReadHeapPagesFacts(const std::vector<std::string_view>& args);

// Starts the program again with huge pages for its heap when WhyNotHugePages says so; returns
// only when it did not (or could not). In the restarted process it takes the variables it set back
// out of the environment, so that programs it starts do not inherit them. Never throws: whatever
// fails here leaves the process as it was started.
void UseHugePagesForTheHeap(int argc, char** argv) noexcept;

// The process's heap settings, in one place, first thing in main: huge pages for the commands
// that read whole traces (`reads_traces`: UseHugePagesForTheHeap), and for every command glibc's
// thresholds (kHeapMmapFromBytes, kHeapTrimFromBytes). Never throws.
void ConfigureHeap(int argc, char** argv, bool reads_traces) noexcept;

// A job reads a thousand ranks of a few hundred KB one after another. With glibc's defaults each
// rank's freed tables go back to the system (heap trims, dynamic mmap threshold) and the next
// rank faults them in again (a 1,024-rank job: 320,000 page faults and a third of its CPU in the
// kernel; 34,000 with these settings). Blocks under kHeapMmapFromBytes come from the heap and up
// to kHeapTrimFromBytes freed stays there for the next rank; a single trace's large columns are
// still mapped and unmapped whole, so its peak memory is unchanged.
inline constexpr int kHeapMmapFromBytes = 4 << 20;
inline constexpr int kHeapTrimFromBytes = 64 << 20;

// "heap on transparent huge pages" in a restarted process; else why not (for --verbose).
const std::string& HeapPagesNote();

}  // namespace plasmient::cli
