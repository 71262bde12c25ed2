// Fuzz target: an engine profile's JSON (resolve_engine: a built-in "base" and overrides of its terms), as
// Estimator(engine=...) reads it: a profile that resolves holds finite terms, and a roofline estimator of Qwen3-8B
// at TP 2 on the H100 using it times steps (its terms are added to every step) and answers a serving estimate
// (its token budget, sequence limit and memory share schedule the batches).
#include <cmath>

#include "engine/estimator.hpp"
#include "engines/engine_profile.hpp"
#include "fuzz_support.hpp"

using mfusim::fuzz::handled;
using mfusim::fuzz::require;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
    const std::string text = mfusim::fuzz::as_text(data, size);
    handled([&] {
        const mfusim::engines::EngineProfile e = mfusim::engines::resolve_engine(text);
        for (double v : {e.step_us, e.request_us, e.layer_us, e.eager_layer_us, e.tp_sync_us, e.admission_us,
                         e.input_token_us, e.output_token_us, e.gpu_memory_utilization, e.activation_reserve_gb}) {
            require(std::isfinite(v) && v >= 0, "engine terms finite and not negative");
        }
        require(e.max_batched_tokens >= 0 && e.max_seqs >= 0 && e.cuda_graph_max_batch >= 0, "limits not negative");

        mfusim::engine::Options o;
        o.model = "qwen3-8b";
        o.gpu = "H100";
        o.deployment.tensor_parallel = 2;
        o.deployment.world_size = 2;
        o.engine_profile = e;
        const mfusim::engine::Estimator est(o);
        const mfusim_request step[] = {{2048, 4096, 0, 0}, {1, 100, 0, 0}, {1, 30000, 0, 0}};
        for (std::size_t n = 0; n <= 3; ++n) {
            const double us = est.step_time_us(step, n);
            require(std::isfinite(us) && us >= 0, "step time finite and not negative");
        }
        handled([&] {
            mfusim::serving::Workload w;
            w.input_len = 2000;
            w.output_len = 50;
            w.concurrency = 8;
            mfusim_serving_result r{};
            r.struct_size = sizeof r;
            est.serve(w, r);
            require(std::isfinite(r.ttft_ms) && r.ttft_ms >= 0 && std::isfinite(r.tpot_ms) && r.tpot_ms >= 0,
                    "serving TTFT and TPOT finite and not negative");
        });
    });
    return 0;
}
