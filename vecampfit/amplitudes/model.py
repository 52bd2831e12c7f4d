"""Helicity-amplitude models: components in frames, aligned to reference helicities.

An :class:`AmplitudeModel` is the form shared by the spin models
(:mod:`vecampfit.dpd`): amplitudes :math:`A_h` for a set of helicity
channels :math:`h` (tuples of doubled helicities of the particles), built
from components :math:`k` with complex couplings :math:`c_k` (functions of
the parameters), complex dynamical factors :math:`F_k` (lineshapes and form
factors: functions of the event and the parameters) and real angular
vectors :math:`a_k(h')` in the helicity frames of their group :math:`g`,
which rotations turn into the reference helicities:

.. math::

    A_h = \\sum_g \\sum_{h'} D^g_{h h'} \\sum_{k \\in g} c_k F_k\\, a_k(h'),
    \\qquad D^g = \\prod_{p} d^{(g, p)},

one real matrix :math:`d^{(g,p)}` per particle position :math:`p` that the
group rotates (the Wigner rotations of the Dalitz-plot decomposition).  The
intensity is

.. math::

    S = \\sum_h |A_h|^2 \\quad\\text{(unpolarized)}, \\qquad
    S = \\sum_{h_{\\bar p}} \\sum_{a b} \\mathrm{Re}\\big[\\rho_{ab}\\,
        A_{a h_{\\bar p}} \\overline{A_{b h_{\\bar p}}}\\big]

with a Hermitian matrix :math:`\\rho` in the helicities of one position
(the parent's spin-density matrix, which may depend on the event's
orientation and on parameters) summed over the helicities
:math:`h_{\\bar p}` of the others.

The model compiles (:meth:`AmplitudeModel.compile`) into a block density
for the fitter with the analytic gradient of every parameter: the
parameter-only parts are computed once per call (the couplings, the
constant parts of lineshapes), the event-only ones once when the events
are loaded (square roots and quotients of the event variables), and the
gradient uses the adjoint of the rotations:

.. math::

    \\frac{\\partial S}{\\partial \\theta} = 2\\,\\mathrm{Re} \\sum_k
    \\Big(\\frac{\\partial c_k}{\\partial \\theta} F_k
    + c_k \\frac{\\partial F_k}{\\partial \\theta}\\Big)
    \\sum_{h'} a_k(h')\\, \\overline{\\hat G^{g(k)}_{h'}}
    + \\sum_{h} \\mathrm{Re}\\Big[\\frac{\\partial \\rho_{ab}}{\\partial \\theta}
    A_a \\overline{A_b}\\Big],
    \\qquad \\hat G^g_{h'} = \\sum_h D^g_{h h'} G_h,
    \\quad G_a = \\sum_b \\overline{\\rho_{ab}} A_b,

so that a coupling's derivative costs a few operations per event.
"""

import numpy as np

from ..expressions.evaluate import evaluate
from ..expressions.nodes import as_complex, as_expr
from ..expressions.nodes import event as event_leaf
from ..expressions.passes import leaves

__all__ = ["AmplitudeModel", "AmplitudeComponent", "AmplitudeGroup", "ModelParameter"]


class ModelParameter:
    """A parameter of an amplitude model: starting value and fit options.

    Attributes
    ----------
    name : str
    value : float
        Starting value (in the parameter's units).
    step : float
        Initial step of the minimizer.
    fixed : bool
        Fixed in fits unless released.
    lower, upper : float or None
        Bounds.
    """

    def __init__(self, name, value, step=None, fixed=False, lower=None, upper=None):
        self.name = str(name)
        self.value = float(value)
        if not np.isfinite(self.value):
            raise ValueError(f"parameter {name!r}: the value {value!r} is not finite")
        self.step = float(step) if step is not None else max(abs(self.value) * 0.01, 1e-3)
        self.fixed = bool(fixed)
        self.lower, self.upper = lower, upper

    def __repr__(self):
        return f"ModelParameter({self.name!r}, {self.value!r}, fixed={self.fixed})"


class AmplitudeComponent:
    """One component :math:`c_k F_k a_k(h')` of a group.

    Attributes
    ----------
    name : str
    group : str
    coupling : ComplexExpr
        :math:`c_k`, of parameters and constants only.
    factor : ComplexExpr
        :math:`F_k`, of the event and the parameters.
    angular : dict
        Frame channel -> real :class:`Expr` :math:`a_k(h')` (absent channels are 0).
    """

    def __init__(self, name, group, coupling, factor, angular):
        self.name, self.group = str(name), str(group)
        self.coupling = as_complex(coupling)
        self.factor = as_complex(factor)
        self.angular = {tuple(h): as_expr(a) for h, a in angular.items()}
        for part in self.coupling.parts():
            if "event" in part.kinds:
                raise ValueError(f"component {name!r}: the coupling depends on the event; put "
                                 "event-dependent factors in the factor")

    def parameter_names(self):
        """Parameters of the factor (not the coupling), sorted."""
        return sorted({n for x in self.factor.parts() for n in x.parameters})

    def coupling_parameters(self):
        """Parameters of the coupling, sorted."""
        return sorted({n for x in self.coupling.parts() for n in x.parameters})

    def __repr__(self):
        return f"AmplitudeComponent({self.name!r}, group={self.group!r})"


class AmplitudeGroup:
    """Components that share helicity frames, and the rotations to the reference.

    Attributes
    ----------
    name : str
    rotations : list of (int, dict)
        ``(position, {(reference value, frame value): Expr})``: the real
        matrix that turns the helicity of one particle position from the
        group's frame to the reference, applied in this order.
    components : list of AmplitudeComponent
    """

    def __init__(self, name, rotations=()):
        self.name = str(name)
        self.rotations = [(int(p), {tuple(k): as_expr(v) for k, v in m.items()})
                          for p, m in rotations]
        self.components = []

    def __repr__(self):
        return f"AmplitudeGroup({self.name!r}, {len(self.components)} components)"


class AmplitudeModel:
    """A helicity-amplitude model (see the module description).

    Parameters
    ----------
    name : str
    channels : sequence of tuples
        The reference helicity channels :math:`h` (tuples of doubled
        helicities, one entry per particle position).
    parameters : sequence of ModelParameter, or dict
        The fit parameters (a dict: name -> starting value).
    constants : dict, optional
        Constants by name (default values; a fit may give others).
    events : sequence of str, optional
        The event variables the expressions read (``event(name)`` leaves),
        the keys of the event records.
    event_functions : dict, optional
        Event variables computed from the records rather than read from
        them: name -> ``f(records, constants)`` (an array per event; the
        constants by name).  They count as event variables.
    """

    def __init__(self, name, channels, parameters, constants=None, events=(),
                 event_functions=None):
        self.name = str(name)
        self.channels = [tuple(int(x) for x in h) for h in channels]
        if not self.channels:
            raise ValueError(f"model {name!r}: no helicity channels")
        width = {len(h) for h in self.channels}
        if len(width) != 1:
            raise ValueError(f"model {name!r}: channels of different lengths {sorted(width)}")
        self.n_positions = width.pop()
        if len(set(self.channels)) != len(self.channels):
            raise ValueError(f"model {name!r}: a channel appears twice")
        if isinstance(parameters, dict):
            parameters = [ModelParameter(n, v) for n, v in parameters.items()]
        self.parameters = {}
        for p in parameters:
            if p.name in self.parameters:
                raise ValueError(f"model {name!r}: a second parameter named {p.name!r}")
            self.parameters[p.name] = p
        self.constants = {str(k): float(v) for k, v in (constants or {}).items()}
        self.event_functions = dict(event_functions or {})
        self.events = tuple(events) + tuple(n for n in self.event_functions if n not in events)
        self.groups = {}
        self.density_matrix = None
        self._density_factors = None

    # -- building --------------------------------------------------------------------
    def add_group(self, name, rotations=()):
        """Add a group of components with its rotations (see :class:`AmplitudeGroup`)."""
        if name in self.groups:
            raise ValueError(f"model {self.name!r}: a second group named {name!r}")
        g = AmplitudeGroup(name, rotations)
        for p, m in g.rotations:
            if not 0 <= p < self.n_positions:
                raise ValueError(f"group {name!r}: rotation of position {p} of "
                                 f"{self.n_positions}")
        self.groups[name] = g
        return g

    def add_component(self, name, group, coupling, factor, angular):
        """Add a component to a group (see :class:`AmplitudeComponent`)."""
        if group not in self.groups:
            raise ValueError(f"component {name!r}: no group named {group!r}")
        if any(c.name == name for c in self.components):
            raise ValueError(f"model {self.name!r}: a second component named {name!r}")
        comp = AmplitudeComponent(name, group, coupling, factor, angular)
        for h in comp.angular:
            if len(h) != self.n_positions:
                raise ValueError(f"component {name!r}: channel {h} has {len(h)} helicities, "
                                 f"the model {self.n_positions}")
        self.groups[group].components.append(comp)
        return comp

    def set_density_matrix(self, position, matrix, factors=None):
        """The intensity as :math:`\\sum \\mathrm{Re}[\\rho_{ab} A_a \\bar A_b]` over the
        helicities ``a, b`` of one position.

        Parameters
        ----------
        position : int
        matrix : dict
            ``(a, b) -> ComplexExpr`` for every pair of doubled helicities of
            the position; Hermitian (:math:`\\rho_{ba} = \\bar\\rho_{ab}`),
            which is not checked symbolically: give both entries.
        factors : tuple, optional
            ``(rho, transform)``, the same matrix as
            :math:`\\rho_{ab} = \\sum_{cd} \\sigma_{cd} U_{ca} \\bar U_{db}`
            with :math:`\\sigma` (``rho``: ``(c, d) -> ComplexExpr``) of
            parameters and constants only and :math:`U` (``transform``:
            ``(c, a) -> ComplexExpr``) of the event only, for example a
            polarized parent's spin-density matrix and the Wigner D matrix
            of the event's orientation.  The intensity is then the Hermitian
            form :math:`\\sum \\mathrm{Re}[\\sigma_{cd} \\tilde A_c \\bar{\\tilde A}_d]`
            of :math:`\\tilde A_c = \\sum_a U_{ca} A_a` with weights that are
            the same at every event, which cached fits use
            (:meth:`density_factors`).  Not checked against ``matrix``.
        """
        self.density_matrix = (int(position), {tuple(k): as_complex(v)
                                               for k, v in matrix.items()})
        self._density_factors = None
        if factors is not None:
            rho, transform = factors
            self._density_factors = ({tuple(k): as_complex(v) for k, v in rho.items()},
                                     {tuple(k): as_complex(v) for k, v in transform.items()})

    def density_factors(self):
        """The density matrix as event-independent weights and an event
        transform (``factors`` of :meth:`set_density_matrix`), or None.

        Returns
        -------
        tuple or None
            ``(rho, transform)``: ``transform`` is None (the identity) when
            no entry of the density matrix depends on the event; None for
            an unpolarized model, or when the entries depend on the event
            and no factors were given.
        """
        if self.density_matrix is None:
            return None
        if self._density_factors is not None:
            return self._density_factors
        matrix = self.density_matrix[1]
        if any(leaf.op == "event" for v in matrix.values() for x in v.parts()
               for leaf in leaves(x)):
            return None
        return matrix, None

    @property
    def components(self):
        """All components, group by group."""
        return [c for g in self.groups.values() for c in g.components]

    def parameter_names(self):
        """Names of the parameters, in declaration order."""
        return list(self.parameters)

    def values(self):
        """Starting values by name."""
        return {n: p.value for n, p in self.parameters.items()}

    def check(self):
        """Raise ValueError for what cannot compile: an unknown parameter,
        constant or event variable in an expression, or an empty model."""
        if not self.components:
            raise ValueError(f"model {self.name!r} has no components")
        known = set(self.parameters)
        for expr, owner in self._expressions():
            for leaf in leaves(expr):
                if leaf.op == "par" and leaf.data not in known:
                    raise ValueError(f"model {self.name!r}: {owner} uses the parameter "
                                     f"{leaf.data!r}, which the model does not declare")
                if leaf.op == "const" and leaf.data not in self.constants:
                    raise ValueError(f"model {self.name!r}: {owner} uses the constant "
                                     f"{leaf.data!r}, which the model does not declare")
                if leaf.op == "event" and leaf.data not in self.events:
                    raise ValueError(f"model {self.name!r}: {owner} uses the event variable "
                                     f"{leaf.data!r}, which the model does not declare")

    def _expressions(self):
        for g in self.groups.values():
            for p, m in g.rotations:
                for v in m.values():
                    yield v, f"group {g.name!r} (rotation of position {p})"
            for c in g.components:
                for x in c.coupling.parts() + c.factor.parts():
                    yield x, f"component {c.name!r}"
                for a in c.angular.values():
                    yield a, f"component {c.name!r} (angular factor)"
        if self.density_matrix is not None:
            for v in self.density_matrix[1].values():
                for x in v.parts():
                    yield x, "the density matrix"

    def frozen(self):
        """The model with its fixed parameters turned into constants (of the
        same names and values): what compiles, so that the compiled density
        has the free parameters only and no derivative of a fixed one is
        computed.  Parts that depend on the event and fixed parameters only
        (a lineshape of fixed mass and width) are then computed once, when
        the events are loaded.

        Returns
        -------
        AmplitudeModel
        """
        from ..expressions.nodes import constant, parameter
        fixed = [p for p in self.parameters.values() if p.fixed]
        clash = [p.name for p in fixed if p.name in self.constants]
        if clash:
            raise ValueError(f"model {self.name!r}: {clash} are both parameters and constants")
        constants = dict(self.constants)
        constants.update({p.name: p.value for p in fixed})
        return self._substituted({parameter(p.name): constant(p.name) for p in fixed},
                                 [p for p in self.parameters.values() if not p.fixed],
                                 constants, self.name)

    def renamed(self, names, name=None):
        """The same model with parameters and constants renamed.

        Parameters
        ----------
        names : dict of str to str
            Old name -> new name, for parameters and constants (others keep
            theirs).  Constants that event functions read by name cannot be
            renamed.
        name : str, optional
            The new model's name (default: this model's).

        Returns
        -------
        AmplitudeModel
        """
        from ..expressions.nodes import constant, parameter
        unknown = set(names) - set(self.parameters) - set(self.constants)
        if unknown:
            raise ValueError(f"model {self.name!r}: no parameter or constant {sorted(unknown)}")
        new = [names.get(n, n) for n in list(self.parameters) + list(self.constants)]
        if len(set(new)) != len(new):
            raise ValueError(f"model {self.name!r}: renaming makes two names equal")
        mapping = {parameter(old): parameter(nn) for old, nn in names.items()
                   if old in self.parameters}
        mapping.update({constant(old): constant(nn) for old, nn in names.items()
                        if old in self.constants})
        params = [ModelParameter(names.get(p.name, p.name), p.value, p.step, p.fixed, p.lower,
                                 p.upper) for p in self.parameters.values()]
        constants = {names.get(k, k): v for k, v in self.constants.items()}
        return self._substituted(mapping, params, constants,
                                 self.name if name is None else name)

    def _substituted(self, mapping, parameters, constants, name):
        """A model of the given parameters, constants and name whose
        expressions are this model's with the leaves of ``mapping`` replaced."""
        from ..expressions.passes import substitute
        memo = {}

        def sub(x):
            return substitute(x, mapping, memo)
        out = AmplitudeModel(name, self.channels, parameters, constants=constants,
                             events=self.events, event_functions=self.event_functions)
        for g in self.groups.values():
            out.add_group(g.name, [(p, {k: sub(v) for k, v in m.items()}) for p, m in g.rotations])
            for c in g.components:
                out.add_component(c.name, g.name, sub(c.coupling), sub(c.factor),
                                  {h: sub(a) for h, a in c.angular.items()})
        if self.density_matrix is not None:
            position, matrix = self.density_matrix
            factors = self._density_factors
            if factors is not None:
                factors = tuple({k: sub(v) for k, v in f.items()} for f in factors)
            out.set_density_matrix(position, {k: sub(v) for k, v in matrix.items()}, factors)
        return out

    # -- numpy evaluation ----------------------------------------------------------------
    def _lookup(self, records, params, constants):
        values = self.values()
        if params is not None:
            unknown = set(params) - set(values)
            if unknown:
                raise ValueError(f"model {self.name!r}: unknown parameter(s) {sorted(unknown)}")
            values.update(params)
        consts = dict(self.constants)
        consts.update(constants or {})

        read = self.event_reader(records, consts)

        def value(node):
            if node.op == "par":
                return values[node.data]
            if node.op == "const":
                return consts[node.data]
            return read(node.data)
        return value

    def event_reader(self, records, constants):
        """``read(name)``: an event variable from the records, or computed by
        its function in :attr:`event_functions` (once per reader)."""
        computed = {}

        def read(name):
            if name in records:
                return np.asarray(records[name], dtype=np.float64)
            if name in self.event_functions:
                if name not in computed:
                    computed[name] = np.asarray(self.event_functions[name](records, constants),
                                                dtype=np.float64)
                return computed[name]
            raise KeyError(f"model {self.name!r}: the events have no variable {name!r} "
                           f"(the records have {sorted(records)})")
        return read

    def amplitudes(self, records, params=None, constants=None):
        """:math:`A_h` at events (numpy; the reference for the compiled code).

        Parameters
        ----------
        records : dict
            Event variable name -> array.
        params : dict, optional
            Parameter values (others at their starting values).
        constants : dict, optional

        Returns
        -------
        dict
            Channel -> complex array.
        """
        value = self._lookup(records, params, constants)
        memo = {}

        def ev(x):
            return evaluate(x, value, memo)
        n = len(np.atleast_1d(value(event_leaf(self.events[0])))) if self.events else 1
        out = {h: np.zeros(n, dtype=complex) for h in self.channels}
        for g in self.groups.values():
            vec = {}
            for c in g.components:
                u = complex(0) + ev(c.coupling.re) + 1j * ev(c.coupling.im)
                u = u * (ev(c.factor.re) + 1j * ev(c.factor.im))
                for h, a in c.angular.items():
                    vec[h] = vec.get(h, 0) + u * ev(a)
            for p, m in g.rotations:
                vec = _rotate(vec, p, {k: ev(v) for k, v in m.items()})
            for h, v in vec.items():
                if h not in out:
                    raise ValueError(f"group {g.name!r} gives the channel {h}, which is not "
                                     f"one of the model's")
                out[h] = out[h] + v
        return out

    def intensity(self, records, params=None, constants=None):
        """The intensity :math:`S` at events (numpy), float64 array."""
        amps = self.amplitudes(records, params, constants)
        if self.density_matrix is None:
            return sum(np.abs(a) ** 2 for a in amps.values())
        value = self._lookup(records, params, constants)
        position, rho = self.density_matrix
        total = 0.0
        for (a, b), r in rho.items():
            rv = evaluate(r.re, value) + 1j * evaluate(r.im, value)
            for h, amp in amps.items():
                if h[position] != a:
                    continue
                other = h[:position] + (b,) + h[position + 1:]
                if other in amps:
                    total = total + np.real(rv * amp * np.conj(amps[other]))
        return np.asarray(total, dtype=np.float64)

    # -- compilation -----------------------------------------------------------------------
    def source(self):
        """The Cython source of the block density (``vecampfit.amplitudes._cython_source``)."""
        from ._cython_source import generate
        return generate(self)[0]

    def compile(self, vector_lengths=(8,), *, directory=None, name=None, **options):
        """Write the Cython source and compile it for the vector lengths.

        Parameters
        ----------
        vector_lengths : iterable of int
        directory : str, optional
            Where ``<name>.pyx`` is written (default ``<compile cache>/amplitudes``).
        name : str, optional
            Module name (default from the model's name and the source's digest).
        **options
            Passed to :func:`vecampfit.model_compiler.compile_model`.

        Returns
        -------
        CompiledAmplitudeModel
            Its density has the free parameters (those not ``fixed``) as
            parameters and the fixed ones as constants (:meth:`frozen`).
        """
        from .compiled import compile_amplitude_model
        return compile_amplitude_model(self, vector_lengths, directory=directory, name=name,
                                       **options)

    def parameter_table(self, values=None, free=None):
        """The fit's :class:`vecampfit.fitter.ParameterTable`.

        Parameters
        ----------
        values : dict, optional
            Starting values that replace the model's.
        free : iterable of str, optional
            The parameters free in the fit (default: those not ``fixed``);
            the others get step 0 (fixed).
        """
        from vecampfit.fitter import FitParameter, ParameterTable
        values = values or {}
        free = None if free is None else set(free)
        if free is not None and free - set(self.parameters):
            raise ValueError(f"model {self.name!r}: unknown parameter(s) "
                             f"{sorted(free - set(self.parameters))} in free")
        out = []
        for p in self.parameters.values():
            is_free = (not p.fixed) if free is None else (p.name in free)
            lower = 0.0 if p.lower is None else p.lower
            upper = 0.0 if p.upper is None else p.upper
            out.append(FitParameter(p.name, float(values.get(p.name, p.value)),
                                    p.step if is_free else 0.0, lower, upper))
        return ParameterTable(out, source=f"amplitude model {self.name!r}")


def _rotate(vec, position, matrix):
    """Apply one rotation matrix {(ref, frame): value} to a vector {channel: value}."""
    out = {}
    for h, v in vec.items():
        f = h[position]
        for (r, col), m in matrix.items():
            if col != f:
                continue
            key = h[:position] + (r,) + h[position + 1:]
            out[key] = out.get(key, 0) + m * v
    return out
