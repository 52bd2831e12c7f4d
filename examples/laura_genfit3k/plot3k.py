"""Plot a fit of the B+ -> K+ K+ K- example: Dalitz-plot projections with the fit.

Reads the fitted parameters of one experiment from the results table of
fit3k.py (``--results``, default ``fit3k_results.txt`` in ``--directory``)
and the events of that experiment (``toy3k_N.root`` in ``--directory``, or
Laura++'s file with ``--laura``).  The two K+ are identical, so the plot is
folded: the projections are m^2_min = min(m13^2, m23^2) and m^2_max =
max(m13^2, m23^2) (for the folded files of generate3k.py and Laura++, m13Sq
and m23Sq), and m_min(K+ K-) around the phi(1020).  Data are points with
Poisson errors; the fit (step histogram) and its components (dashed:
|term|^2 of each component, interference not shown) are the normalization
grid weighted by the density, scaled to the number of events
(vecampfit.plotting), with a pull panel under each projection; the data's
folded Dalitz plot is a histogram of its own.  Writes
``projections3k_N.png``/``.pdf`` and ``dalitz3k_N.png`` into ``--output``
(default ``--directory``).
"""

import os

import numpy as np

import genfit3k  # noqa: E402
from vecampfit import plotting  # noqa: E402
from vecampfit.isobar import component_densities  # noqa: E402


def read_fit(path, experiment):
    """Fitted parameter values of ``experiment`` from fit3k_results.txt."""
    for row in genfit3k.read_table(path, "experiment",
                                   "results table of fit3k.py (run fit3k.py first)"):
        if int(row["experiment"]) == experiment:
            missing = [n for n in genfit3k.PARAMETER_NAMES if n not in row]
            if missing:
                raise ValueError(f"{path}: columns {missing} missing")
            return np.array([row[n] for n in genfit3k.PARAMETER_NAMES])
    raise ValueError(f"{path}: no fit of experiment {experiment}")


def projections(m13sq, m23sq, params, records, weights, m, normalization, bins=50,
                phi_window=(0.99, 1.06), phi_bins=70):
    """Histograms of data and fit.

    Returns
    -------
    dict of vecampfit.plotting.Projection
        ``"min"``, ``"max"`` (m^2 of the lower and higher K+ K- pair, GeV^2) and
        ``"phi"`` (m of the lower pair, GeV), with the components by key.
    """
    data = {"min": np.minimum(m13sq, m23sq), "max": np.maximum(m13sq, m23sq)}
    data["phi"] = np.sqrt(data["min"])
    g13, g23 = genfit3k.records_m2(records)
    grid = {"min": np.minimum(g13, g23), "max": np.maximum(g13, g23)}
    grid["phi"] = np.sqrt(grid["min"])
    # |n_c c_c X_c|^2 and S = |A|^2 of the model of isobar_model3k.py.
    import isobar_model3k
    terms, dens = component_densities(
        isobar_model3k.build(), {"m13Sq": g13, "m23Sq": g23},
        dict(zip(genfit3k.PARAMETER_NAMES, params)),
        {"M_B": m["B"], "M_KP": m["K"], "M_KM": m["K"],
         **{f"N_{c}": v for c, v in normalization.items()}})
    lo, hi = genfit3k.dalitz_limits(m)
    ranges = {"min": (lo * lo, max(grid["min"].max(), data["min"].max())),
              "max": (min(grid["max"].min(), data["max"].min()), hi * hi), "phi": phi_window}
    components = {c: weights * terms[c] for c in genfit3k.COMPONENTS}
    return {key: plotting.projection(data[key], grid[key], weights * dens,
                                     bins=phi_bins if key == "phi" else bins, range=ranges[key],
                                     components=components, label=LABELS[key])
            for key in ranges}


LABELS = {"min": r"$m^2_{\min}(K^+K^-)$ [GeV$^2$]", "max": r"$m^2_{\max}(K^+K^-)$ [GeV$^2$]",
          "phi": r"$m_{\min}(K^+K^-)$ [GeV]"}


def main(argv=None):
    p = genfit3k.parser(__doc__.split("\n\n")[0])
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
    if args.bins < 1:
        p.error(f"--bins must be positive, got {args.bins}")
    out = args.output or args.directory
    try:
        m = genfit3k.masses(args.masses)
        params = read_fit(args.results or os.path.join(args.directory, "fit3k_results.txt"),
                          args.experiment)
        if args.laura:
            m13sq, m23sq = genfit3k.read_events(args.laura_file, args.experiment)
        else:
            m13sq, m23sq = genfit3k.read_events(
                genfit3k.experiment_file(args.directory, args.experiment))
        records, weights, _ = genfit3k.normalization_grid(m, options=genfit3k.grid_options(args))
        if not os.path.isdir(out):
            raise FileNotFoundError(f"--output {out!r} is not a folder")
    except (ValueError, FileNotFoundError, KeyError) as exc:
        p.error(str(exc))
    normalization = genfit3k.normalization_constants(m, records, weights)
    hist = projections(m13sq, m23sq, params, records, weights, m, normalization, args.bins)

    tag = f"{'laura_' if args.laura else ''}{args.experiment}"
    title = rf"$B^+ \to K^+K^+K^-$, experiment {args.experiment}"
    plotting.plot_projections([hist[k] for k in ("min", "max", "phi")],
                              [os.path.join(out, f"projections3k_{tag}.{ext}")
                               for ext in ("png", "pdf")],
                              component_labels=genfit3k.COMPONENT_NAMES, title=title)
    low, high = np.minimum(m13sq, m23sq), np.maximum(m13sq, m23sq)
    plotting.plot_dalitz(low, high, os.path.join(out, f"dalitz3k_{tag}.png"), bins=80,
                         xlabel=LABELS["min"], ylabel=LABELS["max"], title=title)
    print(f"wrote projections3k_{tag}.png/.pdf and dalitz3k_{tag}.png in {os.path.abspath(out)}")
    return hist


if __name__ == "__main__":
    main()
