"""Spin factors and parent form factors of isobar-model resonances.

Real factors of a resonance term, each a small class: ``roles``, the
factor written once as an expression (:meth:`RealFactor.expression`, on
:mod:`vecampfit.expressions`: its code and derivatives come from the
layer's passes) and its numpy form.  A factor that depends on the event
only (Laura++'s and the helicity spin factors, a factor whose quantities
are all constants) is computed in numpy into the event buffer.  ``J`` is the resonance spin, (A, B, C)
the ordered daughters of the term: the resonance in the pair AB, C the
spectator, P the parent.

Spin factors (``spin_factor=``):

``"zemach"``
    :class:`ZemachSpinFactor`, the covariant form of the paper's section 3
    (CLEO, EvtGen), resonance mass in the denominators; J = 0..5.
``"laura"``
    :class:`LauraSpinFactor`, Laura++'s covariant form (the GenFit3K
    example); J = 0..4.
``"helicity"``
    :class:`HelicitySpinFactor`, Legendre polynomial of the helicity
    angle; J = 0..5.

Parent form factors (``parent_form_factor=``): ``"normalized"``,
``"unnormalized"``, ``"laura"``, ``"none"`` (:class:`ParentFormFactor`).
"""

import math
from fractions import Fraction

import numpy as np

from vecampfit import expressions as _ex
from vecampfit import high_energy_physics as hep

from . import _codegen

from ._kinematics import breakup_momentum_squared

__all__ = ["HelicitySpinFactor", "LauraSpinFactor", "ParentFormFactor", "SPIN_FACTORS",
           "ZemachSpinFactor", "parent_form_factor", "spin_factor"]


class RealFactor:
    """Base of the real factors (see the module description)."""

    name = None
    roles = ()
    max_spin = 5

    def applies(self, comp):
        """False where the factor is identically 1 (it is then left out)."""
        return comp.spin > 0

    def check(self, comp, model):
        """Raise ValueError naming the resonance if the spin is not supported."""
        if comp.spin > self.max_spin:
            raise ValueError(f"resonance {comp.key!r}: the {self.kind} {self.name!r} supports "
                             f"spin 0..{self.max_spin}, not {comp.spin}")

    def fill(self, ctx, comp):
        """Nothing: the generator fills the slots of every parameter-only
        subexpression of the expression layer at once."""

    def _bound(self, ctx, comp, inst):
        expr = self.expression(comp)
        if expr is None:
            raise NotImplementedError(f"the {self.kind} {self.name!r} depends on the event only")
        return _ex.hoist(_codegen.bind_term(ctx.layout, comp, inst, expr), ctx.hoist_memo)

    def value(self, ctx, comp, inst, tag):
        """Print the factor of one event (beside a lineshape that is not on
        the expression layer); return its text."""
        x = self._bound(ctx, comp, inst)
        ctx.expressions().prepare(x)
        return ctx.expressions().code(x, tag)

    def gradient(self, ctx, comp, inst, tag):
        """The value and ``{role: derivative}`` for the roles that are parameters."""
        x = _codegen.bind_term(ctx.layout, comp, inst, self.expression(comp))
        ds = {role: _ex.hoist(_ex.derivative(x, comp.quantities[role].name), ctx.hoist_memo)
              for role in self.roles if comp.quantities[role].kind == "parameter"}
        printer = ctx.expressions()
        printer.prepare(*ds.values())
        return self.value(ctx, comp, inst, tag), {
            role: printer.code(d, f"{tag}_d{role}") for role, d in ds.items()}

    def numpy(self, kin, comp, inst, values):
        """The real factor in numpy (``values``: quantity name -> value): its
        expression evaluated (the reference form)."""
        return _codegen.evaluate_term(kin, comp, inst, self.expression(comp), values)

    def expression(self, comp):
        """The factor on the expression layer, or None for a factor that
        depends on the event only (its numpy form fills an event field).

        Generic leaves, bound to each term (A, B, C) by the lineshape:
        ``event("s_ab")``, ``event("s_ac")``, ``event("s_bc")`` (squared pair
        masses, GeV^2), ``event("p2")`` (squared momentum of C in the parent
        frame), ``constant("ma")``, ``"mb"``, ``"mc"``, ``"mp"`` (masses,
        GeV) and ``parameter(role)``.
        """
        return None


class ZemachSpinFactor(RealFactor):
    """Covariant (Zemach) spin factor with the resonance mass in the denominators.

    Paper section 3 (CLEO, Phys. Rev. D 63, 092001; EvtGen) for J <= 2 and
    its continuation to J = 5:

    .. math::

        \\mathcal{A}_J = \\frac{J!}{(2J-1)!!}\\,(T_P T_R)^{J/2}\\,
          P_J\\!\\left(\\frac{\\mathcal{A}_1}{\\sqrt{T_P T_R}}\\right),\\qquad
        \\mathcal{A}_1 = M_{AC}^2 - M_{BC}^2 + \\frac{(M_P^2 - M_C^2)(M_B^2 - M_A^2)}{m_0^2},

        T_P = M_{AB}^2 - 2M_P^2 - 2M_C^2 + \\frac{(M_P^2 - M_C^2)^2}{m_0^2},\\qquad
        T_R = M_{AB}^2 - 2M_A^2 - 2M_B^2 + \\frac{(M_A^2 - M_B^2)^2}{m_0^2},

    :math:`P_J` the Legendre polynomial, :math:`m_0` the resonance mass
    (role ``mass``), GeV^(2J).  :math:`\\mathcal{A}_1`, :math:`-T_P` and
    :math:`-T_R` are the contractions of :math:`p_P + p_C` and
    :math:`p_A - p_B` through :math:`g^{\\mu\\nu} - P^\\mu P^\\nu/m_0^2`
    (:math:`P = p_A + p_B`), so :math:`\\mathcal{A}_J` is the contraction of
    their rank-J symmetric traceless tensors.  It is a polynomial in
    :math:`\\mathcal{A}_1` and :math:`T_P T_R` (no square root):
    :math:`\\mathcal{A}_2 = \\mathcal{A}_1^2 - T_P T_R/3` (the paper's form),
    :math:`\\mathcal{A}_3 = \\mathcal{A}_1^3 - \\tfrac35 \\mathcal{A}_1 T_P T_R`,
    :math:`\\mathcal{A}_4 = \\mathcal{A}_1^4 - \\tfrac67 \\mathcal{A}_1^2 T_P T_R
    + \\tfrac{3}{35} (T_P T_R)^2`,
    :math:`\\mathcal{A}_5 = \\mathcal{A}_1^5 - \\tfrac{10}{9} \\mathcal{A}_1^3 T_P T_R
    + \\tfrac{5}{21} \\mathcal{A}_1 (T_P T_R)^2`.  At :math:`m_0 = M_{AB}`,
    :math:`\\mathcal{A}_J = \\frac{J!}{(2J-1)!!} (4 p q)^J P_J(\\cos\\theta)`
    with p, q the momenta of C and A in the AB frame and :math:`\\theta` the
    helicity angle.  Its only parameter dependence is through
    :math:`1/m_0^2`, precomputed with its derivative in the parameter buffer.
    """

    name = "zemach"
    kind = "spin factor"
    roles = ("mass",)
    max_spin = 5

    def expression(self, comp):
        ev, c = _ex.event, _ex.constant
        mp2, ma2, mb2, mc2 = (c(x) ** 2 for x in ("mp", "ma", "mb", "mc"))
        inv = _ex.parameter("mass") ** -2
        a1 = ev("s_ac") - ev("s_bc") + (mp2 - mc2) * (mb2 - ma2) * inv
        if comp.spin == 1:
            return a1
        tp = ev("s_ab") - 2 * mp2 - 2 * mc2 + (mp2 - mc2) ** 2 * inv
        tr = ev("s_ab") - 2 * ma2 - 2 * mb2 + (ma2 - mb2) ** 2 * inv
        q = _ex.group(tp * tr)
        return _ex.add(*(_ex.num(float(k)) * _ex.power(a1, i) * _ex.power(q, n)
                         for k, i, n in zemach_coefficients(comp.spin)))


def zemach_coefficients(j):
    """Monomials of the Zemach spin factor of spin J as ``(coefficient, i, k)``.

    :math:`\\mathcal{A}_J = \\sum c\\, \\mathcal{A}_1^i Q^k`, Q = T_P T_R, from
    :math:`\\frac{J!}{(2J-1)!!} Q^{J/2} P_J(\\mathcal{A}_1/\\sqrt{Q})` with the
    Legendre coefficients :math:`(-1)^k (2J-2k)! / (2^J k! (J-k)! (J-2k)!)`;
    exact fractions (``fractions.Fraction``), leading coefficient 1.
    """
    norm = Fraction(math.factorial(j), math.prod(range(1, 2 * j, 2)))
    return [(norm * Fraction((-1) ** k * math.factorial(2 * j - 2 * k),
                             2 ** j * math.factorial(k) * math.factorial(j - k)
                             * math.factorial(j - 2 * k)), j - 2 * k, k)
            for k in range(j // 2 + 1)]


class _EventSpinFactor(RealFactor):
    """Base of the spin factors that depend on the event only (no roles):
    a function of the kinematics of the pair AB and the spin J, computed in
    numpy into the event buffer."""

    kind = "spin factor"

    def numpy(self, kin, comp, inst, values):
        a, b, _ = inst
        return self.of_pair(kin, a, b, comp.spin)

    def of_pair(self, kin, a, b, spin):
        """The factor of the events in numpy (dimensionless).

        Parameters
        ----------
        kin : vecampfit.isobar._kinematics.DalitzKinematics
            The events' pair masses, momenta and angles.
        a, b : int
            The daughters A and B of the term (the resonance in AB).
        spin : int
            The resonance spin J.

        Returns
        -------
        numpy.ndarray
            One value per event.
        """
        raise NotImplementedError


class LauraSpinFactor(_EventSpinFactor):
    """Laura++'s covariant spin factor (paper section 9.2, the GenFit3K example).

    .. math::

        (p^* q)^J F_J^{(cov)}(f)\\, P_J^{(Laura)}(\\cos\\theta),\\qquad
        P_J^{(Laura)} = (-1)^J \\frac{2^{2J}}{\\binom{2J}{J}} P_J,

    ``p*`` the momentum of C (and AB) in the parent frame, ``q`` that of A
    in the AB frame, :math:`f = (M_P^2 + M_{AB}^2 - M_C^2)/(2 M_P M_{AB})`,
    :math:`F_J^{(cov)}` the covariant factor and :math:`\\theta` the
    helicity angle of A in the AB frame
    (``high_energy_physics.covariant_angular_distribution``); J = 0..4, as
    Laura++, which defines :math:`F_J^{(cov)}` up to J = 4.
    Depends on the event only.
    """

    name = "laura"
    max_spin = 4

    def of_pair(self, kin, a, b, spin):
        return hep.covariant_angular_distribution(kin.p(a, b), kin.q(a, b),
                                                  kin.covariant_factor(a, b),
                                                  kin.cos_helicity(a, b), spin)


class HelicitySpinFactor(_EventSpinFactor):
    """Helicity spin factor :math:`P_J(\\cos\\theta)`.

    :math:`P_J` the Legendre polynomial (``high_energy_physics.legendre``)
    and :math:`\\theta` the helicity angle of A in the AB rest frame, measured
    from the flight direction of AB in the parent frame; J = 0..5.  Depends on
    the event only.
    """

    name = "helicity"
    max_spin = 5

    def of_pair(self, kin, a, b, spin):
        return hep.legendre(kin.cos_helicity(a, b), spin)


#: Spin factors by name.
SPIN_FACTORS = {cls.name: cls for cls in (ZemachSpinFactor, LauraSpinFactor, HelicitySpinFactor)}


class ParentFormFactor(RealFactor):
    """Blatt-Weisskopf form factor of the parent decay P -> R C.

    ``F_P(x, r_P, J) = 1/sqrt(P_J((x r_P)^2))`` (paper eq. blatt_weisskopf),
    ``r_P`` the parent radius (role ``parent_radius``), at

    ``"normalized"``
        :math:`F_P(p, r_P, J) / F_P(p_0, r_P, J)`: ``p`` the momentum of C in the
        parent frame, :math:`p_0` its value at :math:`M_{AB} = m_0`, from
        :math:`p_0^2` (continued analytically below threshold) (paper
        section 3); depends on the resonance mass.
    ``"unnormalized"``
        :math:`F_P(p, r_P, J)` (the paper's rho(1700)+, whose m0 lies above the
        D0 threshold).
    ``"laura"``
        :math:`F_P(p\\,(F_J^{(cov)}(f))^{1/J}, r_P, J)`, Laura++'s covariant
        momentum (the GenFit3K example), not normalized.
    """

    kind = "parent form factor"
    max_spin = 5
    FORMS = ("normalized", "unnormalized", "laura")

    def __init__(self, form):
        if form not in self.FORMS:
            raise ValueError(f"unknown parent form factor {form!r} (known: "
                             f"{', '.join(self.FORMS + ('none',))})")
        self.name = form
        self.roles = ("parent_radius", "mass") if form == "normalized" else ("parent_radius",)
        if form == "laura":
            self.max_spin = 4

    def expression(self, comp):
        j, r = comp.spin, _ex.parameter("parent_radius")
        if self.name == "laura":
            return _ex.blatt_weisskopf(_ex.event(f"pcov2_{j}"), r, j)
        mp, mc = _ex.constant("mp"), _ex.constant("mc")
        # p^2 of C in the parent frame, computed per event from s_AB (no event field)
        f = _ex.blatt_weisskopf(_ex.bachelor_momentum_squared(mp, _ex.event("s"), mc), r, j)
        if self.name == "normalized":
            p02 = _ex.breakup_momentum_squared(mp ** 2, _ex.parameter("mass"), mc)
            f = f * _ex.power(_ex.blatt_weisskopf(p02, r, j), -1)
        return f

    def check(self, comp, model):
        super().check(comp, model)
        if self.name == "normalized":
            a, b = comp.pair
            mp, mc = model.parent_mass, model.daughter_mass(3 - a - b)
            m0, r = comp.quantities["mass"].value, comp.quantities["parent_radius"].value
            p0sq = breakup_momentum_squared(mp, m0, mc)
            if not np.isfinite(hep.blatt_weisskopf_inverse_gradient_q2(p0sq, r, comp.spin)[0]):
                raise ValueError(f"resonance {comp.key!r}: F_P(p0) of the normalized parent "
                                 f"form factor is undefined at m0 = {m0!r} GeV (parent below "
                                 f"threshold): use parent_form_factor='unnormalized'")


def spin_factor(name, owner="model"):
    """A spin-factor object by name (``"zemach"``, ``"laura"``, ``"helicity"``)."""
    if isinstance(name, RealFactor):
        return name
    if name not in SPIN_FACTORS:
        raise ValueError(f"{owner}: unknown spin factor {name!r} (known: "
                         f"{', '.join(sorted(SPIN_FACTORS))})")
    return SPIN_FACTORS[name]()


def parent_form_factor(name, owner="model"):
    """A parent-form-factor object by name, or None for ``"none"``."""
    if name is None or name == "none":
        return None
    if isinstance(name, RealFactor):
        return name
    try:
        return ParentFormFactor(name)
    except ValueError as e:
        raise ValueError(f"{owner}: {e}") from None



