"""Complex vectors: structure-of-arrays complex arithmetic (the paper's complex-vector type).

The complex type of C and Fortran stores the real and imaginary parts of each
element next to each other, so a vector of real parts needs permutations.
vecampfit's complex vector keeps them in separate arrays ``re[L]`` and
``im[L]`` (``vecampfit.block.complex_vector``), and the block routines in
``vecampfit/complex_vector.pxd`` work on the ``L`` lanes at once: a user's
Cython density cimports them (``cimport vecampfit.complex_vector as cv``).

The functions here apply those block routines to numpy arrays of any length:
complex64 or complex128 (float32 or float64 arrays count as complex with a
zero imaginary part); the result has the input's precision.  Mixing
precisions raises :class:`TypeError`.

Divisions and moduli use :math:`|z|^2 = \\mathrm{Re}^2 + \\mathrm{Im}^2`
without rescaling, so that the loops vectorize: they are accurate while the
parts are below about 1e150 in magnitude (1e18 for complex64) and the
divisor above 1e-150 (1e-18).
"""

import numbers

import numpy as np

from . import _complex_vector as _k
from ._arguments import numpydoc as _numpydoc, public_function as _public_function

__all__ = [
    "add", "subtract", "multiply", "divide", "multiply_add",
    "negate", "inverse", "conjugate", "absolute_value", "absolute_value_squared",
    "sqrt_physical", "sqrt_unphysical", "sum",
]

# Each operation is the block routine of complex_vector.pxd of that name, over
# arrays: _KERNELS[name](a_re, a_im, *second_operand, out_re[, out_im]).
_KERNELS = {name: getattr(_k, name + "_kernel") for name in (
    "add", "subtract", "multiply", "divide", "add_real", "subtract_real", "multiply_real",
    "add_real_scalar", "subtract_real_scalar", "multiply_real_scalar", "add_complex_scalar",
    "subtract_complex_scalar", "multiply_complex_scalar", "negate", "inverse", "conjugate",
    "sqrt_physical", "sqrt_unphysical", "multiply_add", "multiply_add_real",
    "multiply_add_complex_scalar", "absolute_value", "absolute_value_squared",
)}

_REAL = {np.dtype(np.complex64): np.dtype(np.float32), np.dtype(np.complex128): np.dtype(np.float64),
         np.dtype(np.float32): np.dtype(np.float32), np.dtype(np.float64): np.dtype(np.float64)}
_COMPLEX = {np.dtype(np.float32): np.dtype(np.complex64), np.dtype(np.float64): np.dtype(np.complex128)}


def _as_array(x, name):
    """Return ``x`` as an array of a supported dtype (Python numbers become float64/complex128)."""
    if isinstance(x, (np.ndarray, np.generic)):
        a = np.asarray(x)
        if a.dtype not in _REAL:
            raise TypeError(f"{name}: dtype {a.dtype} is not supported "
                            "(use complex64, complex128, float32 or float64)")
        return a
    try:
        a = np.asarray(x)
    except Exception as exc:  # pragma: no cover - numpy raises many kinds
        raise TypeError(f"{name}: expected numbers, got {x!r}") from exc
    if a.dtype.kind in "biuf":
        return a.astype(np.float64)
    if a.dtype.kind == "c":
        return a.astype(np.complex128)
    raise TypeError(f"{name}: expected numbers, got {x!r}")


def _parts(a, real_dtype, shape):
    a = np.broadcast_to(a, shape)
    re = np.ascontiguousarray(a.real, dtype=real_dtype).ravel()
    im = np.ascontiguousarray(a.imag if a.dtype.kind == "c" else np.zeros(shape), dtype=real_dtype).ravel()
    return re, im


def _precision(arrays):
    """Common real dtype of the array operands (Python scalars adapt to it)."""
    dtypes = {_REAL[a.dtype] for a, scalar in arrays if not scalar}
    if len(dtypes) > 1:
        raise TypeError("mixed precisions: " + ", ".join(sorted(str(d) for d in dtypes))
                        + " (convert the operands to one precision)")
    return dtypes.pop() if dtypes else np.dtype(np.float64)


def _is_scalar(x):
    return isinstance(x, numbers.Number) and not isinstance(x, (np.ndarray, np.generic))


def _binary(name, a, b, addend=None):
    scalar_b = _is_scalar(b) or (isinstance(b, np.generic))
    a_arr = _as_array(a, "a")
    b_arr = _as_array(b, "b")
    operands = [(a_arr, False), (b_arr, scalar_b)]
    if addend is not None:
        addend_arr = _as_array(addend, "out")
        operands.append((addend_arr, False))
    real = _precision(operands)
    shapes = [a_arr.shape] + ([] if scalar_b else [b_arr.shape]) + ([addend_arr.shape] if addend is not None else [])
    try:
        shape = np.broadcast_shapes(*shapes)
    except ValueError as exc:
        raise ValueError("operand shapes do not broadcast: " + ", ".join(str(s) for s in shapes)) from exc
    a_re, a_im = _parts(a_arr, real, shape)
    if scalar_b:
        kind = "complex_scalar" if np.iscomplexobj(b_arr) else "real_scalar"
        op = name if name == "divide" else f"{name}_{kind}"
        if name == "divide":
            # Division by a scalar: multiply by its inverse (one rounding more).
            inv = 1 / complex(b_arr)
            op, second = "multiply_complex_scalar", (real.type(inv.real), real.type(inv.imag))
        elif kind == "complex_scalar":
            second = (real.type(np.real(b_arr)), real.type(np.imag(b_arr)))
        else:
            second = (real.type(np.real(b_arr)),)
    elif b_arr.dtype.kind == "f" and name != "divide":
        op = f"{name}_real"
        second = (np.ascontiguousarray(np.broadcast_to(b_arr, shape), dtype=real).ravel(),)
    else:
        op = name
        second = _parts(b_arr, real, shape)
    if addend is not None:
        out_re, out_im = _parts(addend_arr, real, shape)
        out_re, out_im = out_re.copy(), out_im.copy()
    else:
        out_re, out_im = np.empty_like(a_re), np.empty_like(a_im)
    _KERNELS[op](a_re, a_im, *second, out_re, out_im)
    return _join(out_re, out_im, shape)


def _join(re, im, shape):
    out = np.empty(re.shape, _COMPLEX[re.dtype])
    out.real = re
    out.imag = im
    return out.reshape(shape)


def _unary(name, a, real_result=False):
    a_arr = _as_array(a, "a")
    real = _REAL[a_arr.dtype]
    re, im = _parts(a_arr, real, a_arr.shape)
    out_re, out_im = np.empty_like(re), np.empty_like(im)
    _KERNELS[name](re, im, out_re, *(() if real_result else (out_im,)))
    return out_re.reshape(a_arr.shape) if real_result else _join(out_re, out_im, a_arr.shape)


# Docstring entries of the operands.
_A = ("a : array_like", "Complex vector.")
_B = ("b : array_like or scalar", "Complex vector, real vector, real scalar or complex scalar.")
_RESULT = ("numpy.ndarray", "")


def _binary_function(name, summary, a=_A, b=_B, result=_RESULT):
    """The public ``name(a, b)``: the block routine ``name`` and its variants (see :func:`_binary`)."""
    def function(a, b):
        return _binary(name, a, b)

    doc = _numpydoc(summary, parameters=[a, b], returns=[result])
    return _public_function(function, name, __name__, doc)


def _unary_function(name, summary, details="", result=_RESULT, real_result=False):
    """The public ``name(a)``: the block routine ``name`` applied to each element."""
    def function(a):
        return _unary(name, a, real_result=real_result)

    doc = _numpydoc(summary, details, parameters=[_A], returns=[result])
    return _public_function(function, name, __name__, doc)


add = _binary_function(
    "add", "Sum :math:`a + b`.",
    a=("a : array_like", "Complex vector (complex64/complex128, or float32/float64 as complex)."),
    b=("b : array_like or scalar",
       "Another complex vector, a real vector (float32/float64 array: block\n"
       "routine ``add_real``), a real scalar (``add_real_scalar``) or a\n"
       "complex scalar (``add_complex_scalar``)."),
    result=("numpy.ndarray", "Complex array of the operands' precision and broadcast shape."))
subtract = _binary_function("subtract", "Difference :math:`a - b`; ``b`` as in :func:`add`.")
multiply = _binary_function(
    "multiply",
    "Product :math:`a b = (a_r b_r - a_i b_i) + i (a_r b_i + a_i b_r)`; ``b`` as in :func:`add`.")
divide = _binary_function(
    "divide", "Quotient :math:`a / b = a \\bar b / |b|^2`.",
    b=("b : array_like or scalar",
       "Complex (or real) vector, or a scalar (then ``a`` is multiplied by\n"
       "``1/b``).  A zero divisor gives inf/NaN elements."))


def multiply_add(out, a, b):
    if _is_scalar(b) and not np.iscomplexobj(b):
        b = complex(b)
    return _binary("multiply_add", a, b, addend=out)


multiply_add.__doc__ = _numpydoc(
    "Multiply-accumulate :math:`out + a b` (amplitude sums); ``b`` as in :func:`add`.",
    parameters=[("out : array_like", "The addend (not modified)."), _A,
                ("b : array_like or scalar", "Complex vector, real vector, or complex or real scalar.")],
    returns=[_RESULT])

negate = _unary_function("negate", "Negation :math:`-a`.")
inverse = _unary_function("inverse", "Inverse :math:`1/a = \\bar a / |a|^2`; zero gives inf/NaN.")
conjugate = _unary_function("conjugate", "Complex conjugate :math:`\\bar a`.")
absolute_value = _unary_function("absolute_value", "Modulus :math:`|a| = \\sqrt{a_r^2 + a_i^2}`.",
                                 result=("numpy.ndarray", "Real array (float32 for complex64)."),
                                 real_result=True)
absolute_value_squared = _unary_function(
    "absolute_value_squared",
    "Squared modulus :math:`|a|^2 = a_r^2 + a_i^2` (the density of an amplitude).",
    result=("numpy.ndarray", "Real array."), real_result=True)
sqrt_physical = _unary_function(
    "sqrt_physical", "Square root on the physical sheet, :math:`\\mathrm{Im}\\sqrt{a} \\ge 0`.",
    details="The branch cut is the positive real axis: for :math:`a = x > 0` the\n"
            "value is :math:`+\\sqrt{x}` (the limit from :math:`\\mathrm{Im}\\, a > 0`,\n"
            "whatever the sign of a zero imaginary part), just below the axis it is\n"
            "close to :math:`-\\sqrt{x}`; for :math:`a = -x < 0` it is\n"
            ":math:`+i\\sqrt{x}`, the breakup momentum below threshold.  It equals\n"
            "the principal root where that has a non-negative imaginary part and\n"
            "minus it elsewhere.")
sqrt_unphysical = _unary_function(
    "sqrt_unphysical",
    "Square root on the unphysical sheet: :math:`-` :func:`sqrt_physical` (:math:`\\mathrm{Im} \\le 0`).")


def sum(a):
    """Sum of the elements: lane sums of each block, added block by block.

    Parameters
    ----------
    a : array_like
        Complex vector.

    Returns
    -------
    complex
        A numpy complex scalar of the input's precision.
    """
    a_arr = _as_array(a, "a")
    real = _REAL[a_arr.dtype]
    re, im = _parts(a_arr, real, a_arr.shape)
    s_re, s_im = _k.sum_kernel(re, im)
    return _COMPLEX[real].type(complex(s_re, s_im))
