"""Tests of vecampfit.linear_algebra against numpy.linalg and scipy."""

import os

import mpmath
import numpy as np
import pytest
import scipy.linalg

from vecampfit import linear_algebra as la
from vecampfit.model_compiler import compile_model

from numeric_checks import bad_input_test


def random_matrices(n, dtype, seed):
    rng = np.random.default_rng(seed)
    a = rng.normal(size=(n, 2, 2)) + 1j * rng.normal(size=(n, 2, 2))
    a *= np.exp(rng.uniform(-2, 2, (n, 1, 1)))
    return a.astype(dtype)


def special_matrices(dtype):
    """Matrices that need pivoting or are singular."""
    return np.array([
        [[0, 1], [1, 0]],            # zero pivot without row swap
        [[1e-12, 1], [1, 1]],        # tiny pivot
        [[1, 2], [3, 4]],
        [[2j, 1], [0, 3 - 1j]],      # triangular
        [[1 + 1j, 2], [0.5 + 0.5j, 1]],  # singular (rank 1)
        [[0, 0], [0, 0]],            # zero
        [[0, 2], [0, 1j]],           # zero first column
    ], dtype=dtype)


def relative_error(got, ref):
    scale = np.maximum(np.abs(ref).max(axis=tuple(range(1, ref.ndim))), 1e-300)
    return (np.abs(got - ref).max(axis=tuple(range(1, ref.ndim))) / scale)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_against_numpy_linalg(dtype):
    a = random_matrices(1003, dtype, 1)
    b = (np.random.default_rng(2).normal(size=(1003, 2)) + 1j).astype(dtype)
    ref_a = a.astype(np.complex128)
    eps = np.finfo(a.real.dtype).eps
    cond = np.linalg.cond(ref_a)
    det = la.determinant(a)
    # Exact determinants of the (rounded) inputs.
    mpmath.mp.prec = 200
    det_ref = np.array([complex(mpmath.mpc(complex(m[0, 0])) * mpmath.mpc(complex(m[1, 1]))
                                - mpmath.mpc(complex(m[0, 1])) * mpmath.mpc(complex(m[1, 0]))) for m in ref_a])
    lu, piv = la.lu_decompose(a)
    assert lu.dtype == dtype and det.dtype == dtype and piv.dtype == a.real.dtype
    e_det = np.max(np.abs(det - det_ref) / (np.abs(ref_a).max(axis=(1, 2)) ** 2)) / eps
    e_lu_det = np.max(np.abs(la.lu_determinant(lu, piv) - det_ref) / (np.abs(ref_a).max(axis=(1, 2)) ** 2)) / eps
    x = la.solve(a, b)
    x_ref = np.linalg.solve(ref_a, b.astype(np.complex128)[..., None])[..., 0]
    e_solve = np.max(relative_error(x, x_ref) / cond) / eps
    e_lu_solve = np.max(relative_error(la.lu_solve(lu, piv, b), x_ref) / cond) / eps
    inv = la.inverse(a)
    inv_ref = np.linalg.inv(ref_a)
    e_inv = np.max(relative_error(inv, inv_ref) / cond) / eps
    e_lu_inv = np.max(relative_error(la.lu_inverse(lu, piv), inv_ref) / cond) / eps
    print(f"{np.dtype(dtype)}: det {e_det:.2f} eps*max|a|^2 (lu {e_lu_det:.2f}); solve {e_solve:.2f}, "
          f"lu_solve {e_lu_solve:.2f}, inverse {e_inv:.2f}, lu_inverse {e_lu_inv:.2f} (eps * cond)")
    assert max(e_det, e_lu_det) < 4
    assert max(e_solve, e_lu_solve, e_inv, e_lu_inv) < 16
    # The factors reproduce the matrices: P a = L U.
    L = np.zeros_like(ref_a)
    L[:, 0, 0] = L[:, 1, 1] = 1
    L[:, 1, 0] = lu[:, 1, 0]
    U = np.triu(lu.astype(np.complex128))
    pa = np.where(piv[:, None, None] == 1, ref_a[:, ::-1, :], ref_a)
    assert np.max(relative_error(L @ U, pa)) < 8 * eps
    # Partial pivoting in the |re| + |im| norm bounds |l21| by sqrt(2).
    assert np.all(np.abs(lu[:, 1, 0]) <= np.sqrt(2) * (1 + 4 * eps))
    assert np.all(np.abs(np.where(piv == 1, ref_a[:, 0, 0], ref_a[:, 1, 0]))
                  <= np.sqrt(2) * np.abs(np.where(piv == 1, ref_a[:, 1, 0], ref_a[:, 0, 0])))
    # Products.
    c = random_matrices(1003, dtype, 3)
    np.testing.assert_allclose(la.multiply(a, c), ref_a @ c.astype(np.complex128), rtol=0,
                               atol=8 * eps * (np.abs(ref_a) @ np.abs(c)).max())
    np.testing.assert_allclose(la.multiply_vector(a, b), (ref_a @ b.astype(np.complex128)[..., None])[..., 0],
                               rtol=0, atol=8 * eps * np.abs(ref_a).max() * np.abs(b).max())


def test_pivoting_and_singular_matrices():
    a = special_matrices(np.complex128)
    lu, piv = la.lu_decompose(a)
    np.testing.assert_array_equal(piv, [1, 1, 1, 0, 0, 0, 0])
    b = np.array([1, 2j], dtype=np.complex128)
    x = la.solve(a[:4], b)
    np.testing.assert_allclose(x, np.linalg.solve(a[:4], np.broadcast_to(b, (4, 2))[..., None])[..., 0],
                               rtol=1e-13)
    np.testing.assert_allclose(la.inverse(a[:4]), np.linalg.inv(a[:4]), rtol=1e-13, atol=1e-13)
    det = la.determinant(a)
    assert det[4] == 0 and det[5] == 0 and det[6] == 0
    assert la.lu_determinant(lu, piv)[5] == 0 and la.lu_determinant(lu, piv)[6] == 0
    # Singular matrices give non-finite solutions, only in their own entries.
    xs = la.solve(a, b)
    assert np.all(np.isfinite(xs[:4])) and not np.all(np.isfinite(xs[5]))
    with np.errstate(all="ignore"):
        assert not np.all(np.isfinite(la.inverse(a[5:])))
    # A single matrix and broadcasting.
    np.testing.assert_allclose(la.solve(a[2], b), np.linalg.solve(a[2], b), rtol=1e-14)
    assert la.determinant(a[2]).shape == ()
    assert la.solve(a[:3], b).shape == (3, 2)
    assert la.inverse(np.zeros((0, 2, 2))).shape == (0, 2, 2)


test_bad_input_2x2 = bad_input_test([
    (lambda: la.inverse(np.ones((3, 2, 3))), ValueError, r"shape \(\.\.\., 2, 2\)"),
    (lambda: la.solve(np.eye(2, dtype=np.complex64), np.ones(2, np.complex128)), TypeError, "mixed precisions"),
    (lambda: la.determinant(np.ones((2, 2), np.int32)), TypeError, "dtype int32"),
    (lambda: la.solve(np.ones((3, 2, 2)), np.ones((2, 2))), ValueError, "broadcast"),
    (lambda: la.lu_solve(np.ones((3, 2, 2)), np.zeros(2), np.ones((3, 2))), ValueError, "pivot"),
    (lambda: la.lu_inverse(np.ones((3, 2, 2)), np.full(3, 0.5)), ValueError, "0 or 1"),
    (lambda: la.inverse(["x"]), TypeError, "expected numbers"),
])


def test_compact_forms():
    rng = np.random.default_rng(4)
    for n in (1, 2, 5):
        a = rng.normal(size=(n, n))
        a = a + a.T
        c = la.symmetric_to_compact(a)
        assert c.shape == (la.compact_size(n),)
        for i in range(n):
            for j in range(n):
                assert c[la.compact_index(i, j)] == a[i, j]
        np.testing.assert_array_equal(la.compact_to_symmetric(c), a)
        # Row-wise lower triangle = LAPACK packed upper triangle (column-major).
        up = scipy.linalg.lapack.dtrttp(np.asfortranarray(a.T.copy()))[0] if n > 1 else c
        np.testing.assert_array_equal(np.ravel(up), c)
    np.testing.assert_array_equal(la.symmetric_to_compact([[1, 2, 4], [2, 3, 5], [4, 5, 6]]), [1, 2, 3, 4, 5, 6])
    assert la.compact_to_symmetric(np.ones(3, np.float32)).dtype == np.float32


@pytest.mark.parametrize("call,message", [
    (lambda: la.symmetric_to_compact([[1, 2], [3, 4]]), "not symmetric"),
    (lambda: la.symmetric_to_compact(np.ones((2, 3))), "square"),
    (lambda: la.symmetric_to_compact([[1, np.nan], [np.nan, 1]]), "non-finite"),
    (lambda: la.compact_to_symmetric(np.ones(4)), "not n\\(n\\+1\\)/2"),
    (lambda: la.compact_to_symmetric(np.ones((3, 1))), "one-dimensional"),
    (lambda: la.symmetric_eigen([[1, 2], [2.1, 1]]), "not symmetric"),
    (lambda: la.symmetric_eigen([[1, np.inf], [np.inf, 1]]), "non-finite"),
    (lambda: la.symmetric_eigen(np.zeros((0, 0))), "empty"),
    (lambda: la.compact_index(-1, 0), "non-negative"),
])
def test_bad_input_symmetric(call, message):
    with pytest.raises(ValueError, match=message):
        call()
    with pytest.raises(TypeError, match="real"):
        la.symmetric_eigen(np.eye(2) * 1j)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_eigen_against_scipy(dtype):
    rng = np.random.default_rng(5)
    n = 7
    q, _ = np.linalg.qr(rng.normal(size=(n, n)))
    w_true = np.array([1e-3, 0.1, 0.5, 1, 2, 5, 30])
    a = ((q * w_true) @ q.T).astype(dtype)
    a = (a + a.T) / 2
    w, v = la.symmetric_eigen(a, positive_definite=True)
    assert w.dtype == dtype and v.dtype == dtype
    eps = np.finfo(dtype).eps
    w_ref = scipy.linalg.eigh(a.astype(np.float64), eigvals_only=True)
    e_w = np.max(np.abs(w - w_ref)) / (eps * np.abs(w_ref).max())
    e_rec = np.max(np.abs((v * w) @ v.T - a)) / (eps * np.abs(a).max())
    e_orth = np.max(np.abs(v.T @ v - np.eye(n))) / eps
    print(f"{np.dtype(dtype)}: eigenvalues {e_w:.2f} eps*max|w|, reconstruction {e_rec:.2f}, orthogonality {e_orth:.2f}")
    assert e_w < 4 * n and e_rec < 4 * n and e_orth < 4 * n
    assert np.all(np.diff(w) >= 0)
    # Compact input gives the same result.
    w2, _ = la.symmetric_eigen(la.symmetric_to_compact(a))
    np.testing.assert_array_equal(w2, w)


def test_not_positive_definite():
    a = np.array([[1.0, 2.0], [2.0, 1.0]])  # eigenvalues -1, 3
    w, _ = la.symmetric_eigen(a)
    np.testing.assert_allclose(w, [-1, 3], rtol=1e-15)
    with pytest.raises(la.NotPositiveDefiniteError, match="not positive definite") as info:
        la.symmetric_eigen(a, positive_definite=True)
    np.testing.assert_allclose(info.value.eigenvalues, [-1, 3], rtol=1e-15)
    assert isinstance(info.value, np.linalg.LinAlgError)
    # Singular within rounding counts as not positive definite.
    with pytest.raises(la.NotPositiveDefiniteError):
        la.symmetric_eigen([[1.0, 1.0], [1.0, 1.0]], positive_definite=True)


def test_user_model_outside_the_package(models_dir, model_cache):
    mods = compile_model(os.path.join(models_dir, "linalg_user_model.pyx"), (1, 4, 16), build_dir=model_cache)
    rng = np.random.default_rng(6)
    n = 53
    s = rng.uniform(0.1, 3.0, n)
    rho1 = np.sqrt(np.maximum(1 - 0.08 / s, 0))
    rho2 = np.sqrt(np.maximum(1 - 1.0 / s, 0))
    pars = np.array([1.9, 0.8, 0.5, 1.2, 1.0, -0.4])
    g = 1 / (pars[0] - s)
    k = np.empty((n, 2, 2))
    k[:, 0, 0], k[:, 0, 1], k[:, 1, 0], k[:, 1, 1] = pars[1] * g, pars[2] * g, pars[2] * g, pars[3] * g
    m = np.eye(2) - 1j * k * np.stack([rho1, rho2], axis=1)[:, None, :]
    p = np.stack([pars[4] * g, pars[5] * g], axis=1)
    f_ref = np.linalg.solve(m, p[..., None])[..., 0]
    det_ref = np.linalg.det(m)
    for length, mod in mods.items():
        f1, f2, det = mod.amplitude(s, rho1, rho2, pars)
        np.testing.assert_allclose(f1, f_ref[:, 0], rtol=1e-12)
        np.testing.assert_allclose(f2, f_ref[:, 1], rtol=1e-12)
        np.testing.assert_allclose(det, det_ref, rtol=1e-13)
        f1s, f2s, dets = mod.amplitude(s.astype(np.float32), rho1.astype(np.float32), rho2.astype(np.float32),
                                       pars.astype(np.float32))
        np.testing.assert_allclose(f1s, f_ref[:, 0], rtol=2e-3, atol=2e-4 * np.abs(f_ref).max())
