"""Generate the D0 -> K- pi+ pi0 samples: normalization MC, pseudo-data, background.

Writes ROOT files with tree ``tree`` and branches ``km_momentum[4]``,
``pip_momentum[4]``, ``pi0_momentum[4]`` (float32; px, py, pz, E in GeV):

* ``mc_signal.root``: MC uniform in phase space (the normalization sample);
* ``mc_signal_weighted.root`` (``--weighted-mc``): MC distributed as the
  signal density, with branch ``weight`` = 1/S so that sums over it
  integrate like the uniform MC;
* ``data_signal.root``, or ``data_signal_N.root`` for N in
  0..``--pseudoexperiments``-1: signal from the model with the generation
  parameters (parameters_signal_mc.dat) plus a ``--background-fraction``
  of background;
* ``data_background.root``: a background sample for the background fit.

Run ``python generate.py --help`` for the options.
"""

import os
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))

import common  # noqa: E402
import model  # noqa: E402
from vecampfit import generation  # noqa: E402
from vecampfit.fitter import read_parameter_file  # noqa: E402
from vecampfit.root_io import write_tree  # noqa: E402

M = common.MASSES
FINAL_STATE = [M["km"], M["pip"], M["piz"]]


def signal_parameters():
    table = read_parameter_file(os.path.join(HERE, "parameters_signal_mc.dat"))
    return table.values[:len(model.parameter_names())]


def background_parameters():
    return read_parameter_file(os.path.join(HERE, "parameters_background.dat")).values


def _records(momenta):
    return {name: np.asarray(p, dtype=np.float32) for name, p in zip(common.BRANCHES, momenta)}


def maximum(density, params):
    """Upper bound of a density over the Dalitz plot: 1.2 times its largest
    value on a fine grid (400 x 400 Gauss-Legendre points)."""
    grid, _ = common.dalitz_grid(400)
    return 1.2 * float(np.max(density(grid, params)))


def generate(density, n, rng, params=None, progress=False):
    """n events (records) from a density of the event records (None: phase space)."""
    if n == 0:
        return {b: np.zeros((0, 4), np.float32) for b in common.BRANCHES}
    top = None if density is None else maximum(density, params)
    momenta = generation.generate_events(density, M["md"], FINAL_STATE, n, params,
                                         names=common.BRANCHES, seed=rng, progress=progress,
                                         maximum=top)
    if isinstance(momenta, dict):
        return {k: np.asarray(v, dtype=np.float32) for k, v in momenta.items()}
    return _records(momenta)


def signal_of_records(records, params):
    return model.signal_density(common.fill_signal_event_buffer(records), params, M)


def background_of_records(records, params):
    m2a, m2b = common.dalitz_variables(records)
    return common.background_polynomial(m2a, m2b, params)


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
    t0 = time.perf_counter()

    def out(name):
        return os.path.join(args.directory, name)

    if not args.no_mc and args.mc_events:
        write_tree(out("mc_signal.root"), generate(None, args.mc_events, rng,
                                                   progress=args.progress))
        print(f"mc_signal.root: {args.mc_events} phase-space events")
    if args.weighted_mc and args.mc_events:
        rec = generate(signal_of_records, args.mc_events, rng, ps, args.progress)
        w = 1 / signal_of_records(rec, ps)
        write_tree(out("mc_signal_weighted.root"), {**rec, "weight": w / w.mean()})
        print(f"mc_signal_weighted.root: {args.mc_events} events from the signal density")
    samples = range(args.pseudoexperiments) if args.pseudoexperiments else [-1]
    for k in samples:
        n_bkg = rng.binomial(args.events, args.background_fraction)
        sig = generate(signal_of_records, args.events - n_bkg, rng, ps, args.progress)
        bkg = generate(background_of_records, n_bkg, rng, pb, args.progress)
        order = rng.permutation(args.events)
        rec = {b: np.concatenate([sig[b], bkg[b]])[order] for b in common.BRANCHES}
        name = common.data_file_name(k)
        write_tree(out(name), rec)
        print(f"{name}: {args.events - n_bkg} signal + {n_bkg} background events")
    if args.background_events:
        write_tree(out("data_background.root"),
                   generate(background_of_records, args.background_events, rng, pb,
                            args.progress))
        print(f"data_background.root: {args.background_events} background events")
    print(f"generation took {time.perf_counter() - t0:.1f} s")


if __name__ == "__main__":
    main()
