"""Fit fractions and interference fractions of helicity-amplitude models, with errors.

The amplitude of an :class:`~vecampfit.amplitudes.AmplitudeModel` is linear
in the couplings :math:`c_k` of its components :math:`k`,

.. math::

    A_h = \\sum_k c_k\\, V_{kh}, \\qquad V_{kh} = \\sum_{h'} D^{g(k)}_{h h'}\\, F_k\\, a_k(h'),

with :math:`V_k` the component's amplitude vector in the reference
helicities (dynamical factor, angular vector and the rotations of its
group; :mod:`vecampfit.amplitudes.model`).  The intensity is a Hermitian
form of the amplitudes,
:math:`S = \\sum_{(a, b)} \\sum_{h:\\, h_p = a} \\mathrm{Re}\\,[\\rho_{ab}
A_h \\overline{A_{h[p \\to b]}}]` with the spin-density matrix
:math:`\\rho` of position :math:`p` of a polarized model, or
:math:`S = \\sum_h |A_h|^2` without one.  Over a normalization sample of
events :math:`j` with weights :math:`w_j` (Monte Carlo events uniform in
phase space with weight 1, or quadrature points with their integration
weights) the integrals of all products of components are one Hermitian
matrix,

.. math::

    M_{kl} = \\sum_j w_j \\sum_{(a, b)} \\sum_{h:\\, h_p = a}
        \\rho_{ab}(j)\\, V_{kh}(j)\\, \\overline{V_{l\\, h[p \\to b]}(j)},
    \\qquad \\sum_j w_j S_j = \\mathrm{Re} \\sum_{kl} c_k M_{kl} \\bar c_l ,

computed once; every fraction follows from it in :math:`O(K^2)`
operations.  A fraction is that of a named *group* :math:`G` of components
(for example all chains of one resonance, :func:`resonance_groups`):

.. math::

    D = \\mathrm{Re} \\sum_{k, l} c_k M_{kl} \\bar c_l, \\qquad
    F_{GG} = \\frac{1}{D}\\,\\mathrm{Re} \\sum_{k, l \\in G} c_k M_{kl} \\bar c_l,
    \\qquad
    F_{GH} = \\frac{2}{D}\\,\\mathrm{Re} \\sum_{k \\in G,\\, l \\in H} c_k M_{kl} \\bar c_l
    \\quad (G \\ne H):

:math:`F_{GG} = \\sum_j w_j S^G_j / \\sum_j w_j S_j` is the fit fraction,
:math:`S^G` the intensity with only the components of :math:`G` switched
on (the polarization as in the model), and :math:`F_{GH}` the interference
fraction.  For groups that partition the components,
:math:`\\sum_G F_{GG} + \\sum_{G < H} F_{GH} = 1`.  Fractions are
dimensionless; the intensity's units cancel.

Two uncertainties are reported separately, as in
:mod:`vecampfit.isobar.fractions`:

* from the fit: :math:`\\sigma^2(F) = J V J^T` with ``V`` the covariance
  matrix of the parameters and ``J`` the derivatives of :math:`F` by them,
  by central differences.  A coupling changes only :math:`c` (no new
  evaluation); a parameter of the density matrix (a polarization) changes
  :math:`\\rho` and a parameter of a lineshape changes :math:`V`, which are
  evaluated again over the sample;
* from the finite normalization sample (events drawn independently): with
  :math:`F = N/D`, :math:`N = \\sum_j w_j n_j`, the delta method gives
  :math:`\\sigma^2_{norm}(F) = \\sum_j w_j^2 (n_j - F d_j)^2 / D^2`,
  :math:`d_j = S_j`; it does not apply to quadrature points.

The component vectors are evaluated in numpy from the model's expressions,
in chunks of events (memory :math:`16\\,K H` bytes per event of a chunk,
:math:`K` components, :math:`H` helicity channels).  For the 26 chains
and 12 resonances of the LHCb :math:`\\Lambda_c^+ \\to p K^- \\pi^+` model
with its polarization, the fractions over 20 000 events take about 0.6 s
on one core, and with the errors of 53 free parameters over 100 000
events about 10 s.
"""

import re

import numpy as np

from ..expressions.evaluate import evaluate
from ..fractions import covariance_matrix
from ..isobar.fractions import FitFractions
from .model import _rotate

__all__ = ["AmplitudeFitFractions", "fit_fractions", "resonance_groups", "component_integrals"]


class AmplitudeFitFractions(FitFractions):
    """Fit fractions of groups of components, interference fractions and their errors.

    Attributes
    ----------
    components : tuple of str
        The group names, the order of the matrix rows.
    groups : dict
        Group name -> tuple of the model's component names.
    matrix : numpy.ndarray
        (G, G): fit fractions on the diagonal, interference fractions off it
        (symmetric; dimensionless).
    errors : numpy.ndarray or None
        (G, G) uncertainties propagated from the parameters' covariance
        matrix (None without one).
    normalization_errors : numpy.ndarray
        (G, G) statistical uncertainties from the finite normalization sample.
    integrals : numpy.ndarray
        (K, K) complex matrix :math:`M_{kl}` of the model's components (module
        description) at the given parameters, in the order of
        ``component_names``.
    component_names : tuple of str
        The model's components, the order of ``integrals``.
    """

    def __init__(self, groups, matrix, errors, normalization_errors, integrals,
                 component_names):
        super().__init__(list(groups), matrix, errors, normalization_errors)
        self.groups = {g: tuple(c) for g, c in groups.items()}
        self.integrals = integrals
        self.component_names = tuple(component_names)

    @property
    def interference(self):
        """Interference fractions, ``(group, group) -> value`` for every pair in row order."""
        out = {}
        for i, a in enumerate(self.components):
            for j in range(i + 1, len(self.components)):
                out[(a, self.components[j])] = float(self.matrix[i, j])
        return out

    @property
    def interference_total(self):
        """Sum of the interference fractions :math:`\\sum_{G < H} F_{GH}`."""
        return float(np.sum(np.triu(self.matrix, 1)))

    def table(self, labels=None, interference=False, minimum=0.0):
        """Text table in percent: fraction, fit error, normalization-sample error.

        Parameters
        ----------
        labels : dict, optional
            Group name -> label.
        interference : bool
            Also list the interference fractions (pairs with
            :math:`|F_{GH}| \\ge` ``minimum``) and their sum.
        minimum : float
            Smallest interference fraction listed (dimensionless, e.g. 0.005).
        """
        text = super().table(labels)
        if not interference:
            return text
        labels = labels or {}
        lines = [text, "", f"{'interference':24s} {'fraction %':>11s} {'fit err':>9s} "
                           f"{'norm err':>9s}"]
        for i, a in enumerate(self.components):
            for j in range(i + 1, len(self.components)):
                if abs(self.matrix[i, j]) < minimum:
                    continue
                b = self.components[j]
                e = f"{100 * self.errors[i, j]:9.3f}" if self.errors is not None else f"{'-':>9s}"
                lines.append(f"{labels.get(a, a) + ' x ' + labels.get(b, b):24s} "
                             f"{100 * self.matrix[i, j]:11.3f} {e} "
                             f"{100 * self.normalization_errors[i, j]:9.3f}")
        lines.append(f"{'sum of interference':24s} {100 * self.interference_total:11.3f}")
        lines.append(f"{'fractions + interference':24s} "
                     f"{100 * (self.total + self.interference_total):11.3f}")
        return "\n".join(lines)


_SUFFIX = re.compile(r"_\d+$")


def resonance_groups(model, decay=None):
    """The model's components grouped by resonance: all chains of one isobar together.

    Parameters
    ----------
    model : AmplitudeModel or CompiledAmplitudeModel
    decay : vecampfit.dpd.ThreeBodyDecay or vecampfit.model_format.Distribution, optional
        The decay the model was built from
        (:meth:`~vecampfit.dpd.ThreeBodyDecay.amplitude_model`): the groups
        are named by the chains' names (the isobar's name in a model file,
        for example ``L1520``), matched to the components in the order
        ``amplitude_model`` adds them.  Without it, a component's group is
        its name with a trailing ``_<number>`` removed (``K892_3`` ->
        ``K892``), the labels ``amplitude_model`` gives the second and
        further chains of one isobar.

    Returns
    -------
    dict
        Group name -> list of component names, in the model's component order.

    Raises
    ------
    ValueError
        ``decay`` does not match the model's components.
    """
    model = getattr(model, "model", model)
    components = [c.name for c in model.components]
    if decay is None:
        keys = [_SUFFIX.sub("", n) for n in components]
    else:
        decay = getattr(decay, "model", decay)
        chains = [c for k in (1, 2, 3) for c in decay.chains if c.k == k]
        if len(chains) != len(components):
            raise ValueError(f"model {model.name!r}: {len(components)} components, the decay "
                             f"{len(chains)} chains; give the decay the model was built from")
        keys = []
        for chain, name in zip(chains, components):
            if chain.name and not (name == chain.name or name.startswith(chain.name + "_")):
                raise ValueError(f"model {model.name!r}: component {name!r} is not a chain of "
                                 f"{chain.name!r}; give the decay the model was built from")
            keys.append(chain.name or name)
    out = {}
    for key, name in zip(keys, components):
        out.setdefault(key, []).append(name)
    return out


class _Evaluator:
    """Component vectors, density matrix and integrals of one model over one sample."""

    def __init__(self, model, records, weights, constants, chunk_size):
        self.model = model
        self.constants = constants
        self.components = model.components
        self.names = [c.name for c in self.components]
        if not self.components:
            raise ValueError(f"model {model.name!r} has no components")
        if not model.events:
            raise ValueError(f"model {model.name!r} reads no event variables: no sample to "
                             f"integrate over")
        missing = [v for v in model.events if v not in records]
        if missing:
            raise KeyError(f"model {model.name!r}: the normalization events have no variable(s) "
                           f"{missing} (they have {sorted(records)})")
        self.records = {v: np.asarray(records[v], dtype=np.float64) for v in model.events}
        self.n = len(self.records[model.events[0]])
        if self.n == 0:
            raise ValueError("fit fractions: the normalization sample is empty")
        for v, x in self.records.items():
            if x.shape != (self.n,):
                raise ValueError(f"normalization events: variable {v!r} has shape {x.shape}, "
                                 f"expected ({self.n},)")
        if weights is None:
            self.weights = np.ones(self.n)
        else:
            self.weights = np.asarray(weights, dtype=np.float64)
            if self.weights.shape != (self.n,):
                raise ValueError(f"weights: expected shape ({self.n},), got "
                                 f"{self.weights.shape}")
        if not isinstance(chunk_size, (int, np.integer)) or chunk_size < 1:
            raise ValueError(f"chunk_size must be a positive integer, got {chunk_size!r}")
        self.chunk_size = int(chunk_size)
        self.channel_index = {h: i for i, h in enumerate(model.channels)}
        # (row channel, column channel, density-matrix key) of the Hermitian form
        if model.density_matrix is None:
            self.pairs = [(i, i, None) for i in range(len(model.channels))]
        else:
            position, rho = model.density_matrix
            self.pairs = []
            for (a, b) in rho:
                for h, i in self.channel_index.items():
                    if h[position] != a:
                        continue
                    other = h[:position] + (b,) + h[position + 1:]
                    if other in self.channel_index:
                        self.pairs.append((i, self.channel_index[other], (a, b)))
        shape = set()
        for g in model.groups.values():
            for _, m in g.rotations:
                for v in m.values():
                    shape.update(v.parameters)
            for c in g.components:
                shape.update(c.parameter_names())
                for a in c.angular.values():
                    shape.update(a.parameters)
        self.shape_parameters = shape
        rho_parameters = set()
        if model.density_matrix is not None:
            for v in model.density_matrix[1].values():
                for x in v.parts():
                    rho_parameters.update(x.parameters)
        self.density_parameters = rho_parameters

    def chunks(self):
        for start in range(0, self.n, self.chunk_size):
            stop = min(start + self.chunk_size, self.n)
            yield start, stop, {v: x[start:stop] for v, x in self.records.items()}

    def couplings(self, values):
        value = self.model._lookup({}, values, self.constants)
        return np.array([complex(evaluate(c.coupling.re, value))
                         + 1j * complex(evaluate(c.coupling.im, value))
                         for c in self.components])

    def vectors(self, chunk, values):
        """(K, H, n) complex component vectors in the reference helicities."""
        n = len(next(iter(chunk.values())))
        value = self.model._lookup(chunk, values, self.constants)
        memo = {}

        def ev(x):
            return evaluate(x, value, memo)
        out = np.zeros((len(self.components), len(self.model.channels), n), dtype=complex)
        k = 0
        for g in self.model.groups.values():
            rotations = [(p, {key: ev(v) for key, v in m.items()}) for p, m in g.rotations]
            for c in g.components:
                factor = ev(c.factor.re) + 1j * ev(c.factor.im)
                vec = {h: factor * ev(a) for h, a in c.angular.items()}
                for p, m in rotations:
                    vec = _rotate(vec, p, m)
                for h, v in vec.items():
                    if h not in self.channel_index:
                        raise ValueError(f"group {g.name!r} gives the channel {h}, which is not "
                                         f"one of the model's")
                    out[k, self.channel_index[h]] += v
                k += 1
        return out

    def density(self, chunk, values):
        """``key -> rho_ab`` (arrays over the chunk's events, or numbers)."""
        if self.model.density_matrix is None:
            return {None: 1.0}
        value = self.model._lookup(chunk, values, self.constants)
        return {key: evaluate(r.re, value) + 1j * evaluate(r.im, value)
                for key, r in self.model.density_matrix[1].items()}

    def form(self, x, y, rho):
        """Per-event :math:`\\sum \\rho_{ab} x_h \\bar y_{h'}` of (H, n) amplitude arrays."""
        total = 0.0
        for i, j, key in self.pairs:
            total = total + rho[key] * x[i] * np.conj(y[j])
        return total

    def integrals(self, values, vectors=None):
        """:math:`M_{kl}` over the whole sample (``vectors``: per-chunk vectors to reuse)."""
        k = len(self.components)
        m = np.zeros((k, k), dtype=complex)
        for n, (start, stop, chunk) in enumerate(self.chunks()):
            v = vectors[n] if vectors is not None else self.vectors(chunk, values)
            rho = self.density(chunk, values)
            w = self.weights[start:stop]
            for i, j, key in self.pairs:
                m += (v[:, i] * (w * rho[key])) @ np.conj(v[:, j]).T
        return m


def _fraction_matrix(m, c, index):
    """(G, G) fractions from the integrals ``m``, couplings ``c`` and group index lists."""
    den = float(np.real(c @ m @ np.conj(c)))
    if not den > 0:
        raise ValueError("fit fractions: the integral of the intensity over the normalization "
                         "sample is not positive")
    g = len(index)
    out = np.empty((g, g))
    for a in range(g):
        ca = c[index[a]]
        for b in range(a, g):
            cb = c[index[b]]
            value = float(np.real(ca @ m[np.ix_(index[a], index[b])] @ np.conj(cb))) / den
            out[a, b] = out[b, a] = value if a == b else 2 * value
    return out


def component_integrals(model, records, weights=None, params=None, constants=None,
                        chunk_size=20000):
    """The Hermitian matrix :math:`M_{kl}` of the model's components over a sample.

    Parameters
    ----------
    model : AmplitudeModel or CompiledAmplitudeModel
    records : dict of array_like
        Normalization events: the model's event variables (``sigma1`` ...
        in GeV^2, the orientation angles of a polarized model in rad).
    weights : array_like, optional
        Event weights (default 1).
    params : dict, optional
        Parameter values (others at the model's starting values).
    constants : dict, optional
    chunk_size : int
        Events evaluated at once.

    Returns
    -------
    names : list of str
        The components, the order of the rows.
    integrals : numpy.ndarray
        (K, K) complex, :math:`\\sum_j w_j S_j = \\mathrm{Re}\\, c^T M \\bar c`
        (units: those of the intensity times those of the weights, divided
        by those of the couplings squared).
    """
    model = getattr(model, "model", model)
    values = _values(model, params)
    ev = _Evaluator(model, records, weights, constants, chunk_size)
    return list(ev.names), ev.integrals(values)


def _values(model, params):
    values = model.values()
    if params is not None:
        unknown = set(params) - set(values)
        if unknown:
            raise ValueError(f"model {model.name!r}: unknown parameter(s) {sorted(unknown)}")
        values.update({k: float(v) for k, v in params.items()})
    return values


def fit_fractions(model, records, groups=None, weights=None, params=None, covariance=None,
                  covariance_names=None, constants=None, relative_step=1e-5, chunk_size=20000):
    """Fit fractions and interference fractions of groups of an amplitude model's components.

    Parameters
    ----------
    model : AmplitudeModel or CompiledAmplitudeModel
        The model (a compiled one is evaluated through its declared model, in numpy).
    records : dict of array_like
        Normalization events: the model's event variables (``sigma1`` ...
        in GeV^2; the orientation ``alpha``, ``cos_beta``, ``gamma`` of a
        polarized model, rad).
    groups : dict, optional
        Group name -> component names (disjoint; components in no group
        count in the total intensity only).  Default: one group per
        component.  :func:`resonance_groups` groups the chains by resonance.
    weights : array_like, optional
        Event weights (default 1).
    params : dict, optional
        Parameter values, for example the fitted ones (others at the
        model's starting values; names that are not model parameters are
        an error).
    covariance : array_like, optional
        Covariance matrix of the parameters ``covariance_names`` (rows of
        zeros for fixed parameters are skipped).
    covariance_names : sequence of str, optional
        Default: all model parameters, in declaration order.
    constants : dict, optional
    relative_step : float
        Step of the central differences: ``relative_step * max(|p|, 1)``
        in the parameter's units.
    chunk_size : int
        Events evaluated at once.

    Returns
    -------
    AmplitudeFitFractions

    Raises
    ------
    ValueError
        Unknown or overlapping group members, unknown parameters, a
        covariance of the wrong shape, an intensity that does not integrate
        to a positive value.
    """
    model = getattr(model, "model", model)
    values = _values(model, params)
    ev = _Evaluator(model, records, weights, constants, chunk_size)
    names = ev.names
    position = {n: k for k, n in enumerate(names)}
    if groups is None:
        groups = {n: [n] for n in names}
    groups = {str(g): list(members) for g, members in groups.items()}
    owner = {}
    index = []
    for g, members in groups.items():
        if not members:
            raise ValueError(f"fit fractions: group {g!r} has no components")
        for c in members:
            if c not in position:
                raise ValueError(f"fit fractions: group {g!r} names {c!r}, which is not a "
                                 f"component of model {model.name!r} (components: {names})")
            if c in owner:
                raise ValueError(f"fit fractions: component {c!r} is in groups {owner[c]!r} "
                                 f"and {g!r}; groups must be disjoint")
            owner[c] = g
        index.append(np.array([position[c] for c in members]))

    # One pass at the central values: the integrals and the sums of the
    # normalization-sample errors, sum w^2 n n, sum w^2 n d, sum w^2 d d.
    c = ev.couplings(values)
    k = len(names)
    m = np.zeros((k, k), dtype=complex)
    ng = len(groups)
    s_nn = np.zeros((ng, ng))
    s_nd = np.zeros((ng, ng))
    s_dd = 0.0
    # The component vectors do not depend on the density matrix: a derivative
    # with respect to a polarization parameter reuses them.
    keep = covariance is not None and bool(ev.density_parameters - ev.shape_parameters)
    kept = [] if keep else None
    for start, stop, chunk in ev.chunks():
        v = ev.vectors(chunk, values)
        if keep:
            kept.append(v)
        rho = ev.density(chunk, values)
        w = ev.weights[start:stop]
        for i, j, key in ev.pairs:
            m += (v[:, i] * (w * rho[key])) @ np.conj(v[:, j]).T
        total = np.einsum("k,khn->hn", c, v)
        d = np.real(ev.form(total, total, rho))
        amps = [np.einsum("k,khn->hn", c[idx], v[idx]) for idx in index]
        w2 = w * w
        s_dd += float(np.dot(w2, d * d))
        for a in range(ng):
            for b in range(a, ng):
                n = np.real(ev.form(amps[a], amps[b], rho)) * (1 if a == b else 2)
                s_nn[a, b] += float(np.dot(w2, n * n))
                s_nd[a, b] += float(np.dot(w2, n * d))
    s_nn = np.triu(s_nn) + np.triu(s_nn, 1).T
    s_nd = np.triu(s_nd) + np.triu(s_nd, 1).T
    matrix = _fraction_matrix(m, c, index)
    den = float(np.real(c @ m @ np.conj(c)))
    norm_err = np.sqrt(np.maximum(s_nn - 2 * matrix * s_nd + matrix ** 2 * s_dd, 0)) / den

    errors = None
    if covariance is not None:
        cov, cov_names = covariance_matrix(
            covariance, covariance_names if covariance_names is not None else values, values,
            f"model {model.name!r}")
        jac = np.zeros((len(cov_names), ng, ng))
        for r, p in enumerate(cov_names):
            if not np.any(cov[r]):
                continue
            h = relative_step * max(abs(values[p]), 1.0)
            out = []
            for sign in (1, -1):
                moved = dict(values)
                moved[p] = values[p] + sign * h
                if p in ev.shape_parameters:
                    mm = ev.integrals(moved)
                elif p in ev.density_parameters:
                    mm = ev.integrals(moved, kept)
                else:
                    mm = m
                out.append(_fraction_matrix(mm, ev.couplings(moved), index))
            jac[r] = (out[0] - out[1]) / (2 * h)
        errors = np.sqrt(np.maximum(np.einsum("rij,rs,sij->ij", jac, cov, jac), 0))
    return AmplitudeFitFractions(groups, matrix, errors, norm_err, m, names)
