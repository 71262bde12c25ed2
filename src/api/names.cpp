// The C API's names and version: the names are the core's (src/query/names.cpp).
#include <mfusim.h>

#include "query/names.hpp"

extern "C" {

uint32_t mfusim_version_number(void) {
    return MFUSIM_VERSION_NUMBER;
}
const char* mfusim_version_string(void) {
    return MFUSIM_VERSION_STRING;
}
const char* mfusim_status_string(mfusim_status status) {
    return mfusim::query::status_name(status);
}
const char* mfusim_op_name(mfusim_op op) {
    return mfusim::query::op_name(op);
}
const char* mfusim_bound_name(mfusim_bound bound) {
    return mfusim::query::bound_name(bound);
}
const char* mfusim_source_name(mfusim_source source) {
    return mfusim::query::source_name(source);
}

}  // extern "C"
