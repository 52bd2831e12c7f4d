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
    text, layout = generate(model)
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
                   and v not in records]
        if missing:
            raise KeyError(f"model {self.model.name!r}: the events have no variable(s) {missing} "
                           f"(the records have {sorted(records)})")
        n = len(np.asarray(records[self.model.events[0]]))
        out = {}
        for k, v in self.layout.field_values(records, constants).items():
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
        """Parameter values in the density's order (dict: others at their starting values)."""
        values = self.model.values()
        if params is None:
            params = {}
        if isinstance(params, dict):
            unknown = set(params) - set(values)
            if unknown:
                raise ValueError(f"model {self.model.name!r}: unknown parameter(s) "
                                 f"{sorted(unknown)}")
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
        d = self.density(precision, vector_length, constants=constants, gradient=gradient)
        buf = d.event_buffer(records, records=True)
        return d.evaluate(buf, self.parameter_vector(params), gradient=gradient, threads=threads)


def _record_leaves(layout):
    return {name for name, expr in layout.fields.items() if expr.op == "event"}
