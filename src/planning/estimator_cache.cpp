#include "planning/estimator_cache.hpp"

#include <algorithm>

#include "common/error.hpp"
#include "common/lines.hpp"
#include "common/numbers.hpp"

namespace mfusim::planning {

namespace {

// Every field an Estimator reads; two options with the same key build identical estimators.
std::string key_of(const engine::Options& o) {
    const query::Deployment& d = o.deployment;
    std::string key = o.model + '\x1f' + o.gpu + '\x1f' + o.bench_data_dir + '\x1f' + o.engine + '\x1f' +
                      o.engine_version + '\x1f' + o.quant;
    for (int64_t v : {d.tensor_parallel, d.world_size, d.num_nodes, d.expert_parallel, d.attention_data_parallel}) {
        key += '\x1f' + std::to_string(v);
    }
    key += std::string{'\x1f',
                       char('0' + d.fp8_gemm),
                       char('0' + d.fp8_kv),
                       char('0' + d.bf16_kv),
                       char('0' + d.deepep),
                       char('0' + d.two_batch_overlap),
                       char('0' + static_cast<int>(o.mode))};
    const query::Speculation& spec = d.speculation;
    key += '\x1f' + std::string(query::drafter_name(spec.drafter)) + '\x1f' + std::to_string(spec.tokens) + '\x1f' +
           shortest_text(spec.acceptance_rate) + '\x1f' + shortest_text(spec.mean_accepted_length) + '\x1f' +
           shortest_text(d.moe_routing_alpha) + '\x1f' + spec.draft_model;
    for (int64_t v : {d.images.per_request, d.images.width, d.images.height}) key += '\x1f' + std::to_string(v);
    key += '\x1f' + shortest_text(d.audio.seconds_per_request);
    return key + '\x1f' + std::to_string(d.sm_ratio) + '\x1f' + (o.disagg_decode ? '1' : '0');
}

}  // namespace

const engine::Estimator& EstimatorCache::get(const engine::Options& options) {
    auto [it, inserted] = entries_.try_emplace(key_of(options));
    Entry& entry = it->second;
    if (inserted) {
        try {
            entry.estimator = std::make_unique<engine::Estimator>(options);
            for (std::string& line : warning_lines(entry.estimator->load_warnings())) {
                if (std::find(warnings_.begin(), warnings_.end(), line) == warnings_.end()) {
                    warnings_.push_back(std::move(line));
                }
            }
        } catch (const Error& e) {
            entry.error = e.what();
            entry.status = static_cast<int>(e.status());
        }
    }
    if (!entry.estimator) throw Error(static_cast<Status>(entry.status), entry.error);
    return *entry.estimator;
}

}  // namespace mfusim::planning
