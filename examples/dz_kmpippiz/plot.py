"""Plot the D0 -> K- pi+ pi0 fit: the three Dalitz projections and the Dalitz plot.

Reads ``signal_density.root`` (written by fit_signal.py) from ``--directory``:
data events as points with Poisson error bars, the fit as a solid line (the
normalization events weighted by the fitted density, which integrates to
one over them, times the number of data events), the background as a
hatched histogram.  Writes ``projections.png``/``.pdf`` and
``dalitz_plot.png``/``.pdf``.
"""

import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import common  # noqa: E402

AXES = (("m_km_pip", r"$m^2(K^-\pi^+)$ [GeV$^2$]"),
        ("m_km_piz", r"$m^2(K^-\pi^0)$ [GeV$^2$]"),
        ("m_pip_piz", r"$m^2(\pi^+\pi^0)$ [GeV$^2$]"))


def projections(density_file, bins=50):
    """Histograms of the three projections.

    Returns
    -------
    dict
        Per variable: ``edges``, ``data``, ``fit``, ``background`` (expected
        counts per bin).
    """
    import uproot
    with uproot.open(density_file) as f:
        data = f["data_0"].arrays(library="np")
        norm = f["normalization_0"].arrays(library="np")
    n_data = np.sum(data["weight"])
    out = {}
    for field, _ in AXES:
        x, xn = data[field] ** 2, norm[field] ** 2
        lo, hi = min(x.min(), xn.min()), max(x.max(), xn.max())
        edges = np.linspace(lo, hi, bins + 1)
        w = norm["weight"] * n_data
        bkg = [k for k in norm if k.startswith("background_")]
        out[field] = dict(
            edges=edges,
            data=np.histogram(x, edges, weights=data["weight"])[0],
            fit=np.histogram(xn, edges, weights=w * norm["total"])[0],
            background=np.histogram(xn, edges, weights=w * sum((norm[k] for k in bkg),
                                                                np.zeros_like(xn)))[0])
    return out, data


def main(argv=None):
    p = common.parser(__doc__.split("\n\n")[0])
    p.add_argument("--directory", default=".", help="folder of signal_density.root and the plots")
    p.add_argument("--bins", type=int, default=50)
    p.add_argument("--suffix", default="", help="suffix of the density file, e.g. _3")
    args = p.parse_args(argv)
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    path = os.path.join(args.directory, f"signal_density{args.suffix}.root")
    hist, data = projections(path, args.bins)
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.5))
    for ax, (field, label) in zip(axes, AXES):
        h = hist[field]
        e = h["edges"]
        c = 0.5 * (e[1:] + e[:-1])
        ax.errorbar(c, h["data"], yerr=np.sqrt(h["data"]), fmt="o", ms=3, color="k", label="data")
        ax.stairs(h["fit"], e, color="tab:blue", lw=1.5, label="fit")
        ax.stairs(h["background"], e, fill=True, hatch="///", facecolor="none",
                  edgecolor="tab:red", label="background")
        ax.set_xlabel(label)
        ax.set_ylabel(f"events / {e[1] - e[0]:.3f} GeV$^2$")
        ax.set_ylim(bottom=0)
    axes[0].legend()
    fig.tight_layout()
    for ext in ("png", "pdf"):
        fig.savefig(os.path.join(args.directory, f"projections{args.suffix}.{ext}"), dpi=120)
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(6, 5.5))
    ax.hist2d(data["m_km_pip"] ** 2, data["m_km_piz"] ** 2, bins=100, cmap="viridis", cmin=1)
    ax.set_xlabel(AXES[0][1])
    ax.set_ylabel(AXES[1][1])
    fig.tight_layout()
    for ext in ("png", "pdf"):
        fig.savefig(os.path.join(args.directory, f"dalitz_plot{args.suffix}.{ext}"), dpi=120)
    plt.close(fig)
    print(f"wrote projections{args.suffix}.png/.pdf and dalitz_plot{args.suffix}.png/.pdf in "
          f"{os.path.abspath(args.directory)}")
    return hist


if __name__ == "__main__":
    main()
