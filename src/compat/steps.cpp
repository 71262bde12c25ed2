// Engine steps in compat terms (docs/compat-steps.md): a step's prefill chunks form one InferSim prefill, its
// decodes one InferSim decode; a mixed step adds both and keeps one fixed overhead. No allocation.
#include <cstring>

#include "common/text.hpp"
#include "compat/compat_model.hpp"
#include "compat/core.hpp"
#include "compat/flows.hpp"
#include "compat/sizes.hpp"

namespace mfusim::compat {

namespace {

__extension__ typedef unsigned __int128 u128;

struct Plan {
    int64_t M = 0;         // prefill tokens of the step
    int64_t prefills = 0;  // prefill chunks
    int64_t first_n = 0;   // the first chunk's length
    bool uniform = true;   // every chunk has first_n tokens
    int64_t B = 0;         // decodes
    u128 context_sum = 0;  // of the decodes
};

Plan plan(const mfusim_request* requests, std::size_t n) {
    Plan p;
    for (std::size_t i = 0; i < n; ++i) {
        const mfusim_request& r = requests[i];
        if (is_decode(r)) {
            ++p.B;
            p.context_sum += static_cast<u128>(r.context);
        } else if (is_prefill(r)) {
            if (p.prefills == 0) p.first_n = r.new_tokens;
            if (r.new_tokens != p.first_n) p.uniform = false;
            ++p.prefills;
            p.M += r.new_tokens;
        }
    }
    return p;
}

// Mean decode context, rounded to nearest (halves up).
int64_t mean_context(const Plan& p) {
    const u128 b = static_cast<u128>(p.B);
    return static_cast<int64_t>((p.context_sum + b / 2) / b);
}

Kvb step_kvb(const Core& core) {
    Kvb kvb;
    kvb.is_integer = core.kvb_is_integer;
    kvb.integer = core.weights.KV;
    kvb.real = core.kvb_step;
    return kvb;
}

PrefillRun prefill_of(const Core& core, const Plan& p, const mfusim_request* requests, std::size_t n) {
    UnevenPrefill uneven{requests, n};
    return run_prefill(core, p.M, p.first_n, step_kvb(core), p.uniform ? nullptr : &uneven);
}

DecodeRun decode_of(const Core& core, const Plan& p) {
    return run_decode(core, p.B, mean_context(p), step_kvb(core));
}

double combine_ms(const Core& core, double prefill_ms, double decode_ms) {
    const double p = core.prefill_overhead_ms(), d = core.decode_overhead_ms();
    return (prefill_ms + decode_ms) - (d < p ? d : p);
}

// ---- breakdown ------------------------------------------------------------------------------------------------

class Ops {
  public:
    Ops() { std::memset(ops_, 0, sizeof ops_); }

    // Adds time to an op; the efficiency, provenance and bound are those of its largest contribution.
    void add(mfusim_op op, double time_us, double flops, double bytes, mfusim_bound bound, const Pick* pick,
             bool has_efficiency = true) {
        mfusim_op_detail& d = ops_[op];
        d.time_us += time_us;
        d.flops += flops;
        d.bytes += bytes;
        if (time_us < dominant_[op] || (time_us == 0 && d.bound != MFUSIM_BOUND_NONE)) return;
        dominant_[op] = time_us;
        d.bound = bound;
        if (pick) {
            d.efficiency = has_efficiency ? pick->value : 0;
            d.distance = pick->distance;
            d.source = pick->source;
            copy_table(d, pick->table);
        } else {
            d.efficiency = 0;
            d.distance = 0;
            d.source = MFUSIM_SOURCE_NONE;
            d.table[0] = '\0';
        }
    }

    // Spreads a phase's overlapped (TBO) time over its operations in proportion to their serial times.
    void scale_to(double target_us) {
        double sum = 0;
        for (int i = 0; i < MFUSIM_OP_COUNT; ++i) {
            if (i != MFUSIM_OP_OVERHEAD) sum += ops_[i].time_us;
        }
        if (sum <= 0) return;
        const double factor = target_us / sum;
        for (int i = 0; i < MFUSIM_OP_COUNT; ++i) {
            if (i != MFUSIM_OP_OVERHEAD) ops_[i].time_us *= factor;
        }
    }

    void merge_into(Ops& total) const {
        for (int i = 0; i < MFUSIM_OP_COUNT; ++i) {
            const mfusim_op_detail& d = ops_[i];
            if (d.time_us == 0 && d.bound == MFUSIM_BOUND_NONE) continue;
            mfusim_op_detail& t = total.ops_[i];
            const bool take = d.time_us >= total.dominant_[i] || t.bound == MFUSIM_BOUND_NONE;
            t.time_us += d.time_us;
            t.flops += d.flops;
            t.bytes += d.bytes;
            if (take) {
                total.dominant_[i] = d.time_us;
                t.efficiency = d.efficiency;
                t.distance = d.distance;
                t.bound = d.bound;
                t.source = d.source;
                std::memcpy(t.table, d.table, sizeof t.table);
            }
        }
    }

    void set_time(mfusim_op op, double time_us) { ops_[op].time_us = time_us; }

    void write(mfusim_step_result& out, double total_us) const {
        const std::size_t size = out.struct_size;
        query::clear_step_result(out);
        out.struct_size = size;
        out.total_us = total_us;
        std::memcpy(out.ops, ops_, sizeof ops_);
        double longest = -1;
        for (int i = 0; i < MFUSIM_OP_COUNT; ++i) {
            if (ops_[i].bound != MFUSIM_BOUND_NONE && ops_[i].time_us > longest) {
                longest = ops_[i].time_us;
                out.bound = ops_[i].bound;
            }
        }
    }

  private:
    static void copy_table(mfusim_op_detail& d, const std::string* table) {
        copy_text(d.table, sizeof d.table, table ? std::string_view(*table) : std::string_view());
    }

    mfusim_op_detail ops_[MFUSIM_OP_COUNT];
    double dominant_[MFUSIM_OP_COUNT] = {};
};

mfusim_bound bound_of(bool memory) {
    return memory ? MFUSIM_BOUND_MEMORY : MFUSIM_BOUND_COMPUTE;
}

const Gemm& slowest(std::initializer_list<const Gemm*> gemms) {
    const Gemm* best = *gemms.begin();
    for (const Gemm* g : gemms) {
        if (g->t > best->t) best = g;
    }
    return *best;
}

// Projections, linear attention, FFN/MoE and communication, common to both phases. `full` and `layers` are the
// full-attention and all-layer counts; times are seconds per layer.
void add_common(Ops& ops, const Core& core, const AttnOthers& oth, const LinearCore* lin, double l_core,
                const LinearOthers* loth, const Moe& moe, const Comm& comm, bool tp_added) {
    const InferSimConfig& c = core.cfg;
    const double full = dbl(c.hybrid ? c.N_f : c.L), L = dbl(c.L);
    if (c.mla) {
        const Gemm& s = slowest({&oth.q_down, &oth.q_up, &oth.kv_down, &oth.bmm_q_wk, &oth.bmm_o_wv});
        const double flops =
            oth.q_down.flops + oth.q_up.flops + oth.kv_down.flops + oth.bmm_q_wk.flops + oth.bmm_o_wv.flops;
        ops.add(MFUSIM_OP_QKV_PROJ, oth.qkv_side * full * 1e6, flops * full, 0, MFUSIM_BOUND_COMPUTE, &s.mfu);
    } else {
        ops.add(MFUSIM_OP_QKV_PROJ, oth.qkv.t * full * 1e6, oth.qkv.flops * full, 0, MFUSIM_BOUND_COMPUTE,
                &oth.qkv.mfu);
    }
    ops.add(MFUSIM_OP_O_PROJ, oth.o.t * full * 1e6, oth.o.flops * full, 0, MFUSIM_BOUND_COMPUTE, &oth.o.mfu);
    if (c.hybrid && lin && loth) {
        const double N_l = dbl(c.N_l);
        ops.add(MFUSIM_OP_LINEAR_ATTN, (l_core + loth->total) * N_l * 1e6, (loth->q.flops + loth->o2.flops) * N_l,
                lin->bytes * N_l, bound_of(lin->memory_bound()), &lin->pick, false);
    }
    ops.add(c.moe ? MFUSIM_OP_MOE_EXPERTS : MFUSIM_OP_FFN, moe.routed * L * 1e6, moe.g_r * 1e9 * L, moe.load_bytes * L,
            bound_of(moe.memory_bound()), &moe.mfu);
    if (c.E_s > 0) {
        const Gemm& s = slowest({&moe.up, &moe.dn});
        ops.add(MFUSIM_OP_MOE_SHARED, moe.shared * L * 1e6, (moe.up.flops + moe.dn.flops) * L, 0, MFUSIM_BOUND_COMPUTE,
                &s.mfu);
    }
    const bool hybrid_tp = c.hybrid && core.tp > 1;  // the hybrid charges 2 * c_tp instead of c1 + c2
    if (!hybrid_tp) {
        ops.add(MFUSIM_OP_EP_COMM, (comm.c1 + comm.c2) * L * 1e6, 0, comm.ep_bytes * L, MFUSIM_BOUND_COMMUNICATION,
                nullptr);
    }
    if (core.tp > 1 && tp_added) {
        const double factor = hybrid_tp ? 2 : 1;
        ops.add(MFUSIM_OP_TP_ALLREDUCE, (factor * comm.c_tp) * L * 1e6, 0, factor * comm.tp_bytes * L,
                MFUSIM_BOUND_COMMUNICATION, nullptr);
    }
}

void prefill_ops(Ops& ops, const Core& core, const PrefillRun& run) {
    const InferSimConfig& c = core.cfg;
    const double full = dbl(c.hybrid ? c.N_f : c.L);
    const double per_core = run.core.value > 0 ? run.f_core / run.core.value : 0;  // sequences of that core
    ops.add(MFUSIM_OP_ATTN_PREFILL, run.f_core * full * 1e6, run.core.flops * per_core * full,
            run.core.bytes * per_core * full, bound_of(run.core.memory_bound()), &run.core.mfu);
    add_common(ops, core, run.oth, &run.lin, run.l_core, &run.loth, run.moe, run.comm, c.hybrid || !core.tbo);
    ops.add(MFUSIM_OP_OVERHEAD, core.prefill_overhead_ms() * 1000, 0, 0, MFUSIM_BOUND_FIXED, nullptr);
    if (core.tbo && !c.hybrid) ops.scale_to((run.ttft_ms - core.prefill_overhead_ms()) * 1000);
}

void decode_ops(Ops& ops, const Core& core, const DecodeRun& run) {
    const InferSimConfig& c = core.cfg;
    const double full = dbl(c.hybrid ? c.N_f : c.L);
    ops.add(MFUSIM_OP_ATTN_DECODE, run.core.value * full * 1e6, run.core.flops * full, run.core.bytes * full,
            bound_of(run.core.memory_bound()), &run.core.mfu);
    add_common(ops, core, run.oth, &run.lin, run.lin.value, &run.loth, run.moe, run.comm, c.hybrid || !core.tbo);
    ops.add(MFUSIM_OP_OVERHEAD, core.decode_overhead_ms() * 1000, 0, 0, MFUSIM_BOUND_FIXED, nullptr);
    if (core.tbo && !c.hybrid) ops.scale_to((run.tpot_ms - core.decode_overhead_ms()) * 1000);
}

}  // namespace

double CompatModel::step_time_us(const mfusim_request* requests, std::size_t n) const {
    const Core& core = *core_;
    const Plan p = plan(requests, n);
    if (p.prefills == 0 && p.B == 0) return 0;
    if (p.B == 0) return prefill_of(core, p, requests, n).ttft_ms * 1000;
    if (p.prefills == 0) return decode_of(core, p).tpot_ms * 1000;
    const double prefill_ms = prefill_of(core, p, requests, n).ttft_ms;
    return combine_ms(core, prefill_ms, decode_of(core, p).tpot_ms) * 1000;
}

void CompatModel::step_detail(const mfusim_request* requests, std::size_t n, mfusim_step_result& out) const {
    const Core& core = *core_;
    const Plan p = plan(requests, n);
    Ops total;
    double ms = 0;
    if (p.prefills > 0) {
        const PrefillRun run = prefill_of(core, p, requests, n);
        Ops phase;
        prefill_ops(phase, core, run);
        phase.merge_into(total);
        ms = run.ttft_ms;
    }
    if (p.B > 0) {
        const DecodeRun run = decode_of(core, p);
        Ops phase;
        decode_ops(phase, core, run);
        phase.merge_into(total);
        if (p.prefills > 0) {
            ms = combine_ms(core, ms, run.tpot_ms);
            const double a = core.prefill_overhead_ms(), b = core.decode_overhead_ms();
            total.set_time(MFUSIM_OP_OVERHEAD, (a > b ? a : b) * 1000);
        } else {
            ms = run.tpot_ms;
        }
    }
    total.write(out, ms * 1000);
}

}  // namespace mfusim::compat
