"""The pure logic of the architecture-constant fit: objective, report parsing, deterministic coordinate descent."""

from __future__ import annotations

from mfusim_tools import fit_arch


def test_objective_penalises_bias_as_well_as_spread():
    assert fit_arch.objective({"median_abs": 0.1, "median_signed": -0.05}) == 0.1 + 0.05
    assert fit_arch.objective({"median_abs": 0.1, "median_signed": 0.0}) < fit_arch.objective(
        {"median_abs": 0.1, "median_signed": 0.02}
    )


def test_family_stats_skips_absent_and_empty_families():
    report = {
        "families": [
            {"family": "gemm", "all": {"count": 3, "median_abs": 0.1, "median_signed": 0.0}},
            {"family": "nccl_all_reduce", "all": {"count": 0, "median_abs": 0, "median_signed": 0}},
        ]
    }
    assert fit_arch.family_stats(report, "gemm")["count"] == 3
    assert fit_arch.family_stats(report, "nccl_all_reduce") is None
    assert fit_arch.family_stats(report, "context_attention") is None


def test_coordinate_descent_finds_the_grid_minimum_of_a_separable_function():
    calls = []

    def f(c):
        calls.append(dict(c))
        return (c["a"] - 0.7) ** 2 + (c["b"] - 3) ** 2

    best, score = fit_arch.coordinate_descent({"a": 0.5, "b": 1}, {"a": [0.5, 0.6, 0.7, 0.8], "b": [1, 2, 3, 4]}, f)
    assert best == {"a": 0.7, "b": 3}
    assert score == 0
    # Deterministic: the same inputs give the same evaluation sequence.
    first = list(calls)
    calls.clear()
    fit_arch.coordinate_descent({"a": 0.5, "b": 1}, {"a": [0.5, 0.6, 0.7, 0.8], "b": [1, 2, 3, 4]}, f)
    assert calls == first


def test_coordinate_descent_keeps_the_current_value_on_ties():
    best, _ = fit_arch.coordinate_descent({"a": 2}, {"a": [1, 2, 3]}, lambda c: 0.0)
    assert best == {"a": 2}


def test_every_fitted_constant_is_a_profile_field_with_a_physical_range():
    for family, grid in fit_arch.FAMILY_CONSTANTS.items():
        for name, values in grid.items():
            assert values == sorted(values), (family, name)
            assert all(v >= 0 for v in values), (family, name)
            if name.endswith("efficiency"):
                assert all(0 < v <= 1 for v in values), (family, name)
