#include "cli/step_output.hpp"

#include <cstdio>

#include "query/names.hpp"

namespace mfusim::cli {

nlohmann::ordered_json step_result_json(const mfusim_step_result& result) {
    nlohmann::ordered_json out;
    out["total_us"] = result.total_us;
    out["bound"] = query::bound_name(result.bound);
    nlohmann::ordered_json breakdown = nlohmann::ordered_json::object();
    for (int32_t i = 0; i < result.n_ops && i < MFUSIM_OP_COUNT; ++i) {
        const mfusim_op_detail& op = result.ops[i];
        if (op.time_us == 0 && op.source == MFUSIM_SOURCE_NONE) continue;
        nlohmann::ordered_json entry;
        entry["time_us"] = op.time_us;
        entry["flops"] = op.flops;
        entry["bytes"] = op.bytes;
        entry["bound"] = query::bound_name(op.bound);
        entry["efficiency"] = op.efficiency;
        entry["source"] = query::source_name(op.source);
        if (op.table[0] != '\0') entry["table"] = op.table;
        if (op.source == MFUSIM_SOURCE_TABLE_NEAREST) entry["distance"] = op.distance;
        breakdown[query::op_name(i)] = entry;
    }
    out["breakdown"] = breakdown;
    return out;
}

void print_step_table(const mfusim_step_result& result) {
    std::printf("step time %.3f us (%s-bound)\n\n", result.total_us, query::bound_name(result.bound));
    std::printf("  %-14s %12s %6s  %-13s %6s  %-18s %s\n", "operation", "time_us", "share", "bound", "eff", "source",
                "table");
    for (int32_t i = 0; i < result.n_ops && i < MFUSIM_OP_COUNT; ++i) {
        const mfusim_op_detail& op = result.ops[i];
        if (op.time_us == 0 && op.source == MFUSIM_SOURCE_NONE) continue;
        double share = result.total_us > 0 ? 100.0 * op.time_us / result.total_us : 0.0;
        std::printf("  %-14s %12.3f %5.1f%%  %-13s %6.3f  %-18s %s", query::op_name(i), op.time_us, share,
                    query::bound_name(op.bound), op.efficiency, query::source_name(op.source), op.table);
        if (op.source == MFUSIM_SOURCE_TABLE_NEAREST) std::printf(" (distance %.3g)", op.distance);
        std::printf("\n");
    }
}

}  // namespace mfusim::cli
