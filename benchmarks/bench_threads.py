"""Two OpenMP threads against one, by wait policy, in one run.

The D0 -> K- pi+ pi0 isobar model of the example (``isobar_model.build()``),
100,000 data and 1,000,000 normalization events (phase space), the
likelihood's value call on the full path (``cache="never"``) and on the
cached path (couplings free, ``cache="always"``).  Between two calls the
main thread runs Python for a while (``--gaps``): 10 microseconds, about
what Minuit leaves between the calls of a MIGRAD fit of this model, and 1
ms, longer than an idle thread of the library's default spins, so that it
sleeps between calls.  The script also times short MIGRAD fits of the
model at one and two threads (``--fits``), with the calls inside them and
the time between them.

Each configuration runs in its own process (the OpenMP runtime reads its
environment once): the library's default (``OMP_WAIT_POLICY`` and
``GOMP_SPINCOUNT`` unset, so vecampfit sets a spin of about 0.2 ms,
:mod:`vecampfit._openmp`; ``thread_policy="share"``), idle threads that
sleep at once (``OMP_WAIT_POLICY=passive``), the default with
``thread_policy="fixed"`` (every call uses the threads asked for, however
busy the cores), and the OpenMP runtime's own spinning forced by
``OMP_WAIT_POLICY=active`` (the thread policy then leaves the threads as
asked).  Optionally a second process spins on one core during the
measurement (``--busy``).  Writes ``benchmarks/results/threads.md``::

    python benchmarks/bench_threads.py [--repeat 15] [--busy] [--gaps 1e-5,1e-3] [--fits 3]
"""

import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
CHILD = r"""
import json, sys, time, statistics
import numpy as np
from bench_isobar import dz_isobar_model, phase_space_records
from vecampfit.fitter import Likelihood
model = dz_isobar_model()
compiled = model.compile((8,))
data, mc = phase_space_records(model, 100_000, 1), phase_space_records(model, 1_000_000, 2)
repeat = int(sys.argv[1])
thread_policy = sys.argv[2]
gap = float(sys.argv[3])
import vecampfit._openmp
out = {"wait": list(vecampfit._openmp.WAIT)}
# One likelihood per path, its threads switched between 1 and 2 every RUN
# calls, so that both see the same state of the host and the same events
# (the cached path's stored amplitudes stay in the caches, as in a fit).
RUN = 5
for cache in ("never", "always"):
    table = model.parameter_table()
    lk = Likelihood(table, threads=1, cache=cache, thread_policy=thread_policy)
    point = lk.add_point(compiled.density("float64", 8))
    point.add_data(data)
    point.add_normalization_events(mc)
    free = [n for n in table.names if n.endswith(("_A", "_P"))] if cache == "always" else None
    x0 = np.array([p.value for p in table])
    cost = lk.restricted(free) if free else lk
    cost(x0)
    times = {1: [], 2: []}
    for r in range(2 * repeat):
        threads = 1 + (r // RUN) % 2
        lk.threads = threads
        x = x0.copy()
        x[list(table.names).index(free[0] if free else table.names[0])] *= 1 + 1e-6 * (r + 1)
        t0 = time.perf_counter()
        cost(x)
        times[threads].append(time.perf_counter() - t0)
        # Python between calls, as Minuit's
        t1 = time.perf_counter()
        s = 0
        while time.perf_counter() - t1 < gap:
            s += 1
    for threads in (1, 2):
        out[f"{cache}-{threads}"] = statistics.median(times[threads])
    if cache == "never":
        out["fields"] = len(lk.points[0].signal.event_fields)
# The memory bandwidth one and two threads reach: numpy sums (which release the
# GIL) over as many bytes as the full call's event buffers, in one and two pieces.
import threading
stream = np.ones(out["fields"] * (len(data[next(iter(data))]) + len(mc[next(iter(mc))])))
for k in (1, 2):
    parts = np.array_split(stream, k)
    times = []
    for r in range(repeat):
        threads = [threading.Thread(target=q.sum) for q in parts]
        t0 = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        times.append(time.perf_counter() - t0)
    out[f"stream-{k}"] = stream.nbytes / statistics.median(times)
print(json.dumps(out))
"""


FIT = r"""
import json, statistics, sys, time
import numpy as np
from bench_isobar import dz_isobar_model, phase_space_records
from vecampfit.fitter import Fitter, Likelihood
model = dz_isobar_model()
compiled = model.compile((8,))
data, mc = phase_space_records(model, 100_000, 1), phase_space_records(model, 1_000_000, 2)
rounds = int(sys.argv[1])
out = {}
for path in ("full", "cached"):
    fits = {1: [], 2: []}
    for r in range(2 * rounds):
        threads = 1 + r % 2
        table = model.parameter_table()
        lk = Likelihood(table, threads=threads)
        point = lk.add_point(compiled.density("float64", 8))
        point.add_data(data)
        point.add_normalization_events(mc)
        stamps = []
        evaluate = lk._evaluate

        def timed(*args, evaluate=evaluate, stamps=stamps):
            t0 = time.perf_counter()
            try:
                return evaluate(*args)
            finally:
                stamps.append((t0, time.perf_counter()))

        lk._evaluate = timed
        fitter = Fitter(lk, seed=3, randomize=False)
        names = list(table.names)
        fitter.fix_all()
        # the couplings (the first component's fixed), and for the full path
        # the masses and widths of three resonances
        fitter.release(*[n for n in names
                         if n.endswith(("_A", "_P")) and not n.startswith("RHOP1")])
        if path == "full":
            fitter.release(*[n for n in names if n.endswith(("_M", "_G"))
                             and n[:5] in ("RHOP1", "KSTM1", "KSTZ1")])
        t0 = time.perf_counter()
        fitter.migrad(ncall=150, iterate=1)
        fits[threads].append((time.perf_counter() - t0,
                              statistics.median(b - a for a, b in stamps), len(stamps)))
        if threads == 2:
            gaps = [b[0] - a[1] for a, b in zip(stamps, stamps[1:])]
    out[path] = {"gaps": [float(v) for v in np.percentile(gaps, [10, 50, 90])],
                 "calls": fits[2][0][2],
                 "fit": [statistics.median(f[0] for f in fits[k]) for k in (1, 2)],
                 "call": [statistics.median(f[1] for f in fits[k]) for k in (1, 2)]}
print(json.dumps(out))
"""


def spinner(seconds):
    end = time.time() + seconds
    while time.time() < end:
        pass


def run(policy, repeat, thread_policy, gap):
    env = dict(os.environ)
    env.pop("OMP_WAIT_POLICY", None)
    env.pop("GOMP_SPINCOUNT", None)
    if policy:
        env["OMP_WAIT_POLICY"] = policy
    # From this folder, whose modules the script imports.
    proc = subprocess.run([sys.executable, "-c", CHILD, str(repeat), thread_policy, repr(gap)],
                          env=env, capture_output=True, text=True, check=True, cwd=HERE)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def fits(policy, rounds):
    env = dict(os.environ)
    env.pop("OMP_WAIT_POLICY", None)
    env.pop("GOMP_SPINCOUNT", None)
    if policy:
        env["OMP_WAIT_POLICY"] = policy
    proc = subprocess.run([sys.executable, "-c", FIT, str(rounds)], env=env,
                          capture_output=True, text=True, check=True, cwd=HERE)
    return json.loads(proc.stdout.strip().splitlines()[-1])


CONFIGURATIONS = (
    ("library default (spin 0.2 ms, share)", None, "share"),
    ("OMP_WAIT_POLICY=passive (share)", "passive", "share"),
    ("library default, thread_policy=\"fixed\"", None, "fixed"),
    ("OMP_WAIT_POLICY=active", "active", "share"),
)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--repeat", type=int, default=15)
    p.add_argument("--busy", action="store_true", help="a second process spins on one core")
    p.add_argument("--gaps", default="1e-5,1e-3",
                   help="seconds of Python between calls, comma-separated")
    p.add_argument("--fits", type=int, default=3, metavar="ROUNDS",
                   help="MIGRAD fits per path and thread count (0: none), the library's "
                        "default and passive")
    p.add_argument("--output", default=os.path.join(HERE, "results", "threads.md"))
    args = p.parse_args(argv)
    gaps = [float(g) for g in args.gaps.split(",")]
    sys.path.insert(0, HERE)
    from timing import cpu_description, load_average, write_report
    busy = None
    if args.busy:
        import multiprocessing
        busy = multiprocessing.Process(target=spinner, args=(3600,), daemon=True)
        busy.start()
    load = load_average()
    try:
        measured = {label: fits(policy, args.fits) for label, policy in
                    (("library default", None), ("OMP_WAIT_POLICY=passive", "passive"))} \
            if args.fits else None
        results = {(label, gap): run(policy, args.repeat, thread_policy, gap)
                   for gap in gaps for label, policy, thread_policy in CONFIGURATIONS}
    finally:
        if busy is not None:
            busy.terminate()
    n = 1_100_000
    command = (f"python benchmarks/bench_threads.py --repeat {args.repeat}"
               f"{' --busy' if args.busy else ''} --gaps {args.gaps}")
    lines = ["# Two threads against one, by OpenMP wait policy and thread policy", "",
             f"`{command}` on {cpu_description()}; load average before the run {load}"
             f"{'; a second process spinning on one core' if args.busy else ''}.  D0 -> K- pi+ pi0 "
             "isobar model, 100,000 data + 1,000,000 normalization events, float64, L = 8; "
             "medians of the likelihood's value calls; one likelihood per path, switched "
             "between one and two threads every 5 calls.", ""]
    if measured:
        lines += ["Short MIGRAD fits of this model (150 calls at most, the couplings free but "
                  "the first component's, and on the full path the masses and widths of "
                  "rho(770), K*(892)- and K*(892)0; two threads against one, alternately, "
                  f"{args.fits} fits each, medians):", "",
                  "| wait | path | calls | time between calls (10/50/90 %, us) | "
                  "call, 1 thread (ms) | call, 2 threads (ms) | speed-up | fit, 1 thread (s) | "
                  "fit, 2 threads (s) | speed-up |", "|---|---|---|---|---|---|---|---|---|---|"]
        for label, paths in measured.items():
            for path, m in paths.items():
                g, c, f = m["gaps"], m["call"], m["fit"]
                lines.append(f"| {label} | {path} | {m['calls']} | {g[0] * 1e6:.1f} / "
                             f"{g[1] * 1e6:.1f} / {g[2] * 1e6:.1f} | {c[0] * 1e3:.3f} | "
                             f"{c[1] * 1e3:.3f} | {c[0] / c[1]:.2f}x | {f[0]:.3f} | {f[1]:.3f} | "
                             f"{f[0] / f[1]:.2f}x |")
        lines.append("")
    wait = results[next(iter(results))]["wait"]
    lines += [f"The library's default here: idle threads {wait[0]}"
              + (f" for {wait[1] * 1e3:.2f} ms" if wait[0] == "spin" else "") + ".", "",
              "| Python between calls | configuration | path | 1 thread (ns/event) | "
              "2 threads (ns/event) | speed-up |",
              "|---|---|---|---|---|---|"]
    for (label, gap), r in results.items():
        for cache, path in (("never", "full"), ("always", "cached")):
            t1, t2 = r[f"{cache}-1"], r[f"{cache}-2"]
            lines.append(f"| {gap * 1e6:g} us | {label} | {path} | {t1 / n * 1e9:.2f} | "
                         f"{t2 / n * 1e9:.2f} | {t1 / t2:.2f}x |")
    lines.append("")
    for (label, gap), r in results.items():
        lines.append(f"- {label}, {gap * 1e6:g} us: the full call streams {r['fields'] * 8} "
                     f"bytes per event ({r['fields']} float64 fields); numpy sums over as many "
                     f"bytes reach {r['stream-1'] / 1e9:.1f} GB/s in one thread and "
                     f"{r['stream-2'] / 1e9:.1f} GB/s in two "
                     f"({r['stream-2'] / r['stream-1']:.2f}x), the full call "
                     f"{r['fields'] * 8 / (r['never-1'] / n) / 1e9:.1f} and "
                     f"{r['fields'] * 8 / (r['never-2'] / n) / 1e9:.1f} GB/s.")
    write_report("\n".join(lines) + "\n", args.output)


if __name__ == "__main__":
    main()
