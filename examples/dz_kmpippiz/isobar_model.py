"""The CLEO model of D0 -> K- pi+ pi0 (paper section 3) declared with vecampfit.isobar.

Breit-Wigner amplitudes without phase-space factor (radius 1.5 GeV^-1),
parent form factor normalized at m0 (omitted for rho(1700)+, whose m0 lies
above the D0 threshold), Zemach spin factors, a constant non-resonant term.
Parameters as in parameters_signal.dat: ``D_R``, ``<KEY>_M``, ``_G``, ``_R``
(GeV, GeV, GeV^-1), ``<KEY>_A``, ``_P`` (magnitude, phase in degrees).
"""
from vecampfit.isobar import IsobarModel, Parameter, Polar

#: Branches of the daughters' four-momenta in the event files.
MOMENTA = ("km_momentum", "pip_momentum", "pi0_momentum")
#: name, pair, spin, mass, width, magnitude, phase (degrees), label
RESONANCES = (
    ("RHOP1", ("pi+", "pi0"), 1, 0.770, 0.1507, 1.0, 0.0, "rho(770)+"),
    ("KSTM1", ("K-", "pi0"), 1, 0.8915, 0.0500, 0.44, 163.0, "K*(892)-"),
    ("KSTZ1", ("K-", "pi+"), 1, 0.8961, 0.0505, 0.39, -0.2, "anti-K*(892)0"),
    ("KST0M", ("K-", "pi0"), 0, 1.412, 0.294, 0.77, 55.5, "K*0(1430)-"),
    ("KST0Z", ("K-", "pi+"), 0, 1.412, 0.294, 0.85, 166.0, "anti-K*0(1430)0"),
    ("RHOP2", ("pi+", "pi0"), 1, 1.700, 0.240, 2.5, 171.0, "rho(1700)+"),
    ("KSTM2", ("K-", "pi0"), 1, 1.717, 0.322, 2.5, 103.0, "K*(1680)-"),
)


def build(pdg_edition=2024):
    """The model (masses from vecampfit.particle_data of ``pdg_edition``)."""
    model = IsobarModel("D0", ["K-", "pi+", "pi0"], pdg_edition=pdg_edition, labels={"D0": "D"},
                        spin_factor="zemach", parent_form_factor="normalized",
                        parent_radius=Parameter("D_R", 5.0), name="D0 -> K- pi+ pi0 (CLEO)",
                        momenta=MOMENTA)
    for key, pair, spin, mass, width, magnitude, phase, label in RESONANCES:
        model.add_resonance(key, pair, spin, mass=mass, width=width, radius=1.5, label=label,
                            coupling=Polar(magnitude, phase),
                            parent_form_factor="unnormalized" if key == "RHOP2" else None)
    model.add_nonresonant("NR", Polar(1.75, 31.2))
    return model
