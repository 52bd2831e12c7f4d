"""The GenFit3K model of examples/laura_genfit3k in plain numpy: the
reference the tests compare the compiled densities (the one the isobar layer
generates from isobar_model3k.py and the hand-written one of
benchmarks/genfit3k_handwritten), the layer's normalization constants and
fit fractions, and Laura++'s coefficients with.

The formulas of docs/laura_genfit3k.rst: per pair (K+_a K-) with bachelor K+_b

.. math::

    X_R = B_R(m)\\,(p^* q)^L F_L^{(cov)}(f)\\,P_L^{(Leg\\,Laura)}(\\cos\\theta)\\,
          F_B(p^* [F_L^{(cov)}(f)]^{1/L}, r_B, L),

symmetrized over the two pairs, :math:`A = \\sum_c n_c c_c X_c` and
:math:`S = |A|^2`; masses in GeV, parameters as dicts name -> value.
"""

import math

import numpy as np

from vecampfit import high_energy_physics as hep
from vecampfit import kinematics

#: Laura++'s masses (GeV) as the model's constants.
MASSES = {"M_B": 5.27934, "M_KP": 0.493677, "M_KM": 0.493677}
RESONANCE_RADIUS, PARENT_RADIUS = 4.0, 5.0
#: Resonances: parameter prefix and spin.
RESONANCES = (("PHI", 1), ("F2", 2))
COMPONENTS = ("PHI", "F2", "NR")
GENERATED = {"PHI_M": 1.019460, "PHI_G": 0.004247, "F2_M": 1.5174, "F2_G": 0.086,
             "PHI_RE": 1.0, "PHI_IM": 0.0, "F2_RE": 0.0, "F2_IM": 1.0, "NR_RE": 1.0, "NR_IM": 0.0}


def coefficient(params, name):
    return complex(params[f"{name}_RE"], params[f"{name}_IM"])


def pair_kinematics(s_pair, s_other, m=MASSES):
    """m, q (K momentum in the pair frame), p_star (bachelor momentum in the
    B+ frame), f (covariant factor) and cos (angle between K- and K+_b in the
    pair frame) of the pair (K+_a K-) with bachelor K+_b."""
    mb, mk = m["M_B"], m["M_KP"]
    s_pair, s_other = np.asarray(s_pair, dtype=np.float64), np.asarray(s_other, dtype=np.float64)
    mm = np.sqrt(s_pair)
    return {"m": mm, "q": kinematics.decay_momentum(mm, mk, mk),
            "p_star": kinematics.decay_momentum(mb, mm, mk),
            "f": kinematics.covariant_factor(mm, mb, mk),
            "cos": kinematics.dalitz_cos_helicity_angle(s_pair, s_other, mb, mk, mk, mk)}


def resonance_term(kin, m0, gamma0, spin, m=MASSES):
    """X_R of one pair (complex array) from :func:`pair_kinematics`."""
    q0 = float(kinematics.decay_momentum(m0, m["M_KP"], m["M_KP"]))
    bw = hep.breit_wigner_q_f_nophsp(kin["m"], kin["q"], q0, m0, gamma0, RESONANCE_RADIUS, spin)
    angular = hep.covariant_angular_distribution(kin["p_star"], kin["q"], kin["f"], kin["cos"],
                                                 spin)
    fcov = hep.covariant_factor_j(kin["f"], spin)
    parent = hep.blatt_weisskopf(kin["p_star"] * fcov ** (1.0 / spin), PARENT_RADIUS, spin)
    return bw * angular * parent


def component_amplitudes(m13sq, m23sq, params, m=MASSES):
    """``{"PHI": X(13) + X(23), "F2": ..., "NR": 1}`` without coefficients and n."""
    k13, k23 = pair_kinematics(m13sq, m23sq, m), pair_kinematics(m23sq, m13sq, m)
    out = {name: resonance_term(k13, params[f"{name}_M"], params[f"{name}_G"], spin, m)
           + resonance_term(k23, params[f"{name}_M"], params[f"{name}_G"], spin, m)
           for name, spin in RESONANCES}
    out["NR"] = np.ones(np.shape(k13["m"]), dtype=complex)
    return out


def amplitude(m13sq, m23sq, params, normalization, m=MASSES):
    """Total amplitude A (complex array); ``normalization`` maps components to n."""
    comp = component_amplitudes(m13sq, m23sq, params, m)
    return sum(normalization[c] * coefficient(params, c) * comp[c] for c in COMPONENTS)


def density(m13sq, m23sq, params, normalization, m=MASSES):
    """Signal density S = |A|^2."""
    a = amplitude(m13sq, m23sq, params, normalization, m)
    return a.real ** 2 + a.imag ** 2


def component_integrals(params, records, weights, m=MASSES):
    """Sums w |X_R(13) + X_R(23)|^2 over points (no n, no c), and of w (the area)
    for the non-resonant term."""
    comp = component_amplitudes(records["m13Sq"], records["m23Sq"], params, m)
    return {c: float(np.dot(weights, np.abs(comp[c]) ** 2)) for c in COMPONENTS}


def fit_fractions(params, records, weights, normalization, m=MASSES):
    """Fit fractions |n_R c_R|^2 I_R / integral of |A|^2 (Laura++'s definition);
    ``"sum"`` their sum."""
    comp = component_amplitudes(records["m13Sq"], records["m23Sq"], params, m)
    total = sum(normalization[c] * coefficient(params, c) * comp[c] for c in COMPONENTS)
    norm = float(np.dot(weights, np.abs(total) ** 2))
    out = {c: abs(normalization[c] * coefficient(params, c)) ** 2
           * float(np.dot(weights, np.abs(comp[c]) ** 2)) / norm for c in COMPONENTS}
    out["sum"] = sum(out[c] for c in COMPONENTS)
    return out


def laura_coefficients(params, records, weights, normalization, m=MASSES):
    """The coefficients in Laura++'s normalization: every component of unit
    integral at the current masses and widths, relative to the phi(1020):
    A_R = c_R n_R sqrt(I_R) / (c_phi n_phi sqrt(I_phi))."""
    integrals = component_integrals(params, records, weights, m)
    ref = coefficient(params, "PHI") * normalization["PHI"] * math.sqrt(integrals["PHI"])
    return {c: coefficient(params, c) * normalization[c] * math.sqrt(integrals[c]) / ref
            for c in COMPONENTS}
