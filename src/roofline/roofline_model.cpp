// The per-step roofline model (docs/roofline.md, docs/engine.md). Per layer kind and per GPU: projection GEMMs on
// every token of the step, prefill attention of the chunks over their cached prefixes, decode attention from the KV
// bytes each request reads, dense FFN or MoE (expected active experts, sharded by TP or EP), Gated-DeltaNet layers
// and Mamba2 mixers (one recurrent-state core), TP all-reduces (the engine's custom kernel for small messages, NCCL
// above) and EP all-to-alls, the LM head for the tokens that produce output, small element-wise kernels, and the
// engine's own time around the kernels.
// Everything that depends only on the model and deployment is built once here; a step is one pass over its
// requests plus a fixed number of grid lookups, evaluated by one function whose breakdown is an optional output.
// DeepSeek Sparse Attention: the MLA attention reads the top-k keys its indexer selects (the windowed path), and
// the indexer's projections and scoring are timed beside it.
#include "roofline/roofline_model.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <optional>
#include <vector>

#include "common/error.hpp"
#include "common/text.hpp"
#include "query/names.hpp"
#include "roofline/all_to_all.hpp"
#include "roofline/kernels.hpp"
#include "roofline/operation_plan.hpp"
#include "roofline/precision.hpp"

namespace mfusim::roofline {

namespace {

using tables::AttentionFamily;
using tables::Phase;

// The attention work of the layers whose queries read at most `window` keys, and DeepSeek Sparse Attention's
// lightning indexer, which scores every query against all its keys. Gathered only for models that have such layers,
// apart from StepWork: most models have none, and clearing a record twice the size cost every step ~8 ns.
struct BoundedWork {
    PrefillWork prefill;
    DecodeWork decode;
    IndexerWork indexer_prefill, indexer_decode;
};

// What one pass over the requests of a step gathers.
struct StepWork {
    int64_t tokens = 0;          // new tokens of the step (GEMM rows)
    int64_t outputs = 0;         // requests that produce a token (LM head rows)
    int64_t requests = 0;        // requests scheduled (engine bookkeeping)
    int64_t prefill_tokens = 0;  // new tokens of prefill chunks
    int64_t prefill_span = 0;    // sum over prefill chunks of context + new tokens (MLA K/V up-projection rows)
    double prefill_sequences = 0;
    int64_t prefill_longest = 0;  // new tokens of the longest prefill chunk (the fused GDN prefill's critical path)
    int64_t first_chunks = 0;     // prefill chunks over no cached context: their request's images are encoded
    // The tokens the other attention-DP replicas of the expert-parallel group bring to the MoE layers this step
    // (RooflineModel::step_time_us); negative: each holds this batch, tokens x (attention_data_parallel - 1).
    double peer_tokens = -1;
    PrefillWork prefill;
    DecodeWork decode;
    bool invalid = false;  // a validating gather found a request out of range
};

// The requests of a step that are not decodes (prefill chunks and idle requests), tallied off the hot loop of
// gather: the loop sums every request as a decode, and these tallies take the others back out.
struct OtherRequests {
    uint64_t idle = 0, idle_contexts = 0, idle_no_outputs = 0;
    uint64_t chunks = 0, chunk_tokens = 0, chunk_contexts = 0, first = 0, longest_chunk = 0;
    uint64_t windowed_keys = 0;  // what the loop added for them as decodes (bounded models)
};

mfusim_bound roofline_bound(double compute_us, double memory_us) {
    return memory_us > compute_us ? MFUSIM_BOUND_MEMORY : MFUSIM_BOUND_COMPUTE;
}

// The breakdown being filled by a detailed evaluation: per operation its time, FLOPs, bytes, and the bound and
// provenance of its longest contribution.
class Breakdown {
  public:
    explicit Breakdown(mfusim_step_result& out) : out_(out) {
        query::clear_step_result(out_);
        for (double& l : longest_) l = -1;
    }

    // An operation timed by a formula of its own (communication, element-wise, the engine): no FLOPs, no table.
    void add_formula(mfusim_op op, double time_us, double bytes, mfusim_bound bound,
                     mfusim_source source = MFUSIM_SOURCE_ANALYTICAL) {
        add(op, time_us, 0, bytes, bound, OpProvenance{source, 0, nullptr}, 0);
    }

    void add(mfusim_op op, double time_us, double flops, double bytes, mfusim_bound bound, const OpProvenance& p,
             double peak_flops) {
        mfusim_op_detail& d = out_.ops[op];
        d.time_us += time_us;
        d.flops += flops;
        d.bytes += bytes;
        // Time at peak summed over the parts, each at its own peak: an op may mix precisions (the FP8 indexer
        // beside BF16 attention), and its efficiency must stay the fraction of its time the FLOPs need.
        if (peak_flops > 0) ideal_s_[op] += flops / peak_flops;
        if (time_us > longest_[op]) {
            longest_[op] = time_us;
            d.bound = bound;
            d.source = p.source;
            d.distance = p.distance;
            std::memset(d.table, 0, sizeof d.table);
            if (p.table) copy_text(d.table, sizeof d.table, *p.table);
        }
    }

    // A GEMM's time, split into the part its compute accounts for and the weight streaming beyond it.
    void gemm(mfusim_op op, const GemmSite& site, int64_t m, double count, double time_us, bool split_weights,
              double peak_flops) {
        GemmCost c = site.analytical(m);
        double excess = split_weights && c.memory_us > c.compute_us ? (c.memory_us - c.compute_us) / c.memory_us : 0;
        add(op, time_us * (1 - excess), site.flops(m) * count, site.bytes(m) * count,
            roofline_bound(c.compute_us, c.memory_us), site.provenance(m), peak_flops);
        if (excess > 0) {
            mfusim_op_detail& weight = out_.ops[MFUSIM_OP_WEIGHT_LOAD];
            weight.time_us += time_us * excess;
            weight.bytes += site.weight_bytes(m) * count;
            weight.bound = MFUSIM_BOUND_MEMORY;
            weight.source = MFUSIM_SOURCE_ANALYTICAL;
        }
    }

    void finish(double total_us) {
        double longest = -1;
        for (int i = 0; i < MFUSIM_OP_COUNT; ++i) {
            mfusim_op_detail& d = out_.ops[i];
            d.efficiency = d.time_us > 0 && ideal_s_[i] > 0 ? ideal_s_[i] / (d.time_us * 1e-6) : 0;
            if (d.time_us <= 0) {
                d.bound = MFUSIM_BOUND_NONE;
                d.source = MFUSIM_SOURCE_NONE;
            }
            if (d.time_us > longest) {
                longest = d.time_us;
                out_.bound = d.bound;
            }
        }
        out_.total_us = total_us;
    }

  private:
    mfusim_step_result& out_;
    double longest_[MFUSIM_OP_COUNT];
    double ideal_s_[MFUSIM_OP_COUNT] = {};  // sum of flops / peak over the parts of each op
};

// Whether `engine` runs MXFP4 routed experts with MXFP8 activations on `gpu` (EngineProfile::
// mxfp4_moe_fp8_activations): only where the experts run TRT-LLM-gen's MoE (Blackwell).
bool w4a8_experts(const engines::EngineProfile& engine, const gpu::GpuProfile& gpu, config::WeightFormat format) {
    return engine.mxfp4_moe_fp8_activations > 0 && format == config::WeightFormat::mxfp4 &&
           moe_runs_trtllm_gen(gpu, format);
}

}  // namespace

// An entry of the plan bound to its kernel on this GPU: what the evaluator's loop reads, in plan order.
struct BoundEntry {
    KernelSite site = KernelSite::gemm;
    Rows rows = Rows::tokens;
    bool split_weights = true;
    mfusim_op op = MFUSIM_OP_QKV_PROJ;  // the ABI operation it reports under
    double layers = 0;
    double scale = 1;                    // the calibrated multiplier of its operation's family
    double message_bytes_per_token = 0;  // an all-reduce's own message (PlanEntry); 0: the plan's
    int64_t group_gpus = 0;              // an all-reduce's GPUs (PlanEntry); 0: the TP group
    bool nccl_only = false;              // an all-reduce the engine runs through NCCL whatever its size
    // A gather whose extending steps all-reduce twice instead (EngineProfile::moe_gather_extend_allreduce): its time
    // doubles in a step with prefill tokens.
    bool extend_allreduce = false;
    const GemmSite* gemm = nullptr;
    const KernelModel* kernels = nullptr;
    const LinearAttentionSite* core = nullptr;
};

struct RooflineModel::Impl {
    config::ModelConfig model;
    query::Deployment deployment;
    engines::EngineProfile engine;
    Efficiency efficiency;
    // The calibrated multiplier of each operation's family (1 for unscaled operations), applied once per kernel
    // contribution in the evaluator.
    std::array<double, MFUSIM_OP_COUNT> op_scale{};
    MemoryFacts memory;
    KvCacheChoice kv_cache;
    // One kernel model per distinct GEMM precision (heap: sites point into them).
    std::vector<std::unique_ptr<KernelModel>> kernel_models;
    const KernelModel* attention_kernels = nullptr;  // attention projections and attention kernels
    const KernelModel* mlp_kernels = nullptr;        // dense MLP and shared experts
    const KernelModel* expert_kernels = nullptr;     // routed experts
    const KernelModel* recurrent_kernels = nullptr;  // recurrent mixers' projections (Gated DeltaNet, Mamba2)
    std::string warnings;

    OperationPlan plan;
    // The plan's kernels on this GPU, and its entries bound to them (those with layers to run).
    std::vector<GemmSite> gemm_sites;
    std::vector<LinearAttentionSite> cores;
    PrefillAttentionSite prefill;
    DecodeAttentionSite decode;
    // The windowed layers' sites: copies of the two above unless their head geometry is their own.
    PrefillAttentionSite windowed_prefill;
    DecodeAttentionSite windowed_decode;
    double indexer_peak = 0;
    std::vector<BoundEntry> entries;

    bool engine_terms = false;
    double layers = 0;
    double engine_layers = 0;  // layers plus the layer-equivalents of extra kernels (OperationPlan)
    bool recurrent = false;    // the model has recurrent (Gated DeltaNet, Mamba, ...) layers
    bool overlap = false;      // the engine's overlap scheduler, resolved for its version once (not per step)
    double moe_layers = 0;     // layers whose FFN is a mixture of experts
    int64_t window = 0;
    double sparse_layers = 0;
    int64_t tp = 1, ep = 1;
    // EP dispatch and combine by DeepEP (families.hpp) where the engine runs it (bind): its model's shape (tokens
    // and mode filled per step); otherwise (deepep.gpus == 0) the gather of the group's tokens where the engine has no
    // all-to-all (bind), else the NCCL-style all_to_all_us.
    DeepEpShape deepep;
    double routing_alpha = 0;  // the routed experts' load: 0 balanced, else power law (query::Deployment)
    double moe_token_factor = 1;
    double elementwise_us_per_token = 0;  // all layers: norms, rotary, activation, MoE permutation
    // Speculative decoding (docs/speculative.md): the drafter's share of the model per draft pass (one layer's
    // worth for MTP and EAGLE, 0 for n-gram lookup).
    query::Speculation speculation;
    double draft_share = 0;
    // The draft_model drafter: its own model on this GPU and tensor parallelism, run whole in every draft pass.
    std::shared_ptr<const RooflineModel> drafter;
    // The modality towers (vision_encoder.hpp): one image's cost and the images of a request, one audio clip's
    // cost and the clips of a request (0: not run).
    EncoderCost encoder;
    double images_per_request = 0;
    EncoderCost audio_encoder;
    double clips_per_request = 0;

    // `bounded`: filled when the model has bounded layers (window > 0), else null.
    // With Validate, the requests are checked in the same pass (query::request_out_of_range and the step's sums):
    // an out-of-range step stops the pass and sets StepWork::invalid.
    template <bool Validate = false>
    StepWork gather(const mfusim_request* requests, std::size_t n, BoundedWork* bounded) const;
    template <bool Validate>
    bool tally_other(const mfusim_request& r, StepWork& w, OtherRequests& o, BoundedWork* bounded) const;
    void add_windowed_chunk(PrefillWork& work, int64_t new_tokens, int64_t context) const;
    static void add_indexer_chunk(IndexerWork& work, int64_t new_tokens, int64_t context);
    StepWork gather_mix(const StepMix& mix, BoundedWork* bounded) const;
    // An all-reduce of `bytes` over `gpus` GPUs (0: the TP group).
    double allreduce_us(double bytes, int64_t gpus = 0, bool nccl_only = false) const;
    EngineUnits engine_units(const StepWork& w) const;
    double engine_us(const StepWork& w) const;
    void bind(const gpu::GpuProfile& gpu);
    // The one evaluator: one loop over the bound plan. Compiled twice: with Detail the breakdown is filled as it
    // goes; without, every detail statement is discarded at compile time, so step_time pays nothing for it.
    // Draft: the evaluation of a drafter pass, every layer-wise operation at `share` of the model's layers (the
    // LM head whole) and the engine's per-layer term for those layers only.
    template <bool Detail, bool Draft = false>
    double evaluate(const StepWork& w, const BoundedWork* bounded, mfusim_step_result* detail, double share = 1) const;
    // A step under speculative decoding: its decodes verify their drafts, then the drafter proposes the next ones.
    // `regather(model, bounded)` is the step's work as another model (the draft model) sees it: its own geometry,
    // and its own bounded work when it has windowed layers.
    template <bool Detail, class Regather>
    double speculative(StepWork w, BoundedWork* bounded, mfusim_step_result* detail, const Regather& regather) const;
    template <bool Detail, class Regather>
    double evaluate_step(const StepWork& w, BoundedWork* bounded, mfusim_step_result* detail,
                         const Regather& regather) const {
        if (speculation.active()) return speculative<Detail>(w, bounded, detail, regather);
        return evaluate<Detail>(w, bounded, detail);
    }
    // Gather then evaluate, with a BoundedWork on the stack only for models that need one.
    template <bool Detail, bool Validate = false>
    double step(const mfusim_request* requests, std::size_t n, mfusim_step_result* detail,
                double peer_tokens = -1) const;
    template <bool Detail>
    double mix(const StepMix& x, mfusim_step_result* detail) const;
};

// A request that is not a decode: false when it is out of range (Validate only).
template <bool Validate>
__attribute__((noinline)) bool RooflineModel::Impl::tally_other(const mfusim_request& r, StepWork& w, OtherRequests& o,
                                                                BoundedWork* bounded) const {
    const int64_t t = r.new_tokens;
    if (bounded) o.windowed_keys += std::min(static_cast<uint64_t>(r.context) + 1, static_cast<uint64_t>(window));
    if (t <= 0) {
        if (Validate && t < 0) return false;
        ++o.idle;
        o.idle_contexts += static_cast<uint64_t>(r.context);
        o.idle_no_outputs += r.flags & MFUSIM_REQUEST_NO_OUTPUT;
        return true;
    }
    // A chunk's range is checked before its arithmetic: an unchecked new_tokens near 2^63 would overflow it.
    if (Validate && query::request_out_of_range(r)) return false;
    prefill.add_chunk(w.prefill, t, r.context);
    if (bounded) {
        add_windowed_chunk(bounded->prefill, t, r.context);
        if (sparse_layers > 0) add_indexer_chunk(bounded->indexer_prefill, t, r.context);
    }
    ++o.chunks;
    o.chunk_tokens += static_cast<uint64_t>(t);
    o.longest_chunk = std::max(o.longest_chunk, static_cast<uint64_t>(t));
    o.chunk_contexts += static_cast<uint64_t>(r.context);
    o.first += r.context == 0 ? 1 : 0;
    return true;
}

// One pass over the requests. The common request is a decode (new_tokens == 1): the loop takes every request as
// one, with integer sums only (one-cycle adds, exact, all in registers), and hands the others to tally_other,
// whose tallies are taken back out after the pass. With Validate, the pass also checks what
// query::validate_requests checks: the ORs of every context and of every request's flag and reserved bits (below
// 2^41; no bit but MFUSIM_REQUEST_NO_OUTPUT), and the step's sums (at most 2^40); a chunk is checked before its
// arithmetic. Unsigned sums: wrapping is defined, and with n below 2^20 and every term below 2^41 none wraps.
template <bool Validate>
__attribute__((always_inline)) inline StepWork RooflineModel::Impl::gather(const mfusim_request* requests,
                                                                           std::size_t n, BoundedWork* bounded) const {
    StepWork w;
    uint64_t contexts = 0, no_outputs = 0, windowed_keys = 0, contexts_seen = 0, bits_seen = 0;
    const auto cap = static_cast<uint64_t>(window);
    OtherRequests other;
    for (const mfusim_request *r = requests, *end = requests + n; r != end; ++r) {
        const auto context = static_cast<uint64_t>(r->context);
        const uint64_t bits = r->flags | static_cast<uint64_t>(r->reserved) << 32;
        contexts += context;
        // A validated request's bits are 0 or MFUSIM_REQUEST_NO_OUTPUT (bits_seen): their sum counts the requests
        // without output.
        no_outputs += Validate ? bits : r->flags & MFUSIM_REQUEST_NO_OUTPUT;
        if (bounded) windowed_keys += std::min(context + 1, cap);
        if constexpr (Validate) {
            contexts_seen |= context;
            bits_seen |= bits;
        }
        if (r->new_tokens != 1) [[unlikely]] {
            if (!tally_other<Validate>(*r, w, other, bounded)) {
                w.invalid = true;
                return w;
            }
        }
    }
    const uint64_t decodes = n - other.idle - other.chunks;
    const uint64_t tokens = decodes + other.chunk_tokens;
    if constexpr (Validate) {
        if (((contexts_seen >> 41) | (bits_seen & ~uint64_t{MFUSIM_REQUEST_NO_OUTPUT})) != 0 ||
            tokens > static_cast<uint64_t>(query::kMaxStepTokens) ||
            contexts > static_cast<uint64_t>(query::kMaxStepTokens)) {
            w.invalid = true;
            return w;
        }
    }
    const uint64_t decode_keys = contexts - other.idle_contexts - other.chunk_contexts + decodes;
    w.tokens = static_cast<int64_t>(tokens);
    w.outputs = static_cast<int64_t>((n - other.idle) - (no_outputs - other.idle_no_outputs));
    w.requests = static_cast<int64_t>(decodes + other.chunks);
    w.prefill_tokens = static_cast<int64_t>(other.chunk_tokens);
    w.prefill_span = static_cast<int64_t>(other.chunk_tokens + other.chunk_contexts);
    w.prefill_sequences = static_cast<double>(other.chunks);
    w.prefill_longest = static_cast<int64_t>(other.longest_chunk);
    w.first_chunks = static_cast<int64_t>(other.first);
    w.decode.requests = static_cast<double>(decodes);
    w.decode.kv_tokens = static_cast<double>(decode_keys);
    if (bounded) {
        bounded->decode = {w.decode.requests, static_cast<double>(windowed_keys - other.windowed_keys)};
        // Each decode query scores all its keys, read once for it.
        if (sparse_layers > 0) bounded->indexer_decode = {w.decode.requests, w.decode.kv_tokens, w.decode.kv_tokens};
    }
    return w;
}

// A prefill chunk's indexer work: each new token scores the cached context and the chunk's tokens up to its own
// (causal), and the chunk's keys are streamed once.
void RooflineModel::Impl::add_indexer_chunk(IndexerWork& work, int64_t new_tokens, int64_t context) {
    const double n = static_cast<double>(new_tokens), c = static_cast<double>(context);
    work.queries += n;
    work.pairs += n * c + 0.5 * n * (n + 1);
    work.keys_read += c + n;
}

// A prefill chunk in a layer whose queries read at most `window` keys. The tokens before position `window` read
// their whole causal prefix (an ordinary chunk); every later token reads exactly `window` keys, timed as pieces of
// up to `window` / 2 queries over a prefix of window - piece / 2 keys, which read `window` keys on average. The
// pieces of a long chunk are alike, so one is evaluated and scaled: the cost stays constant per request.
void RooflineModel::Impl::add_windowed_chunk(PrefillWork& work, int64_t new_tokens, int64_t context) const {
    const int64_t head = std::clamp<int64_t>(window - context, 0, new_tokens);
    if (head > 0) windowed_prefill.add_chunk(work, head, context);
    const int64_t rest = new_tokens - head;
    if (rest <= 0) return;
    const int64_t piece = std::min(rest, std::max<int64_t>(1, window / 2));
    const int64_t pieces = rest / piece, last = rest - pieces * piece;
    PrefillWork one;
    windowed_prefill.add_chunk(one, piece, std::max<int64_t>(0, window - piece / 2));
    work.add_copies(one, static_cast<double>(pieces));
    if (last > 0) windowed_prefill.add_chunk(work, last, std::max<int64_t>(0, window - last / 2));
}

StepWork RooflineModel::Impl::gather_mix(const StepMix& x, BoundedWork* bounded) const {
    StepWork w;
    const int64_t chunk = std::max<int64_t>(x.chunk_tokens, 0), chunks = chunk > 0 ? x.chunks : 0;
    const int64_t decodes = std::max<int64_t>(x.decodes, 0);
    for (int64_t i = 0; i < chunks; ++i) {
        prefill.add_chunk(w.prefill, chunk, x.chunk_context);
        if (bounded) {
            add_windowed_chunk(bounded->prefill, chunk, x.chunk_context);
            if (sparse_layers > 0) add_indexer_chunk(bounded->indexer_prefill, chunk, x.chunk_context);
        }
    }
    w.tokens = decodes + chunks * chunk;
    w.outputs = decodes + (x.chunk_outputs ? chunks : 0);
    w.requests = decodes + chunks;
    w.prefill_tokens = chunks * chunk;
    w.prefill_span = chunks * (chunk + x.chunk_context);
    w.prefill_sequences = static_cast<double>(chunks);
    w.prefill_longest = chunks > 0 ? chunk : 0;
    w.first_chunks = std::clamp<int64_t>(x.first_chunks, 0, chunks);
    if (x.busy_replicas > 0 && x.busy_replicas < memory.replicas) {
        // The other busy replicas hold this mix; the idle ones run the engines' one-token dummy batch.
        const int64_t group =
            dp_group_tokens(chunks > 0, x.busy_replicas * w.tokens, w.tokens, x.busy_replicas, memory.replicas);
        w.peer_tokens = static_cast<double>(group - w.tokens);
    } else if (x.peer_chunks >= 0 && memory.replicas > 1) {
        const int64_t peer_prefill = x.peer_chunks * chunk;
        const int64_t present = memory.replicas * decodes + chunks * chunk + peer_prefill;
        const int64_t group = dp_group_tokens(chunks + x.peer_chunks > 0, present, w.tokens + peer_prefill,
                                              memory.replicas, memory.replicas);
        w.peer_tokens = static_cast<double>(group - w.tokens);
    }
    w.decode.requests = static_cast<double>(decodes);
    w.decode.kv_tokens = static_cast<double>(decodes) * static_cast<double>(x.decode_context + 1);
    if (bounded) {
        bounded->decode = {w.decode.requests,
                           static_cast<double>(decodes) * static_cast<double>(std::min(x.decode_context + 1, window))};
        if (sparse_layers > 0) bounded->indexer_decode = {w.decode.requests, w.decode.kv_tokens, w.decode.kv_tokens};
    }
    return w;
}

// The engine's collective for this message: its custom one-/two-shot kernel up to its size limit, NCCL above.
// Below the limit the faster of the two answers (the limit is where the engines found NCCL to win), so the time
// never drops where the engine switches. `nccl_only`: a collective the engine always runs through NCCL (the MoE's
// gather and scatter of the group's tokens).
double RooflineModel::Impl::allreduce_us(double bytes, int64_t gpus, bool nccl_only) const {
    const int64_t group = gpus > 0 ? gpus : tp;
    const double nccl = attention_kernels->allreduce_time_us(bytes, group);
    if (nccl_only || bytes > engine.custom_allreduce_max_bytes) return nccl;
    return std::min(nccl, attention_kernels->custom_allreduce_time_us(bytes, group));
}

// The engine around the kernels (docs/engine.md): per step, per scheduled request, per layer (graphed or not),
// and the TP workers' synchronisation.
EngineUnits RooflineModel::Impl::engine_units(const StepWork& w) const {
    EngineUnits u;
    if (!engine_terms) return u;
    u.step = 1;
    if (w.tokens <= 0) return u;
    bool graphed = w.prefill.chunks == 0 && w.decode.requests <= static_cast<double>(engine.cuda_graph_max_batch);
    u.requests = static_cast<double>(w.requests);
    u.layers = engine_layers;
    u.eager_layers = graphed ? 0.0 : layers;
    u.eager_moe_layers = graphed ? 0.0 : moe_layers;
    u.tp_sync = memory.gpus > 1 ? 1.0 : 0.0;
    u.serial_steps = recurrent ? 1.0 : 0.0;
    return u;
}

double RooflineModel::Impl::engine_us(const StepWork& w) const {
    const EngineUnits u = engine_units(w);
    return u.step * engine.step_us + u.requests * engine.request_us + u.layers * engine.layer_us +
           u.eager_layers * engine.eager_layer_us + u.eager_moe_layers * engine.eager_moe_layer_us +
           u.tp_sync * engine.tp_sync_us + u.serial_steps * engine.serial_host_step_us;
}

template <bool Detail, bool Draft>
__attribute__((flatten)) double RooflineModel::Impl::evaluate(const StepWork& w, const BoundedWork* bounded,
                                                              mfusim_step_result* detail, double share) const {
    std::optional<Breakdown> b;
    if constexpr (Detail) b.emplace(*detail);
    double total = 0;
    if (w.tokens > 0) {
        const KernelModel* ak = attention_kernels;
        const gpu::GpuProfile& gpu = ak->gpu();
        const double attention_peak = ak->attention_peak_flops();
        const double bw = gpu.streaming_bandwidth_gbs() * 1e3 * gpu.memory_efficiency;
        auto rows_of = [&](Rows rows) -> int64_t {
            switch (rows) {
                case Rows::outputs:
                    return w.outputs;
                case Rows::prefill_span:
                    return w.prefill_span;
                case Rows::decodes:
                    return static_cast<int64_t>(w.decode.requests * w.decode.queries);
                case Rows::expert_rows:
                    // Routed experts see the tokens of every attention replica that feeds this GPU's experts:
                    // this replica's and its peers' (docs/simulate.md, "Attention-DP groups").
                    if (w.peer_tokens >= 0) return static_cast<int64_t>(static_cast<double>(w.tokens) + w.peer_tokens);
                    return static_cast<int64_t>(static_cast<double>(w.tokens) * moe_token_factor);
                default:
                    return w.tokens;
            }
        };
        for (const BoundEntry& e : entries) {
            // The layers this entry runs: all of them, or a drafter pass's share (its LM head whole).
            double layers_run = e.layers;
            if constexpr (Draft) {
                if (e.op != MFUSIM_OP_LM_HEAD) layers_run *= share;
            }
            switch (e.site) {
                case KernelSite::gemm:
                case KernelSite::grouped_gemm: {
                    const int64_t m = rows_of(e.rows);
                    if (m <= 0) break;
                    double t = e.gemm->time_us(m) * layers_run * e.scale;
                    total += t;
                    if constexpr (Detail) {
                        b->gemm(e.op, *e.gemm, m, layers_run, t, e.split_weights,
                                e.kernels->gemm_precision().peak_flops);
                    }
                    break;
                }
                case KernelSite::prefill_attention: {
                    // The layers that read all their context, then the windowed ones: same kernel.
                    if (e.rows == Rows::window_keys && !bounded) break;
                    const bool all = e.rows == Rows::all_keys;
                    const PrefillWork& pw = all ? w.prefill : bounded->prefill;
                    const PrefillAttentionSite& site = all ? prefill : windowed_prefill;
                    if (pw.chunks <= 0) break;
                    double per_layer = site.time_us(pw);
                    if (!all && plan.sparse_layers > 0 && plan.family == AttentionFamily::mla) {
                        // DSA: FlashMLA's sparse prefill is bound by its gathers of every query's selected keys
                        // (families.hpp); the windowed work's FLOPs count its (query, key) pairs.
                        const AttentionGeometry& g = site.geometry();
                        const double pairs = pw.flops / (2.0 * static_cast<double>(g.q_heads * (g.qk_dim + g.v_dim)));
                        per_layer = std::max(per_layer, sparse_prefill_gather_us(gpu, g.q_heads, g.qk_dim, pairs));
                    }
                    double t = per_layer * layers_run * e.scale;
                    total += t;
                    if constexpr (Detail) {
                        const AttentionGeometry& g = site.geometry();
                        double compute = pw.flops / (attention_peak * attention_tile_efficiency(gpu, g)) * 1e6;
                        b->add(e.op, t, pw.flops * layers_run, pw.bytes * layers_run,
                               roofline_bound(compute, pw.bytes / bw), site.provenance(pw), attention_peak);
                    }
                    break;
                }
                case KernelSite::decode_attention: {
                    if (e.rows == Rows::window_keys && !bounded) break;
                    const bool all = e.rows == Rows::all_keys;
                    const DecodeWork& dw = all ? w.decode : bounded->decode;
                    const DecodeAttentionSite& site = all ? decode : windowed_decode;
                    if (dw.requests <= 0) break;
                    double t = site.time_us(dw) * layers_run * e.scale;
                    total += t;
                    if constexpr (Detail) {
                        const AttentionGeometry& g = site.geometry();
                        double flops = decode_attention_flops(g, dw), bytes = decode_attention_bytes(g, dw);
                        double compute = flops / (attention_peak * gpu.attention_max_efficiency) * 1e6;
                        b->add(e.op, t, flops * layers_run, bytes * layers_run, roofline_bound(compute, bytes / bw),
                               site.provenance(dw), attention_peak);
                    }
                    break;
                }
                case KernelSite::indexer: {
                    // The indexer's scoring, under the attention op of its queries.
                    if (!bounded) break;
                    const IndexerWork& iw =
                        e.op == MFUSIM_OP_ATTN_PREFILL ? bounded->indexer_prefill : bounded->indexer_decode;
                    if (iw.queries <= 0) break;
                    double t = indexer_us(gpu, plan.indexer, indexer_peak, iw) * layers_run * e.scale;
                    total += t;
                    if constexpr (Detail) {
                        double flops = indexer_flops(plan.indexer, iw), bytes = indexer_bytes(plan.indexer, iw);
                        double compute = flops / (indexer_peak * gpu.attention_max_efficiency) * 1e6;
                        b->add(e.op, t, flops * layers_run, bytes * layers_run, roofline_bound(compute, bytes / bw),
                               OpProvenance{}, indexer_peak);
                    }
                    break;
                }
                case KernelSite::recurrent: {
                    // The recurrent-state core, whose cost depends on the tokens and requests of the step but not
                    // on their context.
                    const LinearAttentionSite& core = *e.core;
                    double core_prefill = core.prefill_us(static_cast<double>(w.prefill_tokens), w.prefill_sequences,
                                                          static_cast<double>(w.prefill_longest));
                    double core_decode = core.decode_us(w.decode.requests * w.decode.queries);
                    double t = (core_prefill + core_decode) * layers_run;
                    total += t;
                    if constexpr (Detail) {
                        const LinearAttentionGeometry& g = core.geometry();
                        LinearAttentionWork lw{static_cast<double>(w.prefill_tokens), w.prefill_sequences,
                                               w.decode.requests};
                        double flops = linear_attention_flops(g, lw), bytes = linear_attention_bytes(g, lw);
                        double compute = flops / (attention_peak * gpu.gdn_chunk_efficiency) * 1e6;
                        b->add(e.op, t, flops * layers_run, bytes * layers_run, roofline_bound(compute, bytes / bw),
                               core.provenance(core_prefill >= core_decode), attention_peak);
                    }
                    break;
                }
                case KernelSite::allreduce: {
                    const double per_token =
                        e.message_bytes_per_token > 0 ? e.message_bytes_per_token : plan.allreduce_bytes_per_token;
                    double message = per_token * static_cast<double>(rows_of(e.rows));
                    double t = layers_run * allreduce_us(message, e.group_gpus, e.nccl_only) * e.scale;
                    if (e.extend_allreduce && w.prefill_tokens > 0) t *= 2;
                    total += t;
                    if constexpr (Detail) {
                        b->add_formula(e.op, t, layers_run * message, MFUSIM_BOUND_COMMUNICATION);
                    }
                    break;
                }
                case KernelSite::all_to_all: {
                    double message = plan.all_to_all_bytes_per_token * static_cast<double>(w.tokens);
                    // Dispatch and combine.
                    double t;
                    if (deepep.gpus > 0) {
                        // SGLang's --deepep-mode auto (DeepEPMode.resolve): normal kernels when the batch extends
                        // (prefill) on any rank, low-latency ones for decode-only batches. A TP rank dispatches
                        // its 1/tp share of the replica's tokens.
                        DeepEpShape s = deepep;
                        s.tokens = static_cast<double>(w.tokens) / static_cast<double>(tp);
                        s.low_latency = w.prefill_tokens == 0;
                        t = layers_run * deepep_us(gpu, s) * e.scale;
                    } else {
                        t = 2.0 * layers_run * all_to_all_us(gpu, message, ep) * e.scale;
                    }
                    total += t;
                    if constexpr (Detail) {
                        b->add_formula(e.op, t, 2.0 * layers_run * message, MFUSIM_BOUND_COMMUNICATION);
                    }
                    break;
                }
                case KernelSite::elementwise: {
                    double elementwise = elementwise_us_per_token * static_cast<double>(w.tokens);
                    if constexpr (Draft) elementwise *= share;
                    total += elementwise;
                    if constexpr (Detail) {
                        b->add_formula(e.op, elementwise, elementwise * bw, MFUSIM_BOUND_MEMORY);
                    }
                    break;
                }
                case KernelSite::weights_only:
                    break;
            }
        }
        // The modality towers, once per request whose first chunk this step schedules (not in a drafter pass).
        if (!Draft && w.first_chunks > 0) {
            for (const auto& [tower, per_request] :
                 {std::pair<const EncoderCost*, double>{&encoder, images_per_request},
                  std::pair<const EncoderCost*, double>{&audio_encoder, clips_per_request}}) {
                if (per_request <= 0) continue;
                const double items = per_request * static_cast<double>(w.first_chunks);
                total += tower->total_us * items;
                if constexpr (Detail) {
                    for (int op = 0; op < MFUSIM_OP_COUNT; ++op) {
                        const EncoderOpCost& o = tower->ops[op];
                        if (o.time_us <= 0) continue;
                        b->add(static_cast<mfusim_op>(op), o.time_us * items, o.flops * items, o.bytes * items, o.bound,
                               OpProvenance{}, o.flops > 0 ? attention_peak : 0);
                    }
                }
            }
        }
    }
    // A drafter pass runs inside the step (graphed, no scheduling of its own): the per-layer term of its layers.
    double engine_time = Draft ? (engine_terms ? share * layers * engine.layer_us : 0.0) : engine_us(w);
    total += engine_time;
    // Host work overlapped with the GPU (docs/engine.md, "Overlapped host work"): the step waits for it only where it
    // is longer than everything on the GPU's path; what it adds is reported with the engine's terms.
    if (!Draft && engine_terms && w.tokens > 0) {
        const double host = engine.host_step_us + engine.host_request_us * static_cast<double>(w.requests);
        if (host > total) {
            engine_time += host - total;
            total = host;
        }
    }
    if constexpr (Detail) {
        b->add_formula(MFUSIM_OP_ENGINE, engine_time, 0, MFUSIM_BOUND_FIXED, MFUSIM_SOURCE_DEFAULT);
        b->finish(total);
    }
    return total;
}

namespace {

// Adds a drafter pass's breakdown into the step's: times, FLOPs and bytes add; each operation keeps the bound and
// provenance of its longer part; efficiencies are time-weighted (each is FLOPs at peak over time).
void add_breakdown(mfusim_step_result& into, const mfusim_step_result& part, double copies) {
    for (int op = 0; op < MFUSIM_OP_COUNT; ++op) {
        mfusim_op_detail& d = into.ops[op];
        const mfusim_op_detail& p = part.ops[op];
        const double time = d.time_us + copies * p.time_us;
        if (time > 0) d.efficiency = (d.efficiency * d.time_us + p.efficiency * copies * p.time_us) / time;
        if (copies * p.time_us > d.time_us) {
            d.bound = p.bound;
            d.source = p.source;
            d.distance = p.distance;
            std::memcpy(d.table, p.table, sizeof d.table);
        }
        d.time_us = time;
        d.flops += copies * p.flops;
        d.bytes += copies * p.bytes;
    }
    into.total_us += copies * part.total_us;
    int longest = 0;
    for (int op = 1; op < MFUSIM_OP_COUNT; ++op) {
        if (into.ops[op].time_us > into.ops[longest].time_us) longest = op;
    }
    into.bound = into.ops[longest].bound;
}

}  // namespace

// Speculative decoding, as vLLM v1 runs it (docs/speculative.md). The scheduler gives every running decode its k
// draft tokens to verify (vllm/v1/core/sched/scheduler.py: num_tokens_with_spec), so the target computes k + 1
// tokens per decode, attends with k + 1 queries over the request's keys, and takes logits at all of them for the
// rejection sampler. Then the proposer (vllm/v1/spec_decode/eagle.py, EagleProposer.propose, which also runs MTP)
// makes the next drafts: one pass of the draft layer over every token the target computed, sampling one token per
// request that produced one, then k - 1 passes of one token per such request.
// A draft model (drafter) runs the same passes whole, on its own geometry, as vLLM's DraftModelProposer does (a
// SpecDecodeBaseProposer: vllm/v1/spec_decode/draft_model.py).
template <bool Detail, class Regather>
double RooflineModel::Impl::speculative(StepWork w, BoundedWork* bounded, mfusim_step_result* detail,
                                        const Regather& regather) const {
    const int64_t k = speculation.tokens;
    const auto decodes = static_cast<int64_t>(w.decode.requests);
    const int64_t drafting = w.outputs;
    const double queries = static_cast<double>(k + 1);
    // The peers' decodes verify their drafts too: their tokens scale as this replica's (the same mix assumed).
    const double own_tokens = static_cast<double>(w.tokens);
    auto peers_at = [&](int64_t tokens) {
        return w.peer_tokens < 0 || own_tokens <= 0 ? w.peer_tokens
                                                    : w.peer_tokens * static_cast<double>(tokens) / own_tokens;
    };
    const double peers_verify = peers_at(w.tokens + decodes * k), peers_next = peers_at(drafting);
    w.peer_tokens = peers_verify;
    w.tokens += decodes * k;
    w.outputs += decodes * k;
    w.decode.queries = queries;
    // Every verifying decode attends with k + 1 queries, in the bounded layers too.
    auto verify = [&](BoundedWork* b) {
        if (!b) return;
        b->decode.queries = queries;
        b->indexer_decode.queries *= queries;
        b->indexer_decode.pairs *= queries;
    };
    verify(bounded);
    double total = evaluate<Detail>(w, bounded, detail);
    if ((draft_share <= 0 && !drafter) || drafting <= 0) return total;
    // Who drafts: a share of this model's layers (MTP, EAGLE), or the draft model whole, with its own window.
    const Impl& by = drafter ? *drafter->impl_ : *this;
    const double share = drafter ? 1.0 : draft_share;
    BoundedWork draft_own;
    BoundedWork* draft_bounded = drafter ? (by.window > 0 ? &draft_own : nullptr) : bounded;

    mfusim_step_result part{};
    part.struct_size = sizeof part;
    mfusim_step_result* part_detail = Detail ? &part : nullptr;
    // The first pass: every token of the step through the drafter, one sample per drafting request.
    StepWork first = w;
    if (drafter) {
        first = regather(by, draft_bounded);
        first.tokens += decodes * k;
        first.decode.queries = queries;
        verify(draft_bounded);
    }
    first.outputs = drafting;
    const double first_us = by.evaluate<Detail, true>(first, draft_bounded, part_detail, share);
    total += first_us;
    if constexpr (Detail) add_breakdown(*detail, part, 1);
    if (k <= 1) return total;
    // The k - 1 later passes: one token per drafting request over its keys (the mean of the step's requests).
    const double requests = static_cast<double>(decodes) + w.prefill_sequences;
    const double mean_keys = requests > 0 ? (w.decode.kv_tokens + static_cast<double>(w.prefill_span)) / requests : 1.0;
    StepWork next;
    next.tokens = drafting;
    next.peer_tokens = peers_next;
    next.outputs = drafting;
    next.requests = drafting;
    next.decode.requests = static_cast<double>(drafting);
    next.decode.kv_tokens = static_cast<double>(drafting) * mean_keys;
    BoundedWork next_bounded;
    if (draft_bounded) {
        next_bounded.decode = {next.decode.requests,
                               next.decode.requests * std::min(mean_keys, static_cast<double>(by.window))};
        if (by.sparse_layers > 0) {
            next_bounded.indexer_decode = {next.decode.requests, next.decode.kv_tokens, next.decode.kv_tokens};
        }
    }
    const double next_us = by.evaluate<Detail, true>(next, draft_bounded ? &next_bounded : nullptr, part_detail, share);
    total += static_cast<double>(k - 1) * next_us;
    if constexpr (Detail) add_breakdown(*detail, part, static_cast<double>(k - 1));
    return total;
}

// Binds every entry of the plan to a kernel site of this GPU, in plan order.
void RooflineModel::Impl::bind(const gpu::GpuProfile& gpu) {
    auto kernels_of = [&](WeightGroup g) {
        switch (g) {
            case WeightGroup::mlp:
                return mlp_kernels;
            case WeightGroup::experts:
                return expert_kernels;
            case WeightGroup::recurrent:
                return recurrent_kernels;
            default:
                return attention_kernels;
        }
    };
    const KernelModel& k = *attention_kernels;
    if (plan.attention) {
        prefill = k.prefill_site(plan.prefill, plan.family, plan.prefill_shape, tp);
        decode = k.decode_site(plan.decode, plan.family, plan.decode_shape, tp);
        windowed_prefill = prefill;
        windowed_decode = decode;
        if (plan.windowed_geometry) {
            AttentionGeometry wp = plan.windowed_prefill, wd = plan.windowed_decode;
            if (plan.sparse_layers > 0 && plan.family == AttentionFamily::mla) {
                // DSA: FlashMLA's sparse kernels compute whole blocks of query heads (the family model's padding).
                wp.q_heads = sparse_mla_heads(gpu, wp.q_heads);
                wd.q_heads = sparse_mla_heads(gpu, wd.q_heads);
            }
            windowed_prefill = k.prefill_site(wp, plan.family, plan.windowed_shape, tp);
            windowed_decode = k.decode_site(wd, plan.family, plan.windowed_shape, tp);
        }
    }
    // FP8 scoring where the GPU has FP8 tensor cores (DeepGEMM's MQA-logits kernels), else BF16; block-sparse
    // attention's indexer scores its bf16 keys in BF16.
    if (plan.sparse_layers > 0) {
        indexer_peak = (plan.indexer.fp8 && gpu.has_fp8() ? gpu.peak_fp8_tflops : gpu.peak_bf16_tflops) * 1e12;
    }
    for (const RecurrentCore& c : plan.recurrent) {
        cores.push_back(c.tabled ? k.linear_site(c.geometry, c.table_shape) : k.recurrent_site(c.geometry));
    }
    // Where the engine has no all-to-all for the group, it gathers the group's tokens: across NVLink domains without
    // DeepEP there (EngineProfile::deepep_across_domains 0: TensorRT-LLM's NVLink all-to-all needs one domain, and
    // without it its fused MoE all-gathers every replica's hidden states and reduce-scatters their outputs over NCCL),
    // and anywhere for an engine whose default is the gather (EngineProfile::moe_gather_within_domain: vLLM's
    // all2all_backend allgather_reducescatter). Each rank then receives every token of the group, not only those routed
    // to its experts, and the two collectives move what a ring all-reduce of the group's tokens moves. Inside a domain
    // an engine may also gather where its all-to-all would gain little: TensorRT-LLM before PR 8950 ran it only for an
    // EP group larger than the experts per token, with NVLink between every GPU
    // (EngineProfile::moe_alltoall_above_topk).
    const bool replicas_feed_ep = ep > 1 && moe_token_factor > 1;
    const bool spans = gpu.spans_domains(ep);
    const bool alltoall_declined =
        engines::moe_alltoall_above_topk_of(engine) && (ep <= model.experts_per_token || gpu.nvlink_bandwidth_gbs <= 0);
    const bool gather_group =
        replicas_feed_ep && plan.all_to_all_bytes_per_token > 0 &&
        (spans ? engine.deepep_across_domains <= 0 : engine.moe_gather_within_domain > 0 || alltoall_declined);
    if (replicas_feed_ep && gpu.nvlink_bandwidth_gbs > 0 && !gather_group &&
        (ep <= gpu.nvlink_domain_gpus || (spans && engine.deepep_across_domains > 0))) {
        // DeepEP's dispatch and combine where the engines run it: expert parallelism fed by attention data-parallel
        // replicas, each with tokens of its own (SGLang --enable-dp-attention --moe-a2a-backend deepep, vLLM's
        // data-parallel EP with --all2all-backend deepep_*). Its kernels were measured in one NVLink domain
        // (deepep_{ll,normal}_sglang.csv, 8 GPUs a node); across domains, for an engine that runs DeepEP there
        // (EngineProfile::deepep_across_domains), deepep_us adds their RDMA path: the NIC's share of the bytes and
        // the fabric's latency. Without an NVLink switch (PCIe cards, bridged pairs) an engine's all-to-all keeps
        // all_to_all_us.
        deepep.gpus = ep;
        deepep.hidden = model.expert_width();
        deepep.topk = model.experts_per_token;
        deepep.experts = physical_experts(model.num_experts, ep);
    }
    // What a gathered token carries (EngineProfile::moe_gather_quantized): BF16 hidden states, or the experts' input
    // format where the engine quantises before the gather (per-tensor FP8; NVFP4 where the GPU computes in FP4) plus
    // its top-k expert ids (int32) and weights (fp32). The reduce-scatter returns BF16 outputs. A ring all-gather
    // and reduce-scatter move (t - 1) / t of each message: the two halves of an all-reduce of their mean.
    const double bf16_bytes_per_token = plan.allreduce_bytes_per_token;  // the hidden state in BF16
    double gathered_bytes_per_token = bf16_bytes_per_token;
    if (engine.moe_gather_quantized > 0) {
        const double routing_bytes = 8.0 * static_cast<double>(model.experts_per_token);
        config::WeightFormat experts = config::WeightFormat::bf16;
        for (const PlanEntry& e : plan.entries) {
            if (e.site == KernelSite::grouped_gemm) experts = e.format;
        }
        double bytes_per_value = 2.0;  // BF16
        if (experts == config::WeightFormat::fp8 && gpu.has_fp8()) bytes_per_value = 1.0;
        if (experts == config::WeightFormat::nvfp4 && gpu.has_fp4()) bytes_per_value = 0.5 + 1.0 / 16;
        gathered_bytes_per_token = bf16_bytes_per_token * bytes_per_value / 2 + routing_bytes;
    }
    const double gather_message_bytes_per_token = (gathered_bytes_per_token + bf16_bytes_per_token) / 2;
    std::vector<std::size_t> gemm_of(plan.entries.size(), 0);
    for (std::size_t i = 0; i < plan.entries.size(); ++i) {
        const PlanEntry& e = plan.entries[i];
        const KernelModel* kernels = kernels_of(e.precision);
        if (e.site == KernelSite::gemm) {
            gemm_of[i] = gemm_sites.size();
            gemm_sites.push_back(kernels->gemm_site(e.k, e.n));
        } else if (e.site == KernelSite::grouped_gemm) {
            gemm_of[i] = gemm_sites.size();
            // The model's routing: every expert, the full top-k, the expert-parallel group (the entry's n is
            // already this GPU's share of an expert); random as served, the busiest rank setting the time
            // (families.hpp, moe_rank_load; docs/disagg.md, section 8).
            MoeShape routing;
            routing.random_routing = true;
            // Routed over the physical slots: a replicated expert's tokens split between its replicas.
            routing.experts = physical_experts(model.num_experts, ep);
            routing.topk = model.experts_per_token;
            routing.ep = ep;
            routing.gated = model.gated_mlp;
            routing.routing_alpha = routing_alpha;
            routing.format = e.format;
            // Attention replicas feeding expert parallelism, where the engine dispatches each token to the ranks of
            // its experts only (EngineProfile::moe_dispatch_to_rank).
            routing.dispatched =
                plan.all_to_all_bytes_per_token > 0 && engine.moe_dispatch_to_rank > 0 && !gather_group;
            // The engine's fused-MoE kernel where it is not the Triton default (EngineProfile::cutlass_moe).
            routing.cutlass = engine.cutlass_moe > 0;
            // MXFP4 experts with MXFP8 activations where the engine quantises them (EngineProfile::
            // mxfp4_moe_fp8_activations) and the experts run TRT-LLM-gen's MoE (Blackwell).
            routing.fp8_activations = w4a8_experts(engine, gpu, e.format);
            gemm_sites.push_back(kernels->grouped_site(routing, e.k, e.n, e.table_key, e.down_projection));
        }
    }
    for (std::size_t i = 0; i < plan.entries.size(); ++i) {
        const PlanEntry& e = plan.entries[i];
        if (e.layers <= 0 || e.site == KernelSite::weights_only) continue;
        BoundEntry b;
        b.site = e.site;
        b.rows = e.rows;
        b.split_weights = e.split_weights;
        b.op = abi_op(e.op);
        b.layers = e.layers;
        b.scale = op_scale[static_cast<std::size_t>(b.op)];
        b.message_bytes_per_token = e.message_bytes_per_token;
        b.group_gpus = e.group_gpus;
        if (e.site == KernelSite::all_to_all && gather_group) {
            b.site = KernelSite::allreduce;
            b.rows = Rows::expert_rows;
            b.group_gpus = tp * static_cast<int64_t>(std::llround(moe_token_factor));
        }
        // The MoE's gather and scatter of the group's tokens (here, or attention DP over MoE TP in the plan): NCCL's
        // all-gather and reduce-scatter (TensorRT-LLM's allgather / reducescatter, vLLM's all_gatherv /
        // reduce_scatterv over PyNccl), not the engine's custom all-reduce kernel.
        if (b.site == KernelSite::allreduce && e.op == OpId::ep_comm) {
            b.message_bytes_per_token = gather_message_bytes_per_token;
            b.nccl_only = true;
            b.extend_allreduce = engine.moe_gather_extend_allreduce > 0;
        }
        b.kernels = kernels_of(e.precision);
        if (e.site == KernelSite::gemm || e.site == KernelSite::grouped_gemm) b.gemm = &gemm_sites[gemm_of[i]];
        if (e.site == KernelSite::recurrent) b.core = &cores[e.core];
        entries.push_back(b);
    }
}

// ---------------------------------------------------------------------------------------------------------------
namespace {

std::string number_text(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g", v);
    return buf;
}

}  // namespace

KvCacheChoice resolve_kv_cache(const query::Deployment& deployment, const config::Quantization& checkpoint,
                               const engines::EngineProfile& engine) {
    if (deployment.fp8_kv) return {true, "deployment", "fp8 (as the deployment states)"};
    if (deployment.bf16_kv) return {false, "deployment", "bf16 (as the deployment states)"};
    const bool stated = checkpoint.kv_cache_fp8;
    const std::string engine_name = engine.name + (engine.version.empty() ? "" : " " + engine.version);
    if (stated && checkpoint.kv_cache_stated_by == config::KvCacheStatement::modelopt &&
        engines::follows_checkpoint_kv_cache(engine)) {
        return {true, "checkpoint",
                "fp8 (the checkpoint's " + checkpoint.kv_cache_key + ", which " + engine_name +
                    "'s default KV dtype takes)"};
    }
    if (stated) {
        return {false, "engine",
                "bf16 (" + engine_name + "'s default KV dtype; the checkpoint's FP8 " + checkpoint.kv_cache_key +
                    " applies only with --kv-quant fp8: docs/engine.md, \"The checkpoint's KV cache\")"};
    }
    return {false, "engine", "bf16 (the engine's default: the checkpoint states no KV-cache format)"};
}

RooflineModel::RooflineModel(const config::ModelConfig& model, const gpu::GpuProfile& gpu,
                             std::shared_ptr<const tables::BenchData> tables, const query::Deployment& deployment,
                             const engines::EngineProfile& engine, const std::string& quant,
                             const Efficiency& efficiency, const config::ModelConfig* draft_model)
    : impl_(std::make_unique<Impl>()) {
    Impl& m = *impl_;
    m.model = model;
    m.deployment = deployment;
    m.engine = engines::for_gpu_memory(engine, gpu.capacity_gb(),
                                       deployment.tensor_parallel * deployment.attention_data_parallel,
                                       deployment.attention_data_parallel);
    m.efficiency = efficiency;
    for (int op = 0; op < MFUSIM_OP_COUNT; ++op) {
        const double scale = efficiency[family_of(op)];
        if (!(std::isfinite(scale) && scale > 0)) {
            throw Error(Status::config, std::string("efficiency multiplier of ") + family_name(family_of(op)) +
                                            " must be a positive finite number");
        }
        m.op_scale[static_cast<std::size_t>(op)] = scale;
    }
    // The KV cache's format: the deployment's, else the checkpoint's where the engine's default follows it.
    m.kv_cache = resolve_kv_cache(deployment, model.quant, engine);
    m.deployment.fp8_kv = m.kv_cache.fp8;
    m.deployment.bf16_kv = !m.kv_cache.fp8;
    m.engine_terms = engine.name != "none";
    m.overlap = engines::overlap_scheduler_of(engine);
    const int64_t tp = deployment.tensor_parallel, dp = deployment.attention_data_parallel;
    const int64_t ep = deployment.expert_parallel;
    m.tp = tp;
    m.ep = ep;
    std::vector<std::string> warnings;
    if (tp < 1 || dp < 1 || ep < 1) {
        throw Error(Status::config, "tensor_parallel, attention_data_parallel and expert_parallel must be at least 1");
    }
    if (model.num_heads % tp != 0) {
        throw Error(Status::config, "tensor_parallel " + std::to_string(tp) + " does not divide num_attention_heads " +
                                        std::to_string(model.num_heads) + ": the attention heads cannot be sharded");
    }
    if (model.attention == config::AttentionKind::gqa && model.num_kv_heads >= tp && model.num_kv_heads % tp != 0) {
        throw Error(Status::config, "tensor_parallel " + std::to_string(tp) + " does not divide num_key_value_heads " +
                                        std::to_string(model.num_kv_heads) + ": the KV heads cannot be sharded");
    }
    if (model.compressed.present && model.compressed.o_lora_rank > 0 && model.compressed.o_groups % tp != 0) {
        throw Error(Status::config, "tensor_parallel " + std::to_string(tp) + " does not divide o_groups " +
                                        std::to_string(model.compressed.o_groups) +
                                        ": the grouped output projection cannot be sharded by group");
    }
    if (model.windowed_heads.heads > 0) {
        const config::HeadGeometry& g = model.windowed_heads;
        if (g.heads % tp != 0 || (g.kv_heads >= tp && g.kv_heads % tp != 0)) {
            throw Error(Status::config, "tensor_parallel " + std::to_string(tp) +
                                            " does not divide the sliding-window layers' heads (" +
                                            std::to_string(g.heads) + " query, " + std::to_string(g.kv_heads) +
                                            " KV): they cannot be sharded");
        }
    }
    const int64_t gpus = tp * dp;
    if (ep > 1) {
        if (!model.is_moe()) {
            throw Error(Status::config, "expert_parallel " + std::to_string(ep) + " needs a mixture-of-experts model");
        }
        if (gpus % ep != 0 || ep > model.num_experts) {
            throw Error(Status::config, "expert_parallel " + std::to_string(ep) + " must divide the GPUs (" +
                                            std::to_string(gpus) +
                                            " = tensor_parallel x attention_data_parallel) and be at most "
                                            "the routed experts (" +
                                            std::to_string(model.num_experts) + ")");
        }
        if (model.num_experts % ep != 0) {
            warnings.push_back("expert_parallel " + std::to_string(ep) + " does not divide the " +
                               std::to_string(model.num_experts) +
                               " routed experts: " + std::to_string(physical_experts(model.num_experts, ep)) +
                               " expert slots (the load balancer's redundant experts), " +
                               std::to_string(physical_experts(model.num_experts, ep) / ep) + " per GPU");
        }
    }

    // Weight formats: the checkpoint's, overridden by options.quant (or the older fp8_gemm flag).
    config::Quantization q = model.quant;
    if (deployment.fp8_gemm) {
        if (!gpu.has_fp8()) {
            throw Error(Status::config,
                        "fp8_gemm: GPU " + gpu.name + " has no FP8 tensor cores (peak_fp8_tflops is 0)");
        }
        q = q.overridden(config::WeightFormat::fp8);
    }
    if (!quant.empty()) {
        auto format = config::parse_weight_format(quant);
        if (!format) {
            throw Error(Status::unknown_name,
                        "quant '" + quant + "' is not a weight format (known: " + config::weight_format_names() + ")");
        }
        q = q.overridden(*format);
    }
    auto kernels_for = [&](config::WeightFormat format) -> const KernelModel* {
        KernelPrecision p = kernel_precision(format, gpu);
        for (std::size_t i = 0; i < m.kernel_models.size(); ++i) {
            const KernelModel& k = *m.kernel_models[i];
            if (k.gemm_dtype() == p.dtype && k.weight_bytes_override() == p.weight_bytes) return &k;
        }
        if (format != config::WeightFormat::bf16) {
            warnings.push_back("weights in " + describe(format, p) + " on " + gpu.name);
        }
        m.kernel_models.push_back(
            std::make_unique<KernelModel>(gpu, tables, p.dtype, m.deployment.fp8_kv, p.weight_bytes));
        if (m.kernel_models.size() == 1) {
            const auto& w = m.kernel_models.back()->warnings();
            warnings.insert(warnings.begin(), w.begin(), w.end());
        }
        return m.kernel_models.back().get();
    };
    // A block-FP8 expert shard the engine cannot load (EngineProfile::fp8_block_moe_shard_multiple): the
    // deployment as stated does not start, so it is refused, as the engine refuses it.
    if (const int64_t moe_tp = tp * dp / ep; !loads_expert_shards(m.engine, model, q.experts, moe_tp)) {
        throw Error(Status::config, "moe_intermediate_size " + std::to_string(model.moe_intermediate_size) +
                                        " over MoE tensor parallelism " + std::to_string(moe_tp) +
                                        " (tensor_parallel x attention_data_parallel / expert_parallel) leaves each "
                                        "GPU an expert shard that is not a multiple of " +
                                        std::to_string(m.engine.fp8_block_moe_shard_multiple) +
                                        ", the block-FP8 weights' block: engine '" + m.engine.name +
                                        "' refuses to load it (fp8_block_moe_shard_multiple); raise expert_parallel");
    }
    m.attention_kernels = kernels_for(q.attention);
    m.mlp_kernels = kernels_for(q.mlp);
    m.expert_kernels = kernels_for(q.experts);
    if (model.is_moe() && w4a8_experts(m.engine, gpu, q.experts)) {
        warnings.push_back("routed experts: MXFP4 weights x MXFP8 activations on FP8 tensor cores (W4A8), as engine '" +
                           m.engine.name + "' runs them on " + gpu.name + " (mxfp4_moe_fp8_activations)");
    }
    m.recurrent_kernels =
        model.linear_layer_count + model.mamba_layer_count > 0 ? kernels_for(q.recurrent) : m.attention_kernels;
    if (deployment.world_size > 1 || deployment.deepep || deployment.two_batch_overlap) {
        warnings.push_back(
            "world_size, deepep and two_batch_overlap are compat-mode options, ignored by the roofline model "
            "(use tensor_parallel, expert_parallel and attention_data_parallel)");
    }
    if (model.mamba_layer_count > 0 && model.mamba_num_heads % tp != 0) {
        throw Error(Status::config, "tensor_parallel " + std::to_string(tp) + " does not divide mamba_num_heads " +
                                        std::to_string(model.mamba_num_heads) + ": the Mamba2 heads cannot be sharded");
    }
    warnings.insert(warnings.end(), model.warnings.begin(), model.warnings.end());
    m.plan = plan_operations(model, Sharding{tp, ep, dp, m.deployment.fp8_kv}, q);
    const OperationPlan& plan = m.plan;
    warnings.insert(warnings.end(), plan.warnings.begin(), plan.warnings.end());
    m.layers = plan.layers;
    m.engine_layers = plan.layers + plan.extra_kernel_layers;
    m.recurrent = plan.recurrent_layers > 0;
    m.moe_layers = static_cast<double>(model.moe_layers());
    m.window = plan.window;
    m.sparse_layers = plan.sparse_layers;
    m.moe_token_factor = plan.moe_token_factor;
    m.routing_alpha = deployment.moe_routing_alpha;
    m.bind(gpu);
    m.memory.state_bytes_per_request = plan.state_bytes_per_request;
    m.elementwise_us_per_token =
        plan.elementwise_bytes_per_token() / (gpu.streaming_bandwidth_gbs() * 1e3 * gpu.memory_efficiency);
    const double weights = plan.weight_bytes();
    m.memory.weight_bytes = weights;
    // Step times of a deployment that cannot exist stay answerable (what-if studies of larger GPUs), but never
    // silently: the serving estimate and `plan` refuse it outright.
    if (weights > gpu.memory_bytes()) {
        warnings.push_back("weights take " + number_text(weights / gpu::GpuProfile::kGiB) +
                           " GiB per GPU, more than the " + number_text(gpu.capacity_gb()) + " GiB of one " + gpu.name +
                           ": no engine can run this deployment (serving estimates refuse it); use more GPUs "
                           "(tensor/expert parallel) or smaller weights");
    }
    const double kv_layer = model.kv_bytes_per_token_per_layer(plan.kv_element_bytes, tp);
    // DSA layers keep every token (the indexer may select any of them), so they count as unbounded here.
    const double held_windowed = plan.windowed_layers - plan.sparse_layers;
    m.memory.kv_bytes_per_token = (plan.unbounded_layers + plan.sparse_layers) * kv_layer;
    m.memory.windowed_kv_bytes_per_token =
        held_windowed * (plan.windowed_geometry ? plan.windowed_decode.kv_bytes_per_token : kv_layer);
    m.memory.kv_window = held_windowed > 0 ? m.window : 0;
    if (plan.compressed_kv) {
        // Compressed attention states its caches per kind (operation_plan.hpp).
        m.memory.kv_bytes_per_token = plan.compressed_kv_bytes_per_token;
        m.memory.windowed_kv_bytes_per_token = plan.window_kv_bytes_per_token;
        m.memory.kv_window = m.window;
    }
    m.memory.gpus = gpus;
    m.memory.replicas = dp;

    // Speculative decoding: a drafter with layers (MTP, EAGLE) is one more layer of weights and of KV cache (its
    // own attention keeps the context), timed as the mean layer of this model (docs/speculative.md).
    if (deployment.speculation.drafter == query::Drafter::mtp && model.mtp_layers <= 0) {
        throw Error(Status::config,
                    "speculative mtp: the model has no multi-token-prediction layers "
                    "(num_nextn_predict_layers is 0 or absent); use eagle, ngram or no drafter");
    }
    m.speculation = deployment.speculation;
    // As vLLM's SpeculativeConfig: MTP drafts as many tokens as the model has MTP layers unless told otherwise.
    if (m.speculation.drafter == query::Drafter::mtp && m.speculation.tokens == 0) {
        m.speculation.tokens = model.mtp_layers;
    }
    const query::Speculation& spec = m.speculation;
    query::validate(spec);
    if (spec.active() && (spec.drafter == query::Drafter::mtp || spec.drafter == query::Drafter::eagle) &&
        m.layers > 0) {
        m.draft_share = 1.0 / m.layers;
        m.memory.weight_bytes += weights * m.draft_share;
        m.memory.kv_bytes_per_token += kv_layer;
    }
    if (spec.drafter == query::Drafter::draft_model) {
        if (draft_model == nullptr) {
            throw Error(Status::invalid_argument, "speculative.draft_model: the draft model was not loaded");
        }
        // The draft model as vLLM deploys it: the target's tensor parallelism (draft_tensor_parallel_size
        // defaults to it), its own layers unsharded by experts, its checkpoint's own quantization, no drafting.
        query::Deployment drafting;
        drafting.tensor_parallel = tp;
        drafting.world_size = tp;
        drafting.fp8_kv = m.deployment.fp8_kv;
        drafting.bf16_kv = !m.deployment.fp8_kv;
        m.drafter = std::make_shared<const RooflineModel>(*draft_model, gpu, tables, drafting, engine, "", efficiency);
        const std::string named = spec.draft_model.starts_with('{') ? "(given as JSON)" : spec.draft_model;
        const Impl& d = *m.drafter->impl_;
        // Its passes gather their own windowed work (regather); sparse top-k and compressed attention are not
        // timed as a draft (no small model drafts with them).
        if (d.sparse_layers > 0 || draft_model->compressed.present) {
            throw Error(Status::unsupported, "speculative.draft_model: " + named +
                                                 " has sparse or compressed attention layers, which draft passes do "
                                                 "not time; use a draft model with full or sliding-window attention");
        }
        // It holds its weights, and its own KV cache and state for every running request. Its windowed layers
        // hold their window where it is the target's (or the target has none); under another window they are
        // counted whole, an upper bound, as the memory model keeps one window.
        m.memory.weight_bytes += d.memory.weight_bytes;
        m.memory.kv_bytes_per_token += d.memory.kv_bytes_per_token;
        m.memory.state_bytes_per_request += d.memory.state_bytes_per_request;
        if (d.memory.kv_window > 0 && (m.memory.kv_window == 0 || m.memory.kv_window == d.memory.kv_window)) {
            m.memory.kv_window = d.memory.kv_window;
            m.memory.windowed_kv_bytes_per_token += d.memory.windowed_kv_bytes_per_token;
        } else {
            m.memory.kv_bytes_per_token += d.memory.windowed_kv_bytes_per_token;
        }
        warnings.push_back("speculative decoding: the draft model " + named + " drafts " + std::to_string(spec.tokens) +
                           " tokens per step at tensor parallel " + std::to_string(tp));
    }
    // The vision tower for the workload's images, at BF16 (vLLM loads vision towers unquantized unless the
    // checkpoint quantizes them; docs/architectures.md).
    query::validate(deployment.images);
    if (deployment.images.active()) {
        if (!model.vision.present) {
            throw Error(Status::config,
                        "images per request: the model has no vision tower (no vision_config in its config)");
        }
        if (!model.vision.unsupported.empty()) {
            throw Error(Status::unsupported, "images per request: " + model.vision.unsupported);
        }
        const config::EncoderGrid grid =
            config::image_grid(model.vision, deployment.images.width, deployment.images.height);
        const Impl& self = m;
        m.encoder = encoder_cost(model.vision, grid, *kernels_for(config::WeightFormat::bf16), tp,
                                 [&self](double bytes) { return self.allreduce_us(bytes); });
        m.images_per_request = static_cast<double>(deployment.images.per_request);
        // The tower's BF16 weights, sharded with the blocks. Without images vLLM can skip loading it
        // (--limit-mm-per-prompt of 0: language-model-only mode), so it is held only when images are served.
        m.memory.weight_bytes += config::encoder_params(model.vision) * 2.0 / static_cast<double>(tp);
        warnings.push_back("vision tower: " + std::to_string(deployment.images.per_request) + " image(s) of " +
                           std::to_string(deployment.images.width) + "x" + std::to_string(deployment.images.height) +
                           " per request, " + std::to_string(grid.patches) + " patches and " +
                           std::to_string(grid.tokens) + " image tokens each (counted in the prompt), " +
                           number_text(m.encoder.total_us / 1000) +
                           " ms per image, added to the step of each request's first chunk; analytical model");
    }
    // The audio tower for the workload's audio, at BF16 and replicated on every GPU: vLLM builds Qwen2-Audio's
    // tower as Transformers' Qwen2AudioEncoder (plain nn.Linear, no tensor parallelism; qwen2_audio.py).
    query::validate(deployment.audio);
    if (deployment.audio.active()) {
        if (!model.audio.present) {
            throw Error(Status::config,
                        "audio seconds per request: the model has no audio tower (no audio_config in its config)");
        }
        if (!model.audio.unsupported.empty()) {
            throw Error(Status::unsupported, "audio seconds per request: " + model.audio.unsupported);
        }
        const config::EncoderGrid grid = config::audio_grid(model.audio, deployment.audio.seconds_per_request);
        m.audio_encoder =
            encoder_cost(model.audio, grid, *kernels_for(config::WeightFormat::bf16), 1, [](double) { return 0.0; });
        m.clips_per_request = 1;
        m.memory.weight_bytes += config::encoder_params(model.audio) * 2.0;
        warnings.push_back("audio tower: " + number_text(deployment.audio.seconds_per_request) +
                           " s of audio per request, " + std::to_string(grid.patches) + " encoder positions and " +
                           std::to_string(grid.tokens) + " audio tokens (counted in the prompt), " +
                           number_text(m.audio_encoder.total_us / 1000) +
                           " ms per request, added to the step of each request's first chunk; analytical model");
    }
    if (spec.drafter == query::Drafter::mtp) {
        std::erase_if(warnings, [](const std::string& w) { return w.starts_with("num_nextn_predict_layers "); });
        warnings.push_back("speculative decoding: the multi-token-prediction layer drafts " +
                           std::to_string(spec.tokens) + " tokens per step, timed as one mean layer of the model");
    }

    // Provenance decided at load time for the attention kernels, in words.
    auto describe_site = [&](const char* what, const OpProvenance& p) {
        if (p.source == MFUSIM_SOURCE_ANALYTICAL) {
            warnings.push_back(std::string(what) + ": no table covers this shape on " + gpu.name +
                               "; analytical efficiency model");
        } else if (p.source == MFUSIM_SOURCE_TABLE_NEAREST && p.distance > 0) {
            warnings.push_back(std::string(what) + ": nearest table " + *p.table + " at " + number_text(p.distance) +
                               " octaves");
        }
    };
    if (plan.full_layers > 0) {
        PrefillWork probe;
        m.prefill.add_chunk(probe, 1024, 0);
        describe_site("prefill attention", m.prefill.provenance(probe));
        describe_site("decode attention", m.decode.provenance(DecodeWork{16, 16 * 1024}));
    }
    for (const std::string& line : warnings) m.warnings += (m.warnings.empty() ? "" : "\n") + line;
}

RooflineModel::~RooflineModel() = default;
RooflineModel::RooflineModel(RooflineModel&&) noexcept = default;
RooflineModel& RooflineModel::operator=(RooflineModel&&) noexcept = default;

namespace {

// A validating gather found a request out of range: validate_requests names it.
[[noreturn]] void reject(const mfusim_request* requests, std::size_t n) {
    query::validate_requests(requests, n);
    throw Error(Status::invalid_argument, "a request is out of range");  // unreachable: the same checks
}

}  // namespace

template <bool Detail, bool Validate>
double RooflineModel::Impl::step(const mfusim_request* requests, std::size_t n, mfusim_step_result* detail,
                                 double peer_tokens) const {
    auto regather = [&](const Impl& other, BoundedWork* b) { return other.gather(requests, n, b); };
    if (window <= 0) {
        StepWork w = gather<Validate>(requests, n, nullptr);
        if (Validate && w.invalid) reject(requests, n);
        w.peer_tokens = peer_tokens;
        return evaluate_step<Detail>(w, nullptr, detail, regather);
    }
    BoundedWork bounded;
    StepWork w = gather<Validate>(requests, n, &bounded);
    if (Validate && w.invalid) reject(requests, n);
    w.peer_tokens = peer_tokens;
    return evaluate_step<Detail>(w, &bounded, detail, regather);
}

template <bool Detail>
double RooflineModel::Impl::mix(const StepMix& x, mfusim_step_result* detail) const {
    auto regather = [&](const Impl& other, BoundedWork* b) { return other.gather_mix(x, b); };
    if (window <= 0) return evaluate_step<Detail>(gather_mix(x, nullptr), nullptr, detail, regather);
    BoundedWork bounded;
    const StepWork w = gather_mix(x, &bounded);
    return evaluate_step<Detail>(w, &bounded, detail, regather);
}

double RooflineModel::step_time_us(const mfusim_request* requests, std::size_t n) const {
    return impl_->step<false>(requests, n, nullptr);
}

double RooflineModel::step_time_us(const mfusim_request* requests, std::size_t n, int64_t peer_tokens) const {
    if (peer_tokens < 0) throw Error(Status::invalid_argument, "peer_tokens must be at least 0");
    return impl_->step<false>(requests, n, nullptr, static_cast<double>(peer_tokens));
}

double RooflineModel::checked_step_time_us(const mfusim_request* requests, std::size_t n) const {
    // Past 2^20 requests the pass's integer sums could overflow before its final check: validate first.
    if ((n > 0 && requests == nullptr) || n >= (std::size_t{1} << 20)) {
        query::validate_requests(requests, n);
        return impl_->step<false>(requests, n, nullptr);
    }
    return impl_->step<false, true>(requests, n, nullptr);
}

void RooflineModel::step_detail(const mfusim_request* requests, std::size_t n, mfusim_step_result& out) const {
    impl_->step<true>(requests, n, &out);
}

double RooflineModel::mix_time_us(const StepMix& mix, mfusim_step_result* detail) const {
    return detail ? impl_->mix<true>(mix, detail) : impl_->mix<false>(mix, nullptr);
}

const KvCacheChoice& RooflineModel::kv_cache() const {
    return impl_->kv_cache;
}
const engines::EngineProfile& RooflineModel::engine() const {
    return impl_->engine;
}
bool RooflineModel::overlaps_scheduling() const {
    return impl_->overlap && !(impl_->recurrent && impl_->engine.serial_host_step_us > 0);
}
const Efficiency& RooflineModel::efficiency() const {
    return impl_->efficiency;
}
EngineUnits RooflineModel::engine_units(const mfusim_request* requests, std::size_t n) const {
    return impl_->engine_units(impl_->gather(requests, n, nullptr));
}
double RooflineModel::encoder_us_per_request() const {
    return impl_->encoder.total_us * impl_->images_per_request +
           impl_->audio_encoder.total_us * impl_->clips_per_request;
}

const EncoderCost& RooflineModel::encoder_per_audio() const {
    return impl_->audio_encoder;
}

const EncoderCost& RooflineModel::encoder_per_image() const {
    return impl_->encoder;
}

const query::Speculation& RooflineModel::speculation() const {
    return impl_->speculation;
}
const MemoryFacts& RooflineModel::memory() const {
    return impl_->memory;
}
const gpu::GpuProfile& RooflineModel::gpu() const {
    return impl_->attention_kernels->gpu();
}
const std::string& RooflineModel::load_warnings() const {
    return impl_->warnings;
}

query::Report RooflineModel::estimate(const query::Scenario& s) const {
    query::Report report;
    const Impl& m = *impl_;
    if (s.input_len < 1) throw Error(Status::invalid_argument, "input_len must be at least 1");
    if (s.output_len < 0) throw Error(Status::invalid_argument, "output_len must not be negative");
    if (s.max_prefill_tokens < 1) throw Error(Status::invalid_argument, "max_prefill_tokens must be at least 1");
    const double tp = static_cast<double>(m.deployment.tensor_parallel);
    mfusim_step_result detail{};
    detail.struct_size = sizeof detail;

    auto add_ops = [&](const char* phase, const mfusim_step_result& r, double scale, bool accumulate) {
        for (int op = 0; op < MFUSIM_OP_COUNT; ++op) {
            std::string name = std::string(phase) + "." + query::op_name(op) + "_us";
            const double* prior = report.find(name);
            double value = r.ops[op].time_us * scale + (accumulate && prior ? *prior : 0.0);
            report.set(name, value);
        }
    };

    // Prefill is evaluated chunk by chunk and the decode batch is materialised: both are bounded so that a hostile
    // scenario cannot run for hours or allocate terabytes.
    constexpr int64_t kMaxPrefillSteps = int64_t{1} << 16;
    constexpr int64_t kMaxDecodeBatch = int64_t{1} << 20;
    if (s.phases != query::Phases::decode_only) {
        if ((s.input_len - 1) / s.max_prefill_tokens + 1 > kMaxPrefillSteps) {
            throw Error(Status::unsupported, "a prefill of " + std::to_string(s.input_len) + " tokens in chunks of " +
                                                 std::to_string(s.max_prefill_tokens) +
                                                 " is more than 2^16 steps; raise max_prefill_tokens");
        }
        double total_us = 0;
        int64_t steps = 0;
        for (int64_t done = 0; done < s.input_len; done += s.max_prefill_tokens) {
            mfusim_request r{std::min(s.max_prefill_tokens, s.input_len - done), done, 0u, 0u};
            if (done + r.new_tokens < s.input_len) r.flags = MFUSIM_REQUEST_NO_OUTPUT;
            m.step<true>(&r, 1, &detail);
            total_us += detail.total_us;
            add_ops("prefill", detail, 1.0, steps > 0);
            ++steps;
        }
        double ttft_ms = total_us / 1000;
        report.set("prefill.max_prefill_tokens", static_cast<double>(s.max_prefill_tokens));
        report.set("prefill.steps", static_cast<double>(steps));
        report.set("prefill.ttft_ms", ttft_ms);
        report.set("prefill.throughput_tgs_tok_gpu_s", static_cast<double>(s.input_len) / tp / (ttft_ms / 1000));
    }
    if (s.phases != query::Phases::prefill_only) {
        int64_t batch = s.decode_batch;
        if (batch < 0) {
            const double b = std::ceil(s.target_tgs * s.target_tpot_ms / 1000.0);
            if (!(b >= 0 && b <= static_cast<double>(kMaxDecodeBatch))) {
                throw Error(Status::invalid_argument,
                            "the default decode batch ceil(target_tgs * target_tpot_ms / 1000) is not a number "
                            "between 1 and 2^20; give decode_batch");
            }
            batch = static_cast<int64_t>(b);
        }
        if (batch < 1) throw Error(Status::invalid_argument, "decode batch must be at least 1");
        if (batch > kMaxDecodeBatch) {
            throw Error(Status::unsupported, "a decode batch of " + std::to_string(batch) +
                                                 " requests: roofline estimates evaluate at most 2^20");
        }
        int64_t context = s.input_len + s.output_len / 2;
        StepMix mix;
        mix.decodes = batch;
        mix.decode_context = context;
        m.mix<true>(mix, &detail);
        double tpot_ms = detail.total_us / 1000;
        report.set("decode.batch_size", static_cast<double>(batch));
        report.set("decode.context", static_cast<double>(context));
        add_ops("decode", detail, 1.0, false);
        report.set("decode.attn_core_mfu", detail.ops[MFUSIM_OP_ATTN_DECODE].efficiency);
        report.set("decode.tpot_ms", tpot_ms);
        report.set("decode.throughput_tgs_tok_gpu_s", static_cast<double>(batch) / tp / (tpot_ms / 1000));
        if (tpot_ms > s.target_tpot_ms) {
            report.warnings.push_back("decode: TPOT " + std::to_string(tpot_ms) + " ms exceeds the target " +
                                      std::to_string(s.target_tpot_ms) + " ms");
        }
    }
    std::sort(report.warnings.begin(), report.warnings.end());
    report.warnings.erase(std::unique(report.warnings.begin(), report.warnings.end()), report.warnings.end());
    return report;
}

bool loads_expert_shards(const engines::EngineProfile& engine, const config::ModelConfig& model,
                         config::WeightFormat experts, int64_t moe_tp) {
    const int64_t multiple = engine.fp8_block_moe_shard_multiple;
    if (!model.is_moe() || experts != config::WeightFormat::fp8_block || multiple <= 0 || moe_tp <= 1) return true;
    return model.moe_intermediate_size % moe_tp == 0 && (model.moe_intermediate_size / moe_tp) % multiple == 0;
}

}  // namespace mfusim::roofline
