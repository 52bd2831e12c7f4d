"""Three-vectors over arrays of events.

The paper's ``VECAMPFIT_VECTOR3``.  The functions here take arrays of shape
``(..., 3)`` (columns x, y, z; float32 or float64, the result has the
precision of the inputs; two arguments broadcast against each other) and run
the block routines of ``vecampfit/vector3.pxd``, where a block of
three-vectors is a structure of arrays: ``3 * VECTOR_LENGTH`` values,
component ``c`` of lane ``i`` at ``v[c * VECTOR_LENGTH + i]``.  Users' Cython
code cimports those::

    cimport vecampfit.vector3 as v3
    cdef double cos_t[VECTOR_LENGTH]
    v3.cos_angle(cos_t, a, b)   # a, b: double[3 * VECTOR_LENGTH]

Units are those of the inputs (GeV for momenta); angles in radians.
"""

import numpy as np

from . import _vector3 as _k

__all__ = [
    "add",
    "subtract",
    "scale",
    "dot",
    "cross",
    "norm",
    "norm_squared",
    "transverse",
    "unit",
    "cos_polar_angle",
    "polar_angle",
    "azimuthal_angle",
    "cos_angle",
    "angle",
]


def _vectors(ncomp, **named):
    """Check and broadcast arrays of vectors (..., ncomp) to one shape and precision.

    Returns the (n, ncomp) contiguous arrays, the leading shape and the dtype.
    """
    arrays = {}
    for name, value in named.items():
        if isinstance(value, (np.ndarray, np.generic)):
            if value.dtype not in (np.float32, np.float64):
                raise TypeError(f"{name}: expected a float32 or float64 array, got dtype {value.dtype}")
            a = np.asarray(value)
        else:
            try:
                a = np.asarray(value, dtype=np.float64)
            except (TypeError, ValueError) as exc:
                raise TypeError(f"{name}: expected real numbers, got {value!r}") from exc
        if a.ndim < 1 or a.shape[-1] != ncomp:
            raise ValueError(f"{name}: expected an array of shape (..., {ncomp}), got {a.shape}")
        arrays[name] = a
    dtypes = {a.dtype for a in arrays.values()}
    if len(dtypes) > 1:
        raise TypeError("mixed precisions: " + ", ".join(f"{n} is {a.dtype}" for n, a in arrays.items()))
    dtype = dtypes.pop()
    try:
        shape = np.broadcast_shapes(*(a.shape for a in arrays.values()))
    except ValueError as exc:
        raise ValueError("array shapes do not broadcast: " + ", ".join(
            f"{n} {a.shape}" for n, a in arrays.items())) from exc
    flat = [np.ascontiguousarray(np.broadcast_to(a, shape), dtype=dtype).reshape(-1, ncomp)
            for a in arrays.values()]
    return flat, shape[:-1], dtype


def _scalar(routine, a, b=None):
    """One value per vector (pair), by the block routine ``routine`` of vector3.pxd."""
    if b is None:
        operands, shape, dtype = _vectors(3, a=a)
    else:
        operands, shape, dtype = _vectors(3, a=a, b=b)
    out = np.empty(operands[0].shape[0], dtype=dtype)
    getattr(_k, routine + "_kernel")(*operands, out)
    return out.reshape(shape)[()]


def _vector(routine, a, b=None):
    """One vector per vector (pair), by the block routine ``routine`` of vector3.pxd."""
    if b is None:
        operands, shape, dtype = _vectors(3, a=a)
    else:
        operands, shape, dtype = _vectors(3, a=a, b=b)
    out = np.empty_like(operands[0])
    getattr(_k, routine + "_kernel")(*operands, out)
    return out.reshape(shape + (3,))


def add(a, b):
    """Sum :math:`a + b`.

    Parameters
    ----------
    a, b : array_like, shape (..., 3)

    Returns
    -------
    numpy.ndarray, shape (..., 3)
    """
    return _vector("add", a, b)


def subtract(a, b):
    """Difference :math:`a - b`.

    Parameters
    ----------
    a, b : array_like, shape (..., 3)

    Returns
    -------
    numpy.ndarray, shape (..., 3)
    """
    return _vector("subtract", a, b)


def scale(a, s):
    """Product :math:`s\\,a` of vectors and real factors (one per vector).

    Parameters
    ----------
    a : array_like, shape (..., 3)
    s : array_like, shape (...)

    Returns
    -------
    numpy.ndarray, shape (..., 3)
    """
    (a,), shape, dtype = _vectors(3, a=a)
    s = np.asarray(s)
    if s.dtype.kind not in "fiu":
        raise TypeError(f"s: expected real numbers, got dtype {s.dtype}")
    try:
        s = np.ascontiguousarray(np.broadcast_to(s, shape), dtype=dtype).ravel()
    except ValueError as exc:
        raise ValueError(f"s: shape {s.shape} does not broadcast to {shape}") from exc
    out = np.empty_like(a)
    _k.scale_kernel(a, s, out)
    return out.reshape(shape + (3,))


def dot(a, b):
    """Scalar product :math:`a \\cdot b = a_x b_x + a_y b_y + a_z b_z`.

    Parameters
    ----------
    a, b : array_like, shape (..., 3)

    Returns
    -------
    numpy.ndarray, shape (...)
    """
    return _scalar("dot", a, b)


def cross(a, b):
    """Vector product :math:`a \\times b`.

    Parameters
    ----------
    a, b : array_like, shape (..., 3)

    Returns
    -------
    numpy.ndarray, shape (..., 3)
    """
    return _vector("cross", a, b)


def norm(a):
    """Length :math:`|a| = \\sqrt{a_x^2 + a_y^2 + a_z^2}`.

    Parameters
    ----------
    a : array_like, shape (..., 3)

    Returns
    -------
    numpy.ndarray, shape (...)
    """
    return _scalar("norm", a)


def norm_squared(a):
    """Squared length :math:`|a|^2`.

    Parameters
    ----------
    a : array_like, shape (..., 3)

    Returns
    -------
    numpy.ndarray, shape (...)
    """
    return _scalar("norm_squared", a)


def transverse(a):
    """Component transverse to the z axis, :math:`\\sqrt{a_x^2 + a_y^2}` (p_t for momenta).

    Parameters
    ----------
    a : array_like, shape (..., 3)

    Returns
    -------
    numpy.ndarray, shape (...)
    """
    return _scalar("transverse", a)


def unit(a):
    """Unit vector :math:`a / |a|` (NaN for a zero vector).

    Parameters
    ----------
    a : array_like, shape (..., 3)

    Returns
    -------
    numpy.ndarray, shape (..., 3)
    """
    return _vector("unit", a)


def cos_polar_angle(a):
    """Cosine of the polar angle, :math:`\\cos\\theta = a_z / |a|` (NaN for a zero vector).

    Parameters
    ----------
    a : array_like, shape (..., 3)

    Returns
    -------
    numpy.ndarray, shape (...)
    """
    return _scalar("cos_polar_angle", a)


def polar_angle(a):
    """Polar angle :math:`\\theta = \\operatorname{atan2}(\\sqrt{a_x^2 + a_y^2}, a_z) \\in [0, \\pi]` (radians).

    Parameters
    ----------
    a : array_like, shape (..., 3)

    Returns
    -------
    numpy.ndarray, shape (...)
    """
    return _scalar("polar_angle", a)


def azimuthal_angle(a):
    """Azimuthal angle :math:`\\varphi = \\operatorname{atan2}(a_y, a_x) \\in [-\\pi, \\pi]` (radians).

    Parameters
    ----------
    a : array_like, shape (..., 3)

    Returns
    -------
    numpy.ndarray, shape (...)
    """
    return _scalar("azimuthal_angle", a)


def cos_angle(a, b):
    """Cosine of the angle between two vectors, :math:`a \\cdot b / (|a|\\,|b|)`.

    Parameters
    ----------
    a, b : array_like, shape (..., 3)

    Returns
    -------
    numpy.ndarray, shape (...)
        NaN where either vector is zero.
    """
    return _scalar("cos_angle", a, b)


def angle(a, b):
    """Angle between two vectors, :math:`\\operatorname{atan2}(|a \\times b|, a \\cdot b) \\in [0, \\pi]`.

    Accurate also for nearly parallel or antiparallel vectors (unlike the
    arccosine of :func:`cos_angle`).

    Parameters
    ----------
    a, b : array_like, shape (..., 3)

    Returns
    -------
    numpy.ndarray, shape (...)
        Radians.
    """
    return _scalar("angle", a, b)
