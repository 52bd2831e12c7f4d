"""High-energy-physics lineshapes: formfactors, covariant factors, Breit-Wigner, Flatte and K-matrix amplitudes.

The paper's ``VECAMPFIT_HIGH_ENERGY_PHYSICS_VECTOR_#LENGTH#``.  The functions
here work on numpy arrays of any shape (float32 or float64; the precision of
the result is that of the inputs) and run the block routines of
``vecampfit/high_energy_physics.pxd``, which users' Cython densities cimport.

Units: masses, widths and momenta in GeV, radii in GeV^-1.

Blatt-Weisskopf formfactors (paper eq. blatt_weisskopf) for orbital angular
momentum ``l = 0..5`` with ``z = q r``:

.. math::

    F(q, r, l) = \\frac{1}{z^{l+1} |h_l^{(1)}(z)|} = \\frac{1}{\\sqrt{P_l(z^2)}},

with :math:`h_l^{(1)}` the spherical Hankel function of the first kind and
:math:`P_0 = 1`, :math:`P_1 = z^2 + 1`, :math:`P_2 = z^4 + 3 z^2 + 9`,
:math:`P_3 = z^6 + 6 z^4 + 45 z^2 + 225`,
:math:`P_4 = z^8 + 10 z^6 + 135 z^4 + 1575 z^2 + 11025`,
:math:`P_5 = z^{10} + 15 z^8 + 315 z^6 + 6300 z^4 + 99225 z^2 + 893025`.
(The paper prints the first form with the square root misplaced; the
polynomials it lists, used here, are :math:`(z^{l+1} |h_l^{(1)}(z)|)^2`.)

Breit-Wigner amplitudes with a mass-dependent width use

.. math::

    \\Gamma(m) = \\Gamma_0 \\left(\\frac{q}{q_0}\\right)^{2l+1} \\frac{m_0}{m}
    \\frac{F^2(q)}{F^2(q_0)},

where ``q`` is the breakup momentum of the resonance at the invariant mass
``m`` and ``q0`` at its mass ``m0``.

The Flatte amplitude (:func:`flatte`) and the one- and two-channel K-matrix
(:func:`k_matrix_add_pole`, :func:`p_vector_add_pole`,
:func:`k_matrix_denominator`, :func:`k_matrix_amplitude`) continue the
momenta below threshold as :math:`q = i |q|`.
"""

import numbers

import numpy as np

from ._arguments import real_arrays as _arrays
from ._arguments import sections as _sections
from . import _high_energy_physics as _k

__all__ = [
    "blatt_weisskopf",
    "blatt_weisskopf_squared",
    "blatt_weisskopf_ratio",
    "blatt_weisskopf_ratio_squared",
    "blatt_weisskopf_gradient",
    "blatt_weisskopf_inverse_gradient",
    "blatt_weisskopf_inverse_gradient_q2",
    "covariant_factor_j",
    "legendre",
    "legendre_laura",
    "covariant_angular_distribution",
    "breit_wigner_constant_width_m",
    "breit_wigner_constant_width_m0",
    "breit_wigner_general",
    "breit_wigner_q_f_nophsp",
    "breit_wigner_q_f",
    "breit_wigner_m2",
    "breit_wigner_q_f_nophsp_gradient",
    "breit_wigner_q_f_gradient",
]

MAX_ORBITAL_ANGULAR_MOMENTUM = 5
MAX_COVARIANT_SPIN = 4


# Docstring entries shared by the functions.
_Q = ("q : array_like", "Breakup momentum (GeV).")
_Q0 = ("q0 : float", "Breakup momentum at ``m0`` (GeV).")
_Q0_POSITIVE = ("q0 : float", "Breakup momentum at the resonance mass (GeV), positive.")
_R = ("r : float", "Effective radius (GeV^-1).")
_RADIUS = ("r : float", "Resonance radius (GeV^-1).")
_L = ("l : int", "Orbital angular momentum, 0 to 5.")
_DEGREE = ("l : int", "Degree, 0 to 5.")
_COSINE = ("x : array_like", "Argument (usually a cosine).")
_M = ("m : array_like", "Invariant mass (GeV).")
_M_Q = ("m, q : array_like", "Invariant mass and breakup momentum (GeV).")
_M0_GAMMA0 = ("m0, gamma0 : float", "Resonance mass and width (GeV).")
_Q0_M0_GAMMA0 = ("q0, m0, gamma0 : float", "Breakup momentum at ``m0``, resonance mass and width (GeV).")
_S = ("s : array_like", "Mandelstam s, real (GeV^2).")
_M_POLE = ("m_pole : float", "Bare pole mass :math:`m_R` (GeV).")
_K = ("k : array_like", "Real symmetric K-matrix, shape ``(..., n, n)``, ``n`` = 1 or 2.")
_RHO = ("rho : array_like", "Phase-space factors, complex, shape ``(..., n)``.")
_ARRAY = ("numpy.ndarray", "")
_AMPLITUDE = ("numpy.ndarray", "Complex amplitude (GeV^-2).")


def _check_l(l, name="l", maximum=MAX_ORBITAL_ANGULAR_MOMENTUM):
    if isinstance(l, bool) or not isinstance(l, numbers.Integral) or not 0 <= l <= maximum:
        raise ValueError(f"{name} must be an integer from 0 to {maximum}, got {l!r}")
    return int(l)


def _check_scalar(value, name, positive=False, non_negative=False):
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value):
        raise ValueError(f"{name} must be a finite real number, got {value!r}")
    if positive and not value > 0:
        raise ValueError(f"{name} must be positive, got {value!r}")
    if non_negative and not value >= 0:
        raise ValueError(f"{name} must be non-negative, got {value!r}")
    return float(value)


def _formfactor(kernel, q, r, l, q0=None):
    """Run a formfactor kernel on the breakup momenta ``q``: ``kernel(q, r, [1/F(q0),] l, out)``."""
    (q,), shape, dtype = _arrays(q=q)
    r = _check_scalar(r, "r", non_negative=True)
    l = _check_l(l)
    out = np.empty_like(q)
    inverse_f0 = () if q0 is None else (_inverse_f0(q0, r, l, dtype),)
    kernel(q, dtype.type(r), *inverse_f0, l, out)
    return out.reshape(shape)


@_sections(
    parameters=[_Q, ("r : float", "Effective radius (GeV^-1), non-negative."), _L],
    returns=[("numpy.ndarray", "F, of the precision of ``q``.")])
def blatt_weisskopf(q, r, l):
    """Blatt-Weisskopf formfactor :math:`F(q, r, l) = 1/\\sqrt{P_l((q r)^2)}`."""
    return _formfactor(_k.blatt_weisskopf_kernel, q, r, l)


@_sections(parameters=[_Q, _R, _L], returns=[_ARRAY])
def blatt_weisskopf_squared(q, r, l):
    """Squared Blatt-Weisskopf formfactor :math:`F^2(q, r, l) = 1/P_l((q r)^2)`."""
    return _formfactor(_k.blatt_weisskopf_squared_kernel, q, r, l)


def _inverse_formfactor(kernel, momentum, r, l):
    """``kernel(momentum, r, l)`` (float64) with the radius and ``l`` checked."""
    r = _check_scalar(r, "r", non_negative=True)
    return kernel(momentum, r, _check_l(l))


@_sections(
    parameters=[("q0 : float", "Breakup momentum at the resonance mass (GeV)."), _R, _L],
    returns=[("inverse, d_dq0, d_dr : float",
              ":math:`\\sqrt{P_l(z_0^2)}`, its derivative with respect to ``q0``\n"
              "(GeV^-1) and with respect to ``r`` (GeV).")])
def blatt_weisskopf_inverse_gradient(q0, r, l):
    """Inverse formfactor :math:`1/F(q_0, r, l)` and its derivatives, for parameter buffers.

    The block routines take ``inverse_f0 = 1/F(q0)`` (and, for gradients,
    ``d(1/F0)/dm0 = d(1/F0)/dq0 * dq0/dm0`` and ``d(1/F0)/dr``) from the
    parameter buffer; this computes them in float64.
    """
    return _inverse_formfactor(_k.blatt_weisskopf_inverse_gradient_kernel,
                               _check_scalar(q0, "q0", non_negative=True), r, l)


@_sections(
    parameters=[("q2 : float", "Squared breakup momentum (GeV^2), may be negative."), _R, _L],
    returns=[("inverse, d_dq2, d_dr : float",
              ":math:`\\sqrt{P_l(q^2 r^2)}` and its derivatives by :math:`q^2`\n"
              "(GeV^-2) and by ``r`` (GeV).")])
def blatt_weisskopf_inverse_gradient_q2(q2, r, l):
    """Inverse formfactor from the squared momentum, continued below threshold.

    :math:`1/F = \\sqrt{P_l(q^2 r^2)}` is a polynomial in :math:`q^2`, so it
    continues analytically to :math:`q^2 < 0` (below threshold) as long as
    :math:`P_l(q^2 r^2) > 0`; beyond that the result is NaN.  The derivative
    with respect to :math:`q^2` stays finite at threshold.
    """
    return _inverse_formfactor(_k.blatt_weisskopf_inverse_gradient_q2_kernel, _check_scalar(q2, "q2"), r, l)


def _inverse_f0(q0, r, l, dtype):
    q0 = _check_scalar(q0, "q0", positive=True)
    return dtype.type(_k.blatt_weisskopf_inverse_gradient_kernel(q0, r, l)[0])


@_sections(parameters=[_Q, _Q0_POSITIVE, _R, _L], returns=[_ARRAY])
def blatt_weisskopf_ratio(q, q0, r, l):
    """Formfactor ratio :math:`F(q, r, l)/F(q_0, r, l)`."""
    return _formfactor(_k.blatt_weisskopf_ratio_kernel, q, r, l, q0)


@_sections(parameters=[_Q, _Q0_POSITIVE, _R, _L], returns=[_ARRAY])
def blatt_weisskopf_ratio_squared(q, q0, r, l):
    """Squared formfactor ratio :math:`F^2(q, r, l)/F^2(q_0, r, l)`."""
    return _formfactor(_k.blatt_weisskopf_ratio_squared_kernel, q, r, l, q0)


@_sections(parameters=[_Q, _R, _L], returns=[("f, df_dr : numpy.ndarray", "F and dF/dr (GeV).")])
def blatt_weisskopf_gradient(q, r, l):
    """Formfactor and its derivative with respect to the radius.

    .. math::

        \\frac{\\partial F}{\\partial r} = -F \\frac{P_l'(z^2)}{P_l(z^2)} q^2 r.
    """
    (q,), shape, dtype = _arrays(q=q)
    r = _check_scalar(r, "r", non_negative=True)
    out = np.empty_like(q)
    d_dr = np.empty_like(q)
    _k.blatt_weisskopf_gradient_kernel(q, dtype.type(r), _check_l(l), out, d_dr)
    return out.reshape(shape), d_dr.reshape(shape)


def _with_order(kernel, x, l, name="x", order_name="l", maximum=MAX_ORBITAL_ANGULAR_MOMENTUM):
    """``kernel(x, l, out)`` over the array argument ``x`` (named ``name``) and the order ``l``."""
    (x,), shape, _ = _arrays(**{name: x})
    out = np.empty_like(x)
    kernel(x, _check_l(l, order_name, maximum), out)
    return out.reshape(shape)


@_sections(
    parameters=[("f : array_like", "Covariant factor f (dimensionless)."),
                ("j : int", "Resonance spin, 0 to 4.")],
    returns=[_ARRAY])
def covariant_factor_j(f, j):
    """Covariant factor :math:`F_J^{(cov)}` (paper eq. covariant_factor_j).

    With :math:`f = \\sqrt{1 + y^2}` (``vecampfit.kinematics.covariant_factor``):
    :math:`F_0 = 1`, :math:`F_1 = f`, :math:`F_2 = 1/2 + f^2`,
    :math:`F_3 = f (3/2 + f^2)`, :math:`F_4 = (3 + 24 f^2 + 8 f^4)/35`.
    """
    return _with_order(_k.covariant_factor_j_kernel, f, j, "f", "j", MAX_COVARIANT_SPIN)


@_sections(parameters=[_COSINE, _DEGREE], returns=[_ARRAY])
def legendre(x, l):
    """Legendre polynomial :math:`P_l(x)`, ``l = 0..5``.

    :math:`P_0 = 1`, :math:`P_1 = x`,
    :math:`P_n = [(2n - 1) x P_{n-1} - (n - 1) P_{n-2}]/n`.
    """
    return _with_order(_k.legendre_kernel, x, l)


@_sections(parameters=[_COSINE, _DEGREE], returns=[_ARRAY])
def legendre_laura(x, l):
    """Legendre polynomial in Laura++'s normalization.

    .. math::

        P_l^{(Leg\\ Laura)}(x) = \\frac{(-1)^l 2^{2l}}{\\binom{2l}{l}} P_l(x).
    """
    return _with_order(_k.legendre_laura_kernel, x, l)


@_sections(
    parameters=[("p_star, q : array_like", "Momenta (GeV)."), ("f : array_like", "Covariant factor f."),
                ("cos_theta : array_like", "Cosine of the helicity angle of R."),
                ("l : int", "Spin of R, 0 to 4.")],
    returns=[("numpy.ndarray", "In GeV^(2l).")])
def covariant_angular_distribution(p_star, q, f, cos_theta, l):
    """Full covariant angular distribution of the decay chain 0 -> R 3, R -> 1 2.

    .. math::

        A_R^{(ang)} = (p^* q)^l F_l^{(cov)}(f) P_l^{(Leg\\ Laura)}(\\cos\\theta_R)

    (paper section 9.2), ``p*`` the momentum of particle 3 in the rest frame
    of 0, ``q`` the momentum of 1 and 2 in the rest frame of R.
    """
    (p_star, q, f, cos_theta), shape, _ = _arrays(p_star=p_star, q=q, f=f, cos_theta=cos_theta)
    out = np.empty_like(q)
    _k.covariant_angular_distribution_kernel(p_star, q, f, cos_theta,
                                             _check_l(l, "l", MAX_COVARIANT_SPIN), out)
    return out.reshape(shape)


def _complex(re, im, shape):
    out = np.empty(re.shape, np.complex128 if re.dtype == np.float64 else np.complex64)
    out.real = re
    out.imag = im
    return out.reshape(shape)


def _constant_width(m, m0, gamma0, width_m0):
    (m,), shape, dtype = _arrays(m=m)
    m0 = _check_scalar(m0, "m0", positive=True)
    gamma0 = _check_scalar(gamma0, "gamma0", non_negative=True)
    re, im = np.empty_like(m), np.empty_like(m)
    kernel = _k.breit_wigner_constant_width_m0_kernel if width_m0 else _k.breit_wigner_constant_width_m_kernel
    kernel(m, dtype.type(m0), dtype.type(gamma0), re, im)
    return _complex(re, im, shape)


@_sections(
    parameters=[_M, _M0_GAMMA0],
    returns=[("numpy.ndarray", "Complex (complex64 for float32 input), in GeV^-2.")])
def breit_wigner_constant_width_m(m, m0, gamma0):
    """Constant-width Breit-Wigner amplitude :math:`1/(m_0^2 - m^2 - i m \\Gamma_0)`."""
    return _constant_width(m, m0, gamma0, False)


@_sections(parameters=[_M, _M0_GAMMA0], returns=[("numpy.ndarray", "Complex, in GeV^-2.")])
def breit_wigner_constant_width_m0(m, m0, gamma0):
    """Constant-width Breit-Wigner amplitude :math:`1/(m_0^2 - m^2 - i m_0 \\Gamma_0)`."""
    return _constant_width(m, m0, gamma0, True)


@_sections(
    parameters=[("s : array_like", "Squared invariant mass (GeV^2)."),
                ("m0 : float", "Resonance mass (GeV)."),
                ("numerator : array_like", "Complex :math:`\\mathcal{N}`."),
                ("width_term : array_like", "Real :math:`\\mathcal{G}` (GeV^2).")],
    returns=[("numpy.ndarray", "Complex amplitude.")])
def breit_wigner_general(s, m0, numerator, width_term):
    """General Breit-Wigner amplitude :math:`\\mathcal{N}/(m_0^2 - s - i \\mathcal{G})`.

    :math:`\\mathcal{N}(m) = \\alpha g_a n_a(m)` is the coupling and formfactor
    of the current channel and :math:`\\mathcal{G}(m) = m_0 \\Gamma(m) =
    \\sum_b g_b^2 \\rho_b(m) n_b^2(m)` the sum over all channels.
    """
    numerator = np.asarray(numerator)
    (s, n_re, n_im, g), shape, dtype = _arrays(s=s, numerator_real=numerator.real,
                                               numerator_imag=np.imag(numerator), width_term=width_term)
    m0 = _check_scalar(m0, "m0", positive=True)
    re, im = np.empty_like(s), np.empty_like(s)
    _k.breit_wigner_general_kernel(s, dtype.type(m0), n_re, n_im, g, re, im)
    return _complex(re, im, shape)


def _resonance(m, q, q0, m0, gamma0, r, l):
    """The checked arguments of a Breit-Wigner with mass-dependent width."""
    (m, q), shape, dtype = _arrays(m=m, q=q)
    m0 = _check_scalar(m0, "m0", positive=True)
    gamma0 = _check_scalar(gamma0, "gamma0", non_negative=True)
    r = _check_scalar(r, "r", non_negative=True)
    l = _check_l(l)
    q0 = _check_scalar(q0, "q0", positive=True)
    return m, q, q0, m0, gamma0, r, l, shape, dtype


def _q_f(m, q, q0, m0, gamma0, r, l, routine):
    m, q, q0, m0, gamma0, r, l, shape, dtype = _resonance(m, q, q0, m0, gamma0, r, l)
    re, im = np.empty_like(m), np.empty_like(m)
    real = routine == "breit_wigner_m2"
    getattr(_k, routine + "_kernel")(m, q, dtype.type(m0), dtype.type(gamma0), dtype.type(1 / q0),
                                     dtype.type(r), _inverse_f0(q0, r, l, dtype), l,
                                     *((re,) if real else (re, im)))
    return re.reshape(shape) if real else _complex(re, im, shape)


@_sections(
    parameters=[_M, ("q : array_like", "Breakup momentum at ``m`` (GeV)."),
                ("q0 : float", "Breakup momentum at ``m0`` (GeV), positive."), _M0_GAMMA0, _RADIUS,
                ("l : int", "Orbital angular momentum of the decay, 0 to 5.")],
    returns=[_AMPLITUDE])
def breit_wigner_q_f_nophsp(m, q, q0, m0, gamma0, r, l):
    """Breit-Wigner amplitude without phase-space factor (paper eq. breit_wigner_q_f_nophsp).

    .. math::

        B^{(no\\ q)}(m) = \\frac{F(q)/F(q_0)}{m_0^2 - m^2 - i m_0 \\Gamma(m)}.
    """
    return _q_f(m, q, q0, m0, gamma0, r, l, "breit_wigner_q_f_nophsp")


@_sections(parameters=[_M_Q, _Q0_M0_GAMMA0, _RADIUS, _L], returns=[_AMPLITUDE])
def breit_wigner_q_f(m, q, q0, m0, gamma0, r, l):
    """Breit-Wigner amplitude with phase-space factor (paper eq. breit_wigner_q_f).

    .. math::

        B(m) = \\frac{(q/q_0)^l F(q)/F(q_0)}{m_0^2 - m^2 - i m_0 \\Gamma(m)}.
    """
    return _q_f(m, q, q0, m0, gamma0, r, l, "breit_wigner_q_f")


@_sections(parameters=[_M_Q, _Q0_M0_GAMMA0, _RADIUS, _L], returns=[("numpy.ndarray", "Real, in GeV^-4.")])
def breit_wigner_m2(m, q, q0, m0, gamma0, r, l):
    """Breit-Wigner matrix element (paper eq. breit_wigner_m2).

    .. math::

        B(m) = \\frac{(q/q_0)^{2l+1} F_l^2(q)/F_l^2(q_0)}{(m_0^2 - m^2)^2 + m_0^2 \\Gamma^2(m)}.
    """
    return _q_f(m, q, q0, m0, gamma0, r, l, "breit_wigner_m2")


def _q_f_gradient(m, q, m0, gamma0, r, l, q0, dq0_dm0, phase_space):
    m, q, q0, m0, gamma0, r, l, shape, dtype = _resonance(m, q, q0, m0, gamma0, r, l)
    dq0_dm0 = _check_scalar(dq0_dm0, "dq0_dm0")
    inv_f0, dinv_dq0, dinv_dr = _k.blatt_weisskopf_inverse_gradient_kernel(q0, r, l)
    t = dtype.type
    out = np.empty((8, m.shape[0]), dtype)
    kernel = _k.breit_wigner_q_f_gradient_kernel if phase_space else _k.breit_wigner_q_f_nophsp_gradient_kernel
    # out rows: value, d/dm0, d/dGamma0, d/dr, each as (re, im).
    kernel(m, q, t(m0), t(gamma0), t(1 / q0), t(-dq0_dm0 / q0**2), t(r), t(inv_f0),
           t(dinv_dq0 * dq0_dm0), t(dinv_dr), l, *out)
    return tuple(_complex(out[2 * k], out[2 * k + 1], shape) for k in range(4))


@_sections(
    parameters=[_M_Q, _M0_GAMMA0, _RADIUS, _L, _Q0,
                ("dq0_dm0 : float", ":math:`dq_0/dm_0` (dimensionless).")],
    returns=[("value, d_dm0, d_dgamma0, d_dr : numpy.ndarray",
              "Complex amplitude and its derivatives (per GeV, per GeV, per GeV^-1).")])
def breit_wigner_q_f_nophsp_gradient(m, q, m0, gamma0, r, l, q0, dq0_dm0):
    """:func:`breit_wigner_q_f_nophsp` and its derivatives with respect to m0, Gamma0 and r.

    ``q0`` depends on ``m0`` through the breakup momentum; ``dq0_dm0`` is that
    derivative.  The block routine takes the parameter-buffer values
    ``1/q0``, ``d(1/q0)/dm0``, ``1/F(q0)``, ``d(1/F(q0))/dm0``,
    ``d(1/F(q0))/dr``; this function computes them.
    """
    return _q_f_gradient(m, q, m0, gamma0, r, l, q0, dq0_dm0, False)


@_sections(
    parameters=[_M_Q, _M0_GAMMA0, _RADIUS, _L, _Q0, ("dq0_dm0 : float", ":math:`dq_0/dm_0`.")],
    returns=[("value, d_dm0, d_dgamma0, d_dr : numpy.ndarray",
              "Complex amplitude and its derivatives.")])
def breit_wigner_q_f_gradient(m, q, m0, gamma0, r, l, q0, dq0_dm0):
    """:func:`breit_wigner_q_f` and its derivatives with respect to m0, Gamma0 and r."""
    return _q_f_gradient(m, q, m0, gamma0, r, l, q0, dq0_dm0, True)


# ---------------------------------------------------------------------------
# Flatte distribution and K-matrix
# ---------------------------------------------------------------------------

__all__ += [
    "flatte",
    "flatte_q2",
    "k_matrix_add_pole",
    "p_vector_add_pole",
    "k_matrix_p_vector_add_pole",
    "k_matrix_n_factor",
    "k_matrix_denominator",
    "k_matrix_amplitude",
]


def _flatte_parameters(m, m0, g1, g2):
    """Check the masses ``m`` (an array) and return the checked ``m0``, ``g1``, ``g2``."""
    if not np.all(m > 0):
        raise ValueError("m must be positive")
    return (_check_scalar(m0, "m0", positive=True), _check_scalar(g1, "g1", non_negative=True),
            _check_scalar(g2, "g2", non_negative=True))


def flatte(m, m0, g1, g2, m11, m12, m21, m22):
    """Flatté amplitude of a resonance near the threshold of a second channel.

    .. math::

        A(m) = \\frac{1}{m_0^2 - m^2 - i m_0 \\left(g_1 \\rho_1(m) + g_2 \\rho_2(m)\\right)},
        \\qquad \\rho_k(m) = \\frac{2 q_k(m)}{m},

    with :math:`q_k` the decay momentum of channel ``k`` (daughters of masses
    ``mk1``, ``mk2``) at the invariant mass ``m``, continued analytically below
    the channel's threshold (the paper's momentum analytic continuation,
    :func:`vecampfit.kinematics.momentum_analytic_continuation`):
    :math:`q_k = i\\sqrt{-q_k^2}`, so that there
    :math:`-i m_0 g_k \\rho_k = m_0 g_k\\, 2|q_k|/m` is real and shifts the
    real part of the denominator (the cusp of e.g. the :math:`f_0(980)`
    at the :math:`K\\bar{K}` threshold).  :math:`\\rho_k = 2q_k/m` tends to
    :math:`\\beta_k`, the daughters' velocity, far above threshold.
    Couplings in this form are in GeV (the form with
    :math:`g_k^2` or with the paper's phase-space factor
    :math:`q_k/(8\\pi m)` differs by constant factors).

    Parameters
    ----------
    m : array_like
        Invariant mass (GeV), positive.
    m0 : float
        Resonance mass (GeV), positive.
    g1, g2 : float
        Couplings to channels 1 and 2 (GeV), non-negative.
    m11, m12 : float
        Masses of the daughters of channel 1 (GeV), e.g. pi+ pi-.
    m21, m22 : float
        Masses of the daughters of channel 2 (GeV), e.g. K+ K-.

    Returns
    -------
    numpy.ndarray
        Complex amplitude (GeV^-2), complex64 for float32 ``m``.

    Raises
    ------
    ValueError
        Non-positive ``m`` or ``m0``, negative couplings or daughter masses.

    See Also
    --------
    flatte_q2 : the same from precomputed squared momenta.
    """
    (m,), shape, dtype = _arrays(m=m)
    m0, g1, g2 = _flatte_parameters(m, m0, g1, g2)
    masses = [_check_scalar(v, name, non_negative=True)
              for v, name in ((m11, "m11"), (m12, "m12"), (m21, "m21"), (m22, "m22"))]
    re, im = np.empty_like(m), np.empty_like(m)
    t = dtype.type
    _k.flatte_masses_kernel(m, t(m0), t(g1), t(g2), *(t(v) for v in masses), re, im)
    return _complex(re, im, shape)


@_sections(
    parameters=[("m : array_like", "Invariant mass (GeV), positive."),
                ("q1_squared, q2_squared : array_like",
                 "Squared decay momenta of channels 1 and 2 at ``m`` (GeV^2), e.g. from\n"
                 ":func:`vecampfit.kinematics.decay_momentum_squared`."),
                ("m0 : float", "Resonance mass (GeV), positive."),
                ("g1, g2 : float", "Couplings (GeV), non-negative.")],
    returns=[_AMPLITUDE])
def flatte_q2(m, q1_squared, q2_squared, m0, g1, g2):
    """Flatté amplitude from the squared decay momenta of its two channels.

    The amplitude of :func:`flatte`,
    :math:`1/(m_0^2 - m^2 - i m_0 (g_1 \\rho_1 + g_2 \\rho_2))`,
    :math:`\\rho_k = 2 q_k/m`, with :math:`q_k^2` given (as a density keeps
    them in its event buffer): negative below the channel's threshold, where
    :math:`q_k = i\\sqrt{-q_k^2}`.
    """
    (m, q1_squared, q2_squared), shape, dtype = _arrays(m=m, q1_squared=q1_squared, q2_squared=q2_squared)
    m0, g1, g2 = _flatte_parameters(m, m0, g1, g2)
    re, im = np.empty_like(m), np.empty_like(m)
    t = dtype.type
    _k.flatte_kernel(m, q1_squared, q2_squared, t(m0), t(g1), t(g2), re, im)
    return _complex(re, im, shape)


def _precision(**named):
    """Common real dtype of named real or complex inputs (float64 unless all arrays are single precision)."""
    kinds = {}
    for name, value in named.items():
        if value is None:
            continue
        a = np.asarray(value)
        if a.dtype.kind not in "fciu" or a.dtype.kind == "c" and a.dtype not in (np.complex64, np.complex128):
            raise TypeError(f"{name}: expected numbers, got dtype {a.dtype}")
        if isinstance(value, (np.ndarray, np.generic)) and a.dtype.kind in "fc":
            kinds[name] = np.dtype(np.float32) if a.dtype in (np.float32, np.complex64) else np.dtype(np.float64)
    found = set(kinds.values())
    if len(found) > 1:
        raise TypeError("mixed precisions: " + ", ".join(f"{n} is {d}" for n, d in kinds.items()))
    return found.pop() if found else np.dtype(np.float64)


def _couplings(g):
    g = np.atleast_1d(np.asarray(g, dtype=np.float64))
    if g.ndim != 1 or len(g) not in (1, 2) or not np.all(np.isfinite(g)):
        raise ValueError(f"g must hold one or two finite couplings (one per channel), got {g!r}")
    return g


def _k_rows(k, nc, shape, dtype):
    """A real symmetric K of shape shape + (nc, nc) as rows (k11, k12, k22) of length prod(shape)."""
    k = np.asarray(k)
    if k.dtype.kind == "c":
        raise TypeError("k: the K-matrix must be real")
    if k.shape[-2:] != (nc, nc):
        raise ValueError(f"k must have shape (..., {nc}, {nc}) for {nc} channel(s), got {k.shape}")
    k = np.broadcast_to(k.astype(dtype, copy=False), shape + (nc, nc))
    rows = np.zeros((3, int(np.prod(shape, dtype=np.int64))), dtype)
    rows[0] = k[..., 0, 0].ravel()
    if nc == 2:
        if not np.array_equal(k[..., 0, 1], k[..., 1, 0]):
            raise ValueError("k must be symmetric (K_12 = K_21)")
        rows[1] = k[..., 0, 1].ravel()
        rows[2] = k[..., 1, 1].ravel()
    return rows


def _k_from_rows(rows, nc, shape):
    k = np.empty(shape + (nc, nc), rows.dtype)
    k[..., 0, 0] = rows[0].reshape(shape)
    if nc == 2:
        k[..., 0, 1] = k[..., 1, 0] = rows[1].reshape(shape)
        k[..., 1, 1] = rows[2].reshape(shape)
    return k


def _c_rows(v, nc, shape, dtype, name, fill=0):
    """A complex vector of shape shape + (nc,) as rows (Re 1, Im 1, Re 2, Im 2)."""
    v = np.asarray(v)
    if v.shape[-1:] != (nc,):
        raise ValueError(f"{name} must have shape (..., {nc}) for {nc} channel(s), got {v.shape}")
    v = np.broadcast_to(v, shape + (nc,))
    rows = np.full((4, int(np.prod(shape, dtype=np.int64))), fill, dtype)
    for c in range(nc):
        rows[2 * c] = np.real(v[..., c]).ravel()
        rows[2 * c + 1] = np.imag(v[..., c]).ravel()
    return rows


def _c_from_rows(rows, nc, shape):
    cdtype = np.complex64 if rows.dtype == np.float32 else np.complex128
    out = np.empty(shape + (nc,), cdtype)
    for c in range(nc):
        out[..., c] = (rows[2 * c] + 1j * rows[2 * c + 1]).reshape(shape)
    return out


def _pole(k, p, s, m_pole, production, g, routine):
    g = _couplings(g)
    nc = len(g)
    dtype = _precision(k=k, p=p, s=s)
    s = np.asarray(s)
    if np.iscomplexobj(s):
        raise TypeError("s: the K-matrix routines take real s")
    s = s.astype(dtype, copy=False)
    m_pole = _check_scalar(m_pole, "m_pole", non_negative=True)
    production = complex(production)
    if not np.isfinite(production):
        raise ValueError(f"production must be finite, got {production!r}")
    parts = [s.shape]
    if k is not None:
        parts.append(np.shape(k)[:-2])
    if p is not None:
        parts.append(np.shape(p)[:-1])
    shape = np.broadcast_shapes(*parts)
    n = int(np.prod(shape, dtype=np.int64))
    k_rows = _k_rows(k, nc, shape, dtype) if k is not None else np.zeros((3, n), dtype)
    p_rows = _c_rows(p, nc, shape, dtype, "p") if p is not None else np.zeros((4, n), dtype)
    s_flat = np.ascontiguousarray(np.broadcast_to(s, shape), dtype=dtype).ravel()
    t = dtype.type
    # The block routine <routine>_<nc>: K rows k11[, k12, k22], P rows
    # Re P1, Im P1[, Re P2, Im P2] are updated in place.
    couplings = [t(v) for v in g]
    k_args = list(k_rows[:1] if nc == 1 else k_rows)
    p_args = list(p_rows[:2 * nc])
    production_args = [t(production.real), t(production.imag)]
    kernel = getattr(_k, f"{routine}_{nc}_kernel")
    if routine == "k_matrix_add_pole":
        kernel(s_flat, t(m_pole), *couplings, *k_args)
    elif routine == "p_vector_add_pole":
        kernel(s_flat, t(m_pole), *production_args, *couplings, *p_args)
    else:
        kernel(s_flat, t(m_pole), *production_args, *couplings, *k_args, *p_args)
    return _k_from_rows(k_rows, nc, shape), _c_from_rows(p_rows, nc, shape)


@_sections(
    parameters=[("k : array_like or None",
                 "Real symmetric K-matrix, shape ``(..., n, n)`` with ``n`` the number\n"
                 "of channels (dimensionless); None starts from zero."),
                _S, _M_POLE,
                ("g : sequence of float",
                 "Couplings :math:`g_a` to the ``n = len(g)`` channels, one or two (GeV).")],
    returns=[("numpy.ndarray", "New K-matrix, shape ``broadcast(s, k[..., 0, 0]) + (n, n)``.")])
def k_matrix_add_pole(k, s, m_pole, g):
    """Add a pole to a one- or two-channel K-matrix.

    .. math::

        K_{ab} \\to K_{ab} + \\frac{g_a g_b}{m_R^2 - s}.

    Starting from the non-resonant part :math:`b_{ab}` (or zero) and adding
    every pole gives the paper's
    :math:`K_{ab} = b_{ab} + \\sum_R g_a g_b/(m_R^2 - s)`.
    """
    return _pole(k, None, s, m_pole, 0.0, g, "k_matrix_add_pole")[0]


@_sections(
    parameters=[("p : array_like or None", "Complex P-vector, shape ``(..., n)``; None starts from zero."),
                _S, _M_POLE, ("production : complex", "Production amplitude :math:`A_R` of the pole."),
                ("g : sequence of float", "Couplings :math:`g_a` to the channels, one or two (GeV).")],
    returns=[("numpy.ndarray", "New complex P-vector, shape ``broadcast(s, p[..., 0]) + (n,)``.")])
def p_vector_add_pole(p, s, m_pole, production, g):
    """Add a pole to a one- or two-channel P-vector.

    .. math::

        P_a \\to P_a + A_R \\frac{g_a}{m_R^2 - s}.

    Starting from the non-resonant production amplitudes :math:`a_a` gives
    the paper's :math:`P_a = a_a + \\sum_R A_R g_a/(m_R^2 - s)`.
    """
    return _pole(None, p, s, m_pole, production, g, "p_vector_add_pole")[1]


def k_matrix_p_vector_add_pole(k, p, s, m_pole, production, g):
    """Add the same pole to a K-matrix and a P-vector (one division per event in the block routine).

    :math:`K_{ab} \\to K_{ab} + g_a g_b/(m_R^2 - s)` and
    :math:`P_a \\to P_a + A_R g_a/(m_R^2 - s)`; see :func:`k_matrix_add_pole`
    and :func:`p_vector_add_pole` for the arguments.

    Returns
    -------
    k, p : numpy.ndarray
        New K-matrix (real) and P-vector (complex).
    """
    return _pole(k, p, s, m_pole, production, g, "k_matrix_p_vector_add_pole")


@_sections(
    parameters=[("q_squared : array_like", "Squared decay momentum (GeV^2), negative below threshold."),
                ("q0 : float", "Momentum scale (GeV), positive."),
                ("r : float", "Formfactor radius (GeV^-1), non-negative."), _L],
    returns=[("numpy.ndarray", "Complex ``n`` (dimensionless).")])
def k_matrix_n_factor(q_squared, q0, r, l):
    """Kinematic factor :math:`n = (q/q_0)^L F(q)/F(q_0)` of a K-matrix channel, continued below threshold.

    .. math::

        n(q) = \\left(\\frac{q}{q_0}\\right)^L \\frac{F(q, r, L)}{F(q_0, r, L)},

    the centrifugal barrier and Blatt-Weisskopf formfactor of the paper's
    K-matrix amplitude.  Below threshold (:math:`q^2 < 0`) the momentum is
    :math:`q = i\\sqrt{-q^2}` (the paper's momentum analytic continuation),
    :math:`(q/q_0)^L = i^L |q/q_0|^L`, and :math:`F = 1/\\sqrt{P_L(q^2 r^2)}`
    continues as a polynomial in :math:`q^2` (real while
    :math:`P_L(q^2 r^2) > 0`, NaN beyond).  :math:`n^2` is real on both sides.
    """
    (q_squared,), shape, dtype = _arrays(q_squared=q_squared)
    q0 = _check_scalar(q0, "q0", positive=True)
    r = _check_scalar(r, "r", non_negative=True)
    l = _check_l(l)
    inverse_f0 = _k.blatt_weisskopf_inverse_gradient_kernel(q0, r, l)[0]
    re, im = np.empty_like(q_squared), np.empty_like(q_squared)
    t = dtype.type
    _k.k_matrix_n_factor_kernel(q_squared, t(1 / q0), t(r), t(inverse_f0), l, re, im)
    return _complex(re, im, shape)


def _k_matrix(k, p, rho, n):
    k = np.asarray(k)
    if k.ndim < 2 or k.shape[-1] != k.shape[-2] or k.shape[-1] not in (1, 2):
        raise ValueError(f"k must have shape (..., 1, 1) or (..., 2, 2), got {k.shape}")
    nc = k.shape[-1]
    dtype = _precision(k=k, p=p, rho=rho, n=n)
    parts = [k.shape[:-2], np.shape(rho)[:-1]]
    if p is not None:
        parts.append(np.shape(p)[:-1])
    if n is not None:
        parts.append(np.shape(n)[:-1])
    try:
        shape = np.broadcast_shapes(*parts)
    except ValueError as exc:
        raise ValueError("array shapes do not broadcast: k " + str(k.shape) + ", rho " + str(np.shape(rho))
                         + (", p " + str(np.shape(p)) if p is not None else "")
                         + (", n " + str(np.shape(n)) if n is not None else "")) from exc
    size = int(np.prod(shape, dtype=np.int64))
    k_rows = _k_rows(k, nc, shape, dtype)
    rho_rows = _c_rows(rho, nc, shape, dtype, "rho")
    n_rows = _c_rows(n, nc, shape, dtype, "n", fill=1) if n is not None else np.ones((4, size), dtype)
    p_rows = _c_rows(p, nc, shape, dtype, "p") if p is not None else np.zeros((4, size), dtype)
    d_rows = np.empty((8, size), dtype)
    a_rows = np.empty((4, size), dtype)
    _k.k_matrix_kernel(nc, n is None, k_rows, rho_rows, n_rows, p_rows, d_rows, a_rows)
    cdtype = np.complex64 if dtype == np.float32 else np.complex128
    d = np.empty(shape + (nc, nc), cdtype)
    for a in range(nc):
        for b in range(nc):
            e = 2 * (a * 2 + b)
            d[..., a, b] = (d_rows[e] + 1j * d_rows[e + 1]).reshape(shape)
    return d, _c_from_rows(a_rows, nc, shape)


@_sections(
    parameters=[_K, _RHO,
                ("n : array_like, optional",
                 "Kinematic factors, complex, shape ``(..., n)``; omitted for S waves.")],
    returns=[("numpy.ndarray", "Complex matrix, shape ``(..., n, n)``.")])
def k_matrix_denominator(k, rho, n=None):
    """The matrix :math:`I - i K \\rho n^2` of the K-matrix amplitude (one or two channels).

    .. math::

        D_{ab} = \\delta_{ab} - i K_{ab} \\rho_b n_b^2,

    with :math:`\\rho` and :math:`n` diagonal: the phase-space factors of the
    channels (paper eq. phase_space_factor; for real ``s`` above threshold
    from :func:`vecampfit.kinematics.phase_space_2body_complex`, which also
    continues them below threshold to :math:`i|\\rho|`) and the kinematic
    factors of :func:`k_matrix_n_factor`.  Without ``n``, the S-wave form
    :math:`I - i K \\rho`.
    """
    return _k_matrix(k, None, rho, n)[0]


@_sections(
    parameters=[_K, ("p : array_like", "Complex P-vector, shape ``(..., n)``."), _RHO,
                ("n : array_like, optional", "Kinematic factors, complex, shape ``(..., n)``.")],
    returns=[("numpy.ndarray",
              "Complex amplitude of each channel, shape ``(..., n)`` (units of ``P``).")])
def k_matrix_amplitude(k, p, rho, n=None):
    """K-matrix amplitude :math:`A = n\\,[I - i K \\rho n^2]^{-1} P` (one or two channels).

    The paper's K-matrix production amplitude (Chung et al.): ``K`` from
    :func:`k_matrix_add_pole` (real symmetric), ``P`` from
    :func:`p_vector_add_pole`, ``rho`` and ``n`` as in
    :func:`k_matrix_denominator`; without ``n``, the S-wave form
    :math:`[I - i K \\rho]^{-1} P`.  Two channels are solved by LU
    decomposition with partial pivoting (:mod:`vecampfit.linear_algebra`).
    """
    return _k_matrix(k, p, rho, n)[1]
