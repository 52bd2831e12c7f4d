"""Tests of vecampfit.high_energy_physics against independent references.

References: spherical Hankel functions from mpmath (Blatt-Weisskopf), scipy's
Legendre polynomials, the covariant factors written in y, direct complex
arithmetic for the Breit-Wigner forms, and central finite differences for
the gradients.
"""

import math
import os

import mpmath
import numpy as np
import pytest
from scipy.special import eval_legendre

from vecampfit import high_energy_physics as hep
from vecampfit.model_compiler import compile_model

from numeric_checks import bad_input_test

mpmath.mp.dps = 40
EPS64 = np.finfo(np.float64).eps
EPS32 = np.finfo(np.float32).eps


def mp_blatt_weisskopf(q, r, l):
    """F = 1 / (z^(l+1) |h_l^(1)(z)|), h_l^(1) = j_l + i y_l from half-integer Bessel functions."""
    z = mpmath.mpf(q) * mpmath.mpf(r)
    if z == 0:
        return mpmath.mpf(1) / math.prod(range(2 * l - 1, 0, -2)) if l > 0 else mpmath.mpf(1)
    c = mpmath.sqrt(mpmath.pi / (2 * z))
    j = c * mpmath.besselj(l + mpmath.mpf(1) / 2, z)
    y = c * mpmath.bessely(l + mpmath.mpf(1) / 2, z)
    return 1 / (z ** (l + 1) * mpmath.sqrt(j * j + y * y))


def breakup(m, ma, mb):
    """Two-body breakup momentum (closed form, test-local reference)."""
    return np.sqrt((m**2 - (ma + mb) ** 2) * (m**2 - (ma - mb) ** 2)) / (2 * m)


def rel_err(a, b):
    a = np.asarray(a, dtype=np.complex128)
    b = np.asarray(b, dtype=np.complex128)
    return np.max(np.abs(a - b) / np.maximum(np.abs(b), 1e-300))


@pytest.mark.parametrize("l", range(6))
def test_blatt_weisskopf_against_spherical_hankel(l):
    rng = np.random.default_rng(l)
    q = np.concatenate([rng.uniform(0, 3, 200), [0.0, 1e-8, 5.0]])
    r = 1.5 if l % 2 else 5.0
    ref = np.array([float(mp_blatt_weisskopf(x, r, l)) for x in q])
    f = hep.blatt_weisskopf(q, r, l)
    err = np.max(np.abs(f - ref) / ref) / EPS64
    print(f"l={l}: largest error of F {err:.2f} ulp (float64)")
    assert err < 8
    np.testing.assert_allclose(hep.blatt_weisskopf_squared(q, r, l), ref**2, rtol=8 * EPS64)
    f32 = hep.blatt_weisskopf(q.astype(np.float32), r, l)
    assert f32.dtype == np.float32
    assert np.max(np.abs(f32 - ref) / ref) < 16 * EPS32
    q0 = 0.7
    ref0 = float(mp_blatt_weisskopf(q0, r, l))
    np.testing.assert_allclose(hep.blatt_weisskopf_ratio(q, q0, r, l), ref / ref0, rtol=16 * EPS64)
    np.testing.assert_allclose(hep.blatt_weisskopf_ratio_squared(q, q0, r, l), (ref / ref0) ** 2,
                               rtol=16 * EPS64)


@pytest.mark.parametrize("l", range(6))
def test_blatt_weisskopf_derivatives(l):
    q = np.linspace(0.05, 2.5, 37)
    r = 3.0
    f, d_dr = hep.blatt_weisskopf_gradient(q, r, l)
    np.testing.assert_allclose(f, hep.blatt_weisskopf(q, r, l), rtol=2 * EPS64)
    ref = np.array([float(mpmath.diff(lambda rr: mp_blatt_weisskopf(x, rr, l), r)) for x in q])
    np.testing.assert_allclose(d_dr, ref, rtol=1e-12, atol=1e-15)
    for q0 in (0.0, 0.3, 1.7):
        inv, d_dq, d_dr0 = hep.blatt_weisskopf_inverse_gradient(q0, r, l)
        assert inv == pytest.approx(float(1 / mp_blatt_weisskopf(q0, r, l)), rel=4 * EPS64)
        if q0 == 0:
            assert d_dq == 0  # 1/F is even in q
        else:
            assert d_dq == pytest.approx(float(mpmath.diff(lambda x: 1 / mp_blatt_weisskopf(x, r, l), q0)),
                                         rel=1e-12, abs=1e-14)
        assert d_dr0 == pytest.approx(float(mpmath.diff(lambda rr: 1 / mp_blatt_weisskopf(q0, rr, l), r)),
                                      rel=1e-12, abs=1e-14)


@pytest.mark.parametrize("l", range(6))
def test_inverse_formfactor_from_squared_momentum(l):
    r = 2.0
    for q in (0.0, 0.2, 1.3):
        inv, d_dq, d_dr = hep.blatt_weisskopf_inverse_gradient(q, r, l)
        inv2, d_dq2, d_dr2 = hep.blatt_weisskopf_inverse_gradient_q2(q * q, r, l)
        assert inv2 == pytest.approx(inv, rel=4 * EPS64)
        assert d_dr2 == pytest.approx(d_dr, rel=1e-14, abs=1e-300)
        if q > 0:
            assert d_dq2 == pytest.approx(d_dq / (2 * q), rel=1e-13)
    # Below threshold: for real z, (1/F)^2 = z^(2l+2) h_l^(1)(z) h_l^(2)(z); its analytic
    # continuation to z = i |q| r (mpmath's Bessel functions of complex argument) is
    # the reference for the continued polynomial.
    q2 = -0.01
    inv2, _, _ = hep.blatt_weisskopf_inverse_gradient_q2(q2, r, l)
    z = mpmath.mpc(0, mpmath.sqrt(-q2) * r)
    nu = l + mpmath.mpf(1) / 2
    p_l = z ** (2 * l + 2) * mpmath.pi / (2 * z) * (mpmath.besselj(nu, z) ** 2 + mpmath.bessely(nu, z) ** 2)
    assert abs(mpmath.im(p_l)) < 1e-20
    assert inv2 == pytest.approx(float(mpmath.sqrt(mpmath.re(p_l))), rel=1e-14)
    assert np.isnan(hep.blatt_weisskopf_inverse_gradient_q2(-100.0, r, 1)[0])


def test_covariant_factors_in_terms_of_y():
    f = np.linspace(1.0, 4.0, 61)
    y2 = f**2 - 1
    expected = {
        0: np.ones_like(f),
        1: np.sqrt(1 + y2),
        2: 1.5 + y2,
        3: np.sqrt(1 + y2) * (2.5 + y2),
        4: (35 + 40 * y2 + 8 * y2**2) / 35,
    }
    for j, ref in expected.items():
        np.testing.assert_allclose(hep.covariant_factor_j(f, j), ref, rtol=8 * EPS64)
        np.testing.assert_allclose(hep.covariant_factor_j(f.astype(np.float32), j), ref, rtol=16 * EPS32)


@pytest.mark.parametrize("l", range(6))
def test_legendre_and_laura_normalization(l):
    x = np.linspace(-1, 1, 101)
    ref = eval_legendre(l, x)
    np.testing.assert_allclose(hep.legendre(x, l), ref, rtol=4 * EPS64, atol=4 * EPS64)
    laura = (-1) ** l * 2 ** (2 * l) / math.comb(2 * l, l)
    np.testing.assert_allclose(hep.legendre_laura(x, l), laura * ref, rtol=8 * EPS64, atol=8 * EPS64 * abs(laura))
    np.testing.assert_allclose(hep.legendre(x.astype(np.float32), l), ref, rtol=8 * EPS32, atol=8 * EPS32)


@pytest.mark.parametrize("l", range(5))
def test_covariant_angular_distribution(l):
    rng = np.random.default_rng(10 + l)
    p, q, f, c = rng.uniform(0.1, 2, 50), rng.uniform(0.1, 1, 50), rng.uniform(1, 2, 50), rng.uniform(-1, 1, 50)
    laura = (-1) ** l * 2 ** (2 * l) / math.comb(2 * l, l)
    scale = (p * q) ** l * hep.covariant_factor_j(f, l) * laura
    ref = scale * eval_legendre(l, c)
    # Near a zero of P_l the error is absolute: bounded relative to the magnitude without P_l.
    assert np.all(np.abs(hep.covariant_angular_distribution(p, q, f, c, l) - ref) <= 1e-14 * np.abs(scale))


def test_constant_width_and_general_forms():
    m = np.linspace(0.3, 1.5, 101)
    m0, g0 = 0.8955, 0.0473
    np.testing.assert_allclose(hep.breit_wigner_constant_width_m(m, m0, g0),
                               1 / (m0**2 - m**2 - 1j * m * g0), rtol=4 * EPS64)
    np.testing.assert_allclose(hep.breit_wigner_constant_width_m0(m, m0, g0),
                               1 / (m0**2 - m**2 - 1j * m0 * g0), rtol=4 * EPS64)
    out32 = hep.breit_wigner_constant_width_m0(m.astype(np.float32), m0, g0)
    assert out32.dtype == np.complex64
    # Against the float64 values: near the pole, m rounded to float32 moves m0^2 - m^2.
    assert rel_err(out32, 1 / (m0**2 - m**2 - 1j * m0 * g0)) < 2e-5
    rng = np.random.default_rng(3)
    num = rng.normal(size=m.size) + 1j * rng.normal(size=m.size)
    g = rng.uniform(0.01, 0.2, m.size)
    np.testing.assert_allclose(hep.breit_wigner_general(m**2, m0, num, g), num / (m0**2 - m**2 - 1j * g),
                               rtol=8 * EPS64)


def mp_breit_wigner(m, q, q0, m0, g0, r, l, phase_space):
    mp = mpmath.mpf
    m, q, q0, m0, g0, r = (mp(v) for v in (m, q, q0, m0, g0, r))
    ratio = mp_blatt_weisskopf(q, r, l) / mp_blatt_weisskopf(q0, r, l)
    width = g0 * (q / q0) ** (2 * l + 1) * (m0 / m) * ratio**2
    num = ratio * ((q / q0) ** l if phase_space else 1)
    return num / (m0**2 - m**2 - 1j * m0 * width), width


@pytest.mark.parametrize("l", [0, 1, 2, 5])
def test_breit_wigner_mass_dependent_width(l):
    ma, mb = 0.13957, 0.49368  # pi, K
    m0, g0, r = 0.8955, 0.0473, 1.5
    m = np.linspace(ma + mb + 1e-3, 1.6, 77)
    q = breakup(m, ma, mb)
    q0 = breakup(m0, ma, mb)
    ref_nophsp = np.array([complex(mp_breit_wigner(x, y, q0, m0, g0, r, l, False)[0]) for x, y in zip(m, q)])
    ref_q_f = np.array([complex(mp_breit_wigner(x, y, q0, m0, g0, r, l, True)[0]) for x, y in zip(m, q)])
    err = rel_err(hep.breit_wigner_q_f_nophsp(m, q, q0, m0, g0, r, l), ref_nophsp)
    print(f"l={l}: breit_wigner_q_f_nophsp largest relative error {err:.2e}")
    assert err < 64 * EPS64
    assert rel_err(hep.breit_wigner_q_f(m, q, q0, m0, g0, r, l), ref_q_f) < 64 * EPS64
    # Matrix element: (q/q0)^(2l+1) R^2 / |D|^2 = (q/q0) |B_q_f|^2.
    m2 = hep.breit_wigner_m2(m, q, q0, m0, g0, r, l)
    np.testing.assert_allclose(m2, (q / q0) * np.abs(ref_q_f) ** 2, rtol=64 * EPS64)
    # The general form with N = R and G = m0 Gamma(m) is the same amplitude.
    widths = np.array([float(mp_breit_wigner(x, y, q0, m0, g0, r, l, False)[1]) for x, y in zip(m, q)])
    ratio = hep.blatt_weisskopf_ratio(q, q0, r, l)
    np.testing.assert_allclose(hep.breit_wigner_general(m**2, m0, ratio, m0 * widths), ref_nophsp, rtol=64 * EPS64)
    out32 = hep.breit_wigner_q_f_nophsp(m.astype(np.float32), q.astype(np.float32), q0, m0, g0, r, l)
    assert out32.dtype == np.complex64 and rel_err(out32, ref_nophsp) < 1e-4


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_breit_wigner_near_the_pole_of_a_narrow_resonance(dtype):
    """phi(1020) -> K+ K-: m0 Gamma0 / m0^2 = 0.4 %, so m0^2 - m^2 must not be a
    difference of squares; errors in ulps of the inputs as the routines get them."""
    eps = np.finfo(dtype).eps
    ma = mb = 0.493677
    m0, g0, r, l = 1.019461, 0.004249, 3.0, 1
    m = np.linspace(1.0, 1.04, 801).astype(dtype)
    q = breakup(m.astype(np.float64), ma, mb).astype(dtype)
    q0 = float(breakup(m0, ma, mb))
    mp = mpmath.mpf
    # What the routines compute in the working precision: m0, Gamma0, r,
    # 1/q0 and 1/F(q0) rounded to it.
    m0_, g0_, r_ = (mp(float(dtype(v))) for v in (m0, g0, r))
    inv_q0 = mp(float(dtype(1 / q0)))
    inv_f0 = mp(float(dtype(1 / mp_blatt_weisskopf(q0, float(dtype(r)), l))))
    worst = {}
    for x, y in zip(m, q):
        x, y = mp(float(x)), mp(float(y))
        ratio = mp_blatt_weisskopf(y, r_, l) * inv_f0
        xq = y * inv_q0
        width = g0_ * xq ** (2 * l + 1) * (m0_ / x) * ratio**2
        den = m0_**2 - x**2 - 1j * m0_ * width
        refs = {"nophsp": ratio / den, "q_f": ratio * xq**l / den,
                "m2": xq ** (2 * l + 1) * ratio**2 / abs(den) ** 2,
                "constant_m": 1 / (m0_**2 - x**2 - 1j * x * g0_),
                "constant_m0": 1 / (m0_**2 - x**2 - 1j * m0_ * g0_)}
        for k, v in refs.items():
            worst.setdefault(k, []).append(complex(v))
    got = {"nophsp": hep.breit_wigner_q_f_nophsp(m, q, q0, m0, g0, r, l),
           "q_f": hep.breit_wigner_q_f(m, q, q0, m0, g0, r, l),
           "m2": hep.breit_wigner_m2(m, q, q0, m0, g0, r, l),
           "constant_m": hep.breit_wigner_constant_width_m(m, m0, g0),
           "constant_m0": hep.breit_wigner_constant_width_m0(m, m0, g0)}
    for k, v in got.items():
        err = rel_err(v, np.array(worst[k])) / eps
        print(f"{np.dtype(dtype).name} {k}: largest relative error {err:.1f} ulp")
        assert err < 12, k


@pytest.mark.parametrize("phase_space", [False, True])
@pytest.mark.parametrize("l", [0, 1, 2, 3])
def test_breit_wigner_gradients_against_finite_differences(l, phase_space):
    ma, mb = 0.13957, 0.13498
    m = np.linspace(0.3, 1.2, 41)
    q = breakup(m, ma, mb)
    m0, g0, r = 0.7753, 0.1491, 1.5
    func = hep.breit_wigner_q_f if phase_space else hep.breit_wigner_q_f_nophsp
    grad = hep.breit_wigner_q_f_gradient if phase_space else hep.breit_wigner_q_f_nophsp_gradient

    def value(m0_, g0_, r_):
        return func(m, q, breakup(m0_, ma, mb), m0_, g0_, r_, l)

    q0 = breakup(m0, ma, mb)
    h = 1e-6
    dq0 = (breakup(m0 + h, ma, mb) - breakup(m0 - h, ma, mb)) / (2 * h)
    v, d_dm0, d_dg0, d_dr = grad(m, q, m0, g0, r, l, q0, dq0)
    np.testing.assert_allclose(v, value(m0, g0, r), rtol=4 * EPS64)
    for analytic, args in ((d_dm0, 0), (d_dg0, 1), (d_dr, 2)):
        p = [m0, g0, r]
        pp, pm = list(p), list(p)
        step = h * max(1.0, abs(p[args]))
        pp[args] += step
        pm[args] -= step
        fd = (value(*pp) - value(*pm)) / (2 * step)
        scale = np.max(np.abs(fd))
        assert np.max(np.abs(analytic - fd)) <= 1e-6 * scale, (l, phase_space, args)
    v32 = grad(m.astype(np.float32), q.astype(np.float32), m0, g0, r, l, q0, dq0)
    assert all(x.dtype == np.complex64 for x in v32)


def test_user_model_resonance_term(models_dir, model_cache):
    """A D0 -> K- pi+ pi0 style rho+ term built in a Cython model outside the package."""
    mods = compile_model(os.path.join(models_dir, "hep_user_model.pyx"), (1, 4, 16), build_dir=model_cache)
    rng = np.random.default_rng(5)
    mpi, mpi0, mk, md = 0.13957, 0.13498, 0.49368, 1.86484
    n = 45
    m_ab = rng.uniform(mpi + mpi0 + 0.01, md - mk - 0.01, n)
    cos_t = rng.uniform(-1, 1, n)
    q = breakup(m_ab, mpi, mpi0)
    p = breakup(md, m_ab, mk)
    m0, g0, r, rd, l = 0.770, 0.1507, 1.5, 5.0, 1
    q0, p0 = breakup(m0, mpi, mpi0), breakup(md, m0, mk)
    coupling = 0.9 * np.exp(0.3j)
    expected = (coupling * hep.blatt_weisskopf_ratio(p, p0, rd, l)
                * hep.breit_wigner_q_f_nophsp(m_ab, q, q0, m0, g0, r, l) * (p * q * cos_t))
    inv_fd0 = hep.blatt_weisskopf_inverse_gradient(p0, rd, l)[0]
    inv_f0 = hep.blatt_weisskopf_inverse_gradient(q0, r, l)[0]
    for length, mod in mods.items():
        for dtype, tol in ((np.float64, 1e-13), (np.float32, 2e-5)):
            out = mod.rho_term(m_ab.astype(dtype), q.astype(dtype), p.astype(dtype), cos_t.astype(dtype),
                               m0, g0, 1 / q0, r, inv_f0, rd, inv_fd0, coupling.real, coupling.imag)
            assert rel_err(out, expected) < tol, (length, dtype)


test_bad_input = bad_input_test([
    (lambda: hep.blatt_weisskopf([0.1], 1.0, 6), ValueError, "l must be an integer from 0 to 5"),
    (lambda: hep.blatt_weisskopf([0.1], 1.0, -1), ValueError, "l must be"),
    (lambda: hep.blatt_weisskopf([0.1], 1.0, 1.5), ValueError, "l must be"),
    (lambda: hep.blatt_weisskopf([0.1], -1.0, 1), ValueError, "r must be non-negative"),
    (lambda: hep.covariant_factor_j([1.0], 5), ValueError, "j must be an integer from 0 to 4"),
    (lambda: hep.blatt_weisskopf(np.array([1, 2]), 1.0, 1), TypeError, "float32 or float64"),
    (lambda: hep.blatt_weisskopf(["a"], 1.0, 1), TypeError, "expected real numbers"),
    (lambda: hep.breit_wigner_q_f([0.7], [0.3], 0.0, 0.77, 0.15, 1.5, 1), ValueError, "q0 must be positive"),
    (lambda: hep.breit_wigner_q_f([0.7], [0.3], 0.3, float("nan"), 0.15, 1.5, 1), ValueError, "m0 must be"),
    (lambda: hep.breit_wigner_q_f(np.ones(3), np.ones(2), 0.3, 0.77, 0.15, 1.5, 1), ValueError, "broadcast"),
    (lambda: hep.breit_wigner_q_f(np.ones(3, np.float32), np.ones(3), 0.3, 0.77, 0.15, 1.5, 1), TypeError,
     "mixed precisions"),
])


def test_shapes_are_kept():
    q = np.linspace(0.1, 1, 12).reshape(3, 4)
    assert hep.blatt_weisskopf(q, 1.5, 1).shape == (3, 4)
    assert hep.breit_wigner_q_f(q + 0.5, q, 0.3, 0.77, 0.15, 1.5, 1).shape == (3, 4)
    assert hep.blatt_weisskopf(0.3, 1.5, 2).shape == ()


def test_precision_follows_the_arguments():
    # A float32 numpy scalar computes in float32, as a float32 array does.
    f = hep.blatt_weisskopf(np.float32(0.3), 1.5, 2)
    assert f.dtype == np.float32
    assert abs(float(f) - float(mp_blatt_weisskopf(float(np.float32(0.3)), 1.5, 2))) < 4 * EPS32
    # Arrays set the precision; Python numbers and numpy scalars follow them.
    q = np.linspace(0.1, 1, 5, dtype=np.float32)
    assert hep.breit_wigner_q_f(q + np.float32(0.5), q, 0.3, 0.77, 0.15, 1.5, 1).dtype == np.complex64
    with pytest.raises(TypeError, match="mixed precisions: m is float64, q is float32"):
        hep.breit_wigner_q_f(q.astype(np.float64) + 0.5, q, 0.3, 0.77, 0.15, 1.5, 1)
