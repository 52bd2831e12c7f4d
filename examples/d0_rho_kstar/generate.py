"""Generate D0 -> rho0 anti-K*0 -> (pi+ pi-)(K- pi+) pseudo-data with chosen P and D waves.

Events are drawn uniformly in the four-body phase space of the D0 at rest
(:func:`vecampfit.generation.generate_events`) and kept with probability
:math:`S / S_{max}`, :math:`S` the intensity of the compiled model.
Writes to ``--directory``:

* ``data.root``: the pseudo-data (``--events``);
* ``mc.root``: phase-space events, the normalization sample (``--mc-events``);
* ``truth.json``: the parameters the data were generated with.

Run ``python generate.py --help`` for the options.
"""

import os
import time

import numpy as np

import common
from vecampfit import generation


def truth_values(p_wave, d_wave):
    """The generation parameters: S = 1, the P and D waves given as (RE, IM) pairs."""
    values = {"S_RE": 1.0, "S_IM": 0.0}
    for wave, (re, im) in (("P", p_wave), ("D", d_wave)):
        values.update(zip(common.parameters(wave), (float(re), float(im))))
    return values


def maximum(compiled, cascade, values, rng, n=100_000, safety=1.5):
    """``safety`` times the largest intensity over ``n`` phase-space events."""
    p = generation.phase_space(common.M_D0, common.MASSES, n, seed=rng).momenta
    rec = common.event_records(cascade, dict(zip(common.BRANCHES, p)))
    return safety * float(np.max(compiled.evaluate(rec, values)))


def generate(compiled, cascade, values, n, rng, top=None, progress=False):
    """``n`` events (dict branch -> four-momenta) distributed as the model's intensity.

    If an event exceeds the assumed maximum, the generation starts again
    with a larger one (starting again keeps the sample unbiased).
    """
    density, pvec = compiled.density_at(values, gradient=False)

    def intensity(momenta, params):
        rec = common.event_records(cascade, momenta)
        return density.evaluate(density.event_buffer(rec, records=True), params)

    top = top or maximum(compiled, cascade, values, rng)
    return generation.generate_events(intensity, common.M_D0, common.MASSES, n, pvec,
                                     names=common.BRANCHES, maximum=top, seed=rng,
                                     progress=progress, restarts=4)


def main(argv=None):
    p = common.add_common_options(common.parser(__doc__.split("\n\n")[0]))
    p.add_argument("--events", type=int, default=20000, help="pseudo-data events")
    p.add_argument("--mc-events", type=int, default=200000,
                   help="phase-space events of the normalization sample (0: none)")
    p.add_argument("--p-wave", type=float, nargs=2, default=(0.6, 0.8), metavar=("RE", "IM"),
                   help="P-wave coupling relative to the S wave's (1)")
    p.add_argument("--d-wave", type=float, nargs=2, default=(-0.3, 0.45), metavar=("RE", "IM"),
                   help="D-wave coupling relative to the S wave's (1)")
    p.add_argument("--seed", type=int, default=1, help="random seed")
    p.add_argument("--progress", action="store_true", help="progress bar on stderr")
    args = p.parse_args(argv)
    if args.events < 1 or args.mc_events < 0:
        p.error("--events must be positive and --mc-events non-negative")
    os.makedirs(args.directory, exist_ok=True)
    t0 = time.perf_counter()
    values = truth_values(args.p_wave, args.d_wave)
    cascade = common.cascade()
    compiled = common.compile_model(cascade.amplitude_model(), args.vector_length,
                                    args.model_cache)
    print(f"model declared and compiled in {time.perf_counter() - t0:.1f} s")
    rng = np.random.default_rng(args.seed)

    def out(name):
        return os.path.join(args.directory, name)

    t0 = time.perf_counter()
    data = generate(compiled, cascade, values, args.events, rng, progress=args.progress)
    common.write_sample(out(common.DATA_FILE), data)
    print(f"{common.DATA_FILE}: {args.events} events, P = {complex(*args.p_wave)}, "
          f"D = {complex(*args.d_wave)} (S = 1)")
    if args.mc_events:
        mc = generation.generate_events(None, common.M_D0, common.MASSES, args.mc_events,
                                        names=common.BRANCHES, seed=rng, progress=args.progress)
        common.write_sample(out(common.MC_FILE), mc)
        print(f"{common.MC_FILE}: {args.mc_events} phase-space events")
    common.write_json(out(common.TRUTH_FILE), {"seed": args.seed, "values": values})
    print(f"generation took {time.perf_counter() - t0:.1f} s")


if __name__ == "__main__":
    main()
