r"""The simulated detector of the e+e- -> K K-bar pi pi example (paper section 8.2).

Beams are symmetric along z; the laboratory frame is the centre-of-mass
frame.  Each of the four final-state particles is a "track"; the KS is
treated as a stable charged-track-like particle (no KS -> pi+ pi- decay is
simulated) with the same efficiency and resolution formulas as the charged
tracks, so that both processes have the same detector and differ by their
masses and amplitudes.

Track efficiency (MC), :math:`p_t` in GeV/c and :math:`\theta` the polar
angle in the laboratory:

.. math::

    \epsilon_f = 0.92\,[1 - 0.2\, e^{-5 p_t}]\,
      T(\cos\theta, -0.8, 200)\, T(-\cos\theta, -0.8, 200)\, T(p_t, 0.1, 200),
    \qquad T(x, x_0, k) = \frac{1}{1 + e^{-k (x - x_0)}}.

The paper prints the second factor as :math:`T(-\cos\theta, 0.8, 200)`, which
would remove the whole barrel together with the first factor; its fit
function :math:`T(-\cos\theta, -(\cos\theta)_{max}, k_2)` shows that
:math:`-0.8` is meant (acceptance :math:`|\cos\theta| < 0.8`).

Data/MC efficiency ratio per track :math:`R_f = 0.99 - 0.02 e^{-p_t}`; an
event is reconstructed with probability :math:`\prod_f \epsilon_f` in MC and
:math:`\prod_f \epsilon_f R_f` in data; MC events carry the weight
:math:`R = \prod_f R_f` (from the generator-level momenta).

Resolution: the reconstructed momentum of a track has

.. math::

    p' = p\,(1 + \sigma_p \xi_1),\quad
    \cos\theta' = \cos\theta + \sigma_c \xi_2,\quad
    \varphi' = \varphi + \sigma_\varphi \xi_3,

:math:`\xi_i` independent standard normal numbers, with widths that depend
on the track (momenta in GeV/c):

* :math:`\sigma_p = 0.004 + 0.006\, p` (relative momentum resolution),
* :math:`\sigma_c = 0.002 + 0.004 \sin\theta`,
* :math:`\sigma_\varphi = 0.002 + 0.0005 / \max(p_t, 0.05)` (rad),

:math:`\cos\theta'` is clipped to [-1, 1] (it matters only outside the
acceptance) and :math:`E' = \sqrt{p'^2 + m^2}` with the nominal mass.  The
smearing is applied to every event, reconstructed or not; the
reconstructed flag says which events a real detector would have kept.
"""

import numpy as np

from vecampfit import mathematical_functions as mf

#: Track-efficiency constants of the paper.
EFFICIENCY_PLATEAU = 0.92
COS_THETA_MIN, COS_THETA_MAX, PT_MIN = -0.8, 0.8, 0.1
THRESHOLD_SLOPE = 200.0


def _pt_cos(p):
    p = np.asarray(p, dtype=np.float64)
    pt = np.hypot(p[:, 0], p[:, 1])
    pm = np.sqrt(pt * pt + p[:, 2] ** 2)
    cos = np.divide(p[:, 2], pm, out=np.zeros_like(pm), where=pm > 0)
    return pt, cos, pm


def logistic_threshold(x, x0, k):
    r"""The threshold function :math:`T(x, x_0, k) = 1/(1 + e^{-k(x - x_0)})`
    (``vecampfit.mathematical_functions.logistic``)."""
    return mf.logistic(k * (np.asarray(x, dtype=np.float64) - x0))


def track_efficiency(p):
    r"""MC track efficiency :math:`\epsilon_f` of four-momenta ``p`` (n, 4) (GeV).

    Returns
    -------
    numpy.ndarray
        Efficiency in [0, 0.92] per track.
    """
    pt, cos, _ = _pt_cos(p)
    return (EFFICIENCY_PLATEAU * (1 - 0.2 * np.exp(-5 * pt))
            * logistic_threshold(cos, COS_THETA_MIN, THRESHOLD_SLOPE)
            * logistic_threshold(-cos, -COS_THETA_MAX, THRESHOLD_SLOPE)
            * logistic_threshold(pt, PT_MIN, THRESHOLD_SLOPE))


def data_mc_ratio(p):
    r"""Data/MC efficiency ratio of a track, :math:`R_f = 0.99 - 0.02 e^{-p_t}`."""
    pt, _, _ = _pt_cos(p)
    return 0.99 - 0.02 * np.exp(-pt)


def event_efficiency(momenta, data=False):
    r"""Event efficiency :math:`\prod_f \epsilon_f` (times :math:`\prod_f R_f` for data)."""
    e = 1.0
    for p in momenta.values():
        e = e * track_efficiency(p) * (data_mc_ratio(p) if data else 1.0)
    return e


def event_weight(momenta):
    r"""MC weight :math:`R = \prod_f R_f` (from generator-level momenta)."""
    w = 1.0
    for p in momenta.values():
        w = w * data_mc_ratio(p)
    return w


def resolution_widths(p):
    r"""Widths :math:`(\sigma_p, \sigma_c, \sigma_\varphi)` of a track (see the module)."""
    pt, cos, pm = _pt_cos(p)
    sin = np.sqrt(np.maximum(1 - cos * cos, 0.0))
    return (0.004 + 0.006 * pm, 0.002 + 0.004 * sin, 0.002 + 0.0005 / np.maximum(pt, 0.05))


def smear(p, mass, rng):
    r"""Reconstructed four-momenta of tracks with true four-momenta ``p`` (n, 4).

    Parameters
    ----------
    p : numpy.ndarray
        True four-momenta (px, py, pz, E) in GeV.
    mass : float
        Nominal mass of the particle (GeV), for the reconstructed energy.
    rng : numpy.random.Generator

    Returns
    -------
    numpy.ndarray
        Reconstructed four-momenta (n, 4).
    """
    p = np.asarray(p, dtype=np.float64)
    n = p.shape[0]
    pt, cos, pm = _pt_cos(p)
    phi = np.arctan2(p[:, 1], p[:, 0])
    sp, sc, sf = resolution_widths(p)
    xi = rng.standard_normal((3, n))
    pm2 = pm * (1 + sp * xi[0])
    cos2 = np.clip(cos + sc * xi[1], -1.0, 1.0)
    phi2 = phi + sf * xi[2]
    sin2 = np.sqrt((1 - cos2) * (1 + cos2))
    out = np.empty_like(p)
    out[:, 0] = pm2 * sin2 * np.cos(phi2)
    out[:, 1] = pm2 * sin2 * np.sin(phi2)
    out[:, 2] = pm2 * cos2
    out[:, 3] = np.sqrt(pm2 * pm2 + mass * mass)
    return out


def simulate(momenta, masses, rng, data=False):
    """Pass generator-level events through the detector.

    Parameters
    ----------
    momenta : dict
        Generator-level four-momenta (n, 4) of ``K1``, ``K2``, ``pi1``, ``pi2``.
    masses : dict
        Their nominal masses (GeV).
    rng : numpy.random.Generator
    data : bool
        Use the data efficiency (times R) instead of the MC efficiency.

    Returns
    -------
    reconstructed : numpy.ndarray of bool
        Whether each event is reconstructed.
    smeared : dict
        Reconstructed four-momenta of every event.
    weight : numpy.ndarray
        :func:`event_weight` (R) of each event.
    """
    eff = event_efficiency(momenta, data=data)
    n = len(eff)
    reconstructed = rng.random(n) < eff
    smeared = {k: smear(v, masses[k], rng) for k, v in momenta.items()}
    return reconstructed, smeared, event_weight(momenta)
