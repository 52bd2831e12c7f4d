"""Lorentz four-vectors over arrays of events.

The paper's ``VECAMPFIT_VECTOR4``.  The functions here take arrays of shape
``(..., 4)`` with columns ``(px, py, pz, E)`` (GeV; float32 or float64, the
result has the precision of the inputs; two arguments broadcast against each
other) and run the block routines of ``vecampfit/vector4.pxd``, where a block
of four-vectors is a structure of arrays: ``4 * VECTOR_LENGTH`` values,
component ``c`` (0 = px, 1 = py, 2 = pz, 3 = E) of lane ``i`` at
``p[c * VECTOR_LENGTH + i]``; the first ``3 * VECTOR_LENGTH`` values are the
spatial part as a :mod:`vecampfit.vector3` block.

Metric :math:`(+,-,-,-)`: :math:`a \\cdot b = E_a E_b - \\vec a \\cdot \\vec b`.
Angles of the spatial parts: apply :mod:`vecampfit.vector3` to ``p[..., :3]``.
"""

import numpy as np

from . import _vector4 as _k
from .vector3 import _vectors

__all__ = [
    "add",
    "subtract",
    "dot",
    "mass_squared",
    "mass",
    "invariant_mass_squared",
    "momentum",
    "boost_to_rest_frame",
    "boost_from_rest_frame",
    "boost",
]

def _scalar(routine, a, b=None):
    """One value per 4-vector (pair), by the block routine ``routine`` of vector4.pxd."""
    if b is None:
        operands, shape, dtype = _vectors(4, a=a)
    else:
        operands, shape, dtype = _vectors(4, a=a, b=b)
    out = np.empty(operands[0].shape[0], dtype=dtype)
    getattr(_k, routine + "_kernel")(*operands, out)
    return out.reshape(shape)[()]


def _vector(routine, a, b, names=("a", "b")):
    """One 4-vector per pair, by the block routine ``routine`` of vector4.pxd."""
    (a, b), shape, dtype = _vectors(4, **{names[0]: a, names[1]: b})
    out = np.empty_like(a)
    getattr(_k, routine + "_kernel")(a, b, out)
    return out.reshape(shape + (4,))


def add(a, b):
    """Sum of four-vectors :math:`a + b`.

    Parameters
    ----------
    a, b : array_like, shape (..., 4)

    Returns
    -------
    numpy.ndarray, shape (..., 4)
    """
    return _vector("add", a, b)


def subtract(a, b):
    """Difference of four-vectors :math:`a - b`.

    Parameters
    ----------
    a, b : array_like, shape (..., 4)

    Returns
    -------
    numpy.ndarray, shape (..., 4)
    """
    return _vector("subtract", a, b)


def dot(a, b):
    """Minkowski product :math:`a \\cdot b = E_a E_b - a_x b_x - a_y b_y - a_z b_z` (GeV^2).

    Parameters
    ----------
    a, b : array_like, shape (..., 4)

    Returns
    -------
    numpy.ndarray, shape (...)
    """
    return _scalar("dot", a, b)


def mass_squared(p):
    """Squared invariant mass :math:`m^2 = E^2 - |\\vec p|^2` (GeV^2).

    Parameters
    ----------
    p : array_like, shape (..., 4)

    Returns
    -------
    numpy.ndarray, shape (...)
    """
    return _scalar("mass_squared", p)


def mass(p):
    """Invariant mass :math:`m = \\sqrt{E^2 - |\\vec p|^2}` (GeV).

    For a space-like vector (:math:`m^2 < 0`, also from rounding for massless
    particles) the result is :math:`-\\sqrt{-m^2}` (ROOT's convention).

    Parameters
    ----------
    p : array_like, shape (..., 4)

    Returns
    -------
    numpy.ndarray, shape (...)
    """
    return _scalar("mass", p)


def invariant_mass_squared(a, b):
    """Squared invariant mass of a pair, :math:`(a + b)^2` (GeV^2).

    Parameters
    ----------
    a, b : array_like, shape (..., 4)

    Returns
    -------
    numpy.ndarray, shape (...)
    """
    return _scalar("invariant_mass_squared", a, b)


def momentum(p):
    """Length of the spatial momentum :math:`|\\vec p|` (GeV).

    Parameters
    ----------
    p : array_like, shape (..., 4)

    Returns
    -------
    numpy.ndarray, shape (...)
    """
    return _scalar("momentum", p)


def _check_time_like(frame, name="frame"):
    f = np.asarray(frame)
    m2 = f[..., 3] ** 2 - np.sum(f[..., :3] ** 2, axis=-1)
    if not np.all(np.isfinite(f)):
        raise ValueError(f"{name}: four-vectors must be finite")
    if np.any(m2 <= 0) or np.any(f[..., 3] <= 0):
        raise ValueError(f"{name}: the frame four-vectors must be time-like with positive energy")


def boost_to_rest_frame(p, frame):
    """Four-vectors ``p`` in the rest frame of ``frame`` (a pure boost, axes kept).

    With :math:`M = \\sqrt{f^2}`:
    :math:`E^* = (E_f E - \\vec f \\cdot \\vec p)/M`,
    :math:`\\vec p^* = \\vec p - \\vec f\\,(E + E^*)/(E_f + M)`.

    Parameters
    ----------
    p : array_like, shape (..., 4)
        Four-vectors (px, py, pz, E), GeV.
    frame : array_like, shape (..., 4)
        Four-momentum of the frame (time-like, positive energy).

    Returns
    -------
    numpy.ndarray, shape (..., 4)

    Raises
    ------
    ValueError
        ``frame`` not time-like or with non-positive energy.  (The block
        routine gives NaN or infinities instead.)
    """
    (pp, ff), shape, dtype = _vectors(4, p=p, frame=frame)
    _check_time_like(ff)
    out = np.empty_like(pp)
    _k.boost_to_rest_frame_kernel(pp, ff, out)
    return out.reshape(shape + (4,))


def boost_from_rest_frame(p, frame):
    """Four-vectors ``p`` given in the rest frame of ``frame``, in the frame where ``frame`` is given.

    The inverse of :func:`boost_to_rest_frame`:
    :math:`E' = (E_f E + \\vec f \\cdot \\vec p)/M`,
    :math:`\\vec p' = \\vec p + \\vec f\\,(E + E')/(E_f + M)`, :math:`M = \\sqrt{f^2}`.

    Parameters
    ----------
    p : array_like, shape (..., 4)
        Four-vectors in the rest frame of ``frame`` (GeV).
    frame : array_like, shape (..., 4)
        Four-momentum of the frame (time-like, positive energy).

    Returns
    -------
    numpy.ndarray, shape (..., 4)

    Raises
    ------
    ValueError
        ``frame`` not time-like or with non-positive energy.
    """
    (pp, ff), shape, dtype = _vectors(4, p=p, frame=frame)
    _check_time_like(ff)
    out = np.empty_like(pp)
    _k.boost_from_rest_frame_kernel(pp, ff, out)
    return out.reshape(shape + (4,))


def boost(p, beta):
    """Lorentz boost :math:`\\Lambda(\\vec\\beta) p` that gives a particle at rest the velocity :math:`\\vec\\beta`.

    With :math:`\\gamma = 1/\\sqrt{1 - \\beta^2}`:
    :math:`E' = \\gamma (E + \\vec\\beta \\cdot \\vec p)`,
    :math:`\\vec p' = \\vec p + \\vec\\beta\\,[\\gamma^2/(\\gamma + 1)\\,\\vec\\beta \\cdot \\vec p + \\gamma E]`.

    Parameters
    ----------
    p : array_like, shape (..., 4)
        Four-vectors (GeV).
    beta : array_like, shape (..., 3)
        Velocities (units of c), :math:`|\\vec\\beta| < 1`.

    Returns
    -------
    numpy.ndarray, shape (..., 4)

    Raises
    ------
    ValueError
        :math:`|\\vec\\beta| \\ge 1`.
    """
    (pp,), shape_p, dtype = _vectors(4, p=p)
    (bb,), shape_b, dtype_b = _vectors(3, beta=beta)
    if dtype_b != dtype:
        raise TypeError(f"mixed precisions: p is {dtype}, beta is {dtype_b}")
    if not np.all(np.sum(bb.astype(np.float64) ** 2, axis=1) < 1):
        raise ValueError("beta: |beta| must be below 1")
    try:
        shape = np.broadcast_shapes(shape_p, shape_b)
    except ValueError as exc:
        raise ValueError(f"p {shape_p} and beta {shape_b} do not broadcast") from exc
    pp = np.ascontiguousarray(np.broadcast_to(pp.reshape(shape_p + (4,)), shape + (4,))).reshape(-1, 4)
    bb = np.ascontiguousarray(np.broadcast_to(bb.reshape(shape_b + (3,)), shape + (3,))).reshape(-1, 3)
    out = np.empty_like(pp)
    _k.boost_kernel(pp, bb, out)
    return out.reshape(shape + (4,))
