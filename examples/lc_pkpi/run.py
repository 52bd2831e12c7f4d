"""The Lambda_c+ -> p K- pi+ example in one command: generate, fit, plot.

    python examples/lc_pkpi/run.py [--directory lc_output] [--events 10000]

Each step is also a program of its own (generate.py, fit.py, plot.py, each
with ``--help``).  The first run compiles the model (about 20 s); later
runs take it from the cache.
"""

import os
import time

import common
import fit
import generate
import plot
from vecampfit import command_line


def main(argv=None):
    p = common.add_common_options(common.parser(__doc__.split("\n\n")[0]))
    p.add_argument("--events", type=int, default=10000, help="pseudo-data events")
    p.add_argument("--mc-events", type=int, default=100000, help="normalization events")
    p.add_argument("--polarization", type=float, nargs=3, default=(0.2, 0.0, -0.65),
                   metavar=("PX", "PY", "PZ"), help="Lambda_c polarization of the pseudo-data")
    p.add_argument("--free", nargs="*", default=None, metavar="NAME",
                   help="parameters to fit (default: every coupling but the first chain's, "
                        "and the polarization)")
    p.add_argument("--seed", type=int, default=1, help="seed of the generation and the start")
    args = p.parse_args(argv)
    shared = command_line.forward_options(args, ("directory", "vector_length"),
                                          optional=("model", "model_cache", "threads"))
    t0 = time.perf_counter()
    print("== generate")
    generate.main(shared + command_line.forward_options(
        args, ("events", "mc_events", "seed", "polarization")))
    print("== fit")
    result = fit.main(shared + command_line.forward_options(args, ("seed",), optional=("free",)))
    print("== plot")
    plot.main(shared)
    print(f"done in {time.perf_counter() - t0:.0f} s; results in {os.path.abspath(args.directory)}: "
          f"results.txt, fit_result.json, parameters_result.dat, projections.png")
    return result


if __name__ == "__main__":
    main()
