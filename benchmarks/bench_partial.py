"""Fits of the D0 -> K- pi+ pi0 example with masses and widths free: the
cached likelihood that recomputes only the components whose parameters
moved, against the full model, in one run.

1. Likelihood value calls (100,000 data + 1,000,000 MC events, float64,
   L = 8, one thread; every parameter of the fit free): the full model; the
   cached path for a step of one coupling, of one width (a new value: its
   component at the data and MC events and one row of the normalization
   matrix), and back to the base point (kept).
2. Whole signal fits with masses and widths released and Minuit's numerical
   gradient (the example's sequence: two MIGRADs and HESSE), with
   ``cache="always"`` and ``cache="never"``, and the full path with the
   analytic gradient, each in a process of its own: wall time, CPU time,
   calls, peak memory, F.

With ``--isobar`` the signal density is the one ``vecampfit.isobar``
generates from ``examples/dz_kmpippiz/isobar_model.py`` (its event buffer
holds the masses and momenta of the pairs, so one component costs a
fraction of the model), else the hand-written one of benchmarks/dz_handwritten (whose
components each compute the kinematics from the momenta again).

Writes ``benchmarks/results/partial.md`` (``partial_isobar.md``)::

    python benchmarks/bench_partial.py [--fits 1] [--isobar]

Uses the samples of ``bench_dz_kmpippiz.py`` (generated if missing).
"""

import argparse
import json
import os
import platform
import subprocess
import sys

from timing import best_time

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLE = os.path.join(HERE, "..", "examples", "dz_kmpippiz")
sys.path.insert(0, EXAMPLE)

import bench_dz_kmpippiz as dz  # noqa: E402

FIT = r"""
import json, sys
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

RELEASE = ["--release-masses", "--release-widths"]


def call_times(directory, repeat, density=()):
    f = dz.build(directory, 8, "float64", 1, [*RELEASE, *density])
    lk = f.likelihood
    x = f.initial_values.copy()
    n = lk.points[0].data_events.n_events + lk.points[0].norm_events.n_events
    free = list(lk.parameters.names)
    lk.cache = "never"
    full = best_time(lambda: lk.evaluate(x, free=free), repeat)
    f_full = lk.evaluate(x, free=free)[0]
    lk.cache = "always"
    lk.evaluate(x, free=free)        # builds the cache
    ev = lk.signal_evaluator(lk.points[0].signal)
    coupling = x.copy()
    coupling[lk.parameter_index("KSTM1_P")] += 0.1
    steps = iter(range(1, 10 ** 6))

    def width_step():
        y = x.copy()
        y[lk.parameter_index("KSTM1_G")] *= 1 + 1e-6 * next(steps)    # a new value each time
        lk.evaluate(y, free=free)

    times = {"coupling": best_time(lambda: lk.evaluate(coupling, free=free), 3 * repeat),
             "width": best_time(width_step, repeat),
             "back": best_time(lambda: lk.evaluate(x, free=free), 3 * repeat)}
    rel = abs(lk.evaluate(x, free=free)[0] / f_full - 1)
    return dict(events=n, full=full, times=times, rel=rel, partial=ev.partial)


def whole_fits(directory, n_fits, density=()):
    out = {}
    for label, cache, extra in (("partial cache, numerical gradient", "always", ["--no-gradient"]),
                                ("full path, numerical gradient", "never", ["--no-gradient"]),
                                ("full path, analytic gradient", "never", [])):
        runs = []
        for k in range(n_fits):
            argv = ["--directory", directory, "--threads", "1", "--seed", str(300 + k),
                    "--no-density-file", *RELEASE, *density, *extra]
            proc = subprocess.run([sys.executable, "-c", FIT.format(benchmarks=HERE, cache=cache,
                                                                     argv=argv)],
                                  capture_output=True, text=True, cwd=EXAMPLE)
            if proc.returncode != 0:
                raise RuntimeError(f"{label}: {proc.stderr[-2000:]}")
            line = [x for x in proc.stdout.splitlines() if x.startswith("BENCH ")][-1]
            runs.append(json.loads(line[6:]))
            print(label, runs[-1], flush=True)
        out[label] = runs
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=int, default=100000)
    ap.add_argument("--mc", type=int, default=1000000)
    ap.add_argument("--fits", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--directory", default=os.path.join(HERE, "results", "dz_samples"))
    ap.add_argument("--isobar", action="store_true",
                    help="the density vecampfit.isobar generates (default: the hand-written one)")
    ap.add_argument("--output", default=None)
    args = ap.parse_args(argv)
    density = ["--isobar"] if args.isobar else []
    if args.output is None:
        args.output = os.path.join(HERE, "results",
                                   "partial_isobar.md" if args.isobar else "partial.md")
    d = args.directory
    if not os.path.exists(os.path.join(d, "mc_signal.root")):
        os.makedirs(d, exist_ok=True)
        dz.generate.main(["--directory", d, "--events", str(args.data), "--mc-events",
                          str(args.mc), "--seed", "1"])
    load = " ".join(f"{v:.2f}" for v in os.getloadavg())
    c = call_times(d, args.repeat, density)
    fits = whole_fits(d, args.fits, density)
    ms = 1e3
    t = c["times"]
    lines = [
        "# D0 -> K- pi+ pi0: fits with masses and widths free\n",
        f"Measured by `python benchmarks/bench_partial.py --fits {args.fits}"
        f"{' --isobar' if args.isobar else ''}` on "
        f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs (shared with "
        f"other work; load average before the run {load}); {c['events']} events (data + MC), "
        f"float64, L = 8, one thread; signal density "
        f"{'generated by vecampfit.isobar' if args.isobar else 'hand-written'}.\n",
        "## Likelihood value call, every parameter free\n",
        "| call | time (ms) | ns per event | full / this |", "|---|---|---|---|",
        f"| full model | {c['full'] * ms:.2f} | {c['full'] / c['events'] * 1e9:.1f} | 1.0 |"]
    for key, label in (("coupling", "cached: a coupling moved"),
                       ("width", "cached: a width moved (new value)"),
                       ("back", "cached: back to the base point")):
        lines.append(f"| {label} | {t[key] * ms:.2f} | {t[key] / c['events'] * 1e9:.1f} | "
                     f"{c['full'] / t[key]:.1f} |")
    lines += ["", f"- relative difference of F, cached against full: {c['rel']:.1e}", "",
              f"## Whole signal fits, masses and widths released ({args.fits} random start(s) "
              f"each)\n",
              "| path | wall time (s) | CPU time (s) | calls | peak memory (MB) | F | valid |",
              "|---|---|---|---|---|---|---|"]
    for label, runs in fits.items():
        for r in runs:
            lines.append(f"| {label} | {r['wall']:.1f} | {r['cpu']:.1f} | {r['calls']} | "
                         f"{r['peak']:.0f} | {r['fval']:.3f} | {r['valid']} |")
    mean = {label: sum(r["wall"] for r in runs) / len(runs) for label, runs in fits.items()}
    lines += ["", f"- numerical gradient, full / partial cache: "
                  f"{mean['full path, numerical gradient'] / mean['partial cache, numerical gradient']:.1f}x",
              f"- analytic gradient (full path) / partial cache with the numerical gradient: "
              f"{mean['full path, analytic gradient'] / mean['partial cache, numerical gradient']:.2f}x",
              ""]
    with open(args.output, "w") as out:
        out.write("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
