"""Tests of vecampfit.interpolation against numpy.interp and closed forms."""

import os

import numpy as np
import pytest

from vecampfit import interpolation as ip
from vecampfit.model_compiler import compile_model

from numeric_checks import bad_input_test


def relative_error(got, ref, scale):
    return np.max(np.abs(got.astype(np.float64) - ref) / scale)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_against_numpy_interp(dtype):
    rng = np.random.default_rng(1)
    eps = np.finfo(dtype).eps
    # Non-uniform nodes.
    xp = np.sort(rng.uniform(-3, 5, 40)).astype(dtype)
    fp = rng.normal(size=40).astype(dtype)
    x = rng.uniform(-4, 6, 5001).astype(dtype)
    got = ip.interpolate(x, xp, fp)
    assert got.dtype == dtype and got.shape == x.shape
    ref = np.interp(x.astype(np.float64), xp.astype(np.float64), fp.astype(np.float64))
    e_nonuniform = relative_error(got, ref, np.abs(fp).max() * eps)
    # Uniform nodes: compare with numpy.interp on the same (exactly computed) nodes.
    n = 33
    lo, hi = dtype(-1.25), dtype(2.75)
    nodes = lo + np.arange(n) * ((float(hi) - float(lo)) / (n - 1))
    table = np.cos(nodes).astype(dtype)
    got_u = ip.interpolate_uniform(x, lo, hi, table)
    ref_u = np.interp(x.astype(np.float64), nodes, table.astype(np.float64))
    e_uniform = relative_error(got_u, ref_u, eps)
    print(f"{np.dtype(dtype)}: largest difference from numpy.interp: nonuniform {e_nonuniform:.2f} eps*max|fp|, "
          f"uniform {e_uniform:.2f} eps")
    assert e_nonuniform < 4
    assert e_uniform < 8
    # Exact at the nodes, in every mode.
    for mode in ("clamp", "nan", "extrapolate", "raise"):
        np.testing.assert_array_equal(ip.interpolate(xp, xp, fp, outside=mode), fp)
    at = np.array([lo, hi], dtype)
    np.testing.assert_array_equal(ip.interpolate_uniform(at, lo, hi, table, outside="nan"), table[[0, -1]])


def test_linear_functions_and_outside_modes():
    # A linear function is reproduced inside, and by extrapolation outside.
    xp = np.array([0.0, 0.5, 2.0, 3.0])
    fp = 2 * xp - 1
    x = np.linspace(-2, 5, 701)
    np.testing.assert_allclose(ip.interpolate(x, xp, fp, outside="extrapolate"), 2 * x - 1, rtol=0, atol=4e-15)
    np.testing.assert_allclose(ip.interpolate_uniform(x, 0, 3, 2 * np.linspace(0, 3, 7) - 1, outside="extrapolate"),
                               2 * x - 1, rtol=0, atol=4e-15)
    clamp = ip.interpolate(x, xp, fp)
    assert np.all(clamp[x < 0] == -1) and np.all(clamp[x > 3] == 5)
    np.testing.assert_array_equal(clamp, np.interp(x, xp, fp))
    nan = ip.interpolate_uniform(x, 0, 3, 2 * np.linspace(0, 3, 7) - 1, outside="nan")
    assert np.all(np.isnan(nan[(x < 0) | (x > 3)])) and np.all(np.isfinite(nan[(x >= 0) & (x <= 3)]))
    with pytest.raises(ValueError, match="outside the table"):
        ip.interpolate(x, xp, fp, outside="raise")
    with pytest.raises(ValueError, match="outside the table"):
        ip.interpolate_uniform([3.5], 0, 3, [1, 2], outside="raise")
    # NaN arguments give NaN in every mode.
    for mode in ("clamp", "nan", "extrapolate", "raise"):
        assert np.isnan(ip.interpolate([np.nan], xp, fp, outside=mode)[0])
        assert np.isnan(ip.interpolate_uniform([np.nan], 0, 3, fp, outside=mode)[0])
    # Huge arguments do not overflow the segment index.
    np.testing.assert_array_equal(ip.interpolate_uniform([1e300, -1e300, np.inf, -np.inf], 0, 3, fp), [5, -1, 5, -1])
    # Shapes.
    assert ip.interpolate_uniform(np.ones((3, 4)), 0, 3, fp).shape == (3, 4)
    assert ip.interpolate(0.25, xp, fp).shape == ()
    assert ip.interpolate(np.zeros(0), xp, fp).shape == (0,)


test_bad_input = bad_input_test([
    (lambda: ip.interpolate([1.0], [0, 1], [1, 2, 3]), ValueError, "different lengths"),
    (lambda: ip.interpolate([1.0], [0, 2, 1], [1, 2, 3]), ValueError, "strictly increasing"),
    (lambda: ip.interpolate([1.0], [0, 0, 1], [1, 2, 3]), ValueError, "strictly increasing"),
    (lambda: ip.interpolate([1.0], [0, np.nan], [1, 2]), ValueError, "finite"),
    (lambda: ip.interpolate([1.0], [0], [1]), ValueError, "at least 2"),
    (lambda: ip.interpolate_uniform([1.0], 1, 1, [1, 2]), ValueError, "x_min < x_max"),
    (lambda: ip.interpolate_uniform([1.0], 0, np.inf, [1, 2]), ValueError, "x_min < x_max"),
    (lambda: ip.interpolate_uniform([1.0], 0, 1, [[1, 2]]), ValueError, "one-dimensional"),
    (lambda: ip.interpolate_uniform([1.0], 0, 1, [1, 2], outside="wrap"), ValueError, "outside"),
    (lambda: ip.interpolate(np.ones(2, np.float32), np.arange(2.0), np.ones(2)), TypeError, "mixed precisions"),
    (lambda: ip.interpolate(np.ones(2, np.int64), np.arange(2.0), np.ones(2)), TypeError, "int64"),
    (lambda: ip.interpolate(["a"], [0, 1], [1, 2]), TypeError, "real numbers"),
])


def test_user_model_outside_the_package(models_dir, model_cache):
    mods = compile_model(os.path.join(models_dir, "interp_user_model.pyx"), (1, 4, 16), build_dir=model_cache)
    rng = np.random.default_rng(2)
    table = rng.uniform(0.5, 1.0, 21)
    nodes = np.sort(rng.uniform(0, 4, 9))
    values = rng.uniform(size=9)
    x = rng.uniform(-0.5, 4.5, 77)
    for length, mod in mods.items():
        for dtype in (np.float32, np.float64):
            r1, r2 = mod.evaluate(x.astype(dtype), table.astype(dtype), dtype(0), dtype(4), nodes.astype(dtype),
                                  values.astype(dtype))
            # Models are compiled for the host CPU (fused multiply-adds): equal to rounding.
            tol = 4 * np.finfo(dtype).eps
            np.testing.assert_allclose(
                r1, ip.interpolate_uniform(x.astype(dtype), dtype(0), dtype(4), table.astype(dtype)), rtol=tol)
            np.testing.assert_allclose(
                r2, ip.interpolate(x.astype(dtype), nodes.astype(dtype), values.astype(dtype), outside="nan"),
                rtol=tol)
            assert np.all(np.isnan(r2[(x < nodes[0]) | (x > nodes[-1])]))
