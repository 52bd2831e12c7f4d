"""Fit the background polynomial (paper section 8.4) to the background sample with MC normalization.

For each chosen point reads ``background_<point>.root`` (the data of this
fit) and the reconstructed events of ``mc_<point>.root`` with their weights
R (the normalization), fits B(Phi) = P_2(Phi) (background.py; compiled
density with its gradient, or the numpy form with --numpy), and writes
``parameters_background_<point>.dat``, ``background_<point>.txt`` (values,
errors, pulls against the simulation's coefficients, projection chi2) and,
for 2000 MeV (every point with --plot), the projections onto M(K1 pi2),
M(pi1 pi2), M(K1 pi1 pi2): ``background_<point>.png``.
Run ``python fit_background_kkpipi.py --help``.
"""

import os

import numpy as np

import background  # noqa: E402
import common_kkpipi as common  # noqa: E402
from vecampfit.fitter import Fitter, Likelihood, Stage, results  # noqa: E402
from vecampfit.fitter.parameters import write_parameter_file  # noqa: E402
from vecampfit.root_io import read_events  # noqa: E402

PROJECTIONS = (("m_k1pi2", ("K1", "pi2"), "M(K1 pi2) (GeV)"),
               ("m_pi1pi2", ("pi1", "pi2"), "M(pi1 pi2) (GeV)"),
               ("m_k1pi1pi2", ("K1", "pi1", "pi2"), "M(K1 pi1 pi2) (GeV)"))


def mass(mom, parts):
    p = sum(mom[k] for k in parts)
    return np.sqrt(np.maximum(p[:, 3] ** 2 - np.sum(p[:, :3] ** 2, axis=1), 0.0))


def projections(data, mc, mc_weights, values, bins=25):
    """Data histograms and the fit's prediction (MC weighted by R B, scaled to
    the data count) with chi2 per projection; the variance of a bin is the
    data count plus the MC statistical variance of the prediction."""
    dm, mm = common.momenta_of(data), common.momenta_of(mc)
    out = {}
    for name, parts, _ in PROJECTIONS:
        x, y = mass(dm, parts), mass(mm, parts)
        edges = np.linspace(min(x.min(), y.min()), max(x.max(), y.max()), bins + 1)
        h, _ = np.histogram(x, edges)
        w = mc_weights * values
        f, _ = np.histogram(y, edges, weights=w)
        f2, _ = np.histogram(y, edges, weights=w * w)
        scale = len(x) / w.sum()
        f, var_mc = f * scale, f2 * scale ** 2
        ok = f > 5
        chi2 = float(np.sum((h[ok] - f[ok]) ** 2 / (f[ok] + var_mc[ok])))
        out[name] = {"edges": edges, "data": h, "fit": f, "chi2": chi2, "ndf": int(ok.sum())}
    return out


def plot_projections(proj, path, title, components=()):
    """Projections with pull panels (vecampfit.plotting): data with Poisson
    errors, the fit as a step histogram, ``components`` (keys of the
    projections' dicts) dashed; the chi2 of each projection in the title."""
    from vecampfit import plotting
    hists = [plotting.Projection(edges=h["edges"], data=h["data"], data_errors=np.sqrt(h["data"]),
                                 fit=h["fit"], components={k: h[k] for k in components},
                                 label=label.replace("(GeV)", "[GeV]"))
             for name, _, label in PROJECTIONS for h in (proj[name],)]
    chi2 = ", ".join(f"{proj[name]['chi2']:.1f}/{proj[name]['ndf']}" for name, _, _ in PROJECTIONS)
    plotting.plot_projections(hists, path, title=f"{title} (chi2/bins {chi2})")


def fit_point(point, directory, *, modules=None, vector_length=8, precision="float64",
              gradient=True, make_plot=False, verbose=False):
    """Fit the background of one point; returns (fitter, pulls, projections)."""
    data, _ = read_events(os.path.join(directory, point.file("background")))
    mc, _ = read_events(os.path.join(directory, point.file("mc")))
    ok = np.asarray(mc["reconstructed"], bool)
    mc = {k: v[ok] for k, v in mc.items()}
    dens = background.density(point, modules, precision, vector_length)
    likelihood = Likelihood(background.initial_parameters(),
                            vector_length=vector_length if modules is not None else 1,
                            precision=precision if modules is not None else "float64",
                            on_invalid="large")
    fp = likelihood.add_point(dens, normalization="mc")
    fp.add_data(data)
    fp.add_normalization_events(mc, np.asarray(mc["weight"], dtype=np.float64))
    fitter = Fitter(likelihood, randomize=False, use_gradient=gradient, verbose=verbose)
    fitter.run(Stage(hesse=True))
    x, err = results.values(fitter.minuit), results.errors(fitter.minuit)
    truth = background.truth()
    free = np.array([p.step > 0 for p in likelihood.parameters])
    pulls = np.where(free, (x - truth) / np.where(free, err, 1), 0.0)
    values = background.polynomial(background.event_fields(mc, point), x)
    proj = projections(data, mc, np.asarray(mc["weight"], dtype=np.float64), values)
    write_parameter_file(os.path.join(directory, f"parameters_background_{point.name}.dat"),
                         likelihood.parameters, x)
    m = fitter.minuit
    common.write_report(
        os.path.join(directory, f"background_{point.name}.txt"),
        [f"{point.name} background: F = {m.fval:.6f}, valid = {m.valid}, calls = {m.nfcn}",
         *common.chi2_lines(proj, "projection"), "name value error truth pull",
         *(f"{name} {v:.6g} {e:.3g} {t:.6g} {pull:.2f}"
           for name, v, e, t, pull in zip(likelihood.parameters.names, x, err, truth, pulls))])
    if make_plot:
        plot_projections(proj, os.path.join(directory, f"background_{point.name}.png"),
                         point.title("background"))
    return fitter, pulls, proj


def main(argv=None):
    p = common.parser(__doc__.split("\n\n")[0])
    common.add_fit_options(p, numpy_help="numpy density instead of the compiled one")
    common.add_plot_options(p)
    args = p.parse_args(argv)
    return common.fit_points(
        args, background.compile_density,
        lambda point, modules: fit_point(
            point, args.directory, modules=modules, vector_length=args.vector_length,
            precision=args.precision, gradient=not args.no_gradient,
            make_plot=common.plots(args, point)),
        lambda fitter, pulls, proj: f"valid = {fitter.minuit.valid}, largest |pull| "
                                    f"{np.max(np.abs(pulls)):.2f}")


if __name__ == "__main__":
    main()
