"""Lineshapes of isobar-model resonances: formula, Cython template, numpy form.

Each lineshape is a small class with

* ``roles``: the quantities it reads (mass, width, radius, couplings ...);
* ``fill(ctx, comp)``: Cython lines of the parameter-buffer filler (double
  precision) that precompute what depends on the parameters only, with
  the derivatives its gradient rule needs;
* ``value(ctx, comp, inst, tag)``: Cython lines of one event (lane ``i``)
  that set ``<tag>_re`` and ``<tag>_im``;
* ``gradient(ctx, comp, inst, tag)``: the same and the derivatives with
  respect to each role, returned as ``{role: (re, im)}`` local names: the
  lineshape's gradient rule, in one place;
* ``numpy(kin, comp, inst, values)``: the complex value in numpy (the
  reference evaluation), through :mod:`vecampfit.high_energy_physics`.

``comp`` is the resonance (its quantities by role, spin, pair and key),
``inst`` the ordered daughters (a, b, c) of one term (two terms for a
resonance in a pair with an identical particle), ``ctx`` the code
generator's context (see ``vecampfit.isobar._generator``).  Units: GeV for
masses, widths and couplings g, GeV^-1 for radii.
"""

import numpy as np

from vecampfit import high_energy_physics as hep

from ._kinematics import breakup_momentum_squared

__all__ = ["BreitWigner", "BreitWignerNoPhaseSpace", "ConstantWidthBreitWigner", "Flatte",
           "KMatrix", "LINESHAPES", "UserLineshape", "lineshape"]


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

    def takes_weight(self, comp):
        """True if ``value(..., weight=w)`` multiplies a real factor ``w`` in
        (where it costs least) and returns the product."""
        return False

    def event_factor(self, comp):
        """A real factor of the lineshape that depends on the event only, as
        ``f(kin, comp, inst, values)``, or None.  The generator multiplies it
        into the term's event field with the other event-only factors."""
        return None

    def to_dict(self):
        """Plain-data form (for the model's description)."""
        return {"name": self.name}


def _check_above_threshold(comp, model, what="q0"):
    a, b = comp.pair
    ma, mb = model.daughter_mass(a), model.daughter_mass(b)
    m0 = comp.quantities["mass"].value
    if not m0 > ma + mb:
        raise ValueError(
            f"resonance {comp.key!r} ({comp.lineshape.name}): mass {m0!r} GeV is not above the "
            f"threshold {ma + mb!r} GeV of its pair ({model.daughter_names[a]} "
            f"{model.daughter_names[b]}): the pair cannot produce it ({what} is undefined)")


class BreitWignerNoPhaseSpace(Lineshape):
    """Relativistic Breit-Wigner without phase-space factor (paper eq. breit_wigner_q_f_nophsp).

    .. math::

        B(m) = \\frac{F_R(q)/F_R(q_0)}{m_0^2 - m^2 - i m_0 \\Gamma(m)},\\qquad
        \\Gamma(m) = \\Gamma_0 \\left(\\frac{q}{q_0}\\right)^{2L+1}
        \\frac{m_0}{m} \\frac{F_R^2(q)}{F_R^2(q_0)},

    with :math:`F_R` the Blatt-Weisskopf factor of radius ``r`` and orbital
    angular momentum ``L`` (the resonance spin), ``q`` (``q_0``) the breakup
    momentum of the pair at ``m`` (``m_0``).  Roles: ``mass``, ``width``,
    ``radius``.  Block routine:
    ``high_energy_physics.breit_wigner_q_f_nophsp_scalar`` and its
    ``_gradient_scalar`` (derivatives by m0, Gamma0, r).

    With a constant radius the event form is used instead: :math:`F_R(q)`
    and :math:`G = q^{2L+1} F_R^2(q) / m` are event fields,
    :math:`B = N F_R(q) / (m_0^2 - s - i C G)`, :math:`s = m^2` an event field (:math:`F_R(q)` in the term's event factor) with
    :math:`C = \\Gamma_0 m_0^2 / (q_0^{2L+1} F_R^2(q_0))` and
    :math:`N = 1/F_R(q_0)` from the parameter buffer (one division and no
    square root per event), and the gradient rule
    :math:`\\partial_{m_0} B = N' Z - B Z (2 m_0 - i C' G)`,
    :math:`\\partial_{\\Gamma_0} B = i (C/\\Gamma_0) G B Z`, :math:`Z = 1/D`.
    """

    name = "breit_wigner_nophsp"
    roles = ("mass", "width", "radius")
    routine = "breit_wigner_q_f_nophsp"

    phase_space = False

    def check(self, comp, model):
        _check_above_threshold(comp, model)

    @staticmethod
    def _event_form(comp):
        """With a constant radius, F_R(q) and q^(2L+1) F_R(q)^2 / m depend on the
        event only: they go to the event buffer (no square root per event)."""
        return comp.quantities["radius"].kind == "constant"

    # -- the parameter buffer ---------------------------------------------
    def fill(self, ctx, comp):
        a, b = comp.pair
        s = lambda what: ctx.slot(comp, what)  # noqa: E731
        j = comp.spin
        ctx.emit(f"m0 = {ctx.q(comp.quantities['mass'])}",
                 f"r = {ctx.q(comp.quantities['radius'])}",
                 f"q0 = _breakup(m0, {ctx.mass(a)}, {ctx.mass(b)}, &dq0)",
                 f"blatt_weisskopf_inverse_gradient_scalar(q0, r, {j}, &inv, &d_dq, &d_dr)")
        ctx.use("_breakup", "blatt_weisskopf_inverse_gradient_scalar")
        if not self._event_form(comp):
            ctx.emit(f"{s('M0')} = m0",
                     f"{s('G0')} = {ctx.q(comp.quantities['width'])}",
                     f"{s('R')} = r",
                     f"{s('INV_Q0')} = 1 / q0",
                     f"{s('DINV_Q0_DM0')} = -dq0 / (q0 * q0)",
                     f"{s('INV_F0')} = inv",
                     f"{s('DINV_F0_DM0')} = d_dq * dq0",
                     f"{s('DINV_F0_DR')} = d_dr")
            return
        # Event form: B = N F(q) / (m0^2 - m^2 - i C G), G = q^(2L+1) F(q)^2 / m,
        # C = Gamma0 m0^2 / (q0^(2L+1) F(q0)^2), N = 1/F(q0) (times q0^-L with the
        # phase-space factor, whose q^L is in the event field F).
        ctx.emit(f"k1 = m0 * m0 * inv * inv / q0 ** {2 * j + 1}",
                 f"{s('M0')} = m0",
                 f"{s('M0SQ')} = m0 * m0",
                 f"{s('CG')} = k1",
                 f"{s('C')} = {ctx.q(comp.quantities['width'])} * k1",
                 f"{s('DC_DM0')} = {ctx.q(comp.quantities['width'])} * k1 * (2 / m0 + 2 * d_dq "
                 f"* dq0 / inv - {2 * j + 1} * dq0 / q0)")
        if self.phase_space and j > 0:
            ctx.emit(f"{s('N')} = inv / q0 ** {j}",
                     f"{s('DN_DM0')} = (d_dq * dq0 - {j} * inv * dq0 / q0) / q0 ** {j}")
        else:
            ctx.emit(f"{s('N')} = inv", f"{s('DN_DM0')} = d_dq * dq0")
        ctx.emit(f"{s('KN')} = {s('DN_DM0')} / {s('N')}")

    # -- the event form ---------------------------------------------------
    def takes_weight(self, comp):
        """True in the event form (constant radius)."""
        return self._event_form(comp)

    def event_factor(self, comp):
        if not self._event_form(comp):
            return None
        j, ps = comp.spin, self.phase_space

        def f(kin, comp, inst, values):
            q = kin.q(inst[0], inst[1])
            r = values[comp.quantities["radius"].name]
            return hep.blatt_weisskopf(q, r, j) * (q ** j if ps else 1.0)
        return f

    def _event_field(self, ctx, comp, inst):
        """G = q^(2L+1) F(q)^2 / m (F(q) itself is in the term's event factor)."""
        a, b, _ = inst
        j, pl = comp.spin, ctx.pair_label(a, b)
        radius = comp.quantities["radius"].name

        def g(kin, values):
            q = kin.q(a, b)
            return q ** (2 * j + 1) * hep.blatt_weisskopf(q, values[radius], j) ** 2 / kin.m(a, b)
        return ctx.field(f"bw_g{j}_{pl}_{radius}", g)

    def _event_value(self, ctx, comp, inst, tag, weight=None):
        a, b, _ = inst
        g = self._event_field(ctx, comp, inst)
        u, v, d, re, im = (ctx.var(f"{tag}_{x}") for x in ("a", "b", "d", "re", "im"))
        num = ctx.slot(comp, "N") + (f" * {weight}" if weight else "")
        ctx.emit(f"{u} = {ctx.slot(comp, 'M0SQ')} - {ctx.field_s(a, b)}",
                 f"{v} = {ctx.slot(comp, 'C')} * {g}",
                 f"{d} = {num} / ({u} * {u} + {v} * {v})",
                 f"{re} = {u} * {d}",
                 f"{im} = {v} * {d}")
        return re, im

    def _event_gradient(self, ctx, comp, inst, tag, weight=None):
        x, basis = self.gradient_basis(ctx, comp, inst, tag, weight)
        return x, self.gradient_combine(ctx, comp, x, basis, tag)

    def summable_gradient(self, comp):
        """True if :meth:`gradient_basis` applies (the event form): the terms of
        a component then add their bases before one :meth:`gradient_combine`."""
        return self._event_form(comp)

    def gradient_basis(self, ctx, comp, inst, tag, weight=None):
        """Event form: X = N w Z and the event sums of the derivative rule,
        Y = X Z and G Y (complex); returns ``(xr, xi), {"y": .., "gy": ..}``.

        Linear in X, so the terms of a symmetrized component add their bases
        and the rule (:meth:`gradient_combine`) runs once per component.
        """
        a, b, _ = inst
        g = self._event_field(ctx, comp, inst)
        u, v, inv, zr, zi, re, im, yr, yi, gyr, gyi = (
            ctx.var(f"{tag}_{x}") for x in ("a", "b", "i", "zr", "zi", "re", "im", "yr", "yi",
                                            "gyr", "gyi"))
        nf = ctx.slot(comp, "N")
        if weight:
            # X = N w Z: the real factor w (event only) is a factor of N.
            nf = ctx.var(f"{tag}_nw")
            ctx.emit(f"{nf} = {ctx.slot(comp, 'N')} * {weight}")
        ctx.emit(f"{u} = {ctx.slot(comp, 'M0SQ')} - {ctx.field_s(a, b)}",
                 f"{v} = {ctx.slot(comp, 'C')} * {g}",
                 f"{inv} = 1 / ({u} * {u} + {v} * {v})",
                 f"{zr} = {u} * {inv}",
                 f"{zi} = {v} * {inv}",
                 f"{re} = {nf} * {zr}",
                 f"{im} = {nf} * {zi}",
                 f"{yr} = {re} * {zr} - {im} * {zi}",
                 f"{yi} = {re} * {zi} + {im} * {zr}",
                 f"{gyr} = {g} * {yr}",
                 f"{gyi} = {g} * {yi}")
        return (re, im), {"y": (yr, yi), "gy": (gyr, gyi)}

    def gradient_combine(self, ctx, comp, x, basis, tag):
        """The Breit-Wigner gradient rule on (summed) bases.

        With Z = 1/D = (a + i b)/(a^2 + b^2), a = m0^2 - s, b = C G and
        X = N w Z (F(q) in the event factor w):
        dX/dm0 = (N'/N) X - (2 m0 - i C' G) X Z and
        dX/dGamma0 = i (C/Gamma0) G X Z; returns {role: (re, im)}.
        """
        (xr, xi), (yr, yi), (gr, gi) = x, basis["y"], basis["gy"]
        m0, kn, dc, cg = (ctx.slot(comp, k) for k in ("M0", "KN", "DC_DM0", "CG"))
        dmr, dmi, dgr, dgi = (ctx.var(f"{tag}_{k}") for k in ("dm_re", "dm_im", "dg_re", "dg_im"))
        ctx.emit(f"{dmr} = {kn} * {xr} - (2 * {m0} * {yr} + {dc} * {gi})",
                 f"{dmi} = {kn} * {xi} - (2 * {m0} * {yi} - {dc} * {gr})",
                 f"{dgr} = -{cg} * {gi}",
                 f"{dgi} = {cg} * {gr}")
        return {"mass": (dmr, dmi), "width": (dgr, dgi)}

    # -- the general form: the library's block routines --------------------
    def _args(self, ctx, comp, inst):
        a, b, _ = inst
        return (ctx.field_m(a, b), ctx.field_q(a, b), ctx.slot(comp, "M0"), ctx.slot(comp, "G0"),
                ctx.slot(comp, "INV_Q0"))

    def value(self, ctx, comp, inst, tag, weight=None):
        """With ``weight`` (the event form only), the value times that real factor."""
        if self._event_form(comp):
            return self._event_value(ctx, comp, inst, tag, weight)
        m, q, m0, g0, iq0 = self._args(ctx, comp, inst)
        re, im = ctx.var(f"{tag}_re"), ctx.var(f"{tag}_im")
        ctx.use(f"{self.routine}_scalar")
        ctx.emit(f"{self.routine}_scalar({m}, {q}, {m0}, {g0}, {iq0}, {ctx.slot(comp, 'R')}, "
                 f"{ctx.slot(comp, 'INV_F0')}, {comp.spin}, &{re}, &{im})")
        return re, im

    def gradient(self, ctx, comp, inst, tag, weight=None):
        """With ``weight`` (the event form only), value and derivatives times
        that real factor (which must not depend on parameters)."""
        if self._event_form(comp):
            return self._event_gradient(ctx, comp, inst, tag, weight)
        m, q, m0, g0, iq0 = self._args(ctx, comp, inst)
        names = [ctx.var(f"{tag}_{x}") for x in ("re", "im", "dm_re", "dm_im", "dg_re", "dg_im",
                                                    "dr_re", "dr_im")]
        ctx.use(f"{self.routine}_gradient_scalar")
        ctx.emit(f"{self.routine}_gradient_scalar(",
                 f"    {m}, {q}, {m0}, {g0}, {iq0}, {ctx.slot(comp, 'DINV_Q0_DM0')},",
                 f"    {ctx.slot(comp, 'R')}, {ctx.slot(comp, 'INV_F0')}, "
                 f"{ctx.slot(comp, 'DINV_F0_DM0')}, {ctx.slot(comp, 'DINV_F0_DR')}, {comp.spin},",
                 "    " + ", ".join("&" + n for n in names) + ")")
        return (names[0], names[1]), {"mass": (names[2], names[3]), "width": (names[4], names[5]),
                                      "radius": (names[6], names[7])}

    def numpy(self, kin, comp, inst, values):
        a, b, _ = inst
        m0, g0, r = (values[comp.quantities[x].name] for x in ("mass", "width", "radius"))
        q0 = float(np.sqrt(breakup_momentum_squared(m0, kin.masses[a], kin.masses[b])))
        fn = getattr(hep, self.routine)
        return fn(kin.m(a, b), kin.q(a, b), q0, m0, g0, r, comp.spin)


class BreitWigner(BreitWignerNoPhaseSpace):
    """Relativistic Breit-Wigner with phase-space factor (paper eq. breit_wigner_q_f).

    .. math::

        B(m) = \\left(\\frac{q}{q_0}\\right)^L
        \\frac{F_R(q)/F_R(q_0)}{m_0^2 - m^2 - i m_0 \\Gamma(m)},

    :math:`\\Gamma(m)` as in :class:`BreitWignerNoPhaseSpace`.  Block
    routine: ``high_energy_physics.breit_wigner_q_f_scalar`` and its
    ``_gradient_scalar``.
    """

    name = "breit_wigner"
    routine = "breit_wigner_q_f"
    phase_space = True


# d(1/D) for X = 1/D = re + i im and dD = da - i db:  -X^2 dD.
_D_INVERSE = '''
cdef inline void _d_inverse(floating re, floating im, floating da, floating db,
                            floating *dre, floating *dim) noexcept nogil:
    """d(1/D) = -X^2 dD for X = 1/D = re + i im and dD = da - i db."""
    cdef floating x2r = re * re - im * im
    cdef floating x2i = 2 * re * im
    dre[0] = -(x2r * da + x2i * db)
    dim[0] = -(x2i * da - x2r * db)
'''


class ConstantWidthBreitWigner(Lineshape):
    """Breit-Wigner with constant width.

    .. math::

        B(m) = \\frac{1}{m_0^2 - m^2 - i m_0 \\Gamma_0}

    (``high_energy_physics.breit_wigner_constant_width_m0``).  Roles:
    ``mass``, ``width``.  Gradient rule: with :math:`D = a - i b`,
    :math:`a = m_0^2 - m^2`, :math:`b = m_0\\Gamma_0`,
    :math:`\\partial B = -B^2 (\\partial a - i \\partial b)`,
    :math:`\\partial_{m_0}(a, b) = (2 m_0, \\Gamma_0)`,
    :math:`\\partial_{\\Gamma_0}(a, b) = (0, m_0)`.
    """

    name = "constant_width"
    roles = ("mass", "width")

    def fill(self, ctx, comp):
        ctx.emit(f"{ctx.slot(comp, 'M0')} = {ctx.q(comp.quantities['mass'])}",
                 f"{ctx.slot(comp, 'G0')} = {ctx.q(comp.quantities['width'])}",
                 f"{ctx.slot(comp, 'MG')} = {ctx.slot(comp, 'M0')} * {ctx.slot(comp, 'G0')}")

    def value(self, ctx, comp, inst, tag):
        a, b, _ = inst
        m, m0 = ctx.field_m(a, b), ctx.slot(comp, "M0")
        re, im, u, v, d = (ctx.var(f"{tag}_{x}") for x in ("re", "im", "a", "b", "d"))
        ctx.emit(f"{u} = ({m0} - {m}) * ({m0} + {m})",
                 f"{v} = {ctx.slot(comp, 'MG')}",
                 f"{d} = 1 / ({u} * {u} + {v} * {v})",
                 f"{re} = {u} * {d}",
                 f"{im} = {v} * {d}")
        return re, im

    def gradient(self, ctx, comp, inst, tag):
        re, im = self.value(ctx, comp, inst, tag)
        ctx.support("_d_inverse", _D_INVERSE)
        names = [ctx.var(f"{tag}_{x}") for x in ("dm_re", "dm_im", "dg_re", "dg_im")]
        m0, g0 = ctx.slot(comp, "M0"), ctx.slot(comp, "G0")
        ctx.emit(f"_d_inverse({re}, {im}, 2 * {m0}, {g0}, &{names[0]}, &{names[1]})",
                 f"_d_inverse({re}, {im}, 0, {m0}, &{names[2]}, &{names[3]})")
        return (re, im), {"mass": (names[0], names[1]), "width": (names[2], names[3])}

    def numpy(self, kin, comp, inst, values):
        a, b, _ = inst
        m0, g0 = (values[comp.quantities[x].name] for x in ("mass", "width"))
        return hep.breit_wigner_constant_width_m0(kin.m(a, b), m0, g0)


class Flatte(Lineshape):
    """Flatte (coupled-channel) lineshape.

    .. math::

        A(m) = \\frac{1}{m_0^2 - m^2 - i m_0 (g_1 \\rho_1(m) + g_2 \\rho_2(m))},
        \\qquad \\rho_k = 2 q_k / m,

    :math:`q_k` the breakup momentum of channel ``k`` at ``m``, continued
    below its threshold as :math:`q_k = i |q_k|`
    (``high_energy_physics.flatte``).  Channel 1 is the resonance's pair;
    channel 2 a pair of particles given by name or mass (``channel2``).
    Roles: ``mass``, ``g1``, ``g2`` (GeV).  The factors
    :math:`2|q_k|/m` above (``v_k``) and below (``u_k``) threshold are event
    fields, so that with :math:`D = a - i b`,
    :math:`a = m_0^2 - m^2 + m_0 (g_1 u_1 + g_2 u_2)`,
    :math:`b = m_0 (g_1 v_1 + g_2 v_2)`; gradient rule
    :math:`\\partial A = -A^2 (\\partial a - i \\partial b)`.

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

    def _fields(self, ctx, comp, inst):
        """Event fields u_1, v_1, u_2, v_2 of one term."""
        a, b, _ = inst
        ch2 = (comp.quantities["channel2_a"].name, comp.quantities["channel2_b"].name)
        out = []
        for k in (1, 2):
            for part, below in (("u", True), ("v", False)):
                out.append(ctx.field(
                    f"flatte_{part}{k}_{ctx.pair_label(a, b)}_{comp.key}",
                    lambda kin, values, a=a, b=b, k=k, below=below: _flatte_part(
                        kin, a, b, (kin.masses[a], kin.masses[b]) if k == 1
                        else (values[ch2[0]], values[ch2[1]]), below)))
        return out

    def fill(self, ctx, comp):
        for role, slot in (("mass", "M0"), ("g1", "G1"), ("g2", "G2")):
            ctx.emit(f"{ctx.slot(comp, slot)} = {ctx.q(comp.quantities[role])}")

    def value(self, ctx, comp, inst, tag):
        u1, v1, u2, v2 = self._fields(ctx, comp, inst)
        a, b, _ = inst
        m, m0 = ctx.field_m(a, b), ctx.slot(comp, "M0")
        g1, g2 = ctx.slot(comp, "G1"), ctx.slot(comp, "G2")
        re, im, su, sv, x, y, d = (ctx.var(f"{tag}_{n}") for n in ("re", "im", "su", "sv", "a",
                                                                    "b", "d"))
        ctx.emit(f"{su} = {g1} * {u1} + {g2} * {u2}",
                 f"{sv} = {g1} * {v1} + {g2} * {v2}",
                 f"{x} = ({m0} - {m}) * ({m0} + {m}) + {m0} * {su}",
                 f"{y} = {m0} * {sv}",
                 f"{d} = 1 / ({x} * {x} + {y} * {y})",
                 f"{re} = {x} * {d}",
                 f"{im} = {y} * {d}")
        return re, im

    def gradient(self, ctx, comp, inst, tag):
        re, im = self.value(ctx, comp, inst, tag)
        u1, v1, u2, v2 = self._fields(ctx, comp, inst)
        ctx.support("_d_inverse", _D_INVERSE)
        m0 = ctx.slot(comp, "M0")
        su, sv = f"{tag}_su", f"{tag}_sv"
        out = {}
        for role, da, db in (("mass", f"2 * {m0} + {su}", sv), ("g1", f"{m0} * {u1}",
                                                                 f"{m0} * {v1}"),
                             ("g2", f"{m0} * {u2}", f"{m0} * {v2}")):
            dre, dim = ctx.var(f"{tag}_d{role}_re"), ctx.var(f"{tag}_d{role}_im")
            ctx.emit(f"_d_inverse({re}, {im}, {da}, {db}, &{dre}, &{dim})")
            out[role] = (dre, dim)
        return (re, im), out

    def numpy(self, kin, comp, inst, values):
        a, b, _ = inst
        m0, g1, g2, m21, m22 = (values[comp.quantities[x].name]
                                for x in ("mass", "g1", "g2", "channel2_a", "channel2_b"))
        return hep.flatte(kin.m(a, b), m0, g1, g2, kin.masses[a], kin.masses[b], m21, m22)


def _flatte_part(kin, a, b, masses, below):
    """2|q|/m of m_ab -> masses where q^2 < 0 (below) or q^2 >= 0 (above), else 0."""
    m = kin.m(a, b)
    q2 = kin.q_squared(a, b, *masses)
    w = 2 * np.sqrt(np.abs(q2)) / m
    return np.where(q2 < 0, w, 0.0) if below else np.where(q2 >= 0, w, 0.0)


class KMatrix(Lineshape):
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
    production coupling of pole R; fix one of them, the component's coupling
    sets the overall scale and phase) and ``background`` (``b``,
    dimensionless).  Gradient rule:
    :math:`\partial A = (\partial P - A\, \partial K (\rho_i - i \rho_r)) / D`,
    :math:`D = 1 - i K \rho`.

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
    (:math:`b_{11}`), ``background12``, ``background22``.  With
    :math:`D = I - i K \rho` and :math:`\vec A = D^{-1} P`, the gradient rule
    is :math:`\partial \vec A = D^{-1}(\partial P + i\, \partial K \rho \vec A)`.
    Spin 0 only.

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

    def fill(self, ctx, comp):
        s = lambda what: ctx.slot(comp, what)  # noqa: E731
        q = lambda role: ctx.q(comp.quantities[role])  # noqa: E731
        two = self.channel2 is not None
        for r in range(1, self.poles + 1):
            ctx.emit(f"m0 = {q(f'mass{r}')}", f"r = {q(f'g{r}')}",
                     f"{s(f'MSQ{r}')} = m0 * m0", f"{s(f'DM{r}')} = -2 * m0",
                     f"{s(f'G{r}')} = r", f"{s(f'G2{r}')} = r * r",
                     f"{s(f'BRE{r}')} = {q(f'beta{r}_re')}", f"{s(f'BIM{r}')} = {q(f'beta{r}_im')}",
                     f"{s(f'BGRE{r}')} = {q(f'beta{r}_re')} * r",
                     f"{s(f'BGIM{r}')} = {q(f'beta{r}_im')} * r")
            if two:
                ctx.emit(f"n = {q(f'g{r}_2')}", f"{s(f'H{r}')} = n", f"{s(f'H2{r}')} = n * n",
                         f"{s(f'GH{r}')} = r * n",
                         f"{s(f'BHRE{r}')} = {q(f'beta{r}_re')} * n",
                         f"{s(f'BHIM{r}')} = {q(f'beta{r}_im')} * n")
        ctx.emit(f"{s('B')} = {q('background')}")
        if two:
            ctx.emit(f"{s('B12')} = {q('background12')}", f"{s('B22')} = {q('background22')}")

    def _fields(self, ctx, comp, inst):
        a, b, _ = inst
        pl = ctx.pair_label(a, b)

        def rho(kin, values, masses, part):
            r2 = kin.q_squared(a, b, *masses(values, kin)) * 4 / kin.s_pair(a, b)
            r = np.sqrt(np.abs(r2))
            return np.where(r2 >= 0, r, 0.0) if part == 0 else np.where(r2 < 0, r, 0.0)

        own = lambda values, kin: (kin.masses[a], kin.masses[b])  # noqa: E731
        fields = (ctx.field_s(a, b),
                  ctx.field(f"rho_re_{pl}", lambda kin, values: rho(kin, values, own, 0)),
                  ctx.field(f"rho_im_{pl}", lambda kin, values: rho(kin, values, own, 1)))
        if self.channel2 is None:
            return fields
        ch2 = (comp.quantities["channel2_a"].name, comp.quantities["channel2_b"].name)
        other = lambda values, kin: (values[ch2[0]], values[ch2[1]])  # noqa: E731
        return fields + (
            ctx.field(f"rho2_re_{pl}_{comp.key}", lambda kin, values: rho(kin, values, other, 0)),
            ctx.field(f"rho2_im_{pl}_{comp.key}", lambda kin, values: rho(kin, values, other, 1)))

    def _poles(self, ctx, comp, tag, sv):
        s = lambda what: ctx.slot(comp, what)  # noqa: E731
        e = [ctx.var(f"{tag}_e{r}") for r in range(1, self.poles + 1)]
        ctx.emit(*(f"{e[r - 1]} = 1 / ({s(f'MSQ{r}')} - {sv})" for r in range(1, self.poles + 1)))
        return e

    def _sum(self, ctx, comp, e, slot, base=None):
        """base + sum_R slot<R> e_R as an expression."""
        terms = [f"{ctx.slot(comp, f'{slot}{r}')} * {e[r - 1]}" for r in range(1, self.poles + 1)]
        return " + ".join(([ctx.slot(comp, base)] if base else []) + terms)

    def _core(self, ctx, comp, inst, tag):
        sv, rr, ri = self._fields(ctx, comp, inst)[:3]
        e = self._poles(ctx, comp, tag, sv)
        k, pr, pi, dr, di, den, re, im = (ctx.var(f"{tag}_{x}") for x in (
            "k", "pr", "pi", "dr", "di", "den", "re", "im"))
        ctx.emit(f"{k} = {self._sum(ctx, comp, e, 'G2', 'B')}",
                 f"{pr} = {self._sum(ctx, comp, e, 'BGRE')}",
                 f"{pi} = {self._sum(ctx, comp, e, 'BGIM')}",
                 f"{dr} = 1 + {k} * {ri}",
                 f"{di} = -{k} * {rr}",
                 f"{den} = 1 / ({dr} * {dr} + {di} * {di})",
                 f"{re} = ({pr} * {dr} + {pi} * {di}) * {den}",
                 f"{im} = ({pi} * {dr} - {pr} * {di}) * {den}")
        return re, im, e, dr, di, den, rr, ri

    def _core2(self, ctx, comp, inst, tag):
        """Two channels: A_1, A_2 and D (complex, as (re, im) names), 1/det D."""
        sv, rr1, ri1, rr2, ri2 = self._fields(ctx, comp, inst)
        e = self._poles(ctx, comp, tag, sv)
        v = lambda *names: tuple(ctx.var(f"{tag}_{n}") for n in names)  # noqa: E731
        k11, k12, k22, p1r, p1i, p2r, p2i = v("k11", "k12", "k22", "p1r", "p1i", "p2r", "p2i")
        ctx.emit(f"{k11} = {self._sum(ctx, comp, e, 'G2', 'B')}",
                 f"{k12} = {self._sum(ctx, comp, e, 'GH', 'B12')}",
                 f"{k22} = {self._sum(ctx, comp, e, 'H2', 'B22')}",
                 f"{p1r} = {self._sum(ctx, comp, e, 'BGRE')}",
                 f"{p1i} = {self._sum(ctx, comp, e, 'BGIM')}",
                 f"{p2r} = {self._sum(ctx, comp, e, 'BHRE')}",
                 f"{p2i} = {self._sum(ctx, comp, e, 'BHIM')}")
        # D_ij = delta_ij - i K_ij rho_j, rho_j = rr_j + i ri_j.
        d11, d12, d21, d22 = v("d11r", "d11i"), v("d12r", "d12i"), v("d21r", "d21i"), \
            v("d22r", "d22i")
        ctx.emit(f"{d11[0]} = 1 + {k11} * {ri1}", f"{d11[1]} = -{k11} * {rr1}",
                 f"{d12[0]} = {k12} * {ri2}", f"{d12[1]} = -{k12} * {rr2}",
                 f"{d21[0]} = {k12} * {ri1}", f"{d21[1]} = -{k12} * {rr1}",
                 f"{d22[0]} = 1 + {k22} * {ri2}", f"{d22[1]} = -{k22} * {rr2}")
        dt, inv = v("detr", "deti"), v("invr", "invi")
        den = ctx.var(f"{tag}_den")
        ctx.emit(f"{dt[0]} = {_cmul_re(d11, d22)} - {_cmul_re(d12, d21)}",
                 f"{dt[1]} = {_cmul_im(d11, d22)} - {_cmul_im(d12, d21)}",
                 f"{den} = 1 / ({dt[0]} * {dt[0]} + {dt[1]} * {dt[1]})",
                 f"{inv[0]} = {dt[0]} * {den}", f"{inv[1]} = -{dt[1]} * {den}")
        p1, p2 = (p1r, p1i), (p2r, p2i)
        n1, n2, a1, a2 = v("n1r", "n1i"), v("n2r", "n2i"), v("re", "im"), v("a2r", "a2i")
        ctx.emit(f"{n1[0]} = {_cmul_re(d22, p1)} - {_cmul_re(d12, p2)}",
                 f"{n1[1]} = {_cmul_im(d22, p1)} - {_cmul_im(d12, p2)}",
                 f"{n2[0]} = {_cmul_re(d11, p2)} - {_cmul_re(d21, p1)}",
                 f"{n2[1]} = {_cmul_im(d11, p2)} - {_cmul_im(d21, p1)}",
                 f"{a1[0]} = {_cmul_re(n1, inv)}", f"{a1[1]} = {_cmul_im(n1, inv)}",
                 f"{a2[0]} = {_cmul_re(n2, inv)}", f"{a2[1]} = {_cmul_im(n2, inv)}")
        return a1, a2, e, d12, d22, inv, (rr1, ri1), (rr2, ri2)

    def value(self, ctx, comp, inst, tag):
        if self.channel2 is not None:
            return self._core2(ctx, comp, inst, tag)[0]
        return self._core(ctx, comp, inst, tag)[:2]

    def gradient(self, ctx, comp, inst, tag):
        if self.channel2 is not None:
            return self._gradient2(ctx, comp, inst, tag)
        re, im, e, dr, di, den, rr, ri = self._core(ctx, comp, inst, tag)
        s = lambda what: ctx.slot(comp, what)  # noqa: E731
        # A (rho_i - i rho_r), and 1/D = conj(D) den.
        wr, wi = ctx.var(f"{tag}_wr"), ctx.var(f"{tag}_wi")
        ctx.emit(f"{wr} = {re} * {ri} + {im} * {rr}", f"{wi} = {im} * {ri} - {re} * {rr}")
        out = {}

        def rule(role, dk, dpr, dpi):
            tr, ti = f"({dpr} - {dk} * {wr})" if dk else dpr, f"({dpi} - {dk} * {wi})" if dk else dpi
            xr, xi = ctx.var(f"{tag}_d{role}_re"), ctx.var(f"{tag}_d{role}_im")
            ctx.emit(f"{xr} = ({tr} * {dr} + {ti} * {di}) * {den}",
                     f"{xi} = ({ti} * {dr} - {tr} * {di}) * {den}")
            out[role] = (xr, xi)
        for r in range(1, self.poles + 1):
            e2 = f"{e[r - 1]} * {e[r - 1]}"
            rule(f"mass{r}", f"{s(f'DM{r}')} * {s(f'G2{r}')} * {e2}",
                 f"{s(f'DM{r}')} * {s(f'BGRE{r}')} * {e2}", f"{s(f'DM{r}')} * {s(f'BGIM{r}')} * {e2}")
            rule(f"g{r}", f"2 * {s(f'G{r}')} * {e[r - 1]}", f"{s(f'BRE{r}')} * {e[r - 1]}",
                 f"{s(f'BIM{r}')} * {e[r - 1]}")
            rule(f"beta{r}_re", None, f"{s(f'G{r}')} * {e[r - 1]}", "0")
            rule(f"beta{r}_im", None, "0", f"{s(f'G{r}')} * {e[r - 1]}")
        rule("background", "1", "0", "0")
        return (re, im), out

    def _gradient2(self, ctx, comp, inst, tag):
        a1, a2, e, d12, d22, inv, rho1, rho2 = self._core2(ctx, comp, inst, tag)
        s = lambda what: ctx.slot(comp, what)  # noqa: E731
        # w_j = rho_j A_j; v = dP + i dK w; dA_1 = (D22 v_1 - D12 v_2) / det D.
        w1, w2 = (ctx.var(f"{tag}_w1r"), ctx.var(f"{tag}_w1i")), \
            (ctx.var(f"{tag}_w2r"), ctx.var(f"{tag}_w2i"))
        ctx.emit(f"{w1[0]} = {_cmul_re(rho1, a1)}", f"{w1[1]} = {_cmul_im(rho1, a1)}",
                 f"{w2[0]} = {_cmul_re(rho2, a2)}", f"{w2[1]} = {_cmul_im(rho2, a2)}")
        out = {}

        def rule(role, dk11, dk12, dk22, dp1, dp2):
            """dK entries (real expressions or None) and dP_i ((re, im) or None)."""
            def v_i(dp, dka, dkb):
                # dP_i + i (dK_i1 w_1 + dK_i2 w_2): i (x + i y) = -y + i x.
                re_t = [dp[0]] if dp and dp[0] != "0" else []
                im_t = [dp[1]] if dp and dp[1] != "0" else []
                for dk, w in ((dka, w1), (dkb, w2)):
                    if dk:
                        re_t.append(f"-({dk}) * {w[1]}")
                        im_t.append(f"({dk}) * {w[0]}")
                return (" + ".join(re_t) or "0", " + ".join(im_t) or "0")
            v1, v2 = v_i(dp1, dk11, dk12), v_i(dp2, dk12, dk22)
            t1, t2 = (ctx.var(f"{tag}_v1{role}_re"), ctx.var(f"{tag}_v1{role}_im")), \
                (ctx.var(f"{tag}_v2{role}_re"), ctx.var(f"{tag}_v2{role}_im"))
            nr, ni = ctx.var(f"{tag}_n{role}_re"), ctx.var(f"{tag}_n{role}_im")
            xr, xi = ctx.var(f"{tag}_d{role}_re"), ctx.var(f"{tag}_d{role}_im")
            ctx.emit(f"{t1[0]} = {v1[0]}", f"{t1[1]} = {v1[1]}",
                     f"{t2[0]} = {v2[0]}", f"{t2[1]} = {v2[1]}",
                     f"{nr} = {_cmul_re(d22, t1)} - {_cmul_re(d12, t2)}",
                     f"{ni} = {_cmul_im(d22, t1)} - {_cmul_im(d12, t2)}",
                     f"{xr} = {_cmul_re((nr, ni), inv)}", f"{xi} = {_cmul_im((nr, ni), inv)}")
            out[role] = (xr, xi)
        for r in range(1, self.poles + 1):
            er = e[r - 1]
            de = f"{s(f'DM{r}')} * {er} * {er}"          # d e_R / d m_R
            rule(f"mass{r}", f"{s(f'G2{r}')} * {de}", f"{s(f'GH{r}')} * {de}",
                 f"{s(f'H2{r}')} * {de}", (f"{s(f'BGRE{r}')} * {de}", f"{s(f'BGIM{r}')} * {de}"),
                 (f"{s(f'BHRE{r}')} * {de}", f"{s(f'BHIM{r}')} * {de}"))
            rule(f"g{r}", f"2 * {s(f'G{r}')} * {er}", f"{s(f'H{r}')} * {er}", None,
                 (f"{s(f'BRE{r}')} * {er}", f"{s(f'BIM{r}')} * {er}"), None)
            rule(f"g{r}_2", None, f"{s(f'G{r}')} * {er}", f"2 * {s(f'H{r}')} * {er}", None,
                 (f"{s(f'BRE{r}')} * {er}", f"{s(f'BIM{r}')} * {er}"))
            rule(f"beta{r}_re", None, None, None, (f"{s(f'G{r}')} * {er}", "0"),
                 (f"{s(f'H{r}')} * {er}", "0"))
            rule(f"beta{r}_im", None, None, None, ("0", f"{s(f'G{r}')} * {er}"),
                 ("0", f"{s(f'H{r}')} * {er}"))
        rule("background", "1", None, None, None, None)
        rule("background12", None, "1", None, None, None)
        rule("background22", None, None, "1", None, None)
        return a1, out

    def numpy(self, kin, comp, inst, values):
        a, b, _ = inst
        v = lambda role: values[comp.quantities[role].name]  # noqa: E731
        s = kin.s_pair(a, b)
        two = self.channel2 is not None
        k = p = None
        for r in range(1, self.poles + 1):
            g = [v(f"g{r}"), v(f"g{r}_2")] if two else [v(f"g{r}")]
            k, p = hep.k_matrix_p_vector_add_pole(k, p, s, v(f"mass{r}"),
                                                  complex(v(f"beta{r}_re"), v(f"beta{r}_im")), g)
        k = k.copy()
        k[:, 0, 0] += v("background")
        ma, mb = kin.masses[a], kin.masses[b]
        rho = np.sqrt((1 - (ma + mb) ** 2 / s) * (1 - (ma - mb) ** 2 / s) + 0j)[:, None]
        if two:
            k[:, 0, 1] += v("background12")
            k[:, 1, 0] += v("background12")
            k[:, 1, 1] += v("background22")
            mc, md = v("channel2_a"), v("channel2_b")
            rho2 = np.sqrt((1 - (mc + md) ** 2 / s) * (1 - (mc - md) ** 2 / s) + 0j)[:, None]
            rho = np.concatenate([rho, rho2], axis=1)
        return hep.k_matrix_amplitude(k, p, rho)[:, 0]


def _cmul_re(a, b):
    """Re(a b) of two complex numbers given as (re, im) expressions."""
    return f"({a[0]} * {b[0]} - {a[1]} * {b[1]})"


def _cmul_im(a, b):
    """Im(a b) of two complex numbers given as (re, im) expressions."""
    return f"({a[0]} * {b[1]} + {a[1]} * {b[0]})"


#: Lineshapes by name.
LINESHAPES = {cls.name: cls for cls in (BreitWignerNoPhaseSpace, BreitWigner,
                                        ConstantWidthBreitWigner, Flatte, KMatrix)}


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
