"""Particle data: PDG 2020, 2022 and 2024 masses and widths.

The paper's ``VECAMPFIT_PARTICLE_DATA``: the masses (and widths, where
narrow) of the weakly decaying and narrow states an analysis needs for its
kinematics, as published by the Particle Data Group in the Review of Particle
Physics, editions 2020 (Prog. Theor. Exp. Phys. 2020, 083C01), 2022
(PTEP 2022, 083C01) and 2024 (Phys. Rev. D 110, 030001).  The parameters of
intermediate resonances in a fit are fit parameters; the resonance values
here (``rho(770)``, ``K*(892)``, ...) are starting points and generation
defaults.

Units: GeV for masses, widths and their uncertainties; charge in units of the
positron charge.  Widths of weakly decaying particles are
:math:`\\Gamma = \\hbar / \\tau` as PDG quotes them; stable particles (e, p)
have width 0; ``K0`` (a superposition of KS and KL) has no width
(``None``).

Each edition is a read-only mapping from the canonical name to a
:class:`ParticleRecord`: :data:`PDG_2020`, :data:`PDG_2022`,
:data:`PDG_2024`.  Canonical names follow the usual PDG/MC spelling:
``'e-'``, ``'e+'``, ``'mu-'``, ``'mu+'``, ``'pi+'``, ``'pi-'``, ``'pi0'``,
``'eta'``, ``"eta'(958)"``, ``'K+'``, ``'K-'``, ``'K0'``, ``'K~0'``,
``'K_S0'``, ``'K_L0'``, ``'D0'``, ``'D~0'``, ``'D+'``, ``'D-'``, ``'D_s+'``,
``'D_s-'``, ``'D*(2007)0'``, ``'D*(2010)+'``, ``'B+'``, ``'B-'``, ``'B0'``,
``'B~0'``, ``'B_s0'``, ``'B_s~0'``, ``'J/psi'``, ``'psi(2S)'``,
``'phi(1020)'``, ``'omega(782)'``, ``'p'``, ``'p~'``, ``'n'``, ``'n~'``,
``'Lambda'``, ``'Lambda~'``, ``'rho(770)0'``, ``'rho(770)+'``,
``'rho(770)-'``, ``'K*(892)0'``, ``'K*(892)~0'``, ``'K*(892)+'``,
``'K*(892)-'``, ``'K*0(1430)0'``, ``'K*0(1430)+'``, ...,
``'rho(1700)+'``, ``'K*(1680)-'``, ``"f2'(1525)"``.  The functions
:func:`mass`, :func:`width` and :func:`get` also accept common aliases
(``'KS'``, ``'Ds+'``, ``'D(s)+'``, ``'Bs0'``, ``'J/psi(1S)'``, ``'phi'``,
``'omega'``, ``"eta'"``, ``'rho+'``, ``'proton'``, ...) and resolve them to the
canonical name.

Notes on the values: the ``K*0(1430)`` mass is the PDG listing's
1425 +- 50 MeV (the PDG Monte Carlo table rounds it to 1430).  From 2024, PDG
lists the charged ``rho(770)`` separately from the neutral one; for 2020 and
2022 both carry the common value.  The charged ``K*(892)`` of 2020 and 2022
is PDG's hadroproduced value used in its Monte Carlo table
(895.5 +- 0.8 MeV, width 46.2 +- 1.3 MeV); 2024 quotes 891.67 +- 0.26 MeV,
51.4 +- 0.8 MeV.
"""

import difflib
import numbers
from dataclasses import dataclass
from fractions import Fraction
from types import MappingProxyType

__all__ = [
    "ParticleRecord",
    "PDG_2020",
    "PDG_2022",
    "PDG_2024",
    "EDITIONS",
    "get",
    "mass",
    "width",
    "names",
]


@dataclass(frozen=True)
class ParticleRecord:
    """PDG values of one particle (one edition).

    Attributes
    ----------
    name : str
        Canonical name (see the module documentation).
    pdg_id : int
        Monte Carlo particle number (negative for antiparticles).
    mass : float
        Mass (GeV).
    mass_error_upper, mass_error_lower : float
        Positive and negative uncertainties of the mass (GeV, both >= 0).
    width : float or None
        Full width (GeV); ``hbar / tau`` for weakly decaying particles, 0 for
        stable ones, ``None`` where PDG gives none (``K0``).
    width_error_upper, width_error_lower : float or None
        Uncertainties of the width (GeV).
    charge : int
        Electric charge (units of the positron charge).
    spin : fractions.Fraction
        Spin J.
    parity : int or None
        Intrinsic parity (+1 or -1); ``None`` where not defined (leptons).
    edition : int
        PDG edition (2020, 2022 or 2024).
    """

    name: str
    pdg_id: int
    mass: float
    mass_error_upper: float
    mass_error_lower: float
    width: object
    width_error_upper: object
    width_error_lower: object
    charge: int
    spin: Fraction
    parity: object
    edition: int

    @property
    def mass_error(self):
        """Symmetric mass uncertainty (GeV): the larger of the two."""
        return max(self.mass_error_upper, self.mass_error_lower)

    @property
    def width_error(self):
        """Symmetric width uncertainty (GeV): the larger of the two, ``None`` without width."""
        if self.width_error_upper is None:
            return None
        return max(self.width_error_upper, self.width_error_lower)


# Static properties of each particle (the particle, not its antiparticle):
# canonical name -> (pdg id, charge, 2J, parity, antiparticle name or None
# for self-conjugate states).
_H = Fraction(1, 2)
_STATIC = {
    "e-": (11, -1, 1, None, "e+"),
    "mu-": (13, -1, 1, None, "mu+"),
    "pi+": (211, 1, 0, -1, "pi-"),
    "pi0": (111, 0, 0, -1, None),
    "eta": (221, 0, 0, -1, None),
    "eta'(958)": (331, 0, 0, -1, None),
    "K+": (321, 1, 0, -1, "K-"),
    "K0": (311, 0, 0, -1, "K~0"),
    "K_S0": (310, 0, 0, -1, None),
    "K_L0": (130, 0, 0, -1, None),
    "D0": (421, 0, 0, -1, "D~0"),
    "D+": (411, 1, 0, -1, "D-"),
    "D_s+": (431, 1, 0, -1, "D_s-"),
    "D*(2007)0": (423, 0, 2, -1, "D*(2007)~0"),
    "D*(2010)+": (413, 1, 2, -1, "D*(2010)-"),
    "B+": (521, 1, 0, -1, "B-"),
    "B0": (511, 0, 0, -1, "B~0"),
    "B_s0": (531, 0, 0, -1, "B_s~0"),
    "J/psi": (443, 0, 2, -1, None),
    "psi(2S)": (100443, 0, 2, -1, None),
    "phi(1020)": (333, 0, 2, -1, None),
    "omega(782)": (223, 0, 2, -1, None),
    "p": (2212, 1, 1, 1, "p~"),
    "n": (2112, 0, 1, 1, "n~"),
    "Lambda": (3122, 0, 1, 1, "Lambda~"),
    "rho(770)0": (113, 0, 2, -1, None),
    "rho(770)+": (213, 1, 2, -1, "rho(770)-"),
    "K*(892)0": (313, 0, 2, -1, "K*(892)~0"),
    "K*(892)+": (323, 1, 2, -1, "K*(892)-"),
    "K*0(1430)0": (10311, 0, 0, 1, "K*0(1430)~0"),
    "K*0(1430)+": (10321, 1, 0, 1, "K*0(1430)-"),
    "rho(1700)0": (30113, 0, 2, -1, None),
    "rho(1700)+": (30213, 1, 2, -1, "rho(1700)-"),
    "K*(1680)0": (30313, 0, 2, -1, "K*(1680)~0"),
    "K*(1680)+": (30323, 1, 2, -1, "K*(1680)-"),
    "f2'(1525)": (335, 0, 4, 1, None),
}

# Values per edition, in GeV: name -> (mass, +err, -err, width, +err, -err).
# ``None`` width: not given.  Typed from the Review of Particle Physics
# (summary tables and the PDG Monte Carlo mass/width tables of each edition).
_PDG_2024 = {
    "e-": (0.51099895000e-3, 1.5e-13, 1.5e-13, 0.0, 0.0, 0.0),
    "mu-": (0.1056583755, 2.3e-9, 2.3e-9, 2.9959836e-19, 3.0e-25, 3.0e-25),
    "pi+": (0.13957039, 1.8e-7, 1.8e-7, 2.5284e-17, 5.0e-21, 5.0e-21),
    "pi0": (0.1349768, 5.0e-7, 5.0e-7, 7.81e-9, 1.2e-10, 1.2e-10),
    "eta": (0.547862, 1.7e-5, 1.7e-5, 1.31e-6, 5.0e-8, 5.0e-8),
    "eta'(958)": (0.95778, 6.0e-5, 6.0e-5, 1.88e-4, 6.0e-6, 6.0e-6),
    "K+": (0.493677, 1.5e-5, 1.5e-5, 5.317e-17, 9.0e-20, 9.0e-20),
    "K0": (0.497611, 1.3e-5, 1.3e-5, None, None, None),
    "K_S0": (0.497611, 1.3e-5, 1.3e-5, 7.3508e-15, 2.9e-18, 2.9e-18),
    "K_L0": (0.497611, 1.3e-5, 1.3e-5, 1.287e-17, 5.0e-20, 5.0e-20),
    "D0": (1.86484, 5.0e-5, 5.0e-5, 1.604e-12, 4.0e-15, 4.0e-15),
    "D+": (1.86966, 5.0e-5, 5.0e-5, 6.370e-13, 2.9e-15, 2.9e-15),
    "D_s+": (1.96835, 7.0e-5, 7.0e-5, 1.313e-12, 6.0e-15, 6.0e-15),
    "D*(2007)0": (2.00685, 5.0e-5, 5.0e-5, None, None, None),
    "D*(2010)+": (2.01026, 5.0e-5, 5.0e-5, 8.34e-5, 1.8e-6, 1.8e-6),
    "B+": (5.27941, 7.0e-5, 7.0e-5, 4.018e-13, 1.0e-15, 1.0e-15),
    "B0": (5.27972, 8.0e-5, 8.0e-5, 4.339e-13, 1.1e-15, 1.1e-15),
    "B_s0": (5.36693, 1.0e-4, 1.0e-4, 4.330e-13, 1.4e-15, 1.4e-15),
    "J/psi": (3.096900, 6.0e-6, 6.0e-6, 9.26e-5, 1.7e-6, 1.7e-6),
    "psi(2S)": (3.686097, 1.1e-5, 1.1e-5, 2.93e-4, 9.0e-6, 9.0e-6),
    "phi(1020)": (1.019461, 1.6e-5, 1.6e-5, 4.249e-3, 1.3e-5, 1.3e-5),
    "omega(782)": (0.78266, 1.3e-4, 1.3e-4, 8.68e-3, 1.3e-4, 1.3e-4),
    "p": (0.93827208816, 2.9e-10, 2.9e-10, 0.0, 0.0, 0.0),
    "n": (0.9395654205, 5.0e-10, 5.0e-10, 7.493e-28, 4.0e-31, 4.0e-31),
    "Lambda": (1.115683, 6.0e-6, 6.0e-6, 2.515e-15, 1.0e-17, 1.0e-17),
    "rho(770)0": (0.77526, 2.3e-4, 2.3e-4, 0.1474, 8.0e-4, 8.0e-4),
    "rho(770)+": (0.77511, 3.4e-4, 3.4e-4, 0.1491, 8.0e-4, 8.0e-4),
    "K*(892)0": (0.89555, 2.0e-4, 2.0e-4, 0.0473, 5.0e-4, 5.0e-4),
    "K*(892)+": (0.89167, 2.6e-4, 2.6e-4, 0.0514, 8.0e-4, 8.0e-4),
    "K*0(1430)0": (1.425, 0.050, 0.050, 0.270, 0.080, 0.080),
    "K*0(1430)+": (1.425, 0.050, 0.050, 0.270, 0.080, 0.080),
    "rho(1700)0": (1.720, 0.020, 0.020, 0.250, 0.100, 0.100),
    "rho(1700)+": (1.720, 0.020, 0.020, 0.250, 0.100, 0.100),
    "K*(1680)0": (1.718, 0.018, 0.018, 0.322, 0.110, 0.110),
    "K*(1680)+": (1.718, 0.018, 0.018, 0.322, 0.110, 0.110),
    "f2'(1525)": (1.5173, 2.4e-3, 2.4e-3, 0.072, 7.0e-3, 6.0e-3),
}

_PDG_2022 = dict(_PDG_2024)
_PDG_2022.update({
    "K+": (0.493677, 1.6e-5, 1.6e-5, 5.317e-17, 9.0e-20, 9.0e-20),
    "D_s+": (1.96835, 7.0e-5, 7.0e-5, 1.305e-12, 1.0e-14, 1.0e-14),
    "B+": (5.27934, 1.2e-4, 1.2e-4, 4.018e-13, 1.0e-15, 1.0e-15),
    "B0": (5.27966, 1.2e-4, 1.2e-4, 4.333e-13, 1.1e-15, 1.1e-15),
    "B_s0": (5.36692, 1.0e-4, 1.0e-4, 4.330e-13, 1.4e-15, 1.4e-15),
    "psi(2S)": (3.68610, 6.0e-5, 6.0e-5, 2.94e-4, 8.0e-6, 8.0e-6),
    "Lambda": (1.115683, 6.0e-6, 6.0e-6, 2.501e-15, 1.9e-17, 1.9e-17),
    "rho(770)0": (0.77526, 2.3e-4, 2.3e-4, 0.1491, 8.0e-4, 8.0e-4),
    "rho(770)+": (0.77526, 2.3e-4, 2.3e-4, 0.1491, 8.0e-4, 8.0e-4),
    "K*(892)+": (0.8955, 8.0e-4, 8.0e-4, 0.0462, 1.3e-3, 1.3e-3),
    "f2'(1525)": (1.5174, 2.5e-3, 2.5e-3, 0.086, 5.0e-3, 5.0e-3),
})

_PDG_2020 = dict(_PDG_2022)
_PDG_2020.update({
    "e-": (0.5109989461e-3, 3.1e-12, 3.1e-12, 0.0, 0.0, 0.0),
    "mu-": (0.1056583745, 2.4e-9, 2.4e-9, 2.9959837e-19, 3.0e-25, 3.0e-25),
    "pi0": (0.1349768, 5.0e-7, 5.0e-7, 7.73e-9, 1.7e-10, 1.7e-10),
    "D0": (1.86483, 5.0e-5, 5.0e-5, 1.605e-12, 6.0e-15, 6.0e-15),
    "D+": (1.86965, 5.0e-5, 5.0e-5, 6.33e-13, 4.0e-15, 4.0e-15),
    "D_s+": (1.96834, 7.0e-5, 7.0e-5, 1.305e-12, 1.0e-14, 1.0e-14),
    "B0": (5.27965, 1.2e-4, 1.2e-4, 4.333e-13, 1.1e-15, 1.1e-15),
    "B_s0": (5.36688, 1.4e-4, 1.4e-4, 4.345e-13, 1.1e-15, 1.1e-15),
    "J/psi": (3.096900, 6.0e-6, 6.0e-6, 9.29e-5, 2.8e-6, 2.8e-6),
    "omega(782)": (0.78265, 1.2e-4, 1.2e-4, 8.49e-3, 8.0e-5, 8.0e-5),
    "p": (0.938272081, 6.0e-9, 6.0e-9, 0.0, 0.0, 0.0),
    "n": (0.939565413, 6.0e-9, 6.0e-9, 7.485e-28, 5.0e-31, 5.0e-31),
    "rho(770)0": (0.77526, 2.5e-4, 2.5e-4, 0.1491, 8.0e-4, 8.0e-4),
    "rho(770)+": (0.77526, 2.5e-4, 2.5e-4, 0.1491, 8.0e-4, 8.0e-4),
})


def _build(edition, values):
    table = {}
    for name, (pdg_id, charge, two_j, parity, anti) in _STATIC.items():
        m, mu, ml, w, wu, wl = values[name]
        spin = Fraction(two_j, 2)
        table[name] = ParticleRecord(name, pdg_id, m, mu, ml, w, wu, wl, charge, spin, parity, edition)
        if anti is not None:
            # Antifermions have the opposite intrinsic parity.
            anti_parity = None if parity is None else (-parity if two_j % 2 else parity)
            table[anti] = ParticleRecord(anti, -pdg_id, m, mu, ml, w, wu, wl, -charge, spin,
                                         anti_parity, edition)
    return MappingProxyType(table)


#: PDG 2020 values: canonical name -> :class:`ParticleRecord` (GeV).
PDG_2020 = _build(2020, _PDG_2020)
#: PDG 2022 values: canonical name -> :class:`ParticleRecord` (GeV).
PDG_2022 = _build(2022, _PDG_2022)
#: PDG 2024 values: canonical name -> :class:`ParticleRecord` (GeV).
PDG_2024 = _build(2024, _PDG_2024)
#: The editions by year.
EDITIONS = MappingProxyType({2020: PDG_2020, 2022: PDG_2022, 2024: PDG_2024})


def _aliases():
    a = {
        "e": "e-", "electron": "e-", "positron": "e+",
        "mu": "mu-", "muon": "mu-",
        "eta'": "eta'(958)", "etaprime": "eta'(958)", "eta_prime": "eta'(958)",
        "K~0": "K~0", "Kbar0": "K~0", "anti-K0": "K~0",
        "KS": "K_S0", "K_S": "K_S0", "KS0": "K_S0", "K(S)0": "K_S0", "K0S": "K_S0",
        "KL": "K_L0", "K_L": "K_L0", "KL0": "K_L0", "K(L)0": "K_L0", "K0L": "K_L0",
        "Dbar0": "D~0", "anti-D0": "D~0",
        "Ds+": "D_s+", "Ds-": "D_s-", "D(s)+": "D_s+", "D(s)-": "D_s-",
        "D*0": "D*(2007)0", "D*+": "D*(2010)+", "D*-": "D*(2010)-", "D*~0": "D*(2007)~0",
        "Bbar0": "B~0", "anti-B0": "B~0",
        "Bs0": "B_s0", "Bs": "B_s0", "B(s)0": "B_s0", "B_s": "B_s0",
        "Bsbar0": "B_s~0", "B(s)~0": "B_s~0", "anti-B_s0": "B_s~0",
        "J/psi(1S)": "J/psi", "Jpsi": "J/psi", "J/psi(1S)0": "J/psi",
        "psi(3686)": "psi(2S)", "psi2S": "psi(2S)", "psi'": "psi(2S)",
        "phi": "phi(1020)", "omega": "omega(782)",
        "proton": "p", "p+": "p", "pbar": "p~", "anti-p": "p~", "p~-": "p~", "pbar-": "p~",
        "neutron": "n", "n0": "n", "nbar": "n~", "anti-n": "n~",
        "Lambda0": "Lambda", "Lambdabar": "Lambda~", "anti-Lambda": "Lambda~", "Lambda~0": "Lambda~",
        "rho0": "rho(770)0", "rho+": "rho(770)+", "rho-": "rho(770)-",
        "rho(770)": "rho(770)0",
        "K*0": "K*(892)0", "K*+": "K*(892)+", "K*-": "K*(892)-", "K*~0": "K*(892)~0",
        "K*bar0": "K*(892)~0",
        "f2'(1525)0": "f2'(1525)", "f(2)'(1525)": "f2'(1525)", "f2p(1525)": "f2'(1525)",
        "f2prime(1525)": "f2'(1525)",
    }
    # K*0(1430) spellings: K0*(1430), K(0)*(1430), K_0*(1430).
    for charge in ("0", "~0", "+", "-"):
        for spelling in ("K0*(1430)", "K(0)*(1430)", "K_0*(1430)"):
            a[spelling + charge] = "K*0(1430)" + charge
    return a


_ALIASES = _aliases()


def names(edition=2024):
    """Canonical names of the particles in an edition.

    Parameters
    ----------
    edition : int, optional
        2020, 2022 or 2024.

    Returns
    -------
    list of str
        Sorted canonical names.
    """
    return sorted(_edition(edition))


def _edition(edition):
    if isinstance(edition, str):
        key = edition.upper().replace("PDG_", "").replace("PDG", "")
        try:
            edition = int(key)
        except ValueError:
            pass
    if isinstance(edition, bool) or not isinstance(edition, numbers.Integral) or edition not in EDITIONS:
        raise ValueError(f"unknown PDG edition {edition!r}; available: {sorted(EDITIONS)}")
    return EDITIONS[int(edition)]


def _resolve(name, table):
    if not isinstance(name, str):
        raise TypeError(f"particle name must be a string, got {name!r}")
    key = name.strip()
    if key in table:
        return key
    if key in _ALIASES:
        return _ALIASES[key]
    folded = {n.casefold(): n for n in list(table) + list(_ALIASES)}
    hit = folded.get(key.casefold())
    if hit is not None:
        return _ALIASES.get(hit, hit)
    candidates = list(table) + list(_ALIASES)
    close = difflib.get_close_matches(key, candidates, n=6, cutoff=0.5)
    hint = f"; close names: {', '.join(close)}" if close else ""
    raise KeyError(f"unknown particle name {name!r}{hint} (see vecampfit.particle_data.names())")


def get(name, edition=2024):
    """The PDG record of a particle.

    Parameters
    ----------
    name : str
        Canonical name or alias (``'D0'``, ``'K-'``, ``'pi+'``, ``'KS'``,
        ``'phi(1020)'``, ...).
    edition : int or str, optional
        2020, 2022 or 2024 (or ``'PDG_2024'``); default 2024.

    Returns
    -------
    ParticleRecord
        Mass, width (GeV), uncertainties, charge, spin and parity.

    Raises
    ------
    KeyError
        Unknown particle name; the message lists close names.
    ValueError
        Unknown edition.
    """
    table = _edition(edition)
    return table[_resolve(name, table)]


def mass(name, edition=2024):
    """Mass of a particle (GeV), PDG value of the given edition.

    Parameters
    ----------
    name : str
        Particle name (see :func:`get`).
    edition : int or str, optional
        2020, 2022 or 2024; default 2024.

    Returns
    -------
    float
        Mass (GeV).

    Raises
    ------
    KeyError
        Unknown particle name; the message lists close names.
    ValueError
        Unknown edition.

    Examples
    --------
    >>> from vecampfit.particle_data import mass
    >>> mass('D0'), mass('K-'), mass('pi+'), mass('pi0')
    (1.86484, 0.493677, 0.13957039, 0.1349768)
    """
    return get(name, edition).mass


def width(name, edition=2024):
    """Full width of a particle (GeV), PDG value of the given edition.

    For weakly decaying particles :math:`\\Gamma = \\hbar/\\tau`; 0 for
    stable particles.

    Parameters
    ----------
    name : str
        Particle name (see :func:`get`).
    edition : int or str, optional
        2020, 2022 or 2024; default 2024.

    Returns
    -------
    float
        Width (GeV).

    Raises
    ------
    KeyError
        Unknown particle name; the message lists close names.
    ValueError
        Unknown edition, or no width given for this particle (``K0``).
    """
    record = get(name, edition)
    if record.width is None:
        raise ValueError(f"PDG {record.edition} gives no width for {record.name!r}")
    return record.width
