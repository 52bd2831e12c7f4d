"""Signatures and addresses of the C functions of a density.

A block function reaches the fitter as a :class:`scipy.LowLevelCallable`
(from a capsule of ``vecampfit.fitter.density``'s ``model_description``, a
Cython module's ``__pyx_capi__``, ctypes or cffi).  Its signature says what
it is: the capsules of the model protocol are named ``"vecampfit KIND
PRECISION L=N"`` (kind, precision and vector length), other functions carry
their C signature (precision only).  :func:`parse_signature` reads both,
:func:`function_pointer` gives the address the kernels call.
"""

import ctypes
import re

from scipy import LowLevelCallable

from ._kernels import capsule_pointer
from .errors import DensityError

__all__ = ["function_pointer", "low_level_callable", "parse_signature"]

_PRECISION_OF_C_TYPE = {"float": "float32", "double": "float64"}
_OUR_NAME = re.compile(r"^vecampfit (density|density_gradient|density_gradient_sum|"
                       r"fill_parameter_buffer|components) "
                       r"(float32|float64) L=(\d+)$")
_C_ARGS = {
    "density": ("T*", "void*", "T*", "void*"),
    "density_gradient": ("T*", "T*", "void*", "T*", "void*"),
    "density_gradient_sum": ("T*", "double*", "double*", "void*", "T*", "void*"),
    "fill_parameter_buffer": ("T*", "T*", "double*"),
    "components": ("T*", "void*", "T*", "void*"),
}


def low_level_callable(obj):
    """``obj`` as a :class:`scipy.LowLevelCallable` if it is a C function (a
    LowLevelCallable, a PyCapsule, a ctypes or a cffi function), else None."""
    if isinstance(obj, LowLevelCallable):
        return obj
    if type(obj).__name__ == "PyCapsule" or isinstance(obj, ctypes._CFuncPtr):
        return LowLevelCallable(obj)
    if type(obj).__module__.startswith("_cffi") or type(obj).__name__ == "CData":
        return LowLevelCallable(obj)
    return None


def parse_signature(signature, kind):
    """Precision and vector length from a low-level callable's signature.

    Parameters
    ----------
    signature : str
        The capsule name: ``"vecampfit density float64 L=8"`` (from
        ``vecampfit.fitter.density``) or a C signature such as ``"void
        (double *, void const *, double const *, void const *)"``.
    kind : {"density", "density_gradient", "density_gradient_sum", "fill_parameter_buffer", \
"components"}

    Returns
    -------
    precision : {"float32", "float64"}
    vector_length : int or None
        None when the signature does not record it.

    Raises
    ------
    DensityError
        If the signature is not one of ``kind``.
    """
    m = _OUR_NAME.match(signature)
    if m:
        if m.group(1) != kind:
            raise DensityError(f"expected a {kind} function, got a {m.group(1)} ({signature!r})")
        return m.group(2), int(m.group(3))
    text = re.sub(r"\bconst\b", "", signature)
    text = re.sub(r"\s+", "", text)
    m = re.match(r"^void\((.*)\)$", text)
    if not m:
        raise DensityError(f"cannot read the signature {signature!r} of a {kind} function")
    args = m.group(1).split(",") if m.group(1) else []
    expected = _C_ARGS[kind]
    precisions = {_PRECISION_OF_C_TYPE.get(a[:-1]) for a, e in zip(args, expected) if e == "T*"}
    ok = (len(args) == len(expected) and None not in precisions and len(precisions) == 1
          and all(a == e for a, e in zip(args, expected) if e != "T*")
          and all(a.endswith("*") for a in args))
    if not ok:
        want = ", ".join(e.replace("T", "T ") for e in expected)
        raise DensityError(f"signature {signature!r} is not that of a {kind} function "
                           f"void ({want}) with T float or double")
    return precisions.pop(), None


def function_pointer(llc):
    """Address of the C function of a LowLevelCallable (whatever it was made
    from: a capsule, ctypes or cffi); the callable holds it in a capsule."""
    return int(capsule_pointer(tuple.__getitem__(llc, 0)))
