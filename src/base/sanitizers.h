// Whether this build's allocator is a sanitizer's (AddressSanitizer, ThreadSanitizer,
// MemorySanitizer): it neither calls the new-handler nor reads glibc's tunables. GCC says so with
// __SANITIZE_ADDRESS__ and __SANITIZE_THREAD__, clang with __has_feature.
#pragma once

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define PLASMIENT_SANITIZED_ALLOCATOR 1
#endif
#endif
#if !defined(PLASMIENT_SANITIZED_ALLOCATOR) && (defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__))
#define PLASMIENT_SANITIZED_ALLOCATOR 1
#endif
