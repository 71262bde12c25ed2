// The flags every command that builds an estimator shares (model, GPU, deployment, tables, mode).
#pragma once

#include <array>
#include <string>
#include <vector>

#include "cli/args.hpp"
#include "engine/estimator.hpp"

namespace mfusim::cli {

std::vector<FlagSpec> estimator_flags();
// Defaults: --model qwen3-8b; --gpu H20 in infersim mode (InferSim's default device), H100 in roofline mode.
engine::Options estimator_options(const ParsedArgs& args);
// The flags of speculative decoding, --speculative first: the estimator's, and compare --serving's for runs that
// decoded speculatively. speculation_flags() documents them as estimator_flags() does; speculation_options reads them.
inline constexpr std::array<const char*, 5> kSpeculationFlags = {
    "--speculative", "--num-speculative-tokens", "--acceptance-rate", "--mean-accepted-length", "--draft-model"};
std::vector<FlagSpec> speculation_flags();
query::Speculation speculation_options(const ParsedArgs& args);
// One line for a human: "qwen3-8b on H20 (infersim mode, tp 1, world size 1, tables: none)".
std::string describe(const engine::Options& options);

}  // namespace mfusim::cli
