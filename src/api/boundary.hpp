// The C boundary: every entry point runs its body through `guarded`, which turns any C++ exception into a
// status code and a message in the caller's mfusim_error. Nothing escapes (ONNX Runtime's API_IMPL pattern).
#pragma once

#include <mfusim.h>

#include <cstring>
#include <new>
#include <string>

#include "common/error.hpp"

namespace mfusim::api {

void write_error(mfusim_error* error, mfusim_status status, const char* message) noexcept;

template <class Body>
mfusim_status guarded(mfusim_error* error, Body&& body) noexcept {
    try {
        body();
        if (error) {
            error->status = MFUSIM_OK;
            error->message[0] = '\0';
        }
        return MFUSIM_OK;
    } catch (const Error& e) {
        auto status = static_cast<mfusim_status>(e.status());
        write_error(error, status, e.what());
        return status;
    } catch (const std::bad_alloc&) {
        write_error(error, MFUSIM_ERR_OUT_OF_MEMORY, "out of memory");
        return MFUSIM_ERR_OUT_OF_MEMORY;
    } catch (const std::exception& e) {
        write_error(error, MFUSIM_ERR_INTERNAL, e.what());
        return MFUSIM_ERR_INTERNAL;
    } catch (...) {
        write_error(error, MFUSIM_ERR_INTERNAL, "unknown exception");
        return MFUSIM_ERR_INTERNAL;
    }
}

void require(bool condition, const char* what);

}  // namespace mfusim::api
