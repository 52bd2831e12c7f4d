r"""Writing cascades declared in Python (:mod:`vecampfit.cascades`) in the exchange format.

A :class:`~vecampfit.cascades.CascadeModel` keeps its particles, topologies,
vertices and couplings, but an isobar's lineshape is a Python function of
the squared mass: the format's function of each isobar (and optionally the
form factor of its decay vertex) is given when writing, and the writer
checks on phase-space events that the two agree up to a constant factor,
which it moves into the chain weights.  Vertices with several LS waves or
helicity pairs are expanded into one chain of the file per product of
couplings; groups of identical particles into one chain per permutation.
Reading the file (:func:`~vecampfit.model_format.read_model`) gives the
same intensity.
"""

import itertools
import json

import numpy as np

from . import reader as _reader
from .cascade_reader import _PHASES, _nodes, topology_to_json
from ..atomic_files import atomic_write_text
from ..cascades import CascadeModel, Helicity, LS, VirtualPhoton
from ..expressions.evaluate import evaluate
from ..expressions.nodes import ComplexExpr, Expr, as_complex, sqrt
from ..expressions.physics import breakup_momentum_squared
from .writer import format_complex

__all__ = ["cascade_model_dict", "write_cascade"]


def _spin(two):
    return str(two // 2) if two % 2 == 0 else f"{two}/2"


def _leaf_label(t):
    return "".join(str(i) for i in sorted(_reader_leaves(t)))


def _reader_leaves(t):
    return (t + 1,) if isinstance(t, int) else _reader_leaves(t[0]) + _reader_leaves(t[1])


def _value(coupling, values, suffixes):
    """A coupling or chain factor as a complex number at the parameter values."""
    if isinstance(coupling, str):
        return complex(values.get(coupling + suffixes[0], 1.0), values.get(coupling + suffixes[1], 0.0))
    if isinstance(coupling, (Expr, ComplexExpr)):
        return complex(evaluate(as_complex(coupling), values))
    return complex(coupling)


def _vertex_terms(vertex, node, values, suffixes):
    """[(label, vertex JSON without node, coupling value)] of a cascade vertex."""
    out = []
    if isinstance(vertex, LS):
        for (two_l, two_s), c in vertex.waves.items():
            out.append((f"L{two_l // 2}S{_spin(two_s).replace('/', '_')}",
                        {"type": "ls", "l": two_l // 2, "s": _spin(two_s)},
                        _value(c, values, suffixes)))
    elif isinstance(vertex, Helicity):
        for (la, lb), c in vertex.pairs.items():
            out.append((f"h{_spin(la)}_{_spin(lb)}".replace("/", "_").replace("-", "m"),
                        {"type": "helicity", "helicities": [_spin(la), _spin(lb)]},
                        _value(c, values, suffixes)))
    else:
        raise ValueError(f"vertex of the node {node}: {vertex!r} is not LS or Helicity")
    return out


class _Checker:
    """Ratios of the declared lineshapes to the format's functions on phase-space events."""

    def __init__(self, cascade, values, n_events, seed):
        from .. import generation
        masses = [p.mass for p in cascade.final_state]
        ps = generation.phase_space(cascade.initial.mass, masses, n_events, seed=seed)
        self.records = cascade.event_records([np.asarray(p, dtype=np.float64) for p in ps.momenta])
        self.values = dict(values)
        self.cascade = cascade
        self.cache = {}

    def ratio(self, chain, node, isobar, fn, ff):
        key = (id(isobar), node, fn.name, None if ff is None else ff.name)
        if key in self.cache:
            return self.cache[key]
        c = self.cascade
        s = CascadeModel.mass_variable(node)

        def declared_mass(child):
            particle = c.final_state[child] if isinstance(child, int) else chain["isobars"][child]
            if particle.mass is not None:
                return particle.mass
            return None if isinstance(child, int) else sqrt(CascadeModel.mass_variable(child))

        def event_mass(child):
            if isinstance(child, int):
                return c.final_state[child].mass
            return sqrt(CascadeModel.mass_variable(child))

        declared = (ComplexExpr(1.0) if isobar.lineshape is None else
                    isobar.lineshape(s, declared_mass(node[0]), declared_mass(node[1])))
        written = fn.lineshape(s)
        if ff is not None:
            written = written * ComplexExpr(ff.form_factor(
                breakup_momentum_squared(s, event_mass(node[0]), event_mass(node[1]))))
        values = dict(self.values)
        values.update(fn.parameters)
        values.update(self.records)
        a = np.asarray(evaluate(as_complex(declared), values))
        b = np.asarray(evaluate(written, values))
        ratio = a / b
        ok = np.isfinite(ratio) & (np.abs(b) > 0)
        if not np.any(ok) or np.max(np.abs(ratio[ok] / ratio[ok][0] - 1)) > 1e-9:
            raise ValueError(f"cascade {c.name!r}, chain {chain['name']!r}: the lineshape of the "
                             f"isobar {isobar.name!r} is not the format's function {fn.name!r}"
                             + ("" if ff is None else f" times the form factor {ff.name!r}")
                             + " up to a constant factor")
        self.cache[key] = complex(ratio[ok][0])
        return self.cache[key]


def cascade_model_dict(cascade, lineshapes, form_factors=None, parameters=None, name=None,
                       n_events=16, seed=1):
    """The exchange format's JSON content (dict) of a cascade declared in Python.

    Parameters
    ----------
    cascade : vecampfit.cascades.CascadeModel
        An unpolarized decay of a particle (not a virtual photon) with
        numeric masses; final-state particle ``i`` is written with index
        ``i + 1``.
    lineshapes : dict
        Isobar name -> the format's function (dict with ``name`` and
        ``type``, as in the file's ``functions``) whose value, times the form
        factor of ``form_factors``, equals the isobar's lineshape up to a
        constant factor (checked on phase-space events; the factor goes
        into the weights).
    form_factors : dict, optional
        Isobar name -> the format's form factor (``BlattWeisskopf``,
        ``MomentumPower``) of its decay vertex.
    parameters : dict, optional
        Parameter values (default: the cascade's starting values; a named
        coupling without one is 1).
    name : str, optional
        The distribution's name (default the cascade's).
    n_events : int
        Phase-space events of the lineshape check.
    seed : int

    Returns
    -------
    dict

    Raises
    ------
    ValueError
        For what the format cannot say: a virtual photon or a polarized
        initial state, a massless final-state particle with spin (the
        format's helicity sum takes all :math:`2j+1` projections), masses
        that are not numbers, an isobar without a function, or a function
        that is not the isobar's lineshape.
    """
    c = cascade
    form_factors = dict(form_factors or {})
    if isinstance(c.initial, VirtualPhoton) or c.polarization is not None:
        raise ValueError(f"cascade {c.name!r}: the format's unpolarized intensity sums over all "
                         "helicities of a decaying particle; a virtual photon or a polarization "
                         "cannot be written")
    for p in [c.initial] + c.final_state:
        if isinstance(p.mass, bool) or not isinstance(p.mass, (int, float)):
            raise ValueError(f"cascade {c.name!r}: the mass of {p.name!r} must be a number, "
                             f"got {p.mass!r}")
        if p.massless and p.two_spin:
            raise ValueError(f"cascade {c.name!r}: a massless particle with spin ({p.name!r}) "
                             "has helicities +-j only; the format's readers sum over 2j + 1")
    values = {n: p.value for n, p in c._values.items()}
    values.update(parameters or {})
    functions, ctx = {}, _reader._Context(f"<cascade {c.name!r}>")

    def function(spec, what):
        if not isinstance(spec, dict) or "name" not in spec:
            raise ValueError(f"cascade {c.name!r}: {what} must be a function dict with a name, "
                             f"got {spec!r}")
        if spec["name"] in functions and functions[spec["name"]][0] != spec:
            raise ValueError(f"cascade {c.name!r}: two different functions named {spec['name']!r}")
        fn = _reader._Function(ctx, spec, f"functions[{spec['name']!r}]")
        functions[spec["name"]] = (spec, fn)
        return fn

    expanded = c._prepare()
    checker = _Checker(c, values, n_events, seed)
    reference = c.reference_topology if c.reference_topology is not None else c.topologies[0]
    chains = []
    for chain, topo, sign in expanded:
        nodes = _nodes(topo)
        w = _value(chain["factor"], values, c.suffixes) * sign
        propagators, isobar_spins, constant = [], {}, 1.0 + 0j
        ffs = {}
        for node in nodes[1:]:
            iso = chain["isobars"][node]
            if iso.name not in lineshapes:
                raise ValueError(f"cascade {c.name!r}, chain {chain['name']!r}: no format "
                                 f"function for the isobar {iso.name!r} (lineshapes)")
            fn = function(lineshapes[iso.name], f"the function of {iso.name!r}")
            if fn.is_form_factor:
                raise ValueError(f"cascade {c.name!r}: the function of {iso.name!r} is a form "
                                 "factor, not a lineshape")
            ff = None
            if iso.name in form_factors:
                ff = function(form_factors[iso.name], f"the form factor of {iso.name!r}")
                if not ff.is_form_factor:
                    raise ValueError(f"cascade {c.name!r}: the form factor of {iso.name!r} is "
                                     "not BlattWeisskopf or MomentumPower")
                ffs[node] = ff.name
            constant *= checker.ratio(chain, node, iso, fn, ff) / (iso.two_spin + 1) ** 0.5
            isobar_spins[node] = iso.two_spin
            propagators.append({"spin": _spin(iso.two_spin), "node": topology_to_json(node),
                                "parametrization": fn.name})

        def spin_of(t):
            return c.final_state[t].two_spin if isinstance(t, int) else isobar_spins[t]
        phase = _PHASES[sum(spin_of(node[1]) for node in nodes) % 4]
        terms = [_vertex_terms(chain["vertices"][node], node, values, c.suffixes) for node in nodes]
        several = [len(t) > 1 for t in terms]
        for combination in itertools.product(*terms):
            weight = w * constant / phase
            vertices, labels = [], []
            for node, (label, vjson, value), many in zip(nodes, combination, several):
                weight *= value
                v = dict(vjson, node=topology_to_json(node))
                if node in ffs:
                    v["formfactor"] = ffs[node]
                vertices.append(v)
                if many:
                    labels.append(label)
            if weight == 0:
                continue
            chains.append({"name": "_".join([chain["name"]] + labels),
                           "topology": topology_to_json(topo), "propagators": propagators,
                           "vertices": vertices, "weight": format_complex(weight)})
    variables = [{"node": topology_to_json(node),
                  "mass_phi_costheta": [f"m_{_leaf_label(node)}", f"phi_{_leaf_label(node)}",
                                        f"cos_theta_{_leaf_label(node)}"]}
                 for node in _nodes(reference)]
    state = [{"index": 0, "name": c.initial.name, "spin": _spin(c.initial.two_spin),
              "mass": float(c.initial.mass)}]
    state += [{"index": i + 1, "name": p.name, "spin": _spin(p.two_spin), "mass": float(p.mass)}
              for i, p in enumerate(c.final_state)]
    return {
        "distributions": [{
            "name": name or c.name, "type": "HadronicUnpolarizedIntensity",
            "variables": variables,
            "decay_description": {
                "kinematics": {"initial_state": state[0], "final_state": state[1:]},
                "reference_topology": topology_to_json(reference),
                "chains": chains}}],
        "functions": [json.loads(json.dumps(spec)) for spec, _ in functions.values()],
        "domains": [],
        "parameter_points": [],
        "misc": {"amplitude_model_checksums": []},
    }


def write_cascade(cascade, path, lineshapes, form_factors=None, parameters=None, name=None):
    """Write a cascade declared in Python to a file of the exchange format
    (see :func:`cascade_model_dict`; UTF-8, indented)."""
    text = json.dumps(cascade_model_dict(cascade, lineshapes, form_factors, parameters, name),
                      indent=2, ensure_ascii=False)
    atomic_write_text(str(path), text + "\n")
