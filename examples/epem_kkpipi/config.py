"""Configuration of the e+e- -> K K-bar pi pi example: one place per process and energy point.

The counterpart of the paper's configuration headers and templates
(``config_background_kpkmpippim_default_1800_mev.h`` and so on): a
:class:`Point` dataclass per (process, energy) says which signal model, which
polynomial orders and which sample sizes the point has, and which files it
reads and writes.  :data:`POINTS` holds the ten points of the paper
(K+ K- pi+ pi- and KS KS pi+ pi- at 1800, 1850, 1900, 1950 and 2000 MeV);
:func:`select` picks a subset from command-line style lists.

Files of a point ``<process>_<E>_mev`` (tree ``tree``; see
:mod:`detector` and ``generate_kkpipi.py`` for the branches):

``mc_<point>.root``
    generator-level signal MC, uniform in phase space, with the
    reconstructed flag, the reconstructed momenta and the data/MC weight;
``data_<point>.root``
    pseudo-data: reconstructed signal (from the amplitude) and background
    events;
``background_<point>.root``
    a reconstructed background sample (for the background fit).
"""

import dataclasses
import math

import model_kkpipi as model

#: Process names and a readable label.
PROCESS_LABELS = {"kpkmpippim": "K+ K- pi+ pi-", "kskspippim": "KS KS pi+ pi-"}


@dataclasses.dataclass(frozen=True)
class Point:
    """One simultaneous-fit point: a process at an energy.

    Attributes
    ----------
    process : str
        ``"kpkmpippim"`` or ``"kskspippim"``.
    energy_mev : int
        :math:`\\sqrt s` (MeV).
    signal_model : str
        Name of the signal model (``"default"``: :mod:`model`).
    efficiency_order : int
        Order n of the two-dimensional Chebyshev polynomial P_n(x_pt, cos theta)
        of the per-track efficiency E_0 (paper 8.2: 4 for K+ K- pi+ pi-, 8 for
        KS KS pi+ pi-).
    efficiency_correction_order : int
        Active order of the seven-dimensional correction polynomial P_1(Phi)
        (generated up to order 2, used up to this order, as in the paper).
    resolution_order : int
        Order of the polynomials in Phi of the resolution widths (1).
    background_order : int
        Order of the background polynomial P_2(Phi) (2).
    data_events : int
        Reconstructed pseudo-data events (signal + background).
    background_fraction : float
        Background fraction of the pseudo-data.
    mc_events : int
        Generator-level MC events (reconstructed or not).
    background_events : int
        Reconstructed events of the background sample.
    """

    process: str
    energy_mev: int
    signal_model: str = "default"
    efficiency_order: int = 4
    efficiency_correction_order: int = 1
    resolution_order: int = 1
    background_order: int = 2
    data_events: int = 10000
    background_fraction: float = 0.1
    mc_events: int = 100000
    background_events: int = 10000

    def __post_init__(self):
        if self.process not in model.PROCESSES:
            raise ValueError(f"unknown process {self.process!r}; expected one of "
                             f"{sorted(model.PROCESSES)}")
        if self.energy_mev <= 0:
            raise ValueError(f"energy_mev must be positive, got {self.energy_mev!r}")
        if not 0 <= self.background_fraction <= 1:
            raise ValueError("background_fraction must be in [0, 1]")
        for f in ("data_events", "mc_events", "background_events"):
            if getattr(self, f) < 0:
                raise ValueError(f"{f} must be non-negative")

    @property
    def name(self):
        """``<process>_<E>_mev``, e.g. ``kpkmpippim_1800_mev``."""
        return f"{self.process}_{self.energy_mev}_mev"

    @property
    def sqrt_s(self):
        """Centre-of-mass energy (GeV)."""
        return self.energy_mev / 1000.0

    def title(self, what):
        """Title of a plot of the point: ``K+ K- pi+ pi-, 2000 MeV, <what>``."""
        return f"{PROCESS_LABELS[self.process]}, {self.energy_mev} MeV, {what}"

    def file(self, kind):
        """File name of a sample: ``kind`` in ``mc``, ``data``, ``background``."""
        if kind not in ("mc", "data", "background"):
            raise ValueError(f"unknown sample kind {kind!r}")
        return f"{kind}_{self.name}.root"

    def masses(self):
        """Final-state masses (GeV) ``K1``, ``K2``, ``pi1``, ``pi2``."""
        return model.masses(self.process)

    def constants(self):
        """Signal-model constants (:func:`model.constants`)."""
        return model.constants(self.process)

    def parameters(self):
        """Generation values of the signal parameters (dict)."""
        return model.default_parameters(self.energy_mev)

    def phi_ranges(self):
        """Ranges of the seven variables Phi (:data:`model.PHI_NAMES`) mapped
        to [-1, 1] by the polynomials: theta in [0, pi], phi in [-pi, pi],
        M(K1 K2) in [2 m_K, sqrt(s) - 2 m_pi], M(pi1 pi2) in [2 m_pi, sqrt(s) - 2 m_K] (GeV)."""
        m = self.masses()
        mk, mpi = m["K1"], m["pi1"]
        return {"theta_gamma": (0.0, math.pi), "m_k1k2": (2 * mk, self.sqrt_s - 2 * mpi),
                "theta_phi": (0.0, math.pi), "phi_k1": (-math.pi, math.pi),
                "m_pi1pi2": (2 * mpi, self.sqrt_s - 2 * mk), "theta_f": (0.0, math.pi),
                "phi_pi1": (-math.pi, math.pi)}


def _point(process, energy):
    order = 4 if process == "kpkmpippim" else 8
    return Point(process, energy, efficiency_order=order)


#: The ten points of the paper, keyed by :attr:`Point.name`.
POINTS = {p.name: p for p in (_point(proc, e) for proc in model.PROCESSES
                               for e in model.ENERGIES_MEV)}


def select(processes=None, energies=None, **overrides):
    """Points of the given processes and energies (default: all), with
    dataclass fields replaced by ``overrides`` (e.g. ``data_events=2000``).

    Raises
    ------
    ValueError
        An unknown process or an energy that is not one of the points.
    """
    processes = list(model.PROCESSES) if not processes else list(processes)
    energies = list(model.ENERGIES_MEV) if not energies else [int(e) for e in energies]
    for p in processes:
        if p not in model.PROCESSES:
            raise ValueError(f"unknown process {p!r}; expected one of {sorted(model.PROCESSES)}")
    for e in energies:
        if e not in model.ENERGIES_MEV:
            raise ValueError(f"no energy point {e} MeV; the points are {list(model.ENERGIES_MEV)}")
    out = []
    for p in processes:
        for e in energies:
            point = POINTS[f"{p}_{e}_mev"]
            out.append(dataclasses.replace(point, **overrides) if overrides else point)
    return out
