r"""Plot the D0 -> rho0 anti-K*0 fit: projections onto the masses and helicity angles.

Reads ``data.root``, ``mc.root`` and ``fit_result.json`` (fit.py) from
``--directory``.  The projections are onto :math:`m(\pi^+\pi^-)`,
:math:`m(K^-\pi^+)`, :math:`\cos\theta_\rho` (the :math:`\pi^+` in the
:math:`\rho^0` helicity frame), :math:`\cos\theta_{K^*}` (the :math:`K^-` in
the :math:`\bar K^{*0}` helicity frame) and the angle :math:`\chi` between
the two decay planes (from the normal of the :math:`\pi^+\pi^-` plane to
that of the :math:`K^-\pi^+` plane, counterclockwise about the
:math:`\rho^0` direction in the :math:`D^0` rest frame; with the builder's
frames :math:`\chi = \pi - \varphi_\rho - \varphi_{K^*}`); each event
enters twice, once per assignment of the two :math:`\pi^+`.  Data are
points with Poisson errors; the fit is the normalization events weighted
by the fitted intensity :math:`S_j` and scaled to the number of data
events, :math:`\mu_i = N_\text{data} \sum_{j \in i} S_j / \sum_j S_j`;
each wave is drawn dashed with the same scale, its weight the intensity
with the other waves' couplings set to 0; under each projection the pulls
:math:`(n_i - \mu_i)/\sqrt{\mu_i}`.  Writes ``projections.png`` and
``.pdf``.
"""

import os

import numpy as np

import common
from vecampfit import plotting

#: Projection -> (axis label, range).
AXES = {"m(pi+pi-)": (r"$m(\pi^+\pi^-)$ [GeV]", None),
        "m(K-pi+)": (r"$m(K^-\pi^+)$ [GeV]", None),
        "cos(theta_rho)": (r"$\cos\theta_\rho$", (-1.0, 1.0)),
        "cos(theta_K*)": (r"$\cos\theta_{K^*}$", (-1.0, 1.0)),
        "chi": (r"$\chi$ [rad]", (-np.pi, np.pi))}


def projection_variables(cascade, records):
    """The plotted variables, (n, 2) arrays (one column per assignment of the two pi+).

    Every topology of the symmetrized cascade is ``((pi+ pi-) (K- pi+))``;
    its node 1 is the rho0 (first child a pi+), its node 2 the anti-K*0
    (first child the K-).  ``chi`` is in (-pi, pi] (rad).
    """
    columns = {name: [] for name in AXES}
    for k, topo in enumerate(cascade.topologies):
        rho, kst = topo

        def mass(node):
            return np.sqrt(records["s_" + "_".join(str(i) for i in sorted(node))])
        columns["m(pi+pi-)"].append(mass(rho))
        columns["m(K-pi+)"].append(mass(kst))
        columns["cos(theta_rho)"].append(records[f"t{k}_1_cos"])
        columns["cos(theta_K*)"].append(records[f"t{k}_2_cos"])
        phi = records[f"t{k}_1_phi"] + records[f"t{k}_2_phi"]
        columns["chi"].append(np.angle(-np.exp(-1j * phi)))
    return {name: np.stack(cols, axis=1) for name, cols in columns.items()}


def intensities(compiled, values, mc):
    """The intensity at the normalization events and that of each wave alone."""
    total = compiled.evaluate(mc, values)
    parts = {}
    for wave in common.WAVES:
        off = {n: 0.0 for w in common.WAVES if w != wave for n in common.parameters(w)}
        parts[wave] = compiled.evaluate(mc, dict(values, **off))
    return total, parts


def projections(data, mc, total, parts, bins):
    """Histograms per projection: edges, data counts, fit and wave expectations."""
    n_data = len(next(iter(data.values())))
    scale = n_data / np.sum(total)
    out = {}
    for name, (_, limits) in AXES.items():
        x, y = data[name], mc[name]
        lo, hi = limits or (min(x.min(), y.min()), max(x.max(), y.max()))
        edges = np.linspace(lo, hi, bins + 1)

        def hist(values, weights=None):
            w = None if weights is None else np.repeat(weights[:, None], values.shape[1], axis=1)
            return np.histogram(values.ravel(), edges,
                                weights=None if w is None else w.ravel())[0].astype(float)
        out[name] = {"edges": edges, "data": hist(x), "fit": hist(y, total * scale),
                     "parts": {w: hist(y, s * scale) for w, s in parts.items()}}
    return out


def draw(hists, labels, path_stem, title):
    from matplotlib.ticker import MaxNLocator
    fig, panels = plotting.projection_panels(len(hists), (4.4 * len(hists), 5.5), left=0.05,
                                             right=0.99, bottom=0.11, top=0.9)
    for k, ((name, h), (top, bottom)) in enumerate(zip(hists.items(), panels)):
        plotting.draw_projection(top, bottom, h["edges"], h["data"], h["fit"], h["parts"],
                                 labels=labels, data_label="data (2 entries/event)",
                                 xlabel=AXES[name][0])
        top.set_ylabel("entries / bin")
        top.set_ylim(bottom=0)
        if k == 1:
            top.legend(frameon=False, fontsize="small", loc="upper right")
        bottom.xaxis.set_major_locator(MaxNLocator(5))
    fig.suptitle(title)
    for ext in ("png", "pdf"):
        fig.savefig(f"{path_stem}.{ext}", dpi=100)


def main(argv=None):
    p = common.add_common_options(common.parser(__doc__.split("\n\n")[0]))
    p.add_argument("--bins", type=int, default=50, help="bins per projection")
    p.add_argument("--truth", action="store_true",
                   help="draw the model at the generation's values (truth.json) instead of the fit")
    args = p.parse_args(argv)
    if args.bins < 1:
        p.error("--bins must be positive")
    d = args.directory
    if args.truth:
        values = common.read_json(os.path.join(d, common.TRUTH_FILE))["values"]
        title = "generation values"
    else:
        values = common.read_json(os.path.join(d, common.RESULT_FILE))["values"]
        title = "fit"
    cascade = common.cascade()
    compiled = common.compile_model(cascade.amplitude_model(), args.vector_length,
                                    args.model_cache)
    data = common.read_sample(os.path.join(d, common.DATA_FILE), cascade)
    mc = common.read_sample(os.path.join(d, common.MC_FILE), cascade)
    total, parts = intensities(compiled, values, mc)
    fractions = {w: float(np.sum(s) / np.sum(total)) for w, s in parts.items()}
    labels = {w: f"{w} wave ({100 * fractions[w]:.1f}%)" for w in parts}
    hists = projections(projection_variables(cascade, data), projection_variables(cascade, mc),
                        total, parts, args.bins)
    n = len(data[common.BRANCHES[0]])
    draw(hists, labels, os.path.join(d, "projections"),
         f"$D^0 \\to \\rho^0 \\bar K^{{*0}}$, {n} events, {title}")
    for name, h in hists.items():
        use = h["fit"] > 0
        chi2 = float(np.sum(plotting.pulls(h["data"], h["fit"])[use] ** 2))
        print(f"{name}: chi2 = {chi2:.1f} over {int(np.sum(use))} bins (two entries per event)")
    print(f"wrote projections.png and projections.pdf in {os.path.abspath(d)}")
    return hists


if __name__ == "__main__":
    main()
