// Pieces the serving estimates share (aggregated: serving.cpp; disaggregated: disagg.cpp): a step's time at mean
// (fractional) counts of decodes and prefill chunks, and how a prompt splits into chunks of a token budget.
#pragma once

#include <cstdint>

#include "roofline/roofline_model.hpp"

namespace mfusim::serving {

// Step time with fractional counts of decodes and chunks: linear between the integer compositions around them
// (a step's time is piecewise smooth in both; the serving models' counts are means). `starts` of the chunks begin
// their request: each adds the vision tower's time for its images (RooflineModel::encoder_us_per_request).
// `busy_replicas`: the attention-DP replicas holding this mix, the others idle (StepMix::busy_replicas; 0: all).
// `peer_chunks` (mean, every replica busy): the chunks the other replicas hold between them (StepMix::peer_chunks;
// below 0: each holds this mix).
double step_us(const roofline::RooflineModel& model, double decodes, int64_t decode_context, double chunks,
               int64_t chunk_tokens, int64_t chunk_context, double starts = 0, int64_t busy_replicas = 0,
               double peer_chunks = -1);

// A prompt's share of a step: chunks of `tokens` new tokens over `context` cached ones (the mean over its chunks).
struct Chunk {
    int64_t tokens = 0, context = 0;
    double steps = 1;  // chunks per prompt
};

// A prompt of `prompt` tokens in chunks of at most `room` tokens (at least 1).
Chunk chunk_of(double prompt, double room);

}  // namespace mfusim::serving
