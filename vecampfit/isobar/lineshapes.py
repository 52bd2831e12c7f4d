"""Lineshapes of isobar-model resonances, written once on the expression layer.

Every built-in lineshape is an :class:`ExpressionLineshape`: ``roles`` (the
quantities it reads: mass, width, radius, couplings ...) and
``expression(comp)``, the complex lineshape of one pair as an expression of
:mod:`vecampfit.expressions` (most of them one call of
:mod:`vecampfit.expressions.physics`).  The parameter-buffer slots, the
event fields, the per-event code, the derivative by every parameter and the
numpy form all come from that one expression.  A lineshape given as a
formula string is a :class:`FormulaLineshape`; one written by hand as a
Cython block routine with its own gradient is a :class:`UserLineshape`
(which keeps the lower-level protocol ``fill``/``value``/``gradient``/
``numpy`` that the generator also accepts).

``comp`` is the resonance (its quantities by role, spin, pair and key),
``inst`` the ordered daughters (a, b, c) of one term (two terms for a
resonance in a pair with an identical particle), ``ctx`` the code
generator's context (see ``vecampfit.isobar._codegen``).  Units: GeV for
masses, widths and couplings g, GeV^-1 for radii.
"""

import numpy as np

from vecampfit import expressions as _ex

from . import _codegen

__all__ = ["BreitWigner", "BreitWignerNoPhaseSpace", "ConstantWidthBreitWigner",
           "ExpressionLineshape", "Flatte", "FormulaLineshape", "KMatrix", "LINESHAPES",
           "UserLineshape", "lineshape"]


class Lineshape:
    """Base of the lineshapes (see the module description)."""

    name = None
    roles = ()
    #: Largest orbital angular momentum the lineshape supports.
    max_spin = 5

    def check(self, comp, model):
        """Raise ValueError naming the resonance if it cannot be built."""

    def extra_roles(self, comp):
        """Roles filled by the model rather than by the user (none by default)."""
        return ()

    def fill(self, ctx, comp):
        """Emit the parameter-buffer lines (double precision) through ``ctx``."""
        raise NotImplementedError

    def value(self, ctx, comp, inst, tag):
        """Emit the lines of one event; return the (re, im) local names."""
        raise NotImplementedError

    def gradient(self, ctx, comp, inst, tag):
        """Emit value and derivative lines; return ``(re, im), {role: (d_re, d_im)}``."""
        raise NotImplementedError

    def numpy(self, kin, comp, inst, values):
        """The complex lineshape in numpy (``values``: quantity name -> value)."""
        raise NotImplementedError

    def to_dict(self):
        """Plain-data form (for the model's description)."""
        return {"name": self.name}


class ExpressionLineshape(Lineshape):
    """A lineshape written once as an expression (:mod:`vecampfit.expressions`).

    Subclasses define :meth:`expression`: the complex lineshape of one pair
    in terms of generic leaves, the pair's squared mass ``event("s")`` (GeV^2),
    the masses of its two particles ``constant("ma")``, ``constant("mb")``
    (GeV) and the lineshape's roles ``parameter(role)``.  Everything else
    follows from the expression layer: the parameter-buffer slots (its
    parameter-only subexpressions), the event fields (its event-only
    subexpressions), the per-event code, the derivative by every role that is
    a fit parameter, and the numpy form.
    """

    def expression(self, comp):
        """The generic complex expression (see the class description)."""
        raise NotImplementedError

    # -- binding the generic leaves to one term of the model ------------------
    #: The generator leaves the term's event-only factors (spin factors and
    #: form factors that depend on constants only) to the lineshape, which
    #: multiplies them in with its own event-only factors (one event field).
    includes_static_factors = True

    def includes_factors(self, comp):
        """True if every real factor of the resonance is written on the
        expression layer too: the term is then one expression (lineshape times
        factors), differentiated and hoisted as a whole."""
        return all(f.expression(comp) is not None for f in comp.dynamic_factors)

    def _bound(self, comp, inst, layout):
        """The term's amplitude (lineshape times its real factors) in the
        model's leaves."""
        expr = self.expression(comp)
        if self.includes_factors(comp):
            for f in comp.dynamic_factors:
                expr = expr * f.expression(comp)
        return _codegen.bind_term(layout, comp, inst, expr, static=True)

    def _print(self, ctx, expr, tag):
        expr = _ex.ComplexExpr(*_hoisted(ctx, expr))
        printer = ctx.expressions()
        printer.prepare(expr.re, expr.im)
        return printer.code(expr.re, tag), printer.code(expr.im, tag)

    def fill(self, ctx, comp):
        """Nothing per resonance: the generator fills the slots of every
        parameter-only subexpression at once."""

    def value(self, ctx, comp, inst, tag):
        return self._print(ctx, self._bound(comp, inst, ctx.layout), tag)

    def gradient(self, ctx, comp, inst, tag):
        x = self._bound(comp, inst, ctx.layout)
        roles = comp.quantities if self.includes_factors(comp) else self.roles
        derivatives = {}
        for role, q in comp.quantities.items():
            if q.kind == "parameter" and role in roles and q.name not in \
                    {d[0] for d in derivatives.values()}:
                derivatives[role] = (q.name, _ex.derivative(x, q.name))
        # Every power of a base the value and the derivatives need, before any
        # is printed (so that they share one reciprocal or reciprocal root).
        ctx.expressions().prepare(*(e for z in [x] + [d for _, d in derivatives.values()]
                                    for e in _hoisted(ctx, z)))
        value = self._print(ctx, x, tag)
        return value, {role: self._print(ctx, d, f"{tag}_d{role}")
                       for role, (_, d) in derivatives.items()}

    def numpy(self, kin, comp, inst, values):
        """The lineshape in numpy: its expression evaluated (the reference form)."""
        return np.asarray(_codegen.evaluate_term(kin, comp, inst, self.expression(comp),
                                                   values), dtype=complex)


def _hoisted(ctx, expr):
    return _ex.hoist(expr.re, ctx.hoist_memo), _ex.hoist(expr.im, ctx.hoist_memo)


class FormulaLineshape(ExpressionLineshape):
    """A lineshape given as a formula string, compiled and differentiated
    like a built-in one.

    The formula (syntax of :func:`vecampfit.expressions.parse`) may use

    * ``s``: the squared invariant mass of the resonance's pair (GeV^2),
      ``m = sqrt(s)`` (GeV);
    * ``ma``, ``mb``: the masses of the pair's particles (GeV);
    * ``L``: the resonance spin (a number);
    * the functions of :data:`vecampfit.expressions.FUNCTIONS`
      (``rho(s, m1, m2)``, ``breakup_momentum(s, m1, m2)``,
      ``blatt_weisskopf(q2, r, L)``, ``sqrt`` on the physical sheet ...);
    * names given in ``constants`` (numbers);
    * any other name: a role of the lineshape, given to
      :meth:`~vecampfit.isobar.IsobarModel.add_resonance` by keyword as a
      number (a fit parameter ``<KEY>_<ROLE>``), a parameter or a constant.
      Roles named ``mass``, ``width`` and ``radius`` take the resonance's
      ``mass=``, ``width=`` (or the particle's) and ``radius=``.

    Parameters
    ----------
    formula : str
        The complex lineshape, for example
        ``"1/(mass^2 - s - i*mass*(g1*rho(s, ma, mb) + g2*rho(s, mK, mK)))"``.
    constants : dict, optional
        Names of the formula that are numbers (``{"mK": 0.493677}``).
    max_spin : int, optional
        Largest spin the lineshape is declared for (default 5).

    Examples
    --------
    >>> ls = FormulaLineshape("1/(mass^2 - s - i*mass*width)")
    >>> ls.roles
    ('mass', 'width')
    """

    name = "formula"

    def __init__(self, formula, constants=None, max_spin=5):
        self.formula = formula
        self.constants = {str(k): float(v) for k, v in (constants or {}).items()}
        self.max_spin = int(max_spin)
        self._parsed = {}
        roles = []

        def unknown(name):
            if name not in roles:
                roles.append(name)
            return _ex.parameter(name)
        _ex.parse(formula, self._symbols(0), unknown=unknown)
        self.roles = tuple(roles)

    def _symbols(self, spin):
        s = _ex.event("s")
        return {"s": s, "m": _ex.sqrt(s), "ma": _ex.constant("ma"), "mb": _ex.constant("mb"),
                "L": spin, **self.constants}

    def expression(self, comp):
        if comp.spin not in self._parsed:
            self._parsed[comp.spin] = _ex.parse(self.formula, self._symbols(comp.spin))
        return self._parsed[comp.spin]

    def to_dict(self):
        out = {"name": self.name, "formula": self.formula}
        if self.constants:
            out["constants"] = dict(self.constants)
        if self.max_spin != 5:
            out["max_spin"] = self.max_spin
        return out


def _check_above_threshold(comp, model, what="q0"):
    a, b = comp.pair
    ma, mb = model.daughter_mass(a), model.daughter_mass(b)
    m0 = comp.quantities["mass"].value
    if not m0 > ma + mb:
        raise ValueError(
            f"resonance {comp.key!r} ({comp.lineshape.name}): mass {m0!r} GeV is not above the "
            f"threshold {ma + mb!r} GeV of its pair ({model.daughter_names[a]} "
            f"{model.daughter_names[b]}): the pair cannot produce it ({what} is undefined)")


class BreitWignerNoPhaseSpace(ExpressionLineshape):
    """Relativistic Breit-Wigner without phase-space factor (paper eq. breit_wigner_q_f_nophsp).

    .. math::

        B(m) = \\frac{F_R(q)/F_R(q_0)}{m_0^2 - m^2 - i m_0 \\Gamma(m)},\\qquad
        \\Gamma(m) = \\Gamma_0 \\left(\\frac{q}{q_0}\\right)^{2L+1}
        \\frac{m_0}{m} \\frac{F_R^2(q)}{F_R^2(q_0)},

    with :math:`F_R` the Blatt-Weisskopf factor of radius ``r`` and orbital
    angular momentum ``L`` (the resonance spin), ``q`` (``q_0``) the breakup
    momentum of the pair at ``m`` (``m_0``).  Roles: ``mass``, ``width``,
    ``radius``; as numbers they become the parameters ``<KEY>_M``,
    ``<KEY>_G``, ``<KEY>_R``.  Written on the expression layer
    (:func:`vecampfit.expressions.breit_wigner`): with a constant radius,
    :math:`F_R(q)` (times the term's other event-only factors) and
    :math:`q^{2L+1} F_R^2(q)/m` are event fields and
    :math:`F_R(q_0)`, :math:`q_0^{2L+1}` and their products with
    :math:`m_0` and :math:`\\Gamma_0` parameter-buffer slots, so that an
    event costs one complex denominator and one division; with a free
    radius, :math:`F_R(q)` is computed per event.  Equals
    ``high_energy_physics.breit_wigner_q_f_nophsp``.
    """

    name = "breit_wigner_nophsp"
    roles = ("mass", "width", "radius")
    phase_space = False

    def check(self, comp, model):
        _check_above_threshold(comp, model)

    def expression(self, comp):
        p = _ex.parameter
        return _ex.breit_wigner(_ex.event("s"), p("mass"), p("width"), _ex.constant("ma"),
                                _ex.constant("mb"), comp.spin, p("radius"),
                                phase_space=self.phase_space)


class BreitWigner(BreitWignerNoPhaseSpace):
    """Relativistic Breit-Wigner with phase-space factor (paper eq. breit_wigner_q_f).

    .. math::

        B(m) = \\left(\\frac{q}{q_0}\\right)^L
        \\frac{F_R(q)/F_R(q_0)}{m_0^2 - m^2 - i m_0 \\Gamma(m)},

    :math:`\\Gamma(m)` as in :class:`BreitWignerNoPhaseSpace`
    (``high_energy_physics.breit_wigner_q_f``).
    """

    name = "breit_wigner"
    phase_space = True


class ConstantWidthBreitWigner(ExpressionLineshape):
    """Breit-Wigner with constant width.

    .. math::

        B(m) = \\frac{1}{m_0^2 - m^2 - i m_0 \\Gamma_0}

    (``high_energy_physics.breit_wigner_constant_width_m0``;
    :func:`vecampfit.expressions.constant_width_breit_wigner`).  Roles:
    ``mass``, ``width``.
    """

    name = "constant_width"
    roles = ("mass", "width")

    def expression(self, comp):
        return _ex.constant_width_breit_wigner(_ex.event("s"), _ex.parameter("mass"),
                                               _ex.parameter("width"))


class Flatte(ExpressionLineshape):
    """Flatte (coupled-channel) lineshape.

    .. math::

        A(m) = \\frac{1}{m_0^2 - m^2 - i m_0 (g_1 \\rho_1(m) + g_2 \\rho_2(m))},
        \\qquad \\rho_k = 2 q_k / m,

    :math:`q_k` the breakup momentum of channel ``k`` at ``m``, continued
    below its threshold as :math:`q_k = i |q_k|`
    (``high_energy_physics.flatte``; :func:`vecampfit.expressions.flatte`).
    Channel 1 is the resonance's own pair; channel 2 a pair of particles
    given by name or mass (``channel2``).  Roles: ``mass``, ``g1``, ``g2``
    (GeV), parameters ``<KEY>_M``, ``<KEY>_G1``, ``<KEY>_G2`` when given as
    numbers.  The phase-space factors depend on the event only: they are
    event fields, and per event the lineshape costs one complex
    denominator and one division.

    Parameters
    ----------
    channel2 : tuple of two str or float
        The second channel's particles (names in ``vecampfit.particle_data``)
        or masses (GeV).
    """

    name = "flatte"
    roles = ("mass", "g1", "g2")

    def __init__(self, channel2):
        if not (isinstance(channel2, (tuple, list)) and len(channel2) == 2):
            raise ValueError(f"flatte: channel2 must be two particles or masses, got {channel2!r}")
        self.channel2 = tuple(channel2)

    def to_dict(self):
        return {"name": self.name, "channel2": list(self.channel2)}

    def extra_roles(self, comp):
        return ("channel2_a", "channel2_b")

    def expression(self, comp):
        p = _ex.parameter
        return _ex.flatte(_ex.event("s"), p("mass"), p("g1"), p("g2"),
                          (_ex.constant("ma"), _ex.constant("mb")),
                          (p("channel2_a"), p("channel2_b")))


class KMatrix(ExpressionLineshape):
    r"""K-matrix with ``poles`` poles and one or two channels, an S-wave lineshape.

    One channel (the resonance's pair):

    .. math::

        K = b + \sum_R \frac{g_R^2}{m_R^2 - s},\qquad
        P = \sum_R \frac{\beta_R g_R}{m_R^2 - s},\qquad
        A = \frac{P}{1 - i K \rho},\qquad \rho = \frac{2 q}{m}
          = \sqrt{\Big(1 - \frac{(m_a + m_b)^2}{s}\Big)\Big(1 - \frac{(m_a - m_b)^2}{s}\Big)},

    ``s`` the squared mass of the pair (a, b), :math:`\rho = i|\rho|` below
    threshold (``high_energy_physics.k_matrix_p_vector_add_pole`` and
    ``k_matrix_amplitude``, Chung et al., Ann. Phys. 4 (1995) 404).  Roles:
    ``mass<R>``, ``g<R>`` (GeV), ``beta<R>_re``, ``beta<R>_im`` (complex
    production coupling of pole R) and ``background`` (``b``,
    dimensionless); given as numbers they become the parameters
    ``<KEY>_MASS<R>``, ``<KEY>_G<R>``, ``<KEY>_BETA<R>_RE``,
    ``<KEY>_BETA<R>_IM`` and ``<KEY>_BACKGROUND``.  The component's coupling
    sets the overall scale and phase, so fix one production coupling
    (for example ``beta1_re=Parameter("B1_RE", 1, fixed=True)``,
    ``beta1_im=Constant("B1_IM", 0)``): with every beta free, the fit has a
    flat direction.

    Two channels (``channel2``: a second pair of particles, as for the
    :math:`f_0(980)` in :math:`\pi\pi` and :math:`K\bar K`), the amplitude of
    channel 1 (the resonance's pair):

    .. math::

        K_{ij} = b_{ij} + \sum_R \frac{g_{Ri} g_{Rj}}{m_R^2 - s},\qquad
        P_i = \sum_R \frac{\beta_R g_{Ri}}{m_R^2 - s},\qquad
        A = \big[(I - i K \rho)^{-1} P\big]_1,

    :math:`\rho = \mathrm{diag}(\rho_1, \rho_2)`, each continued below its
    threshold.  Roles per pole ``mass<R>``, ``g<R>`` (channel 1), ``g<R>_2``
    (channel 2), ``beta<R>_re``, ``beta<R>_im``, and ``background``
    (:math:`b_{11}`), ``background12``, ``background22``.

    The amplitude is evaluated with the poles multiplied through
    (:func:`vecampfit.expressions.k_matrix`: for one pole
    :math:`A = \beta g / ((m^2 - s)(1 - i b \rho) - i g^2 \rho)`), so that it
    is finite where :math:`s` equals a pole mass squared.  Spin 0 only.

    Parameters
    ----------
    poles : int
        Number of poles.
    channel2 : tuple of two str or float, optional
        The second channel's particles (names in ``vecampfit.particle_data``)
        or masses (GeV).
    """

    name = "k_matrix"
    max_spin = 0

    def __init__(self, poles=1, channel2=None):
        if isinstance(poles, bool) or not isinstance(poles, int) or poles < 1:
            raise ValueError(f"k_matrix: poles must be a positive integer, got {poles!r}")
        if channel2 is not None and not (isinstance(channel2, (tuple, list))
                                         and len(channel2) == 2):
            raise ValueError(f"k_matrix: channel2 must be two particles or masses, got "
                             f"{channel2!r}")
        self.poles = poles
        self.channel2 = None if channel2 is None else tuple(channel2)
        two = self.channel2 is not None
        roles = []
        for r in range(1, poles + 1):
            roles += [f"mass{r}", f"g{r}"] + ([f"g{r}_2"] if two else []) + [f"beta{r}_re",
                                                                            f"beta{r}_im"]
        roles += ["background"] + (["background12", "background22"] if two else [])
        self.roles = tuple(roles)

    def to_dict(self):
        out = {"name": self.name, "poles": self.poles}
        if self.channel2 is not None:
            out["channel2"] = list(self.channel2)
        return out

    def extra_roles(self, comp):
        return ("channel2_a", "channel2_b") if self.channel2 is not None else ()

    def check(self, comp, model):
        a, b = comp.pair
        for r in range(1, self.poles + 1):
            m = comp.quantities[f"mass{r}"].value
            if not m > model.daughter_mass(a) + model.daughter_mass(b):
                raise ValueError(f"resonance {comp.key!r} (k_matrix): pole {r} mass {m!r} GeV is "
                                 f"not above the threshold of its pair: the pair cannot produce it")

    def expression(self, comp):
        p = _ex.parameter
        s = _ex.event("s")
        two = self.channel2 is not None
        poles = range(1, self.poles + 1)
        rho = [_ex.phase_space_factor(s, _ex.constant("ma"), _ex.constant("mb"))]
        if two:
            rho.append(_ex.phase_space_factor(s, p("channel2_a"), p("channel2_b")))
            background = [[p("background"), p("background12")],
                          [p("background12"), p("background22")]]
        else:
            background = [[p("background")]]
        return _ex.k_matrix(
            s, [p(f"mass{r}") for r in poles],
            [[p(f"g{r}")] + ([p(f"g{r}_2")] if two else []) for r in poles],
            [_ex.ComplexExpr(p(f"beta{r}_re"), p(f"beta{r}_im")) for r in poles],
            background, rho)


#: Lineshapes by name.
LINESHAPES = {cls.name: cls for cls in (BreitWignerNoPhaseSpace, BreitWigner,
                                        ConstantWidthBreitWigner, Flatte, KMatrix,
                                        FormulaLineshape)}


def lineshape(spec, owner="resonance"):
    """A lineshape object from a name, a dict (``{"name": ..., options}``) or an object."""
    if isinstance(spec, Lineshape):
        return spec
    if isinstance(spec, dict):
        spec = dict(spec)
        name = spec.pop("name", None)
    else:
        name, spec = spec, {}
    if name == "user":
        return _user(**spec)
    if name not in LINESHAPES:
        raise ValueError(f"{owner}: unknown lineshape {name!r} (known: "
                         f"{', '.join(sorted(LINESHAPES))})")
    return LINESHAPES[name](**spec)


class UserLineshape(Lineshape):
    """A lineshape written by the user as a block routine (one event) in Cython.

    The user gives the Cython source of two ``cdef inline`` functions of one
    event, with ``p`` the lineshape's quantities in the order of ``roles``
    (read from the parameter buffer):

    .. code-block:: cython

        cdef inline void NAME(floating m, const floating *p, floating *re,
                              floating *im) noexcept nogil
        cdef inline void NAME_gradient(floating m, const floating *p, floating *re,
                                       floating *im, floating *d_re,
                                       floating *d_im) noexcept nogil

    ``m`` is the invariant mass of the pair (GeV); the gradient form also
    writes ``d_re[k] + i d_im[k]``, the derivative by ``p[k]``.  The source is
    copied into the generated module (it may ``cimport`` vecampfit's
    ``.pxd`` routines and use ``sqrt``, ``cos``, ``sin`` and ``M_PI``).  The
    numpy form ``numpy(m, *values) -> complex array`` is the reference (and
    what :meth:`IsobarModel.amplitude` uses); give it as a callable or as
    ``"module:function"`` (the only form a saved model can keep).

    Parameters
    ----------
    name : str
        Name of the Cython function (an identifier).
    roles : sequence of str
        Names of its quantities (``mass``, ``width``, or any identifiers).
    cython : str
        The Cython source of ``NAME`` and ``NAME_gradient``.
    numpy : callable or str
    """

    def __init__(self, name, roles, cython, numpy):
        if not isinstance(name, str) or not name.isidentifier():
            raise ValueError(f"user lineshape: name {name!r} is not an identifier")
        for fn in (name, name + "_gradient"):
            if f"{fn}(" not in cython:
                raise ValueError(f"user lineshape {name!r}: the Cython source does not define "
                                 f"{fn}(...)")
        self.name = name
        self.roles = tuple(roles)
        self.cython = cython
        self._numpy = numpy

    def to_dict(self):
        if not isinstance(self._numpy, str):
            raise ValueError(f"user lineshape {self.name!r}: give numpy as 'module:function' to "
                             f"save the model")
        return {"name": "user", "function": self.name, "roles": list(self.roles),
                "cython": self.cython, "numpy": self._numpy}

    def _numpy_function(self):
        fn = self._numpy
        if isinstance(fn, str):
            import importlib
            module, _, attr = fn.partition(":")
            fn = getattr(importlib.import_module(module), attr)
        return fn

    def fill(self, ctx, comp):
        for k, role in enumerate(self.roles):
            ctx.emit(f"{ctx.slot(comp, f'U{k}')} = {ctx.q(comp.quantities[role])}")

    def _call(self, ctx, comp, inst):
        ctx.support(f"user:{self.name}", self.cython)
        for k in range(len(self.roles)):
            ctx.slot(comp, f"U{k}")
        return ctx.field_m(inst[0], inst[1]), f"&{ctx.slot(comp, 'U0')}"

    def value(self, ctx, comp, inst, tag):
        m, p = self._call(ctx, comp, inst)
        re, im = ctx.var(f"{tag}_re"), ctx.var(f"{tag}_im")
        ctx.emit(f"{self.name}({m}, {p}, &{re}, &{im})")
        return re, im

    def gradient(self, ctx, comp, inst, tag):
        m, p = self._call(ctx, comp, inst)
        re, im = ctx.var(f"{tag}_re"), ctx.var(f"{tag}_im")
        n = len(self.roles)
        dre = [ctx.var(f"{tag}_d{k}_re") for k in range(n)]
        dim = [ctx.var(f"{tag}_d{k}_im") for k in range(n)]
        ctx.array(f"{tag}_dre", n)
        ctx.array(f"{tag}_dim", n)
        ctx.emit(f"{self.name}_gradient({m}, {p}, &{re}, &{im}, {tag}_dre, {tag}_dim)")
        ctx.emit(*(f"{dre[k]} = {tag}_dre[{k}]" for k in range(n)),
                 *(f"{dim[k]} = {tag}_dim[{k}]" for k in range(n)))
        return (re, im), {role: (dre[k], dim[k]) for k, role in enumerate(self.roles)}

    def numpy(self, kin, comp, inst, values):
        a, b, _ = inst
        args = [values[comp.quantities[r].name] for r in self.roles]
        return np.asarray(self._numpy_function()(kin.m(a, b), *args), dtype=complex)


def _user(function, roles, cython, numpy):
    return UserLineshape(function, roles, cython, numpy)
