"""A compiled helicity-amplitude model: block densities for the fitter."""

import hashlib
import os

import numpy as np

from ..expressions.evaluate import evaluate
from ..expressions.passes import leaves

__all__ = ["CompiledAmplitudeModel", "SlotCouplings", "canonical_names",
           "compile_amplitude_model"]


def _module_name(text):
    return "amplitudes_" + hashlib.sha256(text.encode()).hexdigest()[:12]


def canonical_names(model):
    """Numbered names for a model's free parameters and fixed ones.

    Models that differ only in the names of their parameters (the same
    process at several energies, each with its own production couplings)
    then have one generated source and share one compiled module.

    Parameters
    ----------
    model : AmplitudeModel
        Before :meth:`~AmplitudeModel.frozen`.

    Returns
    -------
    dict of str to str
        Parameter name -> ``p<i>`` (free, in declaration order) or
        ``k<i>`` (fixed, compiled as constants), with underscores in front
        when the model has constants of such names.
    """
    taken = set(model.constants)
    prefix = ""
    while any(c.startswith(prefix + "p") or c.startswith(prefix + "k") for c in taken):
        prefix += "_"
    free = [p for p in model.parameters.values() if not p.fixed]
    fixed = [p for p in model.parameters.values() if p.fixed]
    names = {p.name: f"{prefix}p{i}" for i, p in enumerate(free)}
    names.update({p.name: f"{prefix}k{i}" for i, p in enumerate(fixed)})
    return names


def compile_amplitude_model(model, vector_lengths=(8,), *, directory=None, name=None, **options):
    """Write a model's Cython source and compile it (see :meth:`AmplitudeModel.compile`).

    The source is generated from the frozen model with numbered parameter
    names (:func:`canonical_names`) and a module name from its digest, so
    that models that differ only in names compile once; the compiled
    model's density carries the model's own names.

    Returns
    -------
    CompiledAmplitudeModel
    """
    from vecampfit.model_compiler import compile_model, default_cache_dir
    from ._cython_source import generate
    names = canonical_names(model)
    text, layout = generate(model.frozen().renamed(names, name="model"))
    name = name or _module_name(text)
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
    return CompiledAmplitudeModel(model, modules, path, layout, names)


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
        Parameters, event fields and parameter-buffer slots of the module
        (in its numbered names).
    names : dict of str to str
        The model's parameter names -> the module's (:func:`canonical_names`).
    """

    def __init__(self, model, modules, source_path, layout, names=None):
        self.model, self.modules, self.source_path = model, modules, source_path
        self.layout = layout
        self.names = dict(names or {})
        self._model_name = {v: k for k, v in self.names.items()}

    @property
    def parameters(self):
        """The density's parameter names (the model's free parameters), in its order."""
        return tuple(self._model_name.get(p, p) for p in self.layout.parameters)

    @property
    def constants(self):
        """The density's constants by name with their values: the model's
        constants and its fixed parameters."""
        return {self._model_name.get(k, k): v for k, v in self.layout.constants.items()}

    @property
    def event_fields(self):
        """The density's event-buffer fields, in its order."""
        return tuple(self.layout.fields)

    def _module(self, vector_length):
        from vecampfit.model_compiler import module_for_length
        return module_for_length(self.modules, vector_length, self.model.name)

    def fill_event_buffer(self, records, constants=None):
        """The event-buffer fields (dict name -> float64 array) from event
        records (dict of the model's event variables, arrays)."""
        missing = [v for v in self.model.events if v in _record_leaves(self.layout)
                   and v not in records and v not in self.model.event_functions]
        if missing:
            raise KeyError(f"model {self.model.name!r}: the events have no variable(s) {missing} "
                           f"(the records have {sorted(records)})")
        values = self.layout.field_values(
            records, {self.names.get(k, k): v for k, v in (constants or {}).items()})
        n = max((np.size(v) for v in values.values()), default=0)
        out = {}
        for k, v in values.items():
            out[k] = np.ascontiguousarray(np.broadcast_to(np.asarray(v, dtype=np.float64), (n,)))
        return out

    def density(self, precision="float64", vector_length=None, *, constants=None, gradient=True,
                name=None, map_records=None):
        """A :class:`vecampfit.fitter.Density` of the model (block form).

        Parameters
        ----------
        precision : {"float64", "float32"}
        vector_length : int, optional
            Which compiled module (default the longest).
        constants : dict, optional
            Values of constants and fixed parameters by name.
        gradient : bool
            Use the analytic gradient.
        name : str, optional
            The density's name in messages (default the model's).
        map_records : callable, optional
            ``map_records(records) -> records``: turns the records the fit
            loads (the branches of a file, say final-state four-momenta)
            into the model's event variables (for a cascade,
            :meth:`vecampfit.cascades.CascadeModel.event_records`).

        Returns
        -------
        vecampfit.fitter.Density
            With ``components`` for the fitter's cached evaluation (one
            channel per reference helicity; see ``docs/cached_fits.rst``):
            for an unpolarized model, and for a polarized one whose density
            matrix is given as parameter-only weights and an event transform
            (:meth:`AmplitudeModel.density_factors`, a three-body decay's
            parent polarization among them); None otherwise.
        """
        from vecampfit.fitter import Density
        fill = self.fill_event_buffer
        if map_records is not None:
            def fill(records, constants=None, _fill=self.fill_event_buffer):
                return _fill(map_records(records), constants)
        module = self._module(vector_length)
        density = Density.from_model(module, precision, constants=constants,
                                     gradient=gradient, fill_event_buffer=fill,
                                     name=name or self.model.name, rename=self._model_name)
        density.components = self._components(module, precision, density)
        return density

    def density_at(self, values, precision="float64", vector_length=None, *, gradient=True):
        """The density with the model's fixed parameters at ``values`` (its
        constants) and the vector of its parameters there: what generation at
        a chosen point, or a fit that starts from one, needs.

        Parameters
        ----------
        values : dict
            Parameter name -> value, for every parameter of the model (free
            and fixed; masses in GeV, widths in GeV, couplings dimensionless).
        precision : {"float64", "float32"}
        vector_length : int, optional
            Which compiled module (default the longest).
        gradient : bool
            Use the analytic gradient.

        Returns
        -------
        density : vecampfit.fitter.Density
        params : numpy.ndarray
            The density's parameters at ``values``, in its order.

        Raises
        ------
        KeyError
            A parameter of the model missing from ``values`` (named).
        """
        missing = [n for n in self.model.parameters if n not in values]
        if missing:
            raise KeyError(f"model {self.model.name!r}: no value for {missing}")
        constants = {n: float(values[n]) for n in self.model.parameters
                     if n not in self.parameters}
        density = self.density(precision, vector_length, constants=constants, gradient=gradient)
        return density, np.array([values[n] for n in self.parameters], dtype=np.float64)

    def _components(self, module, precision, density):
        """The density's components for the fitter's cached evaluation
        (:class:`vecampfit.fitter.components.Components` with one channel per
        helicity channel), or None: for a polarized model whose density
        matrix is not given as weights and an event transform, or when a
        coupling's or a weight's parameter also enters the components'
        amplitudes."""
        from vecampfit.fitter.components import Components
        layout = self.layout
        model = layout.model
        functions = getattr(module, "component_functions", None)
        factors = model.density_factors()
        if functions is None or (model.density_matrix is not None and factors is None):
            return None
        function = functions().get(precision)
        coupling_parameters = {p for c in model.components for p in c.coupling_parameters()}
        moving = set(coupling_parameters)
        if factors is not None:
            moving |= {leaf.data for v in factors[0].values() for x in v.parts()
                       for leaf in leaves(x) if leaf.op == "par"}
        couplings = {x for c in model.components for x in c.coupling.parts()}
        matrix = set() if model.density_matrix is None else \
            {x for v in model.density_matrix[1].values() for x in v.parts()}
        for expr, _ in model._expressions():
            if expr in couplings or expr in matrix:
                continue
            if any(leaf.op == "par" and leaf.data in moving for leaf in leaves(expr)):
                return None
        if function is None:
            return None
        couplings = SlotCouplings(module, layout, density.parameters, density.constant_values)
        weights = None
        if factors is not None:
            weights = density_weights(model, factors[0], layout.parameters,
                                      dict(zip(layout.constants, density.constant_values)),
                                      density.parameters)
        return Components([c.name for c in model.components], None, function,
                          density.parameters, density.name, density.constants,
                          channels=len(model.channels), coupling_function=couplings,
                          channel_weights=weights)

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


class SlotCouplings:
    """The couplings :math:`c_k` of a compiled model and their derivatives
    :math:`\\partial c_k / \\partial p_j`, read from the parameter buffer
    that the generated ``fill`` writes (its slots ``C<k>_RE``, ``C<k>_IM``
    and ``DC<k>_<p>_RE``, ``..._IM``; derivatives that are numbers are taken
    from the expressions once).

    Parameters
    ----------
    module : module
        The compiled model.
    layout : vecampfit.amplitudes._cython_source.Layout
    parameters : sequence of str
        The density's parameter names (in the module's order).
    constants : numpy.ndarray
        The density's constant values (in the module's order).

    Attributes
    ----------
    parameters : tuple of str
        The parameters the couplings depend on.

    Calling it with the density's parameter values returns ``(c, jacobian)``:
    complex (K,) and (K, n_parameters).
    """

    def __init__(self, module, layout, parameters, constants):
        from ..expressions.passes import derivative
        self._fill = module.fill
        self._constants = np.ascontiguousarray(
            constants if len(constants) else np.zeros(1), dtype=np.float64)
        self._buffer = np.zeros(max(len(layout.slots), 1))
        components = layout.model.components
        self._re = np.array([layout.slots[f"C{k}_RE"] for k in range(len(components))],
                            dtype=np.intp)
        self._im = np.array([layout.slots[f"C{k}_IM"] for k in range(len(components))],
                            dtype=np.intp)
        n = len(layout.parameters)
        self._n_parameters = n
        self._jacobian = np.zeros((len(components), n), dtype=np.complex128)
        rows, cols, slots, units, used = [], [], [], [], []
        for k, c in enumerate(components):
            for p in c.coupling_parameters():
                d = derivative(c.coupling, p)
                j = layout.parameters.index(p)
                used.append(parameters[j])
                for part, what, unit in ((d.re, "RE", 1.0), (d.im, "IM", 1j)):
                    if part.op == "num":
                        self._jacobian[k, j] += unit * part.data
                    else:
                        rows.append(k)
                        cols.append(j)
                        slots.append(layout.slots[f"DC{k}_{p}_{what}"])
                        units.append(unit)
        self._rows, self._cols = np.array(rows, dtype=np.intp), np.array(cols, dtype=np.intp)
        self._slots = np.array(slots, dtype=np.intp)
        self._units = np.array(units, dtype=np.complex128)
        self.parameters = tuple(dict.fromkeys(used))
        self._key, self._last = None, None

    def __call__(self, params):
        p = np.ascontiguousarray(params, dtype=np.float64)
        key = p.tobytes()
        if key != self._key:
            buf = self._buffer
            self._fill(p if len(p) else np.zeros(1), self._constants, buf)
            c = buf[self._re] + 1j * buf[self._im]
            jac = self._jacobian.copy()
            np.add.at(jac, (self._rows, self._cols), self._units * buf[self._slots])
            self._key, self._last = key, (c, jac)
        return self._last


def density_weights(model, rho, parameters, constants, names=None):
    """The :class:`vecampfit.fitter.components.ChannelWeights` of a density
    matrix :math:`\\sigma_{cd}` of parameters and constants on the model's
    density-matrix position: the pair of channels ``(h, h')`` that differ at
    that position only, with the helicities ``(c, d)`` there, has the weight
    :math:`\\sigma_{cd}`; the weights and their derivatives are the
    expressions evaluated in double precision.

    Parameters
    ----------
    model : AmplitudeModel
    rho : dict
        ``(c, d) -> ComplexExpr`` of parameters and constants.
    parameters : sequence of str
        The model's names of the density's parameters, in the density's order.
    constants : dict
        The values of the model's constants by name.
    names : sequence of str, optional
        The density's names of its parameters (default ``parameters``).

    Returns
    -------
    vecampfit.fitter.components.ChannelWeights
    """
    from ..expressions.passes import derivative
    from vecampfit.fitter.components import ChannelWeights
    position = model.density_matrix[0]
    keys = list(rho)
    index = {h: n for n, h in enumerate(model.channels)}
    pairs = []
    for h in model.channels:
        for e, (c, d) in enumerate(keys):
            if h[position] != c:
                continue
            other = h[:position] + (d,) + h[position + 1:]
            if other in index:
                pairs.append((index[h], index[other], e))
    parameters = list(parameters)
    names = list(parameters if names is None else names)
    used = sorted({leaf.data for v in rho.values() for x in v.parts() for leaf in leaves(x)
                   if leaf.op == "par"})
    derivatives = [(parameters.index(p), [derivative(rho[key], p) for key in keys])
                   for p in used]
    constants = dict(constants)
    last = {}

    def function(params):
        key = np.asarray(params, dtype=np.float64).tobytes()
        if key in last:
            return last[key]
        last.clear()
        last[key] = _weights(params)
        return last[key]

    def _weights(params):
        values = dict(zip(parameters, params))
        values.update(constants)
        memo = {}
        w = np.array([complex(evaluate(rho[key], values, memo)) for key in keys])
        jac = np.zeros((len(keys), len(parameters)), dtype=np.complex128)
        for j, ds in derivatives:
            jac[:, j] = [complex(evaluate(d, values, memo)) for d in ds]
        return w, jac

    return ChannelWeights(pairs, function, [names[parameters.index(p)] for p in used],
                          len(keys))


def _record_leaves(layout):
    return {name for name, expr in layout.fields.items() if expr.op == "event"}
