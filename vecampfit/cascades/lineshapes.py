"""Lineshapes of isobars for :class:`vecampfit.cascades.Isobar`.

Each function returns a callable ``lineshape(s, m_a, m_b) -> ComplexExpr``
of the isobar's squared invariant mass :math:`s` (GeV^2) and the masses of
its decay products (GeV), built from :mod:`vecampfit.expressions.physics`.
Masses, widths and radii are numbers, expressions, or names of fit
parameters (str).
"""

from ..expressions import physics
from ..expressions.nodes import ONE, ComplexExpr, add, as_expr, mul, parameter, sqrt

__all__ = ["breit_wigner", "constant_width", "running_constant_width", "constant"]


def _value(x):
    return parameter(x) if isinstance(x, str) else as_expr(x)


def breit_wigner(mass, width, l, radius, phase_space=True):
    """Relativistic Breit-Wigner with mass-dependent width and Blatt-Weisskopf factors.

    .. math::

        B(s) = \\Big(\\frac{q}{q_0}\\Big)^{L} \\frac{F_L(q)/F_L(q_0)}
        {m_0^2 - s - i m_0 \\Gamma(s)}, \\qquad
        \\Gamma(s) = \\Gamma_0 \\Big(\\frac{q}{q_0}\\Big)^{2L+1}
        \\frac{m_0}{\\sqrt s} \\frac{F_L^2(q)}{F_L^2(q_0)}

    (GeV^-2; the factor :math:`(q/q_0)^L` only with ``phase_space``), the
    breakup momenta :math:`q, q_0` at :math:`\\sqrt s` and :math:`m_0`
    (:func:`vecampfit.expressions.breit_wigner`).

    Parameters
    ----------
    mass, width : float, Expr or str
        :math:`m_0`, :math:`\\Gamma_0` (GeV).
    l : int
        Orbital angular momentum of the decay.
    radius : float, Expr or str
        Blatt-Weisskopf radius (GeV^-1).
    phase_space : bool
    """
    m0, g0, r = _value(mass), _value(width), _value(radius)

    def lineshape(s, m_a, m_b):
        if m_a is None or m_b is None:
            raise ValueError("breit_wigner: the masses of the decay products are needed "
                             "(give the final-state particles a mass)")
        return physics.breit_wigner(s, m0, g0, m_a, m_b, l, r, phase_space=phase_space)
    return lineshape


def constant_width(mass, width):
    """Constant-width Breit-Wigner :math:`1/(m_0^2 - s - i m_0 \\Gamma_0)` (GeV^-2)."""
    m0, g0 = _value(mass), _value(width)

    def lineshape(s, m_a, m_b):
        return physics.constant_width_breit_wigner(s, m0, g0)
    return lineshape


def running_constant_width(mass, width):
    """Constant-width Breit-Wigner with the invariant mass in the imaginary part,
    :math:`1/(m_0^2 - s - i \\sqrt{s}\\, \\Gamma_0)` (GeV^-2; the paper's
    :math:`B^{(m)}` of the three-body resonances)."""
    m0, g0 = _value(mass), _value(width)

    def lineshape(s, m_a, m_b):
        return ONE / ComplexExpr(add(mul(m0, m0), mul(-1.0, s)), mul(-1.0, sqrt(s), g0))
    return lineshape


def constant(value=1.0):
    """A constant lineshape (non-resonant; a number or ComplexExpr of parameters)."""
    def lineshape(s, m_a, m_b):
        return value if isinstance(value, ComplexExpr) else ComplexExpr(_value(value))
    return lineshape
