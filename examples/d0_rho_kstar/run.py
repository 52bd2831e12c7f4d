"""The D0 -> rho0 anti-K*0 example in one command: generate, fit, plot.

    python examples/d0_rho_kstar/run.py [--directory d0_rho_kstar_output] [--events 10000]

Each step is also a program of its own (generate.py, fit.py, plot.py, each
with ``--help``).  The first run compiles the model; later runs take it
from the cache.
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
    p.add_argument("--p-wave", type=float, nargs=2, default=(0.6, 0.8), metavar=("RE", "IM"),
                   help="P-wave coupling of the pseudo-data, relative to the S wave's (1)")
    p.add_argument("--d-wave", type=float, nargs=2, default=(-0.3, 0.45), metavar=("RE", "IM"),
                   help="D-wave coupling of the pseudo-data, relative to the S wave's (1)")
    p.add_argument("--seed", type=int, default=1, help="seed of the generation and the start")
    args = p.parse_args(argv)
    shared = command_line.forward_options(args, ("directory", "vector_length"),
                                          optional=("model_cache", "threads"))
    t0 = time.perf_counter()
    print("== generate")
    generate.main(shared + command_line.forward_options(
        args, ("events", "mc_events", "seed", "p_wave", "d_wave")))
    print("== fit")
    result = fit.main(shared + command_line.forward_options(args, ("seed",)))
    print("== plot")
    plot.main(shared)
    print(f"done in {time.perf_counter() - t0:.0f} s; results in "
          f"{os.path.abspath(args.directory)}: results.txt, fit_result.json, "
          "parameters_result.dat, projections.png")
    return result


if __name__ == "__main__":
    main()
