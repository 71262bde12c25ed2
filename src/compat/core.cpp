// Building a Core: deployment checks, shard sizes (section 1), weights (section 7), table resolution (section 5).
#include "compat/core.hpp"

#include "common/error.hpp"
#include "compat/sizes.hpp"

namespace mfusim::compat {

namespace {

std::string shape(std::initializer_list<int64_t> parts) {
    std::string out;
    for (int64_t p : parts) out += (out.empty() ? "" : "-") + std::to_string(p);
    return out;
}

void check_deployment(const query::Deployment& d) {
    auto non_negative = [](int64_t v, const char* name) {
        if (v < 0) {
            throw Error(Status::invalid_argument,
                        std::string(name) + " is negative (" + std::to_string(v) + "); it counts GPUs or nodes");
        }
    };
    non_negative(d.tensor_parallel, "tensor_parallel");
    non_negative(d.world_size, "world_size");
    non_negative(d.num_nodes, "num_nodes");
    if (d.tensor_parallel == 0) {
        throw Error(Status::compat_crash,
                    "InferSim raises ZeroDivisionError: integer division or modulo by zero "
                    "(num_attention_heads // tp_size with tp_size 0)");
    }
    if (d.world_size / d.tensor_parallel == 0) {
        throw Error(Status::compat_crash,
                    "InferSim raises ZeroDivisionError on every run: world_size " + std::to_string(d.world_size) +
                        " < tp_size " + std::to_string(d.tensor_parallel) +
                        " leaves world_size // tp_size = 0 expert-parallel ranks (the expert load time divides by it)");
    }
}

void resolve_tables(Core& core) {
    using tables::AttentionFamily;
    using tables::Phase;
    const InferSimConfig& c = core.cfg;
    const tables::BenchData* data = core.data.get();
    ResolvedTables& t = core.tables;
    const std::string& gpu = core.gpu.folder;
    const double mu0 = core.gpu.mu0;

    if (c.mla) {
        t.attn_prefill.resolve(
            data, tables::attention_path(AttentionFamily::mla, Phase::prefill, gpu, shape({core.H_t, c.d_n, c.d_r})),
            mu0);
        t.attn_decode.resolve(
            data, tables::attention_path(AttentionFamily::mla, Phase::decode, gpu, shape({core.H_t, c.r_kv, c.d_r})),
            mu0, core.f8kv);
    } else {
        const std::string s = shape({core.H_t, core.Hkv_t, c.d});
        t.attn_prefill.resolve(data, tables::attention_path(AttentionFamily::mha, Phase::prefill, gpu, s), mu0);
        t.attn_decode.resolve(data, tables::attention_path(AttentionFamily::mha, Phase::decode, gpu, s), mu0,
                              core.f8kv);
    }

    t.gemm.resolve(data, tables::gemm_path(gpu), mu0);
    if (c.mla) {
        t.q_down = t.gemm.site(c.h, c.r_q);
        t.q_up = t.gemm.site(c.r_q, core.H_t * c.d_qk);
        t.kv_down = t.gemm.site(c.h, c.r_kv + c.d_r);
        t.bmm_q_wk = t.gemm.site(core.H_t * c.d_n, c.r_kv);
        t.bmm_o_wv = t.gemm.site(core.H_t * c.r_kv, c.d_v);
        t.o = t.gemm.site(core.H_t * c.d_v, c.h);
    } else {
        t.qkv = t.gemm.site(c.h, (core.H_t + core.Hkv_t * 2) * c.d);
        t.o = t.gemm.site(core.H_t * c.d, c.h);
    }
    if (c.hybrid) {
        t.gdn_qkvz = t.gemm.site(c.h, (c.h_k * c.d_k) * 2 + (c.h_v * c.d_lv) * 2);
        t.gdn_o = t.gemm.site(c.h_v * c.d_lv, c.h);
        const std::string s = shape({c.c_k, c.h_k, c.d_k, c.h_v, c.d_lv});
        t.gdn_prefill.resolve(data, tables::gdn_path(Phase::prefill, gpu, s));
        t.gdn_decode.resolve(data, tables::gdn_path(Phase::decode, gpu, s));
    }
    if (c.moe) {
        const GroupedGemmLookup::Key key{c.E, core.ws, core.ep, c.k_e, c.h, core.I_t};
        t.grouped_prefill.resolve(data, Phase::prefill, tables::grouped_gemm_path(Phase::prefill, gpu), key, mu0);
        t.grouped_decode.resolve(data, Phase::decode, tables::grouped_gemm_path(Phase::decode, gpu), key, mu0);
    } else {
        t.ffn = t.gemm.site(c.h, (c.I * 2) / core.ws);  // world size and unsharded I (Q12)
    }
    if (c.E_s > 0) {
        t.shared_up = t.gemm.site(c.h, (core.I_t * 2) * c.E_s);
        t.shared_down = t.gemm.site(core.I_t * c.E_s, c.h);
    }
}

}  // namespace

std::unique_ptr<const Core> make_core(InferSimConfig cfg, const gpu::GpuProfile& gpu,
                                      std::shared_ptr<const tables::BenchData> data,
                                      const query::Deployment& deployment) {
    auto core = std::make_unique<Core>();
    core->gpu = make_compat_gpu(gpu);
    check_deployment(deployment);
    core->cfg = std::move(cfg);
    core->deployment = deployment;
    core->data = std::move(data);
    const InferSimConfig& c = core->cfg;

    core->tp = deployment.tensor_parallel;
    core->ws = deployment.world_size;
    core->nn = deployment.num_nodes;
    core->f8g = deployment.fp8_gemm;
    core->f8kv = deployment.fp8_kv;
    core->deepep = deployment.deepep;
    core->tbo = deployment.two_batch_overlap;
    core->rho = deployment.sm_ratio;
    core->H_t = c.H / core->tp;
    core->Hkv_t = c.Hkv / core->tp;
    core->I_t = c.I / core->tp;
    core->ep = core->ws / core->tp;
    core->P = core->f8g ? core->gpu.P8 : core->gpu.P16;

    core->weights = compute_weights(*core);
    core->kvb_is_integer = !c.hybrid;
    if (c.hybrid) {
        core->kvb_step = c.L == 0 ? 0 : (dbl(core->weights.KV) / dbl(c.L)) * dbl(c.N_f);
    } else {
        core->kvb_step = dbl(core->weights.KV);
    }
    resolve_tables(*core);
    return core;
}

}  // namespace mfusim::compat
