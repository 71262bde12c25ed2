#include "query/names.hpp"

namespace mfusim::query {

const char* status_name(mfusim_status status) {
    switch (status) {
        case MFUSIM_OK:
            return "ok";
        case MFUSIM_ERR_INVALID_ARGUMENT:
            return "invalid argument";
        case MFUSIM_ERR_IO:
            return "file or directory unreadable";
        case MFUSIM_ERR_PARSE:
            return "malformed input";
        case MFUSIM_ERR_CONFIG:
            return "invalid configuration";
        case MFUSIM_ERR_UNKNOWN_NAME:
            return "unknown name";
        case MFUSIM_ERR_UNSUPPORTED:
            return "unsupported";
        case MFUSIM_ERR_COMPAT_CRASH:
            return "InferSim would crash here";
        case MFUSIM_ERR_STRUCT_SIZE:
            return "unknown struct_size";
        case MFUSIM_ERR_OUT_OF_MEMORY:
            return "out of memory";
        case MFUSIM_ERR_INTERNAL:
            return "internal error";
        case MFUSIM_ERR_NOT_FOUND:
            return "not found";
        default:
            return "unknown status";
    }
}

const char* op_name(mfusim_op op) {
    static const char* const kNames[MFUSIM_OP_COUNT] = {
        "qkv_proj",    "attn_prefill", "attn_decode",  "o_proj",  "ffn",         "moe_experts", "moe_shared",
        "linear_attn", "lm_head",      "tp_allreduce", "ep_comm", "weight_load", "overhead",    "engine"};
    return op >= 0 && op < MFUSIM_OP_COUNT ? kNames[op] : "unknown";
}

const char* bound_name(mfusim_bound bound) {
    switch (bound) {
        case MFUSIM_BOUND_NONE:
            return "none";
        case MFUSIM_BOUND_COMPUTE:
            return "compute";
        case MFUSIM_BOUND_MEMORY:
            return "memory";
        case MFUSIM_BOUND_COMMUNICATION:
            return "communication";
        case MFUSIM_BOUND_FIXED:
            return "fixed";
        default:
            return "unknown";
    }
}

const char* source_name(mfusim_source source) {
    switch (source) {
        case MFUSIM_SOURCE_NONE:
            return "none";
        case MFUSIM_SOURCE_TABLE_EXACT:
            return "table_exact";
        case MFUSIM_SOURCE_TABLE_INTERPOLATED:
            return "table_interpolated";
        case MFUSIM_SOURCE_TABLE_NEAREST:
            return "table_nearest";
        case MFUSIM_SOURCE_ANALYTICAL:
            return "analytical";
        case MFUSIM_SOURCE_DEFAULT:
            return "default";
        default:
            return "unknown";
    }
}

}  // namespace mfusim::query
