r"""The e+e- -> K K-bar pi pi signal model declared through :mod:`vecampfit.cascades`.

The same model as ``model_kkpipi.py`` (paper section 8.1): :math:`\gamma^* \to K_1 \bar K`,
:math:`K_1 = K_1(1270), K_1(1400)` with the constant width and the mass in
the imaginary part, :math:`K_1 \to K^* \pi` and :math:`\rho K` in S and D
waves, :math:`K^* \to K\pi` and :math:`\rho \to \pi\pi` in P wave with
Blatt-Weisskopf factors (radius 1.5 GeV^-1), production and decays in LS
couplings (Jacob-Wick eq. (B5)), the charge-conjugate chains with the
factor -1 and the isospin factors as Clebsch-Gordan products.  Final states
``K1 K2 pi1 pi2``: ``K+ K- pi+ pi-`` and ``KS KS pi+ pi-``; the two
:math:`K_S` are symmetrized (:math:`K_S \propto K^0 \pm \bar K^0`, the
chains of :math:`K_1^0 \bar K^0` summed over both kaon labellings).
Parameters as in ``model.parameter_names``: ``<wave>_RE``, ``<wave>_IM``.
"""

from fractions import Fraction

from vecampfit import particle_data as pdg
from vecampfit.cascades import LS, CascadeModel, Isobar, Particle, VirtualPhoton
from vecampfit.cascades import lineshapes
from vecampfit.quantum_mechanics import clebsch_gordan as cg

PROCESSES = ("kpkmpippim", "kskspippim")
ENERGIES_MEV = (1800, 1850, 1900, 1950, 2000)
#: Three-body resonances: name, mass, width (GeV; PDG 2024).
K1_RESONANCES = (("K1_1270", 1.253, 0.090), ("K1_1400", 1.403, 0.174))
RADIUS = 1.5
H = Fraction(1, 2)


def conjugate(topology):
    """The charge-conjugate topology: K1 <-> K2, pi1 <-> pi2."""
    if isinstance(topology, str):
        return {"K1": "K2", "K2": "K1", "pi1": "pi2", "pi2": "pi1"}[topology]
    return tuple(conjugate(t) for t in topology)


def paths(process):
    r"""The :math:`K_1` decay paths of the process: ``(name, topology, two-body
    isobar, decay-wave name, isospin factor)``; the isospin factor is the
    product of :math:`\langle I_R m_R; I_X m_X | I_{K_1} m_{K_1}\rangle` and
    :math:`\langle I_x m_x; I_y m_y | I_R m_R\rangle` (first child first)."""
    rho = cg(1, 1, 1, -1, 1, 0)                              # rho0 -> pi+ pi-
    if process == "kpkmpippim":                              # K1+ -> K*0 pi+, rho0 K+
        return (("a", ((("K1", "pi2"), "pi1"), "K2"), "KST", "KSTPI",
                 cg(H, -H, 1, 1, H, H) * cg(H, H, 1, -1, H, -H)),
                ("c", ((("pi1", "pi2"), "K1"), "K2"), "RHO", "RHOK", cg(1, 0, H, H, H, H) * rho))
    if process == "kskspippim":                              # K1^0 -> K*+ pi-, rho0 K0
        return (("b", ((("K1", "pi1"), "pi2"), "K2"), "KST", "KSTPI",
                 cg(H, H, 1, -1, H, -H) * cg(H, -H, 1, 1, H, H)),
                ("c", ((("pi1", "pi2"), "K1"), "K2"), "RHO", "RHOK", cg(1, 0, H, -H, H, -H) * rho))
    raise ValueError(f"unknown process {process!r}; expected one of {PROCESSES}")


def cascade(process, energy_mev, edition=2024):
    """The :class:`~vecampfit.cascades.CascadeModel` of one process at one energy (MeV)."""
    kaon, kst = ("K+", "K*(892)0") if process == "kpkmpippim" else ("KS", "K*(892)+")
    m_k, m_pi = pdg.mass(kaon, edition), pdg.mass("pi+", edition)
    final = [Particle("K1", 0, -1, m_k), Particle("K2", 0, -1, m_k),
             Particle("pi1", 0, -1, m_pi), Particle("pi2", 0, -1, m_pi)]
    two_body = {
        "KST": Isobar("KST", 1, -1, lineshapes.breit_wigner(
            pdg.mass(kst, edition), pdg.width(kst, edition), 1, RADIUS)),
        "RHO": Isobar("RHO", 1, -1, lineshapes.breit_wigner(
            pdg.mass("rho(770)0", edition), pdg.width("rho(770)0", edition), 1, RADIUS))}
    model = CascadeModel(f"epem_{process}_{int(energy_mev)}", VirtualPhoton(), final,
                         identical=[("K1", "K2")] if process == "kskspippim" else ())
    p_wave = LS({(1, 0): 1.0})
    for name, mass, width in K1_RESONANCES:
        k1 = Isobar(name, 1, 1, lineshapes.running_constant_width(mass, width))
        production = LS({(0, 1): f"{name}_E{int(energy_mev)}_S",
                         (2, 1): f"{name}_E{int(energy_mev)}_D"})
        for path, topology, isobar, waves, factor in paths(process):
            decay = LS({(0, 1): f"{name}_{waves}_S", (2, 1): f"{name}_{waves}_D"})
            for sign, t, cc in ((1, topology, ""), (-1, conjugate(topology), "_cc")):
                model.add_chain(t, [k1, two_body[isobar]], [production, decay, p_wave],
                                factor=sign * factor, name=f"{name}_{path}{cc}")
    return model


def amplitude_model(process, energy_mev, values=None, fixed=True, edition=2024):
    """The :class:`~vecampfit.amplitudes.AmplitudeModel` of one process and energy.

    ``values``: starting values by parameter name (others 1 + 0i);
    ``fixed``: fix the normalization and the global phase
    (``K1_1270_E<E>_S`` and ``K1_<m>_KSTPI_S`` at their values).
    """
    c = cascade(process, energy_mev, edition)
    norm = [f"K1_1270_E{int(energy_mev)}_S"] + [f"{k}_KSTPI_S" for k, *_ in K1_RESONANCES]
    for name, value in (values or {}).items():
        c.set_parameter(name, value, fixed=fixed and name[:-3] in norm)
    for name in norm:
        for suffix, default in (("_RE", 1.0), ("_IM", 0.0)):
            if name + suffix not in (values or {}):
                c.set_parameter(name + suffix, default, fixed=fixed)
    return c.amplitude_model(), c.event_records


def amplitude_models(values=None, fixed=True):
    """All ten (process, energy) models, sharing the decay couplings by name:
    ``{(process, energy): (AmplitudeModel, event_records)}``."""
    return {(p, e): amplitude_model(p, e, values, fixed) for p in PROCESSES for e in ENERGIES_MEV}
