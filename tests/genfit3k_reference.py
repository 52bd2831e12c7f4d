"""The GenFit3K model of examples/laura_genfit3k in plain numpy: the
reference the tests compare the compiled densities (the hand-written
genfit3k_density.pyx and the one the isobar layer generates from
isobar_model3k.py), the layer's normalization constants and fit fractions,
and Laura++'s coefficients with.

The formulas are those of the example's description (genfit3k.py): per pair
(K+_a K-) with bachelor K+_b

.. math::

    X_R = B_R(m)\\,(p^* q)^L F_L^{(cov)}(f)\\,P_L^{(Leg\\,Laura)}(\\cos\\theta)\\,
          F_B(p^* [F_L^{(cov)}(f)]^{1/L}, r_B, L),

symmetrized over the two pairs, :math:`A = \\sum_c n_c c_c X_c` and
:math:`S = |A|^2`; masses in GeV.
"""

import math

import numpy as np

from genfit3k import (COMPONENTS, PARAMETER_NAMES, RESONANCE_RADIUS, RESONANCES,
                      _scaled_parent_factor, coefficient, pair_kinematics, records_m2)
from vecampfit import high_energy_physics as hep
from vecampfit import kinematics


def resonance_term(kin, m0, gamma0, spin, m):
    """X_R of one pair (complex array) from :func:`pair_kinematics`."""
    q0 = float(kinematics.decay_momentum(m0, m["K"], m["K"]))
    bw = hep.breit_wigner_q_f_nophsp(kin["m"], kin["q"], q0, m0, gamma0, RESONANCE_RADIUS, spin)
    angular = hep.covariant_angular_distribution(kin["p_star"], kin["q"], kin["f"], kin["cos"],
                                                 spin)
    return bw * angular * _scaled_parent_factor(kin, spin)


def component_amplitudes(m13sq, m23sq, params, m):
    """Symmetrized component amplitudes without coefficients and constants n.

    Returns
    -------
    dict
        ``{"PHI": X(13) + X(23), "F2": ..., "NR": 1}`` (complex arrays).
    """
    p = dict(zip(PARAMETER_NAMES, np.asarray(params, dtype=np.float64)))
    k13 = pair_kinematics(m13sq, m23sq, m)
    k23 = pair_kinematics(m23sq, m13sq, m)
    out = {}
    for name, _, _, _, spin in RESONANCES:
        m0, g0 = p[f"{name}_M"], p[f"{name}_G"]
        out[name] = resonance_term(k13, m0, g0, spin, m) + resonance_term(k23, m0, g0, spin, m)
    out["NR"] = np.ones(np.shape(k13["m"]), dtype=complex)
    return out


def amplitude(m13sq, m23sq, params, m, normalization):
    """Total amplitude A (complex array); ``normalization`` maps components to n."""
    p = dict(zip(PARAMETER_NAMES, np.asarray(params, dtype=np.float64)))
    comp = component_amplitudes(m13sq, m23sq, params, m)
    return sum(normalization[c] * complex(p[f"{c}_RE"], p[f"{c}_IM"]) * comp[c]
               for c in COMPONENTS)


def density(m13sq, m23sq, params, m, normalization):
    """Signal density S = |A|^2 (numpy; the reference for the compiled density)."""
    a = amplitude(m13sq, m23sq, params, m, normalization)
    return a.real ** 2 + a.imag ** 2


def component_integrals(params, records, weights, m):
    """Integrals of |X_R(13) + X_R(23)|^2 over the Dalitz plot on a grid (no n, no c),
    and of 1 (the area) for the non-resonant term."""
    m13sq, m23sq = records_m2(records)
    comp = component_amplitudes(m13sq, m23sq, params, m)
    return {c: float(np.dot(weights, np.abs(comp[c]) ** 2)) for c in COMPONENTS}


def fit_fractions(params, records, weights, m, normalization):
    """Fit fractions |n_R c_R|^2 I_R / integral of |A|^2 (Laura++'s definition),
    in numpy from the formulas above.

    The programs take the fit fractions and their errors from the isobar
    layer (:func:`isobar_fit_fractions`); this independent computation is
    the reference the tests compare it with.

    Returns
    -------
    dict
        Component -> fit fraction; ``"sum"`` -> their sum.
    """
    m13sq, m23sq = records_m2(records)
    comp = component_amplitudes(m13sq, m23sq, params, m)
    total = sum(normalization[c] * coefficient(params, c) * comp[c] for c in COMPONENTS)
    norm = float(np.dot(weights, np.abs(total) ** 2))
    out = {c: abs(normalization[c] * coefficient(params, c)) ** 2
           * float(np.dot(weights, np.abs(comp[c]) ** 2)) / norm for c in COMPONENTS}
    out["sum"] = sum(out[c] for c in COMPONENTS)
    return out


def laura_coefficients(params, records, weights, m, normalization):
    """The coefficients in Laura++'s normalization: every component normalized
    to unit integral at the current masses and widths, relative to the
    phi(1020) (Laura++'s reference, fixed to 1):
    A_R = c_R n_R sqrt(I_R) / (c_phi n_phi sqrt(I_phi))."""
    integrals = component_integrals(params, records, weights, m)
    ref = coefficient(params, "PHI") * normalization["PHI"] * math.sqrt(integrals["PHI"])
    return {c: coefficient(params, c) * normalization[c] * math.sqrt(integrals[c]) / ref
            for c in COMPONENTS}
