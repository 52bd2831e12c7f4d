"""Plot the D0 -> K- pi+ pi0 fit: the three Dalitz projections and the Dalitz plot.

Reads ``signal_density.root`` (written by fit_signal.py) and the fitted
parameters ``parameters_signal_result.dat`` from ``--directory``.  The
projections (vecampfit.plotting) show the data as points with Poisson
error bars, the fit as a step histogram (the normalization events weighted
by the fitted density, scaled to the number of data events), the
background and the largest resonances (|c_k X_k|^2 of the isobar model,
interference not shown) as dashed steps, and a pull panel under each.
Writes ``projections.png``/``.pdf`` and ``dalitz_plot.png``/``.pdf``.
"""

import os

import numpy as np

import common
from vecampfit import plotting
from vecampfit.fitter import read_parameter_file
from vecampfit.isobar import component_densities

#: Squared pair masses among the signal density's event fields, and their labels.
AXES = (("s_km_pip", r"$m^2(K^-\pi^+)$ [GeV$^2$]"),
        ("s_km_piz", r"$m^2(K^-\pi^0)$ [GeV$^2$]"),
        ("s_pip_piz", r"$m^2(\pi^+\pi^0)$ [GeV$^2$]"))


def fit_weights(density_file, parameters=None, largest=3):
    """The trees ``data_0`` and ``normalization_0`` of ``density_file``
    (signal_density.root), the fit's weights v_k (f_S S/I_S + f_B B/I_B) at
    the normalization events, the weights of the background and of the
    ``largest`` resonances by fit fraction (the signal weight times
    |c_k X_k|^2/|A|^2, at the values of the fitted ``parameters`` file), and
    the components' labels."""
    import uproot
    with uproot.open(density_file) as f:
        data = f["data_0"].arrays(library="np")
        norm = f["normalization_0"].arrays(library="np")
    w = norm["weight"]
    bkg = [k for k in norm if k.startswith("background_")]
    components, labels = {}, {}
    if parameters is not None:
        values = {p.name: p.value for p in read_parameter_file(parameters)}
        model = common.signal_model(cartesian="NR_RE" in values)
        records = {"m2_km_pip": norm["s_km_pip"], "m2_km_piz": norm["s_km_piz"]}
        parts, total = component_densities(model, records, values)
        share = {k: np.dot(w, v) / np.dot(w, total) for k, v in parts.items()}
        with np.errstate(divide="ignore", invalid="ignore"):
            for k in sorted(share, key=share.get, reverse=True)[:largest]:
                components[k] = w * norm["signal"] * np.where(total > 0, parts[k] / total, 0)
        labels = {c.key: c.label for c in model.components}
    if bkg:
        components["background"] = w * sum(norm[k] for k in bkg)
    return data, norm, w * norm["total"], components, labels


def main(argv=None):
    p = common.parser(__doc__.split("\n\n")[0])
    p.add_argument("--directory", default=".", help="folder of signal_density.root and the plots")
    p.add_argument("--bins", type=int, default=50)
    p.add_argument("--suffix", default="", help="suffix of the density file, e.g. _3")
    args = p.parse_args(argv)
    d = args.directory
    path = os.path.join(d, f"signal_density{args.suffix}.root")
    result = os.path.join(d, f"parameters_signal_result{args.suffix}.dat")
    data, norm, weights, components, labels = fit_weights(
        path, result if os.path.exists(result) else None)
    hist = {field: plotting.projection(data[field], norm[field], weights,
                                       bins=args.bins, data_weights=data["weight"],
                                       components=components, label=label)
            for field, label in AXES}
    plotting.plot_projections(
        list(hist.values()),
        [os.path.join(d, f"projections{args.suffix}.{ext}") for ext in ("png", "pdf")],
        component_labels=labels, title=r"$D^0 \to K^-\pi^+\pi^0$")
    plotting.plot_dalitz(data["s_km_pip"], data["s_km_piz"],
                         [os.path.join(d, f"dalitz_plot{args.suffix}.{ext}")
                          for ext in ("png", "pdf")],
                         bins=100, xlabel=AXES[0][1], ylabel=AXES[1][1],
                         title=r"$D^0 \to K^-\pi^+\pi^0$ data")
    print(f"wrote projections{args.suffix}.png/.pdf and dalitz_plot{args.suffix}.png/.pdf in "
          f"{os.path.abspath(d)}")
    return hist


if __name__ == "__main__":
    main()
