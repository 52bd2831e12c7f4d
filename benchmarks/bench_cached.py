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

import argparse
import json
import os
import platform
import subprocess
import sys
import time

import numpy as np

from timing import best_time

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLE = os.path.join(HERE, "..", "examples", "dz_kmpippiz")
sys.path.insert(0, EXAMPLE)

import bench_dz_kmpippiz as dz  # noqa: E402

FIT = r"""
import json, sys, time
sys.path.insert(0, {benchmarks!r})
import bench_dz_kmpippiz
from vecampfit.fitter import Likelihood
cache = {cache!r}
original = Likelihood.__init__
def init(self, *args, **kw):
    kw["cache"] = cache
    original(self, *args, **kw)
Likelihood.__init__ = init
f = bench_dz_kmpippiz.fit({argv!r})
with open("/proc/self/status") as status:
    peak = [int(l.split()[1]) / 1024 for l in status if l.startswith("VmHWM:")][0]
print("BENCH", json.dumps(dict(wall=f.wall_time, cpu=f.cpu_time, calls=f.likelihood.n_calls, peak=peak,
                               valid=bool(f.minuit.valid), fval=f.minuit.fval)))
"""


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


def whole_fits(directory, n_fits):
    out = {}
    for cache in ("auto", "never"):
        runs = []
        for k in range(n_fits):
            argv = ["--directory", directory, "--threads", "1", "--seed", str(200 + k),
                    "--no-density-file"]
            proc = subprocess.run([sys.executable, "-c", FIT.format(benchmarks=HERE, cache=cache,
                                                                     argv=argv)],
                                  capture_output=True, text=True, check=True, cwd=EXAMPLE)
            line = [x for x in proc.stdout.splitlines() if x.startswith("BENCH ")][-1]
            runs.append(json.loads(line[6:]))
            print(cache, runs[-1], flush=True)
        out[cache] = runs
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=int, default=100000)
    ap.add_argument("--mc", type=int, default=1000000)
    ap.add_argument("--fits", type=int, default=3)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--directory", default=os.path.join(HERE, "results", "dz_samples"))
    ap.add_argument("--output", default=os.path.join(HERE, "results", "cached.md"))
    args = ap.parse_args(argv)
    d = args.directory
    if not os.path.exists(os.path.join(d, "mc_signal.root")):
        os.makedirs(d, exist_ok=True)
        dz.generate.main(["--directory", d, "--events", str(args.data), "--mc-events",
                          str(args.mc), "--seed", "1"])
    load = " ".join(f"{v:.2f}" for v in os.getloadavg())
    c = call_times(d, args.repeat)
    fits = whole_fits(d, args.fits)
    ms = 1e3
    (fv, fg), (cv, cg), (cv2, cg2) = c["full"], c["cached"][1], c["cached"][2]
    lines = [
        "# D0 -> K- pi+ pi0: cached fits\n",
        f"Measured by `python benchmarks/bench_cached.py --fits {args.fits}` on "
        f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, load average "
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
        "| cache | wall time (s) | CPU time (s) | calls | peak memory (MB) | valid |",
        "|---|---|---|---|---|---|"]
    for cache, runs in fits.items():
        for r in runs:
            lines.append(f"| {cache} | {r['wall']:.2f} | {r['cpu']:.2f} | {r['calls']} | "
                         f"{r['peak']:.0f} | {r['valid']} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.output:
        with open(args.output, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
