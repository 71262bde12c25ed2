// Precomputed functions of a size (tokens, sequence length, batch, context) for the step hot path: values at
// every integer below 2^kDirectLog2, then at 2^kBinsLog2 evenly spaced points per octave up to 2^kMaxExp, read
// with one count-leading-zeros, a shift and a linear interpolation (no logarithm, no search). Linear
// interpolation between non-decreasing grid values is non-decreasing, so a grid filled from a monotone function
// (or made so with make_non_decreasing) stays monotone everywhere.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <vector>

namespace mfusim::roofline {

template <int kDirectLog2, int kBinsLog2, int kMaxExp>
struct GeometricAxis {
    static_assert(kDirectLog2 >= kBinsLog2 && kMaxExp > kDirectLog2 && kMaxExp < 62);
    static constexpr int64_t kDirect = int64_t{1} << kDirectLog2;
    static constexpr int64_t kBins = int64_t{1} << kBinsLog2;
    static constexpr std::size_t kSize = static_cast<std::size_t>(kDirect + kBins * (kMaxExp - kDirectLog2) + 1);
    static constexpr int64_t kLast = int64_t{1} << kMaxExp;

    // The size at grid index i.
    static constexpr int64_t point(std::size_t i) {
        if (i <= static_cast<std::size_t>(kDirect)) return static_cast<int64_t>(i);
        int64_t r = static_cast<int64_t>(i) - kDirect;
        int e = kDirectLog2 + static_cast<int>(r / kBins);
        int64_t j = r % kBins;
        return (kBins + j) << (e - kBinsLog2);
    }

    struct Position {
        std::size_t index;  // value index at or below x
        double fraction;    // toward index + 1, in [0, 1)
        double beyond;      // x / kLast when x > kLast (the caller extrapolates), else 0
    };

    static Position locate(int64_t x) {
        if (x <= 0) return {0, 0, 0};
        if (x < kDirect) return {static_cast<std::size_t>(x), 0, 0};
        if (x >= kLast) {
            return {kSize - 1, 0, x > kLast ? static_cast<double>(x) / static_cast<double>(kLast) : 0};
        }
        int e = 63 - std::countl_zero(static_cast<uint64_t>(x));
        int shift = e - kBinsLog2;
        int64_t j = (x >> shift) - kBins;
        std::size_t index = static_cast<std::size_t>(kDirect + kBins * (e - kDirectLog2) + j);
        int64_t base = (kBins + j) << shift;
        double fraction = static_cast<double>(x - base) / static_cast<double>(int64_t{1} << shift);
        return {index, fraction, 0};
    }
};

// Fine axis for per-site GEMM times and prefill calibration: exact below 64, 16 points per octave to 2^24.
using FineAxis = GeometricAxis<6, 4, 24>;

template <class Axis>
class SizeGrid {
  public:
    bool empty() const { return values_.empty(); }

    template <class F>
    void fill(F f) {
        values_.resize(Axis::kSize);
        for (std::size_t i = 0; i < Axis::kSize; ++i) values_[i] = f(Axis::point(i));
    }
    void make_non_decreasing() {
        for (std::size_t i = 1; i < values_.size(); ++i) values_[i] = std::max(values_[i], values_[i - 1]);
    }
    // proportional_tail: beyond the last point the value grows in proportion to x (compute-bound time); else
    // it stays at the last value (a ratio).
    double at(int64_t x, bool proportional_tail) const {
        if (values_.empty()) return 0;  // a site that was never built (no such GEMM in this model)
        auto p = Axis::locate(x);
        if (p.beyond > 0) return proportional_tail ? values_.back() * p.beyond : values_.back();
        double v = values_[p.index];
        if (p.fraction == 0) return v;
        return v + (values_[p.index + 1] - v) * p.fraction;
    }
    const std::vector<double>& values() const { return values_; }

  private:
    std::vector<double> values_;
};

// Coarse axes for the decode surface: exact below 8, 4 points per octave; batch to 2^17, total keys to 2^34.
using BatchAxis = GeometricAxis<3, 2, 17>;
using KeysAxis = GeometricAxis<3, 2, 34>;

// Bilinear surface over (batch, total keys). Beyond the last point of an axis the value grows in proportion
// (a time: more requests or keys than the grid holds cost at least proportionally more).
class SurfaceGrid {
  public:
    bool empty() const { return values_.empty(); }
    template <class F>
    void fill(F f) {
        values_.resize(BatchAxis::kSize * KeysAxis::kSize);
        for (std::size_t b = 0; b < BatchAxis::kSize; ++b) {
            for (std::size_t c = 0; c < KeysAxis::kSize; ++c) {
                values_[b * KeysAxis::kSize + c] = f(BatchAxis::point(b), KeysAxis::point(c));
            }
        }
    }
    // Running maximum along keys at each batch size: more keys for the same requests never take less time.
    // (Not along batch: at a fixed total, more requests share the keys with more parallelism and can be faster.)
    void make_non_decreasing_in_keys() {
        for (std::size_t b = 0; b < BatchAxis::kSize; ++b) {
            for (std::size_t c = 1; c < KeysAxis::kSize; ++c) {
                double& v = values_[b * KeysAxis::kSize + c];
                v = std::max(v, values_[b * KeysAxis::kSize + c - 1]);
            }
        }
    }
    double at(int64_t batch, int64_t keys) const {
        auto pb = BatchAxis::locate(std::max<int64_t>(batch, 1));
        auto pc = KeysAxis::locate(std::max<int64_t>(keys, 1));
        std::size_t b1 = std::min(pb.index + 1, BatchAxis::kSize - 1);
        std::size_t c1 = std::min(pc.index + 1, KeysAxis::kSize - 1);
        const double* row0 = &values_[pb.index * KeysAxis::kSize];
        const double* row1 = &values_[b1 * KeysAxis::kSize];
        double v0 = row0[pc.index] + (row0[c1] - row0[pc.index]) * pc.fraction;
        double v1 = row1[pc.index] + (row1[c1] - row1[pc.index]) * pc.fraction;
        double v = v0 + (v1 - v0) * pb.fraction;
        if (pb.beyond > 0) v *= pb.beyond;
        if (pc.beyond > 0) v *= pc.beyond;
        return v;
    }

  private:
    std::vector<double> values_;
};

}  // namespace mfusim::roofline
