"""The paper's comparison with Laura++ (section 9.2, table tab:laura) for the GenFit3K example.

Fits Laura++'s own GenFit3K pseudoexperiments (the example's data folder, 10
experiments of 5000 events) with the example's model (isobar_model3k.py,
compiled by vecampfit.isobar) and Laura++'s fit sequence (two stages, started
at the generated values; ``--random-start`` for random coefficients as in the
paper's study), in float64 on one thread, for every vector length, with and
without the analytic gradient, and reports:

1. the table tab:laura: total wall time of the fits per vector length, with
   and without gradient, and the ratios to Laura++'s time (41 s of CPU per
   fit of these pseudoexperiments on this kind of machine, one thread, as
   measured with Laura++ and recorded in the data folder's README; not
   measured here) and without/with gradient;
2. the time of one likelihood call (value; value and gradient) and per
   normalization-grid point, per vector length;
3. grid spacing: the fits with double, default and half spacing (time per
   fit, grid points, largest change of the fitted values from the default
   grid in units of their errors).

Writes ``benchmarks/results/laura_genfit3k.md``::

    python benchmarks/bench_laura_genfit3k.py [--lengths 4,8,16,32,64] [--experiments 0-9]
"""

import argparse
import os
import sys
import time

import numpy as np

from timing import best_time, cpu_description  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLE = os.path.join(HERE, "..", "examples", "laura_genfit3k")
sys.path.insert(0, EXAMPLE)

import fit3k  # noqa: E402
import genfit3k  # noqa: E402
from vecampfit import command_line  # noqa: E402

#: Laura++'s CPU time per fit of these pseudoexperiments (data folder's README).
LAURA_SECONDS_PER_FIT = 41.0
FREE = genfit3k.MASSES_AND_WIDTHS + genfit3k.COEFFICIENTS


def fit_all(setup, samples, gradient, random_start):
    results = []
    t0 = time.perf_counter()
    for k, (m13, m23) in samples.items():
        # The fit sequence alone (Laura++'s time excludes its fit fractions).
        r = setup.fit(m13, m23, gradient=gradient, random_start=random_start, seed=1000 + k,
                      fractions=False)
        del r["fitter"]
        results.append(r)
    return time.perf_counter() - t0, results


def largest_change(results, reference):
    return max(abs(r["values"][n] - ref["values"][n]) / ref["errors"][n]
               for r, ref in zip(results, reference) for n in FREE)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    ap.add_argument("--lengths", default="4,8,16,32,64", help="vector lengths")
    ap.add_argument("--experiments", default="0-9", help="Laura++'s experiments to fit")
    ap.add_argument("--random-start", action="store_true",
                    help="random initial coefficients (uniform in [-10, 10])")
    ap.add_argument("--repeat", type=int, default=20, help="calls timed per likelihood time")
    ap.add_argument("--no-grid-study", action="store_true",
                    help="skip the fits with double and half grid spacing")
    ap.add_argument("--model-cache", default=None)
    ap.add_argument("--output", default=os.path.join(HERE, "results", "laura_genfit3k.md"))
    args = ap.parse_args(argv)
    lengths = [int(v) for v in args.lengths.split(",")]
    experiments = command_line.parse_ranges(args.experiments, "--experiments")
    load = " ".join(f"{v:.2f}" for v in os.getloadavg())
    samples = {k: genfit3k.read_events(genfit3k.LAURA_TOYS, k) for k in experiments}
    n_fits = len(samples)

    def setup_for(length, extra=()):
        a = fit3k.make_parser().parse_args(["--threads", "1", "--vector-length",
                                            str(length), *extra] +
                                           (["--model-cache", args.model_cache]
                                            if args.model_cache else []))
        return genfit3k.Setup(a)

    base = setup_for(lengths[0])
    n_points = base.grid_info["points"]
    per_length = {}
    for L in lengths:
        setup = base if L == lengths[0] else setup_for(L)
        f = setup.fitter(*samples[experiments[0]])
        x = f.initial_values
        f.likelihood.evaluate(x, gradient=True)
        tv = best_time(lambda: f.likelihood.evaluate(x), args.repeat)
        tg = best_time(lambda: f.likelihood.evaluate(x, gradient=True), args.repeat)
        row = {"call": tv, "call_gradient": tg}
        for gradient in (False, True):
            wall, results = fit_all(setup, samples, gradient, args.random_start)
            row[gradient] = dict(wall=wall, calls=np.mean([r["calls"] for r in results]),
                                 valid=sum(r["valid"] for r in results),
                                 main=sum(r["solution"] == "main" for r in results),
                                 results=results)
            print(f"L={L} gradient={gradient}: {wall:.1f} s for {n_fits} fits, "
                  f"{row[gradient]['calls']:.0f} calls per fit; call {tv * 1e3:.2f} ms, "
                  f"with gradient {tg * 1e3:.2f} ms", flush=True)
        per_length[L] = row

    grids = []
    if not args.no_grid_study:
        best = min(lengths, key=lambda L: per_length[L][True]["wall"])
        reference = per_length[best][True]["results"]
        for label, extra in (("double", ("--grid-coarse", "0.01", "--grid-fine", "0.02")),
                             ("half", ("--grid-coarse", "0.0025", "--grid-fine", "0.005"))):
            s = setup_for(best, extra)
            wall, results = fit_all(s, samples, True, args.random_start)
            grids.append(dict(label=label, points=s.grid_info["points"],
                              nodes=s.grid_info["rectangle_nodes"], wall=wall,
                              change=largest_change(results, reference)))
            print(f"{label} spacing: {wall:.1f} s, change {grids[-1]['change']:.3f} sigma",
                  flush=True)
            del s
        grids.insert(1, dict(label="default", points=n_points,
                             nodes=base.grid_info["rectangle_nodes"],
                             wall=per_length[best][True]["wall"], change=0.0))

    text = markdown(args, per_length, grids, n_fits, n_points, base.grid_info, load)
    os.makedirs(os.path.dirname(args.output), exist_ok=True)
    from vecampfit.fitter.results import atomic_write_text
    atomic_write_text(args.output, text)
    print(text)


def markdown(args, per_length, grids, n_fits, n_points, info, load):
    lengths = sorted(per_length)
    start = "random initial coefficients" if args.random_start else \
        "started at the generated values"
    laura_total = LAURA_SECONDS_PER_FIT * n_fits
    lines = [
        "# B+ -> K+ K+ K- (Laura++'s GenFit3K): performance", "",
        f"Measured by `python benchmarks/bench_laura_genfit3k.py --lengths {args.lengths} "
        f"--experiments {args.experiments}{' --random-start' if args.random_start else ''}` on "
        f"{cpu_description()}, {os.cpu_count()} CPUs, load average "
        f"before the run {load}. One thread, float64, analytic gradient or Minuit's numerical "
        f"one. Fits: Laura++'s {n_fits} GenFit3K pseudoexperiments of 5000 events "
        f"(examples/laura_genfit3k/data), Laura++'s two-stage sequence {start}, HESSE. "
        f"Normalization grid: {info['rectangle_nodes']} Gauss-Legendre nodes in rectangles "
        f"(Laura++'s scheme), {info['inside']} inside the Dalitz plot, {n_points} after folding "
        f"onto m13 <= m23.", "",
        f"Laura++'s time is not measured here: {LAURA_SECONDS_PER_FIT:g} s of CPU per fit of "
        f"these pseudoexperiments (one thread, -O3 -march=native; data folder's README), i.e. "
        f"{laura_total:.0f} s for {n_fits} fits.", "",
        f"## Table tab:laura ({n_fits} fits, total wall time in seconds)", "",
        "| | total (s) | per fit (s) | likelihood calls per fit | valid | main solution |",
        "|---|---|---|---|---|---|",
        f"| Laura++ (README) | {laura_total:.0f} | {LAURA_SECONDS_PER_FIT:.1f} | about 370 | | |"]
    for gradient in (False, True):
        for L in lengths:
            r = per_length[L][gradient]
            lines.append(f"| vecampfit,{' gradient,' if gradient else ''} vector length {L} | "
                         f"{r['wall']:.1f} | {r['wall'] / n_fits:.2f} | {r['calls']:.0f} | "
                         f"{r['valid']}/{n_fits} | {r['main']}/{n_fits} |")
    best_n = min(lengths, key=lambda L: per_length[L][False]["wall"])
    best_g = min(lengths, key=lambda L: per_length[L][True]["wall"])
    wn, wg = per_length[best_n][False]["wall"], per_length[best_g][True]["wall"]
    lines += [f"| Laura++ / vecampfit without gradient (L = {best_n}) | {laura_total / wn:.1f} | | | | |",
              f"| Laura++ / vecampfit with gradient (L = {best_g}) | {laura_total / wg:.1f} | | | | |",
              f"| vecampfit without / with gradient | {wn / wg:.2f} | | | | |", "",
              "## Likelihood call (data and grid, one thread)", "",
              "| L | call (ms) | ns per grid point | call with gradient (ms) | ns per grid point |",
              "|---|---|---|---|---|"]
    for L in lengths:
        r = per_length[L]
        lines.append(f"| {L} | {r['call'] * 1e3:.2f} | {r['call'] / n_points * 1e9:.2f} | "
                     f"{r['call_gradient'] * 1e3:.2f} | "
                     f"{r['call_gradient'] / n_points * 1e9:.2f} |")
    lines += ["", f"Best of {args.repeat} calls; the per-point time divides the whole call "
              f"(grid and 5000 data events) by the {n_points} grid points. Laura++: about "
              f"0.11 s per call over 4.0 million grid points (README).", ""]
    if grids:
        lines += [f"## Grid spacing (with gradient, L = {best_g})", "",
                  "| spacing | coarse (GeV) | fine (Gamma) | rectangle nodes | points used | "
                  f"total time, {n_fits} fits (s) | largest change from the default grid "
                  "(sigma) |", "|---|---|---|---|---|---|---|"]
        spec = {"double": ("0.010", "1/50"), "default": ("0.005", "1/100"),
                "half": ("0.0025", "1/200")}
        for g in grids:
            lines.append(f"| {g['label']} | {spec[g['label']][0]} | {spec[g['label']][1]} | "
                         f"{g['nodes']} | {g['points']} | {g['wall']:.1f} | "
                         f"{g['change']:.3f} |")
        lines += ["", "Change: the largest |difference| of the fitted masses, widths and "
                  "coefficients from the fits with the default grid, in units of their errors, "
                  "over the experiments.", ""]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
