// Everything a CompatModel fixes at construction: the config as InferSim reads it, the GPU figures, the
// deployment and its derived shard sizes (SPEC section 1), the weight sizes (section 7), and the resolved tables.
#pragma once

#include <cstdint>
#include <memory>

#include "compat/compat_gpu.hpp"
#include "compat/infersim_config.hpp"
#include "compat/lookups.hpp"
#include "query/query.hpp"
#include "tables/tables.hpp"

namespace mfusim::compat {

// The tables this model + deployment consults, resolved once (file present or not, rows filtered and rounded).
struct ResolvedTables {
    AttentionPrefillLookup attn_prefill;
    AttentionDecodeLookup attn_decode;
    GemmTable gemm;
    // One site per GEMM shape InferSim asks for (section 11/12).
    GemmSite qkv, o;                                     // MHA (o also MLA)
    GemmSite q_down, q_up, kv_down, bmm_q_wk, bmm_o_wv;  // MLA
    GemmSite gdn_qkvz, gdn_o;                            // hybrid linear attention
    GemmSite ffn;                                        // dense FFN: (h, (I * 2) // ws)
    GemmSite shared_up, shared_down;                     // E_s > 0
    GroupedGemmLookup grouped_prefill, grouped_decode;   // MoE
    GdnLookup gdn_prefill, gdn_decode;                   // hybrid
};

// Section 7 (and the deployment-fixed part of 8), in bytes unless named otherwise.
struct Weights {
    int64_t A = 0;      // attention weights of one (full-attention) layer
    int64_t Glin = 0;   // one linear-attention layer (hybrid)
    int64_t X = 0;      // one expert (or the dense FFN)
    double Pg = 0;      // per-GPU parameters, GiB
    double kv_mem = 0;  // KV space, "GB" - GiB - 20
    int64_t KV = 0;     // KV bytes of one token over all L layers
    int64_t ST = 0;     // hybrid: recurrent-state bytes of one request
};

struct Core {
    InferSimConfig cfg;
    CompatGpu gpu;
    query::Deployment deployment;
    std::shared_ptr<const tables::BenchData> data;

    // Section 1, derived.
    int64_t tp = 1, ws = 1, nn = 1;
    bool f8g = false, f8kv = false, deepep = false, tbo = false;
    double rho = 0;
    int64_t H_t = 0, Hkv_t = 0, I_t = 0, ep = 0;
    double P = 0;  // GEMM peak: P8 if f8g else P16

    Weights weights;
    // Per-token KV bytes handed to attention: Model KV (an integer), Hybrid KVf / ctx, which is (KV / L) * N_f for
    // every ctx > 0 (exact integers), used by steps.
    bool kvb_is_integer = true;
    double kvb_step = 0;

    ResolvedTables tables;

    // Layer counts and the fixed overheads (Q23).
    double prefill_overhead_ms() const { return 30; }
    double decode_overhead_ms() const { return cfg.hybrid ? 2 : 5; }
};

// Builds the core. Error(config) / Error(unsupported) as CompatModel documents; Error(invalid_argument) for a
// negative deployment number; Error(compat_crash) for a deployment on which every InferSim run raises
// (tp_size 0, world_size 0, world_size < tp_size).
std::unique_ptr<const Core> make_core(InferSimConfig cfg, const gpu::GpuProfile& gpu,
                                      std::shared_ptr<const tables::BenchData> data,
                                      const query::Deployment& deployment);

}  // namespace mfusim::compat
