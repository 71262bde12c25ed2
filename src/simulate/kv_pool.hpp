// The KV cache of one replica as its engine allocates it (docs/simulate.md, "KV cache"): blocks of
// `block_tokens` tokens taken from a pool of the bytes the engine may use, and cached prefixes that requests share
// and that stay cached, evictable least recently used first, once no running request holds them (vLLM's prefix
// caching by block, SGLang's radix cache with pages of one token, TensorRT-LLM's block reuse).
#pragma once

#include <cstdint>
#include <unordered_map>

#include "roofline/roofline_model.hpp"

namespace mfusim::simulate {

// What the pool knows of one request: the tokens it holds blocks for and the cached prefix it shares.
struct KvHolding {
    int64_t tokens = 0;         // block-rounded tokens allocated to the request
    int64_t prefix_id = -1;     // the cached prefix it references (-1: none)
    int64_t shared_tokens = 0;  // of `tokens`, those in the shared prefix (not counted against the request)
    double bytes = 0;           // what the request's own blocks take
};

class KvPool {
  public:
    KvPool(const roofline::MemoryFacts& memory, double capacity_bytes, int64_t block_tokens, bool prefix_caching);

    // Grows `h` to hold `tokens` tokens (block-rounded), evicting unreferenced cached prefixes if needed; false
    // (nothing changed) when even then the pool cannot.
    bool grow(KvHolding& h, int64_t tokens) {
        // `h.tokens` is always a whole number of blocks, so a request within its blocks (most decodes) needs no
        // rounding: the common case stays inline and free of the division.
        return tokens <= h.tokens || grow_blocks(h, tokens);
    }
    void release(KvHolding& h);  // frees the request's blocks and its reference to a prefix

    // Prefix caching: the tokens of prefix `id` (of `len` tokens, for a prompt of `prompt` tokens) already cached,
    // which the request then references (at most prompt - 1: the engine computes at least one token).
    int64_t reuse(KvHolding& h, int64_t id, int64_t len, int64_t prompt);
    // Once a request has computed its prefix's full blocks, they become a cached prefix it shares (if none was).
    void publish(KvHolding& h, int64_t id, int64_t len, int64_t computed) {
        if (prefix_caching_ && id >= 0 && h.prefix_id < 0) publish_prefix(h, id, len, computed);
    }

    // Bytes that growing `h` by `tokens` more would take (before eviction).
    double growth_bytes(const KvHolding& h, int64_t tokens) const;
    double free_bytes() const { return capacity_ - used_; }
    double evictable_bytes() const { return evictable_; }
    double used_fraction() const { return capacity_ > 0 ? used_ / capacity_ : 0; }
    int64_t block_tokens() const { return block_; }
    int64_t hit_tokens() const { return hit_tokens_; }

  private:
    struct Prefix {
        int64_t tokens = 0;
        double bytes = 0;
        int64_t refs = 0;
        uint64_t last_use = 0;
    };
    double bytes_for(int64_t tokens) const { return memory_.request_bytes(static_cast<double>(tokens)); }
    int64_t rounded(int64_t tokens) const { return (tokens + block_ - 1) / block_ * block_; }
    bool make_room(double bytes);
    bool grow_blocks(KvHolding& h, int64_t tokens);
    void publish_prefix(KvHolding& h, int64_t id, int64_t len, int64_t computed);
    void unref(int64_t id);

    roofline::MemoryFacts memory_;
    double capacity_ = 0, used_ = 0, evictable_ = 0;
    int64_t block_ = 16;
    bool prefix_caching_ = true;
    uint64_t clock_ = 0;
    int64_t hit_tokens_ = 0;
    std::unordered_map<int64_t, Prefix> prefixes_;
};

}  // namespace mfusim::simulate
