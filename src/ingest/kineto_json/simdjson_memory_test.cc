#include "ingest/kineto_json/simdjson_memory.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <limits>
#include <new>
#include <string>

#include "base/sanitizers.h"

namespace plasmient::ingest {
namespace {

// More than any allocator can give: fails at once, with or without limits on the process. Read
// through a volatile, so that no compiler rejects the array as too large while compiling.
std::size_t TooMuch() {
  volatile std::size_t n = std::numeric_limits<std::size_t>::max() / 4;
  return n;
}

// AddressSanitizer's operator new neither calls the new-handler nor throws: it stops the process
// on an allocation it cannot make, so the watch is tested on the plain build only.
#if defined(PLASMIENT_SANITIZED_ALLOCATOR)
#define SKIP_UNDER_ASAN() GTEST_SKIP() << "AddressSanitizer's allocator does not call the new-handler"
#else
#define SKIP_UNDER_ASAN() static_cast<void>(0)
#endif

TEST(SimdjsonMemory, ANothrowAllocationThatFailsIsNoticed) {
  SKIP_UNDER_ASAN();
  WatchAllocations();
  EXPECT_NO_THROW(ThrowIfAllocationFailed());
  char* p = new (std::nothrow) char[TooMuch()];
  EXPECT_EQ(p, nullptr);  // nothrow new still returns null, as with no handler
  EXPECT_THROW(ThrowIfAllocationFailed(), std::bad_alloc);
  WatchAllocations();  // a new watch starts clean
  EXPECT_NO_THROW(ThrowIfAllocationFailed());
}

TEST(SimdjsonMemory, PlainNewStillThrows) {
  SKIP_UNDER_ASAN();
  WatchAllocations();
  EXPECT_THROW(::operator delete[](::operator new[](TooMuch())), std::bad_alloc);
  auto* ok = new (std::nothrow) char[64];  // memory that exists is given as before
  EXPECT_NE(ok, nullptr);
  delete[] ok;
}

TEST(SimdjsonMemory, IndexingThatCannotAllocateThrowsAndLeavesAFreshParser) {
  SKIP_UNDER_ASAN();
  simdjson::ondemand::parser parser(std::numeric_limits<std::size_t>::max());
  std::string small = R"({"name": "a\"b"})";
  small.reserve(small.size() + simdjson::SIMDJSON_PADDING);
  simdjson::ondemand::document doc;
  // A document claimed larger than memory: simdjson's buffers cannot be allocated.
  EXPECT_THROW(
      IterateOrThrow(parser, simdjson::padded_string_view(small.data(), TooMuch(), TooMuch() + 64), doc),
      std::bad_alloc);
  // The parser is usable again, and a string read goes through its buffer.
  ASSERT_EQ(
      IterateOrThrow(parser, simdjson::padded_string_view(small.data(), small.size(), small.capacity()), doc),
      simdjson::SUCCESS);
  std::string_view name;
  ASSERT_EQ(doc["name"].get_string().get(name), simdjson::SUCCESS);
  EXPECT_EQ(name, "a\"b");
}

}  // namespace
}  // namespace plasmient::ingest
