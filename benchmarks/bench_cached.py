"""Cached fits of the D0 -> K- pi+ pi0 example: the likelihood from cached
component amplitudes against the full model, in one run.

1. Likelihood call (100,000 data + 1,000,000 MC events, float64, L = 8, one
   thread): value and gradient on the full path and on the cached path
   (only the couplings and the background fraction free), the time to build
   the cache, and the cached path at two threads.
2. Whole signal fits (the example's sequence from random starts: two
   MIGRADs and HESSE, the events already loaded by the program) with
   ``cache="auto"`` and ``cache="never"``, each in a process of its own:
   wall time, CPU time, calls, peak memory.

Writes ``benchmarks/results/cached.md``::

    python benchmarks/bench_cached.py [--fits 3]

Uses the samples of ``bench_dz_kmpippiz.py`` (generated if missing).
"""

import os
import time

import bench_dz_kmpippiz as dz
from timing import benchmark_parser, best_time, load_average, cpu_description, write_report

HERE = os.path.dirname(os.path.abspath(__file__))


def call_times(directory, repeat):
    f = dz.build(directory, 8, "float64", 1)
    lk = f.likelihood
    x = f.initial_values
    free = dz.fit_signal.names("A") + dz.fit_signal.names("P") + ["BACKGROUND_FRACTION"]
    n = lk.points[0].data_events.n_events + lk.points[0].norm_events.n_events
    lk.cache = "never"
    full = (best_time(lambda: lk.evaluate(x), repeat), best_time(lambda: lk.evaluate(x, True),
                                                                 repeat))
    lk.cache = "always"
    cost = lk.restricted(free)        # calls told that only the couplings move
    t0 = time.perf_counter()
    cost.evaluate(x)
    build = time.perf_counter() - t0
    cached = {}
    for threads in (1, 2):
        lk.threads = threads
        cached[threads] = (best_time(lambda: cost.evaluate(x), 3 * repeat),
                           best_time(lambda: cost.evaluate(x, True), 3 * repeat))
    cached_value = cost.evaluate(x)[0]
    lk.cache = "never"
    rel = abs(lk.evaluate(x)[0] / cached_value - 1)
    return dict(events=n, full=full, build=build, cached=cached, rel=rel)


def main(argv=None):
    ap = benchmark_parser(__doc__, data=100000, mc=1000000, fits=3, repeat=5,
                          directory=os.path.join(HERE, "results", "dz_samples"),
                          output=os.path.join(HERE, "results", "cached.md"))
    args = ap.parse_args(argv)
    d = args.directory
    dz.signal_samples(d, args.data, args.mc)
    load = load_average()
    c = call_times(d, args.repeat)
    fits = dz.cached_fits(d, (("auto", "auto", ()), ("never", "never", ())), args.fits, 200)
    ms = 1e3
    (fv, fg), (cv, cg), (cv2, cg2) = c["full"], c["cached"][1], c["cached"][2]
    lines = [
        "# D0 -> K- pi+ pi0: cached fits\n",
        f"Measured by `python benchmarks/bench_cached.py --fits {args.fits}` on "
        f"{cpu_description()}, {os.cpu_count()} CPUs, load average "
        f"before the run {load}; {c['events']} events (data + MC), float64, L = 8.\n",
        "## Likelihood call (only the couplings and the background fraction free)\n",
        "| path | value (ms) | with gradient (ms) |", "|---|---|---|",
        f"| full model, 1 thread | {fv * ms:.2f} | {fg * ms:.2f} |",
        f"| cached, 1 thread | {cv * ms:.3f} | {cg * ms:.3f} |",
        f"| cached, 2 threads | {cv2 * ms:.3f} | {cg2 * ms:.3f} |", "",
        f"- full / cached, one thread: {fv / cv:.1f}x for the value, {fg / cg:.1f}x with the "
        f"gradient",
        f"- cached, two threads against one: {cv / cv2:.2f}x (value), {cg / cg2:.2f}x (gradient)",
        f"- building the cache (component amplitudes at the data events, the matrix of the "
        f"MC events): {c['build'] * ms:.0f} ms",
        f"- relative difference of F, cached against full: {c['rel']:.1e}", "",
        f"## Whole signal fits ({args.fits} random starts each, one thread)\n",
        *dz.cached_fits_table("cache", fits, 2)]
    write_report("\n".join(lines) + "\n", args.output)


if __name__ == "__main__":
    main()
