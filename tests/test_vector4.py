"""Tests of vecampfit.vector4: explicit Lorentz matrices, invariance of masses
under boosts, round trips, and identities."""

import numpy as np
import pytest

from vecampfit import vector4 as v4

EPS64 = np.finfo(np.float64).eps


def four_vectors(n, seed, mass_range=(0.0, 3.0)):
    rng = np.random.default_rng(seed)
    p = rng.normal(size=(n, 3)) * np.exp(rng.uniform(-1, 1.5, (n, 1)))
    m = rng.uniform(*mass_range, n)
    return np.concatenate([p, np.sqrt(m**2 + np.sum(p**2, 1))[:, None]], 1), m


def lorentz_matrix(beta):
    """Explicit boost matrix on (px, py, pz, E) giving a particle at rest the velocity beta."""
    b = np.asarray(beta, dtype=float)
    b2 = b @ b
    g = 1 / np.sqrt(1 - b2)
    lam = np.eye(4)
    lam[:3, :3] += (g - 1) * np.outer(b, b) / b2 if b2 > 0 else 0
    lam[:3, 3] = g * b
    lam[3, :3] = g * b
    lam[3, 3] = g
    return lam


def test_against_explicit_lorentz_matrices():
    p, _ = four_vectors(200, 1)
    rng = np.random.default_rng(2)
    beta = rng.normal(size=(200, 3))
    beta *= (rng.uniform(0, 0.999, 200) / np.linalg.norm(beta, axis=1))[:, None]
    got = v4.boost(p, beta)
    ref = np.array([lorentz_matrix(b) @ x for b, x in zip(beta, p)])
    err = np.max(np.abs(got - ref) / np.max(np.abs(ref), axis=1, keepdims=True))
    print(f"boost vs Lorentz matrix: largest relative error {err:.2e}")
    assert err < 1e-13
    # boost_from_rest_frame with the frame (gamma m beta, gamma m) is the same boost.
    m = 1.7
    g = 1 / np.sqrt(1 - np.sum(beta**2, 1))
    frame = np.concatenate([(g * m)[:, None] * beta, (g * m)[:, None]], 1)
    np.testing.assert_allclose(v4.boost_from_rest_frame(p, frame), ref, rtol=1e-12, atol=1e-12 * np.max(abs(ref)))
    # ... and boost_to_rest_frame is the inverse matrix.
    ref_inv = np.array([lorentz_matrix(-b) @ x for b, x in zip(beta, p)])
    np.testing.assert_allclose(v4.boost_to_rest_frame(p, frame), ref_inv, rtol=1e-12, atol=1e-12 * np.max(abs(ref)))


@pytest.mark.parametrize("n", [1, 8, 13, 100])
def test_round_trips_and_invariance(n):
    p, m = four_vectors(n, 3)
    f, mf = four_vectors(n, 4, (0.1, 5.0))
    r = v4.boost_to_rest_frame(p, f)
    back = v4.boost_from_rest_frame(r, f)
    err = np.max(np.abs(back - p) / p[:, 3:4])
    print(f"n={n}: round trip largest error {err:.2e} (relative to E)")
    assert err < 1e-12
    # Masses and products are invariant, the frame is at rest in its own rest frame.
    scale = p[:, 3] ** 2
    assert np.all(abs(v4.mass_squared(r) - m**2) <= 1e-12 * scale)
    q, _ = four_vectors(n, 5)
    assert np.all(abs(v4.dot(v4.boost_to_rest_frame(q, f), r) - v4.dot(q, p)) <= 1e-12 * p[:, 3] * q[:, 3])
    rest = v4.boost_to_rest_frame(f, f)
    np.testing.assert_allclose(rest[:, :3], 0, atol=1e-12 * np.max(f[:, 3]))
    np.testing.assert_allclose(rest[:, 3], mf, rtol=1e-12)


def test_scalars_and_sums():
    p, m = four_vectors(50, 6, (0.5, 2.0))
    q, _ = four_vectors(50, 7)
    np.testing.assert_allclose(v4.mass(p), m, rtol=1e-12)
    np.testing.assert_allclose(v4.mass_squared(p), m**2, rtol=1e-11)
    np.testing.assert_allclose(v4.add(p, q), p + q, rtol=0)
    np.testing.assert_allclose(v4.subtract(p, q), p - q, rtol=0)
    np.testing.assert_allclose(v4.dot(p, q), p[:, 3] * q[:, 3] - np.sum(p[:, :3] * q[:, :3], 1), rtol=1e-12)
    np.testing.assert_allclose(v4.invariant_mass_squared(p, q), v4.mass_squared(p + q), rtol=1e-14)
    np.testing.assert_allclose(v4.momentum(p), np.linalg.norm(p[:, :3], axis=1), rtol=2 * EPS64)
    # Space-like vectors: ROOT's sign convention.
    assert v4.mass([3.0, 0.0, 0.0, 2.0]) == pytest.approx(-np.sqrt(5))
    # float32
    p32 = v4.mass(p.astype(np.float32))
    assert p32.dtype == np.float32
    np.testing.assert_allclose(p32, m, rtol=1e-5 * 50)


def test_errors():
    p, _ = four_vectors(4, 1)
    with pytest.raises(ValueError, match="time-like"):
        v4.boost_to_rest_frame(p, [1.0, 0.0, 0.0, 1.0])
    with pytest.raises(ValueError, match="time-like"):
        v4.boost_from_rest_frame(p, [0.0, 0.0, 0.0, -1.0])
    with pytest.raises(ValueError, match="below 1"):
        v4.boost(p, [0.0, 0.0, 1.0])
    with pytest.raises(ValueError, match=r"\(\.\.\., 4\)"):
        v4.mass(np.zeros((3, 3)))
    with pytest.raises(TypeError, match="mixed"):
        v4.dot(p.astype(np.float32), p)
