"""Plot a fit of the B+ -> K+ K+ K- example: Dalitz-plot projections with the fit.

Reads the fitted parameters of one experiment from ``fit3k_results.root``
(``--results``) and its events (``toy3k_N.root`` in ``--directory``, or
Laura++'s with ``--laura``).  Projections (vecampfit.plotting) of the folded plot: m^2_min,
m^2_max of the two (K+ K-) pairs and m_min at the phi(1020), with the
components (|term|^2) and pulls; writes ``projections3k_N.png``/``.pdf`` and
``dalitz3k_N.png`` into ``--output`` (default ``--directory``).
"""

import os

import numpy as np

import genfit3k
import isobar_model3k
from vecampfit import plotting
from vecampfit.isobar import component_densities, unit_normalization

LABELS = {"min": r"$m^2_{\min}(K^+K^-)$ [GeV$^2$]", "max": r"$m^2_{\max}(K^+K^-)$ [GeV$^2$]",
          "phi": r"$m_{\min}(K^+K^-)$ [GeV]"}


def read_fit(path, experiment):
    """Fitted parameter values (name -> value) of ``experiment`` from fit3k_results.root."""
    from vecampfit.root_io import read_events
    fits, _ = read_events(path, "fits")
    row = np.flatnonzero(fits["experiment"] == experiment)
    if not row.size:
        raise ValueError(f"{path}: no fit of experiment {experiment}")
    return {n: float(fits[n][row[0]]) for n in isobar_model3k.build().parameter_names()}


def projections(m13sq, m23sq, params, records, weights, bins=50, phi_bins=70,
                phi_window=(0.99, 1.06)):
    """Histograms of data and fit: dict of :class:`vecampfit.plotting.Projection`
    ``"min"``, ``"max"`` (GeV^2) and ``"phi"`` (GeV), with the components."""
    model = isobar_model3k.build()
    terms, dens = component_densities(model, records, params,
                                      unit_normalization(model, records, weights))
    data, grid = ({"min": np.minimum(a, b), "max": np.maximum(a, b)}
                  for a, b in ((m13sq, m23sq), (records["m13Sq"], records["m23Sq"])))
    data["phi"], grid["phi"] = np.sqrt(data["min"]), np.sqrt(grid["min"])
    mb, mk = isobar_model3k.M_B, isobar_model3k.M_K
    ranges = {"min": (4 * mk * mk, max(grid["min"].max(), data["min"].max())),
              "max": (min(grid["max"].min(), data["max"].min()), (mb - mk) ** 2),
              "phi": phi_window}
    components = {c: weights * terms[c] for c in genfit3k.COMPONENTS}
    return {k: plotting.projection(data[k], grid[k], weights * dens, range=ranges[k],
                                   bins=phi_bins if k == "phi" else bins,
                                   components=components, label=LABELS[k]) for k in ranges}


def main(argv=None):
    p = genfit3k.program_parser(__doc__.split("\n\n")[0])
    p.add_argument("--directory", default=".", help="folder of toy3k_N.root and the results")
    p.add_argument("--laura", action="store_true", help="events from Laura++'s file")
    p.add_argument("--experiment", type=int, default=0, help="which experiment")
    p.add_argument("--results", default=None, help="fit3k.py's fit3k_results.root")
    p.add_argument("--bins", type=int, default=50, help="bins of the m^2 projections")
    p.add_argument("--output", default=None, help="folder of the plots (default: --directory)")
    args = p.parse_args(argv)
    out = args.output or args.directory
    try:
        if args.bins < 1 or not os.path.isdir(out):
            raise ValueError(f"--bins must be positive (got {args.bins}) and --output a folder")
        params = read_fit(args.results or os.path.join(args.directory, "fit3k_results.root"),
                          args.experiment)
        m13sq, m23sq = genfit3k.read_events(args.laura_file, args.experiment) if args.laura \
            else genfit3k.read_events(genfit3k.experiment_file(args.directory, args.experiment))
        records, weights, _ = genfit3k.normalization_grid(args.grid_coarse, args.grid_fine)
    except (ValueError, FileNotFoundError, KeyError) as exc:
        p.error(str(exc))
    hist = projections(m13sq, m23sq, params, records, weights, args.bins)
    tag = f"{'laura_' if args.laura else ''}{args.experiment}"
    title, path = rf"$B^+ \to K^+K^+K^-$, experiment {args.experiment}", f"projections3k_{tag}"
    plotting.plot_projections([hist[k] for k in ("min", "max", "phi")],
                              [os.path.join(out, f"{path}.{e}") for e in ("png", "pdf")],
                              component_labels=genfit3k.COMPONENT_NAMES, title=title)
    plotting.plot_dalitz(np.minimum(m13sq, m23sq), np.maximum(m13sq, m23sq),
                         os.path.join(out, f"dalitz3k_{tag}.png"), bins=80, xlabel=LABELS["min"],
                         ylabel=LABELS["max"], title=title)
    print(f"wrote projections3k_{tag}.png/.pdf and dalitz3k_{tag}.png in {os.path.abspath(out)}")
    return hist


if __name__ == "__main__":
    main()
