"""Kinematics: decay momenta, phase-space factors, Dalitz plots, helicity variables.

The paper's ``VECAMPFIT_KINEMATICS_VECTOR_#LENGTH#`` (block routines, declared
in ``vecampfit/kinematics.pxd`` for users' Cython code) and the scalar module
``VECAMPFIT_KINEMATICS`` (Dalitz-plot routines, conversion between
helicity-formalism variables and four-momenta).  The functions here work on
numpy arrays of any shape (float32 or float64; the result has the precision
of the array arguments) and run the block routines.

Units: GeV for masses and momenta, GeV^2 for squared masses and Mandelstam
``s``, radians for angles.  Four-momenta are arrays ``(..., 4)`` with columns
``(px, py, pz, E)``, as in :mod:`vecampfit.vector4`.

The Python functions raise ``ValueError`` for negative masses and where a
quantity is undefined (a decay momentum below threshold, an ``m12^2``
outside its range); the block routines return NaN there instead (or continue
analytically, as documented per routine).  Thresholds are decided exactly
for the given floating-point masses.

Accuracy: differences that vanish at a threshold, such as
:math:`m_0 - m_1 - m_2` or :math:`s - (m_1 + m_2)^2`, are formed without
rounding :math:`m_1 + m_2` or :math:`(m_1 + m_2)^2` first, and the Dalitz
limits are sums of non-negative terms, so that decay momenta, phase-space
factors and the :math:`m_{23}^2` range are accurate to a few ulps also next
to thresholds and for light or massless particles (masses between about
1e-150 and 1e150 GeV; 1e-18 and 1e18 in float32).  The helicity cosine is
as accurate as its condition allows (it divides by :math:`p^* p_3^*`, which
vanishes at the ends of the :math:`m_{12}^2` range).
"""

import numbers

import numpy as np

from ._arguments import real_arrays as _arrays
from ._arguments import sections as _sections
from . import _kinematics as _k
from . import vector4 as _v4

__all__ = [
    "covariant_factor",
    "decay_momentum",
    "decay_momentum_squared",
    "decay_momentum_gradient",
    "decay_momentum_s",
    "decay_momentum_squared_s",
    "phase_space_2body_complex",
    "momentum_analytic_continuation",
    "dalitz_m12_squared_range",
    "dalitz_m23_squared_range",
    "dalitz_inside",
    "dalitz_cos_helicity_angle",
    "helicity_to_momenta",
    "momenta_to_helicity",
]


def _mass(value, name, positive=False):
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value):
        raise ValueError(f"{name} must be a finite real number, got {value!r}")
    if value < 0 or (positive and value == 0):
        raise ValueError(f"{name} must be {'positive' if positive else 'non-negative'}, got {value!r}")
    return float(value)


def _check_non_negative(a, name):
    if not np.all(np.isfinite(a)):
        raise ValueError(f"{name}: masses must be finite")
    if np.any(a < 0):
        raise ValueError(f"{name}: masses must be non-negative (smallest {a.min()!r})")


def covariant_factor(m12, m0, m3):
    """Covariant factor :math:`f = \\sqrt{1 + y^2} = (m_0^2 + m_{12}^2 - m_3^2) / (2 m_{12} m_0)`.

    Paper eq. covariant_factor, for the decay chain :math:`0 \\to R + 3`,
    :math:`R \\to 1 + 2`.

    Parameters
    ----------
    m12 : array_like
        Invariant mass of the (12) system (GeV), positive.
    m0 : float
        Mass of the decaying particle 0 (GeV), positive.
    m3 : float
        Mass of particle 3 (GeV).

    Returns
    -------
    numpy.ndarray
        f (dimensionless).

    Raises
    ------
    ValueError
        Non-positive ``m12`` or ``m0``, negative ``m3``.
    """
    (m12,), shape, dtype = _arrays(m12=m12)
    m0 = _mass(m0, "m0", positive=True)
    m3 = _mass(m3, "m3")
    if not np.all(m12 > 0):
        raise ValueError("m12: invariant masses must be positive")
    out = np.empty_like(m12)
    _k.covariant_factor_kernel(m12, dtype.type(m0), dtype.type(m3), out)
    return out.reshape(shape)[()]


def _below_threshold(m0, m1, m2):
    """m0 < m1 + m2 exactly (the sum is not rounded: two-sum in the arrays' precision)."""
    s = m1 + m2
    bb = s - m1
    err = (m1 - (s - bb)) + (m2 - bb)
    return (m0 < s) | ((m0 == s) & (err > 0))


def _decay_masses(m0, m1, m2, squared):
    """The mass arrays (checked), their broadcast shape and dtype."""
    (m0, m1, m2), shape, dtype = _arrays(m0=m0, m1=m1, m2=m2)
    for a, n in ((m0, "m0"), (m1, "m1"), (m2, "m2")):
        _check_non_negative(a, n)
    if np.any(m0 == 0):
        raise ValueError("m0: the mass of the decaying particle must be positive")
    if not squared and np.any(_below_threshold(m0, m1, m2)):
        raise ValueError("m0: below the threshold m1 + m2, where the decay momentum is undefined "
                         "(see decay_momentum_squared or momentum_analytic_continuation)")
    return (m0, m1, m2), shape, dtype


# Returns entry of the squared decay momenta.
_Q_SQUARED = ("numpy.ndarray", ":math:`q^2` (GeV^2).")


def _decay(m0, m1, m2, squared):
    (m0, m1, m2), shape, dtype = _decay_masses(m0, m1, m2, squared)
    out = np.empty_like(m0)
    kernel = _k.decay_momentum_squared_kernel if squared else _k.decay_momentum_kernel
    kernel(m0, m1, m2, out)
    return out.reshape(shape)[()]


@_sections(
    parameters=[("m0, m1, m2 : array_like", "Masses (GeV), broadcast against each other.")],
    returns=[("numpy.ndarray", "q (GeV), the momentum of 1 and 2 in the rest frame of 0.")],
    raises=[("ValueError",
             "Negative masses, ``m0 = 0``, or ``m0 < m1 + m2`` (the block routine\n"
             "gives NaN there).")])
def decay_momentum(m0, m1, m2):
    """Two-body decay (breakup) momentum for :math:`0 \\to 1 + 2` (paper eq. decay_momentum).

    .. math::

        q = \\frac{\\sqrt{(m_0^2 - (m_1 + m_2)^2)(m_0^2 - (m_1 - m_2)^2)}}{2 m_0}
    """
    return _decay(m0, m1, m2, squared=False)


@_sections(
    parameters=[("m0, m1, m2 : array_like", "Masses (GeV).")],
    returns=[_Q_SQUARED],
    raises=[("ValueError", "Negative masses or ``m0 = 0``.")])
def decay_momentum_squared(m0, m1, m2):
    """Squared decay momentum :math:`q^2 = (m_0^2 - (m_1+m_2)^2)(m_0^2 - (m_1-m_2)^2)/(4 m_0^2)`.

    Negative below threshold: the analytic continuation of :math:`q^2`.
    """
    return _decay(m0, m1, m2, squared=True)


def decay_momentum_gradient(m0, m1, m2):
    """Decay momentum and its derivative with respect to the parent mass.

    For :math:`0 \\to 1 + 2`, with :math:`q` the decay (breakup) momentum of
    :func:`decay_momentum`,

    .. math::

        \\frac{\\partial q}{\\partial m_0}
        = \\frac{m_0^4 - (m_1^2 - m_2^2)^2}{4 m_0^3\\, q}
        = \\frac{E_1 E_2}{m_0\\, q},
        \\qquad E_{1,2} = \\frac{m_0^2 \\pm (m_1^2 - m_2^2)}{2 m_0},

    :math:`E_1, E_2` the energies of 1 and 2 in the rest frame of 0 (the
    derivative enters the gradient of a lineshape with respect to a
    resonance mass through :math:`q_0 = q(m_0)`).  The energies are
    evaluated as :math:`((m_0 - m_2)(m_0 + m_2) + m_1^2) / (2 m_0)` and
    likewise, sums of non-negative terms above threshold, so that
    :math:`\\partial q / \\partial m_0` is as accurate as :math:`q`
    (a few ulps) also next to threshold, where it diverges like
    :math:`1/q`.

    Parameters
    ----------
    m0, m1, m2 : array_like
        Masses (GeV), broadcast against each other.

    Returns
    -------
    q : numpy.ndarray
        q (GeV), as :func:`decay_momentum` gives it (the same values).
    dq_dm0 : numpy.ndarray
        :math:`\\partial q / \\partial m_0` (dimensionless); ``inf`` at
        threshold (:math:`m_0 = m_1 + m_2`), except with a massless daughter
        (:math:`m_1 = 0`: :math:`q = (m_0^2 - m_2^2) / (2 m_0)`, whose
        derivative is 1 at threshold).

    Raises
    ------
    ValueError
        Negative masses, ``m0 = 0``, or ``m0 < m1 + m2`` (the block routine
        gives NaN there).

    Notes
    -----
    The block routines are ``decay_momentum_gradient(out, dq_dm0, m0, m1,
    m2)`` (vectors) and ``decay_momentum_gradient_scalar(m0, m1, m2, &q,
    &dq_dm0)`` for parameter buffers, in ``kinematics.pxd``.

    Examples
    --------
    >>> from vecampfit.kinematics import decay_momentum_gradient
    >>> q, dq = decay_momentum_gradient(1.0, 0.25, 0.25)  # sqrt(m0^2/4 - m^2), m0 / (4 q)
    >>> float(q), float(dq)
    (0.4330127018922193, 0.5773502691896258)
    """
    (m0, m1, m2), shape, dtype = _decay_masses(m0, m1, m2, squared=False)
    q = np.empty_like(m0)
    dq = np.empty_like(m0)
    _k.decay_momentum_gradient_kernel(m0, m1, m2, q, dq)
    return q.reshape(shape)[()], dq.reshape(shape)[()]


def _decay_s(s, m1s, m2s, squared):
    (s,), shape, dtype = _arrays(s=s)
    m1s = _mass(m1s, "m1s")
    m2s = _mass(m2s, "m2s")
    if not np.all(np.isfinite(s)) or np.any(s <= 0):
        raise ValueError("s: squared masses of the decaying system must be positive")
    out = np.empty_like(s)
    kernel = _k.decay_momentum_squared_s_kernel if squared else _k.decay_momentum_s_kernel
    kernel(s, dtype.type(m1s), dtype.type(m2s), out)
    # The kernel decides the threshold exactly (q is NaN below it, for finite s > 0).
    if not squared and np.any(np.isnan(out)):
        a = (np.sqrt(m1s) + np.sqrt(m2s)) ** 2
        raise ValueError(f"s: below the threshold (m1 + m2)^2 = {a!r} GeV^2")
    return out.reshape(shape)[()]


@_sections(
    parameters=[("s : array_like", "Squared mass of the decaying system (GeV^2)."),
                ("m1s, m2s : float", "Squared daughter masses (GeV^2), non-negative.")],
    returns=[("numpy.ndarray", "q (GeV).")],
    raises=[("ValueError", "Non-positive ``s``, negative squared masses, or ``s`` below threshold.")])
def decay_momentum_s(s, m1s, m2s):
    """Decay momentum from squared masses.

    .. math::

        q = \\sqrt{\\frac{(s - (m_1 + m_2)^2)(s - (m_1 - m_2)^2)}{4 s}},
        \\quad m_1 = \\sqrt{m_1^2},\\ m_2 = \\sqrt{m_2^2}
    """
    return _decay_s(s, m1s, m2s, squared=False)


@_sections(
    parameters=[("s : array_like", "Squared mass of the decaying system (GeV^2), positive."),
                ("m1s, m2s : float", "Squared daughter masses (GeV^2).")],
    returns=[_Q_SQUARED],
    raises=[("ValueError", "Non-positive ``s`` or negative squared masses.")])
def decay_momentum_squared_s(s, m1s, m2s):
    """Squared decay momentum from squared masses, negative below threshold.

    .. math::

        q^2 = \\frac{(s - (m_1 + m_2)^2)(s - (m_1 - m_2)^2)}{4 s}
    """
    return _decay_s(s, m1s, m2s, squared=True)


def phase_space_2body_complex(s, m1, m2):
    """Two-body phase-space factor for complex Mandelstam s, on the physical sheet.

    .. math::

        \\rho(s) = \\frac{1}{16 \\pi} \\frac{\\sqrt{(s - (m_1 + m_2)^2)(s - (m_1 - m_2)^2)}}{s}

    (paper eq. phase_space_factor), intended for locating T-matrix poles.
    The square root is :math:`i\\sqrt{-(s - (m_1+m_2)^2)}\\,\\sqrt{s - (m_1 - m_2)^2}`
    with principal roots, which defines the physical (first) sheet:

    * the unitarity cut runs along real :math:`s > (m_1 + m_2)^2`; on its
      upper lip (:math:`s + i0`; a real ``s`` given with imaginary part
      +0.0) :math:`\\rho = q/(8\\pi\\sqrt{s}) > 0`, on the lower lip
      (imaginary part -0.0) :math:`-\\rho`; crossing the cut downwards from
      the upper half plane leads to the second sheet, where resonance poles
      lie (not returned here);
    * :math:`\\operatorname{Im} \\sqrt{-(s - (m_1+m_2)^2)} \\cdot i` has a
      non-negative imaginary part everywhere (:math:`\\operatorname{Im} q > 0`);
    * below threshold, :math:`(m_1 - m_2)^2 < s < (m_1 + m_2)^2`, the function
      is continuous across the real axis and
      :math:`\\rho = i |q| / (8\\pi\\sqrt{s})`, matching
      :func:`momentum_analytic_continuation`;
    * a second cut (pseudothreshold) runs along real :math:`s < (m_1 - m_2)^2`.

    Parameters
    ----------
    s : array_like, complex
        Mandelstam s (GeV^2); complex64 arrays compute in float32, anything
        else in float64.
    m1, m2 : float
        Masses (GeV), non-negative.

    Returns
    -------
    numpy.ndarray
        Complex :math:`\\rho` (dimensionless).

    Raises
    ------
    ValueError
        Negative masses.
    """
    m1 = _mass(m1, "m1")
    m2 = _mass(m2, "m2")
    s = np.asarray(s)
    if s.dtype == np.complex64 or s.dtype == np.float32:
        dtype = np.float32
    elif s.dtype.kind in "fciu":
        dtype = np.float64
    else:
        raise TypeError(f"s: expected complex or real numbers, got dtype {s.dtype}")
    shape = s.shape
    re = np.ascontiguousarray(s.real, dtype=dtype).ravel()
    im = np.ascontiguousarray(s.imag if s.dtype.kind == "c" else np.zeros(shape), dtype=dtype).ravel()
    out_re, out_im = np.empty_like(re), np.empty_like(re)
    _k.phase_space_2body_complex_kernel(re, im, m1, m2, out_re, out_im)
    cdtype = np.complex64 if dtype == np.float32 else np.complex128
    out = np.empty(re.shape, dtype=cdtype)
    out.real, out.imag = out_re, out_im
    return out.reshape(shape)[()]


def momentum_analytic_continuation(m0, m1, m2):
    """Decay momentum continued analytically below threshold.

    .. math::

        q_\\text{cont} = \\begin{cases} q & q^2 \\ge 0 \\ (m_0 \\ge m_1 + m_2), \\\\
        i\\sqrt{-q^2} & q^2 < 0 \\ (\\text{below threshold}), \\end{cases}

    with :math:`q^2` from :func:`decay_momentum_squared`.  Below the
    pseudothreshold (:math:`m_0 < |m_1 - m_2|`) :math:`q^2 > 0` again and the
    result is real.  Used in the Flatte distribution.

    Parameters
    ----------
    m0 : array_like
        Mass of the decaying system (GeV), positive.
    m1, m2 : float
        Daughter masses (GeV), non-negative.

    Returns
    -------
    numpy.ndarray
        Complex :math:`q_\\text{cont}` (GeV), complex64 for float32 input.

    Raises
    ------
    ValueError
        Negative masses or ``m0 = 0``.
    """
    (m0,), shape, dtype = _arrays(m0=m0)
    m1 = _mass(m1, "m1")
    m2 = _mass(m2, "m2")
    _check_non_negative(m0, "m0")
    if np.any(m0 == 0):
        raise ValueError("m0: the mass of the decaying system must be positive")
    re, im = np.empty_like(m0), np.empty_like(m0)
    _k.momentum_analytic_continuation_kernel(m0, dtype.type(m1), dtype.type(m2), re, im)
    return (re + 1j * im).astype(np.complex64 if dtype == np.float32 else np.complex128).reshape(shape)[()]


def _dalitz_masses(m0, m1, m2, m3):
    m0 = _mass(m0, "m0", positive=True)
    m1, m2, m3 = _mass(m1, "m1"), _mass(m2, "m2"), _mass(m3, "m3")
    if m0 < m1 + m2 + m3:
        raise ValueError(f"m0 = {m0!r} GeV is below the threshold m1 + m2 + m3 = {m1 + m2 + m3!r} GeV")
    return m0, m1, m2, m3


def _dalitz_point_kernel(kernel, m12s, m23s, masses):
    """``kernel(m12s, m23s, m0, m1, m2, m3, out)``: one value per Dalitz-plot point, of its precision."""
    out = np.empty_like(m12s)
    t = m12s.dtype.type
    kernel(m12s, m23s, *(t(m) for m in masses), out)
    return out


# Docstring entries shared by the Dalitz-plot functions.
_DALITZ_POINT = ("m12s, m23s : array_like", "Squared invariant masses (GeV^2).")
_DALITZ_MASSES = ("m0, m1, m2, m3 : float", "Masses (GeV).")


@_sections(
    parameters=[_DALITZ_MASSES],
    returns=[("tuple of float", "(minimum, maximum) in GeV^2.")],
    raises=[("ValueError", "Negative masses or ``m0 < m1 + m2 + m3``.")])
def dalitz_m12_squared_range(m0, m1, m2, m3):
    """Range of :math:`m_{12}^2` in the decay :math:`0 \\to 1 + 2 + 3`: :math:`[(m_1+m_2)^2, (m_0-m_3)^2]`."""
    m0, m1, m2, m3 = _dalitz_masses(m0, m1, m2, m3)
    return (m1 + m2) ** 2, (m0 - m3) ** 2


@_sections(
    parameters=[("m12s : array_like", ":math:`m_{12}^2` (GeV^2)."), _DALITZ_MASSES],
    returns=[("(numpy.ndarray, numpy.ndarray)", "Minimum and maximum :math:`m_{23}^2` (GeV^2).")],
    raises=[("ValueError",
             "``m12s`` outside :func:`dalitz_m12_squared_range` (the block routine\n"
             "gives NaN there), bad masses.")])
def dalitz_m23_squared_range(m12s, m0, m1, m2, m3):
    """Range of :math:`m_{23}^2` at fixed :math:`m_{12}^2` in the decay :math:`0 \\to 1 + 2 + 3`.

    .. math::

        (m_{23}^2)_{\\min,\\max} = (E_2^* + E_3^*)^2 - (p_2^* \\pm p_3^*)^2,

    with :math:`E_2^* = (m_{12}^2 - m_1^2 + m_2^2)/(2 m_{12})`,
    :math:`E_3^* = (m_0^2 - m_{12}^2 - m_3^2)/(2 m_{12})` the energies and
    :math:`p_2^*, p_3^*` the momenta of 2 and 3 in the (12) rest frame.
    """
    (m12s,), shape, dtype = _arrays(m12s=m12s)
    m0, m1, m2, m3 = _dalitz_masses(m0, m1, m2, m3)
    lo, hi = np.empty_like(m12s), np.empty_like(m12s)
    t = dtype.type
    _k.dalitz_m23_squared_range_kernel(m12s, t(m0), t(m1), t(m2), t(m3), lo, hi)
    # The kernel decides the range exactly: NaN outside it (and for NaN input).
    if np.any(np.isnan(lo) | np.isnan(hi)):
        lo_, hi_ = (m1 + m2) ** 2, (m0 - m3) ** 2
        raise ValueError(f"m12s: outside the kinematic range [{lo_!r}, {hi_!r}] GeV^2")
    return lo.reshape(shape)[()], hi.reshape(shape)[()]


@_sections(
    parameters=[_DALITZ_POINT, _DALITZ_MASSES],
    returns=[("numpy.ndarray of bool", "False also for NaN input.")])
def dalitz_inside(m12s, m23s, m0, m1, m2, m3):
    """Whether :math:`(m_{12}^2, m_{23}^2)` lies in the Dalitz plot of :math:`0 \\to 1 + 2 + 3`.

    Inside means :math:`(m_1+m_2)^2 \\le m_{12}^2 \\le (m_0-m_3)^2` and
    :math:`m_{23}^2` within :func:`dalitz_m23_squared_range` (boundary
    included).  The block routine returns 1 or 0 as a real vector.
    """
    (m12s, m23s), shape, _ = _arrays(m12s=m12s, m23s=m23s)
    masses = _dalitz_masses(m0, m1, m2, m3)
    out = _dalitz_point_kernel(_k.dalitz_inside_kernel, m12s, m23s, masses)
    return (out != 0).reshape(shape)[()]


@_sections(
    parameters=[_DALITZ_POINT, _DALITZ_MASSES],
    returns=[("numpy.ndarray", "")],
    raises=[("ValueError",
             "``m12s`` outside the open range :math:`((m_1+m_2)^2, (m_0-m_3)^2)`,\n"
             "where the angle is undefined (NaN in the block routine), non-finite\n"
             "``m23s``, bad masses.")])
def dalitz_cos_helicity_angle(m12s, m23s, m0, m1, m2, m3):
    """Cosine of the helicity angle of particle 1 in the (12) rest frame.

    The angle :math:`\\theta` between particle 1 in the (12) rest frame and
    the flight direction of (12) in the rest frame of 0 (equivalently, minus
    the direction of particle 3 in the (12) frame):

    .. math::

        \\cos\\theta = \\frac{m_2^2 + m_3^2 + 2 E_2^* E_3^* - m_{23}^2}{2 p^* p_3^*},

    :math:`E_2^*, E_3^*` the energies, :math:`p^* = |\\vec p_1^*| = |\\vec p_2^*|`
    and :math:`p_3^*` the momenta in the (12) rest frame.  It is linear in
    :math:`m_{23}^2`, +1 at the lower and -1 at the upper end of its range;
    :math:`|\\cos\\theta| > 1` outside the Dalitz plot.
    """
    (m12s, m23s), shape, _ = _arrays(m12s=m12s, m23s=m23s)
    m0, m1, m2, m3 = masses = _dalitz_masses(m0, m1, m2, m3)
    if not np.all(np.isfinite(m23s)):
        raise ValueError("m23s: expected finite squared masses")
    out = _dalitz_point_kernel(_k.dalitz_cos_helicity_angle_kernel, m12s, m23s, masses)
    # The kernel decides the range exactly: p* p3* = 0 at its ends gives an
    # infinite or NaN cosine, a point outside it NaN.
    if not np.all(np.isfinite(out)):
        lo_, hi_ = (m1 + m2) ** 2, (m0 - m3) ** 2
        raise ValueError(f"m12s: outside the open kinematic range ({lo_!r}, {hi_!r}) GeV^2, "
                         "where the helicity angle is undefined")
    return out.reshape(shape)[()]


# ---------------------------------------------------------------------------
# Helicity-formalism variables <-> four-momenta
# ---------------------------------------------------------------------------

def _chain_nodes(chain):
    """Validate a decay chain; return (decaying nodes in order, leaves)."""
    nodes, leaves, seen = [], [], set()

    def walk(node):
        if isinstance(node, str):
            name = node
            leaves.append(name)
        elif isinstance(node, tuple) and len(node) == 3 and isinstance(node[0], str):
            name = node[0]
            nodes.append(node)
            walk(node[1])
            walk(node[2])
        else:
            raise ValueError(f"chain: a node is a name or a tuple (name, child1, child2), got {node!r}")
        if name in seen:
            raise ValueError(f"chain: the name {name!r} appears twice")
        seen.add(name)

    walk(chain)
    if isinstance(chain, str):
        raise ValueError("chain: the top node must decay, (name, child1, child2)")
    return nodes, leaves


def _name(node):
    return node if isinstance(node, str) else node[0]


def _unit(v):
    return v / np.linalg.norm(v, axis=-1, keepdims=True)


def _child_axes(z_parent, p_child):
    """Helicity axes of a child: z along its momentum in the parent's rest frame,
    y along z_parent x z, x = y x z."""
    z = _unit(p_child[:, :3])
    y = _unit(np.cross(z_parent, z))
    x = np.cross(y, z)
    return x, y, z


def helicity_to_momenta(chain, masses, angles, parent=None):
    """Four-momenta from helicity-formalism variables of a chain of two-body decays.

    The chain is a tree: a node is a particle name (final state) or a tuple
    ``(name, child1, child2)`` (a two-body decay), for example
    ``('D0', ('R', 'K-', 'pi+'), 'pi0')`` or
    ``('gamma*', ('phi', 'K1', 'K2'), ('f0', 'pi1', 'pi2'))``.

    Frames (the helicity convention of Jacob and Wick): the top particle's
    rest frame is reached from the lab by a pure boost and has the lab axes.
    In the rest frame of a decaying node X with axes (x', y', z'), its first
    child has the direction
    :math:`(\\sin\\theta\\cos\\varphi, \\sin\\theta\\sin\\varphi, \\cos\\theta)`
    and the second child the opposite one.  A child C that decays in turn
    has the axes z'' along its momentum in the rest frame of X,
    :math:`y'' \\propto z' \\times z''` and :math:`x'' = y'' \\times z''`,
    and its rest frame is reached from that of X by a pure boost along z''.
    (Undefined, NaN, where a child flies exactly along z'.)

    Parameters
    ----------
    chain : tuple
        The decay tree (names unique).
    masses : dict
        Mass (GeV; float or array (n,)) of every node: final-state particles,
        intermediate states (their invariant masses) and the top particle
        (unless ``parent`` gives it).
    angles : dict
        For every decaying node name, ``(cos_theta, phi)`` of its first child
        in its helicity frame (arrays (n,) or floats; phi in radians).
    parent : array_like, optional
        Four-momentum (4,) or (n, 4) of the top particle in the lab (px, py,
        pz, E); default: at rest.  Its mass then replaces ``masses[top]``.

    Returns
    -------
    dict of str to numpy.ndarray
        Lab four-momenta (n, 4) of every node, final-state and intermediate.

    Raises
    ------
    ValueError
        A malformed chain, missing masses or angles, negative masses, a
        decay below threshold, or ``|cos_theta| > 1``.
    """
    nodes, leaves = _chain_nodes(chain)
    top = chain[0]
    arrays = []
    for node in nodes:
        if node[0] not in angles:
            raise ValueError(f"angles: missing (cos_theta, phi) for {node[0]!r}")
        arrays += [np.asarray(angles[node[0]][0], dtype=np.float64),
                   np.asarray(angles[node[0]][1], dtype=np.float64)]
    for name in leaves + [n[0] for n in nodes]:
        if name == top and parent is not None:
            continue
        if name not in masses:
            raise ValueError(f"masses: missing the mass of {name!r}")
        arrays.append(np.asarray(masses[name], dtype=np.float64))
    if parent is not None:
        parent = np.asarray(parent, dtype=np.float64)
        arrays.append(parent[..., 3])
    n = int(np.prod(np.broadcast_shapes(*(a.shape for a in arrays)), dtype=np.int64))
    n = max(n, 1)

    def vec(x):
        return np.ascontiguousarray(np.broadcast_to(np.asarray(x, dtype=np.float64), (n,)))

    mass = {}
    for name, value in masses.items():
        mass[name] = vec(value)
        _check_non_negative(mass[name], f"masses[{name!r}]")
    if parent is not None:
        parent = np.ascontiguousarray(np.broadcast_to(parent, (n, 4)))
        mass[top] = _v4.mass(parent)
        if np.any(mass[top] <= 0):
            raise ValueError("parent: the four-momentum must be time-like")

    def build(node, x, y, z):
        name, c1, c2 = node
        m, m1, m2 = mass[name], mass[_name(c1)], mass[_name(c2)]
        if np.any(m < m1 + m2):
            raise ValueError(f"{name!r} -> {_name(c1)!r} {_name(c2)!r}: below threshold")
        q = decay_momentum(m, m1, m2)
        cos_t, phi = vec(angles[name][0]), vec(angles[name][1])
        if np.any(np.abs(cos_t) > 1):
            raise ValueError(f"angles[{name!r}]: |cos_theta| > 1")
        sin_t = np.sqrt((1 - cos_t) * (1 + cos_t))
        u = ((sin_t * np.cos(phi))[:, None] * x + (sin_t * np.sin(phi))[:, None] * y
             + cos_t[:, None] * z)
        p1 = np.empty((n, 4))
        p2 = np.empty((n, 4))
        p1[:, :3] = q[:, None] * u
        p2[:, :3] = -p1[:, :3]
        p1[:, 3] = np.sqrt(q * q + m1 * m1)
        p2[:, 3] = np.sqrt(q * q + m2 * m2)
        result = {_name(c1): p1, _name(c2): p2}
        for child, pc in ((c1, p1), (c2, p2)):
            if not isinstance(child, str):
                sub = build(child, *_child_axes(z, pc))
                for key, value in sub.items():
                    result[key] = _v4.boost_from_rest_frame(value, pc)
        return result

    ex = np.tile([1.0, 0.0, 0.0], (n, 1))
    ey = np.tile([0.0, 1.0, 0.0], (n, 1))
    ez = np.tile([0.0, 0.0, 1.0], (n, 1))
    out = build(chain, ex, ey, ez)
    rest = np.zeros((n, 4))
    rest[:, 3] = mass[top]
    out[top] = rest
    if parent is not None:
        out = {key: _v4.boost_from_rest_frame(value, parent) for key, value in out.items()}
    return out


def momenta_to_helicity(chain, momenta):
    """Helicity-formalism variables from the four-momenta of the final state.

    The inverse of :func:`helicity_to_momenta`, with the same chain and frame
    conventions; the top particle's four-momentum is the sum of the
    final-state ones.

    Parameters
    ----------
    chain : tuple
        The decay tree, as in :func:`helicity_to_momenta`.
    momenta : dict
        Lab four-momenta (n, 4) (or (4,)) of the final-state particles.

    Returns
    -------
    masses : dict
        Invariant mass (n,) of every decaying node (GeV), including the top.
    angles : dict
        ``(cos_theta, phi)`` (arrays (n,)) of the first child of every
        decaying node in the node's helicity frame.

    Raises
    ------
    ValueError
        A malformed chain or a missing final-state momentum.
    """
    nodes, leaves = _chain_nodes(chain)
    mom = {}
    for name in leaves:
        if name not in momenta:
            raise ValueError(f"momenta: missing the four-momentum of {name!r}")
        p = np.asarray(momenta[name], dtype=np.float64)
        if p.shape[-1] != 4:
            raise ValueError(f"momenta[{name!r}]: expected shape (n, 4), got {p.shape}")
        mom[name] = np.atleast_2d(p)
    n = max(p.shape[0] for p in mom.values())
    mom = {k: np.ascontiguousarray(np.broadcast_to(v, (n, 4))) for k, v in mom.items()}

    def total(node):
        if isinstance(node, str):
            return mom[node]
        s = total(node[1]) + total(node[2])
        mom[node[0]] = s
        return s

    top_p = total(chain)
    masses_out, angles_out = {}, {}

    def subtree(node):
        if isinstance(node, str):
            return [node]
        return [node[0]] + subtree(node[1]) + subtree(node[2])

    def analyze(node, frame_mom, x, y, z):
        name, c1, c2 = node
        p1 = frame_mom[_name(c1)]
        u = _unit(p1[:, :3])
        angles_out[name] = (np.sum(u * z, axis=1), np.arctan2(np.sum(u * y, axis=1), np.sum(u * x, axis=1)))
        for child in (c1, c2):
            if not isinstance(child, str):
                pc = frame_mom[child[0]]
                masses_out[child[0]] = _v4.mass(pc)
                axes = _child_axes(z, pc)
                sub = {k: _v4.boost_to_rest_frame(frame_mom[k], pc) for k in subtree(child)}
                analyze(child, sub, *axes)

    masses_out[chain[0]] = _v4.mass(top_p)
    in_top = {k: _v4.boost_to_rest_frame(v, top_p) for k, v in mom.items()}
    ex = np.tile([1.0, 0.0, 0.0], (n, 1))
    ey = np.tile([0.0, 1.0, 0.0], (n, 1))
    ez = np.tile([0.0, 0.0, 1.0], (n, 1))
    analyze(chain, in_top, ex, ey, ez)
    return masses_out, angles_out
