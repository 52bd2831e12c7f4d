"""Generate Lambda_c+ -> p K- pi+ pseudo-data from the LHCb model with a chosen polarization.

Events are drawn uniformly in phase space, which for a decay at rest is
uniform in the Dalitz variables and in the orientation of the decay plane
(:func:`vecampfit.generation.generate_events`), and kept with probability
:math:`S / S_{max}`, :math:`S` the polarized intensity of the compiled
model.  Writes to ``--directory``:

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


def truth_values(model, polarization):
    """The generation parameters: the file's values and the polarization vector."""
    values = model.values()
    values.update(dict(zip(common.POLARIZATION, (float(x) for x in polarization))))
    return values


def maximum(compiled, dist, values, rng, n=200_000, safety=1.5):
    """``safety`` times the largest intensity over ``n`` (weighted) phase-space events."""
    masses = dist.model.masses
    p = generation.phase_space(masses[0], masses[1:], n, seed=rng).momenta
    rec = common.event_variables(dict(zip(common.BRANCHES, p)), dist.model.references[0])
    return safety * float(np.max(compiled.evaluate(rec, values)))


def generate(compiled, dist, values, n, rng, top=None, progress=False):
    """``n`` events (dict of four-momenta) distributed as the model's intensity.

    If an event exceeds the assumed maximum, the generation starts again
    with a larger one (starting again keeps the sample unbiased).
    """
    masses = dist.model.masses
    reference = dist.model.references[0]
    density, pvec = compiled.density_at(values, gradient=False)

    def intensity(momenta, params):
        buffer = density.event_buffer(common.event_variables(momenta, reference), records=True)
        return density.evaluate(buffer, params)

    top = top or maximum(compiled, dist, values, rng)
    return generation.generate_events(intensity, masses[0], masses[1:], n, pvec,
                                     names=common.BRANCHES, maximum=top, seed=rng,
                                     progress=progress, restarts=4)


def main(argv=None):
    p = common.add_common_options(common.parser(__doc__.split("\n\n")[0]))
    p.add_argument("--events", type=int, default=20000, help="pseudo-data events")
    p.add_argument("--mc-events", type=int, default=200000,
                   help="phase-space events of the normalization sample (0: none)")
    p.add_argument("--polarization", type=float, nargs=3, default=(0.2, 0.0, -0.65),
                   metavar=("PX", "PY", "PZ"),
                   help="Lambda_c polarization vector, |P| <= 1")
    p.add_argument("--seed", type=int, default=1, help="random seed")
    p.add_argument("--progress", action="store_true", help="progress bar on stderr")
    args = p.parse_args(argv)
    if args.events < 1 or args.mc_events < 0:
        p.error("--events must be positive and --mc-events non-negative")
    if np.linalg.norm(args.polarization) > 1:
        p.error(f"the polarization vector {args.polarization} is longer than 1")
    os.makedirs(args.directory, exist_ok=True)
    t0 = time.perf_counter()
    dist, model = common.load(args.model)
    compiled = common.compile_model(model, args.vector_length, args.model_cache)
    print(f"model read and compiled in {time.perf_counter() - t0:.1f} s")
    values = truth_values(model, args.polarization)
    rng = np.random.default_rng(args.seed)

    def out(name):
        return os.path.join(args.directory, name)

    t0 = time.perf_counter()
    data = generate(compiled, dist, values, args.events, rng, progress=args.progress)
    common.write_sample(out(common.DATA_FILE), data)
    print(f"{common.DATA_FILE}: {args.events} events, P = {tuple(args.polarization)}")
    if args.mc_events:
        masses = dist.model.masses
        mc = generation.generate_events(None, masses[0], masses[1:], args.mc_events,
                                        names=common.BRANCHES, seed=rng, progress=args.progress)
        common.write_sample(out(common.MC_FILE), mc)
        print(f"{common.MC_FILE}: {args.mc_events} phase-space events")
    common.write_json(out(common.TRUTH_FILE), {"model": os.path.abspath(args.model or
                                                                         common.MODEL_FILE),
                                               "seed": args.seed, "values": values})
    print(f"generation took {time.perf_counter() - t0:.1f} s")


if __name__ == "__main__":
    main()
