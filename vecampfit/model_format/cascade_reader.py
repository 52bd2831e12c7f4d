r"""Reading distributions of the exchange format that are not three-body decays.

A distribution whose final state has other than three particles (or any
distribution when :func:`~vecampfit.model_format.read_model` is called with
``three_body="cascade"``) is read into a
:class:`vecampfit.cascades.CascadeModel`: chains of two-body decays with
nested topologies such as ``[[[3, 1], 4], 2]``, one propagator per
intermediate node and one vertex per decaying node.

Conventions (where the format's description is silent):

* Final-state particle ``i`` of the file (index 1..n) is the cascade's
  final-state particle ``i - 1``; the file's names are kept, with ``_<i>``
  appended where a name occurs more than once.  Parities are not part of
  the format: the particles have none and LS vertices are not checked for
  parity conservation.
* A topology's node ``[a, b]`` is the decay into the first child ``a`` and
  the second child ``b``; the helicity angles of a node are those of its
  first child in the node's helicity frame, and the helicity frames are
  those of :mod:`vecampfit.cascades` (the initial state's rest frame with
  the lab axes; a child's frame reached from its parent's by the rotation
  :math:`R(\varphi, \theta, 0)` onto its direction and a boost along it,
  for the first and the second child alike).  The amplitude of a node
  :math:`X \to a\,b` is :math:`D^{J_X *}_{\lambda_X, \lambda_a -
  \lambda_b}(\varphi, \theta, 0)\, H_{\lambda_a \lambda_b}` with the
  description's recoupling :math:`H` (its normalization factors
  :math:`n_j` are 1).
* The helicities of final-state particles with spin are those of the
  ``reference_topology``: chains of other topologies are turned to it by
  Wigner rotations (massive particles of integer spin; other cases are
  rejected, naming the distribution).
* A massless final-state particle with spin is summed over all its
  :math:`2j + 1` projections, as for three-body distributions.
* Cascade vertices have no form factors of their own: the form factor of a
  vertex :math:`X \to a\,b`, a function of the squared breakup momentum
  :math:`q^2(m_X^2, m_a, m_b)` (masses of final-state particles from the
  kinematics, of the initial state from the kinematics, of isobars the
  event's invariant masses), is multiplied into the lineshape of
  :math:`X`; that of the top vertex into the lineshape of the first
  intermediate node of the chain (pre-order).
* Each chain's ``weight`` is the chain factor
  :math:`w = \mathrm{<chain>\_re} + i\,\mathrm{<chain>\_im}` and each vertex has
  the coupling 1.
"""

import json
from fractions import Fraction

import numpy as np

from . import reader as _reader
from ..cascades import CascadeModel, Helicity, Isobar, LS, Particle
from ..dpd.vertices import LSVertex, ParityVertex
from ..expressions.nodes import ComplexExpr, parameter, sqrt
from ..expressions.physics import breakup_momentum_squared
from ..expressions.spin import doubled_spin

__all__ = ["CascadeDistribution", "topology_from_json", "topology_to_json", "momenta_from_variables"]


def _is_index(x):
    return isinstance(x, int) and not isinstance(x, bool)


def topology_from_json(ctx, value, path, n_final):
    """A topology of the file (nested pairs of indices 1..n) as nested tuples of
    0-based indices; fails unless it is a binary tree partitioning the final state."""
    seen = []

    def visit(t, p):
        if _is_index(t):
            if not 1 <= t <= n_final:
                ctx.fail(path, f"{t} at {p} is not a final-state index 1..{n_final}")
            seen.append(t)
            return t - 1
        if not isinstance(t, list) or len(t) != 2:
            ctx.fail(path, f"expected a pair [a, b] of indices or pairs at {p}, got "
                     f"{json.dumps(t)} (only two-body decays are supported)")
        return (visit(t[0], p + "[0]"), visit(t[1], p + "[1]"))

    tree = visit(value, "")
    if _is_index(value):
        ctx.fail(path, f"a topology decays into at least two particles, got {json.dumps(value)}")
    if sorted(seen) != list(range(1, n_final + 1)):
        ctx.fail(path, f"topology {json.dumps(value)} is not a partition of the final state "
                 f"{', '.join(str(i) for i in range(1, n_final + 1))}")
    return tree


def topology_to_json(t):
    """Nested tuples of 0-based indices as the file's nested lists of indices 1..n."""
    return t + 1 if isinstance(t, int) else [topology_to_json(t[0]), topology_to_json(t[1])]


def _nodes(t):
    """Decaying nodes of a topology, pre-order."""
    if isinstance(t, int):
        return []
    return [t] + _nodes(t[0]) + _nodes(t[1])


def _leaves(t):
    return (t,) if isinstance(t, int) else _leaves(t[0]) + _leaves(t[1])


def _node_in(ctx, value, path, topology, n_final):
    """A node of a vertex or propagator: must be a decaying node of the topology."""
    def convert(t):
        if _is_index(t):
            return t - 1
        if isinstance(t, list) and len(t) == 2:
            a, b = convert(t[0]), convert(t[1])
            return None if a is None or b is None else (a, b)
        return None
    node = convert(value)
    if node is None or node not in _nodes(topology):
        ctx.fail(path, f"{json.dumps(value)} is not a node of the topology "
                 f"{json.dumps(topology_to_json(topology))}")
    return node


def _fmt(two):
    return str(two // 2) if two % 2 == 0 else f"{two}/2"


class _Kinematics:
    def __init__(self, ctx, kin, path):
        ini = ctx.get(kin, "initial_state", path, dict)
        fin = ctx.get(kin, "final_state", path, list)
        if len(fin) < 2:
            ctx.fail(f"{path}.final_state", f"at least two final-state particles, got {len(fin)}")
        n = len(fin)
        self.n = n
        self.masses, self.spins, self.names = [None] * (n + 1), [None] * (n + 1), [None] * (n + 1)
        for k, st in enumerate([ini] + fin):
            p = f"{path}.initial_state" if k == 0 else f"{path}.final_state[{k - 1}]"
            idx = ctx.get(st, "index", p, int)
            if (k == 0) != (idx == 0) or not 0 <= idx <= n or self.masses[idx] is not None:
                ctx.fail(f"{p}.index", f"indices are 0 (initial state) and 1..{n} each once, "
                         f"got {idx}")
            m = ctx.get(st, "mass", p)
            if isinstance(m, bool) or not isinstance(m, (int, float)):
                ctx.fail(f"{p}.mass", f"expected a number (GeV), got {json.dumps(m)}")
            self.masses[idx] = float(m)
            self.spins[idx] = ctx.spin(st, "spin", p)
            self.names[idx] = ctx.get(st, "name", p, str)
        counts = {x: self.names[1:].count(x) for x in self.names[1:]}
        self.labels = [self.names[0]] + [x if counts[x] == 1 and x != self.names[0] else f"{x}_{i}"
                                         for i, x in enumerate(self.names[1:], 1)]

    def particles(self):
        initial = Particle(self.labels[0], Fraction(self.spins[0], 2), None, self.masses[0])
        final = [Particle(self.labels[i], Fraction(self.spins[i], 2), None, self.masses[i])
                 for i in range(1, self.n + 1)]
        return initial, final


def _vertex(ctx, v, path, two_j, two_ja, two_jb):
    """The cascade vertex of a vertex entry, checked against the spins."""
    vertex = _reader._read_vertex(ctx, v, path)
    _reader._check_vertex(ctx, vertex, path, two_j, (two_ja, two_jb))
    if isinstance(vertex, LSVertex):
        return LS({(vertex.two_l // 2, Fraction(vertex.two_s, 2)): 1.0}, parity_conserving=False)
    la, lb = vertex.two_lambda_a, vertex.two_lambda_b
    if abs(la - lb) > two_j:
        ctx.fail(f"{path}.helicities", f"|{_fmt(la)} - ({_fmt(lb)})| exceeds the spin "
                 f"{_fmt(two_j)} of the decaying particle")
    pairs = {(Fraction(la, 2), Fraction(lb, 2)): 1.0}
    if isinstance(vertex, ParityVertex) and (la, lb) != (0, 0):
        pairs[(Fraction(-la, 2), Fraction(-lb, 2))] = float(vertex.parity_factor)
    return Helicity(pairs)


#: exp(i pi s) for 2 s mod 4 = 0, 1, 2, 3.
_PHASES = (1.0, 1j, -1.0, -1j)


def _shape(lineshape, extra, const):
    """An isobar lineshape: the file's function of s times form factors (real Exprs)
    and a constant."""
    def f(s, m_a, m_b):
        out = lineshape(s)
        for x in extra:
            out = out * ComplexExpr(x)
        if const != 1:
            out = out * ComplexExpr(complex(const).real, complex(const).imag)
        return out
    return f


def read_cascade_distribution(ctx, dist, path, functions, name, kin_json, dp):
    """A distribution read into a :class:`CascadeDistribution` (see the module description)."""
    dd = dist["decay_description"]
    kin = _Kinematics(ctx, kin_json, f"{dp}.kinematics")
    n = kin.n
    reference = topology_from_json(ctx, ctx.get(dd, "reference_topology", dp),
                                   f"{dp}.reference_topology", n)
    initial, final = kin.particles()
    cascade = CascadeModel(name, initial, final, suffixes=("_re", "_im"),
                           reference_topology=reference)

    def mass_of(node):
        """Mass (Expr or float) of a node: final-state masses, the event's invariant mass else."""
        if isinstance(node, int):
            return kin.masses[node + 1]
        if node == top:
            return kin.masses[0]
        return sqrt(CascadeModel.mass_variable(node))

    def spin_of(node, isobar_spins):
        if isinstance(node, int):
            return kin.spins[node + 1]
        return kin.spins[0] if node == top else isobar_spins[node]

    params, labels, shapes, used = {}, [], {}, set()
    for c, ch in enumerate(ctx.get(dd, "chains", dp, list)):
        cp = f"{dp}.chains[{c}]"
        chain_name = ctx.get(ch, "name", cp, str)
        top = topology_from_json(ctx, ctx.get(ch, "topology", cp), f"{cp}.topology", n)
        nodes = _nodes(top)
        try:
            weight = _reader.parse_complex(ctx.get(ch, "weight", cp))
        except ValueError as e:
            ctx.fail(f"{cp}.weight", str(e))
        # propagators: one per intermediate node
        props = {}
        for k, pr in enumerate(ctx.get(ch, "propagators", cp, list)):
            pp = f"{cp}.propagators[{k}]"
            node = _node_in(ctx, ctx.get(pr, "node", pp), f"{pp}.node", top, n)
            if node == top:
                ctx.fail(f"{pp}.node", "the top node is the initial state, it has no propagator")
            if node in props:
                ctx.fail(f"{pp}.node", f"a second propagator for the node "
                         f"{json.dumps(topology_to_json(node))}")
            fname = ctx.get(pr, "parametrization", pp, str)
            if fname not in functions:
                ctx.fail(f"{pp}.parametrization", f"no function named {fname!r} in functions")
            if functions[fname].is_form_factor:
                ctx.fail(f"{pp}.parametrization", f"{fname!r} is a form factor, not a lineshape")
            props[node] = (ctx.spin(pr, "spin", pp), functions[fname], pp)
        for node in nodes[1:]:
            if node not in props:
                ctx.fail(f"{cp}.propagators", f"no propagator for the node "
                         f"{json.dumps(topology_to_json(node))}")
        isobar_spins = {node: v[0] for node, v in props.items()}
        # vertices: one per decaying node
        vertices, extra = {}, {node: [] for node in nodes[1:]}
        for k, v in enumerate(ctx.get(ch, "vertices", cp, list)):
            vp = f"{cp}.vertices[{k}]"
            node = _node_in(ctx, ctx.get(v, "node", vp), f"{vp}.node", top, n)
            if node in vertices:
                ctx.fail(f"{vp}.node", f"a second vertex for the node "
                         f"{json.dumps(topology_to_json(node))}")
            vertices[node] = _vertex(ctx, v, vp, spin_of(node, isobar_spins),
                                     spin_of(node[0], isobar_spins),
                                     spin_of(node[1], isobar_spins))
            ff_name = v.get("formfactor", "")
            if ff_name:
                if not isinstance(ff_name, str) or ff_name not in functions:
                    ctx.fail(f"{vp}.formfactor", f"no function named {ff_name!r} in functions")
                if not functions[ff_name].is_form_factor:
                    ctx.fail(f"{vp}.formfactor", f"{ff_name!r} is not a form factor")
                s_x = kin.masses[0] ** 2 if node == top else CascadeModel.mass_variable(node)
                q2 = breakup_momentum_squared(s_x, mass_of(node[0]), mass_of(node[1]))
                extra[node if node != top else nodes[1]].append(
                    functions[ff_name].form_factor(q2))
        for node in nodes:
            if node not in vertices:
                ctx.fail(f"{cp}.vertices", f"no vertex for the node "
                         f"{json.dumps(topology_to_json(node))}")
        # The conventions of the three-body distributions: sqrt(2j + 1) per isobar, and
        # the phase of the second particle of each two-body decay, exp(i pi s_b) per
        # vertex with respect to the frames of vecampfit.cascades.
        phase = sum(spin_of(node[1], isobar_spins) for node in nodes) % 4
        isobars = {}
        for n_node, node in enumerate(nodes[1:]):
            two_j, fn, pp = props[node]
            const = float(two_j + 1) ** 0.5 * (_PHASES[phase] if n_node == 0 else 1.0)
            isobars[node] = Isobar(fn.name, Fraction(two_j, 2), None,
                                   _shape(fn.lineshape, extra[node], const))
            for pname, value in fn.parameters.items():
                shapes[pname] = value
        label = _reader._unique_label(chain_name, used)
        labels.append(label)
        params[f"{label}_re"], params[f"{label}_im"] = weight.real, weight.imag
        w = ComplexExpr(parameter(f"{label}_re"), parameter(f"{label}_im"))
        try:
            cascade.add_chain(top, isobars, vertices, factor=w, name=chain_name)
        except (ValueError, TypeError) as e:
            ctx.fail(cp, str(e))
    _reader._add_shape_parameters(ctx, params, shapes, dp)
    for pname, value in params.items():
        cascade.set_parameter(pname, value)
    variables = _reader._read_variables(ctx, dist, path)
    try:
        model = cascade.amplitude_model()
    except (NotImplementedError, ValueError) as e:
        ctx.fail(f"{dp}.chains", str(e))
    return CascadeDistribution(name, cascade, model, reference, variables, params, labels, shapes)


def _frame_to_parent(p_child):
    """(n, 4, 4): components in the child's helicity frame -> the parent's frame, for the
    child's momentum ``p_child`` (n, 4) in the parent's frame."""
    n = len(p_child)
    z = p_child[:, :3] / np.linalg.norm(p_child[:, :3], axis=1, keepdims=True)
    y = np.cross(np.array([0.0, 0.0, 1.0]), z)
    norm = np.linalg.norm(y, axis=1, keepdims=True)
    y = np.where(norm > 1e-15, y / np.where(norm > 0, norm, 1), np.array([0.0, 1.0, 0.0]))
    x = np.cross(y, z)
    rot = np.zeros((n, 4, 4))
    rot[:, :3, 0], rot[:, :3, 1], rot[:, :3, 2] = x, y, z
    rot[:, 3, 3] = 1.0
    m = np.sqrt(np.maximum(p_child[:, 3] ** 2 - np.sum(p_child[:, :3] ** 2, axis=1), 0.0))
    g = p_child[:, 3] / m
    bg = np.linalg.norm(p_child[:, :3], axis=1) / m
    boost = np.zeros((n, 4, 4))
    boost[:, 0, 0] = boost[:, 1, 1] = 1.0
    boost[:, 2, 2] = boost[:, 3, 3] = g
    boost[:, 2, 3] = boost[:, 3, 2] = bg
    return rot @ boost


def momenta_from_variables(topology, final_masses, parent_mass, node_values):
    """Lab four-momenta (px, py, pz, E) from the helicity variables of a topology.

    Parameters
    ----------
    topology : nested tuples of int
        0-based indices.
    final_masses : sequence of float
        Masses of the final-state particles (GeV).
    parent_mass : float
        Mass of the initial state (GeV), at rest in the lab.
    node_values : dict
        Decaying node -> (mass, phi, cos_theta) arrays: the node's invariant
        mass (ignored for the top node) and the angles of its first child
        in its helicity frame.

    Returns
    -------
    list of numpy.ndarray
        (n, 4) per final-state particle, in index order.
    """
    out = {}

    def mass(node):
        if isinstance(node, int):
            return np.asarray(final_masses[node], dtype=np.float64)
        return np.asarray(parent_mass if node == topology else node_values[node][0], dtype=np.float64)

    def visit(node, to_lab):
        m_x = mass(node)
        m_a, m_b = mass(node[0]), mass(node[1])
        _, phi, cos_t = (np.asarray(v, dtype=np.float64) for v in node_values[node])
        q = np.sqrt(np.maximum((m_x ** 2 - (m_a + m_b) ** 2) * (m_x ** 2 - (m_a - m_b) ** 2), 0.0)
                    ) / (2 * m_x)
        sin_t = np.sqrt(np.maximum(1 - cos_t ** 2, 0.0))
        direction = np.stack([sin_t * np.cos(phi), sin_t * np.sin(phi), cos_t], axis=-1)
        direction = np.atleast_2d(direction)
        q = np.broadcast_to(q, direction.shape[:1])
        for child, sign, m_c in ((node[0], 1.0, m_a), (node[1], -1.0, m_b)):
            p = np.zeros((len(direction), 4))
            p[:, :3] = sign * q[:, None] * direction
            p[:, 3] = np.sqrt(q ** 2 + m_c ** 2)
            if isinstance(child, int):
                out[child] = np.einsum("nij,nj->ni", to_lab, p)
            else:
                visit(child, to_lab @ _frame_to_parent(p))

    n = len(np.atleast_1d(node_values[topology][1]))
    visit(topology, np.broadcast_to(np.eye(4), (n, 4, 4)).copy())
    return [out[i] for i in range(len(final_masses))]


class CascadeDistribution:
    """One distribution of a model file read as a cascade of two-body decays.

    Attributes
    ----------
    name : str
    cascade : vecampfit.cascades.CascadeModel
        The declared cascade (final-state particle ``i - 1`` is the file's ``i``).
    model : vecampfit.amplitudes.AmplitudeModel
        Its amplitude model with the file's values as starting values.
    reference : nested tuples of int
        The reference topology (0-based indices).
    variables : dict
        Node (as JSON text) -> (mass, phi, cos_theta) names.
    parameters : dict
        Parameter name -> the file's value: the chain weights
        ``<chain>_re``, ``<chain>_im`` and the lineshapes' parameters.
    weight_names : list of str
        Per chain, in the file's order, the label of its weight.
    shape_parameters : dict
        The lineshapes' parameters among ``parameters``.
    """

    def __init__(self, name, cascade, model, reference, variables, parameters, weight_names,
                 shape_parameters):
        self.name, self.cascade, self.model, self.reference = name, cascade, model, reference
        self.variables, self.parameters = variables, parameters
        self.weight_names = list(weight_names)
        self.shape_parameters = dict(shape_parameters)

    def fit_parameters(self, free=None):
        """The parameters as :class:`~vecampfit.amplitudes.ModelParameter`, as
        :meth:`vecampfit.model_format.Distribution.fit_parameters` (default: every
        chain weight free except the first chain's, the lineshapes fixed)."""
        return _reader._fit_parameters(self, free)

    def amplitude_model(self, free=None):
        """The compilable :class:`~vecampfit.amplitudes.AmplitudeModel` with the fit
        options of :meth:`fit_parameters` (a new model each call)."""
        model = self.cascade.amplitude_model()
        for p in self.fit_parameters(free):
            model.parameters[p.name] = p
        return model

    def event_records(self, momenta):
        """Event variables from lab four-momenta, in the order of the file's indices 1..n
        (:meth:`vecampfit.cascades.CascadeModel.event_records`)."""
        return self.cascade.event_records(momenta)

    def intensity(self, momenta, parameters=None):
        """The unpolarized intensity (numpy) at lab four-momenta (file order), with the
        file's values except ``parameters``."""
        return self.model.intensity(self.event_records(momenta), parameters)

    def momenta_at(self, point):
        """Lab four-momenta at a point given in the distribution's variables: for every
        decaying node of the reference topology its mass and the angles of its first
        child (the top node's mass is the initial state's)."""
        values = {}
        for node in _nodes(self.reference):
            key = json.dumps(topology_to_json(node))
            if key not in self.variables:
                raise ValueError(f"distribution {self.name!r}: no variables for the node {key}")
            names = self.variables[key]
            missing = [x for x in names[1:] + ((names[0],) if node != self.reference else ())
                       if x not in point]
            if missing:
                raise ValueError(f"distribution {self.name!r}: the point has no value for {missing}")
            values[node] = (point.get(names[0]), point[names[1]], point[names[2]])
        masses = [p.mass for p in self.cascade.final_state]
        return momenta_from_variables(self.reference, masses, self.cascade.initial.mass, values)

    def value(self, point, parameters=None):
        """The unpolarized intensity at a point (dict of variable values)."""
        return float(self.intensity(self.momenta_at(point), parameters)[0])
