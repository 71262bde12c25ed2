// Shared helpers of the compat unit tests: the small bench_data tree and configs under tests/fixtures/compat.
#pragma once

#include <memory>
#include <string>

#include "compat/compat_model.hpp"
#include "config/model_source.hpp"
#include "gpu/gpu_profile.hpp"
#include "query/query.hpp"
#include "support/reference.hpp"
#include "tables/tables.hpp"

namespace mfusim::compat::testing {

inline std::string compat_fixtures() {
    return ::mfusim::testing::fixtures_dir() + "/compat";
}

inline std::shared_ptr<const tables::BenchData> fixture_tables() {
    static const auto data =
        std::make_shared<const tables::BenchData>(tables::load_bench_data(compat_fixtures() + "/bench_data"));
    return data;
}

inline config::ModelSource fixture_config(const std::string& name) {
    return config::resolve_model_source(compat_fixtures() + "/configs/" + name + ".json");
}

inline config::ModelSource json_config(const std::string& text) {
    return config::resolve_model_source(text);
}

inline CompatModel fixture_model(const std::string& config, const std::string& gpu = "H20",
                                 query::Deployment deployment = {}, bool with_tables = true) {
    return CompatModel(fixture_config(config), gpu::resolve_gpu(gpu), with_tables ? fixture_tables() : nullptr,
                       deployment);
}

inline query::Scenario prefill_scenario(int64_t isl, int64_t max_prefill_tokens) {
    query::Scenario s;
    s.input_len = isl;
    s.max_prefill_tokens = max_prefill_tokens;
    s.phases = query::Phases::prefill_only;
    return s;
}

inline query::Scenario decode_scenario(int64_t batch, int64_t isl, int64_t osl) {
    query::Scenario s;
    s.decode_batch = batch;
    s.input_len = isl;
    s.output_len = osl;
    s.phases = query::Phases::decode_only;
    return s;
}

}  // namespace mfusim::compat::testing
