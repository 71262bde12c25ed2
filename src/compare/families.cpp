#include "compare/families.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <tuple>

#include "common/error.hpp"
#include "common/files.hpp"
#include "common/hash.hpp"
#include "compare/columns.hpp"
#include "config/model_config.hpp"
#include "config/model_source.hpp"
#include "tables/csv.hpp"

namespace mfusim::compare {

namespace {

using roofline::LinearAttentionGeometry;

// One family's rows. Several kernels measured at the same shape (vLLM's MoE backends, DeepEP's SM counts) keep
// the fastest: the backend an engine tuned for the shape would pick; the report compares one time per shape.
struct Collected {
    std::string family;
    std::vector<MeasuredRow> rows;
    std::map<std::string, std::size_t> by_shape;
    void add(MeasuredRow r, const std::string& shape_key) {
        r.half = split_of(family, shape_key);
        auto [it, fresh] = by_shape.emplace(r.shape, rows.size());
        if (fresh) {
            rows.push_back(std::move(r));
        } else if (r.measured_us < rows[it->second].measured_us) {
            // The fastest kernel measured for the shape stands for it, with what its row says of that kernel
            // (a MoE row's Marlin flag).
            rows[it->second] = std::move(r);
        }
    }
};

std::string num(int64_t v) {
    return std::to_string(v);
}

// AIConfigurator's moe_dtype spellings; nullopt: not a format the library models.
std::optional<config::WeightFormat> moe_format(std::string_view dtype) {
    if (dtype == "w4a16_mxfp4" || dtype == "w4a8_mxfp4_mxfp8") return config::WeightFormat::mxfp4;
    return config::parse_weight_format(dtype);
}

constexpr int64_t kMaxExperts = 65536;

// "balanced" or "power_law_<alpha>".
std::optional<double> routing_alpha(std::string_view d) {
    if (d == "balanced") return 0.0;
    constexpr std::string_view prefix = "power_law_";
    if (d.substr(0, prefix.size()) != prefix) return std::nullopt;
    std::string rest(d.substr(prefix.size()));
    char* end = nullptr;
    double a = std::strtod(rest.c_str(), &end);
    if (end == rest.c_str() || *end != '\0' || !(a > 0) || !std::isfinite(a)) return std::nullopt;
    return a;
}

void parse_moe(const tables::CsvText& text, Collected& out, std::map<std::string, int>& skipped,
               const std::vector<MoeRouter>& routers) {
    Header h(text, {"kernel_source", "moe_dtype", "num_tokens", "hidden_size", "inter_size", "topk", "num_experts",
                    "moe_tp_size", "moe_ep_size", "distribution", "latency"});
    for (std::size_t i = 1; i < text.lines.size(); ++i) {
        tables::CsvFieldReader f(text, text.lines[i]);
        std::string dtype(f.text(h["moe_dtype"], "moe_dtype"));
        std::string dist(f.text(h["distribution"], "distribution"));
        auto format = moe_format(dtype);
        auto alpha = routing_alpha(dist);
        if (!format || !alpha) {
            ++skipped["moe_dtype " + dtype + " / distribution " + dist];
            continue;
        }
        roofline::MoeShape s;
        s.tokens = static_cast<double>(bounded(f, h["num_tokens"], "num_tokens"));
        s.hidden = bounded(f, h["hidden_size"], "hidden_size");
        s.inter = bounded(f, h["inter_size"], "inter_size");
        s.topk = bounded(f, h["topk"], "topk");
        // The load model walks the experts one by one: a bound far above any model's (DeepSeek 256, Kimi 384).
        s.experts = f.integer_at_most(h["num_experts"], "num_experts", kMaxExperts);
        s.tp = bounded(f, h["moe_tp_size"], "moe_tp_size");
        s.ep = bounded(f, h["moe_ep_size"], "moe_ep_size");
        s.format = *format;
        s.fp8_activations = dtype == "w4a8_mxfp4_mxfp8";
        s.routing_alpha = *alpha;
        s.marlin = f.text(h["kernel_source"], "kernel_source").find("marlin") != std::string_view::npos;
        s.cutlass = f.text(h["kernel_source"], "kernel_source").find("flashinfer_cutlass") != std::string_view::npos;
        // `vllm_fused_moe` is the label of AIConfigurator's collector before #876 (collector/vllm/collect_moe.py
        // `source = "vllm_fused_moe"`), whose power-law rounding crowds onto the last EP rank (MoeShape).
        s.power_law_global_fill = f.text(h["kernel_source"], "kernel_source") == "vllm_fused_moe";
        // Only the collector that builds vLLM's FusedMoE layer (vLLM 0.24's collect_moe.py; its kernel_source names
        // the experts class, e.g. ..._trtllmbf16experts) builds a model's own activation; the one before it called
        // fused_experts with gate and up weights for every model (kernel_source vllm_fused_moe and the like).
        const bool model_layer = f.text(h["kernel_source"], "kernel_source").find("experts") != std::string_view::npos;
        double ms = f.number(h["latency"], "latency");
        if (!(s.tokens > 0) || s.hidden <= 0 || s.inter <= 0 || s.topk <= 0 || s.experts <= 0 || s.tp <= 0 ||
            s.ep <= 0 || s.experts % s.ep != 0 || s.topk > s.experts || !(ms > 0)) {
            continue;
        }
        std::string key = "h=" + num(s.hidden) + " i=" + num(s.inter) + " k=" + num(s.topk) + "/" + num(s.experts) +
                          " tp=" + num(s.tp) + " ep=" + num(s.ep) + " " + dtype + " " + dist;
        MeasuredRow r;
        r.shape = "t=" + num(static_cast<int64_t>(s.tokens)) + " " + key;
        r.measured_us = ms * 1000;
        r.tokens = static_cast<int64_t>(s.tokens);
        r.moe = s;
        for (const MoeRouter& router : routers) {
            if (router.hidden == s.hidden && router.inter == s.inter && router.topk == s.topk &&
                router.experts == s.experts) {
                s.expert_groups = router.groups;
                s.topk_groups = router.topk_groups;
                if (model_layer) r.moe.gated = router.gated;  // the load does not depend on it
            }
        }
        r.moe_load = roofline::moe_rank_load(s);
        out.add(std::move(r), key);
    }
}

// DeepSeek-V3's (and V3.2's) attention, the model the module files measure (their `model` column): hidden 7168,
// q_lora_rank 1536, kv_lora_rank 512, rope 64, nope 128, v 128; V3.2's indexer 64 heads of 128, top-2048
// (config.json of deepseek-ai/DeepSeek-V3 and V3.2). Rows of another model are skipped.
roofline::MlaShape deepseek_mla(int64_t heads, bool sparse) {
    roofline::MlaShape s;
    s.hidden = 7168;
    s.q_lora = 1536;
    s.kv_lora = 512;
    s.rope = 64;
    s.nope = 128;
    s.v = 128;
    s.heads = heads;
    if (sparse) {
        s.index_heads = 64;
        s.index_dim = 128;
        s.index_topk = 2048;
    }
    return s;
}

// The reorder_batch_threshold of the vLLM MLA backend a kernel file names (AIConfigurator's kernel_source): small
// prefills up to it run the absorbed decode path (roofline::MlaShape::decode_path_max_tokens). FlashAttention MLA
// 512 (vllm/v1/attention/backends/mla/flashattn_mla.py), FlashMLA 128 (flashmla.py), the others (Triton MLA,
// FlashInfer MLA, CUTLASS MLA) one token. The module files (vLLM 0.24, collect_mla_module.py) are measured with
// their small prefills on the prefill path (H100, FLASH_ATTN_MLA: 64 x 512 tokens, 128 heads, 24.9 ms, the
// prefill model's 24.5 ms; the decode path would add 5 ms): they keep one token.
int64_t kernel_decode_path_max_tokens(std::string_view kernel_source) {
    if (kernel_source == "vllm_flash_attn_mla") return 512;
    if (kernel_source == "vllm_flashmla") return 128;
    return 1;
}

// mla_{context,generation}_vllm (module), dsa_* (module), mla_*_kernel_vllm (kernel alone).
void parse_mla(const tables::CsvText& text, Collected& out, bool decode, bool sparse, bool module,
               std::map<std::string, int>& skipped) {
    std::vector<std::string> columns{"kv_cache_dtype", "num_heads", "batch_size", "isl", "step", "latency"};
    if (module) {
        columns.push_back("model");
        columns.push_back("gemm_type");
    } else {
        columns.push_back("kernel_source");
    }
    Header h(text, columns);
    for (std::size_t i = 1; i < text.lines.size(); ++i) {
        tables::CsvFieldReader f(text, text.lines[i]);
        if (module) {
            std::string_view model = f.text(h["model"], "model");
            if (model.find(sparse ? "DeepSeek-V3.2" : "DeepSeek-V3") == std::string_view::npos) {
                ++skipped["model " + std::string(model)];
                continue;
            }
        }
        std::string gemm = module ? std::string(f.text(h["gemm_type"], "gemm_type")) : "bfloat16";
        std::string kv(f.text(h["kv_cache_dtype"], "kv_cache_dtype"));
        auto format = config::parse_weight_format(gemm);
        if (!format || (kv != "bfloat16" && kv != "fp8" && kv != "float16")) {
            ++skipped["gemm_type " + gemm + " / kv_cache_dtype " + kv];
            continue;
        }
        int64_t heads = bounded(f, h["num_heads"], "num_heads"), batch = bounded(f, h["batch_size"], "batch_size");
        int64_t isl = bounded(f, h["isl"], "isl"), step = bounded(f, h["step"], "step");
        double ms = f.number(h["latency"], "latency");
        if (heads <= 0 || batch <= 0 || step < 0 || (!decode && isl <= 0) || !(ms > 0)) continue;
        MeasuredRow r;
        r.mla = deepseek_mla(heads, sparse);
        r.mla.gemm = *format;
        r.mla.fp8_kv = kv == "fp8";
        if (!module) {
            const std::string_view source = f.text(h["kernel_source"], "kernel_source");
            r.mla.decode_path_max_tokens = kernel_decode_path_max_tokens(source);
            r.mla.flashmla = source == "vllm_flashmla";
        }
        // Decode rows: `step` tokens of history before the new one (attention files' convention).
        r.mla_batch = decode ? roofline::MlaBatch{batch, 1, step, true} : roofline::MlaBatch{batch, isl, step, false};
        std::string key = "b=" + num(batch) + " h=" + num(heads) + " " + gemm + " kv=" + kv;
        r.shape = (decode ? "kv=" + num(step + 1) : "isl=" + num(isl) + " prefix=" + num(step)) + " " + key;
        r.measured_us = ms * 1000;
        r.batch = batch;
        r.heads = heads;
        out.add(std::move(r), key);
    }
}

// Gated DeltaNet (gdn_vllm) and Mamba2 (mamba2_trtllm) rows: one kernel each. The causal convolutions of both go to
// `conv`, the chunked and recurrent scans to `context` / `generation`.
void parse_recurrent(const tables::CsvText& text, bool mamba, Collected& conv, Collected& context,
                     Collected& generation, std::map<std::string, int>& skipped) {
    std::vector<std::string> columns{"kernel_source", "phase", "batch_size", "seq_len", "d_conv", "latency"};
    const std::vector<std::string> gdn{"num_k_heads", "head_k_dim", "num_v_heads", "head_v_dim"};
    const std::vector<std::string> m2{"d_state", "nheads", "head_dim", "n_groups", "chunk_size"};
    columns.insert(columns.end(), mamba ? m2.begin() : gdn.begin(), mamba ? m2.end() : gdn.end());
    Header h(text, columns);
    for (std::size_t i = 1; i < text.lines.size(); ++i) {
        tables::CsvFieldReader f(text, text.lines[i]);
        std::string kernel(f.text(h["kernel_source"], "kernel_source"));
        std::string phase(f.text(h["phase"], "phase"));
        const bool decode = phase == "generation";
        if (!decode && phase != "context") {
            ++skipped["phase " + phase];
            continue;
        }
        LinearAttentionGeometry g;
        g.conv_kernel = bounded(f, h["d_conv"], "d_conv");
        if (mamba) {
            g.key_heads = bounded(f, h["n_groups"], "n_groups");
            g.score_heads = g.key_heads;
            g.key_dim = bounded(f, h["d_state"], "d_state");
            g.value_heads = bounded(f, h["nheads"], "nheads");
            g.value_dim = bounded(f, h["head_dim"], "head_dim");
            g.state_products = 2;
            g.chunk_products = 1;
            g.chunk = bounded(f, h["chunk_size"], "chunk_size");
        } else {
            g.key_heads = bounded(f, h["num_k_heads"], "num_k_heads");
            g.key_dim = bounded(f, h["head_k_dim"], "head_k_dim");
            g.value_heads = bounded(f, h["num_v_heads"], "num_v_heads");
            g.value_dim = bounded(f, h["head_v_dim"], "head_v_dim");
            g.flashinfer_prefill = true;
        }
        int64_t batch = bounded(f, h["batch_size"], "batch_size"), seq = bounded(f, h["seq_len"], "seq_len");
        double ms = f.number(h["latency"], "latency");
        if (g.key_heads <= 0 || g.value_heads <= 0 || g.key_dim <= 0 || g.value_dim <= 0 || g.conv_kernel <= 0 ||
            g.chunk <= 0 || batch <= 0 || seq <= 0 || !(ms > 0)) {
            continue;
        }
        const bool is_conv = kernel.rfind("causal_conv1d", 0) == 0;
        if (!is_conv && mamba) {
            ++skipped["kernel " + kernel];
            continue;
        }
        std::string key = std::string(mamba ? "mamba2 " : "gdn ") + phase + " b=" + num(batch) +
                          " heads=" + num(g.key_heads) + "x" + num(g.key_dim) + "/" + num(g.value_heads) + "x" +
                          num(g.value_dim);
        MeasuredRow r;
        r.shape = "s=" + num(seq) + " " + key;
        r.measured_us = ms * 1000;
        r.batch = batch;
        r.tokens = decode ? 1 : seq;
        r.decode_kernel = decode;
        r.recurrent = g;
        // mamba2_trtllm times TensorRT-LLM's CUDA conv (one CTA per sequence and channel), gdn_vllm vLLM's Triton one.
        r.conv_kernel = mamba ? roofline::ConvKernel::channel_ctas : roofline::ConvKernel::token_blocks;
        (is_conv ? conv : decode ? generation : context).add(std::move(r), key);
    }
}

void parse_deepep(const tables::CsvText& text, bool low_latency, Collected& out) {
    std::vector<std::string> columns{"node_num", "hidden_size", "num_token", "num_topk", "num_experts"};
    if (low_latency) {
        columns.insert(columns.end(), {"dispatch_avg_t_us", "combine_avg_t_us"});
    } else {
        columns.insert(columns.end(),
                       {"dispatch_transmit_us", "dispatch_notify_us", "combine_transmit_us", "combine_notify_us"});
    }
    Header h(text, columns);
    for (std::size_t i = 1; i < text.lines.size(); ++i) {
        tables::CsvFieldReader f(text, text.lines[i]);
        roofline::DeepEpShape s;
        int64_t nodes = bounded(f, h["node_num"], "node_num");
        s.hidden = bounded(f, h["hidden_size"], "hidden_size");
        s.tokens = static_cast<double>(bounded(f, h["num_token"], "num_token"));
        s.topk = bounded(f, h["num_topk"], "num_topk");
        s.experts = bounded(f, h["num_experts"], "num_experts");
        s.low_latency = low_latency;
        // DeepEP's intranode ranks: the 8 GPUs of one node (its NUM_MAX_NVL_PEERS).
        s.gpus = nodes * 8;
        double us = low_latency ? f.number(h["dispatch_avg_t_us"], "dispatch_avg_t_us") +
                                      f.number(h["combine_avg_t_us"], "combine_avg_t_us")
                                : f.number(h["dispatch_transmit_us"], "dispatch_transmit_us") +
                                      f.number(h["dispatch_notify_us"], "dispatch_notify_us") +
                                      f.number(h["combine_transmit_us"], "combine_transmit_us") +
                                      f.number(h["combine_notify_us"], "combine_notify_us");
        if (nodes <= 0 || s.hidden <= 0 || !(s.tokens > 0) || s.topk <= 0 || s.experts <= 0 || !(us > 0)) continue;
        std::string key = "nodes=" + num(nodes) + " h=" + num(s.hidden) + " k=" + num(s.topk) + "/" + num(s.experts);
        MeasuredRow r;
        r.shape = "t=" + num(static_cast<int64_t>(s.tokens)) + " " + key;
        r.measured_us = us;
        r.tokens = static_cast<int64_t>(s.tokens);
        r.gpus = s.gpus;
        r.deepep = s;
        out.add(std::move(r), key);
    }
}

constexpr const char* kFamilies[] = {"moe",
                                     "mla_context",
                                     "mla_generation",
                                     "mla_context_kernel",
                                     "mla_generation_kernel",
                                     "dsa_context",
                                     "dsa_generation",
                                     "gdn_context",
                                     "gdn_generation",
                                     "causal_conv",
                                     "deepep_low_latency",
                                     "deepep_normal"};

}  // namespace

bool is_large_model_family(const std::string& family) {
    return std::find(std::begin(kFamilies), std::end(kFamilies), family) != std::end(kFamilies);
}

std::vector<MoeRouter> read_moe_routers(const std::string& dir) {
    if (!is_directory(dir)) throw Error(Status::io, dir + ": not a directory of model configs");
    std::vector<std::string> paths;
    std::error_code ec;
    for (auto it = std::filesystem::directory_iterator(dir, ec); !ec && it != std::filesystem::directory_iterator();
         it.increment(ec)) {
        const std::string file = it->path().filename().string();
        const std::string tail = "_config.json";
        if (paths.size() < 10000 && file.size() > tail.size() &&
            file.compare(file.size() - tail.size(), tail.size(), tail) == 0 &&
            file.find("hf_quant_config") == std::string::npos) {
            paths.push_back(it->path().string());
        }
    }
    std::sort(paths.begin(), paths.end());  // the directory's order is the file system's
    std::map<std::array<int64_t, 4>, std::set<std::tuple<int64_t, int64_t, bool>>> by_shape;
    for (const std::string& path : paths) {
        config::ModelConfig m;
        try {
            m = config::parse_model_config(config::resolve_model_source(path));
        } catch (const Error& e) {
            // An architecture the library refuses by name: its router is not needed here. A malformed file is an
            // error, named by the parser.
            if (e.status() == Status::unsupported) continue;
            throw;
        }
        if (!m.is_moe()) continue;
        // The collector benchmarks a latent MoE (Nemotron-3 Super) at its latent width (its cases' hidden_size).
        by_shape[{m.expert_width(), m.moe_intermediate_size, m.experts_per_token, m.num_experts}].insert(
            {m.expert_groups, m.topk_groups, m.gated_mlp});
    }
    std::vector<MoeRouter> routers;
    for (const auto& [shape, kinds] : by_shape) {
        if (kinds.size() != 1) continue;
        const auto [groups, topk_groups, gated] = *kinds.begin();
        if (groups <= 1 && gated) continue;  // what a row without a router takes already
        routers.push_back({shape[0], shape[1], shape[2], shape[3], groups, topk_groups, gated});
    }
    return routers;
}

void read_large_model_families(const std::string& dir, MeasuredKernels& measured, std::string& identity,
                               const std::vector<MoeRouter>& routers) {
    std::map<std::string, Collected> families;
    for (const char* name : kFamilies) families[name].family = name;
    const char* files[] = {"moe_vllm.csv",
                           "mla_context_vllm.csv",
                           "mla_generation_vllm.csv",
                           "mla_context_kernel_vllm.csv",
                           "mla_generation_kernel_vllm.csv",
                           "dsa_context_vllm.csv",
                           "dsa_generation_vllm.csv",
                           "gdn_vllm.csv",
                           "mamba2_trtllm.csv",
                           "deepep_ll_sglang.csv",
                           "deepep_normal_sglang.csv"};
    for (const char* file : files) {
        const std::string path = dir + "/" + file;
        if (!is_regular_file(path)) continue;
        tables::CsvText text = tables::read_csv_file(path);
        MeasuredFile m{file, text.bytes.size(), fnv1a64_hex(text.bytes)};
        identity += m.file + " " + m.fnv1a64 + "\n";
        measured.files.push_back(std::move(m));
        std::map<std::string, int> skipped;
        const std::string f = file;
        if (f == "moe_vllm.csv") parse_moe(text, families["moe"], skipped, routers);
        if (f == "mla_context_vllm.csv") parse_mla(text, families["mla_context"], false, false, true, skipped);
        if (f == "mla_generation_vllm.csv") parse_mla(text, families["mla_generation"], true, false, true, skipped);
        if (f == "mla_context_kernel_vllm.csv") {
            parse_mla(text, families["mla_context_kernel"], false, false, false, skipped);
        }
        if (f == "mla_generation_kernel_vllm.csv") {
            parse_mla(text, families["mla_generation_kernel"], true, false, false, skipped);
        }
        if (f == "dsa_context_vllm.csv") parse_mla(text, families["dsa_context"], false, true, true, skipped);
        if (f == "dsa_generation_vllm.csv") parse_mla(text, families["dsa_generation"], true, true, true, skipped);
        if (f == "gdn_vllm.csv" || f == "mamba2_trtllm.csv") {
            parse_recurrent(text, f == "mamba2_trtllm.csv", families["causal_conv"], families["gdn_context"],
                            families["gdn_generation"], skipped);
        }
        if (f == "deepep_ll_sglang.csv") parse_deepep(text, true, families["deepep_low_latency"]);
        if (f == "deepep_normal_sglang.csv") parse_deepep(text, false, families["deepep_normal"]);
        for (const auto& [what, count] : skipped) {
            measured.notes.push_back(f + ": " + std::to_string(count) + " rows with " + what +
                                     " not modelled; skipped");
        }
    }
    for (const char* name : kFamilies) {
        Collected& c = families[name];
        if (!c.rows.empty()) measured.families.push_back({c.family, std::move(c.rows)});
    }
}

double predict_large_model_row(const std::string& family, const MeasuredRow& r, const gpu::GpuProfile& gpu) {
    if (family == "moe") return roofline::fused_moe_us(gpu, r.moe, r.moe_load);
    if (family == "mla_context_kernel" || family == "mla_generation_kernel") {
        return roofline::mla_attention_us(gpu, r.mla, r.mla_batch);
    }
    if (family.rfind("mla_", 0) == 0 || family.rfind("dsa_", 0) == 0) {
        return roofline::mla_module_us(gpu, r.mla, r.mla_batch);
    }
    if (family == "causal_conv") {
        return roofline::causal_conv_us(gpu, r.recurrent, r.batch, r.tokens, r.decode_kernel, r.conv_kernel);
    }
    if (family == "gdn_context" || family == "gdn_generation") {
        return roofline::recurrent_scan_us(gpu, r.recurrent, r.batch, r.tokens, r.decode_kernel);
    }
    if (family == "deepep_low_latency" || family == "deepep_normal") return roofline::deepep_us(gpu, r.deepep);
    throw Error(Status::internal, "compare: no prediction for family '" + family + "'");
}

}  // namespace mfusim::compare
