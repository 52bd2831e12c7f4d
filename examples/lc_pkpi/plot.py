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

COLORS = ("tab:orange", "tab:green", "tab:red", "tab:purple", "tab:brown", "tab:pink",
          "tab:olive", "tab:cyan", "tab:gray")
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


def pulls(n, mu):
    """:math:`(n_i - \\mu_i)/\\sqrt{\\mu_i}`, 0 where :math:`\\mu_i = 0`."""
    out = np.zeros_like(mu)
    ok = mu > 0
    out[ok] = (n[ok] - mu[ok]) / np.sqrt(mu[ok])
    return out


def draw(hists, path_stem, title):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    fig = Figure(figsize=(15, 5.5))
    FigureCanvasAgg(fig)
    grid = fig.add_gridspec(2, len(hists), height_ratios=(3, 1), hspace=0.05, wspace=0.3)
    for k, (label, h) in enumerate(hists.items()):
        top = fig.add_subplot(grid[0, k])
        bottom = fig.add_subplot(grid[1, k], sharex=top)
        e = h["edges"]
        c = 0.5 * (e[1:] + e[:-1])
        shown = h["data"] > 0
        top.errorbar(c[shown], h["data"][shown], yerr=np.sqrt(h["data"][shown]), fmt="o", ms=3,
                     color="k", label="data", zorder=3)
        top.stairs(h["fit"], e, color="tab:blue", lw=1.5, label="fit")
        for j, (g, part) in enumerate(h["parts"].items()):
            top.stairs(part, e, color=COLORS[j % len(COLORS)], ls="--", lw=1.2, label=g)
        top.set_ylabel(f"events / {1000 * (e[1] - e[0]):.1f} MeV")
        top.set_ylim(bottom=0)
        top.tick_params(labelbottom=False)
        if k == 0:
            top.legend(frameon=False, fontsize="small")
        r = pulls(h["data"], h["fit"])
        bottom.bar(c, r, width=np.diff(e), color="tab:blue", alpha=0.6)
        bottom.axhline(0, color="k", lw=0.8)
        for s in (-2, 2):
            bottom.axhline(s, color="k", lw=0.6, ls=":")
        lim = max(3.0, 1.1 * float(np.max(np.abs(r))))
        bottom.set_ylim(-lim, lim)
        bottom.set_ylabel("pull")
        bottom.set_xlabel(LABELS.get(label, label))
        bottom.set_xlim(e[0], e[-1])
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
        chi2 = float(np.sum(pulls(h["data"], h["fit"])[use] ** 2))
        print(f"{label}: chi2 = {chi2:.1f} over {int(np.sum(use))} bins")
    print(f"wrote projections.png and projections.pdf in {os.path.abspath(d)}")
    return hists


if __name__ == "__main__":
    main()
