"""Generate the D0 -> K- pi+ pi0 samples: normalization MC, pseudo-data, background.

Writes trees ``tree`` with branches ``km_momentum[4]``, ``pip_momentum[4]``,
``pi0_momentum[4]`` (float32; px, py, pz, E in GeV): ``mc_signal.root``
(uniform in phase space), ``mc_signal_weighted.root`` (``--weighted-mc``:
distributed as the signal, branch ``weight`` = 1/S), ``data_signal.root``
(or ``data_signal_N.root`` for ``--pseudoexperiments``: the isobar model at
parameters_signal_mc.dat plus a ``--background-fraction`` of background)
and ``data_background.root`` (background alone).
"""

import os
import time

import numpy as np

import common
from vecampfit import generation
from vecampfit.fitter import read_parameter_file
from vecampfit.root_io import write_tree


def signal_parameters():
    """The generation values of the model's parameters (parameters_signal_mc.dat)."""
    table = read_parameter_file(os.path.join(common.HERE, "parameters_signal_mc.dat"))
    return np.array([table[n].value for n in common.signal_model().parameter_names()])


def background_parameters():
    """The background coefficients of parameters_background.dat."""
    return read_parameter_file(os.path.join(common.HERE, "parameters_background.dat")).values


def maximum(density, params):
    """Upper bound of a density over the Dalitz plot: 1.2 times its largest
    value on a fine grid (400 x 400 Gauss-Legendre points)."""
    grid, _ = common.dalitz_grid(400)
    return 1.2 * float(np.max(density(grid, params)))


def generate(density, n, rng, params=None, progress=False):
    """n events (float32 momenta) of ``density(records, params)`` (None:
    phase space) by accept-reject (vecampfit.generation.generate_events)."""
    model = common.signal_model()
    momenta = generation.generate_events(
        density, model.parent_mass, [model.daughter_mass(k) for k in range(3)], n, params,
        names=common.BRANCHES, seed=rng, progress=progress,
        maximum=None if density is None else maximum(density, params))
    return {b: np.asarray(momenta[b], dtype=np.float32) for b in common.BRANCHES}


def main(argv=None):
    p = common.parser(__doc__.split("\n\n")[0])
    p.add_argument("--directory", default=".", help="output folder")
    p.add_argument("--events", type=int, default=100000, help="data events per sample")
    p.add_argument("--mc-events", type=int, default=1000000, help="normalization MC events")
    p.add_argument("--background-events", type=int, default=100000,
                   help="events of the background sample (0: none)")
    p.add_argument("--background-fraction", type=float, default=0.1,
                   help="background fraction of the data")
    p.add_argument("--pseudoexperiments", type=int, default=0,
                   help="number of pseudo-data samples data_signal_N.root (0: one data_signal.root)")
    p.add_argument("--weighted-mc", action="store_true",
                   help="also write MC distributed as the signal density with weights 1/S")
    p.add_argument("--no-mc", action="store_true", help="do not write the normalization MC")
    p.add_argument("--seed", type=int, default=1, help="random seed")
    p.add_argument("--progress", action="store_true", help="progress bars on stderr")
    args = p.parse_args(argv)
    if not 0 <= args.background_fraction <= 1:
        p.error("--background-fraction must be in [0, 1]")
    if min(args.events, args.mc_events, args.background_events, args.pseudoexperiments) < 0:
        p.error("event counts must be non-negative")
    os.makedirs(args.directory, exist_ok=True)
    rng = np.random.default_rng(args.seed)
    ps, pb = signal_parameters(), background_parameters()
    signal, background = common.signal_model().density, common.background_polynomial
    t0 = time.perf_counter()

    def write(name, records, what):
        write_tree(os.path.join(args.directory, name), records)
        print(f"{name}: {what}")

    if not args.no_mc and args.mc_events:
        write("mc_signal.root", generate(None, args.mc_events, rng, progress=args.progress),
              f"{args.mc_events} phase-space events")
    if args.weighted_mc and args.mc_events:
        rec = generate(signal, args.mc_events, rng, ps, args.progress)
        w = 1 / signal(rec, ps)
        write("mc_signal_weighted.root", {**rec, "weight": w / w.mean()},
              f"{args.mc_events} events from the signal density")
    for k in range(args.pseudoexperiments) if args.pseudoexperiments else [-1]:
        n_bkg = rng.binomial(args.events, args.background_fraction)
        sig = generate(signal, args.events - n_bkg, rng, ps, args.progress)
        bkg = generate(background, n_bkg, rng, pb, args.progress)
        order = rng.permutation(args.events)
        write(common.data_file_name(k),
              {b: np.concatenate([sig[b], bkg[b]])[order] for b in common.BRANCHES},
              f"{args.events - n_bkg} signal + {n_bkg} background events")
    if args.background_events:
        write("data_background.root",
              generate(background, args.background_events, rng, pb, args.progress),
              f"{args.background_events} background events")
    print(f"generation took {time.perf_counter() - t0:.1f} s")


if __name__ == "__main__":
    main()
