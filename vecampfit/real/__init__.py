"""Representation of real numbers: classification, sign, exponent, mantissa, transfer.

The paper's ``vecampfit-real`` (modules ``VECAMPFIT_REAL_NUMBER_*``,
``VECAMPFIT_TYPE_CONVERSION_*`` and ``VECAMPFIT_TRANSFER``), for IEEE 754
binary32 (``float32``: 1 sign bit, 8 exponent bits with bias 127, 23 fraction
bits) and binary64 (``float64``: 1, 11 with bias 1023, 52).  A finite nonzero
number is ``(-1)**s * 2**(E - bias) * 1.f`` (normal, ``0 < E < Emax``) or
``(-1)**s * 2**(1 - bias) * 0.f`` (subnormal, ``E = 0``); ``E = Emax`` (all
ones) encodes infinities (``f = 0``) and NaNs.

Every function takes numpy arrays (or scalars) of either precision, works
lane by lane exactly as the block routines in ``vecampfit/real/__init__.pxd``
that users' Cython code cimports (``cimport vecampfit.real as vr``), and
returns arrays of the input's shape.  Results agree bit for bit with numpy's
``isfinite``, ``isinf``, ``isnan``, ``signbit``, ``frexp``, ``ldexp``,
``rint`` and ``view``.

REAL128 is C's ``long double``: on x86-64 Linux the x87 80-bit extended
format (1 sign bit, 15 exponent bits, a 64-bit significand with an explicit
integer bit) stored in 16 bytes; numpy's ``longdouble`` is the same type and
there is no native IEEE binary128.  :data:`REAL128_FORMAT` names it;
:func:`split_real128` and :func:`join_real128` handle its storage.

Raises
------
TypeError
    An argument of the wrong dtype (named in the message).
ValueError
    Arguments whose shapes do not match (named in the message).
"""

import numpy as _np

from . import _kernels
from .._arguments import numpydoc as _numpydoc, public_function as _public_function

__all__ = [
    "REAL_FINITE", "REAL_INFINITE", "REAL_NAN", "REAL128_FORMAT",
    "classify", "is_finite", "is_infinite", "is_nan",
    "sign_bit", "set_sign_bit",
    "frexp", "get_exponent", "get_mantissa", "set_exponent", "ldexp",
    "exponent_field", "mantissa_field", "set_exponent_field", "set_mantissa_field",
    "integer_to_real", "real_to_integer", "nearest_integer",
    "to_bits", "from_bits",
    "split_int64", "join_int64", "split_float64", "join_float64",
    "split_real128", "join_real128",
]

#: :func:`classify` result for finite numbers (zeros, subnormals, normals).
REAL_FINITE = 0
#: :func:`classify` result for ``+inf`` and ``-inf``.
REAL_INFINITE = 1
#: :func:`classify` result for NaNs.
REAL_NAN = 2

#: Format of REAL128 (C long double, numpy.longdouble) on this platform:
#: ``"x87_extended"`` (x86-64), ``"binary128"`` or ``"float64"``.
REAL128_FORMAT = {63: "x87_extended", 112: "binary128", 52: "float64"}.get(
    _np.finfo(_np.longdouble).nmant, "unknown")

_REAL_DTYPES = (_np.dtype(_np.float32), _np.dtype(_np.float64))


def _real(x, name):
    a = _np.asarray(x)
    if a.dtype not in _REAL_DTYPES:
        raise TypeError(f"{name} must be a float32 or float64 array, got dtype {a.dtype}")
    return _np.ascontiguousarray(a).reshape(-1), a.shape


def _integer(v, name, shape, dtype):
    a = _np.asarray(v)
    if a.dtype.kind not in "iub":
        raise TypeError(f"{name} must be an integer array, got dtype {a.dtype}")
    try:
        a = _np.broadcast_to(a, shape)
    except ValueError:
        raise ValueError(f"{name} has shape {a.shape}, which does not match the shape {shape} "
                         "of the real argument") from None
    if _np.dtype(dtype) == _np.int32 and a.dtype.itemsize >= 4 and a.size:
        a = _np.clip(a, -2 ** 31, 2 ** 31 - 1)
    return _np.ascontiguousarray(a.astype(dtype, copy=False)).reshape(-1)


def _shape(out, shape):
    return out.reshape(shape)[()]


def _unary(kernel, x, dtype, as_bool=False):
    # kernel(x, out) of _kernels, out of dtype with one value per element of x
    a, shape = _real(x, "x")
    out = _np.empty(a.shape, dtype=dtype)
    kernel(a, out)
    return _shape(out.astype(bool) if as_bool else out, shape)


def _with_integer(kernel, x, v, name, dtype):
    # kernel(x, v, out) of _kernels: out of x's dtype, v an integer array broadcast to x's shape
    a, shape = _real(x, "x")
    iv = _integer(v, name, shape, dtype)
    out = _np.empty_like(a)
    kernel(a, iv, out)
    return _shape(out, shape)


def _integer_array(v, name):
    a = _np.asarray(v)
    if a.dtype.kind not in "iu":
        raise TypeError(f"{name} must be an integer array, got dtype {a.dtype}")
    return a


def _array_of(x, dtype, description):
    a = _np.asarray(x)
    if a.dtype != dtype:
        raise TypeError(f"x must be a {description} array, got dtype {a.dtype}")
    return a


def _real_dtype(dtype):
    dt = _np.dtype(dtype)
    if dt not in _REAL_DTYPES:
        raise TypeError(f"dtype must be float32 or float64, got {dt}")
    return dt


def _to_real(kernel, v, dtype, shape):
    # kernel(v, out) of _kernels: one real of dtype per int64 of v
    out = _np.empty(v.shape, dtype=dtype)
    kernel(v, out)
    return _shape(out, shape)


def _split(kernel, v, shape, high_dtype):
    # kernel(v, low, high) of _kernels: a uint32 low and a high word per element of v
    low = _np.empty(v.shape, dtype=_np.uint32)
    high = _np.empty(v.shape, dtype=high_dtype)
    kernel(v, low, high)
    return _shape(low, shape), _shape(high, shape)


def _high_words(high, low):
    # high broadcast to the shape of low, for the join functions
    try:
        return _np.broadcast_to(high, low.shape)
    except ValueError:
        raise ValueError(f"high has shape {high.shape}, which does not match low's {low.shape}") from None


# Docstring entries shared by the functions.
_X = ("x : array_like of float32 or float64", "")
_SAME_DTYPE = ("numpy.ndarray", "Same dtype as ``x``.")


def _lane_function(name, kernel, result, summary, details="", as_bool=False):
    """The public ``name(x)``: one value of the dtype ``result`` per number, by ``kernel``.

    With ``as_bool`` the kernel's int32 values are read as truth values.
    """
    def function(x):
        return _unary(kernel, x, result, as_bool)

    returns = "numpy.ndarray of " + ("bool" if as_bool else _np.dtype(result).name)
    doc = _numpydoc(summary, details, parameters=[_X], returns=[(returns, "")])
    return _public_function(function, name, __name__, doc)


def _predicate(name, kernel, summary):
    """The public ``name(x)``: a truth value per number (``kernel`` gives 0 or 1 as int32)."""
    return _lane_function(name, kernel, _np.int32, summary, as_bool=True)


def _integer_argument_doc(summary, argument, details=""):
    """Docstring of a function of ``x`` and an integer array ``argument`` broadcast to its shape."""
    return _numpydoc(summary, details,
                     parameters=[_X, (f"{argument} : array_like of int", "Broadcast to the shape of ``x``.")],
                     returns=[_SAME_DTYPE])



def _join_doc(summary, words, result):
    """Docstring of a function of the ``low`` and ``high`` words of numbers."""
    return _numpydoc(summary, parameters=[(f"low, high : array_like of {words}",
                                           "Same shape (or broadcastable to the shape of ``low``).")],
                     returns=[(f"numpy.ndarray of {result}", "")])


classify = _lane_function(
    "classify", _kernels.classify_kernel, _np.int32,
    "Kind of each number: :data:`REAL_FINITE` (0), :data:`REAL_INFINITE` (1) or :data:`REAL_NAN` (2).")
is_finite = _predicate("is_finite", _kernels.is_finite_kernel,
                       "True where x is finite (zero, subnormal or normal); as :func:`numpy.isfinite`.")
is_infinite = _predicate("is_infinite", _kernels.is_infinite_kernel,
                         "True where x is ``+inf`` or ``-inf``; as :func:`numpy.isinf`.")
is_nan = _predicate("is_nan", _kernels.is_nan_kernel, "True where x is a NaN; as :func:`numpy.isnan`.")
sign_bit = _predicate("sign_bit", _kernels.sign_bit_kernel,
                      "The sign bit ``s`` of ``x = (-1)**s |x|``; as :func:`numpy.signbit` (True for ``-0.0``).")


def set_sign_bit(x, sign):
    return _with_integer(_kernels.set_sign_bit_kernel, x, _np.asarray(sign) != 0, "sign", _np.int32)


set_sign_bit.__doc__ = _numpydoc(
    "``x`` with its sign bit set where ``sign`` is true, cleared elsewhere: ``-|x|`` or ``|x|``.",
    "Works on zeros, infinities and NaNs alike (only the bit changes).",
    parameters=[_X, ("sign : array_like of bool or int",
                     "Broadcast to the shape of ``x``; nonzero means negative.")],
    returns=[("numpy.ndarray", "Same dtype and shape as ``x``.")])


def frexp(x):
    """Mantissa and exponent: ``x = m * 2**e`` with ``0.5 <= |m| < 1``; as :func:`numpy.frexp`.

    Subnormals are normalized; zeros, infinities and NaNs give ``m = x``,
    ``e = 0``.

    Parameters
    ----------
    x : array_like of float32 or float64

    Returns
    -------
    m : numpy.ndarray
        Same dtype as ``x``, with the sign of ``x``.
    e : numpy.ndarray of int32
    """
    a, shape = _real(x, "x")
    m = _np.empty_like(a)
    e = _np.empty(a.shape, dtype=_np.int32)
    _kernels.frexp_kernel(a, m, e)
    return _shape(m, shape), _shape(e, shape)


get_exponent = _lane_function(
    "get_exponent", _kernels.get_exponent_kernel, _np.int32,
    "Exponent ``e`` of :func:`frexp` (``x = m * 2**e``, ``0.5 <= |m| < 1``; 0 for 0, inf, NaN).")


def get_mantissa(x):
    """Mantissa ``m`` of :func:`frexp` (``0.5 <= |m| < 1``; ``x`` itself for 0, inf, NaN).

    Parameters
    ----------
    x : array_like of float32 or float64

    Returns
    -------
    numpy.ndarray
        Same dtype as ``x``.
    """
    a, shape = _real(x, "x")
    out = _np.empty_like(a)
    _kernels.get_mantissa_kernel(a, out)
    return _shape(out, shape)


def set_exponent(x, e):
    return _with_integer(_kernels.set_exponent_kernel, x, e, "e", _np.int32)


set_exponent.__doc__ = _integer_argument_doc(
    "``m * 2**e`` with ``m`` the :func:`frexp` mantissa of ``x``: ``x`` moved to binade ``e``.", "e",
    "Rounded as :func:`ldexp` (subnormal results rounded once, overflow to\n"
    "infinity); zeros, infinities and NaNs are unchanged.")


def ldexp(x, n):
    return _with_integer(_kernels.ldexp_kernel, x, n, "n", _np.int32)


ldexp.__doc__ = _integer_argument_doc(
    "Scaling by a power of two through the exponent: ``x * 2**n``; as :func:`numpy.ldexp`.", "n",
    "Correctly rounded to nearest: results in the subnormal range are rounded\n"
    "once, results beyond the largest finite number are infinite, tiny ones a\n"
    "signed zero.  ``n`` beyond the int32 range is clipped (the result is\n"
    "then zero or infinite anyway).")

exponent_field = _lane_function(
    "exponent_field", _kernels.exponent_field_kernel, _np.int32,
    "Biased exponent field ``E`` (float32: 0..255, float64: 0..2047; 0 for zeros and subnormals).")
mantissa_field = _lane_function(
    "mantissa_field", _kernels.mantissa_field_kernel, _np.int64,
    "Fraction field ``f`` without the hidden bit (float32: 23 bits, float64: 52 bits).")


def set_exponent_field(x, e):
    ev = _np.asarray(e) & 0x7FF if _np.asarray(e).dtype.kind in "iu" else e
    return _with_integer(_kernels.set_exponent_field_kernel, x, ev, "e", _np.int32)


set_exponent_field.__doc__ = _integer_argument_doc(
    "``x`` with its biased exponent field replaced by the low 8 (float32) or 11 (float64) bits of ``e``.", "e")


def set_mantissa_field(x, m):
    return _with_integer(_kernels.set_mantissa_field_kernel, x, m, "m", _np.int64)


set_mantissa_field.__doc__ = _integer_argument_doc(
    "``x`` with its fraction field replaced by the low 23 (float32) or 52 (float64) bits of ``m``.", "m")


def integer_to_real(n, dtype=_np.float64):
    """Integers converted to reals, rounded to nearest (C conversion, ``astype``).

    Parameters
    ----------
    n : array_like of int
        int64 (or narrower) values.
    dtype : numpy dtype
        ``float32`` or ``float64``.

    Returns
    -------
    numpy.ndarray of dtype

    Raises
    ------
    TypeError
        If ``n`` is not an integer array or ``dtype`` not float32/float64.
    """
    a = _np.asarray(n)
    if a.dtype.kind not in "iu" or (a.dtype.kind == "u" and a.dtype.itemsize >= 8):
        raise TypeError(f"n must be a signed integer array (int64 or narrower), got dtype {a.dtype}")
    dt = _real_dtype(dtype)
    v = _np.ascontiguousarray(a.astype(_np.int64, copy=False)).reshape(-1)
    return _to_real(_kernels.int64_to_real_kernel, v, dt, a.shape)


real_to_integer = _lane_function(
    "real_to_integer", _kernels.real_to_int64_kernel, _np.int64,
    "Reals truncated toward zero to int64 (C cast, ``astype(int64)`` in range).",
    "Out-of-range values saturate to ``-2**63`` or ``2**63 - 1``; NaN gives 0\n"
    "(the C cast would be undefined there).")
nearest_integer = _lane_function(
    "nearest_integer", _kernels.nearest_int64_kernel, _np.int64,
    "Reals rounded to the nearest int64, ties to even (:func:`numpy.rint`).",
    "Saturates like :func:`real_to_integer`; NaN gives 0.")


def to_bits(x):
    """Bit patterns: ``x.view(uint32)`` for float32, ``x.view(uint64)`` for float64.

    Parameters
    ----------
    x : array_like of float32 or float64

    Returns
    -------
    numpy.ndarray of uint32 or uint64
    """
    a, shape = _real(x, "x")
    out = _np.empty(a.shape, dtype=_np.int64)
    _kernels.to_bits_kernel(a, out)
    out = out.astype(_np.uint32) if a.dtype == _np.float32 else out.view(_np.uint64)
    return _shape(out, shape)


def from_bits(bits, dtype=_np.float64):
    """Reals with the given bit patterns (inverse of :func:`to_bits`).

    Parameters
    ----------
    bits : array_like of int
        Patterns (for float32 the low 32 bits are used).
    dtype : numpy dtype
        ``float32`` or ``float64``.

    Returns
    -------
    numpy.ndarray of dtype
    """
    a = _integer_array(bits, "bits")
    dt = _real_dtype(dtype)
    v = _np.ascontiguousarray(a.astype(_np.uint64, copy=False).view(_np.int64)
                              if a.dtype.itemsize == 8 else a.astype(_np.int64)).reshape(-1)
    return _to_real(_kernels.from_bits_kernel, v, dt, a.shape)


def split_int64(n):
    """Low and high 32-bit parts of int64: ``n = high * 2**32 + low``.

    Parameters
    ----------
    n : array_like of int64

    Returns
    -------
    low : numpy.ndarray of uint32
        The low 32 bits, ``0 <= low < 2**32``.
    high : numpy.ndarray of int32
        The high 32 bits (signed: ``n >> 32``).
    """
    a = _np.asarray(n)
    if a.dtype.kind not in "iu" or a.dtype == _np.uint64:
        raise TypeError(f"n must be a signed integer array, got dtype {a.dtype}")
    v = _np.ascontiguousarray(a.astype(_np.int64, copy=False)).reshape(-1)
    return _split(_kernels.split_int64_kernel, v, a.shape, _np.int32)


def join_int64(low, high):
    """``high * 2**32 + low`` as int64 (inverse of :func:`split_int64`).

    Parameters
    ----------
    low : array_like of uint32
    high : array_like of int32
        Same shape as ``low`` (or broadcastable to it).

    Returns
    -------
    numpy.ndarray of int64
    """
    lo = _integer_array(low, "low")
    shape = lo.shape
    lv = _np.ascontiguousarray(lo.astype(_np.uint32)).reshape(-1)
    hv = _integer(high, "high", shape, _np.int32)
    out = _np.empty(lv.shape, dtype=_np.int64)
    _kernels.join_int64_kernel(lv, hv, out)
    return _shape(out, shape)


def split_float64(x):
    """Low and high 32-bit words of binary64 patterns (``high`` holds sign, exponent, top 20 fraction bits).

    Parameters
    ----------
    x : array_like of float64

    Returns
    -------
    low, high : numpy.ndarray of uint32
    """
    a = _array_of(x, _np.float64, "float64")
    v = _np.ascontiguousarray(a).reshape(-1)
    return _split(_kernels.split_float64_kernel, v, a.shape, _np.uint32)


def join_float64(low, high):
    lo = _integer_array(low, "low")
    hi = _high_words(_integer_array(high, "high"), lo)
    lv = _np.ascontiguousarray(lo.astype(_np.uint32)).reshape(-1)
    hv = _np.ascontiguousarray(hi.astype(_np.uint32)).reshape(-1)
    out = _np.empty(lv.shape, dtype=_np.float64)
    _kernels.join_float64_kernel(lv, hv, out)
    return _shape(out, lo.shape)


join_float64.__doc__ = _join_doc(
    "float64 numbers from their low and high 32-bit words (inverse of :func:`split_float64`).", "uint32", "float64")


def split_real128(x):
    """Low and high 64-bit halves of the storage of REAL128 (``numpy.longdouble``) numbers.

    On x86-64 (x87 extended, :data:`REAL128_FORMAT`): ``low`` is the 64-bit
    significand with its explicit integer bit, ``high`` the sign (bit 15)
    and the 15-bit biased exponent (bias 16383); the six padding bytes of
    the 16-byte storage are not part of the number and come back as zero.
    For IEEE binary128 the halves are the low and high 64 bits; where long
    double is float64, ``low`` is its pattern and ``high`` 0.

    Parameters
    ----------
    x : array_like of numpy.longdouble

    Returns
    -------
    low, high : numpy.ndarray of uint64
    """
    a = _array_of(x, _np.longdouble, "numpy.longdouble")
    raw = _np.ascontiguousarray(a).reshape(-1).view(_np.uint8).reshape(-1, a.dtype.itemsize)
    padded = _np.zeros((raw.shape[0], 16), dtype=_np.uint8)
    padded[:, :raw.shape[1]] = raw
    words = padded.view("<u8") if _np.little_endian else padded.view(">u8")
    low, high = words[:, 0].astype(_np.uint64), words[:, 1].astype(_np.uint64)
    if REAL128_FORMAT == "x87_extended":
        high &= _np.uint64(0xFFFF)
    return _shape(low, a.shape), _shape(high, a.shape)


def join_real128(low, high):
    lo = _integer_array(low, "low")
    hi = _high_words(_integer_array(high, "high"), lo)
    words = _np.empty((lo.size, 2), dtype="<u8" if _np.little_endian else ">u8")
    words[:, 0] = lo.reshape(-1).astype(_np.uint64)
    words[:, 1] = hi.reshape(-1).astype(_np.uint64)
    if REAL128_FORMAT == "x87_extended":
        words[:, 1] &= 0xFFFF
    itemsize = _np.dtype(_np.longdouble).itemsize
    raw = _np.ascontiguousarray(words.view(_np.uint8).reshape(-1, 16)[:, :itemsize])
    out = raw.reshape(-1).view(_np.longdouble).copy()
    return _shape(out, lo.shape)


join_real128.__doc__ = _join_doc(
    "REAL128 (``numpy.longdouble``) numbers from their storage halves (inverse of :func:`split_real128`).",
    "uint64", "numpy.longdouble")
