#include "simulate/kv_pool.hpp"

#include <algorithm>

namespace mfusim::simulate {

KvPool::KvPool(const roofline::MemoryFacts& memory, double capacity_bytes, int64_t block_tokens, bool prefix_caching)
    : memory_(memory),
      capacity_(capacity_bytes),
      block_(std::max<int64_t>(1, block_tokens)),
      prefix_caching_(prefix_caching) {}

double KvPool::growth_bytes(const KvHolding& h, int64_t tokens) const {
    const int64_t target = rounded(h.tokens + tokens);
    return bytes_for(target) - bytes_for(h.tokens);
}

bool KvPool::make_room(double bytes) {
    while (capacity_ - used_ < bytes && evictable_ > 0) {
        auto victim = prefixes_.end();
        for (auto it = prefixes_.begin(); it != prefixes_.end(); ++it) {
            if (it->second.refs == 0 && (victim == prefixes_.end() || it->second.last_use < victim->second.last_use))
                victim = it;
        }
        if (victim == prefixes_.end()) break;
        used_ -= victim->second.bytes;
        evictable_ -= victim->second.bytes;
        prefixes_.erase(victim);
    }
    if (prefixes_.empty()) evictable_ = 0;  // no rounding drift once nothing is cached
    return capacity_ - used_ >= bytes;
}

bool KvPool::grow_blocks(KvHolding& h, int64_t tokens) {
    const int64_t target = rounded(tokens);
    if (target <= h.tokens) return true;
    const double shared = h.shared_tokens > 0 ? bytes_for(h.shared_tokens) - memory_.state_bytes_per_request : 0;
    const double bytes = bytes_for(target) - shared;
    const double more = bytes - h.bytes;
    if (more > 0 && !make_room(more)) return false;
    used_ += more;
    h.tokens = target;
    h.bytes = bytes;
    return true;
}

void KvPool::unref(int64_t id) {
    auto it = prefixes_.find(id);
    if (it == prefixes_.end()) return;
    if (--it->second.refs == 0) {
        evictable_ += it->second.bytes;
        it->second.last_use = ++clock_;
    }
}

void KvPool::release(KvHolding& h) {
    used_ -= h.bytes;
    if (h.prefix_id >= 0) unref(h.prefix_id);
    h = KvHolding{};
}

int64_t KvPool::reuse(KvHolding& h, int64_t id, int64_t len, int64_t prompt) {
    if (!prefix_caching_ || id < 0 || len <= 0) return 0;
    auto it = prefixes_.find(id);
    if (it == prefixes_.end()) return 0;
    // Full blocks shared by both: the cached prefix, the request's own prefix, and all but its last prompt token.
    const int64_t usable = std::min({it->second.tokens, len / block_ * block_, (prompt - 1) / block_ * block_});
    if (usable <= 0) return 0;
    if (it->second.refs++ == 0) evictable_ -= it->second.bytes;
    h.prefix_id = id;
    h.shared_tokens = usable;
    h.tokens = usable;
    h.bytes = 0;
    hit_tokens_ += usable;
    return usable;
}

void KvPool::publish_prefix(KvHolding& h, int64_t id, int64_t len, int64_t computed) {
    const int64_t full = len / block_ * block_;
    if (full <= 0 || computed < full || prefixes_.count(id) > 0) return;
    // The request's first `full` tokens become the cached prefix: their bytes move from the request to the cache.
    Prefix p;
    p.tokens = full;
    p.bytes = bytes_for(full) - memory_.state_bytes_per_request;
    p.refs = 1;
    prefixes_.emplace(id, p);
    h.prefix_id = id;
    h.shared_tokens = full;
    h.bytes -= p.bytes;
}

}  // namespace mfusim::simulate
