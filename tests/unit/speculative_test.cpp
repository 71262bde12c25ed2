// Speculative decoding (docs/speculative.md): the accepted-length formula, the verify step against a plain decode,
// the drafter's cost, and serving and simulated TPOT against the acceptance rate.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cmath>

#include "common/error.hpp"
#include "config/catalogue.hpp"
#include "config/model_config.hpp"
#include "config/model_source.hpp"
#include "engines/engine_profile.hpp"
#include "serving/serving.hpp"
#include "simulate/closed_loop.hpp"
#include "simulate/simulator.hpp"
#include "support/roofline_steps.hpp"

namespace mfusim::roofline {
namespace {

// The catalogue's DeepSeek-V3 with the one MTP layer its published config declares.
config::ModelConfig mtp_model() {
    auto entry = config::find_catalogue_model("deepseek-v3");
    EXPECT_TRUE(entry.has_value());
    nlohmann::json j = nlohmann::json::parse(entry ? std::string(entry->config_json) : std::string("{}"));
    j["num_nextn_predict_layers"] = 1;
    return config::parse_model_config(config::resolve_model_source(j.dump()));
}

RooflineModel deepseek(const query::Speculation& spec = {}) {
    query::Deployment d;
    d.tensor_parallel = 8;
    d.expert_parallel = 8;
    d.speculation = spec;
    return RooflineModel(mtp_model(), gpu::resolve_gpu("H200"), nullptr, d, engines::resolve_engine("vllm"));
}

query::Speculation spec(query::Drafter drafter, int64_t k, double a) {
    query::Speculation s;
    s.drafter = drafter;
    s.tokens = k;
    s.acceptance_rate = a;
    return s;
}

double decode_step(const RooflineModel& m, int64_t batch, int64_t context) {
    StepMix mix;
    mix.decodes = batch;
    mix.decode_context = context;
    return m.mix_time_us(mix);
}

TEST(Speculative, ExpectedTokensIsTheGeometricSum) {
    EXPECT_DOUBLE_EQ(query::expected_tokens(0, 3), 1);
    EXPECT_DOUBLE_EQ(query::expected_tokens(1, 3), 4);
    // 1 + a + a^2 + a^3 at a = 0.5.
    EXPECT_DOUBLE_EQ(query::expected_tokens(0.5, 3), 1.875);
    double last = 0;
    for (double a : {0.1, 0.3, 0.5, 0.7, 0.9}) {
        EXPECT_GT(query::expected_tokens(a, 2), last);
        last = query::expected_tokens(a, 2);
    }
    query::Speculation s = spec(query::Drafter::eagle, 3, 0.5);
    EXPECT_DOUBLE_EQ(s.tokens_per_step(), 1.875);
    s.mean_accepted_length = 2.5;
    EXPECT_DOUBLE_EQ(s.tokens_per_step(), 2.5);
}

// No drafts (k = 0) and no drafter give the plain step bit for bit, on every path.
TEST(Speculative, NoDraftsIsAPlainDecodeStep) {
    const RooflineModel plain = deepseek();
    const RooflineModel none = deepseek(spec(query::Drafter::eagle, 0, 0));
    std::vector<mfusim_request> step = {{1, 4000, 0, 0}, {1, 900, 0, 0}, {512, 0, 0, 0}};
    EXPECT_EQ(plain.step_time_us(step.data(), step.size()), none.step_time_us(step.data(), step.size()));
    EXPECT_EQ(decode_step(plain, 48, 2048), decode_step(none, 48, 2048));
    EXPECT_EQ(plain.memory().weight_bytes, none.memory().weight_bytes);
}

// A verify step computes k + 1 tokens per decode: dearer than a decode, but far below k + 1 decode steps while the
// step is bound by reading the weights and the KV cache (the point of speculative decoding).
TEST(Speculative, VerifyStepCostsLessThanItsTokensAsDecodes) {
    const RooflineModel plain = deepseek();
    for (int64_t k : {1, 3}) {
        const RooflineModel verify = deepseek(spec(query::Drafter::ngram, k, 0.7));
        for (int64_t batch : {1, 8, 32}) {
            const double one = decode_step(plain, batch, 2048), v = decode_step(verify, batch, 2048);
            EXPECT_GT(v, one) << k << " " << batch;
            // MoE: the extra tokens route to more experts, so less is saved than in a dense model.
            EXPECT_LT(v, 0.75 * static_cast<double>(k + 1) * one) << k << " " << batch;
        }
    }
}

// The MTP layer drafts k tokens: one pass over the step's tokens and k - 1 passes of one token per request, each
// about one layer of the model (1/61 of DeepSeek-V3's layers) plus its LM head.
TEST(Speculative, MtpDraftCostsAboutOneLayerPerDraftToken) {
    const RooflineModel plain = deepseek();
    const double layer = decode_step(plain, 16, 2048) / 61;
    for (int64_t k : {1, 2, 3}) {
        const double draft = decode_step(deepseek(spec(query::Drafter::mtp, k, 0.7)), 16, 2048) -
                             decode_step(deepseek(spec(query::Drafter::ngram, k, 0.7)), 16, 2048);
        EXPECT_GT(draft, 0.5 * static_cast<double>(k) * layer) << k;
        EXPECT_LT(draft, 3.0 * static_cast<double>(k) * layer) << k;
    }
}

// One evaluator: the breakdown's total, and the sum of its operations, is the step time, drafts included.
void expect_detail_adds_up(const RooflineModel& m) {
    const std::vector<mfusim_request> step = {{1, 4000, 0, 0}, {1, 900, 0, 0}, {256, 100, 0, 0}};
    const mfusim_step_result d = testing::step_detail(m, step);
    const double t = m.step_time_us(step.data(), step.size());
    EXPECT_NEAR(d.total_us, t, 1e-9 * t);
    double sum = 0;
    for (int op = 0; op < MFUSIM_OP_COUNT; ++op) sum += d.ops[op].time_us;
    EXPECT_NEAR(sum, t, 1e-9 * t);
}

TEST(Speculative, DetailTotalIsTheStepTime) {
    expect_detail_adds_up(deepseek(spec(query::Drafter::mtp, 2, 0.7)));
}

serving::Workload workload(int64_t concurrency) {
    serving::Workload w;
    w.input_len = 1024;
    w.output_len = 256;
    w.concurrency = concurrency;
    return w;
}

TEST(Speculative, ServingTpotFallsAsAcceptanceRises) {
    for (int64_t c : {1, 16, 64}) {
        mfusim_serving_result plain{};
        plain.struct_size = sizeof plain;
        serving::estimate(deepseek(), workload(c), plain);
        double last = INFINITY;
        for (double a : {0.2, 0.4, 0.6, 0.8, 0.95}) {
            mfusim_serving_result r{};
            r.struct_size = sizeof r;
            serving::estimate(deepseek(spec(query::Drafter::mtp, 2, a)), workload(c), r);
            EXPECT_LT(r.tpot_ms, last) << c << " " << a;
            // Its steps verify and draft: dearer than plain decode steps.
            EXPECT_GT(r.decode_step_ms, plain.decode_step_ms) << c << " " << a;
            last = r.tpot_ms;
        }
        // At high acceptance speculation wins; its steps are dearer than plain ones.
        EXPECT_LT(last, plain.tpot_ms) << c;
    }
}

TEST(Speculative, SimulatedTpotFallsAsAcceptanceRisesAndMatchesTheClosedForm) {
    double last = INFINITY;
    for (double a : {0.3, 0.6, 0.9}) {
        const RooflineModel m = deepseek(spec(query::Drafter::mtp, 2, a));
        const serving::Workload w = workload(16);
        simulate::Options o = simulate::closed_loop_benchmark(m.engine(), w);
        const simulate::Result sim = simulate::simulate(m, o);
        EXPECT_EQ(sim.total_output_tokens, sim.completed * 256);
        EXPECT_LT(sim.tpot_ms.mean, last) << a;
        last = sim.tpot_ms.mean;
        mfusim_serving_result closed{};
        closed.struct_size = sizeof closed;
        serving::estimate(m, w, closed);
        EXPECT_NEAR(sim.tpot_ms.mean, closed.tpot_ms, 0.25 * closed.tpot_ms) << a;
    }
}

// The tokens one verify step accepts reach the client as one streamed chunk: one inter-token latency each, never
// zeros for the tokens after the first, so ITL counts chunks (as vLLM bench takes it) and exceeds TPOT.
TEST(Speculative, AcceptedTokensStreamAsOneChunk) {
    const RooflineModel m = deepseek(spec(query::Drafter::mtp, 2, 0.9));
    simulate::Options o = simulate::closed_loop_benchmark(m.engine(), workload(16));
    const simulate::Result sim = simulate::simulate(m, o);
    int64_t chunks = 0;
    for (const auto& [ms, count] : sim.itl_values) {
        EXPECT_GT(ms, 0);
        chunks += count;
    }
    const int64_t gaps = sim.completed * (256 - 1);
    EXPECT_GT(chunks, 0);
    EXPECT_LT(chunks, gaps * 2 / 3);  // (1 - 0.9^3) / (1 - 0.9) = 2.71 tokens per chunk on average
    EXPECT_GT(sim.itl_ms.mean, 2 * sim.tpot_ms.mean);
}

TEST(Speculative, RefusesWhatCannotBe) {
    // MTP needs the model's MTP layers.
    query::Deployment d;
    d.speculation = spec(query::Drafter::mtp, 1, 0.7);
    auto entry = config::find_catalogue_model("qwen3-8b");
    ASSERT_TRUE(entry.has_value());
    const config::ModelConfig qwen = config::parse_model_config(config::resolve_model_source(entry->config_json));
    try {
        RooflineModel m(qwen, gpu::resolve_gpu("H100"), nullptr, d);
        FAIL() << "no MTP layers";
    } catch (const Error& e) {
        EXPECT_EQ(e.status(), Status::config);
        EXPECT_NE(std::string(e.what()).find("num_nextn_predict_layers"), std::string::npos);
    }
    auto invalid = [](query::Speculation s, const char* field) {
        try {
            query::validate(s);
            ADD_FAILURE() << field;
        } catch (const Error& e) {
            EXPECT_EQ(e.status(), Status::invalid_argument);
            EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << e.what();
        }
    };
    invalid(spec(query::Drafter::eagle, 3, 1.5), "acceptance_rate");
    invalid(spec(query::Drafter::eagle, 17, 0.5), "num_speculative_tokens");
    invalid(spec(query::Drafter::eagle, 3, 0), "acceptance_rate");
    query::Speculation longer = spec(query::Drafter::eagle, 2, 0);
    longer.mean_accepted_length = 3.5;
    invalid(longer, "mean_accepted_length");
    invalid(spec(query::Drafter::none, 2, 0.5), "need a drafter");
}

// The draft_model drafter (vLLM's DraftModelProposer): a dense 70B target on 4 H100s drafted by an 8B model at the
// same tensor parallelism.
RooflineModel llama70b(const query::Speculation& s = {}, const std::string& draft = "llama-3.1-8b-instruct") {
    query::Deployment d;
    d.tensor_parallel = 4;
    d.world_size = 4;
    d.speculation = s;
    if (s.drafter == query::Drafter::draft_model) d.speculation.draft_model = draft;
    const config::ModelConfig target =
        config::parse_model_config(config::resolve_model_source("llama-3.1-70b-instruct"));
    const config::ModelConfig drafter = config::parse_model_config(config::resolve_model_source(draft));
    return RooflineModel(target, gpu::resolve_gpu("H100"), nullptr, d, engines::resolve_engine("vllm"), "", {},
                         &drafter);
}

RooflineModel llama8b_tp4() {
    query::Deployment d;
    d.tensor_parallel = 4;
    d.world_size = 4;
    return RooflineModel(config::parse_model_config(config::resolve_model_source("llama-3.1-8b-instruct")),
                         gpu::resolve_gpu("H100"), nullptr, d, engines::resolve_engine("vllm"));
}

// Its k passes each run the draft model whole: the first over the step's verified tokens, the k - 1 later ones one
// token per request. Each costs about a decode step of the draft model, less the step's own scheduling terms (the
// passes run inside the target's step), and the verify step is the one any drafter makes.
TEST(Speculative, DraftModelCostsAboutOneDraftDecodePerDraftToken) {
    const double small = decode_step(llama8b_tp4(), 16, 2048);
    for (int64_t k : {1, 2, 4}) {
        const double verify = decode_step(llama70b(spec(query::Drafter::ngram, k, 0.7)), 16, 2048);
        const double draft = decode_step(llama70b(spec(query::Drafter::draft_model, k, 0.7)), 16, 2048) - verify;
        EXPECT_GT(draft, 0.5 * static_cast<double>(k) * small) << k;
        EXPECT_LT(draft, 1.2 * static_cast<double>(k) * small) << k;
        // Far dearer than an EAGLE head (one layer of the 70B, 1/80 of it) drafting as many tokens.
        const double eagle = decode_step(llama70b(spec(query::Drafter::eagle, k, 0.7)), 16, 2048) - verify;
        EXPECT_GT(draft, 2 * eagle) << k;
    }
    // Prefill chunks in the step pass through the draft model too (its KV cache needs them).
    const RooflineModel drafted = llama70b(spec(query::Drafter::draft_model, 2, 0.7));
    const RooflineModel ngram = llama70b(spec(query::Drafter::ngram, 2, 0.7));
    std::vector<mfusim_request> decodes = {{1, 4000, 0, 0}, {1, 900, 0, 0}};
    std::vector<mfusim_request> mixed = {{1, 4000, 0, 0}, {1, 900, 0, 0}, {2048, 0, 0, 0}};
    const double extra =
        [&](const std::vector<mfusim_request>& s) {
            return drafted.step_time_us(s.data(), s.size()) - ngram.step_time_us(s.data(), s.size());
        }(mixed) -
        (drafted.step_time_us(decodes.data(), decodes.size()) - ngram.step_time_us(decodes.data(), decodes.size()));
    EXPECT_GT(extra, 0);
}

// It holds its own weights and KV cache on every GPU, sharded as the target's; the detail adds up to the step.
TEST(Speculative, DraftModelHoldsItsWeightsAndCacheAndItsDetailAddsUp) {
    const RooflineModel plain = llama70b();
    const RooflineModel small = llama8b_tp4();
    const RooflineModel drafted = llama70b(spec(query::Drafter::draft_model, 3, 0.7));
    EXPECT_DOUBLE_EQ(drafted.memory().weight_bytes, plain.memory().weight_bytes + small.memory().weight_bytes);
    EXPECT_DOUBLE_EQ(drafted.memory().kv_bytes_per_token,
                     plain.memory().kv_bytes_per_token + small.memory().kv_bytes_per_token);
    expect_detail_adds_up(drafted);
    // The closed form's step of the same composition takes the same draft passes.
    EXPECT_GT(decode_step(drafted, 8, 1024), decode_step(llama70b(spec(query::Drafter::ngram, 3, 0.7)), 8, 1024));
}

TEST(Speculative, DraftModelRefusesWhatItCannotTime) {
    auto refused = [](const query::Speculation& s, Status status, const char* field) {
        try {
            query::validate(s);
            llama70b(s);
            ADD_FAILURE() << field;
        } catch (const Error& e) {
            EXPECT_EQ(e.status(), status) << e.what();
            EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << e.what();
        }
    };
    // The drafter without its model, and a model for another drafter.
    query::Speculation missing = spec(query::Drafter::draft_model, 2, 0.7);
    refused(missing, Status::invalid_argument, "draft_model");
    query::Speculation other = spec(query::Drafter::eagle, 2, 0.7);
    other.draft_model = "llama-3.1-8b-instruct";
    refused(other, Status::invalid_argument, "draft_model");
    // A draft model with sparse (DSA) layers: its indexer is not timed as a draft.
    try {
        llama70b(spec(query::Drafter::draft_model, 2, 0.7), "deepseek-v3.2");
        ADD_FAILURE() << "sparse draft model";
    } catch (const Error& e) {
        EXPECT_EQ(e.status(), Status::unsupported) << e.what();
        EXPECT_NE(std::string(e.what()).find("sparse"), std::string::npos) << e.what();
    }
}

// A draft model with sliding-window layers (as gpt-oss-20b drafting for gpt-oss-120b): its passes gather their own
// windowed work, so past its window a draft pass reads at most the window's keys, and below it nothing changes.
TEST(Speculative, WindowedDraftModelReadsAtMostItsWindow) {
    auto entry = config::find_catalogue_model("llama-3.1-8b-instruct");
    ASSERT_TRUE(entry.has_value());
    nlohmann::json windowed = nlohmann::json::parse(std::string(entry->config_json));
    windowed["sliding_window"] = 1024;
    const query::Speculation s = spec(query::Drafter::draft_model, 3, 0.7);
    const RooflineModel full = llama70b(s);
    const RooflineModel bounded = llama70b(s, windowed.dump());
    const RooflineModel verify_only = llama70b(spec(query::Drafter::ngram, 3, 0.7));
    // Below the window the two draft models are the same model.
    EXPECT_NEAR(decode_step(bounded, 16, 512), decode_step(full, 16, 512), 1e-9 * decode_step(full, 16, 512));
    // At 32k keys the windowed drafter's passes are cheaper, and cost about what they cost at its window.
    const double full_draft = decode_step(full, 16, 32768) - decode_step(verify_only, 16, 32768);
    const double bounded_draft = decode_step(bounded, 16, 32768) - decode_step(verify_only, 16, 32768);
    const double at_window = decode_step(bounded, 16, 1024) - decode_step(verify_only, 16, 1024);
    EXPECT_LT(bounded_draft, 0.8 * full_draft);
    EXPECT_GT(bounded_draft, 0);
    EXPECT_NEAR(bounded_draft, at_window, 0.1 * at_window);
    // It holds its window of KV cache per request beside the target's whole context.
    EXPECT_EQ(bounded.memory().kv_window, 1024);
    EXPECT_DOUBLE_EQ(bounded.memory().kv_bytes_per_token, llama70b().memory().kv_bytes_per_token);
    EXPECT_DOUBLE_EQ(bounded.memory().windowed_kv_bytes_per_token, llama8b_tp4().memory().kv_bytes_per_token);
    expect_detail_adds_up(bounded);
}

}  // namespace
}  // namespace mfusim::roofline
