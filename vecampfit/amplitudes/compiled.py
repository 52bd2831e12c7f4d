"""A compiled helicity-amplitude model: block densities for the fitter."""

import hashlib
import os

import numpy as np

__all__ = ["CompiledAmplitudeModel", "compile_amplitude_model"]


def _module_name(model, text):
    base = "amplitudes_" + "".join(ch if ch.isalnum() else "_" for ch in model.name).strip("_")
    while "__" in base:
        base = base.replace("__", "_")
    return base + "_" + hashlib.sha256(text.encode()).hexdigest()[:10]


def compile_amplitude_model(model, vector_lengths=(8,), *, directory=None, name=None, **options):
    """Write a model's Cython source and compile it (see :meth:`AmplitudeModel.compile`).

    Returns
    -------
    CompiledAmplitudeModel
    """
    from vecampfit.model_compiler import compile_model, default_cache_dir
    from ._cython_source import generate
    text, layout = generate(model.frozen())
    name = name or _module_name(model, text)
    directory = directory or os.path.join(options.get("build_dir") or default_cache_dir(),
                                          "amplitudes")
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, name + ".pyx")
    old = open(path).read() if os.path.exists(path) else None
    if old != text:
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "w") as f:
            f.write(text)
        os.replace(tmp, path)
    modules = compile_model(path, list(vector_lengths), name=name, **options)
    return CompiledAmplitudeModel(model, modules, path, layout)


class CompiledAmplitudeModel:
    """A compiled :class:`~vecampfit.amplitudes.AmplitudeModel`.

    Attributes
    ----------
    model : AmplitudeModel
    modules : dict of int to module
        The compiled modules by vector length.
    source_path : str
        The generated Cython source.
    layout : vecampfit.amplitudes._cython_source.Layout
        Parameters, event fields and parameter-buffer slots.
    """

    def __init__(self, model, modules, source_path, layout):
        self.model, self.modules, self.source_path = model, modules, source_path
        self.layout = layout

    @property
    def parameters(self):
        """The density's parameter names, in its order."""
        return tuple(self.layout.parameters)

    @property
    def event_fields(self):
        """The density's event-buffer fields, in its order."""
        return tuple(self.layout.fields)

    def _module(self, vector_length):
        if vector_length is None:
            vector_length = max(self.modules)
        if vector_length not in self.modules:
            raise ValueError(f"model {self.model.name!r} is not compiled for vector length "
                             f"{vector_length} (compiled: {sorted(self.modules)})")
        return self.modules[vector_length]

    def fill_event_buffer(self, records, constants=None):
        """The event-buffer fields (dict name -> float64 array) from event
        records (dict of the model's event variables, arrays)."""
        missing = [v for v in self.model.events if v in _record_leaves(self.layout)
                   and v not in records and v not in self.model.event_functions]
        if missing:
            raise KeyError(f"model {self.model.name!r}: the events have no variable(s) {missing} "
                           f"(the records have {sorted(records)})")
        values = self.layout.field_values(records, constants)
        n = max((np.size(v) for v in values.values()), default=0)
        out = {}
        for k, v in values.items():
            out[k] = np.ascontiguousarray(np.broadcast_to(np.asarray(v, dtype=np.float64), (n,)))
        return out

    def density(self, precision="float64", vector_length=None, *, constants=None, gradient=True,
                name=None):
        """A :class:`vecampfit.fitter.Density` of the model (block form)."""
        from vecampfit.fitter import Density
        return Density.from_model(self._module(vector_length), precision, constants=constants,
                                  gradient=gradient, fill_event_buffer=self.fill_event_buffer,
                                  name=name or self.model.name)

    def parameter_vector(self, params=None):
        """Parameter values in the density's order (dict: others at their starting values;
        a fixed parameter of the model, a constant of the density, is not accepted here)."""
        values = self.model.values()
        if params is None:
            params = {}
        if isinstance(params, dict):
            unknown = set(params) - set(values)
            if unknown:
                raise ValueError(f"model {self.model.name!r}: unknown parameter(s) "
                                 f"{sorted(unknown)}")
            fixed = set(params) - set(self.parameters)
            if fixed:
                raise ValueError(f"model {self.model.name!r}: {sorted(fixed)} are fixed (compiled "
                                 "as constants): give them as constants, or compile the model "
                                 "with them free")
            values.update(params)
            return np.array([values[n] for n in self.parameters], dtype=np.float64)
        p = np.asarray(params, dtype=np.float64)
        if p.shape != (len(self.parameters),):
            raise ValueError(f"model {self.model.name!r}: expected {len(self.parameters)} "
                             f"parameters, got shape {p.shape}")
        return p

    def evaluate(self, records, params=None, *, gradient=False, precision="float64",
                 vector_length=None, constants=None, threads=1):
        """The intensity (and with ``gradient`` its derivatives, shape
        (n_parameters, n_events)) at events, through the compiled density."""
        if isinstance(params, dict):
            unknown = set(params) - set(self.model.parameters)
            if unknown:
                raise ValueError(f"model {self.model.name!r}: unknown parameter(s) "
                                 f"{sorted(unknown)}")
            # the model's fixed parameters are the density's constants
            constants = dict(constants or {})
            constants.update({k: v for k, v in params.items() if k not in self.parameters})
            params = {k: v for k, v in params.items() if k in self.parameters}
        d = self.density(precision, vector_length, constants=constants, gradient=gradient)
        buf = d.event_buffer(records, records=True)
        return d.evaluate(buf, self.parameter_vector(params), gradient=gradient, threads=threads)

    def parameter_table(self, values=None):
        """The fit's :class:`vecampfit.fitter.ParameterTable` of the density's
        parameters (the model's free ones), with the model's steps and bounds."""
        free = set(self.parameters)
        table = self.model.parameter_table(values, free=free)
        from vecampfit.fitter import ParameterTable
        return ParameterTable([p for p in table if p.name in free],
                              source=f"compiled amplitude model {self.model.name!r}")


def _record_leaves(layout):
    return {name for name, expr in layout.fields.items() if expr.op == "event"}
