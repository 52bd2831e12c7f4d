"""The whole D0 -> K- pi+ pi0 analysis in one command: generate, fit the
background, fit the signal (with the fit fractions), plot, and a scan of
random starts that says whether they all reach the same minimum and gives
the fit fractions of each minimum it finds.

    python examples/dz_kmpippiz/run.py [--directory dz_output] [--events 20000]

Every step is also a program of its own (generate.py, fit_background.py,
fit_signal.py, plot.py, each with ``--help``).  The first run compiles the
densities (the signal density generated from isobar_model.py, and the
background polynomial; about a minute); later runs take them from the cache.
"""

import os
import time

import common
import fit_background
import fit_signal
import generate
import plot
from vecampfit import command_line


def main(argv=None):
    p = common.parser(__doc__.split("\n\n")[0])
    p.add_argument("--directory", default="dz_output", help="output folder")
    p.add_argument("--events", type=int, default=20000, help="data events")
    p.add_argument("--mc-events", type=int, default=200000, help="normalization MC events")
    p.add_argument("--seed", type=int, default=1, help="seed of generation and fits")
    command_line.add_model_options(p)
    p.add_argument("--starts", type=int, default=4,
                   help="random starts of the scan after the fit (0: no scan)")
    args = p.parse_args(argv)
    d = args.directory
    common_fit = command_line.forward_options(args, ["directory", "vector_length", "precision",
                                                     "seed"], optional=["threads", "model_cache"])
    t0 = time.perf_counter()
    print("== generate")
    generate.main(["--directory", d, "--events", str(args.events), "--mc-events",
                   str(args.mc_events), "--background-events", str(args.events),
                   "--seed", str(args.seed)])
    print("== fit the background")
    fit_background.main(common_fit)
    print("== fit the signal")
    fitter = fit_signal.main(common_fit)
    print("== plot")
    plot.main(["--directory", d])
    if args.starts > 0:
        print(f"== scan of {args.starts} random starts")
        i = common_fit.index("--seed")
        scan_argv = common_fit[:i] + common_fit[i + 2:] + ["--no-density-file"]
        solutions = fit_signal.scan(scan_argv, args.starts, args.seed + 1000)
        for s in solutions:
            print(f"  F = {s['fval']:.3f} (+{s['delta']:.3f}): reached by {s['count']} of "
                  f"{args.starts} starts")
            print(f"    fit fractions: {s['fit_fractions'].summary()}")
        if len(solutions) > 1 or abs(solutions[0]["fval"] - fitter.minuit.fval) > 0.5:
            print(f"  the random starts do not all reach the same minimum (the fit above: F = "
                  f"{fitter.minuit.fval:.3f}); compare the solutions before quoting a result")
        else:
            print("  every start reached the fit's minimum")
    print(f"done in {time.perf_counter() - t0:.0f} s; results in {os.path.abspath(d)}: "
          f"results.txt, parameters_signal_result.dat, signal_result.root, "
          f"signal_density.root, projections.png")
    return fitter


if __name__ == "__main__":
    main()
