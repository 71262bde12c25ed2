#include "api/boundary.hpp"

#include <cstdio>

namespace mfusim::api {

void write_error(mfusim_error* error, mfusim_status status, const char* message) noexcept {
    if (!error) return;
    error->status = status;
    std::snprintf(error->message, sizeof error->message, "%s", message ? message : "");
}

void require(bool condition, const char* what) {
    if (!condition) throw Error(Status::invalid_argument, what);
}

}  // namespace mfusim::api
