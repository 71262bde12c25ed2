// The per-layer structure of a config: which layers are linear attention, which softmax layers read a bounded
// window of keys, which FFNs are MoE, whether the MLP is gated; and the architecture keys no model here can time,
// refused with Error(unsupported) naming the key rather than approximated. Keys read but ignored (multi-token
// prediction heads, a vision tower, attention sinks) become load warnings on the config.
#pragma once

#include <cstdint>
#include <optional>

#include "common/json.hpp"
#include "config/model_config.hpp"

namespace mfusim::config {

// Error(unsupported) naming the key when the config is of an architecture no model here times; called before any
// other field is read, so such configs are refused by name rather than by a field they leave null.
void refuse_unmodelled_architecture(const JsonFields& f);

// The number of blocks of a block pattern (hybrid_override_pattern, layers_block_type), none without one: the newer
// Nemotron-H schema states the layer count only as the length of its layers_block_type list.
std::optional<int64_t> block_pattern_length(const JsonFields& f);

// Fills linear_layer_count, windowed_layers/attention_window, the DeepSeek Sparse Attention indexer (index_topk,
// index_n_heads, index_head_dim), moe_layer_count, gated_mlp, attention_sinks and warnings of `m`, and for a block
// pattern (hybrid_override_pattern) the per-kind block counts and the Mamba2 geometry; its dimensions and expert
// counts are already read from `f`; for DeciLM heterogeneous blocks (block_configs) the FFN-only and mixer-only
// layer counts, the dense-MLP width groups and the KV head count. Error(config) for a malformed pattern (wrong
// length, unknown entry), Error(unsupported) naming the key path for an architecture that is not modelled.
void read_layer_pattern(const JsonFields& f, ModelConfig& m);

}  // namespace mfusim::config
