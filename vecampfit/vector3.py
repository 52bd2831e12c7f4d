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
from ._arguments import numpydoc as _numpydoc, public_function as _public_function, real_array as _real_array

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
        a = _real_array(value, name)
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


def _run(kernels, ncomp, routine, result, **named):
    """Run the block routine ``routine`` of the extension ``kernels`` on arrays of ``ncomp``-vectors.

    ``named`` are the vector operands (named in error messages); ``result``
    is the number of components of the result, 0 for one value per vector
    (pair), which is returned as a scalar for a single vector.
    """
    operands, shape, dtype = _vectors(ncomp, **named)
    components = (result,) if result else ()
    out = np.empty((operands[0].shape[0],) + components, dtype=dtype)
    getattr(kernels, routine + "_kernel")(*operands, out)
    if result:
        return out.reshape(shape + components)
    return out.reshape(shape)[()]


def _block_function(module, kernels, ncomp, routine, operands, result, summary, details="", note=""):
    """A public function of ``module`` that runs one block routine (see :func:`_run`).

    Parameters
    ----------
    module : str
        Module of the public function.
    kernels, ncomp, routine, result
        As in :func:`_run`.
    operands : str
        The parameters: ``"a"``, ``"a, b"`` or ``"p"`` (the error messages
        name ``p`` as ``a``).
    summary, details : str
        First line and further paragraphs of the docstring.
    note : str
        Description of the result in the docstring (may be empty).
    """
    if operands == "a, b":
        def function(a, b):
            return _run(kernels, ncomp, routine, result, a=a, b=b)
    elif operands == "a":
        def function(a):
            return _run(kernels, ncomp, routine, result, a=a)
    else:
        def function(p):
            return _run(kernels, ncomp, routine, result, a=p)
    components = f"..., {result}" if result else "..."
    doc = _numpydoc(summary, details, parameters=[(f"{operands} : array_like, shape (..., {ncomp})", "")],
                    returns=[(f"numpy.ndarray, shape ({components})", note)])
    return _public_function(function, routine, module, doc)


def _function(routine, operands, result, summary, details="", note=""):
    return _block_function(__name__, _k, 3, routine, operands, result, summary, details, note)


add = _function("add", "a, b", 3, "Sum :math:`a + b`.")
subtract = _function("subtract", "a, b", 3, "Difference :math:`a - b`.")


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


dot = _function("dot", "a, b", 0, "Scalar product :math:`a \\cdot b = a_x b_x + a_y b_y + a_z b_z`.")
cross = _function("cross", "a, b", 3, "Vector product :math:`a \\times b`.")
norm = _function("norm", "a", 0, "Length :math:`|a| = \\sqrt{a_x^2 + a_y^2 + a_z^2}`.")
norm_squared = _function("norm_squared", "a", 0, "Squared length :math:`|a|^2`.")
transverse = _function(
    "transverse", "a", 0,
    "Component transverse to the z axis, :math:`\\sqrt{a_x^2 + a_y^2}` (p_t for momenta).")
unit = _function("unit", "a", 3, "Unit vector :math:`a / |a|` (NaN for a zero vector).")
cos_polar_angle = _function(
    "cos_polar_angle", "a", 0,
    "Cosine of the polar angle, :math:`\\cos\\theta = a_z / |a|` (NaN for a zero vector).")
polar_angle = _function(
    "polar_angle", "a", 0,
    "Polar angle :math:`\\theta = \\operatorname{atan2}(\\sqrt{a_x^2 + a_y^2}, a_z) \\in [0, \\pi]` (radians).")
azimuthal_angle = _function(
    "azimuthal_angle", "a", 0,
    "Azimuthal angle :math:`\\varphi = \\operatorname{atan2}(a_y, a_x) \\in [-\\pi, \\pi]` (radians).")
cos_angle = _function("cos_angle", "a, b", 0,
                      "Cosine of the angle between two vectors, :math:`a \\cdot b / (|a|\\,|b|)`.",
                      note="NaN where either vector is zero.")
angle = _function(
    "angle", "a, b", 0,
    "Angle between two vectors, :math:`\\operatorname{atan2}(|a \\times b|, a \\cdot b) \\in [0, \\pi]`.",
    details="Accurate also for nearly parallel or antiparallel vectors (unlike the\n"
            "arccosine of :func:`cos_angle`).",
    note="Radians.")
