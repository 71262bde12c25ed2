// Least squares with box constraints, for the calibration's few coefficients: minimise |A x - b|^2 subject to
// lower <= x <= upper. Cyclic coordinate descent on the normal equations: for a convex quadratic over a box each
// coordinate step is exact (a clamped 1-D minimum), so the iteration converges to the constrained optimum; with k
// of about ten columns it is exact to rounding in a few hundred sweeps, with no library (Eigen, LAPACK) needed.
#pragma once

#include <cstddef>
#include <vector>

namespace mfusim::calibrate {

// A is row-major, rows x cols; weights (one per row, >= 0) scale each row's squared residual.
std::vector<double> box_least_squares(const std::vector<double>& a, const std::vector<double>& b,
                                      const std::vector<double>& weights, std::size_t cols,
                                      const std::vector<double>& lower, const std::vector<double>& upper);

// The same, robust to outlying rows (a step the trace caught during a GC pause, a run with a broken client): Huber
// iteratively reweighted least squares. Rows [0, robust_rows) whose residual exceeds `delta` weigh delta / |r|
// (their loss grows linearly, not quadratically); rows from robust_rows on (priors) always weigh 1. Error(unsupported)
// when a coefficient comes out non-finite.
std::vector<double> huber_box_least_squares(const std::vector<double>& a, const std::vector<double>& b,
                                            std::size_t cols, const std::vector<double>& lower,
                                            const std::vector<double>& upper, double delta, std::size_t robust_rows);

}  // namespace mfusim::calibrate
