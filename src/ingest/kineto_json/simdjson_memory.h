#pragma once

#include <simdjson.h>

// Out of memory inside simdjson, made an exception. simdjson 3.0 allocates with nothrow new and does
// not check every result: an on-demand parser whose string buffer could not be allocated still
// indexes a document, and its first string read then writes through a null pointer; a padded
// string that could not be allocated reads as empty. Allocations are watched per thread while a
// document is made or indexed, and a failure is thrown as std::bad_alloc.
namespace plasmient::ingest {

// Starts watching this thread's allocations.
void WatchAllocations();

// Throws std::bad_alloc when an allocation failed on this thread since WatchAllocations().
void ThrowIfAllocationFailed();

// parser.iterate(json).get(doc), except that out of memory throws std::bad_alloc and leaves
// `parser` new (a parser whose buffers could not all be allocated is never used again).
simdjson::error_code IterateOrThrow(simdjson::ondemand::parser& parser, simdjson::padded_string_view json,
                                    simdjson::ondemand::document& doc);

}  // namespace plasmient::ingest
