"""The paper's performance study (section 9.1) for the D0 -> K- pi+ pi0 example.

1. Likelihood-call time (paper's table tab:vector_length): ns per event per
   call with 1,000,000 MC and 100,000 data events, float64 and float32,
   every L, one thread; at two threads for the best L; with the gradient;
   and the numpy form of the same density through the same fitter.
2. Whole fits (paper's table tab:vecampfit_tfa2): wall time, CPU time and
   peak memory of fits with free amplitudes and phases, then also masses,
   then also widths, with and without the analytic gradient, each fit in a
   process of its own.

Writes ``benchmarks/results/dz_kmpippiz.md`` (the README links to it)::

    python benchmarks/bench_dz_kmpippiz.py [--data 100000] [--mc 1000000] [--fits 3]

Samples are generated once into ``--directory`` (default
``benchmarks/results/dz_samples``) and reused.  Times are the best of
``--repeat`` calls; the machine's load is printed with the results.
"""

import argparse
import json
import os
import platform
import subprocess
import sys

import numpy as np

from timing import best_time  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLE = os.path.join(HERE, "..", "examples", "dz_kmpippiz")
sys.path.insert(0, EXAMPLE)

import common  # noqa: E402
import fit_signal  # noqa: E402
import generate  # noqa: E402


def fit_args(directory, L, precision, threads, extra=()):
    p = common.add_fit_options(common.parser("benchmark"))
    for a in ("--pseudoexperiment",):
        p.add_argument(a, type=int, default=-1)
    p.add_argument("--grid-integration", type=int, default=0)
    for flag in ("--weighted-mc", "--numpy", "--no-background", "--release-masses",
                 "--release-widths", "--quiet", "--isobar"):
        p.add_argument(flag, action="store_true")
    return p.parse_args(["--directory", directory, "--vector-length", str(L), "--precision",
                         precision, "--threads", str(threads), "--fixed-seed", "--quiet",
                         *extra])


def call_times(directory, lengths, repeat, n_events):
    rows = []
    for precision in ("float64", "float32"):
        per_l = {}
        for L in lengths:
            f = fit_signal.build(fit_args(directory, L, precision, 1))
            x = f.initial_values
            f.likelihood.evaluate(x)
            tv = best_time(lambda: f.likelihood.evaluate(x), repeat) / n_events * 1e9
            tg = best_time(lambda: f.likelihood.evaluate(x, gradient=True), max(1, repeat // 2)) / n_events * 1e9
            per_l[L] = (tv, tg)
            print(f"{precision} L={L}: {tv:.2f} ns, gradient {tg:.2f} ns", flush=True)
        best = min(per_l, key=lambda L: per_l[L][0])
        # One and two threads at the best L: the same likelihood (the same
        # event buffers in memory), its thread count switched between calls
        # timed alternately, so that both see the same state of the machine.
        f = fit_signal.build(fit_args(directory, best, precision, 1))
        x = f.initial_values
        f.likelihood.evaluate(x)
        cases = (("1", 1, False), ("2", 2, False), ("1g", 1, True), ("2g", 2, True))
        t = dict.fromkeys((c[0] for c in cases), np.inf)
        for _ in range(2 * repeat):
            for label, threads, g in cases:
                f.likelihood.threads = threads
                t[label] = min(t[label], best_time(lambda: f.likelihood.evaluate(x, gradient=g), 1)
                               / n_events * 1e9)
        t1, t2, t1g, t2g = t["1"], t["2"], t["1g"], t["2g"]
        fn = fit_signal.build(fit_args(directory, 8, precision, 1, ["--numpy"]))
        tn = best_time(lambda: fn.likelihood.evaluate(x), max(1, repeat // 2)) / n_events * 1e9
        rows.append(dict(precision=precision, per_l=per_l, best=best, one_thread=t1,
                         two_threads=t2, one_thread_gradient=t1g, two_threads_gradient=t2g,
                         numpy=tn))
        print(f"{precision}: at L={best}, 1 thread {t1:.2f} ns, 2 threads {t2:.2f} ns; "
              f"numpy {tn:.2f} ns", flush=True)
    return rows


FIT_CASES = [("amplitudes and phases", []), ("+ masses", ["--release-masses"]),
             ("+ masses and widths", ["--release-masses", "--release-widths"])]

# Peak memory is the process's own high-water mark (VmHWM): ru_maxrss of a
# child started by this (large) process would report this process's size.
FIT_SCRIPT = """
import resource, sys, time
sys.argv = ["fit_signal.py"] + {argv!r}
sys.path.insert(0, {example!r})
import fit_signal
t0, c0 = time.perf_counter(), time.process_time()
f = fit_signal.main()
try:
    with open("/proc/self/status") as status:
        peak = [int(l.split()[1]) / 1024 for l in status if l.startswith("VmHWM:")][0]
except (OSError, IndexError):
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print("BENCH", time.perf_counter() - t0, time.process_time() - c0, peak, f.likelihood.n_calls,
      int(f.minuit.valid))
"""


def whole_fits(directory, n_fits, L, threads):
    results = []
    for label, extra in FIT_CASES:
        for gradient in (True, False):
            runs = []
            for k in range(n_fits):
                argv = ["--directory", directory, "--vector-length", str(L), "--threads",
                        str(threads), "--seed", str(100 + k), "--no-density-file", *extra]
                if not gradient:
                    argv.append("--no-gradient")
                # From the example's folder: the installed vecampfit is imported,
                # not the source tree of the current directory.
                out = subprocess.run([sys.executable, "-c",
                                      FIT_SCRIPT.format(argv=argv, example=EXAMPLE)],
                                     capture_output=True, text=True, cwd=EXAMPLE)
                line = [s for s in out.stdout.splitlines() if s.startswith("BENCH")]
                if out.returncode != 0 or not line:
                    print(out.stdout[-2000:], out.stderr[-2000:])
                    raise RuntimeError(f"fit failed: {label}, gradient={gradient}")
                wall, cpu, mem, calls, valid = line[0].split()[1:]
                runs.append((float(wall), float(cpu), float(mem), int(calls), int(valid)))
                print(f"{label}, gradient={gradient}, fit {k}: {float(wall):.1f} s wall, "
                      f"{float(cpu):.1f} s CPU, {float(mem):.0f} MB, {calls} calls", flush=True)
            a = np.array(runs)
            results.append(dict(case=label, gradient=gradient, wall=a[:, 0].mean(),
                                cpu=a[:, 1].mean(), memory=a[:, 2].max(), calls=a[:, 3].mean(),
                                valid=int(a[:, 4].sum()), n=len(runs)))
    return results


def markdown(args, calls, fits, load):
    from vecampfit.fitter._dispatch import target as kernel_target
    lines = ["# D0 -> K- pi+ pi0: performance", "",
             f"Measured by `python benchmarks/bench_dz_kmpippiz.py --data {args.data} --mc "
             f"{args.mc} --fits {args.fits}` on {platform.processor() or platform.machine()}, "
             f"{os.cpu_count()} CPUs, load average before the run {load}, likelihood "
             f"kernels {kernel_target}. "
             f"Times per event per likelihood call ({args.data} data + {args.mc} MC events, "
             f"best of {args.repeat} calls).", ""]
    for row in calls:
        lines += [f"## Likelihood call, {row['precision']}", "",
                  "| L | ns/event/call | ratio to L=1 | with gradient |", "|---|---|---|---|"]
        t1 = row["per_l"][min(row["per_l"])][0]
        for L, (tv, tg) in sorted(row["per_l"].items()):
            lines.append(f"| {L} | {tv:.2f} | {t1 / tv:.2f} | {tg:.2f} |")
        b = row["best"]
        tb = row["per_l"][b][0]
        lines += ["", f"- preferred L = {b}: scalar (L=1) {t1:.2f} ns, vector {tb:.2f} ns, "
                      f"ratio {t1 / tb:.2f}",
                  f"- two threads at L = {b} (timed alternately with one thread): "
                  f"{row['two_threads']:.2f} ns against {row['one_thread']:.2f} ns, "
                  f"{row['one_thread'] / row['two_threads']:.2f}x; with gradient "
                  f"{row['two_threads_gradient']:.2f} ns against "
                  f"{row['one_thread_gradient']:.2f} ns, "
                  f"{row['one_thread_gradient'] / row['two_threads_gradient']:.2f}x",
                  f"- numpy form of the same density through the same fitter: "
                  f"{row['numpy']:.2f} ns ({row['numpy'] / tb:.1f}x the Cython density)", ""]
    if fits:
        lines += [f"## Whole fits ({fits[0]['n']} fits each, L = {args.fit_length}, "
                  f"{args.fit_threads} thread(s), float64, MC normalization)", "",
                  "| free parameters | gradient | wall time (s) | CPU time (s) | peak memory (MB) "
                  "| likelihood calls | valid |", "|---|---|---|---|---|---|---|"]
        for r in fits:
            lines.append(f"| {r['case']} | {'analytic' if r['gradient'] else 'numerical'} | "
                         f"{r['wall']:.1f} | {r['cpu']:.1f} | {r['memory']:.0f} | "
                         f"{r['calls']:.0f} | {r['valid']}/{r['n']} |")
    return "\n".join(lines) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=int, default=100000)
    ap.add_argument("--mc", type=int, default=1000000)
    ap.add_argument("--fits", type=int, default=3, help="fits per case (0: no whole fits)")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--lengths", default="1,2,4,8,16,32,64")
    ap.add_argument("--fit-length", type=int, default=8)
    ap.add_argument("--fit-threads", type=int, default=1)
    ap.add_argument("--directory", default=os.path.join(HERE, "results", "dz_samples"))
    ap.add_argument("--output", default=os.path.join(HERE, "results", "dz_kmpippiz.md"))
    args = ap.parse_args(argv)
    load = " ".join(f"{v:.2f}" for v in os.getloadavg())
    d = args.directory
    stamp = os.path.join(d, "samples.json")
    want = dict(data=args.data, mc=args.mc)
    if not (os.path.exists(stamp) and json.load(open(stamp)) == want):
        os.makedirs(d, exist_ok=True)
        generate.main(["--directory", d, "--events", str(args.data), "--mc-events", str(args.mc),
                       "--background-events", str(args.data), "--seed", "7"])
        import fit_background
        fit_background.main(["--directory", d, "--fixed-seed"])
        json.dump(want, open(stamp, "w"))
    lengths = [int(v) for v in args.lengths.split(",")]
    calls = call_times(d, lengths, args.repeat, args.data + args.mc)
    fits = whole_fits(d, args.fits, args.fit_length, args.fit_threads) if args.fits else []
    text = markdown(args, calls, fits, load)
    os.makedirs(os.path.dirname(args.output), exist_ok=True)
    with open(args.output, "w") as f:
        f.write(text)
    print(text)


if __name__ == "__main__":
    main()
