"""The GenFit3K density written by hand in Cython (genfit3k_density.pyx): the
reference that the density vecampfit.isobar generates from
examples/laura_genfit3k/isobar_model3k.py is timed against
(benchmarks/bench_isobar.py) and compared with (tests/test_example_isobar_models.py).

The same model as isobar_model3k.py (docs/laura_genfit3k.rst): per pair
(K+_a K-) the event-only parts G = q^(2L+1) F_R(q)^2 / m and
W = (p* q)^L F_L^cov P_L^Laura(cos theta) F_B(p* (F_L^cov)^(1/L)) F_R(q) of
phi(1020) and f'2(1525) are event-buffer fields (:func:`event_buffer_fields`);
masses in GeV.
"""

import os

import numpy as np

from vecampfit import high_energy_physics as hep
from vecampfit import kinematics

HERE = os.path.dirname(os.path.abspath(__file__))
#: Laura++'s masses (GeV) of B+ and K+-.
M_B, M_K = 5.27934, 0.493677
#: Blatt-Weisskopf radii (1/GeV) of the resonances and the B+.
RESONANCE_RADIUS, PARENT_RADIUS = 4.0, 5.0
#: Resonances: parameter prefix and spin.
RESONANCES = (("PHI", 1), ("F2", 2))
#: Parameters in the order of the compiled density.
PARAMETER_NAMES = ("PHI_M", "PHI_G", "F2_M", "F2_G", "PHI_RE", "PHI_IM", "F2_RE", "F2_IM",
                   "NR_RE", "NR_IM")
#: Event-buffer fields: per pair 13, 23: s = m^2, then G and W of phi(1020) and f'2(1525).
EVENT_FIELDS = tuple(f"{kind}_{pair}" for pair in ("13", "23")
                     for kind in ("s", "g_phi", "w_phi", "g_f2", "w_f2"))


def event_buffer_fields(m13sq, m23sq, mb=M_B, mk=M_K):
    """The fields :data:`EVENT_FIELDS` (float64) of events (m13^2, m23^2), GeV^2."""
    fields = {}
    for pair, (s, t) in (("13", (m13sq, m23sq)), ("23", (m23sq, m13sq))):
        s, t = np.asarray(s, dtype=np.float64), np.asarray(t, dtype=np.float64)
        m = np.sqrt(s)
        q, p = kinematics.decay_momentum(m, mk, mk), kinematics.decay_momentum(mb, m, mk)
        f = kinematics.covariant_factor(m, mb, mk)
        cos = kinematics.dalitz_cos_helicity_angle(s, t, mb, mk, mk, mk)
        fields[f"s_{pair}"] = s
        for name, spin in RESONANCES:
            fr = hep.blatt_weisskopf(q, RESONANCE_RADIUS, spin)
            parent = hep.blatt_weisskopf(p * hep.covariant_factor_j(f, spin) ** (1.0 / spin),
                                         PARENT_RADIUS, spin)
            key = name.lower()
            fields[f"g_{key}_{pair}"] = q ** (2 * spin + 1) * fr * fr / m
            fields[f"w_{key}_{pair}"] = hep.covariant_angular_distribution(p, q, f, cos, spin) \
                * parent * fr
    return fields


def compile_density(vector_lengths, build_dir=None):
    """genfit3k_density.pyx compiled for the vector lengths: ``{L: module}``."""
    from vecampfit.model_compiler import compile_model
    return compile_model(os.path.join(HERE, "genfit3k_density.pyx"), list(vector_lengths),
                         build_dir=build_dir)


def signal_density(module, precision, normalization, gradient=True, mb=M_B, mk=M_K):
    """The compiled density as a :class:`vecampfit.fitter.Density` with the
    constants n (``normalization``: component -> n) and the masses (GeV)."""
    from vecampfit.fitter import Density
    constants = {"M_K": mk, "RESONANCE_RADIUS": RESONANCE_RADIUS,
                 **{f"N_{c}": normalization[c] for c in ("PHI", "F2", "NR")}}

    def fill(records, constants):
        if all(f in records for f in EVENT_FIELDS):
            return records
        return event_buffer_fields(records["m13Sq"], records["m23Sq"], mb, mk)
    return Density.from_model(module, precision, constants=constants, gradient=gradient,
                              fill_event_buffer=fill, name="B+ -> K+ K+ K- (hand-written)")
