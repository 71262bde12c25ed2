// A replaced global allocator that counts operator new calls while `counting` is set, for the allocation test and
// the API benchmark. It defines the replacement operators, so include it in exactly one file of a binary.
#pragma once

#include <atomic>
#include <cstdlib>
#include <new>

namespace mfusim::testing {
inline std::atomic<bool> counting{false};
inline std::atomic<long> allocations{0};
}  // namespace mfusim::testing

// operator new is malloc, so delete's free() is the matching call, which GCC cannot see once it inlines the
// replacement.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"

void* operator new(std::size_t size) {
    if (mfusim::testing::counting.load(std::memory_order_relaxed))
        mfusim::testing::allocations.fetch_add(1, std::memory_order_relaxed);
    if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
    throw std::bad_alloc();
}
// The nothrow form too (std::stable_sort's temporary buffer uses it): left to the runtime, ASan's allocation would
// be freed by the free() below (alloc-dealloc-mismatch).
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
    if (mfusim::testing::counting.load(std::memory_order_relaxed))
        mfusim::testing::allocations.fetch_add(1, std::memory_order_relaxed);
    return std::malloc(size == 0 ? 1 : size);
}
void operator delete(void* p) noexcept {
    std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
    std::free(p);
}
