"""Tests of the Flatte distribution and the K-matrix of vecampfit.high_energy_physics.

References: the Flatte amplitude in mpmath with principal complex square
roots (its own analytic continuation); the K-matrix amplitude as a direct
numpy complex-matrix computation (K, P, rho, n built from their formulas,
numpy.linalg.solve); the unitarity of the S-wave T-matrix
(Im T = T rho T* above thresholds); block routines of every tested vector
length against the Python routines through a user's model.
"""

import math
import os

import mpmath
import numpy as np
import pytest

from vecampfit import high_energy_physics as hep
from vecampfit import kinematics as kin
from vecampfit.model_compiler import compile_model

from numeric_checks import bad_input_test

mpmath.mp.dps = 40
EPS64 = np.finfo(np.float64).eps
EPS32 = np.finfo(np.float32).eps
MPI, MK = 0.13957039, 0.493677
# f0(980)-like Flatte parameters (GeV)
M0, G1, G2 = 0.965, 0.171, 0.72


def mp_flatte(m, m0, g1, g2, m11, m12, m21, m22):
    m, m0, g1, g2 = (mpmath.mpf(float(x)) for x in (m, m0, g1, g2))

    def q(a, b):
        a, b = mpmath.mpf(float(a)), mpmath.mpf(float(b))
        q2 = (m**2 - (a + b) ** 2) * (m**2 - (a - b) ** 2) / (4 * m**2)
        return mpmath.sqrt(mpmath.mpc(q2))  # principal root: i |q| below threshold

    rho1, rho2 = 2 * q(m11, m12) / m, 2 * q(m21, m22) / m
    return 1 / (m0**2 - m**2 - 1j * m0 * (g1 * rho1 + g2 * rho2))


def test_flatte_against_mpmath():
    m = np.concatenate([np.linspace(0.05, 1.8, 701), [2 * MPI, 2 * MK, 2 * MK - 1e-9, 2 * MK + 1e-9, M0]])
    ref = np.array([complex(mp_flatte(x, M0, G1, G2, MPI, MPI, MK, MK)) for x in m])
    out = hep.flatte(m, M0, G1, G2, MPI, MPI, MK, MK)
    assert out.dtype == np.complex128
    # Condition number of 1/D: (m0^2 + m^2 + |width terms|) / |D|
    cond = (M0**2 + m**2 + M0 * (G1 + G2) * 4) * np.abs(ref)
    err = np.max(np.abs(out - ref) / np.abs(ref) / cond) / EPS64
    print(f"flatte: largest relative error {err:.2f} eps x condition number (float64)")
    assert err < 8
    out32 = hep.flatte(m.astype(np.float32), M0, G1, G2, MPI, MPI, MK, MK)
    assert out32.dtype == np.complex64
    ref32 = np.array([complex(mp_flatte(x, np.float32(M0), np.float32(G1), np.float32(G2), np.float32(MPI),
                                        np.float32(MPI), np.float32(MK), np.float32(MK)))
                      for x in m.astype(np.float32)])
    err32 = np.max(np.abs(out32 - ref32) / np.abs(ref32) / cond) / EPS32
    print(f"flatte: largest relative error {err32:.2f} eps x condition number (float32)")
    assert err32 < 8
    # From precomputed squared momenta (negative below threshold): the same.
    q1s = kin.decay_momentum_squared(m, MPI, MPI)
    q2s = kin.decay_momentum_squared(m, MK, MK)
    np.testing.assert_allclose(hep.flatte_q2(m, q1s, q2s, M0, G1, G2), out, rtol=4 * EPS64)
    # Below the pi pi threshold both momenta are imaginary: the amplitude is real.
    below = m < 2 * MPI
    assert np.all(out[below].imag == 0) and np.all(out[below].real != 0)
    # Continuous across the K K threshold (a cusp, no jump).
    a, b = hep.flatte([2 * MK - 1e-10, 2 * MK + 1e-10], M0, G1, G2, MPI, MPI, MK, MK)
    assert abs(a - b) < 1e-3 * abs(a)


def test_flatte_reduces_to_breit_wigner():
    """Without the second channel, far above threshold: a Breit-Wigner with width g1 rho1(m)."""
    m = np.linspace(0.5, 1.5, 51)
    rho1 = 2 * kin.decay_momentum(m, MPI, MPI) / m
    expected = 1 / (M0**2 - m**2 - 1j * M0 * G1 * rho1)
    np.testing.assert_allclose(hep.flatte(m, M0, G1, 0.0, MPI, MPI, MK, MK), expected, rtol=8 * EPS64)


# --- K-matrix ------------------------------------------------------------------------------------

def bw_polynomial(x, l):
    """Blatt-Weisskopf polynomials P_l(z^2) = 1/F^2 (test-local copy of the paper's list)."""
    return [1 + 0 * x, x + 1, x**2 + 3 * x + 9, x**3 + 6 * x**2 + 45 * x + 225,
            x**4 + 10 * x**3 + 135 * x**2 + 1575 * x + 11025,
            x**5 + 15 * x**4 + 315 * x**3 + 6300 * x**2 + 99225 * x + 893025][l]


def ref_q(s, ma, mb):
    """Decay momentum, principal complex root (i|q| below threshold)."""
    return np.sqrt(((s - (ma + mb) ** 2) * (s - (ma - mb) ** 2) / (4 * s)).astype(complex))


def ref_rho(s, ma, mb):
    """Paper eq. phase_space_factor with a principal complex root (i|rho| below threshold),
    at 50 digits (near threshold s - (ma + mb)^2 cancels in float64)."""
    with mpmath.workdps(50):
        ma, mb = mpmath.mpf(float(ma)), mpmath.mpf(float(mb))
        out = [mpmath.sqrt(mpmath.mpc((x - (ma + mb) ** 2) * (x - (ma - mb) ** 2)))
               / (16 * mpmath.pi * x) for x in (mpmath.mpf(float(v)) for v in np.ravel(s))]
    return np.array([complex(v) for v in out]).reshape(np.shape(s))


def ref_n(q2, q0, r, l):
    """(q/q0)^l F(q)/F(q0) from the squared momentum, principal complex root (i|q| below threshold)."""
    q = np.sqrt(q2.astype(complex))
    f = 1 / np.sqrt(bw_polynomial(q2 * r * r, l))
    f0 = 1 / math.sqrt(bw_polynomial(q0 * q0 * r * r, l))
    return (q / q0) ** l * f / f0


def mp_n(q2, q0, r, l):
    """ref_n in mpmath."""
    q2, q0, r = mpmath.mpf(float(q2)), mpmath.mpf(q0), mpmath.mpf(r)
    q = mpmath.sqrt(mpmath.mpc(q2))
    return (q / q0) ** l * mpmath.sqrt(bw_polynomial(q0 * q0 * r * r, l) / bw_polynomial(q2 * r * r, l))


CHANNELS = [(MPI, MPI), (MK, MK)]
POLES = [(0.98, (0.45, 0.9), 1.2 - 0.4j), (1.45, (0.35, -0.25), -0.3 + 0.8j)]  # m_R, (g1, g2), A_R
B = np.array([[0.4, -0.15], [-0.15, 0.2]])
A_NONRES = np.array([0.3 + 0.1j, -0.2 + 0.05j])


def numpy_k_and_p(s, nc):
    k = np.broadcast_to(B[:nc, :nc], s.shape + (nc, nc)).copy()
    p = np.broadcast_to(A_NONRES[:nc], s.shape + (nc,)).copy()
    for m_r, g, a_r in POLES:
        g = np.array(g[:nc])
        t = 1 / (m_r**2 - s)
        k += np.outer(g, g) * t[:, None, None]
        p += a_r * g * t[:, None]
    return k, p


def our_k_and_p(s, nc, combined=False):
    single = np.asarray(s).dtype == np.float32
    k = B[:nc, :nc].astype(np.float32 if single else np.float64)
    p = A_NONRES[:nc].astype(np.complex64 if single else np.complex128)
    for m_r, g, a_r in POLES:
        if combined:
            k, p = hep.k_matrix_p_vector_add_pole(k, p, s, m_r, a_r, g[:nc])
        else:
            k = hep.k_matrix_add_pole(k, s, m_r, g[:nc])
            p = hep.p_vector_add_pole(p, s, m_r, a_r, g[:nc])
    return k, p


S = np.concatenate([np.linspace(0.1, 3.0, 301), [0.5, 4 * MK**2 - 1e-6, 4 * MK**2 + 1e-6]])


@pytest.mark.parametrize("nc", [1, 2])
def test_poles_against_numpy(nc):
    k_ref, p_ref = numpy_k_and_p(S, nc)
    for combined in (False, True):
        k, p = our_k_and_p(S, nc, combined)
        assert k.shape == (len(S), nc, nc) and p.shape == (len(S), nc)
        scale_k = np.sum([np.abs(np.outer(g[:nc], g[:nc]) / (m**2 - S)[:, None, None]) for m, g, _ in POLES],
                         axis=0) + np.abs(B[:nc, :nc])
        err = np.max(np.abs(k - k_ref) / scale_k) / EPS64
        print(f"k_matrix_add_pole ({nc} channel(s), combined={combined}): largest error {err:.2f} eps")
        assert err < 8
        scale_p = np.sum([np.abs(a * np.array(g[:nc]) / (m**2 - S)[:, None]) for m, g, a in POLES],
                         axis=0) + np.abs(A_NONRES[:nc])
        assert np.max(np.abs(p - p_ref) / scale_p) < 8 * EPS64
    k32, p32 = our_k_and_p(S.astype(np.float32), nc)
    assert k32.dtype == np.float32 and p32.dtype == np.complex64


@pytest.mark.parametrize("l", range(6))
def test_n_factor_and_continuation(l):
    s = np.linspace(0.05, 3.0, 300)
    q0, r = 0.4, 1.5
    q2 = kin.decay_momentum_squared(np.sqrt(s), MK, MK)
    n = hep.k_matrix_n_factor(q2, q0, r, l)
    ref = np.array([complex(mp_n(x, q0, r, l)) for x in q2])
    err = np.max(np.abs(n - ref) / np.abs(ref)) / EPS64
    print(f"k_matrix_n_factor, l={l}: largest relative error {err:.2f} eps (float64)")
    assert err < 64
    # Above threshold: (q/q0)^l F(q)/F(q0) with the module's formfactor.
    above = q2 > 0
    q = np.sqrt(q2[above])
    np.testing.assert_allclose(n[above].real, (q / q0) ** l * hep.blatt_weisskopf_ratio(q, q0, r, l),
                               rtol=32 * EPS64)
    assert np.all(n[above].imag == 0)
    # Below: n = i^l |n|, n^2 real.
    below = ~above
    np.testing.assert_allclose((n[below] ** 2).imag, 0, atol=1e-12 * np.max(np.abs(n[below]) ** 2))
    np.testing.assert_allclose(n[below] / np.abs(n[below]), 1j**l, atol=4 * EPS64)
    q2_32 = q2.astype(np.float32)
    n32 = hep.k_matrix_n_factor(q2_32, q0, r, l)
    assert n32.dtype == np.complex64
    ref32 = np.array([complex(mp_n(x, q0, r, l)) for x in q2_32])
    err32 = np.max(np.abs(n32 - ref32) / np.abs(ref32)) / EPS32
    print(f"k_matrix_n_factor, l={l}: largest relative error {err32:.2f} eps (float32)")
    assert err32 < 16


@pytest.mark.parametrize("nc", [1, 2])
@pytest.mark.parametrize("l", [None, 1, 2])
def test_k_matrix_amplitude_against_numpy(nc, l):
    s = S
    k, p = numpy_k_and_p(s, nc)
    rho = np.stack([ref_rho(s, *CHANNELS[c]) for c in range(nc)], axis=-1)
    q0s, r = [0.35, 0.25], 1.5
    if l is None:
        n = np.ones_like(rho)
        n_arg = None
    else:
        q2 = [kin.decay_momentum_squared(np.sqrt(s), *CHANNELS[c]) for c in range(nc)]
        n = np.stack([ref_n(q2[c], q0s[c], r, l) for c in range(nc)], axis=-1)
        n_arg = np.stack([hep.k_matrix_n_factor(q2[c], q0s[c], r, l) for c in range(nc)], axis=-1)
    eye = np.eye(nc)
    d_ref = eye - 1j * k * (rho * n**2)[:, None, :]
    a_ref = n * np.linalg.solve(d_ref, p[..., None])[..., 0]
    rho_ours = np.stack([kin.phase_space_2body_complex(s, *CHANNELS[c]) for c in range(nc)], axis=-1)
    d = hep.k_matrix_denominator(k, rho_ours, n_arg)
    a = hep.k_matrix_amplitude(k, p, rho_ours, n_arg)
    assert d.shape == (len(s), nc, nc) and a.shape == (len(s), nc)
    err_d = np.max(np.abs(d - d_ref) / (1 + np.abs(k) * np.abs(rho * n**2)[:, None, :])) / EPS64
    cond = np.linalg.cond(d_ref)
    err_a = np.max(np.abs(a - a_ref) / np.max(np.abs(a_ref), axis=-1, keepdims=True) / cond[:, None]) / EPS64
    print(f"K-matrix, {nc} channel(s), l={l}: D largest error {err_d:.2f} eps, "
          f"amplitude {err_a:.2f} eps x cond(D) (float64)")
    assert err_d < 16
    assert err_a < 16
    # float32
    a32 = hep.k_matrix_amplitude(k.astype(np.float32), p.astype(np.complex64), rho_ours.astype(np.complex64),
                                 None if n_arg is None else n_arg.astype(np.complex64))
    assert a32.dtype == np.complex64
    err32 = np.max(np.abs(a32 - a_ref) / np.max(np.abs(a_ref), axis=-1, keepdims=True) / cond[:, None]) / EPS32
    print(f"K-matrix, {nc} channel(s), l={l}: amplitude {err32:.2f} eps x cond(D) (float32)")
    assert err32 < 16


def test_s_wave_t_matrix_unitarity():
    """T = [I - i K rho]^-1 K: Im T = T rho T* above both thresholds; Im T11 = rho1 |T11|^2 between them."""
    s = np.linspace(4 * MPI**2 + 0.01, 3.0, 400)
    k = hep.k_matrix_add_pole(B, s, POLES[0][0], POLES[0][1])
    k = hep.k_matrix_add_pole(k, s, POLES[1][0], POLES[1][1])
    rho = np.stack([kin.phase_space_2body_complex(s, *c) for c in CHANNELS], axis=-1)
    # The columns of T are amplitudes with P = the columns of K.
    t = np.stack([hep.k_matrix_amplitude(k, k[..., :, b].astype(complex), rho) for b in range(2)], axis=-1)
    np.testing.assert_allclose(t[..., 0, 1], t[..., 1, 0], rtol=1e-12)  # T is symmetric
    above = s > 4 * MK**2
    trt = np.einsum("nab,nb,nbc->nac", t, rho.real, t.conj())
    scale = np.max(np.abs(t), axis=(1, 2))
    dev = np.max(np.abs(t.imag - trt.real)[above] / scale[above, None, None] ** 2)
    print(f"unitarity Im T = T rho T* above both thresholds: largest deviation {dev / EPS64:.1f} eps x |T|^2")
    assert dev < 1e3 * EPS64
    between = ~above
    dev1 = np.abs(t[between, 0, 0].imag - rho[between, 0].real * np.abs(t[between, 0, 0]) ** 2)
    assert np.max(dev1 / scale[between] ** 2) < 1e3 * EPS64
    assert np.all(rho[between, 1].real == 0) and np.all(rho[between, 1].imag > 0)


def test_block_routines_every_length(models_dir, model_cache):
    """K-matrix and Flatte block routines in a user's model, for several vector lengths and both precisions."""
    mods = compile_model(os.path.join(models_dir, "kmatrix_user_model.pyx"), (1, 4, 16), build_dir=model_cache)
    s = np.concatenate([np.linspace(0.1, 3.0, 41), [4 * MK**2 + 1e-4]])  # 42 events: a padded tail block
    q0s, r = [0.35, 0.25], 1.5
    l = 1
    inv_f0 = [hep.blatt_weisskopf_inverse_gradient(q0, r, l)[0] for q0 in q0s]
    pars = [B[0, 0], B[0, 1], B[1, 1], A_NONRES[0].real, A_NONRES[0].imag, A_NONRES[1].real, A_NONRES[1].imag]
    for m_r, g, a_r in POLES:
        pars += [m_r, g[0], g[1], a_r.real, a_r.imag]
    pars = np.array(pars + q0s + [r] + inv_f0)
    k, p = our_k_and_p(s, 2)
    rho = np.stack([kin.phase_space_2body_complex(s, *c) for c in CHANNELS], axis=-1)
    n = np.stack([hep.k_matrix_n_factor(kin.decay_momentum_squared(np.sqrt(s), *CHANNELS[c]), q0s[c], r, l)
                  for c in range(2)], axis=-1)
    expected = {True: hep.k_matrix_amplitude(k, p, rho), False: hep.k_matrix_amplitude(k, p, rho, n)}
    m = np.linspace(0.2, 1.6, 37)
    expected_flatte = hep.flatte(m, M0, G1, G2, MPI, MPI, MK, MK)
    for length, mod in mods.items():
        for dtype, tol in ((np.float64, 1e-11), (np.float32, 2e-3)):
            for s_wave in (True, False):
                a1, a2 = mod.k_matrix_amplitude(s.astype(dtype), pars.astype(dtype), s_wave, l,
                                                MPI, MPI, MK, MK)
                ref = expected[s_wave]
                scale = np.max(np.abs(ref), axis=-1)
                assert np.max(np.abs(a1 - ref[:, 0]) / scale) < tol, (length, dtype, s_wave)
                assert np.max(np.abs(a2 - ref[:, 1]) / scale) < tol, (length, dtype, s_wave)
            f = mod.flatte(m.astype(dtype), M0, G1, G2, MPI, MPI, MK, MK)
            assert np.max(np.abs(f - expected_flatte) / np.abs(expected_flatte)) < tol * 1e-2, (length, dtype)


test_bad_input = bad_input_test([
    (lambda: hep.k_matrix_add_pole(None, [1.0], 1.0, [0.1, 0.2, 0.3]), ValueError, "one or two"),
    (lambda: hep.k_matrix_add_pole([[1.0, 0.2], [0.3, 1.0]], [1.0], 1.0, [0.1, 0.2]), ValueError, "symmetric"),
    (lambda: hep.k_matrix_add_pole([[1.0]], [1.0], 1.0, [0.1, 0.2]), ValueError, r"shape \(\.\.\., 2, 2\)"),
    (lambda: hep.k_matrix_add_pole(None, [1.0 + 1j], 1.0, [0.1]), TypeError, "real s"),
    (lambda: hep.p_vector_add_pole(None, [1.0], 1.0, complex("nan"), [0.1]), ValueError, "production"),
    (lambda: hep.k_matrix_add_pole(np.zeros((1, 1), np.float32), np.ones(2), 1.0, [0.1]), TypeError,
     "mixed precisions"),
    (lambda: hep.k_matrix_amplitude(np.zeros((3, 3)), np.zeros(3), np.zeros(3)), ValueError, r"\(\.\.\., 1, 1\)"),
    (lambda: hep.k_matrix_amplitude(np.zeros((4, 2, 2)), np.zeros((4, 2)), np.zeros((3, 2))), ValueError,
     "broadcast"),
    (lambda: hep.k_matrix_denominator(np.zeros((2, 2)), np.zeros(1)), ValueError, "rho must have shape"),
    (lambda: hep.k_matrix_n_factor([0.1], 0.0, 1.5, 1), ValueError, "q0 must be positive"),
    (lambda: hep.k_matrix_n_factor([0.1], 0.3, 1.5, 6), ValueError, "l must be an integer from 0 to 5"),
    (lambda: hep.flatte([0.0, 1.0], M0, G1, G2, MPI, MPI, MK, MK), ValueError, "m must be positive"),
    (lambda: hep.flatte([1.0], M0, -G1, G2, MPI, MPI, MK, MK), ValueError, "g1 must be non-negative"),
    (lambda: hep.flatte([1.0], M0, G1, G2, MPI, -MPI, MK, MK), ValueError, "m12 must be non-negative"),
])
