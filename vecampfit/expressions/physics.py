"""Amplitude pieces written once as expressions: momenta, form factors, lineshapes.

Every function here returns an expression (real :class:`~.nodes.Expr` or
:class:`~.nodes.ComplexExpr`) of its arguments, which may be numbers,
parameters, constants, event quantities or any expressions; derivatives,
hoisting and code come from the passes and printers.  Units: GeV for masses,
momenta, widths and couplings, GeV^2 for squared masses, GeV^-1 for radii.
"""

import math
from fractions import Fraction

from .nodes import ONE, ComplexExpr, absolute, add, as_complex, as_expr, mul, pos, power, sqrt, step

__all__ = ["sqrt_physical", "complex_sqrt", "breakup_momentum_squared", "breakup_momentum",
           "bachelor_momentum_squared",
           "phase_space_factor", "blatt_weisskopf_coefficients", "blatt_weisskopf_polynomial",
           "blatt_weisskopf", "breit_wigner", "constant_width_breit_wigner", "flatte",
           "k_matrix", "blatt_weisskopf_unnormalized_squared", "blatt_weisskopf_unnormalized",
           "momentum_power", "multichannel_breit_wigner", "breit_wigner_format", "polynomial"]


def sqrt_physical(x):
    """Square root of a real argument of either sign, on the physical sheet.

    .. math::

        \\sqrt{x} = \\begin{cases} \\sqrt{x} & x \\ge 0 \\\\ i\\sqrt{-x} & x < 0
        \\end{cases}

    (the analytic continuation of a breakup momentum or phase-space factor
    below its threshold, :math:`s + i\\epsilon`).

    Parameters
    ----------
    x : Expr or float
        Real.

    Returns
    -------
    ComplexExpr
    """
    x = as_expr(x)
    # One square root of |x|, put on the real or the imaginary axis by the sign
    # of x: the derivative, sgn(x) dx / (2 sqrt|x|), is finite on both sides.
    r = sqrt(absolute(x))
    above = step(x)
    return ComplexExpr(mul(above, r), mul(add(1.0, -above), r))


def complex_sqrt(z):
    """Principal square root of a complex expression (branch cut on the
    negative real axis, :math:`\\mathrm{Re}\\sqrt z \\ge 0`); a real
    argument takes :func:`sqrt_physical`.

    .. math::

        \\sqrt{x + i y} = \\sqrt{(|z| + x)/2} + i\\,\\mathrm{sgn}(y)\\sqrt{(|z| - x)/2},
        \\qquad \\mathrm{sgn}(0) = +1.
    """
    z = as_complex(z)
    if z.im.is_number and z.im.data == 0.0:
        return sqrt_physical(z.re)
    r = sqrt(z.abs2())
    sign = add(1.0, mul(-2.0, step(-z.im)))
    return ComplexExpr(sqrt(mul(0.5, add(r, z.re))), mul(sign, sqrt(pos(mul(0.5, add(r, -z.re))))))


def breakup_momentum_squared(s, ma, mb):
    """Squared breakup momentum of a system of squared mass ``s`` into masses ``ma``, ``mb``.

    .. math::

        q^2 = \\frac{(s - (m_a + m_b)^2)(s - (m_a - m_b)^2)}{4 s}
        \\quad [\\mathrm{GeV}^2],

    negative below threshold.
    """
    s, ma, mb = as_expr(s), as_expr(ma), as_expr(mb)
    return mul(0.25, add(s, -power(add(ma, mb), 2)), add(s, -power(add(ma, -mb), 2)),
               power(s, -1))


def bachelor_momentum_squared(m_parent, s_pair, mc):
    """Squared momentum of the bachelor ``c`` in the rest frame of a parent of
    mass ``m_parent`` decaying to ``c`` and a pair of squared mass ``s_pair``.

    .. math::

        p^2 = \\frac{(s - (M + m_c)^2)(s - (M - m_c)^2)}{4 M^2}
        \\quad [\\mathrm{GeV}^2],

    :math:`M` = ``m_parent`` (GeV), :math:`s` = ``s_pair`` (GeV^2): the
    :func:`breakup_momentum_squared` of :math:`M \\to \\sqrt s\\, m_c`,
    written in :math:`s`, so that a generated density computes it with two
    subtractions and two multiplications per event (the factors' constants
    once per call; no square root, no event field).  Its rounding is that of
    the constants :math:`(M \\pm m_c)^2`: an absolute error of about
    :math:`10^{-16}` GeV^2 for a D meson, also at the edge of phase space
    where :math:`p \\to 0`.
    """
    m, s, mc = as_expr(m_parent), as_expr(s_pair), as_expr(mc)
    return mul(add(s, -power(add(m, mc), 2)), add(s, -power(add(m, -mc), 2)),
               power(mul(4, power(m, 2)), -1))


def breakup_momentum(s, ma, mb):
    """Breakup momentum :math:`q = \\sqrt{q^2}` (GeV) on the physical sheet
    (:math:`i|q|` below threshold, :func:`sqrt_physical`)."""
    return sqrt_physical(breakup_momentum_squared(s, ma, mb))


def phase_space_factor(s, ma, mb):
    """Two-body phase-space factor :math:`\\rho = 2q/\\sqrt{s}` (dimensionless).

    .. math::

        \\rho = \\sqrt{\\Big(1 - \\frac{(m_a + m_b)^2}{s}\\Big)
        \\Big(1 - \\frac{(m_a - m_b)^2}{s}\\Big)},

    :math:`i|\\rho|` below threshold (:func:`sqrt_physical`).
    """
    s, ma, mb = as_expr(s), as_expr(ma), as_expr(mb)
    inv = power(s, -1)
    return sqrt_physical(mul(add(1.0, -mul(power(add(ma, mb), 2), inv)),
                             add(1.0, -mul(power(add(ma, -mb), 2), inv))))


def blatt_weisskopf_coefficients(l):
    """Coefficients of the Blatt-Weisskopf polynomial :math:`P_l(x)`, lowest power first.

    :math:`P_l(z^2) = |\\theta_l(i z)|^2` with :math:`\\theta_l` the reverse
    Bessel polynomial :math:`\\theta_l(z) = \\sum_{k=0}^{l}
    \\frac{(l+k)!}{(l-k)!\\,k!\\,2^k} z^{l-k}`, so that
    :math:`F_l(q) = 1/\\sqrt{P_l((qr)^2)}` is the Blatt-Weisskopf factor of
    ``vecampfit.high_energy_physics`` (:math:`P_1 = 1 + x`,
    :math:`P_2 = 9 + 3x + x^2`, ...).  Exact integers, any ``l >= 0``.
    """
    if isinstance(l, bool) or not isinstance(l, int) or l < 0:
        raise ValueError(f"blatt_weisskopf: l must be a non-negative integer, got {l!r}")
    theta = [Fraction(math.factorial(l + k), math.factorial(l - k) * math.factorial(k) * 2 ** k)
             for k in range(l + 1)]            # coefficient of z^(l-k)
    # theta(i z) = sum_k c_k i^(l-k) z^(l-k); |.|^2 = (sum even powers)^2 + (sum odd powers)^2
    poly = [Fraction(0)] * (2 * l + 1)          # in z
    re = [Fraction(0)] * (l + 1)
    im = [Fraction(0)] * (l + 1)
    for k, c in enumerate(theta):
        p = l - k
        phase = [1, 1j, -1, -1j][p % 4]
        if phase.real:
            re[p] += c * int(phase.real)
        else:
            im[p] += c * int(phase.imag)
    for a in range(l + 1):
        for b in range(l + 1):
            poly[a + b] += re[a] * re[b] + im[a] * im[b]
    out = [poly[2 * k] for k in range(l + 1)]
    assert all(poly[2 * k + 1] == 0 for k in range(l))
    return [int(c) for c in out]


def blatt_weisskopf_polynomial(x, l):
    """:math:`P_l(x)`, a polynomial of degree ``l`` in :math:`x = (q r)^2`
    (see :func:`blatt_weisskopf_coefficients`)."""
    x = as_expr(x)
    return add(*[mul(c, power(x, k)) for k, c in enumerate(blatt_weisskopf_coefficients(l))])


def blatt_weisskopf(q2, r, l):
    """Blatt-Weisskopf factor from the squared momentum (dimensionless).

    .. math::

        F_l = \\frac{1}{\\sqrt{P_l(q^2 r^2)}},

    a function of :math:`q^2`, so it continues below threshold
    (:math:`q^2 < 0`) while :math:`P_l > 0`.

    Parameters
    ----------
    q2 : Expr or float
        Squared breakup momentum (GeV^2).
    r : Expr or float
        Radius (GeV^-1).
    l : int
        Orbital angular momentum.
    """
    if l == 0:
        return ONE
    return power(blatt_weisskopf_polynomial(mul(as_expr(q2), power(as_expr(r), 2)), l), -0.5)


def breit_wigner(s, m0, gamma0, ma, mb, l, r, phase_space=False):
    """Relativistic Breit-Wigner with mass-dependent width.

    .. math::

        B = \\Big(\\frac{q}{q_0}\\Big)^{L\\,[\\mathrm{phase\\ space}]}
        \\frac{F_L(q)/F_L(q_0)}{m_0^2 - s - i m_0 \\Gamma(m)},\\qquad
        \\Gamma(m) = \\Gamma_0 \\Big(\\frac{q}{q_0}\\Big)^{2L+1}
        \\frac{m_0}{\\sqrt s} \\frac{F_L^2(q)}{F_L^2(q_0)}

    (``high_energy_physics.breit_wigner_q_f_nophsp`` and, with
    ``phase_space``, ``breit_wigner_q_f``), :math:`q` and :math:`q_0` the
    breakup momenta at :math:`\\sqrt s` and :math:`m_0` (above threshold).

    Parameters
    ----------
    s : Expr
        Squared mass of the pair (GeV^2).
    m0, gamma0 : Expr or float
        Mass and width (GeV).
    ma, mb : Expr or float
        Masses of the pair's particles (GeV).
    l : int
        Orbital angular momentum (the resonance spin).
    r : Expr or float
        Blatt-Weisskopf radius (GeV^-1).
    phase_space : bool
        Multiply by :math:`(q/q_0)^L`.

    Returns
    -------
    ComplexExpr
    """
    s, m0, gamma0 = as_expr(s), as_expr(m0), as_expr(gamma0)
    q2 = breakup_momentum_squared(s, ma, mb)
    q02 = breakup_momentum_squared(mul(m0, m0), ma, mb)
    f, f0 = blatt_weisskopf(q2, r, l), blatt_weisskopf(q02, r, l)
    # (q/q0)^(2L+1) = (q^2)^(L+1/2) (q0^2)^(-L-1/2): event and parameter parts apart.
    width = mul(gamma0, power(q2, l + 0.5), power(q02, -(l + 0.5)), m0, power(s, -0.5),
                power(f, 2), power(f0, -2))
    denominator = ComplexExpr(add(mul(m0, m0), -s), mul(-1.0, m0, width))
    numerator = mul(f, power(f0, -1))
    if phase_space and l:
        numerator = mul(numerator, power(q2, 0.5 * l), power(q02, -0.5 * l))
    return numerator / denominator


def constant_width_breit_wigner(s, m0, gamma0):
    """Breit-Wigner with constant width,
    :math:`B = 1/(m_0^2 - s - i m_0 \\Gamma_0)`
    (``high_energy_physics.breit_wigner_constant_width_m0``; GeV^-2)."""
    s, m0, gamma0 = as_expr(s), as_expr(m0), as_expr(gamma0)
    return ONE / ComplexExpr(add(mul(m0, m0), -s), mul(-1.0, m0, gamma0))


def flatte(s, m0, g1, g2, channel1, channel2):
    """Flatte (coupled-channel) lineshape.

    .. math::

        A = \\frac{1}{m_0^2 - s - i m_0 (g_1 \\rho_1 + g_2 \\rho_2)},

    :math:`\\rho_k` the phase-space factor of channel ``k``
    (:func:`phase_space_factor`, continued below its threshold)
    (``high_energy_physics.flatte``).

    Parameters
    ----------
    s : Expr
        Squared mass (GeV^2).
    m0, g1, g2 : Expr or float
        Mass and couplings (GeV).
    channel1, channel2 : (mass, mass)
        The particles of each channel (GeV).
    """
    s, m0 = as_expr(s), as_expr(m0)
    rho = (as_expr(g1) * phase_space_factor(s, *channel1)
           + as_expr(g2) * phase_space_factor(s, *channel2))
    return ONE / (ComplexExpr(add(mul(m0, m0), -s)) - ComplexExpr(0.0, m0) * rho)


def _product(factors):
    return mul(*factors) if factors else ONE


def k_matrix(s, masses, couplings, production, background, rho):
    """K-matrix amplitude of channel 1 with the poles multiplied through.

    With :math:`d_R = m_R^2 - s`,

    .. math::

        K_{ij} = B_{ij} + \\sum_R \\frac{g_{Ri} g_{Rj}}{d_R},\\qquad
        P_i = \\sum_R \\frac{\\beta_R g_{Ri}}{d_R},\\qquad
        A = \\big[(I - i K \\rho)^{-1} P\\big]_1.

    The numerator and the determinant are multiplied by
    :math:`\\Pi = \\prod_R d_R`, and the double poles of
    :math:`\\det K` and :math:`K_{22} P_1 - K_{12} P_2` cancel in closed
    form, so that the amplitude is finite where :math:`s` equals a pole mass
    squared.  One channel:

    .. math::

        A = \\frac{\\tilde P}{\\Pi - i \\tilde K \\rho},\\qquad
        \\tilde P = \\sum_R \\beta_R g_R \\prod_{R' \\ne R} d_{R'},\\qquad
        \\tilde K = B \\Pi + \\sum_R g_R^2 \\prod_{R' \\ne R} d_{R'};

    two channels:

    .. math::

        A = \\frac{\\tilde P_1 - i\\rho_2 \\widetilde{N}}
        {\\Pi - i(\\tilde K_{11}\\rho_1 + \\tilde K_{22}\\rho_2)
        - \\widetilde{\\det K}\\,\\rho_1\\rho_2},

    :math:`\\widetilde{\\det K} = \\Pi \\det B + \\sum_R (B_{11} g_{R2}^2 +
    B_{22} g_{R1}^2 - 2 B_{12} g_{R1} g_{R2}) \\prod_{\\ne R} d +
    \\sum_{R<R'} (g_{R1} g_{R'2} - g_{R'1} g_{R2})^2 \\prod_{\\ne R,R'} d`,
    :math:`\\widetilde N = \\sum_R \\beta_R (B_{22} g_{R1} - B_{12} g_{R2})
    \\prod_{\\ne R} d + \\sum_{R<R'} (g_{R2} g_{R'1} - g_{R1} g_{R'2})
    (\\beta_{R'} g_{R2} - \\beta_R g_{R'2}) \\prod_{\\ne R,R'} d`.

    Parameters
    ----------
    s : Expr
        Squared mass (GeV^2).
    masses : sequence of Expr
        Pole masses :math:`m_R` (GeV).
    couplings : sequence of sequences of Expr
        :math:`g_{Ri}` per pole, one per channel (GeV).
    production : sequence of ComplexExpr
        :math:`\\beta_R` per pole.
    background : sequence of sequences of Expr
        The symmetric matrix :math:`B` (1x1 or 2x2).
    rho : sequence of ComplexExpr
        Phase-space factor per channel (:func:`phase_space_factor`).

    Returns
    -------
    ComplexExpr
    """
    s = as_expr(s)
    n = len(masses)
    channels = len(rho)
    if channels not in (1, 2):
        raise ValueError(f"k_matrix: one or two channels, got {channels}")
    d = [add(mul(as_expr(m), as_expr(m)), -s) for m in masses]
    g = [[as_expr(x) for x in row] for row in couplings]
    beta = [as_complex(b) for b in production]
    b = [[as_expr(x) for x in row] for row in background]
    big_pi = _product(d)

    def without(*skip):
        return _product([d[k] for k in range(n) if k not in skip])

    i = ComplexExpr(0.0, 1.0)
    if channels == 1:
        p = sum((beta[r] * mul(g[r][0], without(r)) for r in range(n)), ComplexExpr(0.0))
        k = add(mul(b[0][0], big_pi), *[mul(g[r][0], g[r][0], without(r)) for r in range(n)])
        return p / (ComplexExpr(big_pi) - i * k * rho[0])
    b11, b12, b22 = b[0][0], b[0][1], b[1][1]
    p1 = sum((beta[r] * mul(g[r][0], without(r)) for r in range(n)), ComplexExpr(0.0))
    k11 = add(mul(b11, big_pi), *[mul(g[r][0], g[r][0], without(r)) for r in range(n)])
    k22 = add(mul(b22, big_pi), *[mul(g[r][1], g[r][1], without(r)) for r in range(n)])
    det_terms = [mul(add(mul(b11, b22), -mul(b12, b12)), big_pi)]
    num_terms = []
    for r in range(n):
        det_terms.append(mul(add(mul(b11, g[r][1], g[r][1]), mul(b22, g[r][0], g[r][0]),
                                 mul(-2.0, b12, g[r][0], g[r][1])), without(r)))
        num_terms.append(beta[r] * mul(add(mul(b22, g[r][0]), -mul(b12, g[r][1])), without(r)))
        for t in range(r + 1, n):
            x = add(mul(g[r][0], g[t][1]), -mul(g[t][0], g[r][1]))
            det_terms.append(mul(x, x, without(r, t)))
            num_terms.append((beta[t] * g[r][1] - beta[r] * g[t][1]) * mul(-1.0, x, without(r, t)))
    det_k = add(*det_terms)
    n_tilde = sum(num_terms, ComplexExpr(0.0))
    numerator = p1 - i * rho[1] * n_tilde
    denominator = (ComplexExpr(big_pi) - i * (k11 * rho[0] + k22 * rho[1])
                   - det_k * rho[0] * rho[1])
    return numerator / denominator


# ---------------------------------------------------------------------------
# The amplitude-model exchange format's lineshapes and vertex form factors
# (vecampfit.model_format): below the threshold of a channel its breakup
# momentum is continued as q = i sqrt(-q^2) (sqrt_physical).
# ---------------------------------------------------------------------------

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
