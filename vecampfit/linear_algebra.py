"""Linear algebra: vectors of 2x2 complex matrices, and symmetric matrices.

2x2 complex matrices (the paper's ``VECAMPFIT_LINEAR_ALGEBRA_#LENGTH#``)
----------------------------------------------------------------------------
Two-channel K-matrix amplitudes :math:`n\\,[I - i K \\rho n^2]^{-1} P` need,
for every event, the solution of a 2x2 complex linear system.  The block
routines in ``vecampfit/linear_algebra.pxd`` work on ``L`` matrices at once:
a vector of matrices is a struct of four complex vectors
(``complex_matrix_2x2_float64``: fields ``m11``, ``m12``, ``m21``, ``m22``,
row index first), and the LU factors are a ``complex_lu_2x2_float64``
(fields ``u11``, ``u12``, ``l21``, ``u22`` and the real vector ``pivot``)::

    cimport vecampfit.linear_algebra as la
    from vecampfit.linear_algebra cimport complex_matrix_2x2_float64, complex_lu_2x2_float64
    from vecampfit.block cimport complex_vector_float64

    cdef complex_matrix_2x2_float64 m        # m = I - i K rho, lane by lane
    cdef complex_lu_2x2_float64 lu
    cdef complex_vector_float64 p1, p2, x1, x2
    la.lu_decompose(&lu, &m)
    la.lu_solve(&x1, &x2, &lu, &p1, &p2)     # (x1, x2) = m^-1 (p1, p2)

Block routines: ``set_identity``, ``multiply``, ``multiply_vector``,
``determinant``, ``lu_decompose``, ``lu_determinant``, ``lu_solve``,
``lu_inverse``, ``solve``, ``inverse``.  The functions here apply them to
numpy arrays of shape ``(..., 2, 2)`` (complex64 or complex128; float32 and
float64 count as complex with zero imaginary part); the result has the
input's precision.

The decomposition is :math:`P A = L U` with partial pivoting,

.. math::

    L = \\begin{pmatrix} 1 & 0 \\\\ l_{21} & 1 \\end{pmatrix}, \\quad
    U = \\begin{pmatrix} u_{11} & u_{12} \\\\ 0 & u_{22} \\end{pmatrix},

:math:`P` the identity or the row swap; the pivot is the first-column entry
with the larger :math:`|\\mathrm{Re}| + |\\mathrm{Im}|` (as in LAPACK's
``zgetrf``).  A singular matrix gives a zero determinant and inf/NaN
entries in solutions and inverses, only for that matrix.  Complex divisions
do not rescale (so that the block loops vectorize): entries must stay below
about 1e150 in magnitude (1e18 for complex64).

Symmetric matrices (the paper's scalar linear-algebra module)
-------------------------------------------------------------
A real symmetric :math:`n \\times n` matrix in *compact* form is the
vector of its lower triangle stored row by row,

.. math::

    (a_{00}, a_{10}, a_{11}, a_{20}, a_{21}, a_{22}, \\dots), \\qquad
    a_{ij} = c_{i(i+1)/2 + j} \\quad (i \\ge j),

of length :math:`n(n+1)/2` (this is also LAPACK's column-major packed upper
triangle, ``uplo='U'``).  Eigenvalues and eigenvectors come from LAPACK's
``?syevr`` through :mod:`scipy.linalg.lapack`.
"""

import numpy as np
from scipy.linalg import lapack

from . import _linear_algebra as _k
from ._arguments import numpydoc as _numpydoc, public_function as _public_function, sections as _sections

__all__ = [
    "multiply", "multiply_vector", "determinant", "lu_decompose", "lu_determinant", "lu_solve",
    "lu_inverse", "solve", "inverse",
    "compact_index", "compact_size", "symmetric_to_compact", "compact_to_symmetric",
    "symmetric_eigen", "NotPositiveDefiniteError",
]

_REAL = {np.dtype(np.complex64): np.dtype(np.float32), np.dtype(np.complex128): np.dtype(np.float64),
         np.dtype(np.float32): np.dtype(np.float32), np.dtype(np.float64): np.dtype(np.float64)}
_COMPLEX = {np.dtype(np.float32): np.dtype(np.complex64), np.dtype(np.float64): np.dtype(np.complex128)}


# ---------------------------------------------------------------------------
# 2x2 complex matrices
# ---------------------------------------------------------------------------

# Docstring entries shared by the functions.
_MATRICES = ("a : array_like, shape (..., 2, 2)", "Complex matrices.")
_LU = ("lu, pivot", "As returned by :func:`lu_decompose`.")
_MATRIX_RESULT = ("numpy.ndarray, shape (..., 2, 2)", "")
_VECTOR_RESULT = ("numpy.ndarray, shape (..., 2)", "")
_SHAPE_RAISES = [("TypeError, ValueError", "Unsupported dtype; shape not (..., 2, 2).")]


def _as_complex(x, name, tail):
    """``x`` as a C-contiguous complex array whose shape ends with ``tail``."""
    if isinstance(x, (np.ndarray, np.generic)):
        a = np.asarray(x)
        if a.dtype not in _REAL:
            raise TypeError(f"{name}: dtype {a.dtype} is not supported "
                            "(use complex64, complex128, float32 or float64)")
    else:
        try:
            a = np.asarray(x)
        except Exception as exc:  # pragma: no cover - numpy raises many kinds
            raise TypeError(f"{name}: expected numbers, got {x!r}") from exc
        if a.dtype.kind in "biuf":
            a = a.astype(np.float64)
        elif a.dtype.kind == "c":
            a = a.astype(np.complex128)
        else:
            raise TypeError(f"{name}: expected numbers, got {x!r}")
    if a.shape[a.ndim - len(tail):] != tail or a.ndim < len(tail):
        want = "(..., " + ", ".join(str(t) for t in tail) + ")"
        raise ValueError(f"{name}: expected shape {want}, got {a.shape}")
    return np.ascontiguousarray(a, dtype=_COMPLEX[_REAL[a.dtype]])


def _precision(*arrays):
    dtypes = {a.dtype for a in arrays}
    if len(dtypes) > 1:
        raise TypeError("mixed precisions: " + ", ".join(sorted(str(d) for d in dtypes))
                        + " (convert the operands to one precision)")
    return _REAL[dtypes.pop()]


def _batch(a, k):
    """Real view of shape (n, 2k) of a complex array whose trailing dims hold k numbers."""
    return a.view(_REAL[a.dtype]).reshape(-1, 2 * k)


def _run(op, a, b=None, pivot=None, out_tail=(2, 2), lead=None):
    """Apply the block routine ``op`` of linear_algebra.pxd: op_kernel(a[, pivot][, b], out[, out_pivot])."""
    real = _REAL[a.dtype]
    lead = a.shape[:-2] if lead is None else lead
    n = int(np.prod(lead, dtype=np.int64))
    inputs = [_batch(a, 4)]
    if pivot is not None:
        inputs.append(np.ascontiguousarray(pivot, dtype=real).reshape(-1))
    if b is not None:
        inputs.append(_batch(b, 4 if op == "multiply" else 2))
    k = int(np.prod(out_tail, dtype=np.int64))
    flat = np.empty((n, k), _COMPLEX[real])
    ov = flat.view(real)
    out = flat.reshape(lead + out_tail)
    out_pivot = np.empty(n if op == "lu_decompose" else 0, real)
    if n:
        getattr(_k, op + "_kernel")(*inputs, ov, *((out_pivot,) if op == "lu_decompose" else ()))
    if op == "lu_decompose":
        return out, out_pivot.reshape(lead)
    return out[()] if out.ndim == 0 else out, None


def _with_operand(op, a, b, name, tail):
    """Run ``op`` on the matrices ``a`` and the matrices or vectors ``b`` (named ``name``, shape (..., *tail))."""
    a = _as_complex(a, "a", (2, 2))
    b = _as_complex(b, name, tail)
    _precision(a, b)
    a, b, lead = _broadcast_pair(a, b, (2, 2), tail)
    return _run(op, a, b, out_tail=tail, lead=lead)[0]


def _broadcast_pair(a, b, a_tail, b_tail):
    lead = np.broadcast_shapes(a.shape[:a.ndim - len(a_tail)], b.shape[:b.ndim - len(b_tail)])
    a = np.ascontiguousarray(np.broadcast_to(a, lead + a_tail))
    b = np.ascontiguousarray(np.broadcast_to(b, lead + b_tail))
    return a, b, lead


def _matrix_function(op, summary, result, out_tail=(2, 2)):
    """The public ``op(a)`` of the 2x2 matrices ``a``: one result of shape ``out_tail`` per matrix."""
    def function(a):
        return _run(op, _as_complex(a, "a", (2, 2)), out_tail=out_tail)[0]

    doc = _numpydoc(summary, parameters=[_MATRICES], returns=[result], raises=_SHAPE_RAISES)
    return _public_function(function, op, __name__, doc)


def _two_operand_function(op, summary, parameters, result, raises, tail):
    """The public ``op(a, b)`` of the matrices ``a`` and matrices or vectors ``b`` (see :func:`_with_operand`)."""
    def function(a, b):
        return _with_operand(op, a, b, "b", tail)

    doc = _numpydoc(summary, parameters=parameters, returns=[result], raises=raises)
    return _public_function(function, op, __name__, doc)


multiply = _two_operand_function(
    "multiply", "Matrix products :math:`(a b)_{ij} = \\sum_k a_{ik} b_{kj}` of 2x2 complex matrices.",
    [("a, b : array_like, shape (..., 2, 2)", "Complex matrices (leading dimensions broadcast).")],
    _MATRIX_RESULT,
    [("TypeError", "Unsupported dtype or mixed precisions."),
     ("ValueError", "Shapes that are not (..., 2, 2) or do not broadcast.")], (2, 2))


@_sections(
    parameters=[_MATRICES,
                ("x : array_like, shape (..., 2)",
                 "Complex 2-vectors (leading dimensions broadcast with those of ``a``).")],
    returns=[_VECTOR_RESULT],
    raises=[("TypeError, ValueError", "As in :func:`multiply`.")])
def multiply_vector(a, x):
    """Matrix times vector, :math:`y_i = \\sum_k a_{ik} x_k`, for 2x2 complex matrices."""
    return _with_operand("multiply_vector", a, x, "x", (2,))


determinant = _matrix_function(
    "determinant", "Determinants :math:`\\det a = a_{11} a_{22} - a_{12} a_{21}` of 2x2 complex matrices.",
    ("numpy.ndarray, shape (...)", "Complex determinants."), out_tail=())


def lu_decompose(a):
    """LU decomposition with partial pivoting, :math:`P a = L U`, of 2x2 complex matrices.

    Parameters
    ----------
    a : array_like, shape (..., 2, 2)
        Complex matrices.

    Returns
    -------
    lu : numpy.ndarray, shape (..., 2, 2)
        The factors packed as :math:`[[u_{11}, u_{12}], [l_{21}, u_{22}]]`
        (the unit diagonal of :math:`L` is not stored), as LAPACK's ``zgetrf``.
    pivot : numpy.ndarray, shape (...)
        1 where the rows were swapped (:math:`P` the permutation), 0
        otherwise; real, of the input's precision.

    Raises
    ------
    TypeError, ValueError
        Unsupported dtype; shape not (..., 2, 2).

    Notes
    -----
    The pivot is the entry of the first column with the larger
    :math:`|\\mathrm{Re}| + |\\mathrm{Im}|`; :math:`l_{21} = p_{21} / p_{11}`
    and :math:`u_{22} = p_{22} - l_{21} p_{12}` for the permuted matrix
    :math:`p = P a`.  A zero first column gives :math:`l_{21} = 0` and
    :math:`u_{11} = 0`.
    """
    a = _as_complex(a, "a", (2, 2))
    return _run("lu_decompose", a)


def _lu_args(lu, pivot):
    lu = _as_complex(lu, "lu", (2, 2))
    pivot = np.asarray(pivot)
    if pivot.shape != lu.shape[:-2]:
        raise ValueError(f"pivot: shape {pivot.shape} does not match lu's {lu.shape[:-2]}")
    if pivot.size and not np.all((pivot == 0) | (pivot == 1)):
        raise ValueError("pivot: entries must be 0 or 1 (from lu_decompose)")
    return lu, pivot


@_sections(
    parameters=[_LU],
    returns=[("numpy.ndarray, shape (...)", "")],
    raises=[("TypeError, ValueError",
             "Unsupported dtype; shapes that do not match; pivot entries not 0 or 1.")])
def lu_determinant(lu, pivot):
    """Determinants from LU factors, :math:`\\det a = (-1)^{\\mathrm{pivot}} u_{11} u_{22}`."""
    lu, pivot = _lu_args(lu, pivot)
    return _run("lu_determinant", lu, pivot=pivot, out_tail=())[0]


@_sections(
    parameters=[_LU,
                ("b : array_like, shape (..., 2)",
                 "Right-hand sides, one per matrix (same leading shape as ``lu``).")],
    returns=[_VECTOR_RESULT],
    raises=[("TypeError, ValueError",
             "Unsupported dtype, mixed precisions, shapes that do not match.")])
def lu_solve(lu, pivot, b):
    """Solutions :math:`x = a^{-1} b` from the LU factors of ``a``.

    Forward substitution :math:`L y = P b`, then back substitution
    :math:`U x = y`.
    """
    lu, pivot = _lu_args(lu, pivot)
    b = _as_complex(b, "b", (2,))
    _precision(lu, b)
    if b.shape[:-1] != lu.shape[:-2]:
        raise ValueError(f"b: leading shape {b.shape[:-1]} does not match lu's {lu.shape[:-2]}")
    return _run("lu_solve", lu, b, pivot=pivot, out_tail=(2,))[0]


@_sections(
    parameters=[_LU],
    returns=[_MATRIX_RESULT],
    raises=[("TypeError, ValueError", "As in :func:`lu_determinant`.")])
def lu_inverse(lu, pivot):
    """Inverses :math:`a^{-1} = U^{-1} L^{-1} P` from the LU factors of ``a``."""
    lu, pivot = _lu_args(lu, pivot)
    return _run("lu_inverse", lu, pivot=pivot)[0]


solve = _two_operand_function(
    "solve", "Solutions of :math:`a x = b` for 2x2 complex matrices (LU with partial pivoting).",
    [_MATRICES, ("b : array_like, shape (..., 2)",
                 "Right-hand sides (leading dimensions broadcast with those of ``a``).")],
    ("numpy.ndarray, shape (..., 2)", "inf/NaN for singular matrices."),
    [("TypeError, ValueError", "Unsupported dtype, mixed precisions, shapes.")], (2,))
inverse = _matrix_function(
    "inverse", "Inverses :math:`a^{-1}` of 2x2 complex matrices (LU with partial pivoting).",
    ("numpy.ndarray, shape (..., 2, 2)", "inf/NaN entries for singular matrices."))


# ---------------------------------------------------------------------------
# Symmetric matrices
# ---------------------------------------------------------------------------

class NotPositiveDefiniteError(np.linalg.LinAlgError):
    """A symmetric matrix that must be positive definite is not.

    Attributes
    ----------
    eigenvalues : numpy.ndarray
        The eigenvalues, in ascending order.
    """

    def __init__(self, message, eigenvalues):
        super().__init__(message)
        self.eigenvalues = eigenvalues


# Returns entry of the index functions.
_INDEX = ("int", "")


@_sections(
    parameters=[("n : int", "Matrix dimension, ``n >= 0``.")],
    returns=[_INDEX],
    raises=[("ValueError", "Negative or non-integer ``n``.")])
def compact_size(n):
    """Length :math:`n(n+1)/2` of the compact form of an :math:`n \\times n` symmetric matrix."""
    if int(n) != n or n < 0:
        raise ValueError(f"n: expected a non-negative integer, got {n!r}")
    n = int(n)
    return n * (n + 1) // 2


@_sections(
    parameters=[("i, j : int", "Row and column (either order: the matrix is symmetric).")],
    returns=[_INDEX],
    raises=[("ValueError", "Negative indices.")])
def compact_index(i, j):
    """Position of :math:`a_{ij}` in the compact form: :math:`k = i(i+1)/2 + j` for :math:`i \\ge j`."""
    if i < 0 or j < 0:
        raise ValueError(f"indices must be non-negative, got ({i}, {j})")
    i, j = max(i, j), min(i, j)
    return i * (i + 1) // 2 + j


def _dimension(m):
    n = int(round((np.sqrt(8 * m + 1) - 1) / 2))
    if n * (n + 1) // 2 != m:
        raise ValueError(f"compact: length {m} is not n(n+1)/2 for any n")
    return n


def _real_array(x, name):
    a = np.asarray(x)
    if a.dtype.kind not in "biuf":
        raise TypeError(f"{name}: expected a real array, got dtype {a.dtype}")
    if a.dtype not in (np.float32, np.float64):
        a = a.astype(np.float64)
    return a


def symmetric_to_compact(a, rtol=None):
    """Compact form (lower triangle row by row) of a symmetric matrix.

    :math:`c_{i(i+1)/2 + j} = a_{ij}` for :math:`i \\ge j`.

    Parameters
    ----------
    a : array_like, shape (n, n)
        Real symmetric matrix.
    rtol : float, optional
        Allowed asymmetry: :math:`|a_{ij} - a_{ji}| \\le \\mathrm{rtol}\\,
        \\max|a|`; by default 100 machine epsilons of ``a``'s precision.
        The lower triangle is stored.

    Returns
    -------
    numpy.ndarray, shape (n (n + 1) / 2,)
        Same precision as ``a`` (float32 or float64; integers become float64).

    Raises
    ------
    TypeError
        Non-real input.
    ValueError
        Not square, not symmetric, or not finite.
    """
    a = _real_array(a, "a")
    if a.ndim != 2 or a.shape[0] != a.shape[1]:
        raise ValueError(f"a: expected a square matrix, got shape {a.shape}")
    _check_symmetric(a, rtol)
    rows, cols = np.tril_indices(a.shape[0])
    return np.ascontiguousarray(a[rows, cols])


def _check_symmetric(a, rtol):
    if not np.all(np.isfinite(a)):
        raise ValueError("a: the matrix has non-finite entries")
    if rtol is None:
        rtol = 100 * np.finfo(a.dtype).eps
    scale = np.max(np.abs(a)) if a.size else 0.0
    asym = np.max(np.abs(a - a.T)) if a.size else 0.0
    if asym > rtol * scale:
        raise ValueError(f"a: the matrix is not symmetric (largest |a_ij - a_ji| = {asym:.3g}, "
                         f"largest |a_ij| = {scale:.3g})")


def compact_to_symmetric(c):
    """Full symmetric matrix from its compact form: :math:`a_{ij} = a_{ji} = c_{i(i+1)/2 + j}`, :math:`i \\ge j`.

    Parameters
    ----------
    c : array_like, shape (n (n + 1) / 2,)
        Lower triangle row by row.

    Returns
    -------
    numpy.ndarray, shape (n, n)

    Raises
    ------
    TypeError
        Non-real input.
    ValueError
        Not one-dimensional or a length that is not a triangular number.
    """
    c = _real_array(c, "compact")
    if c.ndim != 1:
        raise ValueError(f"compact: expected a one-dimensional array, got shape {c.shape}")
    n = _dimension(c.shape[0])
    a = np.empty((n, n), c.dtype)
    rows, cols = np.tril_indices(n)
    a[rows, cols] = c
    a[cols, rows] = c
    return a


def symmetric_eigen(a, *, positive_definite=False, rtol=None):
    """Eigenvalues and eigenvectors of a real symmetric matrix (LAPACK ``?syevr``).

    :math:`a v_k = \\lambda_k v_k`, :math:`\\lambda_0 \\le \\lambda_1 \\le \\dots`,
    orthonormal :math:`v_k` (columns of the returned matrix), so that
    :math:`a = V \\operatorname{diag}(\\lambda) V^T`.

    Parameters
    ----------
    a : array_like, shape (n, n) or (n (n + 1) / 2,)
        Symmetric matrix, full or compact (one-dimensional input is taken as
        the compact form, see :func:`compact_to_symmetric`).
    positive_definite : bool, optional
        If true (for covariance and error matrices), raise
        :class:`NotPositiveDefiniteError` unless every eigenvalue exceeds
        :math:`n \\epsilon \\max|\\lambda|` (:math:`\\epsilon` the machine
        epsilon): such a matrix is positive definite within rounding.
    rtol : float, optional
        Symmetry tolerance for full input, as in :func:`symmetric_to_compact`.

    Returns
    -------
    eigenvalues : numpy.ndarray, shape (n,)
        Ascending.
    eigenvectors : numpy.ndarray, shape (n, n)
        Column ``k`` belongs to ``eigenvalues[k]``.

    Raises
    ------
    TypeError
        Non-real input.
    ValueError
        Not square or compact, not symmetric, not finite, or empty.
    NotPositiveDefiniteError
        ``positive_definite`` was requested and the matrix is not; the
        exception carries the eigenvalues.
    numpy.linalg.LinAlgError
        LAPACK reports a failure.
    """
    a = _real_array(a, "a")
    if a.ndim == 1:
        a = compact_to_symmetric(a)
    if a.ndim != 2 or a.shape[0] != a.shape[1]:
        raise ValueError(f"a: expected a square matrix or a compact vector, got shape {a.shape}")
    if a.shape[0] == 0:
        raise ValueError("a: the matrix is empty")
    _check_symmetric(a, rtol)
    syevr = lapack.ssyevr if a.dtype == np.float32 else lapack.dsyevr
    w, v, m, _isuppz, info = syevr(np.array(a, order="F"), compute_v=1, range="A", lower=1)
    if info != 0:
        raise np.linalg.LinAlgError(f"LAPACK {syevr.__name__ if hasattr(syevr, '__name__') else '?syevr'} "
                                    f"failed, info = {info}")
    w = np.asarray(w[:m], dtype=a.dtype)
    v = np.ascontiguousarray(v[:, :m], dtype=a.dtype)
    if positive_definite:
        n = a.shape[0]
        threshold = n * np.finfo(a.dtype).eps * np.max(np.abs(w))
        if not w[0] > threshold:
            raise NotPositiveDefiniteError(
                f"the matrix is not positive definite: smallest eigenvalue {w[0]:.6g}, "
                f"largest {w[-1]:.6g}", w)
    return w, v
