"""Fit the efficiency parameterization (paper section 8.2) to the generator-level MC with the reconstructed flag.

For each chosen point reads ``mc_<point>.root`` (generate_kkpipi.py) and fits
E(Phi_lab, Phi) (efficiency.py) by the likelihood -2 ln g(E/w) for
reconstructed and -2 ln(1 - g(E/w)) for other events, without
normalization, with the explicit gradient (or Minuit's numerical one with
--no-gradient), with the compiled density efficiency_density.pyx (or the
numpy form with --numpy); w = R with --data-efficiency, else 1.  Writes
``parameters_efficiency_<mc|data>_<point>.dat`` (fitted values),
``efficiency_<mc|data>_<point>.txt`` (summary with the projection chi2) and,
with --plot (always for 2000 MeV unless --no-plot), the projections onto
M(K1 K2), M(K1 pi2), M(pi1 pi2): ``efficiency_<mc|data>_<point>.png``.
Run ``python fit_efficiency.py --help``.
"""

import os

import numpy as np

import common_kkpipi as common  # noqa: E402
import efficiency  # noqa: E402
from vecampfit.fitter import Fitter, Likelihood, Stage, results  # noqa: E402
from vecampfit.fitter.parameters import write_parameter_file  # noqa: E402
from vecampfit.root_io import read_events  # noqa: E402

#: Projections: name, particles, label.
PROJECTIONS = (("m_k1k2", ("K1", "K2"), "M(K1 K2) (GeV)"),
               ("m_k1pi2", ("K1", "pi2"), "M(K1 pi2) (GeV)"),
               ("m_pi1pi2", ("pi1", "pi2"), "M(pi1 pi2) (GeV)"))


def invariant_mass(*momenta):
    p = sum(momenta)
    return np.sqrt(np.maximum(p[:, 3] ** 2 - np.sum(p[:, :3] ** 2, axis=1), 0.0))


def projections(records, fields, e, bins=20, data_efficiency=False):
    """Measured and fitted efficiency per bin of the three projections.

    Measured: the reconstructed fraction (times R for the data efficiency)
    with its binomial error; fitted: the mean of E over the bin's events.
    Returns ``{name: dict(edges, measured, error, fitted, chi2, ndf)}``.
    """
    gen = common.momenta_of(records, generator_level=True)
    r = fields["r"] * (fields["w"] if data_efficiency else 1.0)
    out = {}
    for name, parts, _ in PROJECTIONS:
        m = invariant_mass(*(gen[k] for k in parts))
        edges = np.linspace(m.min(), m.max(), bins + 1)
        idx = np.clip(np.digitize(m, edges) - 1, 0, bins - 1)
        n = np.bincount(idx, minlength=bins).astype(float)
        k = np.bincount(idx, weights=r, minlength=bins)
        fit = np.bincount(idx, weights=e, minlength=bins)
        with np.errstate(invalid="ignore", divide="ignore"):
            meas = k / n
            fitted = fit / n
            err = np.sqrt(np.maximum(fitted * (1 - fitted), 1e-12) / n)
        ok = n >= 20
        chi2 = float(np.sum(((meas - fitted) / err)[ok] ** 2))
        out[name] = {"edges": edges, "measured": meas, "error": err, "fitted": fitted,
                     "chi2": chi2, "ndf": int(ok.sum())}
    return out


def plot(proj, path, title):
    """Measured and fitted efficiency per bin of the projections."""
    common.plot_comparison({label: proj[name] for name, _, label in PROJECTIONS}, path, title,
                           ("measured", "reconstructed fraction", "error"), ("fitted", "fit"),
                           "efficiency")


def fit_point(point, directory, *, data_efficiency=False, gradient=True, max_events=None,
              make_plot=False, verbose=False, modules=None, vector_length=8,
              precision="float64"):
    """Fit the efficiency of one point; returns (fitter, projections).

    With ``modules`` (``common.compile_efficiency_density``) the compiled
    density of length ``vector_length`` and ``precision`` is used, else the
    numpy form."""
    path = os.path.join(directory, point.file("mc"))
    records, _ = read_events(path)
    if max_events:
        records = {k: v[:max_events] for k, v in records.items()}
    if modules is None:
        dens = efficiency.density(point, data_efficiency)
        vector_length, precision = 1, "float64"
    else:
        dens = efficiency.density_cython(modules, point, precision, vector_length,
                                         data_efficiency)
    likelihood = Likelihood(efficiency.initial_parameters(point), vector_length=vector_length,
                            precision=precision)
    likelihood.add_point(dens, normalization="none").add_data(records)
    fitter = Fitter(likelihood, randomize=False, use_gradient=gradient, verbose=verbose)
    fitter.run(Stage())
    x, err = results.values(fitter.minuit), results.errors(fitter.minuit)
    kind = "data" if data_efficiency else "mc"
    write_parameter_file(os.path.join(directory, f"parameters_efficiency_{kind}_{point.name}.dat"),
                         likelihood.parameters, x)
    fields = efficiency.event_fields(records, point, data_efficiency)
    e = efficiency.efficiency(fields, x, point)
    proj = projections(records, fields, e, data_efficiency=data_efficiency)
    m = fitter.minuit
    common.write_report(
        os.path.join(directory, f"efficiency_{kind}_{point.name}.txt"),
        [f"{point.name} {kind} efficiency: F = {m.fval:.6f}, valid = {m.valid}, "
         f"calls = {m.nfcn}, gradient = {gradient}", *common.chi2_lines(proj, "projection"),
         *(f"{name} {v:.8g} {error:.3g}"
           for name, v, error in zip(likelihood.parameters.names, x, err))])
    if make_plot:
        plot(proj, os.path.join(directory, f"efficiency_{kind}_{point.name}.png"),
             point.title(f"{kind} efficiency"))
    return fitter, proj


def main(argv=None):
    p = common.parser(__doc__.split("\n\n")[0])
    p.add_argument("--data-efficiency", action="store_true",
                   help="fit the data efficiency (weights w = R) instead of the MC efficiency")
    common.add_fit_options(p)
    p.add_argument("--max-events", type=int, default=None,
                   help="use at most this many MC events per point")
    common.add_plot_options(p)
    args = p.parse_args(argv)
    return common.fit_points(
        args, common.compile_efficiency_density,
        lambda point, modules: fit_point(
            point, args.directory, data_efficiency=args.data_efficiency,
            gradient=not args.no_gradient, max_events=args.max_events,
            make_plot=common.plots(args, point), modules=modules,
            vector_length=args.vector_length, precision=args.precision),
        lambda fitter, proj: f"F = {fitter.minuit.fval:.3f}, valid = {fitter.minuit.valid}, "
                             f"{fitter.minuit.nfcn} calls")


if __name__ == "__main__":
    main()
