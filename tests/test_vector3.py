"""Tests of vecampfit.vector3 against numpy's own vector algebra, mpmath
(angles of nearly parallel vectors) and identities."""

import os

import mpmath
import numpy as np
import pytest

from vecampfit import vector3 as v3
from vecampfit.model_compiler import compile_model

EPS64 = np.finfo(np.float64).eps
EPS32 = np.finfo(np.float32).eps


def vectors(n, seed):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, 3)) * np.exp(rng.uniform(-2, 2, (n, 1)))


@pytest.mark.parametrize("n", [1, 7, 8, 9, 37])
def test_against_numpy(n):
    a, b = vectors(n, 1), vectors(n, 2)
    s = np.random.default_rng(3).normal(size=n)
    np.testing.assert_allclose(v3.add(a, b), a + b, rtol=0, atol=0)
    np.testing.assert_allclose(v3.subtract(a, b), a - b, rtol=0, atol=0)
    np.testing.assert_allclose(v3.scale(a, s), a * s[:, None], rtol=0, atol=0)
    np.testing.assert_allclose(v3.cross(a, b), np.cross(a, b), rtol=4 * EPS64, atol=4 * EPS64 * np.max(abs(a)) * np.max(abs(b)))
    scale = np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1)
    assert np.all(abs(v3.dot(a, b) - np.einsum("ij,ij->i", a, b)) <= 4 * EPS64 * scale)
    np.testing.assert_allclose(v3.norm(a), np.linalg.norm(a, axis=1), rtol=2 * EPS64)
    np.testing.assert_allclose(v3.norm_squared(a), np.linalg.norm(a, axis=1) ** 2, rtol=4 * EPS64)
    np.testing.assert_allclose(v3.transverse(a), np.hypot(a[:, 0], a[:, 1]), rtol=2 * EPS64)
    np.testing.assert_allclose(v3.unit(a), a / np.linalg.norm(a, axis=1)[:, None], rtol=4 * EPS64)
    r = np.linalg.norm(a, axis=1)
    np.testing.assert_allclose(v3.cos_polar_angle(a), a[:, 2] / r, rtol=4 * EPS64)
    np.testing.assert_allclose(v3.polar_angle(a), np.arccos(a[:, 2] / r), rtol=1e-13, atol=1e-7)
    np.testing.assert_allclose(v3.azimuthal_angle(a), np.arctan2(a[:, 1], a[:, 0]), rtol=2 * EPS64)
    c = np.einsum("ij,ij->i", a, b) / (r * np.linalg.norm(b, axis=1))
    np.testing.assert_allclose(v3.cos_angle(a, b), c, rtol=1e-14, atol=1e-15)
    np.testing.assert_allclose(np.cos(v3.angle(a, b)), c, rtol=1e-13, atol=1e-14)


def test_spherical_round_trip_and_broadcast():
    rng = np.random.default_rng(5)
    r, theta, phi = rng.uniform(0.1, 3, 100), rng.uniform(0, np.pi, 100), rng.uniform(-np.pi, np.pi, 100)
    a = np.stack([r * np.sin(theta) * np.cos(phi), r * np.sin(theta) * np.sin(phi), r * np.cos(theta)], 1)
    np.testing.assert_allclose(v3.polar_angle(a), theta, rtol=1e-14, atol=1e-14)
    np.testing.assert_allclose(v3.azimuthal_angle(a), phi, rtol=1e-14, atol=1e-14)
    np.testing.assert_allclose(v3.norm(a), r, rtol=2e-16 * 4)
    # Broadcasting and higher dimensions.
    x = a.reshape(10, 10, 3)
    assert v3.dot(x, [0.0, 0.0, 1.0]).shape == (10, 10)
    np.testing.assert_allclose(v3.dot(x, [0.0, 0.0, 1.0]), x[..., 2], rtol=0)


def test_angle_accuracy_near_parallel():
    mpmath.mp.dps = 40
    a = np.array([[1.0, 2.0, 3.0]] * 4)
    b = a + np.array([[1e-9, 0, 0], [0, 1e-12, 0], [0, 0, -1e-7], [3e-8, -1e-8, 0]])
    got = v3.angle(a, b)
    for k in range(4):
        va = mpmath.matrix([mpmath.mpf(x) for x in a[k]])
        vb = mpmath.matrix([mpmath.mpf(x) for x in b[k]])
        cr = mpmath.matrix([va[1] * vb[2] - va[2] * vb[1], va[2] * vb[0] - va[0] * vb[2], va[0] * vb[1] - va[1] * vb[0]])
        ref = mpmath.atan2(mpmath.norm(cr), sum(va[i] * vb[i] for i in range(3)))
        err = abs(got[k] - float(ref)) / float(ref)
        print(f"angle {float(ref):.3e}: relative error {err:.2e}")
        assert err < 1e-6  # the inputs' rounding, not arccos's 1e-8 absolute


def test_float32_and_errors():
    a, b = vectors(20, 7), vectors(20, 8)
    d32 = v3.dot(a.astype(np.float32), b.astype(np.float32))
    assert d32.dtype == np.float32
    scale = np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1)
    assert np.all(abs(d32 - np.einsum("ij,ij->i", a, b)) <= 8 * EPS32 * scale)
    with pytest.raises(TypeError, match="mixed precisions"):
        v3.dot(a.astype(np.float32), b)
    with pytest.raises(ValueError, match=r"shape \(\.\.\., 3\)"):
        v3.norm(np.zeros((4, 4)))
    with pytest.raises(TypeError, match="float32 or float64"):
        v3.norm(np.zeros((4, 3), dtype=np.int64))
    with pytest.raises(ValueError, match="broadcast"):
        v3.dot(np.zeros((4, 3)), np.zeros((5, 3)))
    assert np.isnan(v3.cos_polar_angle([0.0, 0.0, 0.0]))
    assert v3.azimuthal_angle([0.0, 0.0, 0.0]) == 0


def test_user_model_cimports_vector3_and_vector4(models_dir, model_cache):
    from vecampfit import generation, vector4 as v4
    mods = compile_model(os.path.join(models_dir, "lorentz_user_model.pyx"), (1, 4, 16), build_dir=model_cache)
    s = generation.phase_space(np.array([0.2, 0.1, 1.5, np.sqrt(1.86484**2 + 2.3)]), [0.493677, 0.13957039, 0.1349768],
                               53, seed=4)
    p1, p2, p3 = s.momenta
    mother = p1 + p2 + p3
    r = v4.boost_to_rest_frame(p1 + p2, mother)
    p1r = v4.boost_to_rest_frame(v4.boost_to_rest_frame(p1, mother), r)
    ref_cos = v3.cos_angle(p1r[:, :3], r[:, :3])
    for length, mod in mods.items():
        m12s, cos_h = mod.helicity(p1, p2, p3)
        np.testing.assert_allclose(m12s, v4.mass_squared(p1 + p2), rtol=1e-13)
        np.testing.assert_allclose(cos_h, ref_cos, rtol=1e-12, atol=1e-12)
        m32, c32 = mod.helicity(p1.astype(np.float32), p2.astype(np.float32), p3.astype(np.float32))
        assert c32.dtype == np.float32
        np.testing.assert_allclose(c32, ref_cos, atol=2e-4)
