r"""Cascades of two-body decays of any length in the helicity formalism.

A :class:`CascadeModel` describes the decay of an initial state (a
:class:`~vecampfit.cascades.VirtualPhoton` of :math:`e^+e^-` annihilation or
a decaying :class:`~vecampfit.cascades.Particle`) into final-state
particles through chains of two-body decays.  A chain is a topology, nested
pairs of final-state particles (``(((0, 3), 2), 1)`` or
``((("K+", "pi-"), "pi+"), "K-")``), an isobar for every intermediate node
and a vertex for every decaying node; any number of chains, with any
topologies, add up coherently.

Frames
------
The frames are those of :func:`vecampfit.kinematics.momenta_to_helicity`
(the paper's section 8): the initial state's rest frame is reached from the
lab by a pure boost and keeps the lab axes (z the beam axis for the virtual
photon).  In the rest frame of a decaying node :math:`X` with axes
:math:`(x', y', z')`, the first child's direction gives the helicity angles
:math:`(\theta, \varphi)` of the decay :math:`X \to a\,b`; a child
:math:`C` (first or second) that decays in turn has the axes
:math:`z'' \parallel \vec p_C`, :math:`y'' \parallel z' \times z''`,
:math:`x'' = y'' \times z''`, and its rest frame is reached from that of
:math:`X` by a pure boost along :math:`z''`.  The event variables (the
cosine and azimuth of every decaying node of every topology, the squared
invariant mass of every isobar) are computed in numpy from the four-momenta
by :meth:`CascadeModel.event_records`, once per event.

Amplitude
---------
For the initial-state helicity :math:`M` (along the lab z axis) and the
final-state helicities :math:`\lambda_f` (each in its own helicity frame),
a chain contributes

.. math::

    A_{M \{\lambda_f\}} = w \prod_{X} \Big[ e^{i \lambda_X \varphi_X}\,
      d^{J_X}_{\lambda_X,\, \lambda_a - \lambda_b}(\theta_X)\,
      H^{X}_{\lambda_a \lambda_b}\, B_a(s_a)\, B_b(s_b) \Big]

summed over the helicities of the intermediate isobars, the product over
the decaying nodes :math:`X \to a\,b` (:math:`\lambda_X = M` at the top):
:math:`e^{i \lambda \varphi} d^J_{\lambda \mu}(\theta) =
D^{J*}_{\lambda\mu}(\varphi, \theta, 0)`, :math:`H^X` the vertex
(:class:`~vecampfit.cascades.LS` or :class:`~vecampfit.cascades.Helicity`),
:math:`B` the isobars' lineshapes (1 for final-state particles) and
:math:`w` the chain's factor (an isospin coefficient, the relative sign of
a charge-conjugate chain).  The intensity is

.. math::

    S = \sum_{M} \sum_{\{\lambda_f\}} \Big| \sum_{\mathrm{chains}}
        A_{M \{\lambda_f\}} \Big|^2

for an unpolarized initial state (:math:`M = \pm 1` for the virtual photon;
no factor :math:`1/(2J+1)`), or the density-matrix form of
:class:`~vecampfit.amplitudes.AmplitudeModel` for a polarized one.

With the second child's frame as above, the Jacob-Wick helicity amplitudes
(their two-particle states with the phase :math:`(-1)^{s_b - \lambda_b}`
and the second particle's frame turned by :math:`R_y(\pi)` from the
first's) equal these up to a constant factor of modulus one per vertex,
:math:`e^{i\pi s_b}` (:math:`(-1)^{s_b}` for an integer spin :math:`s_b`),
independent of the helicities (the second particle's frame here is Jacob
and Wick's turned by :math:`R_z(\pi)`; the tests check it for vector and
spin-1/2 second particles): LS couplings keep their meaning (the parity relations
:math:`H_{-\lambda_a -\lambda_b} = P_X P_a P_b (-1)^{J - s_a - s_b}
H_{\lambda_a \lambda_b}` hold).

Compilation
-----------
The amplitude is multilinear in the vertex couplings; it is expanded into
one :class:`~vecampfit.amplitudes.AmplitudeComponent` per channel and
product of coupling parameters, with the product as the component's
coupling (computed once per likelihood call) and the sum of every chain's
event factor with that product as its factor (computed once when the events
are loaded if the lineshapes have no free parameter).  Chains with the same
couplings share components.

Wigner rotations
----------------
A final-state particle with spin has a helicity frame per topology (its
rest frame reached through the boosts of its ancestors).  Where a topology's
frame differs from the reference one (the topology of the first chain), its
helicities are turned to the reference by the Wigner rotation :math:`W`
between the two rest frames (:mod:`vecampfit.cascades.frames`):

.. math::

    A^\mathrm{ref}_{\ldots\lambda'\ldots} = \sum_\lambda
    D^{s}_{\lambda'\lambda}(\alpha, \beta, \gamma)\,
    A_{\ldots\lambda\ldots}, \qquad W = R_z(\alpha) R_y(\beta) R_z(\gamma),

with the Euler angles event variables.  The frames are followed as SL(2, C)
elements, so that :math:`W` is an SU(2) element with its sign and
:math:`D^s` is right for half-integer spins too.  A massless particle (whose
helicity frames are not rest frames) with different frames raises
NotImplementedError.
"""

import itertools
from fractions import Fraction

import numpy as np

from ..amplitudes.model import AmplitudeModel, ModelParameter
from ..expressions.nodes import ComplexExpr, add, cos, event, mul, sin, sqrt
from ..expressions.passes import leaves
from ..expressions.spin import wigner_small_d_cos
from .. import kinematics
from .frames import leaf_frames, wigner_rotation_angles
from .particles import Isobar, Particle, _Vertex

__all__ = ["CascadeModel"]


class _Node:
    """A decaying node of a chain: indices of its final-state particles, the
    particle, its vertex and its children (``_Node`` or final-state index)."""

    def __init__(self, leaves_, particle, vertex, children, path):
        self.leaves, self.particle, self.vertex = leaves_, particle, vertex
        self.children, self.path = children, path


def _leaf_set(t):
    return (t,) if isinstance(t, int) else _leaf_set(t[0]) + _leaf_set(t[1])


def _preorder(t):
    """Internal nodes of a topology (nested pairs of ints), parent first."""
    if not isinstance(t, (tuple, list)):
        return []
    return [t] + _preorder(t[0]) + _preorder(t[1])


def _relabel(t, perm):
    return perm[t] if isinstance(t, int) else (_relabel(t[0], perm), _relabel(t[1], perm))


class CascadeModel:
    """A cascade amplitude (see the module description).

    Parameters
    ----------
    name : str
    initial : Particle
        The decaying particle (its rest frame has the lab axes) or a
        :class:`~vecampfit.cascades.VirtualPhoton`.
    final_state : sequence of Particle
        The final-state particles, in the order of the helicity channels
        and of the indices of the topologies (names unique).
    identical : sequence of sequences of str, optional
        Groups of identical final-state particles: every chain is summed
        over the permutations of each group (bosons symmetric, fermions
        antisymmetric).
    polarization : dict, optional
        The initial state's spin-density matrix ``{(a, b): ComplexExpr}``
        over its doubled helicities (see
        :meth:`vecampfit.amplitudes.AmplitudeModel.set_density_matrix`);
        default unpolarized.
    constants : dict, optional
        Named constants the expressions use (``vecampfit.expressions.constant``).
    suffixes : (str, str)
        Suffixes of the real and imaginary parameters of a named coupling.
    reference_topology : nested pairs, optional
        The topology whose helicity frames define the final-state
        helicities (the other topologies are turned to it by Wigner
        rotations); default the first chain's topology.
    """

    def __init__(self, name, initial, final_state, identical=(), polarization=None,
                 constants=None, suffixes=("_RE", "_IM"), reference_topology=None):
        self.name = str(name)
        if not isinstance(initial, Particle):
            raise TypeError(f"cascade {name!r}: initial must be a Particle or VirtualPhoton, "
                            f"got {initial!r}")
        self.initial = initial
        self.final_state = list(final_state)
        if len(self.final_state) < 2:
            raise ValueError(f"cascade {name!r}: at least two final-state particles")
        for p in self.final_state:
            if not isinstance(p, Particle) or isinstance(p, Isobar):
                raise TypeError(f"cascade {name!r}: a final-state particle must be a Particle, "
                                f"got {p!r}")
        self.names = [p.name for p in self.final_state]
        if len(set(self.names)) != len(self.names):
            raise ValueError(f"cascade {name!r}: final-state names must be unique, got {self.names}")
        if initial.name in self.names:
            raise ValueError(f"cascade {name!r}: the initial state's name {initial.name!r} is a "
                             "final-state name")
        self.identical = []
        for group in identical:
            idx = [self._index(n, "identical") for n in group]
            spins = {self.final_state[i].two_spin for i in idx}
            if len(idx) < 2 or len(set(idx)) != len(idx) or len(spins) != 1:
                raise ValueError(f"cascade {name!r}: identical particles {tuple(group)!r} must be "
                                 "two or more distinct particles of the same spin")
            self.identical.append(idx)
        self.polarization = polarization
        self.constants = dict(constants or {})
        self.suffixes = tuple(suffixes)
        self.chains = []
        self.topologies = []
        self._values = {}
        self.reference_topology = None
        if reference_topology is not None:
            ref = self._topology(reference_topology, "reference topology")
            if isinstance(ref, int) or sorted(_leaf_set(ref)) != list(range(len(self.final_state))):
                raise ValueError(f"cascade {self.name!r}: the reference topology must contain "
                                 f"every final-state particle once, got {reference_topology!r}")
            self.reference_topology = ref

    # -- declaration -------------------------------------------------------------------
    def _index(self, leaf, where):
        if isinstance(leaf, (int, np.integer)) and not isinstance(leaf, bool):
            if not 0 <= leaf < len(self.final_state):
                raise ValueError(f"cascade {self.name!r}, {where}: no final-state particle {leaf}")
            return int(leaf)
        if isinstance(leaf, str):
            if leaf not in self.names:
                raise ValueError(f"cascade {self.name!r}, {where}: no final-state particle "
                                 f"{leaf!r} (the final state is {self.names})")
            return self.names.index(leaf)
        raise ValueError(f"cascade {self.name!r}, {where}: a topology's leaf is a final-state "
                         f"name or index, got {leaf!r}")

    def _topology(self, t, where):
        if isinstance(t, (list, tuple)):
            if len(t) != 2:
                raise ValueError(f"cascade {self.name!r}, {where}: a two-body decay is a pair, "
                                 f"got {t!r}")
            return (self._topology(t[0], where), self._topology(t[1], where))
        return self._index(t, where)

    def add_chain(self, topology, isobars, vertices, factor=1.0, name=None):
        """Add a decay chain.

        Parameters
        ----------
        topology : nested pairs
            The decay tree as nested pairs of final-state names or indices,
            each pair (first child, second child); it contains every
            final-state particle once.
        isobars : sequence of Isobar or dict
            The isobar of every intermediate node, in pre-order (parent
            before children, first child's subtree first; the top node is
            the initial state and is not listed), or a dict from the node
            (its nested pair, as in ``topology``) to the isobar.
        vertices : sequence of vertices or dict
            The vertex (:class:`LS` or :class:`Helicity`) of every decaying
            node in pre-order, the top node first, or a dict from the node to
            the vertex.
        factor : number or ComplexExpr
            The chain's factor :math:`w` (an isospin coefficient, the sign
            of a charge-conjugate chain); parameters allowed.
        name : str, optional

        Returns
        -------
        int
            The chain's index.
        """
        name = name or f"chain{len(self.chains)}"
        where = f"chain {name!r}"
        topo = self._topology(topology, where)
        if isinstance(topo, int):
            raise ValueError(f"cascade {self.name!r}, {where}: the topology must decay")
        used = sorted(_leaf_set(topo))
        if used != list(range(len(self.final_state))):
            raise ValueError(f"cascade {self.name!r}, {where}: the topology must contain every "
                             f"final-state particle once, it has {[self.names[i] for i in used]}")
        nodes = _preorder(topo)
        original = _preorder(topology)

        def by_node(spec, count, what, skip_top):
            if isinstance(spec, dict):
                out = []
                for node, orig in zip(nodes[skip_top:], original[skip_top:]):
                    found = [v for k, v in spec.items()
                             if self._topology(k, where) == node]
                    if not found:
                        raise ValueError(f"cascade {self.name!r}, {where}: no {what} for the node "
                                         f"{orig!r}")
                    out.append(found[0])
                return out
            spec = list(spec)
            if len(spec) != count:
                raise ValueError(f"cascade {self.name!r}, {where}: {count} {what}s expected "
                                 f"(one per node, pre-order), got {len(spec)}")
            return spec
        iso = by_node(isobars, len(nodes) - 1, "isobar", 1)
        ver = by_node(vertices, len(nodes), "vertex", 0)
        for x in iso:
            if not isinstance(x, Isobar):
                raise TypeError(f"cascade {self.name!r}, {where}: an isobar must be an Isobar, "
                                f"got {x!r}")
        for v in ver:
            if not isinstance(v, _Vertex):
                raise TypeError(f"cascade {self.name!r}, {where}: a vertex must be LS or "
                                f"Helicity, got {v!r}")
        self.chains.append({"name": name, "topology": topo, "isobars": dict(zip(nodes[1:], iso)),
                            "vertices": dict(zip(nodes, ver)), "factor": factor})
        return len(self.chains) - 1

    def set_parameter(self, name, value, fixed=False, step=None, lower=None, upper=None):
        """Starting value and fit options of a parameter (see
        :class:`vecampfit.amplitudes.ModelParameter`).  Named couplings
        start at 1 + 0i unless set here."""
        self._values[name] = ModelParameter(name, value, step, fixed, lower, upper)

    def set_coupling(self, name, value, fixed=False):
        """Starting value (complex) of a named coupling: its two parameters."""
        value = complex(value)
        self.set_parameter(name + self.suffixes[0], value.real, fixed)
        self.set_parameter(name + self.suffixes[1], value.imag, fixed)

    # -- expansion ------------------------------------------------------------------------
    def _expanded_chains(self):
        """Chains with the permutations of identical particles, as (chain, topology, sign)."""
        perms = [list(range(len(self.final_state)))]
        signs = [1]
        for group in self.identical:
            new_p, new_s = [], []
            fermion = self.final_state[group[0]].two_spin % 2 == 1
            for p, s in zip(perms, signs):
                for order in itertools.permutations(group):
                    q = list(p)
                    for src, dst in zip(group, order):
                        q[src] = p[dst]
                    inversions = sum(1 for i in range(len(order)) for j in range(i + 1, len(order))
                                     if order[i] > order[j])
                    new_p.append(q)
                    new_s.append(s * (-1 if fermion and inversions % 2 else 1))
            perms, signs = new_p, new_s
        out = []
        for chain in self.chains:
            for p, s in zip(perms, signs):
                topo = _relabel(chain["topology"], p)
                mapping = dict(zip(_preorder(chain["topology"]), _preorder(topo)))
                out.append(({**chain, "topology": topo,
                             "isobars": {mapping[k]: v for k, v in chain["isobars"].items()},
                             "vertices": {mapping[k]: v for k, v in chain["vertices"].items()}},
                            topo, s))
        return out

    def _alignments(self, topologies):
        """{topology index: [final-state indices]} of the spinning final-state
        particles whose helicity frame in a topology differs from the one in the
        reference topology (the first): their Wigner rotations."""
        def path(t, i):
            out = []
            while not isinstance(t, int):
                out.append(tuple(sorted(_leaf_set(t))))
                t = t[0] if i in _leaf_set(t[0]) else t[1]
            return tuple(out)
        out = {}
        for i, p in enumerate(self.final_state):
            if p.two_spin == 0:
                continue
            ref = path(topologies[0], i)
            differ = [k for k, t in enumerate(topologies) if path(t, i) != ref]
            if not differ:
                continue
            if p.massless or (isinstance(p.mass, (int, float)) and p.mass <= 0):
                raise NotImplementedError(
                    f"cascade {self.name!r}: the massless final-state particle {p.name!r} (spin "
                    f"{p.two_spin}/2) has different helicity frames in the topologies "
                    f"{[self._describe(t) for t in topologies]}; vecampfit.cascades aligns them "
                    "by Wigner rotations between rest frames, which a massless particle does not "
                    "have: use one topology, or the Dalitz-plot decomposition (vecampfit.dpd) "
                    "for a three-body decay")
            for k in differ:
                out.setdefault(k, []).append(i)
        return out

    def _describe(self, t):
        if isinstance(t, int):
            return self.names[t]
        return f"({self._describe(t[0])} {self._describe(t[1])})"

    def _variables(self, topo):
        k = self.topologies.index(topo)
        out = {}
        for j, node in enumerate(_preorder(topo)):
            out[node] = (event(f"t{k}_{j}_cos"), event(f"t{k}_{j}_phi"))
        return out

    @staticmethod
    def _mass_variable(node):
        return event("s_" + "_".join(str(i) for i in sorted(_leaf_set(node))))

    @staticmethod
    def mass_variable(node):
        """The event variable (Expr) of the squared invariant mass (GeV^2) of a node
        (nested pairs of final-state indices), as :meth:`event_variables` names it."""
        return CascadeModel._mass_variable(node)

    def event_variables(self):
        """The event variables with a description each (dict name -> str)."""
        self._prepare()
        out = {}
        for k, indices in sorted(self.alignments.items()):
            for i in indices:
                what = (f"of the Wigner rotation of {self.names[i]} from its helicity frame in "
                        f"topology {self._describe(self.topologies[k])} to that in "
                        f"{self._describe(self.topologies[0])}")
                out[f"w{k}_{i}_alpha"] = f"Euler angle alpha (rad) {what}"
                out[f"w{k}_{i}_cosbeta"] = f"cos(beta) {what}"
                out[f"w{k}_{i}_gamma"] = f"Euler angle gamma (rad) {what}"
        for k, topo in enumerate(self.topologies):
            for j, node in enumerate(_preorder(topo)):
                first = self._describe(node[0])
                what = f"the {self._describe(node)} frame of topology {self._describe(topo)}"
                out[f"t{k}_{j}_cos"] = f"cos(theta) of {first} in {what}"
                out[f"t{k}_{j}_phi"] = f"phi (rad) of {first} in {what}"
                for child in node:
                    if not isinstance(child, int):
                        out[self._mass_variable(child).data] = (
                            f"squared invariant mass (GeV^2) of {self._describe(child)}")
        return out

    def _prepare(self):
        if not self.chains:
            raise ValueError(f"cascade {self.name!r} has no chains")
        expanded = self._expanded_chains()
        self.topologies = [] if self.reference_topology is None else [self.reference_topology]
        for _, topo, _ in expanded:
            if topo not in self.topologies:
                self.topologies.append(topo)
        self.alignments = self._alignments(self.topologies)
        return expanded

    def _d_function(self, variables, node, two_m, two_lam, two_j, cache):
        key = (node, two_m, two_lam, two_j)
        if key not in cache:
            cos_t, phi = variables[node]
            d = wigner_small_d_cos(Fraction(two_j, 2), Fraction(two_m, 2), Fraction(two_lam, 2),
                                   cos_t)
            if two_m == 0:
                cache[key] = ComplexExpr(d)
            else:
                angle = mul(two_m / 2, phi)
                cache[key] = ComplexExpr(cos(angle), sin(angle)) * d
        return cache[key]

    def _align(self, amp, k, i, cache):
        r"""Turn particle i's helicity from topology k's frame to the reference's:
        :math:`A_{\lambda'} = \sum_\lambda D^s_{\lambda'\lambda}(\alpha, \beta, \gamma) A_\lambda`."""
        p = self.final_state[i]
        alpha, cos_beta, gamma = (event(f"w{k}_{i}_{x}") for x in ("alpha", "cosbeta", "gamma"))
        out = {}
        for (ckeys, hels), expr in amp.items():
            two_l = dict(hels)[i]
            for two_r in p.helicities():
                key = ("wigner", k, i, two_r, two_l)
                if key not in cache:
                    d = wigner_small_d_cos(Fraction(p.two_spin, 2), Fraction(two_r, 2),
                                           Fraction(two_l, 2), cos_beta)
                    angle = mul(-0.5, add(mul(two_r, alpha), mul(two_l, gamma)))
                    cache[key] = ComplexExpr(cos(angle), sin(angle)) * d
                x = cache[key] if expr is None else expr * cache[key]
                new = (ckeys, tuple((j, two_r if j == i else h) for j, h in hels))
                out[new] = x if new not in out else out[new] + x
        return out

    def _particle(self, chain, node):
        if isinstance(node, int):
            return self.final_state[node]
        return chain["isobars"].get(node, self.initial)

    def _amplitude(self, chain, node, two_m, variables, couplings, cache):
        """{(coupling keys, ((index, two_lambda), ...)): ComplexExpr} of a subtree."""
        if isinstance(node, int):
            return {((), ((node, two_m),)): None}
        particle = self._particle(chain, node)
        a, b = (self._particle(chain, c) for c in node)
        where = (f"cascade {self.name!r}, chain {chain['name']!r}, vertex "
                 f"{particle.name} -> {a.name} {b.name}")
        terms = chain["vertices"][node].terms(particle, a, b, self.suffixes, where)
        sub_a = {la: self._amplitude(chain, node[0], la, variables, couplings, cache)
                 for la in a.helicities()}
        sub_b = {lb: self._amplitude(chain, node[1], lb, variables, couplings, cache)
                 for lb in b.helicities()}
        out = {}
        for la in a.helicities():
            for lb in b.helicities():
                if abs(la - lb) > particle.two_spin:
                    continue
                for key, coupling, h in terms:
                    weight = h(la, lb)
                    if weight == 0:
                        continue
                    if key is None:
                        weight, ckey = weight * coupling, ()
                    else:
                        couplings[key] = coupling
                        ckey = (key,)
                    d = self._d_function(variables, node, two_m, la - lb, particle.two_spin,
                                         cache) * weight
                    for (ka, ha), ea in sub_a[la].items():
                        for (kb, hb), eb in sub_b[lb].items():
                            x = d if ea is None else d * ea
                            x = x if eb is None else x * eb
                            k = (ckey + ka + kb, ha + hb)
                            out[k] = x if k not in out else out[k] + x
        if node != chain["topology"] and particle.lineshape is not None:
            shape = particle.lineshape(self._mass_variable(node), self._child_mass(node[0], a),
                                       self._child_mass(node[1], b))
            out = {k: v * shape for k, v in out.items()}
        return out

    def _child_mass(self, node, particle):
        if particle.mass is not None:
            return particle.mass
        if isinstance(node, int):
            return None
        return sqrt(self._mass_variable(node))

    # -- the amplitude model ------------------------------------------------------------------
    def channels(self):
        """The helicity channels: (2 M, 2 lambda_1, ..., 2 lambda_n)."""
        return [tuple(h) for h in itertools.product(self.initial.helicities(),
                                                    *(p.helicities() for p in self.final_state))]

    def amplitude_model(self):
        """The :class:`~vecampfit.amplitudes.AmplitudeModel` of the cascade.

        Returns
        -------
        AmplitudeModel
            One group without rotations; one component per channel and
            product of coupling parameters (named ``"<2M>,<2 lambda_f>...|<couplings>"``);
            the event variables of :meth:`event_variables`.
        """
        expanded = self._prepare()
        couplings = {}
        factors = {}
        order = []
        for chain, topo, sign in expanded:
            variables = self._variables(topo)
            cache = {}
            w = chain["factor"]
            if isinstance(w, (int, float, complex)) and not isinstance(w, bool):
                wkey, wnum = (), complex(w) * sign
            else:
                wkey, wnum = (("expr", ComplexExpr(w) if not isinstance(w, ComplexExpr) else w),), sign
                couplings[wkey[0]] = wkey[0][1]
            if wnum == 0:
                continue
            for two_m in self.initial.helicities():
                amp = self._amplitude(chain, topo, two_m, variables, couplings, cache)
                k = self.topologies.index(topo)
                for i in self.alignments.get(k, ()):
                    amp = self._align(amp, k, i, cache)
                for (ckeys, hels), expr in amp.items():
                    channel = (two_m,) + tuple(h for _, h in sorted(hels))
                    key = (channel, tuple(sorted(ckeys + wkey, key=repr)))
                    x = expr * (wnum.real if wnum.imag == 0 else wnum)
                    if key not in factors:
                        factors[key] = x
                        order.append(key)
                    else:
                        factors[key] = factors[key] + x
        model = AmplitudeModel(self.name, self.channels(), [], constants=self.constants,
                               events=tuple(self.event_variables()))
        model.add_group("cascade")
        names = {}
        for key in couplings:
            for part in couplings[key].parts():
                names.update((leaf.data, None) for leaf in leaves(part) if leaf.op == "par")
        for channel, ckeys in order:
            coupling = ComplexExpr(1.0)
            for k in ckeys:
                coupling = coupling * couplings[k]
            label = "*".join(k[1] if k[0] == "name" else repr(k[1]) for k in ckeys) or "1"
            cname = ",".join(str(h) for h in channel) + "|" + label
            model.add_component(cname, "cascade", coupling, factors[(channel, ckeys)],
                                {channel: 1.0})
            for part in coupling.parts() + factors[(channel, ckeys)].parts():
                names.update((leaf.data, None) for leaf in leaves(part) if leaf.op == "par")
        coupling_names = {k[1] + s for k in couplings if k[0] == "name" for s in self.suffixes}
        missing = sorted(n for n in names if n not in self._values and n not in coupling_names)
        if missing:
            raise ValueError(f"cascade {self.name!r}: no starting values for the parameters "
                             f"{missing} (set_parameter)")
        for n in names:
            if n in self._values:
                model.parameters[n] = self._values[n]
            else:
                model.parameters[n] = ModelParameter(n, 1.0 if n.endswith(self.suffixes[0])
                                                     else 0.0)
        if self.polarization is not None:
            model.set_density_matrix(0, self.polarization)
        model.check()
        return model

    # -- event variables -------------------------------------------------------------------------
    def event_records(self, momenta):
        """The event variables of the model from final-state four-momenta (numpy).

        Parameters
        ----------
        momenta : dict or sequence
            Four-momenta (n, 4) (px, py, pz, E; GeV) in the lab frame of the
            final-state particles, by name or in the order of the final
            state.

        Returns
        -------
        dict of numpy.ndarray
            Every variable of :meth:`event_variables`: ``t<k>_<j>_cos`` and
            ``t<k>_<j>_phi`` (radians) of the first child of decaying node
            ``j`` (pre-order) of topology ``k``, ``s_<i>_<j>...`` the
            squared invariant mass (GeV^2) of the final-state particles
            ``i, j, ...``, and where a particle ``i`` with spin needs a Wigner
            rotation in topology ``k``, its Euler angles ``w<k>_<i>_alpha``,
            ``w<k>_<i>_cosbeta`` (the cosine) and ``w<k>_<i>_gamma``
            (:func:`vecampfit.cascades.frames.wigner_rotation_angles`).
        """
        self._prepare()
        if isinstance(momenta, dict):
            missing = [n for n in self.names if n not in momenta]
            if missing:
                raise ValueError(f"cascade {self.name!r}: no four-momenta for {missing}")
            mom = {n: momenta[n] for n in self.names}
        else:
            momenta = list(momenta)
            if len(momenta) != len(self.names):
                raise ValueError(f"cascade {self.name!r}: {len(self.names)} four-momenta "
                                 f"expected, got {len(momenta)}")
            mom = dict(zip(self.names, momenta))
        labels = {n: f"#{i}" for i, n in enumerate(self.names)}
        mom = {labels[n]: np.asarray(p, dtype=np.float64) for n, p in mom.items()}
        out = {}
        for k, topo in enumerate(self.topologies):
            nodes = _preorder(topo)
            node_name = {node: f"#n{j}" for j, node in enumerate(nodes)}

            def tree(t):
                if isinstance(t, int):
                    return f"#{t}"
                return (node_name[t], tree(t[0]), tree(t[1]))
            masses, angles = kinematics.momenta_to_helicity(tree(topo), mom)
            for j, node in enumerate(nodes):
                out[f"t{k}_{j}_cos"], out[f"t{k}_{j}_phi"] = angles[node_name[node]]
                if j:
                    out[self._mass_variable(node).data] = masses[node_name[node]] ** 2
        if self.alignments:
            ordered = [mom[f"#{i}"] for i in range(len(self.names))]
            reference = leaf_frames(self.topologies[0], ordered)
            for k, indices in self.alignments.items():
                frames = leaf_frames(self.topologies[k], ordered)
                for i in indices:
                    (out[f"w{k}_{i}_alpha"], out[f"w{k}_{i}_cosbeta"],
                     out[f"w{k}_{i}_gamma"]) = wigner_rotation_angles(frames[i], reference[i])
        return out

