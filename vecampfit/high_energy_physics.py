"""High-energy-physics lineshapes: formfactors, covariant factors, Breit-Wigner amplitudes.

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
"""

import numbers

import numpy as np

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


def _arrays(**named):
    """Broadcast named real arrays to one shape and one precision.

    Returns the flattened contiguous arrays, the shape and the dtype.
    """
    arrays = {}
    for name, value in named.items():
        if isinstance(value, (np.ndarray, np.generic)):
            if value.dtype not in (np.float32, np.float64):
                raise TypeError(f"{name}: expected a float32 or float64 array, got dtype {value.dtype}")
            a = np.asarray(value)
        else:
            try:
                a = np.asarray(value, dtype=np.float64)
            except (TypeError, ValueError) as exc:
                raise TypeError(f"{name}: expected real numbers, got {value!r}") from exc
        arrays[name] = a
    float_dtypes = {a.dtype for a in arrays.values() if a.ndim > 0}
    if len(float_dtypes) > 1:
        raise TypeError("mixed precisions: " + ", ".join(
            f"{n} is {a.dtype}" for n, a in arrays.items() if a.ndim > 0))
    dtype = float_dtypes.pop() if float_dtypes else np.dtype(np.float64)
    try:
        shape = np.broadcast_shapes(*(a.shape for a in arrays.values()))
    except ValueError as exc:
        raise ValueError("array shapes do not broadcast: " + ", ".join(
            f"{n} {a.shape}" for n, a in arrays.items())) from exc
    flat = [np.ascontiguousarray(np.broadcast_to(a, shape), dtype=dtype).ravel() for a in arrays.values()]
    return flat, shape, dtype


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


def blatt_weisskopf(q, r, l):
    """Blatt-Weisskopf formfactor :math:`F(q, r, l) = 1/\\sqrt{P_l((q r)^2)}`.

    Parameters
    ----------
    q : array_like
        Breakup momentum (GeV).
    r : float
        Effective radius (GeV^-1), non-negative.
    l : int
        Orbital angular momentum, 0 to 5.

    Returns
    -------
    numpy.ndarray
        F, of the precision of ``q``.
    """
    (q,), shape, dtype = _arrays(q=q)
    r = _check_scalar(r, "r", non_negative=True)
    out = np.empty_like(q)
    _k.blatt_weisskopf_kernel(q, dtype.type(r), dtype.type(1), _check_l(l), 0, out, out)
    return out.reshape(shape)


def blatt_weisskopf_squared(q, r, l):
    """Squared Blatt-Weisskopf formfactor :math:`F^2(q, r, l) = 1/P_l((q r)^2)`.

    Parameters
    ----------
    q : array_like
        Breakup momentum (GeV).
    r : float
        Effective radius (GeV^-1).
    l : int
        Orbital angular momentum, 0 to 5.

    Returns
    -------
    numpy.ndarray
    """
    (q,), shape, dtype = _arrays(q=q)
    r = _check_scalar(r, "r", non_negative=True)
    out = np.empty_like(q)
    _k.blatt_weisskopf_kernel(q, dtype.type(r), dtype.type(1), _check_l(l), 1, out, out)
    return out.reshape(shape)


def blatt_weisskopf_inverse_gradient(q0, r, l):
    """Inverse formfactor :math:`1/F(q_0, r, l)` and its derivatives, for parameter buffers.

    The block routines take ``inverse_f0 = 1/F(q0)`` (and, for gradients,
    ``d(1/F0)/dm0 = d(1/F0)/dq0 * dq0/dm0`` and ``d(1/F0)/dr``) from the
    parameter buffer; this computes them in float64.

    Parameters
    ----------
    q0 : float
        Breakup momentum at the resonance mass (GeV).
    r : float
        Effective radius (GeV^-1).
    l : int
        Orbital angular momentum, 0 to 5.

    Returns
    -------
    inverse, d_dq0, d_dr : float
        :math:`\\sqrt{P_l(z_0^2)}`, its derivative with respect to ``q0``
        (GeV^-1) and with respect to ``r`` (GeV).
    """
    q0 = _check_scalar(q0, "q0", non_negative=True)
    r = _check_scalar(r, "r", non_negative=True)
    return _k.blatt_weisskopf_inverse_gradient_kernel(q0, r, _check_l(l))


def blatt_weisskopf_inverse_gradient_q2(q2, r, l):
    """Inverse formfactor from the squared momentum, continued below threshold.

    :math:`1/F = \\sqrt{P_l(q^2 r^2)}` is a polynomial in :math:`q^2`, so it
    continues analytically to :math:`q^2 < 0` (below threshold) as long as
    :math:`P_l(q^2 r^2) > 0`; beyond that the result is NaN.  The derivative
    with respect to :math:`q^2` stays finite at threshold.

    Parameters
    ----------
    q2 : float
        Squared breakup momentum (GeV^2), may be negative.
    r : float
        Effective radius (GeV^-1).
    l : int
        Orbital angular momentum, 0 to 5.

    Returns
    -------
    inverse, d_dq2, d_dr : float
        :math:`\\sqrt{P_l(q^2 r^2)}` and its derivatives by :math:`q^2`
        (GeV^-2) and by ``r`` (GeV).
    """
    q2 = _check_scalar(q2, "q2")
    r = _check_scalar(r, "r", non_negative=True)
    return _k.blatt_weisskopf_inverse_gradient_q2_kernel(q2, r, _check_l(l))


def _inverse_f0(q0, r, l, dtype):
    q0 = _check_scalar(q0, "q0", positive=True)
    return dtype.type(_k.blatt_weisskopf_inverse_gradient_kernel(q0, r, l)[0])


def blatt_weisskopf_ratio(q, q0, r, l):
    """Formfactor ratio :math:`F(q, r, l)/F(q_0, r, l)`.

    Parameters
    ----------
    q : array_like
        Breakup momentum (GeV).
    q0 : float
        Breakup momentum at the resonance mass (GeV), positive.
    r : float
        Effective radius (GeV^-1).
    l : int
        Orbital angular momentum, 0 to 5.

    Returns
    -------
    numpy.ndarray
    """
    (q,), shape, dtype = _arrays(q=q)
    r = _check_scalar(r, "r", non_negative=True)
    l = _check_l(l)
    out = np.empty_like(q)
    _k.blatt_weisskopf_kernel(q, dtype.type(r), _inverse_f0(q0, r, l, dtype), l, 2, out, out)
    return out.reshape(shape)


def blatt_weisskopf_ratio_squared(q, q0, r, l):
    """Squared formfactor ratio :math:`F^2(q, r, l)/F^2(q_0, r, l)`.

    Parameters
    ----------
    q : array_like
        Breakup momentum (GeV).
    q0 : float
        Breakup momentum at the resonance mass (GeV), positive.
    r : float
        Effective radius (GeV^-1).
    l : int
        Orbital angular momentum, 0 to 5.

    Returns
    -------
    numpy.ndarray
    """
    (q,), shape, dtype = _arrays(q=q)
    r = _check_scalar(r, "r", non_negative=True)
    l = _check_l(l)
    out = np.empty_like(q)
    _k.blatt_weisskopf_kernel(q, dtype.type(r), _inverse_f0(q0, r, l, dtype), l, 3, out, out)
    return out.reshape(shape)


def blatt_weisskopf_gradient(q, r, l):
    """Formfactor and its derivative with respect to the radius.

    .. math::

        \\frac{\\partial F}{\\partial r} = -F \\frac{P_l'(z^2)}{P_l(z^2)} q^2 r.

    Parameters
    ----------
    q : array_like
        Breakup momentum (GeV).
    r : float
        Effective radius (GeV^-1).
    l : int
        Orbital angular momentum, 0 to 5.

    Returns
    -------
    f, df_dr : numpy.ndarray
        F and dF/dr (GeV).
    """
    (q,), shape, dtype = _arrays(q=q)
    r = _check_scalar(r, "r", non_negative=True)
    out = np.empty_like(q)
    d_dr = np.empty_like(q)
    _k.blatt_weisskopf_kernel(q, dtype.type(r), dtype.type(1), _check_l(l), 4, out, d_dr)
    return out.reshape(shape), d_dr.reshape(shape)


def covariant_factor_j(f, j):
    """Covariant factor :math:`F_J^{(cov)}` (paper eq. covariant_factor_j).

    With :math:`f = \\sqrt{1 + y^2}` (``vecampfit.kinematics.covariant_factor``):
    :math:`F_0 = 1`, :math:`F_1 = f`, :math:`F_2 = 1/2 + f^2`,
    :math:`F_3 = f (3/2 + f^2)`, :math:`F_4 = (3 + 24 f^2 + 8 f^4)/35`.

    Parameters
    ----------
    f : array_like
        Covariant factor f (dimensionless).
    j : int
        Resonance spin, 0 to 4.

    Returns
    -------
    numpy.ndarray
    """
    (f,), shape, _ = _arrays(f=f)
    out = np.empty_like(f)
    _k.legendre_kernel(f, _check_l(j, "j", MAX_COVARIANT_SPIN), 2, out)
    return out.reshape(shape)


def legendre(x, l):
    """Legendre polynomial :math:`P_l(x)`, ``l = 0..5``.

    :math:`P_0 = 1`, :math:`P_1 = x`,
    :math:`P_n = [(2n - 1) x P_{n-1} - (n - 1) P_{n-2}]/n`.

    Parameters
    ----------
    x : array_like
        Argument (usually a cosine).
    l : int
        Degree, 0 to 5.

    Returns
    -------
    numpy.ndarray
    """
    (x,), shape, _ = _arrays(x=x)
    out = np.empty_like(x)
    _k.legendre_kernel(x, _check_l(l), 0, out)
    return out.reshape(shape)


def legendre_laura(x, l):
    """Legendre polynomial in Laura++'s normalization.

    .. math::

        P_l^{(Leg\\ Laura)}(x) = \\frac{(-1)^l 2^{2l}}{\\binom{2l}{l}} P_l(x).

    Parameters
    ----------
    x : array_like
        Argument (usually a cosine).
    l : int
        Degree, 0 to 5.

    Returns
    -------
    numpy.ndarray
    """
    (x,), shape, _ = _arrays(x=x)
    out = np.empty_like(x)
    _k.legendre_kernel(x, _check_l(l), 1, out)
    return out.reshape(shape)


def covariant_angular_distribution(p_star, q, f, cos_theta, l):
    """Full covariant angular distribution of the decay chain 0 -> R 3, R -> 1 2.

    .. math::

        A_R^{(ang)} = (p^* q)^l F_l^{(cov)}(f) P_l^{(Leg\\ Laura)}(\\cos\\theta_R)

    (paper section 9.2), ``p*`` the momentum of particle 3 in the rest frame
    of 0, ``q`` the momentum of 1 and 2 in the rest frame of R.

    Parameters
    ----------
    p_star, q : array_like
        Momenta (GeV).
    f : array_like
        Covariant factor f.
    cos_theta : array_like
        Cosine of the helicity angle of R.
    l : int
        Spin of R, 0 to 4.

    Returns
    -------
    numpy.ndarray
        In GeV^(2l).
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
    _k.breit_wigner_constant_width_kernel(m, dtype.type(m0), dtype.type(gamma0), width_m0, re, im)
    return _complex(re, im, shape)


def breit_wigner_constant_width_m(m, m0, gamma0):
    """Constant-width Breit-Wigner amplitude :math:`1/(m_0^2 - m^2 - i m \\Gamma_0)`.

    Parameters
    ----------
    m : array_like
        Invariant mass (GeV).
    m0, gamma0 : float
        Resonance mass and width (GeV).

    Returns
    -------
    numpy.ndarray
        Complex (complex64 for float32 input), in GeV^-2.
    """
    return _constant_width(m, m0, gamma0, False)


def breit_wigner_constant_width_m0(m, m0, gamma0):
    """Constant-width Breit-Wigner amplitude :math:`1/(m_0^2 - m^2 - i m_0 \\Gamma_0)`.

    Parameters
    ----------
    m : array_like
        Invariant mass (GeV).
    m0, gamma0 : float
        Resonance mass and width (GeV).

    Returns
    -------
    numpy.ndarray
        Complex, in GeV^-2.
    """
    return _constant_width(m, m0, gamma0, True)


def breit_wigner_general(s, m0, numerator, width_term):
    """General Breit-Wigner amplitude :math:`\\mathcal{N}/(m_0^2 - s - i \\mathcal{G})`.

    :math:`\\mathcal{N}(m) = \\alpha g_a n_a(m)` is the coupling and formfactor
    of the current channel and :math:`\\mathcal{G}(m) = m_0 \\Gamma(m) =
    \\sum_b g_b^2 \\rho_b(m) n_b^2(m)` the sum over all channels.

    Parameters
    ----------
    s : array_like
        Squared invariant mass (GeV^2).
    m0 : float
        Resonance mass (GeV).
    numerator : array_like
        Complex :math:`\\mathcal{N}`.
    width_term : array_like
        Real :math:`\\mathcal{G}` (GeV^2).

    Returns
    -------
    numpy.ndarray
        Complex amplitude.
    """
    numerator = np.asarray(numerator)
    (s, n_re, n_im, g), shape, dtype = _arrays(s=s, numerator_real=numerator.real,
                                               numerator_imag=np.imag(numerator), width_term=width_term)
    m0 = _check_scalar(m0, "m0", positive=True)
    re, im = np.empty_like(s), np.empty_like(s)
    _k.breit_wigner_general_kernel(s, dtype.type(m0), n_re, n_im, g, re, im)
    return _complex(re, im, shape)


def _q_f(m, q, q0, m0, gamma0, r, l, kind):
    (m, q), shape, dtype = _arrays(m=m, q=q)
    m0 = _check_scalar(m0, "m0", positive=True)
    gamma0 = _check_scalar(gamma0, "gamma0", non_negative=True)
    r = _check_scalar(r, "r", non_negative=True)
    l = _check_l(l)
    q0 = _check_scalar(q0, "q0", positive=True)
    re, im = np.empty_like(m), np.empty_like(m)
    _k.breit_wigner_q_f_kernel(m, q, dtype.type(m0), dtype.type(gamma0), dtype.type(1 / q0),
                               dtype.type(r), _inverse_f0(q0, r, l, dtype), l, kind, re, im)
    return re.reshape(shape) if kind == 2 else _complex(re, im, shape)


def breit_wigner_q_f_nophsp(m, q, q0, m0, gamma0, r, l):
    """Breit-Wigner amplitude without phase-space factor (paper eq. breit_wigner_q_f_nophsp).

    .. math::

        B^{(no\\ q)}(m) = \\frac{F(q)/F(q_0)}{m_0^2 - m^2 - i m_0 \\Gamma(m)}.

    Parameters
    ----------
    m : array_like
        Invariant mass (GeV).
    q : array_like
        Breakup momentum at ``m`` (GeV).
    q0 : float
        Breakup momentum at ``m0`` (GeV), positive.
    m0, gamma0 : float
        Resonance mass and width (GeV).
    r : float
        Resonance radius (GeV^-1).
    l : int
        Orbital angular momentum of the decay, 0 to 5.

    Returns
    -------
    numpy.ndarray
        Complex amplitude (GeV^-2).
    """
    return _q_f(m, q, q0, m0, gamma0, r, l, 0)


def breit_wigner_q_f(m, q, q0, m0, gamma0, r, l):
    """Breit-Wigner amplitude with phase-space factor (paper eq. breit_wigner_q_f).

    .. math::

        B(m) = \\frac{(q/q_0)^l F(q)/F(q_0)}{m_0^2 - m^2 - i m_0 \\Gamma(m)}.

    Parameters
    ----------
    m, q : array_like
        Invariant mass and breakup momentum (GeV).
    q0, m0, gamma0 : float
        Breakup momentum at ``m0``, resonance mass and width (GeV).
    r : float
        Resonance radius (GeV^-1).
    l : int
        Orbital angular momentum, 0 to 5.

    Returns
    -------
    numpy.ndarray
        Complex amplitude (GeV^-2).
    """
    return _q_f(m, q, q0, m0, gamma0, r, l, 1)


def breit_wigner_m2(m, q, q0, m0, gamma0, r, l):
    """Breit-Wigner matrix element (paper eq. breit_wigner_m2).

    .. math::

        B(m) = \\frac{(q/q_0)^{2l+1} F_l^2(q)/F_l^2(q_0)}{(m_0^2 - m^2)^2 + m_0^2 \\Gamma^2(m)}.

    Parameters
    ----------
    m, q : array_like
        Invariant mass and breakup momentum (GeV).
    q0, m0, gamma0 : float
        Breakup momentum at ``m0``, resonance mass and width (GeV).
    r : float
        Resonance radius (GeV^-1).
    l : int
        Orbital angular momentum, 0 to 5.

    Returns
    -------
    numpy.ndarray
        Real, in GeV^-4.
    """
    return _q_f(m, q, q0, m0, gamma0, r, l, 2)


def _q_f_gradient(m, q, m0, gamma0, r, l, q0, dq0_dm0, phase_space):
    (m, q), shape, dtype = _arrays(m=m, q=q)
    m0 = _check_scalar(m0, "m0", positive=True)
    gamma0 = _check_scalar(gamma0, "gamma0", non_negative=True)
    r = _check_scalar(r, "r", non_negative=True)
    l = _check_l(l)
    q0 = _check_scalar(q0, "q0", positive=True)
    dq0_dm0 = _check_scalar(dq0_dm0, "dq0_dm0")
    inv_f0, dinv_dq0, dinv_dr = _k.blatt_weisskopf_inverse_gradient_kernel(q0, r, l)
    t = dtype.type
    out = np.empty((8, m.shape[0]), dtype)
    _k.breit_wigner_q_f_gradient_kernel(m, q, t(m0), t(gamma0), t(1 / q0), t(-dq0_dm0 / q0**2), t(r),
                                        t(inv_f0), t(dinv_dq0 * dq0_dm0), t(dinv_dr), l, phase_space, out)
    return tuple(_complex(out[2 * k], out[2 * k + 1], shape) for k in range(4))


def breit_wigner_q_f_nophsp_gradient(m, q, m0, gamma0, r, l, q0, dq0_dm0):
    """:func:`breit_wigner_q_f_nophsp` and its derivatives with respect to m0, Gamma0 and r.

    ``q0`` depends on ``m0`` through the breakup momentum; ``dq0_dm0`` is that
    derivative.  The block routine takes the parameter-buffer values
    ``1/q0``, ``d(1/q0)/dm0``, ``1/F(q0)``, ``d(1/F(q0))/dm0``,
    ``d(1/F(q0))/dr``; this function computes them.

    Parameters
    ----------
    m, q : array_like
        Invariant mass and breakup momentum (GeV).
    m0, gamma0 : float
        Resonance mass and width (GeV).
    r : float
        Resonance radius (GeV^-1).
    l : int
        Orbital angular momentum, 0 to 5.
    q0 : float
        Breakup momentum at ``m0`` (GeV).
    dq0_dm0 : float
        :math:`dq_0/dm_0` (dimensionless).

    Returns
    -------
    value, d_dm0, d_dgamma0, d_dr : numpy.ndarray
        Complex amplitude and its derivatives (per GeV, per GeV, per GeV^-1).
    """
    return _q_f_gradient(m, q, m0, gamma0, r, l, q0, dq0_dm0, False)


def breit_wigner_q_f_gradient(m, q, m0, gamma0, r, l, q0, dq0_dm0):
    """:func:`breit_wigner_q_f` and its derivatives with respect to m0, Gamma0 and r.

    Parameters
    ----------
    m, q : array_like
        Invariant mass and breakup momentum (GeV).
    m0, gamma0 : float
        Resonance mass and width (GeV).
    r : float
        Resonance radius (GeV^-1).
    l : int
        Orbital angular momentum, 0 to 5.
    q0 : float
        Breakup momentum at ``m0`` (GeV).
    dq0_dm0 : float
        :math:`dq_0/dm_0`.

    Returns
    -------
    value, d_dm0, d_dgamma0, d_dr : numpy.ndarray
        Complex amplitude and its derivatives.
    """
    return _q_f_gradient(m, q, m0, gamma0, r, l, q0, dq0_dm0, True)
