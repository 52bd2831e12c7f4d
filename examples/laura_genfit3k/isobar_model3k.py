"""B+ -> K+ K+ K- after Laura++'s GenFit3K, declared with vecampfit.isobar.

phi(1020) and f'2(1525) as Breit-Wigner amplitudes without phase-space
factor (radius 4 /GeV) in both (K+ K-) pairs (symmetrized), Laura++'s
covariant spin factor and parent form factor (radius 5 /GeV), couplings
c = RE + i IM times the constant normalizations N_PHI, N_F2, N_NR
(vecampfit.isobar.unit_normalization); the phi(1020) coupling is fixed.
"""
from vecampfit.isobar import Cartesian, Constant, IsobarModel, Parameter

#: Laura++'s masses (GeV) of B+ and K+-.
M_B, M_K = 5.27934, 0.493677


def build():
    """The model, with the generated values as starting values."""
    model = IsobarModel(("B+", M_B), [("K+", M_K), ("K+", M_K), ("K-", M_K)],
                        name="B+ -> K+ K+ K- (GenFit3K)", spin_factor="laura",
                        parent_form_factor="laura", labels={"B+": "B"},
                        parent_radius=Constant("PARENT_RADIUS", 5.0),
                        variables={"m13Sq": (0, 2), "m23Sq": (1, 2)})
    model.constant("RESONANCE_RADIUS", 4.0)
    for key, label, mass, width, spin, step, c in (
            ("PHI", "phi(1020)", 1.019460, 0.004247, 1, 1e-4, (1, 0)),
            ("F2", "f'2(1525)", 1.5174, 0.086, 2, 1e-3, (0, 1))):
        re, im = (Parameter(f"{key}_{p}", v, step=0.05, fixed=key == "PHI",
                             random_change=0 if key == "PHI" else 10)
                  for p, v in zip(("RE", "IM"), c))
        model.add_resonance(key, ("K+", "K-"), spin, label=label, radius="RESONANCE_RADIUS",
                            mass=Parameter(f"{key}_M", mass, step=step),
                            width=Parameter(f"{key}_G", width, step=step),
                            coupling=Cartesian(re, im, scale=Constant(f"N_{key}", 1.0)))
    model.add_nonresonant("NR", Cartesian(Parameter("NR_RE", 1.0, step=0.05, random_change=10),
                                          Parameter("NR_IM", 0.0, step=0.05, random_change=10),
                                          scale=Constant("N_NR", 1.0)))
    return model
