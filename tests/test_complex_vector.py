"""Tests of vecampfit.complex_vector against numpy complex arithmetic and mpmath."""

import os

import mpmath
import numpy as np
import pytest

from vecampfit import complex_vector as cv
from vecampfit.model_compiler import compile_model

from numeric_checks import bad_input_test

mpmath.mp.prec = 200


def random_complex(n, dtype, seed, scale=1.0):
    rng = np.random.default_rng(seed)
    z = (rng.normal(size=n) + 1j * rng.normal(size=n)) * scale * np.exp(rng.uniform(-3, 3, n))
    return z.astype(dtype)


def ulp_error(x, exact_re, exact_im, dtype):
    """Largest error of the real and imaginary parts in ulps of the exact value's modulus."""
    eps = np.finfo(np.dtype(dtype).char.lower() if False else (np.float32 if dtype == np.complex64 else np.float64)).eps
    worst = 0.0
    for v, er, ei in zip(x, exact_re, exact_im):
        ref = mpmath.mpc(er, ei)
        worst = max(worst, float(abs(mpmath.mpc(complex(v)) - ref) / (abs(ref) * eps)) if ref != 0 else 0.0)
    return worst


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_exact_operations_equal_numpy(dtype):
    a, b = random_complex(1001, dtype, 1), random_complex(1001, dtype, 2)
    real = a.real.dtype
    r = np.random.default_rng(3).normal(size=1001).astype(real)
    for got, ref in (
        (cv.add(a, b), a + b), (cv.subtract(a, b), a - b),
        (cv.add(a, r), a + r), (cv.subtract(a, r), a - r), (cv.multiply(a, r), a * r),
        (cv.negate(a), -a), (cv.conjugate(a), np.conj(a)),
        (cv.add(a, 1.5), a + real.type(1.5)), (cv.multiply(a, 1.5), a * real.type(1.5)),
        (cv.add(a, 1.5 - 2j), a + dtype(1.5 - 2j)),
    ):
        assert got.dtype == dtype
        np.testing.assert_array_equal(got, ref)
    # Products: the same formula as numpy's (two products and a sum per part).
    np.testing.assert_allclose(cv.multiply(a, b), a * b, rtol=4 * np.finfo(real).eps)
    np.testing.assert_allclose(cv.multiply_add(b, a, b), b + a * b, rtol=8 * np.finfo(real).eps,
                               atol=8 * np.finfo(real).eps * np.abs(a * b).max())


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_division_inverse_modulus_against_mpmath(dtype):
    a, b = random_complex(500, dtype, 4), random_complex(500, dtype, 5)
    q = cv.divide(a, b)
    inv = cv.inverse(b)
    mod = cv.absolute_value(a)
    mod2 = cv.absolute_value_squared(a)
    exact_q = [mpmath.mpc(complex(x)) / mpmath.mpc(complex(y)) for x, y in zip(a, b)]
    exact_inv = [1 / mpmath.mpc(complex(y)) for y in b]
    e_q = ulp_error(q, [x.real for x in exact_q], [x.imag for x in exact_q], dtype)
    e_inv = ulp_error(inv, [x.real for x in exact_inv], [x.imag for x in exact_inv], dtype)
    eps = np.finfo(a.real.dtype).eps
    e_mod = max(float(abs(mpmath.mpf(float(m)) - abs(mpmath.mpc(complex(x)))) / abs(mpmath.mpc(complex(x))))
                for m, x in zip(mod, a)) / eps
    e_mod2 = max(float(abs(mpmath.mpf(float(m)) - abs(mpmath.mpc(complex(x))) ** 2) / abs(mpmath.mpc(complex(x))) ** 2)
                 for m, x in zip(mod2, a)) / eps
    print(f"{np.dtype(dtype)}: largest error (ulps of |result|): divide {e_q:.2f}, inverse {e_inv:.2f}, "
          f"abs {e_mod:.2f}, abs^2 {e_mod2:.2f}")
    assert e_q < 4 and e_inv < 3 and e_mod < 2 and e_mod2 < 2
    assert mod.dtype == a.real.dtype


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_square_root_sheets(dtype):
    z = random_complex(400, dtype, 6)
    special = np.array([4, -4, complex(4, -0.0), complex(-4, -0.0), complex(-4, 0.0), 1j, -1j, 0,
                        complex(0, -0.0), complex(1e-10, -1e-10), complex(-9, 1e-12), complex(-9, -1e-12),
                        complex(9, 1e-12), complex(9, -1e-12)], dtype=dtype)
    z = np.concatenate([z, special])
    phys = cv.sqrt_physical(z)
    unphys = cv.sqrt_unphysical(z)
    eps = np.finfo(z.real.dtype).eps
    worst = 0.0
    for w, x in zip(phys, z):
        ref = mpmath.sqrt(mpmath.mpc(complex(x)))  # principal branch (mpmath: cut on the negative axis)
        if mpmath.im(ref) < 0:
            ref = -ref
        if ref != 0:
            worst = max(worst, float(abs(mpmath.mpc(complex(w)) - ref) / abs(ref)) / eps)
    print(f"{np.dtype(dtype)}: sqrt_physical largest error {worst:.2f} ulp")
    assert worst < 3
    assert np.all(phys.imag >= 0)
    np.testing.assert_array_equal(unphys, -phys)
    n = len(z) - len(special)
    # On the positive real axis: +sqrt(x) whatever the sign of the zero imaginary part.
    assert phys[n] == 2 and phys[n + 2] == 2
    # Negative real axis: +i sqrt(x), from either side of the zero.
    assert phys[n + 1] == 2j and phys[n + 3] == 2j and phys[n + 4] == 2j
    # Across the positive real axis the physical sheet jumps from +sqrt(x) to -sqrt(x) (the cut).
    assert phys[n + 12].real > 0 and phys[n + 13].real < 0
    # Across the negative real axis it is continuous (i sqrt(9) from both sides).
    np.testing.assert_allclose(phys[n + 10], 3j, atol=1e-6)
    np.testing.assert_allclose(phys[n + 11], 3j, atol=1e-6)
    assert phys[n + 7] == 0 and phys[n + 8] == 0


def test_sum_and_division_by_scalar():
    a = random_complex(1003, np.complex128, 7)
    s = cv.sum(a)
    exact = mpmath.fsum(mpmath.mpc(complex(x)) for x in a)
    assert abs(complex(s) - complex(exact)) < 1e-12 * float(mpmath.fsum(abs(mpmath.mpc(complex(x))) for x in a))
    assert isinstance(s, np.complex128)
    assert isinstance(cv.sum(a.astype(np.complex64)), np.complex64)
    np.testing.assert_allclose(cv.divide(a, 2 - 1j), a / (2 - 1j), rtol=4e-16)


test_bad_input = bad_input_test([
    (lambda: cv.add(np.ones(3, np.complex64), np.ones(3, np.complex128)), TypeError, "mixed precisions"),
    (lambda: cv.add(np.ones(3, np.complex128), np.ones(3, np.float32)), TypeError, "mixed precisions"),
    (lambda: cv.add(np.ones(3, np.int32), np.ones(3)), TypeError, "dtype int32"),
    (lambda: cv.multiply(np.ones(3, complex), np.ones(2, complex)), ValueError, "do not broadcast"),
    (lambda: cv.negate(["x"]), TypeError, "expected numbers"),
])


def test_user_model_outside_the_package(models_dir, model_cache):
    mods = compile_model(os.path.join(models_dir, "cvec_user_model.pyx"), (1, 4, 16), build_dir=model_cache)
    rng = np.random.default_rng(8)
    s = rng.uniform(0.1, 2.5, 37)
    pars = np.array([0.775, 0.15, 1.0, 0.0, 1.02, 0.004, 0.3, -0.2, 1.5, 0.1, -0.5, 0.8])
    ref = sum((pars[4 * k + 2] + 1j * pars[4 * k + 3]) / (pars[4 * k] ** 2 - s - 1j * pars[4 * k] * pars[4 * k + 1])
              for k in range(3))
    for length, mod in mods.items():
        amp, dens = mod.amplitude(s, pars)
        np.testing.assert_allclose(amp, ref, rtol=1e-13)
        np.testing.assert_allclose(dens, np.abs(ref) ** 2, rtol=1e-13)
        amp32, dens32 = mod.amplitude(s.astype(np.float32), pars.astype(np.float32))
        assert dens32.dtype == np.float32
        # float32 near the narrow pole: m^2 - s cancels, so compare with the exact
        # value for the float32-rounded inputs, to float32 precision times that cancellation.
        s32, p32 = s.astype(np.float32).astype(float), pars.astype(np.float32).astype(float)
        ref32 = sum((p32[4 * k + 2] + 1j * p32[4 * k + 3])
                    / (p32[4 * k] ** 2 - s32 - 1j * p32[4 * k] * p32[4 * k + 1]) for k in range(3))
        np.testing.assert_allclose(amp32, ref32, rtol=1e-4)
