"""The e+e- -> K K-bar pi pi workflow in one command: generate, fit the efficiency (MC and data), the resolution and the background, then the simultaneous signal fit of the chosen points.

    python examples/epem_kkpipi/run_kkpipi.py [--directory epem_output] [--process ...]
                                              [--energy ...]

Every step is also a program of its own (generate_kkpipi.py, fit_efficiency.py,
fit_resolution.py, fit_background_kkpipi.py, fit_signal_kkpipi.py, each with
``--help``); sample sizes are those of config.py unless given here.  The first run compiles the
models; later runs take them from vecampfit's cache.
"""

import os
import time

import common_kkpipi as common  # noqa: E402
import fit_background_kkpipi as fit_background  # noqa: E402
import fit_efficiency  # noqa: E402
import fit_resolution  # noqa: E402
import fit_signal_kkpipi as fit_signal  # noqa: E402
import generate_kkpipi as generate  # noqa: E402


def main(argv=None):
    p = common.parser(__doc__.split("\n\n")[0])
    p.set_defaults(directory="epem_output")
    p.add_argument("--data-events", type=int, default=None, help="pseudo-data events per point")
    p.add_argument("--mc-events", type=int, default=None, help="generator-level MC events per point")
    p.add_argument("--background-events", type=int, default=None,
                   help="background-sample events per point")
    p.add_argument("--seed", type=int, default=1, help="random seed of the generation")
    p.add_argument("--skip-generation", action="store_true", help="use the files already there")
    p.add_argument("--fit-seed", type=int, default=1, help="seed of the signal fit's random start")
    args = p.parse_args(argv)
    select = []
    for proc in args.process or []:
        select += ["--process", proc]
    for e in args.energy or []:
        select += ["--energy", str(e)]
    common_args = ["--directory", args.directory] + select
    t0 = time.perf_counter()
    if not args.skip_generation:
        gen = list(common_args) + ["--seed", str(args.seed)]
        for opt, v in (("--data-events", args.data_events), ("--mc-events", args.mc_events),
                       ("--background-events", args.background_events)):
            if v is not None:
                gen += [opt, str(v)]
        generate.main(gen)
    fit_efficiency.main(common_args)
    fit_efficiency.main(common_args + ["--data-efficiency"])
    fit_resolution.main(common_args)
    fit_background.main(common_args)
    fit_signal.main(common_args + ["--seed", str(args.fit_seed)])
    print(f"workflow took {time.perf_counter() - t0:.1f} s; results in {os.path.abspath(args.directory)}")


if __name__ == "__main__":
    main()
