"""The CLEO model of D0 -> K- pi+ pi0 (paper section 3), in plain numpy: the
reference the tests compare the hand-written Cython density
(benchmarks/dz_handwritten/signal_density.pyx) and the density the isobar
layer generates from examples/dz_kmpippiz/isobar_model.py with.

Amplitude:

.. math::

    A = a_{nr} e^{i \\phi_{nr}} + \\sum_R a_R e^{i \\phi_R}
        \\frac{F_D(p, r_D, J)}{F_D(p_0, r_D, J)} B_R^{(no\\ q)}(M_{AB})
        \\mathcal{A}_J(ABC|R),

with the Blatt-Weisskopf formfactor ``F_D`` of the D decay at the breakup
momentum ``p`` of D -> R C (``p0`` at the resonance mass), the Breit-Wigner
amplitude without phase-space factor, and the covariant angular factor
:math:`\\mathcal{A}_0 = 1`,
:math:`\\mathcal{A}_1 = M_{AC}^2 - M_{BC}^2 + (M_D^2 - M_C^2)(M_B^2 - M_A^2)/m_0^2`.
Particle orders (A, B, C): (pi+, pi0, K-) for rho+, (K-, pi+, pi0) for
anti-K*0, (K-, pi0, pi+) for K*-.  For rho(1700)+ the D0 is below threshold
at the nominal mass and ``F_D(p0)`` is omitted, as in the paper; for the
other resonances ``1/F_D(p0) = sqrt(P_J(p0^2 r_D^2))`` is computed from the
squared momentum, which continues it analytically if a fit moves a mass
slightly above threshold (K*(1680)- is 8 MeV below it).  The signal
density is ``S = |A|^2``.

Phases are in degrees, masses and widths in GeV, radii in GeV^-1.
"""

import numpy as np

from vecampfit import high_energy_physics as hep
from vecampfit import kinematics, particle_data, vector4

#: D0 and final-state masses (GeV), PDG 2024.
MASSES = {key: particle_data.mass(name, 2024)
          for key, name in (("md", "D0"), ("km", "K-"), ("pip", "pi+"), ("piz", "pi0"))}
#: Branches of the daughters' four-momenta in the example's event files.
BRANCHES = ("km_momentum", "pip_momentum", "pi0_momentum")

#: Resonances: parameter prefix, pair (channel), spin J, CLEO values of mass,
#: width, magnitude and phase (degrees), and a label.
RESONANCES = (
    ("RHOP1", "pip_piz", 1, 0.770, 0.1507, 1.0, 0.0, "rho(770)+"),
    ("KSTM1", "km_piz", 1, 0.8915, 0.0500, 0.44, 163.0, "K*(892)-"),
    ("KSTZ1", "km_pip", 1, 0.8961, 0.0505, 0.39, -0.2, "anti-K*(892)0"),
    ("KST0M", "km_piz", 0, 1.412, 0.294, 0.77, 55.5, "K*0(1430)-"),
    ("KST0Z", "km_pip", 0, 1.412, 0.294, 0.85, 166.0, "anti-K*0(1430)0"),
    ("RHOP2", "pip_piz", 1, 1.700, 0.240, 2.5, 171.0, "rho(1700)+"),
    ("KSTM2", "km_piz", 1, 1.717, 0.322, 2.5, 103.0, "K*(1680)-"),
)
#: Resonances whose F_D(p0) is omitted (the D is below threshold at m0).
OMIT_FD0 = ("RHOP2",)
#: Non-resonant magnitude and phase (degrees).
NON_RESONANT = (1.75, 31.2)
#: Radii (GeV^-1): D meson and resonances.
D_RADIUS = 5.0
RESONANCE_RADIUS = 1.5

#: Channels: (A, B, C) particle names; the pair AB forms the resonance.
CHANNELS = {
    "pip_piz": ("pip", "piz", "km"),
    "km_pip": ("km", "pip", "piz"),
    "km_piz": ("km", "piz", "pip"),
}
#: Event-buffer fields, in the order of the Cython density's event buffer
#: (each a real vector of L lanes in a block).
EVENT_FIELDS = ("m_km_pip", "m_km_piz", "m_pip_piz", "q_km_pip", "q_km_piz", "q_pip_piz",
                "p_km_pip", "p_km_piz", "p_pip_piz")
#: Pair masses M_AC and M_BC entering the spin-1 angular factor, per channel.
ANGULAR_PAIRS = {
    "pip_piz": ("km_pip", "km_piz"),
    "km_pip": ("km_piz", "pip_piz"),
    "km_piz": ("km_pip", "pip_piz"),
}


def parameter_names():
    """Names of the model's parameters, in the order of the parameter vector.

    ``D_R``; then per resonance ``<R>_M``, ``<R>_G``, ``<R>_R`` (mass, width,
    radius), ``<R>_A``, ``<R>_P`` (magnitude, phase in degrees); then
    ``NR_A``, ``NR_P``.
    """
    names = ["D_R"]
    for name, *_ in RESONANCES:
        names += [f"{name}_M", f"{name}_G", f"{name}_R", f"{name}_A", f"{name}_P"]
    return names + ["NR_A", "NR_P"]


def default_parameters():
    """The CLEO values (generation defaults) as a dict name -> value."""
    values = {"D_R": D_RADIUS}
    for name, _pair, _j, m, g, a, p, _label in RESONANCES:
        values.update({f"{name}_M": m, f"{name}_G": g, f"{name}_R": RESONANCE_RADIUS,
                       f"{name}_A": a, f"{name}_P": p})
    values["NR_A"], values["NR_P"] = NON_RESONANT
    return values


def breakup_momentum(m, ma, mb):
    """Two-body breakup momentum of m -> a b (GeV; NaN below threshold and
    where a mass is not finite), from
    :func:`vecampfit.kinematics.decay_momentum_squared`."""
    m, ma, mb = np.broadcast_arrays(*(np.asarray(x, dtype=float) for x in (m, ma, mb)))
    valid = np.isfinite(m) & np.isfinite(ma) & np.isfinite(mb) & (m > 0)
    q2 = kinematics.decay_momentum_squared(np.where(valid, m, 1.0), np.where(valid, ma, 0.0),
                                           np.where(valid, mb, 0.0))
    with np.errstate(invalid="ignore"):
        return np.where(valid, np.sqrt(q2), np.nan)


def event_buffer_fields(m2_km_pip, m2_km_piz, masses=MASSES, clip=False):
    """Event-buffer fields from the Dalitz variables.

    Parameters
    ----------
    m2_km_pip, m2_km_piz : array_like
        Squared invariant masses (GeV^2).
    masses : dict
        ``md``, ``km``, ``pip``, ``piz``: D0 and final-state masses (GeV).
    clip : bool
        Clip masses to their thresholds and squared momenta at 0, so that
        events that rounding (float32 momenta) puts just outside the
        Dalitz plot stay usable (default: NaN there).

    Returns
    -------
    dict of numpy.ndarray
        ``m_<pair>`` invariant masses, ``q_<pair>`` breakup momenta of the
        resonance (pair) and ``p_<pair>`` breakup momenta of D -> pair + C,
        for the pairs ``km_pip``, ``km_piz``, ``pip_piz`` (GeV).
    """
    m2 = {"km_pip": np.asarray(m2_km_pip, dtype=float), "km_piz": np.asarray(m2_km_piz, dtype=float)}
    total = masses["md"] ** 2 + masses["km"] ** 2 + masses["pip"] ** 2 + masses["piz"] ** 2
    m2["pip_piz"] = total - m2["km_pip"] - m2["km_piz"]
    fields = {}
    for pair, (a, b, c) in CHANNELS.items():
        if clip:
            m = np.sqrt(np.maximum(m2[pair], (masses[a] + masses[b]) ** 2))
            q2 = kinematics.decay_momentum_squared(m, masses[a], masses[b])
            p2 = kinematics.decay_momentum_squared(masses["md"],
                                                   np.minimum(m, masses["md"] - masses[c]),
                                                   masses[c])
            fields[f"m_{pair}"] = m
            fields[f"q_{pair}"], fields[f"p_{pair}"] = (np.sqrt(np.maximum(x, 0))
                                                        for x in (q2, p2))
            continue
        m = np.sqrt(m2[pair])
        fields[f"m_{pair}"] = m
        fields[f"q_{pair}"] = breakup_momentum(m, masses[a], masses[b])
        fields[f"p_{pair}"] = breakup_momentum(masses["md"], m, masses[c])
    return fields


def dalitz_variables(records):
    """m^2(K- pi+), m^2(K- pi0) (GeV^2) from event records: momentum branches
    (:data:`BRANCHES`) or ``m2_km_pip``, ``m2_km_piz``."""
    if "m2_km_pip" in records:
        return (np.asarray(records["m2_km_pip"], dtype=np.float64),
                np.asarray(records["m2_km_piz"], dtype=np.float64))
    km, pip, piz = (np.asarray(records[b], dtype=np.float64) for b in BRANCHES)
    return vector4.invariant_mass_squared(km, pip), vector4.invariant_mass_squared(km, piz)


def record_fields(records, masses=MASSES):
    """Event-buffer fields of event records (clipped, :func:`event_buffer_fields`)."""
    return event_buffer_fields(*dalitz_variables(records), masses, clip=True)


def amplitude(fields, params, masses):
    """Complex amplitude A at each event.

    Parameters
    ----------
    fields : dict of numpy.ndarray
        From :func:`event_buffer_fields`.
    params : array_like
        Parameter vector in the order of :func:`parameter_names`.
    masses : dict
        D0 and final-state masses (GeV).

    Returns
    -------
    numpy.ndarray of complex128
    """
    p = dict(zip(parameter_names(), np.asarray(params, dtype=float)))
    md = masses["md"]
    total = np.full(fields["m_km_pip"].shape,
                    p["NR_A"] * np.exp(1j * np.deg2rad(p["NR_P"])), dtype=complex)
    for name, pair, j, *_ in RESONANCES:
        a_name, b_name, c_name = CHANNELS[pair]
        ma, mb, mc = masses[a_name], masses[b_name], masses[c_name]
        m0, g0, r = p[f"{name}_M"], p[f"{name}_G"], p[f"{name}_R"]
        m, q, pd = fields[f"m_{pair}"], fields[f"q_{pair}"], fields[f"p_{pair}"]
        q0 = float(breakup_momentum(m0, ma, mb))
        fd = hep.blatt_weisskopf(pd, p["D_R"], j)
        if name not in OMIT_FD0:
            # 1/F_D(p0) from p0^2, continued below threshold while it stays defined.
            fd = fd * hep.blatt_weisskopf_inverse_gradient_q2(kinematics.decay_momentum_squared(md, m0, mc), p["D_R"], j)[0]
        bw = hep.breit_wigner_q_f_nophsp(m, q, q0, m0, g0, r, j)
        if j == 0:
            angular = 1.0
        else:
            ac, bc = ANGULAR_PAIRS[pair]
            angular = (fields[f"m_{ac}"] ** 2 - fields[f"m_{bc}"] ** 2
                       + (md**2 - mc**2) * (mb**2 - ma**2) / m0**2)
        coupling = p[f"{name}_A"] * np.exp(1j * np.deg2rad(p[f"{name}_P"]))
        total = total + coupling * fd * bw * angular
    return total


def signal_density(fields, params, masses):
    """Signal density S = |A|^2 (the model's Python density form)."""
    a = amplitude(fields, params, masses)
    return a.real**2 + a.imag**2
