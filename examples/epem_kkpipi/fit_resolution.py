"""Fit the resolution (paper section 8.3) to the reconstructed MC events and make the fit-result histograms.

For each chosen point reads the reconstructed events of ``mc_<point>.root``
and fits the twelve-dimensional diagonal Gaussian of resolution.py (widths
first-order polynomials in Phi; normalized by construction, no
normalization in the likelihood; explicit gradient; the compiled density
resolution_density.pyx, or the numpy form with --numpy).  Writes
``parameters_resolution_<point>.dat`` and ``resolution_<point>.txt``
(values, the ratio of the fitted to the simulated widths, the spread of the
normalized differences, histogram chi2).  Then, as the paper does, MC events
are generated with the density equal to the fitted MC efficiency
(``parameters_efficiency_mc_<point>.dat`` from fit_efficiency.py, required)
and smeared with the fitted resolution (generation_models.py), and the
resolution in M(K1 K2), M(pi1 pi2) and theta_phi (reconstructed minus
generated) of the simulated MC (points) is compared with that of the
fit-result sample (line): ``resolution_<point>.png`` for 2000 MeV (every
point with --plot).  Run ``python fit_resolution.py --help``.
"""

import os

import numpy as np

import common_kkpipi as common  # noqa: E402
import detector  # noqa: E402
import generation_models  # noqa: E402
import model_kkpipi as model  # noqa: E402
import resolution  # noqa: E402
from vecampfit.fitter import Fitter, Likelihood, Stage, results  # noqa: E402
from vecampfit.fitter.parameters import read_parameter_file, write_parameter_file  # noqa: E402
from vecampfit.root_io import read_events  # noqa: E402

#: Quantities of the fit-result histograms: name, label.
QUANTITIES = (("m_k1k2", "M(K1 K2) rec - gen (MeV)"),
              ("m_pi1pi2", "M(pi1 pi2) rec - gen (MeV)"),
              ("theta_phi", "theta_phi rec - gen (mrad)"))


def resolution_quantities(gen, rec):
    """Reconstructed minus generated M(K1 K2), M(pi1 pi2) (MeV) and theta_phi (mrad)."""
    a, b = model.phase_space_variables(gen), model.phase_space_variables(rec)
    return {"m_k1k2": 1e3 * (b["m_k1k2"] - a["m_k1k2"]),
            "m_pi1pi2": 1e3 * (b["m_pi1pi2"] - a["m_pi1pi2"]),
            "theta_phi": 1e3 * (b["theta_phi"] - a["theta_phi"])}


def histograms(sim, fit, bins=40):
    """Histograms of the simulated MC and of the fit-result sample (scaled to
    the simulated count) with chi2 (variance: both samples' counts)."""
    out = {}
    for name, _ in QUANTITIES:
        x, y = sim[name], fit[name]
        lo, hi = np.percentile(x, [0.5, 99.5])
        edges = np.linspace(lo, hi, bins + 1)
        h, _ = np.histogram(x, edges)
        g, _ = np.histogram(y, edges)
        scale = len(x) / len(y)
        ok = (h + g) > 10
        chi2 = float(np.sum((h[ok] - scale * g[ok]) ** 2 / (h[ok] + scale ** 2 * g[ok])))
        out[name] = {"edges": edges, "sim": h, "fit": g * scale, "chi2": chi2,
                     "ndf": int(ok.sum())}
    return out


def plot(hist, path, title):
    """Simulated and fit-result histograms of the resolution quantities."""
    common.plot_comparison({label: hist[name] for name, label in QUANTITIES}, path, title,
                           ("sim", "simulated MC", None), ("fit", "fit result"), "events")


def fit_point(point, directory, *, gradient=True, max_events=None, make_plot=False,
              fit_result_events=None, seed=1, verbose=False, modules=None, vector_length=8,
              precision="float64"):
    """Fit the resolution of one point and make the fit-result histograms.

    With ``modules`` (``resolution.compile_density``) the compiled density of
    length ``vector_length`` and ``precision`` is used, else the numpy form.

    Returns (fitter, summary, histograms); summary: per width the mean of
    fitted / simulated width and the standard deviation of x / sigma_fit.
    """
    records, _ = read_events(os.path.join(directory, point.file("mc")))
    ok = np.asarray(records["reconstructed"], bool)
    records = {k: v[ok] for k, v in records.items()}
    if max_events:
        records = {k: v[:max_events] for k, v in records.items()}
    fields = resolution.event_fields(records, point)
    if modules is None:
        dens = resolution.fitter_density(point)
        vector_length, precision = 1, "float64"
    else:
        dens = resolution.fitter_density_cython(modules, point, precision, vector_length)
    likelihood = Likelihood(resolution.initial_parameters(fields), vector_length=vector_length,
                            precision=precision, on_invalid="large")
    likelihood.add_point(dens, normalization="none").add_data(records)
    fitter = Fitter(likelihood, randomize=False, use_gradient=gradient, verbose=verbose)
    fitter.run(Stage())
    x, err = results.values(fitter.minuit), results.errors(fitter.minuit)
    write_parameter_file(os.path.join(directory, f"parameters_resolution_{point.name}.dat"),
                         likelihood.parameters, x)
    sigma, _ = resolution.widths(fields, x)
    gen = common.momenta_of(records, generator_level=True)
    summary = {}
    for t in resolution.TRACKS:
        for k, w in zip(resolution.COMPONENTS, detector.resolution_widths(gen[t])):
            name = f"{t}_{k}"
            summary[name] = (float(np.mean(sigma[name] / w)),
                             float(np.std(fields[f"x_{name}"] / sigma[name])))
    # fit-result sample: fitted efficiency, then fitted resolution
    eff_path = os.path.join(directory, f"parameters_efficiency_mc_{point.name}.dat")
    if not os.path.exists(eff_path):
        raise FileNotFoundError(f"{eff_path}: run fit_efficiency.py for {point.name} first")
    eff_values = read_parameter_file(eff_path).values
    rng = np.random.default_rng(seed)
    eff_model = generation_models.EfficiencyGenerationModel(point, eff_values, directory)
    eff_model.fill_parameter_buffer()
    eff_model.load_maximum_density(f"efficiency_mc_{point.name}")
    res_model = generation_models.ResolutionGenerationModel(point, x, rng)
    res_model.fill_parameter_buffer()
    n = fit_result_events or 2 * len(records["weight"])
    event = res_model.generate_event(eff_model.generate(point, n, rng))
    fit_q = resolution_quantities({k: event[k] for k in common.PARTICLES}, event["rec"])
    sim_q = resolution_quantities(gen, common.momenta_of(records))
    hist = histograms(sim_q, fit_q)
    m = fitter.minuit
    common.write_report(
        os.path.join(directory, f"resolution_{point.name}.txt"),
        [f"{point.name} resolution: F = {m.fval:.6f}, valid = {m.valid}, "
         f"calls = {m.nfcn}, events = {len(records['weight'])}",
         "width <fitted/simulated> std(x/sigma_fit)",
         *(f"{name} {ratio:.4f} {spread:.4f}" for name, (ratio, spread) in summary.items()),
         *common.chi2_lines(hist, "fit-result histogram"),
         *(f"{name} {v:.6g} {e:.3g}" for name, v, e in zip(likelihood.parameters.names, x, err))])
    if make_plot:
        plot(hist, os.path.join(directory, f"resolution_{point.name}.png"),
             point.title("resolution"))
    return fitter, summary, hist


def describe(fitter, summary, hist):
    """What the program prints about the fit of a point: its validity and the
    range of the fitted widths over the simulated ones."""
    ratios = np.array([r for r, _ in summary.values()])
    return (f"valid = {fitter.minuit.valid}, fitted/simulated widths "
            f"{ratios.min():.3f}-{ratios.max():.3f}")


def main(argv=None):
    p = common.parser(__doc__.split("\n\n")[0])
    common.add_fit_options(p)
    p.add_argument("--max-events", type=int, default=None,
                   help="use at most this many reconstructed MC events per point")
    p.add_argument("--seed", type=int, default=1, help="seed of the fit-result sample")
    common.add_plot_options(p)
    args = p.parse_args(argv)
    return common.fit_points(
        args, resolution.compile_density,
        lambda point, modules: fit_point(
            point, args.directory, gradient=not args.no_gradient, max_events=args.max_events,
            make_plot=common.plots(args, point), seed=args.seed, modules=modules,
            vector_length=args.vector_length, precision=args.precision),
        describe, what="histogram")


if __name__ == "__main__":
    main()
