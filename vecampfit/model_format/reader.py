"""Reading amplitude models in the community's JSON exchange format.

A model file (the "amplitude model serialization" format) holds

* ``distributions``: each a decay (``decay_description``: ``kinematics``,
  ``reference_topology``, ``chains``) and its observable
  (``HadronicUnpolarizedIntensity``) with the names of its variables;
* ``functions``: lineshapes of :math:`\\sigma` (``BreitWigner``,
  ``MultichannelBreitWigner``, ``Polynomial``, ``generic_function`` -- a
  formula string) and vertex form factors of the breakup momentum
  (``BlattWeisskopf``, ``MomentumPower``), referred to by name;
* ``parameter_points`` and ``misc.amplitude_model_checksums``: values
  the model takes at given points.

:func:`read_model` turns a file into a :class:`ModelFile`, whose
distributions are :class:`~vecampfit.dpd.ThreeBodyDecay` models built on
:mod:`vecampfit.expressions`; the chain weights become fit parameters
``<chain>_re``, ``<chain>_im`` with the file's values.  A malformed or
unsupported file raises :class:`ModelFormatError` naming the file and the
JSON path of the offending entry.

Where the format's description is silent, the values recorded in the
published files decide:

* the parent's helicity is aligned to chain 1 (the pair (23)) whatever the
  reference topology; the daughters' helicities are those of the reference
  topology.  For a half-integer parent the relative sign of the chains in
  the other pairs depends on this choice (the parent's rotations around the
  three pairs add up to :math:`2\\pi`): aligned to the reference topology's
  chain, the intensity of the published :math:`\\Lambda_c^+` chains is the
  helicity formalism's in explicit Lorentz transformations (see the tests),
  aligned to chain 1 it is what the published values need, with which the
  published weights were obtained;
* a ``parity`` vertex whose selected helicities are their own partners
  (both zero) has the factor 1 (:class:`~vecampfit.dpd.ParityVertex`);
* the helicity sum takes all :math:`2j+1` projections of a massless
  daughter (``massless_transverse=False`` of
  :class:`~vecampfit.dpd.ThreeBodyDecay`);
* a lineshape is a function of the :math:`\\sigma_k` of the chain that uses
  it, whatever variable name (``x``, or the free name of a formula) the
  file gives it; a formula may write the imaginary unit ``i`` or ``1im``.
"""

import json
import os
import re

from ..expressions.evaluate import evaluate
from ..expressions.nodes import ComplexExpr, event, parameter
from ..expressions.parser import FormulaError, parse
from ..expressions.passes import substitute
from ..expressions.spin import doubled_spin
from ..dpd import kinematics
from ..expressions.physics import (blatt_weisskopf_unnormalized, breit_wigner_format, momentum_power,
                              multichannel_breit_wigner, polynomial)
from ..dpd.model import DecayChain, ThreeBodyDecay
from ..dpd.vertices import HelicityVertex, LSVertex, ParityVertex

__all__ = ["ModelFormatError", "ModelFile", "Distribution", "read_model", "parse_complex",
           "LINESHAPE_TYPES", "FORM_FACTOR_TYPES"]

#: Function types that are lineshapes of sigma.
LINESHAPE_TYPES = ("BreitWigner", "MultichannelBreitWigner", "Polynomial", "generic_function")
#: Function types that are vertex form factors of the breakup momentum.
FORM_FACTOR_TYPES = ("BlattWeisskopf", "MomentumPower")

_REAL = r"[0-9.]+(?:[eE][-+]?\d+)?"
_COMPLEX = re.compile(rf"^\s*([-+]?{_REAL})\s*(?:([-+])\s*({_REAL})\s*i)?\s*$")


class ModelFormatError(ValueError):
    """A model file that cannot be read: names the file and the JSON path of the entry."""


def parse_complex(value):
    """A complex number of the format: a JSON number or a string ``"a + bi"``, ``"a - bi"``.

    Returns
    -------
    complex

    Raises
    ------
    ValueError
        If the value does not parse.
    """
    if isinstance(value, bool):
        raise ValueError(f"{value!r} is not a complex number")
    if isinstance(value, (int, float)):
        return complex(value)
    if not isinstance(value, str):
        raise ValueError(f"{value!r} is not a complex number")
    m = _COMPLEX.match(value)
    if not m:
        raise ValueError(f"{value!r} is not a complex number of the form 'a + bi'")
    try:
        re_part = float(m.group(1))
        im_part = 0.0 if m.group(2) is None else float(m.group(3)) * (-1 if m.group(2) == "-" else 1)
    except ValueError:
        raise ValueError(f"{value!r} is not a complex number of the form 'a + bi'") from None
    return complex(re_part, im_part)


class _Context:
    """Access to a JSON tree that reports errors with the file and the path."""

    def __init__(self, source):
        self.source = source

    def fail(self, path, message):
        raise ModelFormatError(f"{self.source}: {path}: {message}")

    def get(self, obj, key, path, kind=None):
        if not isinstance(obj, dict):
            self.fail(path, f"expected an object, got {type(obj).__name__}")
        if key not in obj:
            self.fail(f"{path}.{key}" if path else key, "missing field")
        value = obj[key]
        where = f"{path}.{key}" if path else key
        if kind is not None and not isinstance(value, kind):
            names = kind.__name__ if isinstance(kind, type) else "/".join(k.__name__ for k in kind)
            self.fail(where, f"expected {names}, got {type(value).__name__}")
        return value

    def number(self, obj, key, path):
        v = self.get(obj, key, path)
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            self.fail(f"{path}.{key}", f"expected a number, got {v!r}")
        return float(v)

    def spin(self, obj, key, path, allow_negative=False):
        v = self.get(obj, key, path)
        try:
            return doubled_spin(v, key, allow_negative=allow_negative)
        except ValueError as e:
            self.fail(f"{path}.{key}", str(e))

    def integer(self, obj, key, path):
        v = self.get(obj, key, path)
        try:
            two = doubled_spin(v, key, allow_negative=False)
        except ValueError as e:
            self.fail(f"{path}.{key}", str(e))
        if two % 2:
            self.fail(f"{path}.{key}", f"expected an integer, got {v!r}")
        return two // 2


def _parse_formula(ctx, text, path):
    """A ``generic_function`` formula: one free name is the variable."""
    names = set()

    def unknown(name):
        names.add(name)
        return event(name)

    # Julia's imaginary literal 2im -> 2*i (same length, so that the parser's
    # columns are those of the file's text).
    formula = re.sub(r"(?<![A-Za-z_0-9.])(\d+(?:\.\d*)?)im\b", lambda m: m.group(1) + "*i", text)
    try:
        expr = parse(formula, unknown=unknown)
    except FormulaError as e:
        ctx.fail(path, str(e).replace(repr(formula), repr(text)))
    if len(names) > 1:
        ctx.fail(path, f"formula {text!r} has more than one free variable: {sorted(names)}")
    free = names.pop() if names else None
    return expr, free


class _Function:
    """A function of the file: its type, its dict and the expression it gives."""

    def __init__(self, ctx, spec, path):
        self.spec = spec
        self.path = path
        self.name = ctx.get(spec, "name", path, str)
        self.type = ctx.get(spec, "type", path, str)
        t = self.type
        if t not in LINESHAPE_TYPES + FORM_FACTOR_TYPES:
            ctx.fail(f"{path}.type", f"unknown function type {t!r} (known: "
                     f"{', '.join(LINESHAPE_TYPES + FORM_FACTOR_TYPES)})")
        self.is_form_factor = t in FORM_FACTOR_TYPES
        self.variable = None
        #: The function's fit parameters (name -> the file's value): the mass
        #: and width of a Breit-Wigner, the mass and couplings g^2 of a
        #: multichannel one, named ``<function>_mass``, ``<function>_width``,
        #: ``<function>_gsq<n>``.
        self.parameters = {}
        base = _safe(self.name)
        if t == "BreitWigner":
            self.args = dict(mass=self._parameter(f"{base}_mass", ctx.number(spec, "mass", path)),
                             width=self._parameter(f"{base}_width",
                                                   ctx.number(spec, "width", path)),
                             ma=ctx.number(spec, "ma", path), mb=ctx.number(spec, "mb", path),
                             l=ctx.integer(spec, "l", path), d=ctx.number(spec, "d", path))
            self.variable = ctx.get(spec, "x", path, str)
        elif t == "MultichannelBreitWigner":
            self.mass = self._parameter(f"{base}_mass", ctx.number(spec, "mass", path))
            chans = ctx.get(spec, "channels", path, list)
            self.channels = []
            for n, ch in enumerate(chans):
                p = f"{path}.channels[{n}]"
                self.channels.append(dict(gsq=self._parameter(f"{base}_gsq{n}",
                                                              ctx.number(ch, "gsq", p)),
                                          ma=ctx.number(ch, "ma", p),
                                          mb=ctx.number(ch, "mb", p), l=ctx.integer(ch, "l", p),
                                          d=ctx.number(ch, "d", p)))
            self.variable = ctx.get(spec, "x", path, str)
        elif t == "Polynomial":
            coeffs = ctx.get(spec, "coefficients", path, list)
            self.coefficients = []
            for n, c in enumerate(coeffs):
                try:
                    self.coefficients.append(parse_complex(c))
                except ValueError as e:
                    ctx.fail(f"{path}.coefficients[{n}]", str(e))
            self.variable = ctx.get(spec, "x", path, str)
        elif t == "generic_function":
            text = ctx.get(spec, "expression", path, str)
            self.formula, self.variable = _parse_formula(ctx, text, f"{path}.expression")
        elif t == "BlattWeisskopf":
            self.radius = ctx.number(spec, "radius", path)
            self.l = ctx.integer(spec, "l", path)
        elif t == "MomentumPower":
            self.l = ctx.integer(spec, "l", path)

    def _parameter(self, name, value):
        self.parameters[name] = value
        return parameter(name)

    def lineshape(self, s):
        """The lineshape (ComplexExpr) at :math:`\\sigma` = ``s``; its masses, widths and
        couplings are the parameters :attr:`parameters`."""
        t = self.type
        if t == "BreitWigner":
            return breit_wigner_format(s, **self.args)
        if t == "MultichannelBreitWigner":
            return multichannel_breit_wigner(s, self.mass, self.channels)
        if t == "Polynomial":
            return polynomial(s, self.coefficients)
        if self.variable is None:
            return self.formula
        return ComplexExpr(substitute(self.formula.re, {event(self.variable): s}),
                           substitute(self.formula.im, {event(self.variable): s}))

    def form_factor(self, q2):
        """The form factor (Expr) at the squared breakup momentum ``q2``."""
        if self.type == "BlattWeisskopf":
            return blatt_weisskopf_unnormalized(q2, self.radius, self.l)
        return momentum_power(q2, self.l)


def _safe(name):
    out = re.sub(r"[^A-Za-z0-9_]", "_", name)
    return out if out and not out[0].isdigit() else "c_" + out


def _unique_label(name, used):
    """The label of a chain named ``name``: :func:`_safe` of the name, with
    ``_2``, ``_3``, ... appended until it is not in ``used`` (a set, to
    which it is added)."""
    base = _safe(name)
    label, n = base, 1
    while label in used:
        n += 1
        label = f"{base}_{n}"
    used.add(label)
    return label


def _topology(ctx, value, path):
    """A topology [[i, j], k] of three daughters as (k, (i, j))."""
    ok = (isinstance(value, list) and len(value) == 2 and isinstance(value[0], list)
          and len(value[0]) == 2 and all(isinstance(x, int) and not isinstance(x, bool)
                                         for x in value[0] + [value[1]]))
    if not ok:
        ctx.fail(path, f"expected a three-body topology [[i, j], k], got {json.dumps(value)}")
    (i, j), k = value
    if sorted((i, j, k)) != [1, 2, 3]:
        ctx.fail(path, f"topology {json.dumps(value)} is not a partition of the final state 1, 2, 3")
    return k, (i, j)


def _fit_parameters(distribution, free=None):
    """The parameters of a distribution read from a model file as
    :class:`~vecampfit.amplitudes.ModelParameter` for fits.

    Parameters
    ----------
    distribution : Distribution or CascadeDistribution
        Its ``name``, ``parameters`` (name -> the file's value),
        ``shape_parameters`` and ``weight_names``.
    free : iterable of str or None
        As :meth:`Distribution.fit_parameters`.

    Returns
    -------
    list of ModelParameter
        In the order of ``distribution.parameters``, each with the file's
        value and a step of :math:`\\max(0.01 |v|, 10^{-3})` for a lineshape
        parameter, :math:`\\max(0.05 |v|, 0.01)` for a chain weight.

    Raises
    ------
    ValueError
        A free name that is not a parameter of the distribution.
    """
    from ..amplitudes import ModelParameter
    parameters, shape = distribution.parameters, distribution.shape_parameters
    if free is None:
        first = distribution.weight_names[0] if distribution.weight_names else None
        free = {n for n in parameters if n not in shape
                and n not in (f"{first}_re", f"{first}_im")}
    free = set(free)
    unknown = free - set(parameters)
    if unknown:
        raise ValueError(f"distribution {distribution.name!r}: unknown parameter(s) "
                         f"{sorted(unknown)}")
    out = []
    for n, v in parameters.items():
        step = max(abs(v) * 0.01, 1e-3) if n in shape else max(abs(v) * 0.05, 0.01)
        out.append(ModelParameter(n, v, step=step, fixed=n not in free))
    return out


class Distribution:
    """One distribution of a model file: the decay model and its variables.

    Attributes
    ----------
    name : str
    model : ThreeBodyDecay
    reference : int
        The spectator of the reference topology.
    variables : dict
        Node (as JSON text) -> (mass, phi, cos_theta) names.
    parameters : dict
        Parameter name -> value (the file's values): the chain weights
        ``<chain>_re``, ``<chain>_im`` and the lineshapes' masses, widths
        and couplings (``<function>_mass``, ...).
    weight_names : list of str
        Per chain, in the file's order, the label whose ``_re`` and ``_im``
        parameters are its weight.
    shape_parameters : dict
        The lineshapes' parameters among ``parameters``.
    """

    def __init__(self, name, model, reference, variables, parameters, weight_names=(),
                 shape_parameters=None):
        self.name, self.model, self.reference = name, model, reference
        self.variables, self.parameters = variables, parameters
        #: The weight's parameter label of each chain, in the file's order.
        self.weight_names = list(weight_names)
        self.shape_parameters = dict(shape_parameters or {})
        self._intensity = None

    def fit_parameters(self, free=None):
        """The parameters as :class:`~vecampfit.amplitudes.ModelParameter` for fits.

        Parameters
        ----------
        free : iterable of str, optional
            The parameters free in fits.  Default: every chain weight except
            that of the first chain (the overall magnitude and phase are not
            measurable); the lineshapes' parameters fixed.

        Returns
        -------
        list of ModelParameter
        """
        return _fit_parameters(self, free)

    def amplitude_model(self, free=None, polarized=False):
        """The distribution as a compilable :class:`~vecampfit.amplitudes.AmplitudeModel`.

        Parameters
        ----------
        free : iterable of str, optional
            See :meth:`fit_parameters`.
        polarized : bool
            With the parent's polarization (:meth:`vecampfit.dpd.ThreeBodyDecay.amplitude_model`).
        """
        return self.model.amplitude_model(self.fit_parameters(free), name=self.name,
                                          polarized=polarized)

    @property
    def intensity(self):
        """The unpolarized intensity expression (built once)."""
        if self._intensity is None:
            self._intensity = self.model.unpolarized_intensity()
        return self._intensity

    def sigmas_at(self, point):
        """Dalitz variables :math:`(\\sigma_1, \\sigma_2, \\sigma_3)` (GeV^2) at a parameter point
        given in the distribution's variables (mass and :math:`\\cos\\theta` of the reference pair)."""
        k = self.reference
        i, j = kinematics.cyclic_pair(k)
        names = self.variables[json.dumps([i, j])]
        return kinematics.sigmas_from_mass_angle(k, point[names[0]], point[names[2]], self.model.masses)

    def value(self, point, parameters=None):
        """The unpolarized intensity at a point (dict of variable values)."""
        values = dict(self.parameters)
        values.update(parameters or {})
        values.update(self.model.values(self.sigmas_at(point)))
        return float(evaluate(self.intensity, values))


class ModelFile:
    """A model file read: distributions, functions, points and checksums.

    Attributes
    ----------
    source : str
    distributions : dict
        Name -> :class:`Distribution`.
    functions : dict
        Name -> function entry.
    points : dict
        Parameter-point name -> {variable: value}.
    checksums : list of dict
        ``{"point", "distribution", "value"}`` with a float or complex value.
    data : dict
        The decoded JSON.
    """

    def __init__(self, source, distributions, functions, points, checksums, data=None):
        self.source = source
        #: The decoded JSON the model was read from.
        self.data = data
        self.distributions, self.functions = distributions, functions
        self.points, self.checksums = points, checksums

    def function_value(self, name, point):
        """A lineshape of ``functions`` at a parameter point (its variable's value), complex."""
        f = self.functions[name]
        values = self.points[point]
        x = values[f.variable] if f.variable in values else next(iter(values.values()))
        return complex(evaluate(f.lineshape(x), dict(f.parameters)))

    def checksum_value(self, checksum):
        """The value the model gives for one entry of ``checksums``."""
        if checksum["distribution"] in self.distributions:
            return self.distributions[checksum["distribution"]].value(self.points[checksum["point"]])
        return self.function_value(checksum["distribution"], checksum["point"])


def _read_kinematics(ctx, kin, path):
    ini = ctx.get(kin, "initial_state", path, dict)
    fin = ctx.get(kin, "final_state", path, list)
    if len(fin) != 3:
        ctx.fail(f"{path}.final_state", f"three final-state particles are supported, got {len(fin)}")
    masses, spins = [None] * 4, [None] * 4
    for n, st in enumerate([ini] + fin):
        p = f"{path}.initial_state" if n == 0 else f"{path}.final_state[{n - 1}]"
        idx = ctx.get(st, "index", p, int)
        if (n == 0) != (idx == 0) or not 0 <= idx <= 3 or masses[idx] is not None:
            ctx.fail(f"{p}.index", f"indices are 0 (initial state) and 1, 2, 3, got {idx}")
        masses[idx] = ctx.number(st, "mass", p)
        spins[idx] = ctx.spin(st, "spin", p)
    return masses, spins


def _read_vertex(ctx, v, path):
    kind = ctx.get(v, "type", path, str)
    if kind == "helicity" or kind == "parity":
        hel = ctx.get(v, "helicities", path, list)
        if len(hel) != 2:
            ctx.fail(f"{path}.helicities", "expected two helicities")
        two = []
        for n in range(2):
            try:
                two.append(doubled_spin(hel[n], "helicity"))
            except ValueError as e:
                ctx.fail(f"{path}.helicities[{n}]", str(e))
        if kind == "helicity":
            return HelicityVertex(*two)
        pf = ctx.get(v, "parity_factor", path)
        if pf not in ("+", "-"):
            ctx.fail(f"{path}.parity_factor", f"expected '+' or '-', got {pf!r}")
        return ParityVertex(two[0], two[1], 1 if pf == "+" else -1)
    if kind == "ls":
        l = ctx.integer(v, "l", path)
        return LSVertex(2 * l, ctx.spin(v, "s", path))
    ctx.fail(f"{path}.type", f"unknown vertex type {kind!r} (known: helicity, parity, ls)")


def _fmt(two):
    return str(two // 2) if two % 2 == 0 else f"{two}/2"


def _check_vertex(ctx, vertex, path, two_j, products):
    """A vertex must couple the spin ``two_j`` to the spins of its products."""
    if isinstance(vertex, LSVertex):
        ja, jb = products
        if not (abs(ja - jb) <= vertex.two_s <= ja + jb and (ja + jb - vertex.two_s) % 2 == 0):
            ctx.fail(f"{path}.s", f"s = {_fmt(vertex.two_s)} is not a coupling of the spins "
                     f"{_fmt(ja)} and {_fmt(jb)}")
        if not (abs(vertex.two_l - vertex.two_s) <= two_j <= vertex.two_l + vertex.two_s
                and (vertex.two_l + vertex.two_s - two_j) % 2 == 0):
            ctx.fail(f"{path}.l", f"l = {_fmt(vertex.two_l)} and s = {_fmt(vertex.two_s)} do not "
                     f"couple to the spin {_fmt(two_j)}")
        return
    for n, (two_h, two_s) in enumerate(zip((vertex.two_lambda_a, vertex.two_lambda_b), products)):
        if abs(two_h) > two_s or (two_s - two_h) % 2:
            ctx.fail(f"{path}.helicities[{n}]", f"{_fmt(two_h)} is not a projection of the spin "
                     f"{_fmt(two_s)}")


def _read_chain(ctx, ch, path, functions, masses, spins, used_names):
    name = ctx.get(ch, "name", path, str)
    k, (i, j) = _topology(ctx, ctx.get(ch, "topology", path), f"{path}.topology")
    if (i, j) != kinematics.cyclic_pair(k):
        ctx.fail(f"{path}.topology", f"the pair must be in cyclic order {list(kinematics.cyclic_pair(k))}")
    try:
        weight = parse_complex(ctx.get(ch, "weight", path))
    except ValueError as e:
        ctx.fail(f"{path}.weight", str(e))
    props = ctx.get(ch, "propagators", path, list)
    if len(props) != 1:
        ctx.fail(f"{path}.propagators", f"a three-body chain has one propagator, got {len(props)}")
    pp = f"{path}.propagators[0]"
    two_j = ctx.spin(props[0], "spin", pp)
    if ctx.get(props[0], "node", pp) != [i, j]:
        ctx.fail(f"{pp}.node", f"expected the isobar node {[i, j]}")
    ls_name = ctx.get(props[0], "parametrization", pp, str)
    if ls_name not in functions:
        ctx.fail(f"{pp}.parametrization", f"no function named {ls_name!r} in functions")
    lineshape = functions[ls_name]
    if lineshape.is_form_factor:
        ctx.fail(f"{pp}.parametrization", f"{ls_name!r} is a form factor, not a lineshape")
    verts = ctx.get(ch, "vertices", path, list)
    found = {}
    for n, v in enumerate(verts):
        vp = f"{path}.vertices[{n}]"
        node = ctx.get(v, "node", vp)
        if node == [[i, j], k]:
            role = "production"
        elif node == [i, j]:
            role = "decay"
        else:
            ctx.fail(f"{vp}.node", f"{json.dumps(node)} is not a node of the topology "
                     f"{json.dumps([[i, j], k])}")
        vertex = _read_vertex(ctx, v, vp)
        if role == "production":
            _check_vertex(ctx, vertex, vp, spins[0], (two_j, spins[k]))
        else:
            _check_vertex(ctx, vertex, vp, two_j, (spins[i], spins[j]))
        ff_name = v.get("formfactor", "")
        ff = None
        if ff_name:
            if not isinstance(ff_name, str) or ff_name not in functions:
                ctx.fail(f"{vp}.formfactor", f"no function named {ff_name!r} in functions")
            if not functions[ff_name].is_form_factor:
                ctx.fail(f"{vp}.formfactor", f"{ff_name!r} is not a form factor")
            ff = functions[ff_name].form_factor
        found[role] = (vertex, ff)
    for role in ("production", "decay"):
        if role not in found:
            ctx.fail(f"{path}.vertices", f"missing the {role} vertex")
    label = _unique_label(name, used_names)
    w = ComplexExpr(parameter(f"{label}_re"), parameter(f"{label}_im"))
    shape_parameters = dict(lineshape.parameters)
    chain = DecayChain(k, two_j, lineshape.lineshape, found["production"][0], found["decay"][0],
                       weight=w, production_form_factor=found["production"][1],
                       decay_form_factor=found["decay"][1], name=name)
    return chain, label, {f"{label}_re": weight.real, f"{label}_im": weight.imag}, shape_parameters


def _add_shape_parameters(ctx, params, shapes, dp):
    """Add the lineshapes' parameters ``shapes`` (name -> value) to the
    chain weights ``params``; a name that is both fails, naming the
    decay description ``dp``'s chains."""
    for shape_name in shapes:
        if shape_name in params:
            ctx.fail(f"{dp}.chains", f"a lineshape parameter and a chain weight are both "
                     f"named {shape_name!r}")
    params.update(shapes)


def _read_variables(ctx, dist, path):
    """The variables of the distribution ``dist`` at ``path``: node (as
    JSON text) -> its three names (mass, phi, cos theta)."""
    variables = {}
    for n, var in enumerate(dist.get("variables", [])):
        vp = f"{path}.variables[{n}]"
        node = ctx.get(var, "node", vp)
        names = ctx.get(var, "mass_phi_costheta", vp, list)
        if len(names) != 3:
            ctx.fail(f"{vp}.mass_phi_costheta", "expected three names")
        variables[json.dumps(node)] = tuple(names)
    return variables


def _read_distribution(ctx, dist, path, functions, three_body="dpd"):
    name = ctx.get(dist, "name", path, str)
    kind = ctx.get(dist, "type", path, str)
    if kind != "HadronicUnpolarizedIntensity":
        ctx.fail(f"{path}.type", f"unsupported distribution type {kind!r} "
                 "(supported: HadronicUnpolarizedIntensity)")
    dd = ctx.get(dist, "decay_description", path, dict)
    dp = f"{path}.decay_description"
    kin = ctx.get(dd, "kinematics", dp, dict)
    final = ctx.get(kin, "final_state", f"{dp}.kinematics", list)
    if len(final) != 3 or three_body == "cascade":
        from . import cascade_reader
        return cascade_reader.read_cascade_distribution(ctx, dist, path, functions, name, kin, dp)
    masses, spins = _read_kinematics(ctx, kin, f"{dp}.kinematics")
    ref_k, ref_pair = _topology(ctx, ctx.get(dd, "reference_topology", dp), f"{dp}.reference_topology")
    if ref_pair != kinematics.cyclic_pair(ref_k):
        ctx.fail(f"{dp}.reference_topology", "the pair must be in cyclic order")
    chains, params, used, labels, shapes = [], {}, set(), [], {}
    for n, ch in enumerate(ctx.get(dd, "chains", dp, list)):
        chain, label, p, shape = _read_chain(ctx, ch, f"{dp}.chains[{n}]", functions, masses,
                                             spins, used)
        chains.append(chain)
        labels.append(label)
        params.update(p)
        shapes.update(shape)
    _add_shape_parameters(ctx, params, shapes, dp)
    variables = _read_variables(ctx, dist, path)
    if json.dumps(list(ref_pair)) not in variables:
        ctx.fail(f"{path}.variables", f"no variables for the reference node {list(ref_pair)}")
    # The published values align the parent's helicity to chain 1 (the pair
    # (23)) whatever the reference topology: for a half-integer parent this
    # fixes the sign of the chains of the other pairs.  They sum over all
    # 2j + 1 projections of a massless daughter.
    model = ThreeBodyDecay(masses, spins, chains, reference=(1, ref_k, ref_k, ref_k),
                           massless_transverse=False)
    return Distribution(name, model, ref_k, variables, params, labels, shape_parameters=shapes)


def read_model(source, three_body="dpd"):
    """Read a model file of the exchange format.

    Parameters
    ----------
    source : str, os.PathLike or dict
        A file name, or the decoded JSON (then named ``<dict>`` in errors).
    three_body : {"dpd", "cascade"}
        How distributions with three final-state particles are read: as
        :class:`~vecampfit.dpd.ThreeBodyDecay` models (:class:`Distribution`)
        or, like those with another number of final-state particles, as
        cascades of two-body decays
        (:class:`~vecampfit.model_format.cascade_reader.CascadeDistribution`).

    Returns
    -------
    ModelFile

    Raises
    ------
    ModelFormatError
        Naming the file and the JSON path of the offending entry, such as
        ``distributions[0].decay_description.chains[12].vertices[1].type``.
    """
    if three_body not in ("dpd", "cascade"):
        raise ValueError(f"three_body is 'dpd' or 'cascade', got {three_body!r}")
    if isinstance(source, dict):
        data, label = source, "<dict>"
    else:
        label = os.fspath(source)
        with open(label, encoding="utf-8") as f:
            try:
                data = json.load(f)
            except json.JSONDecodeError as e:
                raise ModelFormatError(f"{label}: not valid JSON: {e}") from None
    ctx = _Context(label)
    functions = {}
    for n, spec in enumerate(ctx.get(data, "functions", "", list)):
        fn = _Function(ctx, spec, f"functions[{n}]")
        if fn.name in functions:
            ctx.fail(f"functions[{n}].name", f"a second function named {fn.name!r}")
        functions[fn.name] = fn
    distributions = {}
    for n, dist in enumerate(ctx.get(data, "distributions", "", list)):
        d = _read_distribution(ctx, dist, f"distributions[{n}]", functions, three_body)
        if d.name in distributions:
            ctx.fail(f"distributions[{n}].name", f"a second distribution named {d.name!r}")
        distributions[d.name] = d
    points = {}
    for n, pt in enumerate(data.get("parameter_points", [])):
        p = f"parameter_points[{n}]"
        pname = ctx.get(pt, "name", p, str)
        points[pname] = {ctx.get(par, "name", f"{p}.parameters[{m}]", str):
                         ctx.number(par, "value", f"{p}.parameters[{m}]")
                         for m, par in enumerate(ctx.get(pt, "parameters", p, list))}
    checksums = []
    misc = data.get("misc", {})
    for n, cs in enumerate(misc.get("amplitude_model_checksums", []) if isinstance(misc, dict) else []):
        p = f"misc.amplitude_model_checksums[{n}]"
        entry = {"point": ctx.get(cs, "point", p, str), "distribution": ctx.get(cs, "distribution", p, str)}
        try:
            v = parse_complex(ctx.get(cs, "value", p))
        except ValueError as e:
            ctx.fail(f"{p}.value", str(e))
        entry["value"] = v.real if isinstance(cs["value"], (int, float)) else v
        checksums.append(entry)
    return ModelFile(label, distributions, functions, points, checksums, data)

