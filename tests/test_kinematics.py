"""Tests of vecampfit.kinematics.

References: mpmath (decay momenta, the complex phase-space factor and its
sheet on both sides of threshold), sympy's derivative of the decay momentum
evaluated in mpmath, its closed form and central finite differences, Lorentz boosts of generated four-momenta
(covariant factor, helicity angle, Dalitz range), an independent helicity
formula in m13^2, and round trips between helicity variables and momenta.
"""

import functools
import os

import mpmath
import numpy as np
import pytest

from vecampfit import generation, kinematics as kin, vector3 as v3, vector4 as v4
from vecampfit import high_energy_physics as hep
from vecampfit.model_compiler import compile_model

mpmath.mp.dps = 40
EPS64 = np.finfo(np.float64).eps
EPS32 = np.finfo(np.float32).eps
MD, MK, MPI, MPI0 = 1.86484, 0.493677, 0.13957039, 0.1349768


def mp_q2(m0, m1, m2):
    m0, m1, m2 = (x if isinstance(x, mpmath.mpf) else mpmath.mpf(float(x)) for x in (m0, m1, m2))
    return (m0**2 - (m1 + m2) ** 2) * (m0**2 - (m1 - m2) ** 2) / (4 * m0**2)


def test_decay_momentum_against_mpmath():
    rng = np.random.default_rng(1)
    m1 = rng.uniform(0, 1, 500)
    m2 = rng.uniform(0, 1, 500)
    m0 = (m1 + m2) * (1 + np.exp(rng.uniform(-12, 1, 500)))
    ref = np.array([float(mpmath.sqrt(mp_q2(a, b, c))) for a, b, c in zip(m0, m1, m2)])
    q = kin.decay_momentum(m0, m1, m2)
    # Near threshold q is ill-conditioned (the rounding of m1 + m2 alone moves it):
    # errors are measured in ulps times the condition number 1 + (m1 + m2)/(m0 - m1 - m2).
    cond = 1 + (m1 + m2) / (m0 - m1 - m2)
    err = np.max(np.abs(q - ref) / ref / cond) / EPS64
    print(f"decay_momentum: largest error {err:.2f} ulp x condition number (float64)")
    assert err < 8
    q32 = kin.decay_momentum(m0.astype(np.float32), m1.astype(np.float32), m2.astype(np.float32))
    assert q32.dtype == np.float32
    ref32 = np.array([float(mpmath.sqrt(mp_q2(a, b, c))) for a, b, c in
                      zip(m0.astype(np.float32), m1.astype(np.float32), m2.astype(np.float32))])
    m32 = [a.astype(np.float32).astype(float) for a in (m0, m1, m2)]
    cond32 = 1 + (m32[1] + m32[2]) / (m32[0] - m32[1] - m32[2])
    assert np.max(np.abs(q32 - ref32) / ref32 / cond32) < 8 * EPS32
    q2 = kin.decay_momentum_squared(m0, m1, m2)
    assert np.max(np.abs(q2 - ref**2) / ref**2 / cond) < 16 * EPS64
    # From squared masses.
    x = np.linspace(0.37, 9.0, 57)
    ref_s = np.array([float(mpmath.sqrt(mp_q2(mpmath.sqrt(mpmath.mpf(float(v))), 0.5, 0.1))) for v in x])
    np.testing.assert_allclose(kin.decay_momentum_s(x, 0.25, 0.01), ref_s, rtol=1e-13)
    np.testing.assert_allclose(kin.decay_momentum_squared_s([0.04, 9.0], 0.25, 0.01),
                               [float(mp_q2(0.2, 0.5, 0.1)), float(mp_q2(3.0, 0.5, 0.1))], rtol=1e-13)
    # Below threshold: the squared momentum continues, the momentum raises.
    assert kin.decay_momentum_squared(0.5, 0.3, 0.3) < 0
    with pytest.raises(ValueError, match="threshold"):
        kin.decay_momentum(0.5, 0.3, 0.3)
    with pytest.raises(ValueError, match="non-negative"):
        kin.decay_momentum(1.0, -0.1, 0.3)
    with pytest.raises(ValueError, match="threshold"):
        kin.decay_momentum_s(0.25, 0.09, 0.09)


@functools.lru_cache(maxsize=None)
def sympy_dq_dm0():
    """dq/dm0 as sympy differentiates q(m0, m1, m2), evaluated in mpmath (40 digits)."""
    import sympy
    m0, m1, m2 = sympy.symbols("m0 m1 m2", positive=True)
    q = sympy.sqrt((m0**2 - (m1 + m2) ** 2) * (m0**2 - (m1 - m2) ** 2)) / (2 * m0)
    f = sympy.lambdify((m0, m1, m2), sympy.diff(q, m0), "mpmath")
    return lambda a, b, c: f(*(mpmath.mpf(float(x)) for x in (a, b, c)))


def near_threshold_masses(n, seed):
    """Masses with m0 from 1e-12 to 3 times (m1 + m2) above threshold, some equal, one zero."""
    rng = np.random.default_rng(seed)
    m1 = rng.uniform(0, 2, n)
    m2 = rng.uniform(0, 2, n)
    m2[: n // 10] = m1[: n // 10]
    m1[n // 10: n // 10 + 5] = 0.0
    m0 = (m1 + m2) * (1 + np.exp(rng.uniform(np.log(1e-12), np.log(3), n)))
    return m0, m1, m2


def test_decay_momentum_gradient_against_sympy():
    m0, m1, m2 = near_threshold_masses(400, 11)
    q, dq = kin.decay_momentum_gradient(m0, m1, m2)
    np.testing.assert_array_equal(q, kin.decay_momentum(m0, m1, m2))
    ref = sympy_dq_dm0()
    err = max(abs(mpmath.mpf(float(d)) / ref(a, b, c) - 1) for d, a, b, c in zip(dq, m0, m1, m2))
    print(f"\ndq/dm0 against sympy: largest relative error {float(err) / EPS64:.2f} eps")
    assert err < 6 * EPS64
    # float32: the same to a few float32 ulps (masses rounded to float32 first).
    a, b, c = (x.astype(np.float32) for x in (m0, m1, m2))
    keep = np.array([mpmath.mpf(float(x)) > mpmath.mpf(float(y)) + mpmath.mpf(float(z))
                     for x, y, z in zip(a, b, c)])
    q32, dq32 = kin.decay_momentum_gradient(a[keep], b[keep], c[keep])
    assert dq32.dtype == np.float32
    err32 = max(abs(mpmath.mpf(float(d)) / ref(x, y, z) - 1)
                for d, x, y, z in zip(dq32, a[keep], b[keep], c[keep]))
    print(f"float32: largest relative error {float(err32) / EPS32:.2f} eps")
    assert err32 < 6 * EPS32


def test_decay_momentum_gradient_closed_form_and_finite_differences():
    m0, m1, m2 = near_threshold_masses(300, 12)
    q, dq = kin.decay_momentum_gradient(m0, m1, m2)
    # Closed form: (m0^4 - (m1^2 - m2^2)^2) / (4 m0^3 q), in plain float64 away from threshold.
    far = m0 > 1.01 * (m1 + m2)
    closed = (m0**4 - (m1**2 - m2**2) ** 2) / (4 * m0**3 * q)
    np.testing.assert_allclose(dq[far], closed[far], rtol=1e-13)
    # Equal masses: dq/dm0 = m0 / (4 q).
    eq = m1 == m2
    np.testing.assert_allclose(dq[eq], m0[eq] / (4 * q[eq]), rtol=4 * EPS64)
    # Central differences of q in mpmath (40 digits), with a step of 1e-6 of the
    # distance to threshold (truncation error about 1e-12), at every point.
    for a, b, c, d in zip(m0, m1, m2, dq):
        a, b, c = (mpmath.mpf(float(x)) for x in (a, b, c))
        h = (a - b - c) * mpmath.mpf("1e-6")
        fd = (mpmath.sqrt(mp_q2(a + h, b, c)) - mpmath.sqrt(mp_q2(a - h, b, c))) / (2 * h)
        assert abs(d / fd - 1) < 1e-10, (a, b, c, d, fd)
    # ... and of decay_momentum itself in float64, where the step is well above
    # the rounding of m0 (1e-4 of the distance to threshold, at least 1e-5 m0).
    h = 1e-4 * (m0 - (m1 + m2))
    ok = h > 1e-9 * m0
    fd = (kin.decay_momentum(m0 + h, m1, m2) - kin.decay_momentum(m0 - h, m1, m2)) / (2 * h)
    assert ok.sum() > 100
    np.testing.assert_allclose(fd[ok], dq[ok], rtol=1e-6)


def test_decay_momentum_gradient_at_threshold_and_bad_input():
    m0, m1, m2 = threshold_masses(np.float64)
    above = np.array([mpmath.mpf(float(a)) >= mpmath.mpf(float(b)) + mpmath.mpf(float(c))
                      for a, b, c in zip(m0, m1, m2)])
    q, dq = kin.decay_momentum_gradient(m0[above], m1[above], m2[above])
    ref = sympy_dq_dm0()
    at = q == 0
    massless = (m1[above] == 0) | (m2[above] == 0)
    assert np.all(at[massless] <= (dq[massless] == 1.0))   # massless daughter: 1 at threshold
    assert np.all(np.isposinf(dq[at & ~massless])) and np.sum(at & ~massless) >= 2
    err = max(abs(mpmath.mpf(float(d)) / ref(a, b, c) - 1)
              for d, a, b, c in zip(dq[~at], m0[above][~at], m1[above][~at], m2[above][~at]))
    print(f"\ndq/dm0 a few ulps above threshold: largest relative error {float(err) / EPS64:.2f} eps")
    assert err < 6 * EPS64
    q, dq = kin.decay_momentum_gradient(1.0, 0.25, 0.25)
    assert isinstance(dq, np.float64) and dq == pytest.approx(1 / np.sqrt(3), rel=2 * EPS64)
    assert kin.decay_momentum_gradient(np.ones((2, 3)), 0.1, [0.2, 0.3, 0.4])[1].shape == (2, 3)
    with pytest.raises(ValueError, match="threshold"):
        kin.decay_momentum_gradient(m0[~above][0], m1[~above][0], m2[~above][0])
    with pytest.raises(ValueError, match="non-negative"):
        kin.decay_momentum_gradient(1.0, -0.1, 0.2)
    with pytest.raises(ValueError, match="positive"):
        kin.decay_momentum_gradient(0.0, 0.0, 0.0)


def test_momentum_analytic_continuation():
    m0 = np.array([0.2, 0.55, 0.59999, 0.6, 0.7, 2.0, 0.05])
    q = kin.momentum_analytic_continuation(m0, 0.3, 0.3)
    for x, v in zip(m0, q):
        q2 = mp_q2(x, 0.3, 0.3)
        ref = mpmath.sqrt(q2) if q2 >= 0 else 1j * mpmath.sqrt(-q2)
        assert abs(v - complex(ref)) <= 4 * EPS64 * max(abs(complex(ref)), 1e-300)
    assert q[0].real == 0 and q[0].imag > 0
    assert q[5].imag == 0
    # Below the pseudothreshold |m1 - m2|, q^2 > 0 again: real.
    w = kin.momentum_analytic_continuation(0.1, 0.5, 0.2)
    assert w.imag == 0 and w.real > 0
    assert kin.momentum_analytic_continuation(np.float32(0.5), 0.3, 0.3).dtype == np.complex64
    assert kin.momentum_analytic_continuation(np.array([0.5], np.float32), 0.3, 0.3).dtype == np.complex64


def mp_rho(s, m1, m2):
    """Physical-sheet rho: i sqrt(-(s - a)) sqrt(s - b) / (16 pi s), principal roots (mpmath)."""
    s = mpmath.mpc(s)
    a = (mpmath.mpf(m1) + mpmath.mpf(m2)) ** 2
    b = (mpmath.mpf(m1) - mpmath.mpf(m2)) ** 2
    return 1j * mpmath.sqrt(-(s - a)) * mpmath.sqrt(s - b) / (16 * mpmath.pi * s)


@pytest.mark.parametrize("m1, m2", [(MK, MPI), (MPI, MPI), (0.0, 0.0), (0.938, 0.494)])
def test_phase_space_2body_complex_sheet(m1, m2):
    a = (m1 + m2) ** 2
    b = (m1 - m2) ** 2
    rng = np.random.default_rng(2)
    s = rng.uniform(-3, 5, 300) + 1j * rng.uniform(-2, 2, 300)
    rho = kin.phase_space_2body_complex(s, m1, m2)
    ref = np.array([complex(mp_rho(x, m1, m2)) for x in s])
    err = np.max(np.abs(rho - ref) / np.abs(ref))
    print(f"m1={m1}, m2={m2}: largest relative error vs mpmath {err:.2e}")
    assert err < 16 * EPS64
    # Physical region above threshold, upper lip (s real, +0j, and s + i eps):
    # rho = q / (8 pi sqrt(s)) > 0, the real two-body phase-space factor.
    x = np.linspace(a + 0.01, a + 4, 50)
    # q / (8 pi sqrt(s)) = sqrt((s - a)(s - b)) / (16 pi s), from s itself (a rounded
    # sqrt(s) moves q by 1e-14 relative this close to threshold).
    am, bm = (mpmath.mpf(m1) + mpmath.mpf(m2)) ** 2, (mpmath.mpf(m1) - mpmath.mpf(m2)) ** 2
    phys = np.array([float(mpmath.sqrt((mpmath.mpf(v) - am) * (mpmath.mpf(v) - bm)) / (16 * mpmath.pi * v))
                     for v in x])
    np.testing.assert_allclose(kin.phase_space_2body_complex(x + 0j, m1, m2), phys, rtol=1e-14)
    np.testing.assert_allclose(kin.phase_space_2body_complex(x, m1, m2), phys, rtol=1e-14)
    up = kin.phase_space_2body_complex(x + 1e-9j, m1, m2)
    down = kin.phase_space_2body_complex(x - 1e-9j, m1, m2)
    np.testing.assert_allclose(up, phys, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(down, -phys, rtol=1e-6, atol=1e-9)  # the cut: lower lip
    lower = x.astype(np.complex128)
    lower.imag = -0.0  # the sign of a zero imaginary part selects the lip
    np.testing.assert_allclose(kin.phase_space_2body_complex(lower, m1, m2), -phys, rtol=1e-14)
    # Below threshold (and above the pseudothreshold): i |q| / (8 pi sqrt(s)),
    # continuous across the real axis (no cut there).
    if a - b > 0.01:
        x = np.linspace(max(b, 0) + 0.005, a - 0.005, 40)
        q2 = np.array([float(mp_q2(np.sqrt(v), m1, m2)) for v in x])
        below = 1j * np.sqrt(-q2) / (8 * np.pi * np.sqrt(x))
        np.testing.assert_allclose(kin.phase_space_2body_complex(x, m1, m2), below, rtol=1e-13)
        np.testing.assert_allclose(kin.phase_space_2body_complex(x + 1e-9j, m1, m2),
                                   kin.phase_space_2body_complex(x - 1e-9j, m1, m2), rtol=1e-6)
        # Consistent with the momentum continuation.
        np.testing.assert_allclose(kin.phase_space_2body_complex(x, m1, m2),
                                   kin.momentum_analytic_continuation(np.sqrt(x), m1, m2) / (8 * np.pi * np.sqrt(x)),
                                   rtol=1e-13)
    # The first sheet: Im q_cont(s) = Im[i sqrt(-(s - a))] >= 0 everywhere,
    # i.e. rho * 16 pi s / sqrt(s - b) has a non-negative imaginary part.
    qlike = rho * 16 * np.pi * s / np.sqrt(s - b)
    assert np.all(qlike.imag >= -1e-12)
    r32 = kin.phase_space_2body_complex(s.astype(np.complex64), m1, m2)
    assert r32.dtype == np.complex64
    assert np.max(np.abs(r32 - ref) / np.abs(ref)) < 1e-5
    with pytest.raises(ValueError, match="non-negative"):
        kin.phase_space_2body_complex(s, -1.0, m2)


def test_covariant_factor_is_gamma_of_the_resonance():
    s = generation.phase_space(MD, [MK, MPI, MPI0], 2000, seed=3)
    pk, ppi, ppi0 = s.momenta
    r = pk + ppi
    m12 = v4.mass(r)
    gamma = r[:, 3] / m12  # D at rest: f = E_R / m_R
    np.testing.assert_allclose(kin.covariant_factor(m12, MD, MPI0), gamma, rtol=1e-13)
    np.testing.assert_allclose(kin.covariant_factor(m12.astype(np.float32), MD, MPI0), gamma, rtol=4 * EPS32)
    with pytest.raises(ValueError, match="positive"):
        kin.covariant_factor([0.0], MD, MPI0)


def _m13_cos(m12s, m23s, M, m1, m2, m3):
    """Independent helicity cosine from m13^2 and E1*, E3* (mpmath)."""
    m12s, m23s = mpmath.mpf(float(m12s)), mpmath.mpf(float(m23s))
    M, m1, m2, m3 = (mpmath.mpf(x) for x in (M, m1, m2, m3))
    m13s = M**2 + m1**2 + m2**2 + m3**2 - m12s - m23s
    m12 = mpmath.sqrt(m12s)
    e1 = (m12s + m1**2 - m2**2) / (2 * m12)
    e3 = (M**2 - m12s - m3**2) / (2 * m12)
    p1 = mpmath.sqrt(e1**2 - m1**2)
    p3 = mpmath.sqrt(e3**2 - m3**2)
    return -(m1**2 + m3**2 + 2 * e1 * e3 - m13s) / (2 * p1 * p3)


def test_dalitz_routines():
    s = generation.phase_space(MD, [MK, MPI, MPI0], 3000, seed=4)
    p1, p2, p3 = s.momenta
    m12s = v4.mass_squared(p1 + p2)
    m23s = v4.mass_squared(p2 + p3)
    # Helicity angle from boosts: particle 1 in the (12) frame vs the (12) direction.
    r = p1 + p2
    cos_ref = v3.cos_angle(v4.boost_to_rest_frame(p1, r)[:, :3], r[:, :3])
    cos_t = kin.dalitz_cos_helicity_angle(m12s, m23s, MD, MK, MPI, MPI0)
    err = np.max(np.abs(cos_t - cos_ref))
    print(f"helicity cosine vs boosts: largest difference {err:.2e}")
    assert err < 1e-10
    idx = np.arange(0, 3000, 97)
    ref = np.array([float(_m13_cos(m12s[i], m23s[i], MD, MK, MPI, MPI0)) for i in idx])
    np.testing.assert_allclose(cos_t[idx], ref, atol=1e-11)
    assert np.all(kin.dalitz_inside(m12s, m23s, MD, MK, MPI, MPI0))
    lo, hi = kin.dalitz_m23_squared_range(m12s, MD, MK, MPI, MPI0)
    assert np.all((lo <= m23s + 1e-12) & (m23s <= hi + 1e-12))
    # The ends of the range are cos theta = +1 and -1.
    np.testing.assert_allclose(kin.dalitz_cos_helicity_angle(m12s, lo, MD, MK, MPI, MPI0), 1, atol=1e-9)
    np.testing.assert_allclose(kin.dalitz_cos_helicity_angle(m12s, hi, MD, MK, MPI, MPI0), -1, atol=1e-9)
    # Points outside: beyond the m23 range, or m12 out of range, or NaN.
    assert not np.any(kin.dalitz_inside(m12s, hi + 1e-6, MD, MK, MPI, MPI0))
    assert not np.any(kin.dalitz_inside(m12s, lo - 1e-6, MD, MK, MPI, MPI0))
    assert not kin.dalitz_inside(0.1, 1.0, MD, MK, MPI, MPI0)
    assert not kin.dalitz_inside(np.nan, 1.0, MD, MK, MPI, MPI0)
    # Against mpmath's |cos| <= 1 criterion on a grid.
    lo12, hi12 = kin.dalitz_m12_squared_range(MD, MK, MPI, MPI0)
    xs, ys = np.meshgrid(np.linspace(lo12 + 1e-3, hi12 - 1e-3, 23), np.linspace(0.0, 2.0, 23))
    ins = kin.dalitz_inside(xs, ys, MD, MK, MPI, MPI0)
    ref_in = np.vectorize(lambda x, y: abs(_m13_cos(x, y, MD, MK, MPI, MPI0)) <= 1)(xs, ys)
    np.testing.assert_array_equal(ins, ref_in)
    assert 50 < ins.sum() < 23 * 23 - 50
    # float32
    c32 = kin.dalitz_cos_helicity_angle(m12s.astype(np.float32), m23s.astype(np.float32), MD, MK, MPI, MPI0)
    assert c32.dtype == np.float32 and np.max(np.abs(c32 - cos_ref)) < 5e-3
    with pytest.raises(ValueError, match="range"):
        kin.dalitz_m23_squared_range([0.1], MD, MK, MPI, MPI0)
    # At an end of the m12^2 range (exactly representable here: (0.5 + 0.25)^2) and
    # beyond it.  (The rounded (MK + MPI)^2 lies above the exact threshold, inside.)
    with pytest.raises(ValueError, match="undefined"):
        kin.dalitz_cos_helicity_angle([0.5625], [1.0], MD, 0.5, 0.25, MPI0)
    with pytest.raises(ValueError, match="undefined"):
        kin.dalitz_cos_helicity_angle([np.nextafter(0.5625, 0)], [1.0], MD, 0.5, 0.25, MPI0)
    with pytest.raises(ValueError, match="undefined"):
        kin.dalitz_cos_helicity_angle([(MD - MPI0) ** 2 * (1 + 1e-15)], [1.0], MD, MK, MPI, MPI0)
    with pytest.raises(ValueError, match="threshold"):
        kin.dalitz_inside(1.0, 1.0, 0.5, MK, MPI, MPI0)


def _random_angles(names, n, rng):
    return {k: (rng.uniform(-1, 1, n), rng.uniform(-np.pi, np.pi, n)) for k in names}


def test_helicity_round_trip_three_body():
    rng = np.random.default_rng(5)
    n = 2000
    chain = ("D0", ("R", "K-", "pi+"), "pi0")
    mr = rng.uniform(MK + MPI + 1e-3, MD - MPI0 - 1e-3, n)
    masses = {"D0": MD, "K-": MK, "pi+": MPI, "pi0": MPI0, "R": mr}
    angles = _random_angles(["D0", "R"], n, rng)
    parent = np.stack([rng.normal(size=n), rng.normal(size=n), rng.normal(size=n) * 3, np.zeros(n)], 1)
    parent[:, 3] = np.sqrt(MD**2 + np.sum(parent[:, :3] ** 2, 1))
    mom = kin.helicity_to_momenta(chain, masses, angles, parent=parent)
    total = mom["K-"] + mom["pi+"] + mom["pi0"]
    assert np.max(np.abs(total - parent)) < 1e-12 * np.max(parent[:, 3])
    np.testing.assert_allclose(v4.mass(mom["R"]), mr, rtol=1e-12)
    got_m, got_a = kin.momenta_to_helicity(chain, {k: mom[k] for k in ("K-", "pi+", "pi0")})
    err = max(np.max(np.abs(got_m["R"] - mr)), np.max(np.abs(got_m["D0"] - MD)))
    for k in ("D0", "R"):
        err = max(err, np.max(np.abs(got_a[k][0] - angles[k][0])))
        dphi = np.angle(np.exp(1j * (got_a[k][1] - angles[k][1])))
        err = max(err, np.max(np.abs(dphi)))
    print(f"three-body helicity round trip: largest error {err:.2e}")
    assert err < 1e-12
    # The chain's helicity angle of K- is the Dalitz helicity angle.
    m12s = mr**2
    m23s = v4.mass_squared(mom["pi+"] + mom["pi0"])
    np.testing.assert_allclose(kin.dalitz_cos_helicity_angle(m12s, m23s, MD, MK, MPI, MPI0), angles["R"][0], atol=1e-10)


def test_helicity_round_trip_four_body_and_momenta_first():
    # e+e- -> phi f0, phi -> K1 K2, f0 -> pi1 pi2 at sqrt(s) = 2 GeV.
    rng = np.random.default_rng(6)
    n = 1000
    chain = ("gamma*", ("phi", "K1", "K2"), ("f0", "pi1", "pi2"))
    mk, mpi = 0.493677, 0.13957039
    s = generation.phase_space(2.0, [mk, mk, mpi, mpi], n, seed=7)
    mom = dict(zip(["K1", "K2", "pi1", "pi2"], s.momenta))
    masses, angles = kin.momenta_to_helicity(chain, mom)
    masses.update({"K1": mk, "K2": mk, "pi1": mpi, "pi2": mpi})
    back = kin.helicity_to_momenta(chain, masses, angles)
    err = max(np.max(np.abs(back[k] - mom[k])) for k in mom) / 2.0
    print(f"four-body momenta -> helicity -> momenta: largest error {err:.2e} (relative to sqrt(s))")
    assert err < 1e-12
    # Variables first, with a parent at rest.
    m_phi = rng.uniform(2 * mk + 0.01, 1.3, n)
    m_f0 = rng.uniform(2 * mpi + 0.01, 2.0 - m_phi - 0.01)
    masses = {"gamma*": 2.0, "phi": m_phi, "f0": m_f0, "K1": mk, "K2": mk, "pi1": mpi, "pi2": mpi}
    angles = _random_angles(["gamma*", "phi", "f0"], n, rng)
    mom = kin.helicity_to_momenta(chain, masses, angles)
    gm, ga = kin.momenta_to_helicity(chain, {k: mom[k] for k in ("K1", "K2", "pi1", "pi2")})
    for k in ("gamma*", "phi", "f0"):
        assert np.max(np.abs(ga[k][0] - angles[k][0])) < 1e-12
        assert np.max(np.abs(np.angle(np.exp(1j * (ga[k][1] - angles[k][1]))))) < 1e-12
    np.testing.assert_allclose(gm["phi"], m_phi, rtol=1e-13)
    np.testing.assert_allclose(gm["f0"], m_f0, rtol=1e-13)
    with pytest.raises(ValueError, match="below threshold"):
        kin.helicity_to_momenta(chain, dict(masses, phi=0.5), angles)
    with pytest.raises(ValueError, match="missing"):
        kin.helicity_to_momenta(chain, masses, {"phi": angles["phi"]})
    with pytest.raises(ValueError, match="twice"):
        kin.momenta_to_helicity(("X", "a", "a"), {"a": mom["K1"]})


def test_dz_resonance_model_outside_the_package(models_dir, model_cache):
    mods = compile_model(os.path.join(models_dir, "dz_resonance_model.pyx"), (1, 4, 16), build_dir=model_cache)
    s = generation.phase_space(MD, [MK, MPI, MPI0], 61, seed=8)
    pk, ppi, ppi0 = s.momenta
    x = v4.mass_squared(pk + ppi)   # m2(K- pi+)
    y = v4.mass_squared(pk + ppi0)  # m2(K- pi0)
    m0, g0, r, rd = 0.89167, 0.0514, 1.5, 5.0
    q0 = kin.decay_momentum(m0, MK, MPI0)
    p0 = kin.decay_momentum(MD, m0, MPI)
    inv_f0 = 1 / hep.blatt_weisskopf(q0, r, 1)
    inv_fd0 = 1 / hep.blatt_weisskopf(p0, rd, 1)
    c = 0.7 * np.exp(0.3j)
    par = np.array([MD, MK, MPI, MPI0, m0, g0, r, rd, 1 / q0, inv_f0, inv_fd0, c.real, c.imag])
    # numpy reference from the Python routines.
    m = np.sqrt(y)
    q = kin.decay_momentum(m, MK, MPI0)
    p = kin.decay_momentum(MD, m, MPI)
    z = MD**2 + MK**2 + MPI**2 + MPI0**2 - x - y  # m2(pi+ pi0)
    ref = (c * hep.blatt_weisskopf_ratio(p, p0, rd, 1) * hep.breit_wigner_q_f_nophsp(m, q, q0, m0, g0, r, 1)
           * (x - z + (MD**2 - MPI**2) * (MPI0**2 - MK**2) / m0**2))
    f = kin.covariant_factor(m, MD, MPI)
    cos_t = kin.dalitz_cos_helicity_angle(y, z, MD, MK, MPI0, MPI)
    ang_ref = hep.covariant_angular_distribution(p, q, f, cos_t, 1)
    for length, mod in mods.items():
        amp, ang = mod.kstar_term(x, y, par)
        np.testing.assert_allclose(amp, ref, rtol=1e-12)
        np.testing.assert_allclose(ang, ang_ref, rtol=1e-12, atol=1e-15)
        amp32, ang32 = mod.kstar_term(x.astype(np.float32), y.astype(np.float32), par.astype(np.float32))
        assert ang32.dtype == np.float32
        np.testing.assert_allclose(amp32, ref, rtol=2e-3, atol=2e-3 * np.max(np.abs(ref)))


def ulp_error(computed, exact, dtype):
    """|computed - exact| in units of the spacing of dtype at the exact value (mpf)."""
    exact = mpmath.mpf(exact)
    mant = np.finfo(dtype).nmant
    emin = np.finfo(dtype).minexp
    _, e = mpmath.frexp(exact) if exact != 0 else (0, emin)
    ulp = mpmath.ldexp(1, max(int(e) - 1, emin) - mant)
    return float(abs(mpmath.mpf(float(computed)) - exact) / ulp)


def threshold_masses(dtype):
    """(m0, m1, m2) at and just above the threshold m1 + m2, for mass pairs whose sum
    rounds up or down, with large mass hierarchies (electron and B meson, pion and kaon)."""
    t = np.dtype(dtype).type
    rows = []
    for m1, m2 in ((0.000511, 5.27966), (0.13957039, 0.493677), (0.003922388, 0.6604533),
                   (0.000511, 0.10566), (1.86484, 0.13957), (0.0, 0.493677), (0.1349768, 0.1349768)):
        m1, m2 = t(m1), t(m2)
        m0 = t(m1 + m2)
        for _ in range(12):
            rows.append((m0, m1, m2))
            m0 = np.nextafter(m0, t(np.inf))
    return [np.array(c, dtype) for c in zip(*rows)]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_decay_momentum_at_threshold(dtype):
    # The rounding of m1 + m2 must not decide q: at m0 = fl(m1 + m2) (and a few ulps
    # above it) q is small but determined by the exact masses, to a few ulps.
    m0, m1, m2 = threshold_masses(dtype)
    exact = [mp_q2(a, b, c) for a, b, c in zip(m0, m1, m2)]
    above = np.array([mpmath.mpf(float(a)) >= mpmath.mpf(float(b)) + mpmath.mpf(float(c))
                      for a, b, c in zip(m0, m1, m2)])
    assert 0 < above.sum() < above.size    # both sides of the exact threshold occur
    q2 = kin.decay_momentum_squared(m0, m1, m2)
    assert q2.dtype == dtype
    err2 = max(ulp_error(v, e, dtype) for v, e in zip(q2, exact))
    q = kin.decay_momentum(m0[above], m1[above], m2[above])
    err = max(ulp_error(v, mpmath.sqrt(e), dtype) for v, e in zip(q, np.array(exact, dtype=object)[above]))
    print(f"\n{np.dtype(dtype)}: decay momentum at threshold, largest error q {err:.2f} ulp, q^2 {err2:.2f} ulp")
    assert err < 4 and err2 < 6
    # The Python check of the threshold is exact too: below it, ValueError.
    for a, b, c in zip(m0[~above], m1[~above], m2[~above]):
        with pytest.raises(ValueError, match="threshold"):
            kin.decay_momentum(a, b, c)
    # Continued momentum: i |q| just below, real just above.
    w = kin.momentum_analytic_continuation(m0[~above][:1], float(m1[~above][0]), float(m2[~above][0]))
    assert w[0].real == 0 and w[0].imag > 0


@pytest.mark.parametrize("dtype, scales", [(np.float64, (1e-150, 1e-100, 1e100, 1e150)),
                                           (np.float32, (1e-18, 1e-12, 1e12, 1e18))])
def test_decay_momentum_extreme_scales(dtype, scales):
    # No intermediate beyond about m0^2 (float32: the product of four factors
    # overflowed above m0 ~ 1e9 and lost precision below 1e-9).
    worst = 0
    for s in scales:
        m0, m1, m2 = (np.array([f * s], dtype) for f in (3.0, 1.0, 0.5))
        ref = mp_q2(m0[0], m1[0], m2[0])
        worst = max(worst, ulp_error(kin.decay_momentum(m0, m1, m2)[0], mpmath.sqrt(ref), dtype),
                    ulp_error(kin.decay_momentum_squared(m0, m1, m2)[0], ref, dtype))
    print(f"\n{np.dtype(dtype)}: decay momentum at scales {scales}: largest error {worst:.2f} ulp")
    assert worst < 4


def mp_threshold_s(m1s, m2s):
    """(m1 -+ m2)^2 = m1s + m2s -+ 2 sqrt(m1s m2s), exact when a mass is 0 (mpmath)."""
    m1s, m2s = mpmath.mpf(float(m1s)), mpmath.mpf(float(m2s))
    cross = 2 * mpmath.sqrt(m1s * m2s)
    return m1s + m2s - cross, m1s + m2s + cross


def mp_q2_s(s, m1s, m2s):
    with mpmath.workdps(80):
        low, high = mp_threshold_s(m1s, m2s)
        s = mpmath.mpf(float(s))
        return (s - high) * (s - low) / (4 * s)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_decay_momentum_s_at_threshold(dtype):
    # s - (m1 + m2)^2 with (m1 + m2)^2 = m1s + m2s + 2 sqrt(m1s m2s) carried beyond
    # working precision: accurate at threshold, where the rounded square decided before.
    t = np.dtype(dtype).type
    worst = 0
    for m1, m2 in ((0.13957039, 0.493677), (0.000511, 5.27966), (0.1349768, 0.1349768), (0.0, 0.493677)):
        m1s, m2s = float(t(m1 * m1)), float(t(m2 * m2))
        with mpmath.workdps(80):
            a = mp_threshold_s(m1s, m2s)[1]
            s = [t(float(a))]
            for _ in range(16):
                s.append(np.nextafter(s[-1], t(np.inf)))
            s = np.array(s + [t(float(a) * (1 + f)) for f in (1e-12, 1e-8, 1e-4, 0.1, 3.0)], dtype)
            # Above threshold only (decided at 80 digits; exact when a mass is 0).
            s = s[np.array([mpmath.mpf(float(v)) > a for v in s])]
        ref = [mp_q2_s(v, m1s, m2s) for v in s]
        q2 = kin.decay_momentum_squared_s(s, m1s, m2s)
        q = kin.decay_momentum_s(s, m1s, m2s)
        assert q.dtype == dtype
        worst = max(worst, max(ulp_error(v, e, dtype) for v, e in zip(q2, ref)),
                    max(ulp_error(v, mpmath.sqrt(e), dtype) for v, e in zip(q, ref)))
    # Squared masses of 1e-200 and 1e200 GeV^2 (the root of m1s m2s is taken as m1 m2).
    if dtype == np.float64:
        for scale in (1e-200, 1e200):
            s, m1s, m2s = 9 * scale, scale, 0.25 * scale
            worst = max(worst, ulp_error(kin.decay_momentum_s(s, m1s, m2s), mpmath.sqrt(mp_q2_s(s, m1s, m2s)), dtype))
    print(f"\n{np.dtype(dtype)}: decay momentum from s at threshold: largest error {worst:.2f} ulp")
    assert worst < 6


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_phase_space_2body_at_threshold(dtype):
    # rho on the real axis just above threshold: (m1 + m2)^2 is not rounded.
    t = np.dtype(dtype).type
    cdtype = np.complex64 if dtype == np.float32 else np.complex128
    worst = 0
    for m1, m2 in ((0.13957039, 0.493677), (0.000511, 5.27966), (0.0, 0.493677)):
        m1, m2 = float(t(m1)), float(t(m2))
        a = (mpmath.mpf(m1) + mpmath.mpf(m2)) ** 2
        s = [t(float(a))]
        for _ in range(16):
            s.append(np.nextafter(s[-1], t(np.inf)))
        s = np.array(s, dtype)
        s = s[np.array([mpmath.mpf(float(v)) > a for v in s])]
        rho = kin.phase_space_2body_complex(s.astype(cdtype), m1, m2)
        b = (mpmath.mpf(m1) - mpmath.mpf(m2)) ** 2
        for v, r in zip(s, rho):
            x = mpmath.mpf(float(v))
            ref = mpmath.sqrt((x - a) * (x - b)) / (16 * mpmath.pi * x)   # upper lip, s + i0
            assert r.imag == 0
            worst = max(worst, ulp_error(r.real, ref, dtype))
    print(f"\n{np.dtype(dtype)}: rho just above threshold: largest error {worst:.2f} ulp")
    assert worst < 6


def mp_m23_range(m12s, m0, m1, m2, m3):
    m12s, m0, m1, m2, m3 = (mpmath.mpf(float(v)) for v in (m12s, m0, m1, m2, m3))
    m12 = mpmath.sqrt(m12s)
    e2 = (m12s - m1**2 + m2**2) / (2 * m12)
    e3 = (m0**2 - m12s - m3**2) / (2 * m12)
    p2 = mpmath.sqrt(max(e2**2 - m2**2, 0))
    p3 = mpmath.sqrt(max(e3**2 - m3**2, 0))
    return m2**2 + m3**2 + 2 * (e2 * e3 - p2 * p3), m2**2 + m3**2 + 2 * (e2 * e3 + p2 * p3)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_dalitz_m23_range_without_cancellation(dtype):
    # (E2 + E3)^2 - (p2 + p3)^2 cancelled: for massless particles near the lower
    # end of m12^2 the lower limit (0) came out as -1630 in float32.
    rng = np.random.default_rng(8)
    t = np.dtype(dtype).type
    worst = 0
    for masses in ((5.27966, 0.0, 0.0, 0.0), (5.27966, 0.000511, 0.000511, 0.493677),
                   (5.27966, 0.493677, 0.13957, 0.000511), (MD, MK, MPI, MPI0)):
        m0, m1, m2, m3 = (float(t(m)) for m in masses)
        lo12, hi12 = kin.dalitz_m12_squared_range(m0, m1, m2, m3)
        w = hi12 - lo12
        m12s = np.concatenate([rng.uniform(lo12, hi12, 40), lo12 + w * np.exp(rng.uniform(-30, -1, 40)),
                               hi12 - w * np.exp(rng.uniform(-30, -1, 40))]).astype(dtype)
        m12s = m12s[np.array([mpmath.mpf((m1 + m2) ** 2) <= mpmath.mpf(float(v)) <= (mpmath.mpf(m0) - mpmath.mpf(m3)) ** 2
                              for v in m12s])]
        lo, hi = kin.dalitz_m23_squared_range(m12s, m0, m1, m2, m3)
        for x, a, b in zip(m12s, lo, hi):
            ra, rb = mp_m23_range(x, m0, m1, m2, m3)
            worst = max(worst, ulp_error(a, ra, dtype), ulp_error(b, rb, dtype))
    print(f"\n{np.dtype(dtype)}: m23^2 range: largest error {worst:.2f} ulp")
    assert worst < 8
    # Massless: the lower limit is exactly 0.
    lo, _ = kin.dalitz_m23_squared_range(np.array([1e-8, 1.0, 20.0], dtype), 5.27966, 0.0, 0.0, 0.0)
    assert np.all(lo == 0)


def test_float32_scalars_compute_in_float32():
    q = kin.decay_momentum(np.float32(1.0), np.float32(0.3), np.float32(0.2))
    assert q.dtype == np.float32
    assert kin.decay_momentum(np.float32(1.0), 0.3, 0.2).dtype == np.float32
    assert kin.covariant_factor(np.float32(1.0), MD, MPI0).dtype == np.float32
    # An array decides the precision; numpy scalars of another precision adapt to it.
    assert kin.decay_momentum(np.array([1.0]), np.float32(0.3), 0.2).dtype == np.float64
    with pytest.raises(TypeError, match="mixed precisions"):
        kin.decay_momentum(np.float32(1.0), np.float64(0.3), 0.2)
