"""Kinematics of the Dalitz-plot decomposition: helicity angles and Wigner rotations.

A three-body decay :math:`0 \\to 1\\,2\\,3` is described by the Dalitz
variables :math:`\\sigma_1 = m_{23}^2`, :math:`\\sigma_2 = m_{31}^2`,
:math:`\\sigma_3 = m_{12}^2` (GeV^2), with
:math:`\\sigma_1 + \\sigma_2 + \\sigma_3 = m_0^2 + m_1^2 + m_2^2 + m_3^2`,
and three angles orienting the decay plane.  A decay chain :math:`k`
(``k`` = 1, 2, 3) is :math:`0 \\to (ij)\\,k \\to i\\,j\\,k` with
:math:`(i, j, k)` in cyclic order: chain 1 is :math:`(23)\\,1`, chain 2 is
:math:`(31)\\,2`, chain 3 is :math:`(12)\\,3` (M. Mikhasenko et al.,
Phys. Rev. D 101 (2020) 034033).

The helicity angle :math:`\\theta_{ij}` of chain :math:`k` is the angle, in
the rest frame of :math:`(ij)`, between particle :math:`i` and the
direction opposite to particle :math:`k`:

.. math::

    \\cos\\theta_{ij} = \\frac{2\\sigma_k(\\sigma_j - m_k^2 - m_i^2)
        - (\\sigma_k + m_i^2 - m_j^2)(m_0^2 - \\sigma_k - m_k^2)}
        {\\lambda^{1/2}(m_0^2, \\sigma_k, m_k^2)\\,\\lambda^{1/2}(\\sigma_k, m_i^2, m_j^2)}

with the Källén function :math:`\\lambda(x, y, z) = x^2 + y^2 + z^2 - 2xy -
2yz - 2zx`.

The helicity states of chain :math:`k` are aligned to those of a
reference chain :math:`r` by Wigner rotations about the normal of the decay
plane, one per particle with spin:

* the parent: :math:`|\\zeta^0_{k(r)}|` is the angle, in the parent's rest
  frame, between the momenta of particles :math:`k` and :math:`r`;
* a daughter :math:`c` that is the spectator of neither chain
  (:math:`c \\ne k, r`): the angle, in the rest frame of :math:`c`, between
  the momenta of the two other daughters;
* a daughter :math:`c` that is the spectator of one of them
  (:math:`c \\in \\{k, r\\}`): the angle, in the rest frame of :math:`c`,
  between the parent's momentum and that of the third daughter
  :math:`t \\notin \\{k, r\\}`.

The rotations of the parent and of a daughter :math:`c \\ne k, r` are
positive when :math:`r` follows :math:`k` cyclically
(:math:`r = k + 1 \\bmod 3`) and negative otherwise; that of a daughter
:math:`c \\in \\{k, r\\}` is positive when :math:`r = k - 1 \\bmod 3`.
A massless daughter's helicity needs no rotation.

Functions taking ``sigmas`` accept expressions (:class:`~vecampfit.expressions.Expr`)
or numbers/arrays, and return the same kind.
"""

import numpy as np

from ..expressions.nodes import Expr, add, as_expr, mul, power, sqrt

__all__ = ["cyclic_pair", "spectator_of", "kallen", "sum_of_sigmas", "cos_theta",
           "cos_zeta", "zeta_sign", "sigma_from_cos_theta", "sigmas_from_mass_angle",
           "four_momenta", "sigmas_from_four_momenta", "orientation", "rotate",
           "aligned_four_momenta",
           "mass_angle_from_sigmas"]


def cyclic_pair(k):
    """The pair :math:`(i, j)` of chain ``k`` in cyclic order: 1 -> (2, 3), 2 -> (3, 1), 3 -> (1, 2)."""
    if k not in (1, 2, 3):
        raise ValueError(f"a chain is named by its spectator 1, 2 or 3, got {k!r}")
    return k % 3 + 1, (k + 1) % 3 + 1


def spectator_of(i, j):
    """The spectator ``k`` of the pair ``(i, j)`` (either order)."""
    rest = {1, 2, 3} - {i, j}
    if len(rest) != 1 or i == j:
        raise ValueError(f"({i}, {j}) is not a pair of the daughters 1, 2, 3")
    return rest.pop()


def _is_expr(*xs):
    return any(isinstance(x, Expr) for x in xs)


def kallen(x, y, z):
    """Källén function :math:`\\lambda(x, y, z) = x^2 + y^2 + z^2 - 2xy - 2yz - 2zx`."""
    if _is_expr(x, y, z):
        x, y, z = as_expr(x), as_expr(y), as_expr(z)
        return add(power(x, 2), power(y, 2), power(z, 2), mul(-2.0, x, y), mul(-2.0, y, z),
                   mul(-2.0, z, x))
    return x * x + y * y + z * z - 2 * x * y - 2 * y * z - 2 * z * x


def _sqrt(x):
    return sqrt(x) if isinstance(x, Expr) else np.sqrt(x)


def sum_of_sigmas(masses):
    """:math:`\\sigma_1 + \\sigma_2 + \\sigma_3 = m_0^2 + m_1^2 + m_2^2 + m_3^2` (GeV^2).

    Parameters
    ----------
    masses : sequence of 4 floats
        :math:`(m_0, m_1, m_2, m_3)` in GeV.
    """
    return sum(m * m for m in masses)


def cos_theta(k, sigmas, masses):
    """:math:`\\cos\\theta_{ij}` of chain ``k`` (see the module description).

    Parameters
    ----------
    k : int
        The chain (its spectator).
    sigmas : sequence of 3
        :math:`(\\sigma_1, \\sigma_2, \\sigma_3)` in GeV^2.
    masses : sequence of 4 floats
        :math:`(m_0, m_1, m_2, m_3)` in GeV.
    """
    i, j = cyclic_pair(k)
    s = masses[0] ** 2
    msq = [m * m for m in masses]
    sk, sj = sigmas[k - 1], sigmas[j - 1]
    num = 2 * sk * (sj - msq[k] - msq[i]) - (sk + msq[i] - msq[j]) * (s - sk - msq[k])
    den = kallen(s, sk, msq[k]) * kallen(sk, msq[i], msq[j])
    return num * power(as_expr(den), -0.5) if _is_expr(num, den) else num / np.sqrt(den)


def sigma_from_cos_theta(k, sigma_k, cos_theta_ij, masses):
    """:math:`\\sigma_j` of chain ``k`` from :math:`\\sigma_k` and :math:`\\cos\\theta_{ij}`
    (the inverse of :func:`cos_theta`).

    .. math::

        \\sigma_j = m_i^2 + m_k^2 + \\frac{(\\sigma_k + m_i^2 - m_j^2)(m_0^2 - \\sigma_k - m_k^2)
        + \\lambda^{1/2}(m_0^2, \\sigma_k, m_k^2)\\lambda^{1/2}(\\sigma_k, m_i^2, m_j^2)
        \\cos\\theta_{ij}}{2\\sigma_k}

    Returns
    -------
    float or ndarray
        :math:`\\sigma_j` in GeV^2.
    """
    i, j = cyclic_pair(k)
    s = masses[0] ** 2
    msq = [m * m for m in masses]
    sk = np.asarray(sigma_k, dtype=float)
    root = np.sqrt(kallen(s, sk, msq[k]) * kallen(sk, msq[i], msq[j]))
    return msq[i] + msq[k] + ((sk + msq[i] - msq[j]) * (s - sk - msq[k])
                              + root * np.asarray(cos_theta_ij, dtype=float)) / (2 * sk)


def sigmas_from_mass_angle(k, m_ij, cos_theta_ij, masses):
    """Dalitz variables from the mass and helicity angle of chain ``k``.

    Parameters
    ----------
    k : int
        The chain whose pair :math:`(ij)` has the mass ``m_ij``.
    m_ij : float or ndarray
        Invariant mass of the pair (GeV).
    cos_theta_ij : float or ndarray
        :math:`\\cos\\theta_{ij}` of chain ``k``.
    masses : sequence of 4 floats
        :math:`(m_0, m_1, m_2, m_3)` in GeV.

    Returns
    -------
    tuple of 3 floats or ndarrays
        :math:`(\\sigma_1, \\sigma_2, \\sigma_3)` in GeV^2.
    """
    i, j = cyclic_pair(k)
    sk = np.asarray(m_ij, dtype=float) ** 2
    sj = sigma_from_cos_theta(k, sk, cos_theta_ij, masses)
    si = sum_of_sigmas(masses) - sk - sj
    out = [None, None, None]
    out[k - 1], out[j - 1], out[i - 1] = sk, sj, si
    return tuple(out)


def zeta_sign(c, k, r):
    """The sign (+1 or -1) of the Wigner rotation of particle ``c`` from chain ``k`` to chain ``r``.

    ``c = 0`` is the parent.  See the module description for the rule.
    """
    if k == r:
        return 1
    follows = r == k % 3 + 1
    if c == 0 or c not in (k, r):
        return 1 if follows else -1
    return -1 if follows else 1


def cos_zeta(c, k, r, sigmas, masses):
    """:math:`\\cos\\zeta^c_{k(r)}` of the Wigner rotation of particle ``c`` from chain ``k`` to chain ``r``.

    ``c = 0`` is the parent; the angles are those of the module description:

    .. math::

        \\cos\\zeta^0_{k(r)} &= \\frac{(m_0^2 + m_k^2 - \\sigma_k)(m_0^2 + m_r^2 - \\sigma_r)
            - 2 m_0^2 (\\sigma_t - m_k^2 - m_r^2)}
            {\\lambda^{1/2}(m_0^2, m_k^2, \\sigma_k)\\,\\lambda^{1/2}(m_0^2, m_r^2, \\sigma_r)},\\\\
        \\cos\\zeta^c_{k(r)} &= \\frac{(\\sigma_a - m_c^2 - m_b^2)(\\sigma_b - m_c^2 - m_a^2)
            + 2 m_c^2 (m_a^2 + m_b^2 - \\sigma_c)}
            {\\lambda^{1/2}(\\sigma_a, m_b^2, m_c^2)\\,\\lambda^{1/2}(\\sigma_b, m_c^2, m_a^2)}
            \\quad (c \\ne k, r;\\ \\{a, b\\} = \\{1,2,3\\} \\setminus \\{c\\}),\\\\
        \\cos\\zeta^c_{k(r)} &= \\frac{(m_0^2 + m_c^2 - \\sigma_c)(\\sigma_u - m_c^2 - m_t^2)
            - 2 m_c^2 (m_0^2 + m_t^2 - \\sigma_t)}
            {\\lambda^{1/2}(m_0^2, m_c^2, \\sigma_c)\\,\\lambda^{1/2}(\\sigma_u, m_c^2, m_t^2)}
            \\quad (c \\in \\{k, r\\})

    with :math:`t` the daughter other than :math:`k, r` (in the first and
    third lines) and :math:`u` the spectator of the pair :math:`(c\\,t)`.

    Returns
    -------
    Expr, float, ndarray or None
        None when the rotation is the identity (``k == r``, or a massless
        daughter).
    """
    if k == r:
        return None
    for x in (c, k, r):
        if x not in (0, 1, 2, 3):
            raise ValueError(f"particle indices are 0..3, got {x!r}")
    s = masses[0] ** 2
    msq = [m * m for m in masses]
    sig = lambda a: sigmas[a - 1]  # noqa: E731
    t = ({1, 2, 3} - {k, r}).pop()
    if c == 0:
        num = (s + msq[k] - sig(k)) * (s + msq[r] - sig(r)) - 2 * s * (sig(t) - msq[k] - msq[r])
        den = kallen(s, msq[k], sig(k)) * kallen(s, msq[r], sig(r))
    else:
        if masses[c] == 0:
            return None
        if c not in (k, r):
            a, b = [x for x in (1, 2, 3) if x != c]
            num = ((sig(a) - msq[c] - msq[b]) * (sig(b) - msq[c] - msq[a])
                   + 2 * msq[c] * (msq[a] + msq[b] - sig(c)))
            den = kallen(sig(a), msq[b], msq[c]) * kallen(sig(b), msq[c], msq[a])
        else:
            u = spectator_of(c, t)
            num = ((s + msq[c] - sig(c)) * (sig(u) - msq[c] - msq[t])
                   - 2 * msq[c] * (s + msq[t] - sig(t)))
            den = kallen(s, msq[c], sig(c)) * kallen(sig(u), msq[c], msq[t])
    if _is_expr(num, den):
        return as_expr(num) * power(as_expr(den), -0.5)
    return num / _sqrt(den)


def mass_angle_from_sigmas(k, sigmas, masses):
    """The mass and helicity angle of chain ``k`` from the Dalitz variables (inverse of
    :func:`sigmas_from_mass_angle`).

    Returns
    -------
    tuple
        :math:`(m_{ij}, \\cos\\theta_{ij})`, GeV and dimensionless.
    """
    return np.sqrt(np.asarray(sigmas[k - 1], dtype=float)), cos_theta(k, [np.asarray(x, dtype=float)
                                                                          for x in sigmas], masses)


def four_momenta(sigmas, masses):
    """Four-momenta of the daughters in the parent's rest frame, in a standard orientation.

    Particle 1 moves along :math:`+z`, the decay plane is the :math:`x`-:math:`z`
    plane and particle 2 has :math:`p_x \\ge 0`:

    .. math::

        E_a = \\frac{m_0^2 + m_a^2 - \\sigma_a}{2 m_0},\\qquad
        \\cos\\angle(\\vec p_1, \\vec p_2) = \\frac{E_1 E_2 - (\\sigma_3 - m_1^2 - m_2^2)/2}
        {|\\vec p_1|\\,|\\vec p_2|},\\qquad \\vec p_3 = -\\vec p_1 - \\vec p_2.

    Parameters
    ----------
    sigmas : sequence of 3 floats or arrays
        :math:`(\\sigma_1, \\sigma_2, \\sigma_3)` in GeV^2.
    masses : sequence of 4 floats
        :math:`(m_0, m_1, m_2, m_3)` in GeV.

    Returns
    -------
    ndarray
        Shape ``(3, ..., 4)``: :math:`(p_x, p_y, p_z, E)` of particles 1, 2, 3 in GeV.
    """
    m0 = masses[0]
    sig = [np.asarray(x, dtype=float) for x in sigmas]
    e = [(m0 ** 2 + masses[a] ** 2 - sig[a - 1]) / (2 * m0) for a in (1, 2, 3)]
    p = [np.sqrt(np.maximum(e[a - 1] ** 2 - masses[a] ** 2, 0.0)) for a in (1, 2, 3)]
    c12 = (e[0] * e[1] - (sig[2] - masses[1] ** 2 - masses[2] ** 2) / 2) / (p[0] * p[1])
    s12 = np.sqrt(np.maximum(1 - c12 ** 2, 0.0))
    zero = np.zeros_like(e[0])
    p1 = np.stack([zero, zero, p[0], e[0]], axis=-1)
    p2 = np.stack([p[1] * s12, zero, p[1] * c12, e[1]], axis=-1)
    p3 = np.stack([-p[1] * s12, zero, -p[0] - p[1] * c12, e[2]], axis=-1)
    return np.stack([p1, p2, p3])


def sigmas_from_four_momenta(p1, p2, p3):
    """Dalitz variables :math:`\\sigma_1 = (p_2 + p_3)^2`, :math:`\\sigma_2 = (p_3 + p_1)^2`,
    :math:`\\sigma_3 = (p_1 + p_2)^2` (GeV^2) from four-momenta :math:`(p_x, p_y, p_z, E)` in
    any frame (arrays of shape ``(..., 4)``)."""
    def sq(p):
        return p[..., 3] ** 2 - p[..., 0] ** 2 - p[..., 1] ** 2 - p[..., 2] ** 2
    p1, p2, p3 = (np.asarray(p, dtype=float) for p in (p1, p2, p3))
    return sq(p2 + p3), sq(p3 + p1), sq(p1 + p2)


def _rz(v, a):
    c, s = np.cos(a), np.sin(a)
    return np.stack([c * v[..., 0] - s * v[..., 1], s * v[..., 0] + c * v[..., 1], v[..., 2]],
                    axis=-1)


def _ry(v, b_cos, b_sin):
    return np.stack([b_cos * v[..., 0] + b_sin * v[..., 2], v[..., 1],
                     -b_sin * v[..., 0] + b_cos * v[..., 2]], axis=-1)


def orientation(p1, p2, p3, reference=1):
    """The orientation of an event: the Euler angles of the rotation
    :math:`R = R_z(\\alpha) R_y(\\beta) R_z(\\gamma)` that takes the aligned
    configuration of chain ``reference`` = :math:`k` to the event.

    In the aligned configuration of chain :math:`k` (pair :math:`(ij)`), the
    isobar moves along :math:`+z` (particle :math:`k` along :math:`-z`) and
    particle :math:`i` is in the :math:`x`-:math:`z` plane with :math:`p_x > 0`:
    the frame in which :meth:`vecampfit.dpd.ThreeBodyDecay.amplitudes` with the
    parent's helicity aligned to chain :math:`k` are the helicity amplitudes.

    Parameters
    ----------
    p1, p2, p3 : array_like
        Four-momenta :math:`(p_x, p_y, p_z, E)` in the parent's rest frame
        (GeV), shape ``(..., 4)``.
    reference : int
        The chain :math:`k`.

    Returns
    -------
    alpha, cos_beta, gamma : ndarray
        :math:`\\alpha, \\gamma \\in (-\\pi, \\pi]` (rad) and :math:`\\cos\\beta`.
    """
    i, _ = cyclic_pair(reference)
    p = {1: np.asarray(p1, dtype=float), 2: np.asarray(p2, dtype=float),
         3: np.asarray(p3, dtype=float)}
    n = -p[reference][..., :3]
    n = n / np.linalg.norm(n, axis=-1, keepdims=True)
    alpha = np.arctan2(n[..., 1], n[..., 0])
    cos_beta = np.clip(n[..., 2], -1.0, 1.0)
    sin_beta = np.sqrt(np.maximum(1 - cos_beta ** 2, 0.0))
    v = _ry(_rz(p[i][..., :3], -alpha), cos_beta, -sin_beta)
    gamma = np.arctan2(v[..., 1], v[..., 0])
    return alpha, cos_beta, gamma


def rotate(momenta, alpha, cos_beta, gamma):
    """Four-momenta turned by :math:`R_z(\\alpha) R_y(\\beta) R_z(\\gamma)`.

    Parameters
    ----------
    momenta : array_like
        Shape ``(..., 4)``: :math:`(p_x, p_y, p_z, E)`.
    alpha, cos_beta, gamma : float or array_like
        Broadcast against ``momenta[..., 0]``.

    Returns
    -------
    ndarray
    """
    m = np.asarray(momenta, dtype=float)
    cos_beta = np.asarray(cos_beta, dtype=float)
    sin_beta = np.sqrt(np.maximum(1 - cos_beta ** 2, 0.0))
    v = _rz(_ry(_rz(m[..., :3], gamma), cos_beta, sin_beta), alpha)
    return np.concatenate([v, m[..., 3:]], axis=-1)


def aligned_four_momenta(sigmas, masses, reference=1):
    """Four-momenta of the daughters in the aligned configuration of chain
    ``reference`` (see :func:`orientation`), shape ``(3, ..., 4)`` (GeV)."""
    p = four_momenta(sigmas, masses)
    alpha, cos_beta, gamma = orientation(p[0], p[1], p[2], reference)
    # R^-1 = R_z(-gamma) R_y(-beta) R_z(-alpha)
    sin_beta = np.sqrt(np.maximum(1 - cos_beta ** 2, 0.0))
    out = []
    for q in p:
        v = _rz(_ry(_rz(q[..., :3], -alpha), cos_beta, -sin_beta), -gamma)
        out.append(np.concatenate([v, q[..., 3:]], axis=-1))
    return np.stack(out)
