// Images per request as a deployment-wide workload option (docs/architectures.md, "Vision encoders"): every
// request brings `per_request` images of width x height pixels, which the model's vision tower encodes when the
// request's first prefill chunk is scheduled (a chunk over no cached context). The prompt lengths a workload gives
// count the image tokens among their tokens, as vLLM's placeholder tokens are part of the prompt.
#pragma once

#include <cstdint>

namespace mfusim::query {

struct Images {
    int64_t per_request = 0;
    int64_t width = 0, height = 0;  // pixels; 0 with per_request > 0: an error

    bool active() const { return per_request > 0; }
    bool operator==(const Images&) const = default;
};

// Error(invalid_argument) naming the field: per_request outside 0..64, or with images a side outside 1..16384.
void validate(const Images& images);

}  // namespace mfusim::query
