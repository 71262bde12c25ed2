#include "calibrate/box_least_squares.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "common/answer.hpp"

namespace mfusim::calibrate {

namespace {

// The minimum of the quadratic with the coordinates at a bound held there: Q_FF x_F = r_F - Q_FB x_B by Gaussian
// elimination with partial pivoting. Replaces x only when the solution exists and lies within the bounds (the
// objective then cannot rise: x is on the same face).
void solve_on_face(const std::vector<double>& q, const std::vector<double>& r, std::size_t cols,
                   const std::vector<double>& lower, const std::vector<double>& upper, std::vector<double>& x) {
    std::vector<std::size_t> free;
    for (std::size_t j = 0; j < cols; ++j) {
        if (x[j] > lower[j] && x[j] < upper[j] && q[j * cols + j] > 0) free.push_back(j);
    }
    const std::size_t n = free.size();
    if (n == 0) return;
    std::vector<double> m(n * (n + 1));
    for (std::size_t a = 0; a < n; ++a) {
        double rhs = r[free[a]];
        for (std::size_t k = 0; k < cols; ++k) {
            if (std::find(free.begin(), free.end(), k) == free.end()) rhs -= q[free[a] * cols + k] * x[k];
        }
        for (std::size_t b = 0; b < n; ++b) m[a * (n + 1) + b] = q[free[a] * cols + free[b]];
        m[a * (n + 1) + n] = rhs;
    }
    for (std::size_t c = 0; c < n; ++c) {
        std::size_t pivot = c;
        for (std::size_t a = c + 1; a < n; ++a) {
            if (std::fabs(m[a * (n + 1) + c]) > std::fabs(m[pivot * (n + 1) + c])) pivot = a;
        }
        const double p = m[pivot * (n + 1) + c];
        if (!(std::fabs(p) > 1e-300)) return;  // singular on this face: leave it to the sweeps
        for (std::size_t b = 0; b <= n; ++b) std::swap(m[c * (n + 1) + b], m[pivot * (n + 1) + b]);
        for (std::size_t a = 0; a < n; ++a) {
            if (a == c) continue;
            const double f = m[a * (n + 1) + c] / p;
            if (f == 0) continue;
            for (std::size_t b = c; b <= n; ++b) m[a * (n + 1) + b] -= f * m[c * (n + 1) + b];
        }
    }
    std::vector<double> y(n);
    for (std::size_t a = 0; a < n; ++a) {
        y[a] = m[a * (n + 1) + n] / m[a * (n + 1) + a];
        if (!(std::isfinite(y[a]) && y[a] >= lower[free[a]] && y[a] <= upper[free[a]])) return;
    }
    for (std::size_t a = 0; a < n; ++a) x[free[a]] = y[a];
}

}  // namespace

std::vector<double> box_least_squares(const std::vector<double>& a, const std::vector<double>& b,
                                      const std::vector<double>& weights, std::size_t cols,
                                      const std::vector<double>& lower, const std::vector<double>& upper) {
    const std::size_t rows = b.size();
    // Normal equations Q x = r with Q = A^T W A, r = A^T W b.
    std::vector<double> q(cols * cols, 0.0), r(cols, 0.0);
    for (std::size_t i = 0; i < rows; ++i) {
        const double w = weights[i];
        if (!(w > 0)) continue;
        const double* row = &a[i * cols];
        for (std::size_t j = 0; j < cols; ++j) {
            r[j] += w * row[j] * b[i];
            for (std::size_t k = 0; k < cols; ++k) q[j * cols + k] += w * row[j] * row[k];
        }
    }
    std::vector<double> x(cols);
    for (std::size_t j = 0; j < cols; ++j) x[j] = std::clamp(0.0, lower[j], upper[j]);
    for (int sweep = 0; sweep < 5000; ++sweep) {
        double change = 0, scale = 0;
        for (std::size_t j = 0; j < cols; ++j) {
            const double qjj = q[j * cols + j];
            if (!(qjj > 0)) continue;  // a column no row uses: x stays at its start
            double s = r[j];
            for (std::size_t k = 0; k < cols; ++k) {
                if (k != j) s -= q[j * cols + k] * x[k];
            }
            const double next = std::clamp(s / qjj, lower[j], upper[j]);
            change = std::max(change, std::fabs(next - x[j]));
            scale = std::max(scale, std::fabs(next));
            x[j] = next;
        }
        if (change <= 1e-12 * std::max(1.0, scale)) break;
        // Coordinate descent crawls along nearly collinear columns (GEMM time and the per-step constant both grow
        // with the batch). Once the sweeps have found which bounds are active, the minimum on that face is one
        // linear solve; taken when it stays inside the box, it is the exact answer the sweeps were approaching.
        if (sweep % 8 == 7) solve_on_face(q, r, cols, lower, upper, x);
    }
    return x;
}

std::vector<double> huber_box_least_squares(const std::vector<double>& a, const std::vector<double>& b,
                                            std::size_t cols, const std::vector<double>& lower,
                                            const std::vector<double>& upper, double delta, std::size_t robust_rows) {
    std::vector<double> weights(b.size(), 1.0), x;
    for (int iteration = 0; iteration < 12; ++iteration) {
        x = box_least_squares(a, b, weights, cols, lower, upper);
        double change = 0;
        for (std::size_t i = 0; i < robust_rows && i < b.size(); ++i) {
            double fit = 0;
            for (std::size_t j = 0; j < cols; ++j) fit += a[i * cols + j] * x[j];
            const double residual = std::fabs(fit - b[i]);
            const double w = residual <= delta ? 1.0 : delta / residual;
            change = std::max(change, std::fabs(w - weights[i]));
            weights[i] = w;
        }
        if (change < 1e-6) break;  // the weights are settled: another solve would return the same x
    }
    // Every fit ends here: a coefficient from a non-finite system (a measurement that overflows a ratio) must not
    // reach a calibration file (nlohmann writes NaN as null) or a caller as OK.
    for (std::size_t j = 0; j < x.size(); ++j) checked_finite(x[j], "fitted coefficient " + std::to_string(j));
    return x;
}

}  // namespace mfusim::calibrate
