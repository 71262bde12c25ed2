// Glue: construction, and estimate() = one InferSim run (sections 1, 7-9, 14-16) reported under the oracle's names.
#include "compat/compat_model.hpp"

#include <algorithm>
#include <cmath>

#include "common/error.hpp"
#include "compat/core.hpp"
#include "compat/flows.hpp"
#include "compat/sizes.hpp"

namespace mfusim::compat {

CompatModel::CompatModel(const config::ModelSource& source, const gpu::GpuProfile& gpu,
                         std::shared_ptr<const tables::BenchData> tables, const query::Deployment& deployment)
    : core_(make_core(parse_infersim_config(source), gpu, std::move(tables), deployment)) {}

CompatModel::~CompatModel() = default;
CompatModel::CompatModel(CompatModel&&) noexcept = default;
CompatModel& CompatModel::operator=(CompatModel&&) noexcept = default;

const std::string& CompatModel::device_type() const {
    return core_->gpu.name;
}
const char* CompatModel::attn_type() const {
    return core_->cfg.attn_type();
}
bool CompatModel::hybrid() const {
    return core_->cfg.hybrid;
}

namespace {

// Appends values under a phase prefix; names are unique within a run, so no search is needed.
class Emitter {
  public:
    Emitter(query::Report& report, const char* prefix) : report_(report), prefix_(prefix) {}
    void operator()(const char* name, double value) {
        std::string full;
        full.reserve(prefix_.size() + 40);
        full.append(prefix_).append(name);
        report_.values.emplace_back(std::move(full), value);
    }
    void operator()(const char* name, int64_t value) { (*this)(name, dbl(value)); }
    void warn(const std::string* warning) {
        if (warning) report_.warnings.push_back(*warning);
    }

  private:
    query::Report& report_;
    std::string prefix_;
};

void emit_projections(Emitter& put, const Core& core, const AttnOthers& oth) {
    if (core.cfg.mla) {
        put("q_down_proj_latency_us", oth.q_down.t * 1e6);
        put("q_up_proj_latency_us", oth.q_up.t * 1e6);
        put("kv_down_proj_latency_us", oth.kv_down.t * 1e6);
        put("bmm_q_wk_latency_us", oth.bmm_q_wk.t * 1e6);
        put("bmm_o_wv_latency_us", oth.bmm_o_wv.t * 1e6);
    } else {
        put("qkv_proj_latency_us", oth.qkv.t * 1e6);
    }
    put("o_proj_latency_us", oth.o.t * 1e6);
}

void emit_linear(Emitter& put, const LinearCore& lin, const LinearOthers& loth) {
    put("linear_attn_core_latency_us", lin.t_us);
    put("states_loading_latency_us", lin.t_st * 1e6);
    put("qkvzba_proj_latency_us", loth.qkvzba * 1e6);
    put("o_proj_latency_us#2", loth.o2.t * 1e6);
}

void emit_moe_comm(Emitter& put, const Core& core, const Moe& moe, const Comm& comm, bool prefill) {
    put(prefill ? "routed_experts_mfu" : "routed_experts_ffn_mfu", moe.mfu.value);
    put(prefill ? "routed_experts_latency_us" : "routed_experts_ffn_latency_us", moe.t_r * 1e6);
    put("experts_loading_latency_us", moe.t_ld * 1e6);
    if (core.cfg.E_s > 0) put("shared_expert_latency_us", moe.shared * 1e6);
    put("comm_before_moe_ffn_us", comm.c1 * 1e6);
    put("comm_after_moe_ffn_us", comm.c2 * 1e6);
    if (core.tp > 1) put("tp_all_reduce_us", comm.c_tp * 1e6);
}

void emit_common(Emitter& put, const Core& core, int64_t S, int64_t O, int64_t B, const KvBudget& kv,
                 const FlopsReport& f) {
    const InferSimConfig& c = core.cfg;
    const Weights& w = core.weights;
    if (c.hybrid) {
        put("one_full_attn_params_size_mb", (dbl(w.A) / 1024) / 1024);
        put("one_linear_attn_params_size_mb", (dbl(w.Glin) / 1024) / 1024);
    } else {
        put("one_attn_params_size_mb", (dbl(w.A) / 1024) / 1024);
    }
    put("one_expert_params_size_mb", (dbl(w.X) / 1024) / 1024);
    put("per_gpu_params_size_gb", w.Pg);
    put("kv_cache_space_gb", w.kv_mem);
    put("input_seq_len", S);
    put("output_seq_len", O);
    put("target_decode_batchsize", B);
    if (c.hybrid) {
        put("target_per_req_kv_cache_size_mb", (kv.tgt / 1024) / 1024);
        put("current_per_req_full_attn_kv_cache_size_mb", (kv.KVf / 1024) / 1024);
        put("current_per_req_states_size_mb", (dbl(w.ST) / 1024) / 1024);
        put("current_per_req_cache_size_mb", ((kv.KVf + dbl(w.ST)) / 1024) / 1024);
    } else {
        put("target_per_token_kv_cache_size_kb", kv.tgt / 1024);
        put("current_per_token_kv_cache_size_kb", dbl(w.KV) / 1024);
    }
    put("num_hidden_layers", c.L);
    const double L = dbl(c.L);
    put(c.hybrid ? "per_token_per_layer_full_attn_core_gflops" : "per_token_per_layer_attn_core_gflops", f.g_core);
    put("per_token_per_layer_moe_ffn_gflops", f.g_moe);
    put("per_token_per_layer_others_gflops", f.g_oth);
    if (c.hybrid) {
        put("per_token_full_attn_core_gflops", f.g_core * dbl(c.N_f));
    } else {
        put("per_token_attn_core_gflops", f.g_core * L);
    }
    put("per_token_moe_gflops", f.g_moe * L);
    put("per_token_others_gflops", f.g_oth * L);
    put("per_token_total_gflops", ((f.g_core + f.g_moe) + f.g_oth) * L);
}

void require_non_negative(int64_t v, const char* name) {
    if (v < 0) throw Error(Status::invalid_argument, std::string(name) + " is negative (" + std::to_string(v) + ")");
}

}  // namespace

query::Report CompatModel::estimate(const query::Scenario& scenario) const {
    const Core& core = *core_;
    const InferSimConfig& c = core.cfg;
    require_non_negative(scenario.input_len, "input_len");
    require_non_negative(scenario.output_len, "output_len");
    require_non_negative(scenario.max_prefill_tokens, "max_prefill_tokens");

    // Section 1.
    const int64_t S = scenario.input_len, O = scenario.output_len, M = scenario.max_prefill_tokens;
    int64_t B = scenario.decode_batch;
    if (B < 0) {
        const double b = std::ceil((scenario.target_tgs * scenario.target_tpot_ms) / 1000);
        if (!(b >= 0 && b < 9.0e15)) {
            throw Error(Status::invalid_argument,
                        "the default decode batch ceil(target_tgs * target_tpot_ms / 1000) "
                        "is negative or not a number; give decode_batch");
        }
        B = static_cast<int64_t>(b);
    }
    const int64_t ctx = S + O;
    const int64_t K = static_cast<int64_t>(dbl(S) + dbl(O) / 2.0);

    query::Report report;
    report.values.reserve(72);
    Emitter put(report, "");

    // Sections 7-9, printed first; the KV budget message comes before any phase.
    const KvBudget kv = kv_budget(core, B, ctx);
    const FlopsReport flops = flops_report(core, K);
    emit_common(put, core, S, O, B, kv, flops);
    if (kv.exceeded) report.soft_errors.emplace_back("!Error: need smaller kvcache");
    Kvb kvb;
    kvb.is_integer = !c.hybrid;
    kvb.integer = kv.kvb_int;
    kvb.real = kv.kvb;

    const ResolvedTables& t = core.tables;
    if (scenario.phases != query::Phases::decode_only) {
        const PrefillRun run = run_prefill(core, M, S, kvb, nullptr);
        Emitter p(report, "prefill.");
        p("max_prefill_tokens", M);
        p("attn_core_mfu", run.core.mfu.value);
        p("attn_core_latency_us", run.core.t_c * 1e6);
        p("kv_loading_latency_us", run.core.t_kv * 1e6);
        emit_projections(p, core, run.oth);
        if (c.hybrid) emit_linear(p, run.lin, run.loth);
        emit_moe_comm(p, core, run.moe, run.comm, true);
        p("ttft_ms", run.ttft_ms);
        p("throughput_tgs_tok_gpu_s", run.throughput);
        p.warn(t.attn_prefill.warning());
        p.warn(t.gemm.warning());
        if (c.moe) p.warn(t.grouped_prefill.warning());
    }
    if (scenario.phases != query::Phases::prefill_only) {
        const DecodeRun run = run_decode(core, B, K, kvb);
        Emitter d(report, "decode.");
        d("attn_core_mfu", run.core.mfu.value);
        d("attn_core_latency_us", run.core.t_c * 1e6);
        d("kv_loading_latency_us", run.core.t_kv * 1e6);
        emit_projections(d, core, run.oth);
        if (c.hybrid) emit_linear(d, run.lin, run.loth);
        emit_moe_comm(d, core, run.moe, run.comm, false);
        d("tpot_ms", run.tpot_ms);
        d("throughput_tgs_tok_gpu_s", run.throughput);
        d.warn(t.attn_decode.warning());
        d.warn(t.gemm.warning());
        if (c.moe) d.warn(t.grouped_decode.warning());
        if (run.tpot_ms > scenario.target_tpot_ms) {
            report.soft_errors.emplace_back("!Error: TPOT > SLO, need smaller GFLOPs to speedup");
        }
    }

    std::sort(report.warnings.begin(), report.warnings.end());
    report.warnings.erase(std::unique(report.warnings.begin(), report.warnings.end()), report.warnings.end());
    return report;
}

}  // namespace mfusim::compat
