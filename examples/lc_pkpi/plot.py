"""Plot the Lambda_c+ -> p K- pi+ fit: projections onto m(pK-), m(K-pi+), m(ppi+).

Reads ``data.root``, ``mc.root`` and ``fit_result.json`` (fit.py) from
``--directory``.  Data are points with Poisson errors; the fit is the
normalization events weighted by the fitted intensity :math:`S_j` and
scaled to the number of data events, :math:`\\mu_i = N_\\text{data}
\\sum_{j \\in i} S_j / \\sum_j S_j`; each of the main resonances (the
largest fit fractions, ``--components``) is drawn dashed with the same
scale, its weight the intensity with only its chains switched on; under
each projection the pulls :math:`(n_i - \\mu_i)/\\sqrt{\\mu_i}`.  Writes
``projections.png`` and ``.pdf``.
"""

import os

import numpy as np

import common
from vecampfit import plotting

LABELS = {"m(pK-)": r"$m(pK^-)$ [GeV]", "m(K-pi+)": r"$m(K^-\pi^+)$ [GeV]",
          "m(ppi+)": r"$m(p\pi^+)$ [GeV]"}


def intensities(compiled, model, groups, values, mc, names):
    """The fitted intensity at the normalization events and that of each group
    in ``names`` alone (the other chains' couplings set to 0)."""
    total = compiled.evaluate(mc, values)
    parts = {}
    couplings = common.couplings(model)
    for g in names:
        on = {f"{c}_{part}" for c in groups[g] for part in ("re", "im")}
        parts[g] = compiled.evaluate(mc, dict(values, **{n: 0.0 for n in couplings
                                                         if n not in on}))
    return total, parts


def projections(data, mc, total, parts, bins):
    """Histograms per mass axis: edges, data counts, fit and component expectations."""
    n_data = len(data["sigma1"])
    scale = n_data / np.sum(total)
    out = {}
    for label, var in common.MASS_AXES:
        x, y = np.sqrt(data[var]), np.sqrt(mc[var])
        edges = np.linspace(min(x.min(), y.min()), max(x.max(), y.max()), bins + 1)
        out[label] = {"edges": edges, "data": np.histogram(x, edges)[0].astype(float),
                      "fit": np.histogram(y, edges, weights=total * scale)[0],
                      "parts": {g: np.histogram(y, edges, weights=s * scale)[0]
                                for g, s in parts.items()}}
    return out


def draw(hists, path_stem, title):
    fig, panels = plotting.projection_panels(len(hists), (15, 5.5))
    for k, ((label, h), (top, bottom)) in enumerate(zip(hists.items(), panels)):
        e = h["edges"]
        plotting.draw_projection(top, bottom, e, h["data"], h["fit"], h["parts"],
                                 xlabel=LABELS.get(label, label))
        top.set_ylabel(f"events / {1000 * (e[1] - e[0]):.1f} MeV")
        top.set_ylim(bottom=0)
        if k == 0:
            top.legend(frameon=False, fontsize="small")
    fig.suptitle(title)
    for ext in ("png", "pdf"):
        fig.savefig(f"{path_stem}.{ext}", dpi=110)


def main(argv=None):
    p = common.add_common_options(common.parser(__doc__.split("\n\n")[0]))
    p.add_argument("--bins", type=int, default=60, help="bins per projection")
    p.add_argument("--components", type=int, default=5,
                   help="number of resonances drawn (those with the largest fit fractions)")
    p.add_argument("--truth", action="store_true",
                   help="draw the model at the generation's values (truth.json) instead of the fit")
    args = p.parse_args(argv)
    if args.bins < 1 or args.components < 0:
        p.error("--bins must be positive and --components non-negative")
    d = args.directory
    dist, model = common.load(args.model)
    if args.truth:
        values = common.read_json(os.path.join(d, common.TRUTH_FILE))["values"]
        title = "generation values"
    else:
        values = common.read_json(os.path.join(d, common.RESULT_FILE))["values"]
        title = "fit"
    compiled = common.compile_model(model, args.vector_length, args.model_cache)
    data = common.read_sample(os.path.join(d, common.DATA_FILE), dist)
    mc = common.read_sample(os.path.join(d, common.MC_FILE), dist)
    groups = common.groups(dist, model)
    total, parts = intensities(compiled, model, groups, values, mc, list(groups))
    fractions = {g: float(np.sum(s) / np.sum(total)) for g, s in parts.items()}
    main_groups = sorted(fractions, key=fractions.get, reverse=True)[:args.components]
    parts = {f"{g} ({100 * fractions[g]:.1f}%)": parts[g] for g in main_groups}
    hists = projections(data, mc, total, parts, args.bins)
    pol = ", ".join(f"{n} = {values[n]:.3f}" for n in common.POLARIZATION)
    draw(hists, os.path.join(d, "projections"),
         f"$\\Lambda_c^+ \\to p K^- \\pi^+$, {len(data['sigma1'])} events, {title} ({pol})")
    for label, h in hists.items():
        use = h["fit"] > 0
        chi2 = float(np.sum(plotting.pulls(h["data"], h["fit"])[use] ** 2))
        print(f"{label}: chi2 = {chi2:.1f} over {int(np.sum(use))} bins")
    print(f"wrote projections.png and projections.pdf in {os.path.abspath(d)}")
    return hists


if __name__ == "__main__":
    main()
