"""Density functions for the fitter, in their two forms, and the model protocol.

*Block form* (fast): C functions over one block of ``L`` events,

* ``void density(T *out, const void *event_block, const T *params, const
  void *parameter_buffer)``,
* optionally ``void density_gradient(T *out, T *gradient, const void
  *event_block, const T *params, const void *parameter_buffer)`` writing
  ``gradient[k * L + i] = dS_i/dp_k`` for every parameter ``k`` of the
  density,
* optionally ``void density_gradient_sum(T *out, double *sums, const double
  *factor, const void *event_block, const T *params, const void
  *parameter_buffer)`` writing ``out`` as the density does and adding
  ``sums[k * L + i] += factor[i] dS_i/dp_k``: the normalization sums of a
  gradient call then use it instead of ``density_gradient`` (a model adds
  each row where it forms it, rather than storing it for the fitter to add),
* optionally ``void fill_parameter_buffer(T *buffer, const T *params, const
  double *constants)``, called once per likelihood call.

A compiled Cython model describes itself (``vecampfit.fitter.density``'s
``model_description``, see the ``.pxd``): its parameter names, event fields,
named constants, parameter-buffer size, vector length and precisions.
:meth:`Density.from_model` reads all of it; nothing is typed twice.
Functions from elsewhere (``LowLevelCallable.from_cython``, ctypes, cffi) go
through the :class:`Density` constructor, which then needs the sizes and,
where the signature does not record it, the vector length.

*Python form* (easy): ``density(events, params) -> values`` over all events
at once, ``events`` a dict of read-only 1-D arrays (the event fields),
``params`` the density's own parameters in its own order; the gradient form
returns ``(values, gradient)`` with ``gradient`` of shape ``(n_parameters,
n_events)``.

Parameters bind by name: the likelihood passes each density the values of
the fit parameters it names (:attr:`Density.parameters`), in its order, and
adds its gradient back to those fit parameters.
"""

import numpy as np

from ._dispatch import kernels as _kernels
from ._evaluation import evaluator_for_fit
from ._signatures import function_pointer, low_level_callable, parse_signature
from .components import components_from_description
from .errors import DensityError
from .events import EventBuffer

# DensityError (from .errors) stays importable from here.
__all__ = ["Density"]

#: Elements of the guard zone behind a parameter buffer (see Density.parameter_buffer).
GUARD_ELEMENTS = 8
_GUARD_BYTE = 0xA5


def _names(names, what, owner):
    if isinstance(names, str):
        raise DensityError(f"{owner}: {what} must be a sequence of names, not the string "
                           f"{names!r}")
    out = tuple(names)
    for n in out:
        if not isinstance(n, str) or not n:
            raise DensityError(f"{owner}: {what} must be non-empty strings, got {n!r}")
    if len(set(out)) != len(out):
        dup = sorted({n for n in out if out.count(n) > 1})
        raise DensityError(f"{owner}: {what} name(s) {dup} given twice")
    return out


def _positive_int(value, what, owner):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise DensityError(f"{owner}: {what} must be an integer, got {value!r}")
    value = int(value)
    if value < 1:
        raise DensityError(f"{owner}: {what} must be positive, got {value}")
    return value


class Density:
    """A signal or background density: its functions, parameter names, event
    fields and constants.

    Parameters
    ----------
    function : scipy.LowLevelCallable, PyCapsule, ctypes or cffi function, or callable
        The density (block form or Python form, see the module description).
        A compiled Cython model is better read with :meth:`from_model`.
    gradient : same kind as ``function``, optional
        The density with its gradient with respect to every one of its
        ``parameters``.  Without it the fitter leaves the gradient to
        iminuit's numerical differentiation.
    gradient_sum : same kind as ``function``, optional
        A block function ``density_gradient_sum`` (see the module
        description) adding ``factor[i] dS_i/dp_k`` to ``sums[k * L + i]``,
        with a ``gradient``; it must add exactly what ``gradient`` writes
        (checked once per event buffer before it is used).
    parameters : sequence of str
        Names of the density's parameters, in the order in which the
        function reads them; they bind to the fit's parameters of the same
        names.  Empty for a density without parameters.
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
        Number of elements (of the fit precision) of the parameter buffer
        that the filler writes and the density reads.
    fill_parameter_buffer : callable or low-level callable, optional
        ``fill(params, buffer, constants)`` (Python; numpy arrays: the
        density's parameters and the buffer in the density's precision, the
        constants in float64) or a C function ``void fill(T *buffer, const T
        *params, const double *constants)``.  Called once per likelihood
        call before any block is evaluated.
    constants : dict of str to float, optional
        Named model constants (masses, radii, ...), passed to the filler in
        this order.
    vector_length : int, optional
        ``L`` of the block functions; required when their signature does not
        record it (``LowLevelCallable.from_cython``, ctypes, cffi), checked
        against it otherwise.
    name : str
        Name used in messages and output files.

    Attributes
    ----------
    components : vecampfit.fitter.components.Components or None
        The model's components and couplings, for cached fits (set by
        :meth:`from_model` when the model describes them).

    Raises
    ------
    DensityError
        If the functions are of different kinds, precisions or lengths, a
        signature is not that of a density, a name is given twice, or the
        vector length of a block function is unknown.
    """

    def __init__(self, function, gradient=None, *, gradient_sum=None, parameters, event_fields,
                 fill_event_buffer=None, parameter_buffer_size=0, fill_parameter_buffer=None,
                 constants=None, vector_length=None, name="density"):
        self.name = str(name)
        self.parameters = _names(parameters, "parameters", self.name)
        self.event_fields = _names(event_fields, "event fields", self.name)
        if not self.event_fields:
            raise DensityError(f"{self.name}: event_fields is empty")
        if fill_event_buffer is not None and not callable(fill_event_buffer):
            raise DensityError(f"{self.name}: fill_event_buffer is not callable")
        self.fill_event_buffer = fill_event_buffer
        if isinstance(parameter_buffer_size, (bool, np.bool_)) or \
                not isinstance(parameter_buffer_size, (int, np.integer)) or parameter_buffer_size < 0:
            raise DensityError(f"{self.name}: parameter_buffer_size must be a non-negative "
                               f"integer, got {parameter_buffer_size!r}")
        self.parameter_buffer_size = int(parameter_buffer_size)
        constants = {} if constants is None else dict(constants)
        _names(list(constants), "constants", self.name)
        self.constants = {}
        for k, v in constants.items():
            v = float(v)
            if not np.isfinite(v):
                raise DensityError(f"{self.name}: constant {k} is not finite ({v})")
            self.constants[k] = v
        self.constant_values = np.array(list(self.constants.values()), dtype=np.float64)
        self.precision = None
        self.components = None
        self.vector_length = (None if vector_length is None else
                              _positive_int(vector_length, "vector_length", self.name))

        llc = low_level_callable(function)
        if llc is not None:
            self.kind = "block"
            self.precision, length = parse_signature(llc.signature, "density")
            self._set_length(length, "density")
            self.function = llc
            self.function_pointer = function_pointer(llc)
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
            gllc = low_level_callable(gradient)
            if self.kind == "block":
                if gllc is None:
                    raise DensityError(f"{self.name}: the density is a block function, so its "
                                       f"gradient must be one too")
                self.gradient_pointer = self._companion(gllc, "density_gradient", "gradient",
                                                        "its gradient")
                self.gradient = gllc
            else:
                if gllc is not None or not callable(gradient):
                    raise DensityError(f"{self.name}: the density is a Python function, so its "
                                       f"gradient must be one too")
                self.gradient = gradient

        self.gradient_sum = None
        self.gradient_sum_pointer = 0
        if gradient_sum is not None:
            sllc = low_level_callable(gradient_sum)
            if self.kind != "block" or sllc is None or self.gradient is None:
                raise DensityError(f"{self.name}: gradient_sum is a block function given with "
                                   f"a block density and its block gradient")
            self.gradient_sum_pointer = self._companion(sllc, "density_gradient_sum",
                                                        "gradient-sum", "its gradient sum")
            self.gradient_sum = sllc

        self.fill_parameter_buffer = None
        self.fill_parameter_buffer_pointer = 0
        if fill_parameter_buffer is not None:
            fllc = low_level_callable(fill_parameter_buffer)
            if fllc is not None:
                if self.kind != "block":
                    raise DensityError(f"{self.name}: a Python density takes a Python "
                                       f"parameter-buffer filler")
                self.fill_parameter_buffer_pointer = self._companion(
                    fllc, "fill_parameter_buffer", "parameter-buffer filler",
                    "the parameter-buffer filler")
                self.fill_parameter_buffer = fllc
            elif callable(fill_parameter_buffer):
                self.fill_parameter_buffer = fill_parameter_buffer
            else:
                raise DensityError(f"{self.name}: fill_parameter_buffer is not callable")
        elif self.parameter_buffer_size and self.kind == "block":
            raise DensityError(f"{self.name}: a parameter buffer of {self.parameter_buffer_size} "
                               f"elements needs a fill_parameter_buffer function")
        if self.kind == "block" and self.vector_length is None:
            raise DensityError(
                f"{self.name}: the signature of the block functions does not record the vector "
                f"length they were compiled for; give vector_length= (a wrong length makes the "
                f"density read and write outside its blocks), or use Density.from_model")

    @classmethod
    def from_model(cls, module, precision="float64", *, constants=None, gradient=True,
                   fill_event_buffer=None, vector_length=None, model=None, name=None,
                   rename=None):
        """A density from a compiled Cython model that describes itself.

        Parameters
        ----------
        module : module or dict of int to module
            A module compiled by :func:`vecampfit.model_compiler.compile_model`
            that defines ``vecampfit_model()`` (see ``vecampfit/fitter/density.pxd``),
            or the dict ``compile_model`` returns (then ``vector_length``
            picks the entry).
        precision : {"float64", "float32"}
        constants : dict of str to float, optional
            Values of the model's named constants; the others keep the
            model's defaults.
        gradient : bool
            Use the model's gradient function (if it has one).
        fill_event_buffer : callable, optional
            ``fill_event_buffer(records, constants) -> dict`` (constants: dict
            of every constant's value); default: the module's own
            ``fill_event_buffer`` if it defines one.
        vector_length : int, optional
            With a dict of modules: which one.
        model : str, optional
            For a module that exports several models (``vecampfit_model()``
            returning a dict of name to description): which one.
        name : str, optional
            Default: the module's name (and the model's, if named).
        rename : dict of str to str, optional
            New names for the module's parameters and constants (module's
            name -> the density's): one module compiled for models that
            differ only in their names serves all of them.  ``constants``
            uses the new names.

        Returns
        -------
        Density

        Raises
        ------
        DensityError
            If the module does not follow the protocol, lacks the precision,
            or ``constants`` names a constant the model does not have.
        """
        if isinstance(module, dict):
            vector_length = _choose(module, vector_length, "a dict of compiled modules",
                                    "vector lengths", "vector_length")
            module = module[vector_length]
        label = name or getattr(module, "__name__", "model")
        describe = getattr(module, "vecampfit_model", None)
        if not callable(describe):
            raise DensityError(f"{label}: the module does not define vecampfit_model() (see "
                               f"vecampfit/fitter/density.pxd for what a model exports)")
        desc = describe()
        if isinstance(desc, dict) and "protocol" not in desc:
            model = _choose(desc, model, f"{label}: the module", "models", "model")
            desc = desc[model]
            label = name or f"{label}.{model}"
        elif model is not None:
            raise DensityError(f"{label}: the module exports one model; model={model!r} "
                               f"does not apply")
        if not isinstance(desc, dict) or desc.get("protocol") != 1:
            raise DensityError(f"{label}: vecampfit_model() did not return a model description "
                               f"of protocol 1 (use model_description from "
                               f"vecampfit.fitter.density)")
        if rename:
            desc = _renamed_description(desc, rename, label)
        if vector_length is not None and vector_length != desc["vector_length"]:
            raise DensityError(f"{label}: compiled for vector length {desc['vector_length']}, "
                               f"not {vector_length}")
        if precision not in desc["functions"]:
            raise DensityError(f"{label}: the model offers precision(s) "
                               f"{sorted(desc['functions'])}, not {precision!r}")
        values = dict(desc["constants"])
        for k, v in (constants or {}).items():
            if k not in values:
                raise DensityError(f"{label}: the model has no constant {k!r} (its constants: "
                                   f"{', '.join(values) or 'none'})")
            values[k] = v
        fns = desc["functions"][precision]
        fill_events = fill_event_buffer or getattr(module, "fill_event_buffer", None)
        if fill_events is not None:
            bound = dict(values)
            records_filler = (lambda records, _f=fill_events, _c=bound: _f(records, dict(_c)))
        else:
            records_filler = None
        sums = desc.get("gradient_sums", {}).get(precision) if gradient else None
        density = cls(fns["density"], fns["density_gradient"] if gradient else None,
                      gradient_sum=sums if fns["density_gradient"] is not None else None,
                      parameters=desc["parameters"], event_fields=desc["event_fields"],
                      fill_event_buffer=records_filler,
                      parameter_buffer_size=desc["parameter_buffer_size"],
                      fill_parameter_buffer=fns["fill_parameter_buffer"], constants=values,
                      vector_length=desc["vector_length"], name=label)
        density.components = components_from_description(desc, precision, desc["parameters"],
                                                         label, values)
        return density

    def _companion(self, llc, kind, what, subject):
        """Check a block function given with a block density; return its address.

        Parameters
        ----------
        llc : scipy.LowLevelCallable
            The gradient or the parameter-buffer filler.
        kind : str
            Its kind in the signature (``"density_gradient"``,
            ``"fill_parameter_buffer"``).
        what : str
            Its name in the message on a vector length that differs from
            the density's.
        subject : str
            Its name in the message on a precision that differs from the
            density's.

        Returns
        -------
        int
            The address of the C function.

        Raises
        ------
        DensityError
            Another precision or vector length than the density's.
        """
        precision, length = parse_signature(llc.signature, kind)
        if precision != self.precision:
            raise DensityError(f"{self.name}: density is {self.precision} but {subject} is "
                               f"{precision}")
        self._set_length(length, what)
        return function_pointer(llc)

    def _set_length(self, length, what):
        if length is None:
            return
        if self.vector_length is not None and self.vector_length != length:
            raise DensityError(f"{self.name}: the {what} function was compiled for vector length "
                               f"{length}, expected {self.vector_length}")
        self.vector_length = length

    @property
    def n_parameters(self):
        """Number of the density's parameters (rows of its gradient)."""
        return len(self.parameters)

    @property
    def has_gradient(self):
        """True if a density-with-gradient function is set."""
        return self.gradient is not None

    @property
    def dtype(self):
        """numpy dtype of a block density (None for the Python form, which
        computes in the fit's precision)."""
        return None if self.precision is None else np.dtype(self.precision)

    def check_fit(self, precision, vector_length):
        """Raise :class:`DensityError` unless usable in a fit of this precision and L."""
        if self.kind != "block":
            return
        if self.precision != precision:
            raise DensityError(f"{self.name}: the density is compiled for {self.precision}, the "
                               f"fitter runs in {precision}")
        if self.vector_length != vector_length:
            raise DensityError(f"{self.name}: the density is compiled for vector length "
                               f"{self.vector_length}, the fitter uses {vector_length}")

    def parameter_vector(self, params, dtype):
        """The density's parameters as a contiguous array of ``dtype`` (at least
        one element, so that C always receives a valid pointer).

        Raises
        ------
        DensityError
            If ``params`` does not hold exactly :attr:`n_parameters` values.
        """
        p = np.asarray(params, dtype=np.float64).reshape(-1)
        if p.shape[0] != self.n_parameters:
            raise DensityError(f"{self.name}: {p.shape[0]} parameter values given, the density "
                               f"has {self.n_parameters} ({', '.join(self.parameters)})")
        out = np.zeros(max(self.n_parameters, 1), dtype=dtype)
        out[:self.n_parameters] = p
        return out

    def new_parameter_buffer(self, dtype):
        """An empty parameter buffer with its guard zone (see :meth:`fill_buffer`)."""
        raw = np.zeros(max(self.parameter_buffer_size, 1) + GUARD_ELEMENTS, dtype=dtype)
        raw[-GUARD_ELEMENTS:].view(np.uint8)[:] = _GUARD_BYTE
        return raw

    def fill_buffer(self, buffer, params_t):
        """Fill a buffer from :meth:`new_parameter_buffer` for the parameter
        vector ``params_t`` (from :meth:`parameter_vector`); return it.

        Raises
        ------
        DensityError
            If the filler wrote into the guard zone behind the declared
            :attr:`parameter_buffer_size` elements (the model's C code and
            its declaration disagree).
        """
        fill = self.fill_parameter_buffer
        if fill is None:
            return buffer
        if self.fill_parameter_buffer_pointer:
            _kernels.fill_parameter_buffer(self.fill_parameter_buffer_pointer, buffer, params_t,
                                          self.constant_values if self.constant_values.size
                                          else np.zeros(1))
            guard = buffer[-GUARD_ELEMENTS:]
            if guard.tobytes() != bytes([_GUARD_BYTE]) * guard.nbytes:
                raise DensityError(f"{self.name}: the parameter-buffer filler wrote beyond the "
                                   f"{self.parameter_buffer_size} elements the model declares")
        else:
            size = self.parameter_buffer_size
            fill(params_t[:self.n_parameters].copy(), buffer[:size],
                 self.constant_values.copy())
        return buffer

    def parameter_buffer(self, params, precision=None):
        """The filled parameter buffer for the density's parameters.

        Parameters
        ----------
        params : array_like
            The density's parameters, in its order.
        precision : {"float64", "float32"}, optional
            Default: the density's.

        Returns
        -------
        numpy.ndarray
            ``parameter_buffer_size`` elements.
        """
        dtype = np.dtype(precision or self.precision or "float64")
        buf = self.fill_buffer(self.new_parameter_buffer(dtype),
                               self.parameter_vector(params, dtype))
        return buf[:self.parameter_buffer_size].copy()

    def event_buffer(self, events, *, records=False, precision=None):
        """A frozen :class:`~vecampfit.fitter.events.EventBuffer` of events
        for :meth:`evaluate` (evaluating one buffer many times saves laying
        the events out in blocks each time).

        Parameters
        ----------
        events : dict of array_like
            The event fields, or with ``records`` the event records that
            :attr:`fill_event_buffer` turns into fields.
        records : bool
            Pass ``events`` through :attr:`fill_event_buffer`.
        precision : {"float64", "float32"}, optional
            For a Python density (default float64); a block density has its own.

        Returns
        -------
        EventBuffer
        """
        precision = self.precision or precision or "float64"
        buf = EventBuffer(self, precision, self.vector_length or 1,
                          f"events given to {self.name}", use_fill=records)
        buf.append(events)
        return buf.freeze()

    def evaluate(self, events, params, gradient=False, *, threads=1):
        """The density (and its gradient) at events.

        Parameters
        ----------
        events : dict of array_like or EventBuffer
            The event fields (one value per event), or a buffer from
            :meth:`event_buffer`.
        params : array_like
            The density's parameters, in its order.
        gradient : bool
            Also return the gradient.
        threads : int
            OpenMP threads for the block form.

        Returns
        -------
        values : numpy.ndarray
            ``(n_events,)``, in the density's precision (float64 for the
            Python form).
        grad : numpy.ndarray
            With ``gradient``: ``(n_parameters, n_events)``.

        Raises
        ------
        DensityError
            Wrong number of parameters, no gradient function, or results of
            the wrong shape.
        """
        if gradient and not self.has_gradient:
            raise DensityError(f"{self.name}: has no gradient function")
        if isinstance(events, EventBuffer):
            buf = events
            if tuple(buf.density.event_fields) != self.event_fields:
                raise DensityError(f"{self.name}: the event buffer holds the fields of "
                                   f"{buf.density.name!r}")
            if not buf.frozen:
                raise DensityError(f"{self.name}: the event buffer is not frozen")
            if self.kind == "block" and (buf.vector_length != self.vector_length
                                         or buf.dtype != np.dtype(self.precision)):
                raise DensityError(f"{self.name}: the event buffer is laid out for "
                                   f"{buf.dtype} L={buf.vector_length}, the density is compiled "
                                   f"for {self.precision} L={self.vector_length}")
        else:
            buf = self.event_buffer(events)
        evaluator = evaluator_for(self, buf.dtype, buf.vector_length)
        params_t = self.parameter_vector(params, buf.dtype)
        pbuf = self.fill_buffer(self.new_parameter_buffer(buf.dtype), params_t)
        if gradient:
            return evaluator.values_and_gradient(buf, params_t, pbuf, threads)
        return evaluator.values(buf, params_t, pbuf, threads)

    def __repr__(self):
        what = (f"block {self.precision} L={self.vector_length}" if self.kind == "block"
                else "python")
        return (f"Density({self.name!r}, {what}, parameters={list(self.parameters)}, "
                f"fields={list(self.event_fields)}, gradient={self.has_gradient})")


def _renamed_description(desc, rename, owner):
    """A model description with parameters and constants renamed (old -> new)."""
    known = set(desc["parameters"]) | set(desc["constants"])
    unknown = set(rename) - known
    if unknown:
        raise DensityError(f"{owner}: rename names {sorted(unknown)}, which are neither "
                           "parameters nor constants of the model")
    new = [rename.get(n, n) for n in list(desc["parameters"]) + list(desc["constants"])]
    if len(set(new)) != len(new):
        raise DensityError(f"{owner}: rename gives two parameters or constants one name")
    out = dict(desc)
    out["parameters"] = tuple(rename.get(n, n) for n in desc["parameters"])
    out["constants"] = {rename.get(k, k): v for k, v in desc["constants"].items()}
    if desc.get("components") is not None:
        comp = dict(desc["components"])
        comp["couplings"] = [(c[0],) + tuple(rename.get(n, n) if isinstance(n, str) else n
                                             for n in c[1:]) for c in comp["couplings"]]
        if comp.get("depends") is not None:
            comp["depends"] = [[rename.get(n, n) for n in d] for d in comp["depends"]]
        out["components"] = comp
    return out


def _choose(options, key, owner, what, argument):
    """The key of ``options`` to use: ``key``, or the only one if None."""
    if key is None:
        if len(options) != 1:
            raise DensityError(f"{owner} holds the {what} {sorted(options)}: give {argument}=")
        key = next(iter(options))
    if key not in options:
        raise DensityError(f"{owner} holds no {argument} {key!r} (it holds the {what} "
                           f"{sorted(options)})")
    return key


def evaluator_for(density, dtype, vector_length):
    """The object that computes a density's values and sums over an event
    buffer (see :mod:`vecampfit.fitter._evaluation`)."""
    return evaluator_for_fit(density, dtype, vector_length)
