"""Likelihood-call time of the fitter: ns per event per call.

A simple Cython density (the Gaussian of tests/models/fitter_toy_model.pyx)
and the same density in numpy form, through the same fitter, for every
vector length and both precisions, at 1 and 2 threads, value and value plus
gradient, all in one process::

    python benchmarks/bench_fitter.py [--data 100000] [--mc 1000000] [--repeat 5]

Prints a Markdown table.  Times are the best of ``--repeat`` calls (the
machine may be shared); ratios are taken within this run.
"""

import os

import numpy as np

from timing import benchmark_parser, best_time

from vecampfit.fitter import Density, FitParameter, Likelihood, ParameterTable
from vecampfit.model_compiler import compile_model

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODEL = os.path.join(ROOT, "tests", "models", "fitter_toy_model.pyx")


def numpy_density():
    def f(events, p):
        x = events["x"]
        return np.exp(-(x - p[0]) ** 2 * (1 / (2 * p[1] * p[1])))

    def fg(events, p):
        x = events["x"]
        d = x - p[0]
        s = np.exp(-d * d * (1 / (2 * p[1] * p[1])))
        return s, np.stack([s * d / p[1] ** 2, s * d * d / p[1] ** 3])
    return Density(f, fg, parameters=["mu", "sigma"], event_fields=["x"], name="numpy")


def block_density(module, precision):
    return Density.from_model(module, precision, model="gauss", name="cython")


def main(argv=None):
    ap = benchmark_parser(__doc__, data=100000, mc=1000000, repeat=5,
                          lengths="1,2,4,8,16,32,64", threads="1,2")
    args = ap.parse_args(argv)
    lengths = [int(v) for v in args.lengths.split(",")]
    threads = [int(v) for v in args.threads.split(",")]
    modules = compile_model(MODEL, lengths)
    rng = np.random.default_rng(1)
    x, xm = rng.uniform(0, 1, args.data), rng.uniform(0, 1, args.mc)
    p = np.array([0.45, 0.15])
    table = ParameterTable([FitParameter("mu", 0.5, 0.01), FitParameter("sigma", 0.2, 0.01)])
    n = args.data + args.mc
    rows = []

    def measure(label, precision, L, nt, dens):
        lk = Likelihood(table, precision=precision, vector_length=L, threads=nt)
        pt = lk.add_point(dens)
        pt.add_data({"x": x})
        pt.add_normalization_events({"x": xm})
        lk.evaluate(p, gradient=True)
        tv = best_time(lambda: lk.evaluate(p), args.repeat) / n * 1e9
        tg = best_time(lambda: lk.evaluate(p, gradient=True), args.repeat) / n * 1e9
        rows.append((label, precision, L, nt, tv, tg))
        print(f"| {label} | {precision} | {L} | {nt} | {tv:.2f} | {tg:.2f} |", flush=True)

    print(f"{args.data} data + {args.mc} MC events; best of {args.repeat} calls\n")
    print("| density | precision | L | threads | ns/event/call | with gradient |")
    print("|---|---|---|---|---|---|")
    for precision in ("float64", "float32"):
        measure("numpy", precision, 8, 1, numpy_density())
        for L in lengths:
            for nt in threads:
                measure("cython", precision, L, nt, block_density(modules[L], precision))
    print()
    for precision in ("float64", "float32"):
        sel = [r for r in rows if r[1] == precision]
        npy = next(r for r in sel if r[0] == "numpy")
        one = [r for r in sel if r[0] == "cython" and r[3] == 1]
        best = min(one, key=lambda r: r[4])
        scalar = next(r for r in one if r[2] == 1)
        print(f"{precision}: best L = {best[2]}: {best[4]:.2f} ns; L = 1: {scalar[4]:.2f} ns "
              f"(ratio {scalar[4] / best[4]:.2f}); numpy {npy[4]:.2f} ns "
              f"(numpy / best Cython {npy[4] / best[4]:.1f})")
        if 2 in threads:
            two = next(r for r in sel if r[0] == "cython" and r[2] == best[2] and r[3] == 2)
            print(f"  2 threads vs 1 at L = {best[2]}: {best[4] / two[4]:.2f}x (value), "
                  f"{best[5] / two[5]:.2f}x (gradient)")


if __name__ == "__main__":
    main()
