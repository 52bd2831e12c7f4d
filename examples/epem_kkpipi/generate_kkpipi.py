"""Generate the e+e- -> K K-bar pi pi samples at the chosen points and pass them through the simulated detector.

For each point ``<process>_<E>_mev`` (config.py) writes, in --directory:

* ``mc_<point>.root``: generator-level MC, uniform in four-body phase space
  (vecampfit.generation), every event with its reconstructed flag, its
  reconstructed (smeared) momenta and the data/MC weight R;
* ``data_<point>.root``: pseudo-data, reconstructed events only: signal from
  the amplitude (model_kkpipi.py, the point's generation parameters) by
  accept-reject and a --background-fraction of background from the
  background model (common.BACKGROUND_TRUTH), both passed through the data
  efficiency (times R) and the resolution (see reconstructed_sample);
* ``background_<point>.root``: a reconstructed background sample.

Branches: see common_kkpipi.py.  Each point has its own random stream (from --seed,
the process and the energy), so a subset of points reproduces the same
events as a run over all points.  Run ``python generate_kkpipi.py --help``.
"""

import os
import sys
import time

import numpy as np

import common_kkpipi as common  # noqa: E402
import config  # noqa: E402
import detector  # noqa: E402
import model_kkpipi as model  # noqa: E402
from vecampfit import generation  # noqa: E402
from vecampfit.root_io import write_tree  # noqa: E402


def point_rng(seed, point):
    """The random stream of a point (independent of the other points chosen)."""
    k = list(model.PROCESSES).index(point.process)
    return np.random.default_rng([seed, k, point.energy_mev])


def density_maximum(density, point, rng, n=200_000, safety=2.0):
    """Estimate of the maximum of a density over phase space: ``safety``
    times its largest value at ``n`` phase-space points."""
    m = point.masses()
    ps = generation.phase_space(point.sqrt_s, [m[k] for k in common.PARTICLES], n, seed=rng)
    return safety * float(np.max(density(dict(zip(common.PARTICLES, ps.momenta)))))


def generate_momenta(density, point, n, rng, maximum=None, progress=False):
    """``n`` generator-level events distributed as ``density`` (a function of
    the four-momenta dict; None: phase space) times four-body phase space.
    A density above the assumed maximum restarts the sample with twice it."""
    m = point.masses()
    masses = [m[k] for k in common.PARTICLES]
    if n == 0:
        return {k: np.zeros((0, 4)) for k in common.PARTICLES}
    if density is not None and maximum is None:
        maximum = density_maximum(density, point, rng)
    while True:
        try:
            out = generation.generate_events(density, point.sqrt_s, masses, n,
                                             names=common.PARTICLES, seed=rng, maximum=maximum,
                                             progress=progress)
            return {k: np.asarray(v, dtype=np.float64) for k, v in out.items()}
        except ValueError as exc:
            if density is None or "maximum" not in str(exc):
                raise
            maximum *= 2
            print(f"{point.name}: density above the assumed maximum; restarting with {maximum:.4g}")


def reconstructed_sample(density, point, n, rng, data=True, progress=False, batch=50_000):
    """``n`` reconstructed events distributed as ``density`` times phase space
    times the efficiency.

    Phase-space events (vecampfit.generation) are passed through the
    detector first and the density is evaluated at the reconstructed ones
    only, which are kept with probability density / maximum: the two
    acceptances are independent, so the kept events have the density
    ``density x efficiency`` (the detector makes the density evaluations
    about four times fewer).  A value above the assumed maximum restarts the
    sample with twice the largest value seen.
    """
    maximum = None if density is None else density_maximum(density, point, rng)
    parts_gen, parts_rec = [], []
    have = 0
    while have < n:
        gen = generate_momenta(None, point, batch, rng)
        ok, rec, _ = detector.simulate(gen, point.masses(), rng, data=data)
        if density is not None:
            sub = {k: v[ok] for k, v in gen.items()}
            f = density(sub)
            if np.any(f > maximum):
                maximum = 2 * float(np.max(f))
                print(f"{point.name}: density above the assumed maximum; restarting with "
                      f"{maximum:.4g}")
                parts_gen, parts_rec, have = [], [], 0
                continue
            keep = np.zeros(len(ok), bool)
            keep[np.flatnonzero(ok)] = rng.random(len(f)) * maximum < f
            ok = keep
        parts_gen.append({k: v[ok] for k, v in gen.items()})
        parts_rec.append({k: v[ok] for k, v in rec.items()})
        have += int(ok.sum())
        if progress:
            print(f"{point.name}: {min(have, n)} of {n} events", file=sys.stderr)
    gen = {k: np.concatenate([p[k] for p in parts_gen])[:n] for k in common.PARTICLES}
    rec = {k: np.concatenate([p[k] for p in parts_rec])[:n] for k in common.PARTICLES}
    return gen, rec


def _branches(gen, rec, reconstructed, weight, extra=None):
    out = {}
    for k in common.PARTICLES:
        out[common.BRANCH[k]] = rec[k]
        out[common.GEN_BRANCH[k]] = gen[k]
    out["reconstructed"] = np.asarray(reconstructed, dtype=bool)
    out["weight"] = np.asarray(weight, dtype=np.float64)
    if extra:
        out.update(extra)
    return out


def generate_point(point, directory, seed, progress=False):
    """Write the three files of one point; returns a dict of counts."""
    rng = point_rng(seed, point)
    params = model.parameter_vector(point.energy_mev)
    counts = {}

    def signal(mom):
        return common.signal_density_of_momenta(mom, point, params)

    def background(mom):
        return common.background_density(mom, point)

    if point.mc_events:
        gen = generate_momenta(None, point, point.mc_events, rng, progress=progress)
        ok, rec, w = detector.simulate(gen, point.masses(), rng, data=False)
        write_tree(os.path.join(directory, point.file("mc")), _branches(gen, rec, ok, w))
        counts["mc"] = (point.mc_events, int(ok.sum()))
    if point.data_events:
        n_bkg = int(rng.binomial(point.data_events, point.background_fraction))
        n_sig = point.data_events - n_bkg
        gs, rs = reconstructed_sample(signal, point, n_sig, rng, True, progress)
        gb, rb = reconstructed_sample(background, point, n_bkg, rng, True, progress)
        order = rng.permutation(point.data_events)
        gen = {k: np.concatenate([gs[k], gb[k]])[order] for k in common.PARTICLES}
        rec = {k: np.concatenate([rs[k], rb[k]])[order] for k in common.PARTICLES}
        is_signal = np.concatenate([np.ones(n_sig, bool), np.zeros(n_bkg, bool)])[order]
        n = point.data_events
        write_tree(os.path.join(directory, point.file("data")),
                   _branches(gen, rec, np.ones(n, bool), np.ones(n), {"signal": is_signal}))
        counts["data"] = (n_sig, n_bkg)
    if point.background_events:
        n = point.background_events
        gen, rec = reconstructed_sample(background, point, n, rng, True, progress)
        write_tree(os.path.join(directory, point.file("background")),
                   _branches(gen, rec, np.ones(n, bool), np.ones(n)))
        counts["background"] = n
    return counts


def main(argv=None):
    p = common.parser(__doc__.split("\n\n")[0])
    p.add_argument("--data-events", type=int, default=None,
                   help="reconstructed pseudo-data events per point (default: config.py, 10000)")
    p.add_argument("--mc-events", type=int, default=None,
                   help="generator-level MC events per point (default: config.py, 100000)")
    p.add_argument("--background-events", type=int, default=None,
                   help="reconstructed background-sample events per point (default: config.py, "
                        "10000)")
    p.add_argument("--background-fraction", type=float, default=None,
                   help="background fraction of the pseudo-data (default: config.py, 0.1)")
    p.add_argument("--seed", type=int, default=1, help="random seed")
    p.add_argument("--progress", action="store_true", help="progress bars on stderr")
    args = p.parse_args(argv)
    overrides = {k: v for k, v in (("data_events", args.data_events),
                                   ("mc_events", args.mc_events),
                                   ("background_events", args.background_events),
                                   ("background_fraction", args.background_fraction))
                 if v is not None}
    try:
        points = config.select(args.process, args.energy, **overrides)
    except ValueError as exc:
        p.error(str(exc))
    os.makedirs(args.directory, exist_ok=True)
    t0 = time.perf_counter()
    for point in points:
        t = time.perf_counter()
        counts = generate_point(point, args.directory, args.seed, args.progress)
        print(f"{point.name}: {counts} ({time.perf_counter() - t:.1f} s)")
    print(f"generation took {time.perf_counter() - t0:.1f} s")
    return points


if __name__ == "__main__":
    main()
