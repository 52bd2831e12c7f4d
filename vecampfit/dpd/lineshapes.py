"""Lineshapes and vertex form factors of the amplitude-model exchange format, as expressions.

Units: GeV for masses, widths and momenta, GeV^2 for :math:`\\sigma`,
GeV^-1 for radii, GeV^2 for the couplings :math:`g^2` of
:func:`multichannel_breit_wigner`.  Arguments may be numbers, parameters,
constants or any real expressions.

Below the threshold of a channel its breakup momentum is continued as
:math:`q = i\\sqrt{-q^2}` (:func:`~vecampfit.expressions.sqrt_physical`).
"""

from ..expressions.nodes import ComplexExpr, add, as_complex, as_expr, mul, power
from ..expressions.physics import blatt_weisskopf_polynomial, breakup_momentum_squared, sqrt_physical

__all__ = ["blatt_weisskopf_unnormalized_squared", "blatt_weisskopf_unnormalized",
           "momentum_power", "multichannel_breit_wigner", "breit_wigner_format", "polynomial"]


def blatt_weisskopf_unnormalized_squared(q2, d, l):
    """:math:`B_l^2(q) = z^{2l} / P_l(z^2)` with :math:`z = q d` (dimensionless).

    :math:`P_l` is the Blatt-Weisskopf polynomial
    (:func:`~vecampfit.expressions.blatt_weisskopf_polynomial`: :math:`P_1 =
    1 + z^2`, :math:`P_2 = 9 + 3z^2 + z^4`, ...), so that :math:`B_l \\to 1`
    for :math:`z \\to \\infty`.  A function of :math:`q^2`, real on both
    sides of the threshold.

    Parameters
    ----------
    q2 : Expr or float
        Squared breakup momentum (GeV^2).
    d : Expr or float
        Radius (GeV^-1).
    l : int
        Orbital angular momentum.
    """
    if l == 0:
        return as_expr(1.0)
    z2 = mul(as_expr(q2), power(as_expr(d), 2))
    return mul(power(z2, l), power(blatt_weisskopf_polynomial(z2, l), -1))


def blatt_weisskopf_unnormalized(q2, d, l):
    """:math:`B_l(q) = \\sqrt{z^{2l} / P_l(z^2)}`, :math:`z = q d`, the vertex form factor
    ``BlattWeisskopf`` of the format (for :math:`q^2 \\ge 0`; dimensionless)."""
    if l == 0:
        return as_expr(1.0)
    z2 = mul(as_expr(q2), power(as_expr(d), 2))
    return mul(power(z2, l / 2), power(blatt_weisskopf_polynomial(z2, l), -0.5))


def momentum_power(q2, l):
    """:math:`q^l = (q^2)^{l/2}` (GeV^l), the vertex form factor ``MomentumPower`` of the format."""
    return power(as_expr(q2), l / 2)


def multichannel_breit_wigner(s, mass, channels):
    """Breit-Wigner amplitude with a width summed over channels.

    .. math::

        X(\\sigma) = \\frac{1}{m^2 - \\sigma - i\\,m\\,\\Gamma(\\sigma)},\\qquad
        \\Gamma(\\sigma) = \\sum_c g_c^2\\,\\frac{2 q_c}{\\sqrt{\\sigma}}\\,B_{l_c}^2(q_c),

    with :math:`q_c` the breakup momentum of :math:`\\sigma` into
    :math:`m_{a,c}, m_{b,c}` (:math:`i\\sqrt{-q_c^2}` below threshold) and
    :math:`B_l` of :func:`blatt_weisskopf_unnormalized_squared` with the
    channel's radius :math:`d_c`.

    Parameters
    ----------
    s : Expr or float
        :math:`\\sigma` (GeV^2).
    mass : Expr or float
        :math:`m` (GeV).
    channels : list of dict
        Each with ``gsq`` (:math:`g^2`, GeV), ``ma``, ``mb`` (GeV), ``l`` (int), ``d`` (GeV^-1).

    Returns
    -------
    ComplexExpr
        (GeV^-2).
    """
    s, m = as_expr(s), as_expr(mass)
    width_re, width_im = [], []
    for ch in channels:
        q2 = breakup_momentum_squared(s, as_expr(ch["ma"]), as_expr(ch["mb"]))
        q = sqrt_physical(q2)
        factor = mul(as_expr(ch["gsq"]), 2.0, power(s, -0.5),
                     blatt_weisskopf_unnormalized_squared(q2, ch["d"], int(ch["l"])))
        width_re.append(mul(factor, q.re))
        width_im.append(mul(factor, q.im))
    width = ComplexExpr(add(*width_re), add(*width_im))
    i_m = ComplexExpr(0.0, m)
    denominator = as_complex(add(power(m, 2), mul(-1.0, s))) - i_m * width
    return as_complex(1.0) / denominator


def breit_wigner_format(s, mass, width, ma, mb, l, d):
    """Breit-Wigner amplitude with mass-dependent width (``BreitWigner`` of the format).

    A :func:`multichannel_breit_wigner` with the one channel
    :math:`g^2 = \\Gamma_0 m / (2 q_0 B_l^2(q_0))`, :math:`q_0 = q(m^2)`:

    .. math::

        X(\\sigma) = \\frac{1}{m^2 - \\sigma - i\\,m\\,\\Gamma(\\sigma)},\\qquad
        \\Gamma(\\sigma) = \\Gamma_0\\,\\frac{q}{q_0}\\,\\frac{m}{\\sqrt\\sigma}\\,
        \\frac{B_l^2(q)}{B_l^2(q_0)}.

    Parameters
    ----------
    s : Expr or float
        :math:`\\sigma` (GeV^2).
    mass, width : Expr or float
        :math:`m`, :math:`\\Gamma_0` (GeV).
    ma, mb : float
        Masses of the decay products (GeV).
    l : int
        Orbital angular momentum.
    d : Expr or float
        Radius (GeV^-1).

    Returns
    -------
    ComplexExpr
        (GeV^-2).
    """
    m = as_expr(mass)
    q02 = breakup_momentum_squared(power(m, 2), as_expr(ma), as_expr(mb))
    gsq = mul(as_expr(width), m, 0.5, power(q02, -0.5),
              power(blatt_weisskopf_unnormalized_squared(q02, d, l), -1))
    return multichannel_breit_wigner(s, m, [dict(gsq=gsq, ma=ma, mb=mb, l=l, d=d)])


def polynomial(x, coefficients):
    """:math:`\\sum_n c_n x^n`, lowest power first (``Polynomial`` of the format).

    Parameters
    ----------
    x : Expr or float
    coefficients : sequence of float, complex, Expr or ComplexExpr

    Returns
    -------
    ComplexExpr
    """
    x = as_expr(x)
    terms = [as_complex(c) * power(x, n) for n, c in enumerate(coefficients)]
    out = as_complex(0.0)
    for t in terms:
        out = out + t
    return out
