"""Plot a fit of the B+ -> K+ K+ K- example: Dalitz-plot projections with the fit.

Reads the fitted parameters of one experiment from the results table of
fit3k.py (``--results``, default ``fit3k_results.txt`` in ``--directory``)
and its events (``toy3k_N.root`` in ``--directory``, or Laura++'s file with
``--laura``).  The plot is folded (the two K+ are identical): m^2_min and
m^2_max of the two (K+ K-) pairs, and m_min around the phi(1020).  Data are
points with Poisson errors; the fit and its components (|term|^2 each) are
the normalization grid weighted by the density, scaled to the events
(vecampfit.plotting), with pulls.  Writes ``projections3k_N.png``/``.pdf``
and ``dalitz3k_N.png`` into ``--output`` (default ``--directory``).
"""

import os

import numpy as np

import genfit3k
import isobar_model3k
from vecampfit import command_line, plotting
from vecampfit.isobar import component_densities, unit_normalization

LABELS = {"min": r"$m^2_{\min}(K^+K^-)$ [GeV$^2$]", "max": r"$m^2_{\max}(K^+K^-)$ [GeV$^2$]",
          "phi": r"$m_{\min}(K^+K^-)$ [GeV]"}


def read_fit(path, experiment):
    """Fitted parameter values (name -> value) of ``experiment`` from fit3k_results.txt."""
    names = isobar_model3k.build().parameter_names()
    for row in genfit3k.read_table(path, "experiment", "results table of fit3k.py"):
        if int(row["experiment"]) == experiment:
            if any(n not in row for n in names):
                raise ValueError(f"{path}: columns {[n for n in names if n not in row]} missing")
            return {n: row[n] for n in names}
    raise ValueError(f"{path}: no fit of experiment {experiment}")


def projections(m13sq, m23sq, params, records, weights, m, bins=50, phi_bins=70,
                phi_window=(0.99, 1.06)):
    """Histograms of data and fit: dict of :class:`vecampfit.plotting.Projection`
    ``"min"``, ``"max"`` (GeV^2) and ``"phi"`` (GeV), with the components."""
    model = isobar_model3k.build()
    constants = dict(m, **unit_normalization(model, records, weights, constants=m))
    terms, dens = component_densities(model, records, params, constants)
    data, grid = ({"min": np.minimum(a, b), "max": np.maximum(a, b)}
                  for a, b in ((m13sq, m23sq), (records["m13Sq"], records["m23Sq"])))
    data["phi"], grid["phi"] = np.sqrt(data["min"]), np.sqrt(grid["min"])
    ranges = {"min": ((2 * m["M_KP"]) ** 2, max(grid["min"].max(), data["min"].max())),
              "max": (min(grid["max"].min(), data["max"].min()), (m["M_B"] - m["M_KP"]) ** 2),
              "phi": phi_window}
    components = {c: weights * terms[c] for c in genfit3k.COMPONENTS}
    return {k: plotting.projection(data[k], grid[k], weights * dens, range=ranges[k],
                                   bins=phi_bins if k == "phi" else bins,
                                   components=components, label=LABELS[k]) for k in ranges}


def main(argv=None):
    p = command_line.parser(__doc__.split("\n\n")[0])
    p.add_argument("--masses", default="laura",
                   help="B+ and K masses: 'laura' (Laura++'s) or 'pdg<year>'")
    genfit3k.add_grid_options(p)
    p.add_argument("--directory", default=".", help="folder of toy3k_N.root and the results")
    p.add_argument("--laura", action="store_true", help="events from Laura++'s file")
    p.add_argument("--laura-file", default=genfit3k.LAURA_TOYS,
                   help="Laura++'s pseudoexperiments (with --laura)")
    p.add_argument("--experiment", type=int, default=0, help="which experiment")
    p.add_argument("--results", default=None,
                   help="results table of fit3k.py (default: DIRECTORY/fit3k_results.txt)")
    p.add_argument("--bins", type=int, default=50, help="bins of the m^2 projections")
    p.add_argument("--output", default=None, help="folder of the plots (default: --directory)")
    args = p.parse_args(argv)
    out = args.output or args.directory
    try:
        if args.bins < 1 or not os.path.isdir(out):
            raise ValueError(f"--bins must be positive (got {args.bins}) and --output a folder")
        m = genfit3k.masses(args.masses)
        params = read_fit(args.results or os.path.join(args.directory, "fit3k_results.txt"),
                          args.experiment)
        m13sq, m23sq = genfit3k.read_events(args.laura_file, args.experiment) if args.laura \
            else genfit3k.read_events(genfit3k.experiment_file(args.directory, args.experiment))
        records, weights, _ = genfit3k.normalization_grid(m, **genfit3k.grid_options(args))
    except (ValueError, FileNotFoundError, KeyError) as exc:
        p.error(str(exc))
    hist = projections(m13sq, m23sq, params, records, weights, m, args.bins)
    tag = f"{'laura_' if args.laura else ''}{args.experiment}"
    title = rf"$B^+ \to K^+K^+K^-$, experiment {args.experiment}"
    plotting.plot_projections([hist[k] for k in ("min", "max", "phi")],
                              [os.path.join(out, f"projections3k_{tag}.{e}") for e in ("png", "pdf")],
                              component_labels=genfit3k.COMPONENT_NAMES, title=title)
    plotting.plot_dalitz(np.minimum(m13sq, m23sq), np.maximum(m13sq, m23sq),
                         os.path.join(out, f"dalitz3k_{tag}.png"), bins=80, xlabel=LABELS["min"],
                         ylabel=LABELS["max"], title=title)
    print(f"wrote projections3k_{tag}.png/.pdf and dalitz3k_{tag}.png in {os.path.abspath(out)}")
    return hist


if __name__ == "__main__":
    main()
