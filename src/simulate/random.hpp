// The simulator's random numbers, specified so that a seed gives the same workload on every platform and compiler
// (the standard library's distributions are implementation-defined): xoshiro256** seeded by SplitMix64, uniforms
// from the top 53 bits, and the textbook transforms below. docs/simulate.md, "Random numbers".
#pragma once

#include <cstdint>

namespace mfusim::simulate {

class Rng {
  public:
    explicit Rng(uint64_t seed);
    uint64_t next();             // xoshiro256** (Blackman and Vigna, 2018)
    double uniform();            // [0, 1): (next() >> 11) * 2^-53
    double normal();             // standard normal, Box-Muller (cosine branch only, one uniform pair per draw)
    double gamma(double shape);  // Marsaglia and Tsang (2000); shape < 1 by Gamma(shape + 1) * U^(1 / shape)

  private:
    uint64_t s_[4];
};

}  // namespace mfusim::simulate
