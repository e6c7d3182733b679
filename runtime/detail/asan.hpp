// RW_ASAN: defined when the translation unit is built with AddressSanitizer,
// by g++ (`__SANITIZE_ADDRESS__`) or clang (`__has_feature`), so that the
// pools hand out separate allocations (or poison free blocks) there and a
// use after free is still reported.
#pragma once

#if defined(__SANITIZE_ADDRESS__)
#define RW_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RW_ASAN 1
#endif
#endif
