#include "ingest/kineto_json/simdjson_memory.h"

#include <new>

namespace plasmient::ingest {
namespace {

thread_local bool t_allocation_failed = false;

// Does what having no handler does (operator new throws bad_alloc, nothrow new returns null) and
// notes the failure for this thread.
[[noreturn]] void NoteAllocationFailure() {
  t_allocation_failed = true;
  throw std::bad_alloc();
}

}  // namespace

void WatchAllocations() {
  // Installed once, and only where the program has no handler of its own.
  static const bool kInstalled = [] {
    if (std::get_new_handler() == nullptr) std::set_new_handler(NoteAllocationFailure);
    return true;
  }();
  (void)kInstalled;
  t_allocation_failed = false;
}

void ThrowIfAllocationFailed() {
  if (t_allocation_failed) throw std::bad_alloc();
}

simdjson::error_code IterateOrThrow(simdjson::ondemand::parser& parser, simdjson::padded_string_view json,
                                    simdjson::ondemand::document& doc) {
  WatchAllocations();
  const simdjson::error_code e = parser.iterate(json).get(doc);
  if (e == simdjson::MEMALLOC || t_allocation_failed) {
    parser = simdjson::ondemand::parser{};
    throw std::bad_alloc();
  }
  return e;
}

}  // namespace plasmient::ingest
