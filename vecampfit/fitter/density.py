"""Density functions for the fitter, in their two forms.

*Block form* (fast): a C function over one block of ``L`` events,
``void density(T *out, const void *event_block, const T *params, const void
*parameter_buffer)``, and optionally the gradient form ``void
density_gradient(T *out, T *gradient, const void *event_block, const T
*params, const void *parameter_buffer)`` writing ``gradient[p * L + i] =
dS_i/dp_p`` for the first ``n_gradient_parameters`` parameters.  They are
given as :class:`scipy.LowLevelCallable`: from a Cython model through
``vecampfit.fitter.density.density_callable`` (the capsule names the
precision and ``L``, and the fitter checks both), from a module's
``__pyx_capi__`` (``LowLevelCallable.from_cython``; the precision is checked,
``L`` must be given as ``vector_length``), or from ctypes/cffi.

*Python form* (easy): ``density(events, params) -> values`` over all events
at once, ``events`` a dict of 1-D arrays (the event-buffer fields); the
gradient form returns ``(values, gradient)`` with ``gradient`` of shape
``(n_gradient_parameters, n_events)``.
"""

import ctypes
import re

import numpy as np

__all__ = ["Density", "DensityError"]

_PRECISION_OF_C_TYPE = {"float": "float32", "double": "float64"}
_OUR_NAME = re.compile(r"^vecampfit (density|density_gradient|fill_parameter_buffer) "
                       r"(float32|float64) L=(\d+)$")
_C_ARGS = {
    "density": ("T*", "void*", "T*", "void*"),
    "density_gradient": ("T*", "T*", "void*", "T*", "void*"),
    "fill_parameter_buffer": ("T*", "T*"),
}


class DensityError(ValueError):
    """A density or filler that does not fit the fitter (kind, precision, L)."""


def _low_level_callable(obj):
    from scipy import LowLevelCallable
    if isinstance(obj, LowLevelCallable):
        return obj
    if type(obj).__name__ == "PyCapsule" or isinstance(obj, ctypes._CFuncPtr):
        return LowLevelCallable(obj)
    try:  # cffi function pointers
        return LowLevelCallable(obj)
    except (TypeError, ValueError):
        return None


def parse_signature(signature, kind):
    """Precision and vector length from a low-level callable's signature.

    Parameters
    ----------
    signature : str
        The capsule name: ``"vecampfit density float64 L=8"`` (from
        ``vecampfit.fitter.density``) or a C signature such as ``"void
        (double *, void const *, double const *, void const *)"``.
    kind : {"density", "density_gradient", "fill_parameter_buffer"}

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


class Density:
    """A signal or background density with its buffers.

    Parameters
    ----------
    function : scipy.LowLevelCallable, PyCapsule, ctypes function or callable
        The density (block form or Python form, see the module description).
    gradient : same kind as ``function``, optional
        The density with its gradient.  Without it the fitter leaves the
        gradient to iminuit's numerical differentiation.
    event_fields : sequence of str
        Names of the event-buffer fields, in the order of the C struct of
        one block (``T field[L]`` each) for the block form, or the keys of
        the ``events`` dict for the Python form.
    fill_event_buffer : callable, optional
        ``fill_event_buffer(records) -> dict`` mapping event records (a dict
        of arrays, e.g. four-momenta read from a ROOT tree) to the fields.
        Called once per chunk of events when data are loaded.  Default: the
        records already hold the fields.
    parameter_buffer_size : int
        Number of elements (of the fit precision) of the parameter buffer.
    fill_parameter_buffer : callable or low-level callable, optional
        ``fill(params, buffer)`` (Python, both numpy arrays of the fit
        precision) or a C function ``void fill(T *buffer, const T *params)``.
        Called once per likelihood call before any block is evaluated.
    n_gradient_parameters : int, optional
        Number of leading parameters the gradient covers (default: all fit
        parameters).
    vector_length : int, optional
        ``L`` the block functions were compiled for, when their signature
        does not record it (``__pyx_capi__`` or ctypes).
    name : str
        Name used in messages and output files.

    Raises
    ------
    DensityError
        If ``gradient`` is of another kind, precision or length than
        ``function``, or a signature is not that of a density.
    """

    def __init__(self, function, gradient=None, *, event_fields, fill_event_buffer=None,
                 parameter_buffer_size=0, fill_parameter_buffer=None,
                 n_gradient_parameters=None, vector_length=None, name="density"):
        self.name = str(name)
        self.event_fields = tuple(event_fields)
        if not self.event_fields:
            raise DensityError(f"{self.name}: event_fields is empty")
        if len(set(self.event_fields)) != len(self.event_fields):
            raise DensityError(f"{self.name}: duplicated event field names {self.event_fields}")
        self.fill_event_buffer = fill_event_buffer
        self.parameter_buffer_size = int(parameter_buffer_size)
        if self.parameter_buffer_size < 0:
            raise DensityError(f"{self.name}: negative parameter_buffer_size")
        self.n_gradient_parameters = n_gradient_parameters
        self.precision = None
        self.vector_length = vector_length

        llc = _low_level_callable(function)
        if llc is not None:
            self.kind = "block"
            self.precision, length = parse_signature(llc.signature, "density")
            self._set_length(length, "density")
            self.function = llc
            self.function_pointer = _pointer(llc)
        elif callable(function):
            self.kind = "python"
            self.function = function
            self.function_pointer = 0
        else:
            raise DensityError(f"{self.name}: the density must be a low-level callable or a "
                               f"Python callable, got {type(function).__name__}")

        self.gradient = None
        self.gradient_pointer = 0
        if gradient is not None:
            gllc = _low_level_callable(gradient)
            if self.kind == "block":
                if gllc is None:
                    raise DensityError(f"{self.name}: the density is a block function, so its "
                                       f"gradient must be one too")
                precision, length = parse_signature(gllc.signature, "density_gradient")
                if precision != self.precision:
                    raise DensityError(f"{self.name}: density is {self.precision} but its "
                                       f"gradient is {precision}")
                self._set_length(length, "gradient")
                self.gradient = gllc
                self.gradient_pointer = _pointer(gllc)
            else:
                if gllc is not None or not callable(gradient):
                    raise DensityError(f"{self.name}: the density is a Python function, so its "
                                       f"gradient must be one too")
                self.gradient = gradient

        self.fill_parameter_buffer = None
        self.fill_parameter_buffer_pointer = 0
        if fill_parameter_buffer is not None:
            fllc = _low_level_callable(fill_parameter_buffer)
            if fllc is not None:
                precision, length = parse_signature(fllc.signature, "fill_parameter_buffer")
                if self.precision is not None and precision != self.precision:
                    raise DensityError(f"{self.name}: density is {self.precision} but the "
                                       f"parameter-buffer filler is {precision}")
                self.precision = self.precision or precision
                self.fill_parameter_buffer = fllc
                self.fill_parameter_buffer_pointer = _pointer(fllc)
            elif callable(fill_parameter_buffer):
                self.fill_parameter_buffer = fill_parameter_buffer
            else:
                raise DensityError(f"{self.name}: fill_parameter_buffer is not callable")

    def _set_length(self, length, what):
        if length is None:
            return
        if self.vector_length is not None and self.vector_length != length:
            raise DensityError(f"{self.name}: the {what} function was compiled for vector length "
                               f"{length}, expected {self.vector_length}")
        self.vector_length = length

    @property
    def has_gradient(self):
        """True if a density-with-gradient function is set."""
        return self.gradient is not None

    def check_fit(self, precision, vector_length):
        """Raise :class:`DensityError` unless usable in a fit of this precision and L."""
        if self.kind != "block":
            return
        if self.precision != precision:
            raise DensityError(f"{self.name}: the density is compiled for {self.precision}, the "
                               f"fitter runs in {precision}")
        if self.vector_length is not None and self.vector_length != vector_length:
            raise DensityError(f"{self.name}: the density is compiled for vector length "
                               f"{self.vector_length}, the fitter uses {vector_length}")

    def __repr__(self):
        what = (f"block {self.precision} L={self.vector_length}" if self.kind == "block"
                else "python")
        return (f"Density({self.name!r}, {what}, fields={list(self.event_fields)}, "
                f"gradient={self.has_gradient})")


def _pointer(llc):
    from ._kernels import capsule_pointer
    return int(capsule_pointer(llc.function))
