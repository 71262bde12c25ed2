#include "api/boundary.hpp"

#include "common/text.hpp"

namespace mfusim::api {

void write_error(mfusim_error* error, mfusim_status status, const char* message) noexcept {
    if (!error) return;
    error->status = status;
    copy_text(error->message, sizeof error->message, message ? message : "");
}

void require(bool condition, const char* what) {
    if (!condition) throw Error(Status::invalid_argument, what);
}

}  // namespace mfusim::api
