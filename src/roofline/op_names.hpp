// Names of the breakdown's operations as the CLI's JSON and the estimate report spell them (the same strings as
// the C API's mfusim_op_name, which lives in the API layer and is not linked into the core).
#pragma once

#include <mfusim.h>

namespace mfusim::roofline {

inline const char* op_key(int op) {
    static constexpr const char* kNames[MFUSIM_OP_COUNT] = {
        "qkv_proj",    "attn_prefill", "attn_decode",  "o_proj",  "ffn",         "moe_experts", "moe_shared",
        "linear_attn", "lm_head",      "tp_allreduce", "ep_comm", "weight_load", "overhead"};
    return op >= 0 && op < MFUSIM_OP_COUNT ? kNames[op] : "unknown";
}

}  // namespace mfusim::roofline
