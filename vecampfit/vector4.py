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
from ._arguments import numpydoc as _numpydoc, public_function as _public_function
from .vector3 import _block_function, _vectors

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


def _function(routine, operands, result, summary, details=""):
    return _block_function(__name__, _k, 4, routine, operands, result, summary, details)


add = _function("add", "a, b", 4, "Sum of four-vectors :math:`a + b`.")
subtract = _function("subtract", "a, b", 4, "Difference of four-vectors :math:`a - b`.")
dot = _function(
    "dot", "a, b", 0,
    "Minkowski product :math:`a \\cdot b = E_a E_b - a_x b_x - a_y b_y - a_z b_z` (GeV^2).")
mass_squared = _function("mass_squared", "p", 0,
                         "Squared invariant mass :math:`m^2 = E^2 - |\\vec p|^2` (GeV^2).")
mass = _function(
    "mass", "p", 0, "Invariant mass :math:`m = \\sqrt{E^2 - |\\vec p|^2}` (GeV).",
    details="For a space-like vector (:math:`m^2 < 0`, also from rounding for massless\n"
            "particles) the result is :math:`-\\sqrt{-m^2}` (ROOT's convention).")
invariant_mass_squared = _function("invariant_mass_squared", "a, b", 0,
                                   "Squared invariant mass of a pair, :math:`(a + b)^2` (GeV^2).")
momentum = _function("momentum", "p", 0, "Length of the spatial momentum :math:`|\\vec p|` (GeV).")


def _check_time_like(frame, name="frame"):
    f = np.asarray(frame)
    m2 = f[..., 3] ** 2 - np.sum(f[..., :3] ** 2, axis=-1)
    if not np.all(np.isfinite(f)):
        raise ValueError(f"{name}: four-vectors must be finite")
    if np.any(m2 <= 0) or np.any(f[..., 3] <= 0):
        raise ValueError(f"{name}: the frame four-vectors must be time-like with positive energy")


def _boost_function(routine, summary, details, p_description, raises_note=""):
    """The public boost into or out of the rest frame of ``frame``, by the block routine ``routine``."""
    def function(p, frame):
        (pp, ff), shape, dtype = _vectors(4, p=p, frame=frame)
        _check_time_like(ff)
        out = np.empty_like(pp)
        getattr(_k, routine + "_kernel")(pp, ff, out)
        return out.reshape(shape + (4,))

    doc = _numpydoc(
        summary, details,
        parameters=[("p : array_like, shape (..., 4)", p_description),
                    ("frame : array_like, shape (..., 4)", "Four-momentum of the frame (time-like, positive energy).")],
        returns=[("numpy.ndarray, shape (..., 4)", "")],
        raises=[("ValueError", "``frame`` not time-like or with non-positive energy." + raises_note)])
    return _public_function(function, routine, __name__, doc)


boost_to_rest_frame = _boost_function(
    "boost_to_rest_frame",
    "Four-vectors ``p`` in the rest frame of ``frame`` (a pure boost, axes kept).",
    "With :math:`M = \\sqrt{f^2}`:\n"
    ":math:`E^* = (E_f E - \\vec f \\cdot \\vec p)/M`,\n"
    ":math:`\\vec p^* = \\vec p - \\vec f\\,(E + E^*)/(E_f + M)`.",
    "Four-vectors (px, py, pz, E), GeV.",
    "  (The block\nroutine gives NaN or infinities instead.)")
boost_from_rest_frame = _boost_function(
    "boost_from_rest_frame",
    "Four-vectors ``p`` given in the rest frame of ``frame``, in the frame where ``frame`` is given.",
    "The inverse of :func:`boost_to_rest_frame`:\n"
    ":math:`E' = (E_f E + \\vec f \\cdot \\vec p)/M`,\n"
    ":math:`\\vec p' = \\vec p + \\vec f\\,(E + E')/(E_f + M)`, :math:`M = \\sqrt{f^2}`.",
    "Four-vectors in the rest frame of ``frame`` (GeV).")


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
