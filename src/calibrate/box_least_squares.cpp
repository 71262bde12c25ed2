#include "calibrate/box_least_squares.hpp"

#include <algorithm>
#include <cmath>

namespace mfusim::calibrate {

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
    return x;
}

}  // namespace mfusim::calibrate
