"""Pseudoexperiment ensembles in this process and on a dask LocalCluster.

Runs one GenFit3K study (examples/laura_genfit3k) with
:func:`vecampfit.studies.run_study`: each experiment generates a sample of
``--events`` events at Laura++'s generated values with the example's
accept-reject generator (``generate3k.Generator``, the experiment's seed)
and fits it with the example's two-stage sequence and HESSE
(``genfit3k.Setup.fit``, started at the generated values).  The same
``--experiments`` experiments (same seeds) run

1. in this process, one OpenMP thread, and
2. on a ``distributed.LocalCluster`` of ``--workers`` worker processes with
   one OpenMP thread each (:func:`vecampfit.studies.dask_executor`),

alternately, ``--rounds`` times (the best time of each is reported; on a
shared machine the load changes during the run); then once

3. in this process, ``--threads`` OpenMP threads (default: all CPUs).

Starting the cluster and preparing its workers (each builds the grid and
loads the compiled density once, as this process does before its runs) are
timed apart from the study.  The cluster's rows must equal those of run 1
bit for bit (else the benchmark stops).  Writes
``benchmarks/results/studies.md``::

    python benchmarks/bench_studies.py [--experiments 40] [--workers 2]
"""

import argparse
import os
import platform
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLE = os.path.join(HERE, "..", "examples", "laura_genfit3k")
if EXAMPLE not in sys.path:
    sys.path.insert(0, EXAMPLE)

import fit3k  # noqa: E402
import generate3k  # noqa: E402
import genfit3k  # noqa: E402

from vecampfit import studies  # noqa: E402

#: Per process: (vector length, model cache) -> (genfit3k.Setup, generate3k.Generator).
_SETUPS = {}


class GenFit3KExperiment:
    """One GenFit3K pseudoexperiment: generate, fit, keep the results.

    Parameters
    ----------
    events : int
        Events per sample.
    vector_length : int
    model_cache : str or None
        Folder of the compiled density (None: vecampfit's cache).
    """

    def __init__(self, events, vector_length=8, model_cache=None):
        self.events = int(events)
        self.vector_length = int(vector_length)
        self.model_cache = model_cache

    def setup(self):
        """The grid, compiled density and generator of this process (made once)."""
        key = (self.vector_length, self.model_cache)
        if key not in _SETUPS:
            argv = ["--vector-length", str(self.vector_length)]
            if self.model_cache:
                argv += ["--model-cache", self.model_cache]
            args = fit3k.make_parser().parse_args(argv)
            setup = genfit3k.Setup(args, verbose=False)
            gen = generate3k.Generator(setup.records, setup.weights)
            _SETUPS[key] = setup, gen
        return _SETUPS[key]

    def __call__(self, index, seed):
        setup, gen = self.setup()
        m13sq, m23sq = gen.events(self.events, np.random.default_rng(seed))
        r = setup.fit(m13sq, m23sq)
        return {"values": [r["values"][n] for n in setup.names],
                "errors": [r["errors"][n] for n in setup.names], "fval": float(r["fval"]),
                "valid": bool(r["valid"]), "solution": r["solution"], "calls": int(r["calls"]),
                "fit_time": float(r["wall_time"]), "fit_cpu_time": float(r["cpu_time"]),
                "pid": os.getpid()}


def _prepare(experiment):
    t0 = time.perf_counter()
    experiment.setup()
    return time.perf_counter() - t0


def timed_study(experiment, n, seed, executor=None):
    t0 = time.perf_counter()
    table = studies.run_study(experiment, n, seed=seed, executor=executor, progress=False)
    return time.perf_counter() - t0, table


def largest_difference(a, b):
    """Largest |difference| of the fitted values of two tables, in units of the errors."""
    va, vb, e = a.column("values"), b.column("values"), a.column("errors")
    free = e > 0
    return float(np.max(np.abs(va - vb)[free] / e[free]))


def cpu_share(table):
    """Mean CPU time / wall time of the fits (for one thread: the share of a
    core the process got)."""
    return float(np.mean(table.column("fit_cpu_time") / table.column("fit_time")))


def autogroup():
    """The kernel's autogroup scheduling (``/proc/sys/kernel/sched_autogroup_enabled``):
    True, False, or None where it cannot be read."""
    try:
        with open("/proc/sys/kernel/sched_autogroup_enabled") as f:
            return f.read().strip() == "1"
    except OSError:
        return None


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    ap.add_argument("--experiments", type=int, default=40)
    ap.add_argument("--events", type=int, default=5000, help="events per experiment")
    ap.add_argument("--workers", type=int, default=2, help="LocalCluster worker processes")
    ap.add_argument("--rounds", type=int, default=2,
                    help="alternated runs in process (1 thread) and on the cluster; the "
                         "best of each is reported")
    ap.add_argument("--threads", type=int, default=None,
                    help="OpenMP threads of the multithreaded in-process run (default: all CPUs; "
                         "0: no such run)")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--model-cache", default=None)
    ap.add_argument("--output", default=os.path.join(HERE, "results", "studies.md"))
    args = ap.parse_args(argv)
    from vecampfit.fitter.likelihood import available_cpus
    cpus = available_cpus()
    threads = cpus if args.threads is None else args.threads
    load = os.getloadavg()
    experiment = GenFit3KExperiment(args.events, model_cache=args.model_cache)
    n = args.experiments

    # Compile (or load) the density and build the grid once before timing, in
    # this process; the workers do the same before their study.
    t0 = time.perf_counter()
    experiment.setup()
    setup_time = time.perf_counter() - t0

    t0 = time.perf_counter()
    executor = studies.dask_executor(workers=args.workers, threads_per_worker=1)
    t_start = time.perf_counter() - t0
    one_times, dask_times = [], []
    with executor:
        t0 = time.perf_counter()
        worker_setup = executor.client.run(_prepare, experiment)
        t_prepare = time.perf_counter() - t0
        for r in range(args.rounds):
            os.environ["OMP_NUM_THREADS"] = "1"
            t, one = timed_study(experiment, n, args.seed)
            one_times.append((t, one))
            print(f"round {r + 1}: in process, 1 thread: {t:.1f} s "
                  f"(CPU share {cpu_share(one):.2f})", flush=True)
            t, dask = timed_study(experiment, n, args.seed, executor)
            dask_times.append((t, dask))
            print(f"round {r + 1}: LocalCluster, {args.workers} x 1 thread: {t:.1f} s "
                  f"(CPU share per worker {cpu_share(dask):.2f})", flush=True)
            same = all({k: v for k, v in r1.items() if k not in ("time", "fit_time",
                                                                 "fit_cpu_time", "pid")}
                       == {k: v for k, v in r2.items() if k not in ("time", "fit_time",
                                                                    "fit_cpu_time", "pid")}
                       for r1, r2 in zip(one.rows, dask.rows))
            if not same:
                raise AssertionError("the cluster's rows differ from those in process")
    pids = sorted({r["pid"] for _, table in dask_times for r in table.rows})
    # The best round of each, with its table (fit times, CPU share).
    t_one, one = min(one_times, key=lambda x: x[0])
    t_dask, dask = min(dask_times, key=lambda x: x[0])
    many = None
    if threads > 0:
        os.environ["OMP_NUM_THREADS"] = str(threads)
        t_many, many = timed_study(experiment, n, args.seed)
        print(f"in process, {threads} threads: {t_many:.1f} s", flush=True)
    load_after = os.getloadavg()
    valid = sum(bool(r["valid"]) for r in one.ok)
    main_solution = sum(r["solution"] == "main" for r in one.ok)
    listing = ", ".join(f"{t:.1f}" for t, _ in one_times)
    listing_dask = ", ".join(f"{t:.1f}" for t, _ in dask_times)
    lines = [
        "# Pseudoexperiment ensembles: in process and on a dask LocalCluster",
        "",
        f"Measured by `python benchmarks/bench_studies.py --experiments {n} --workers "
        f"{args.workers} --rounds {args.rounds}` on {platform.machine()}, {cpus} CPUs shared "
        f"with other jobs (load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} before the "
        f"run, {load_after[0]:.2f} {load_after[1]:.2f} {load_after[2]:.2f} after it: the "
        f"times are noisy), Python {platform.python_version()}."
        + {True: " The kernel schedules by autogroup (`sched_autogroup_enabled` = 1): the "
                 "CPU is shared out between sessions first, so that the processes of this "
                 "benchmark (this one, the cluster's workers) share one session's part of the "
                 "machine, however many they are, while other sessions are busy.",
           False: " The kernel does not schedule by autogroup: every busy process competes "
                  "for the CPUs on its own.",
           None: ""}[autogroup()],
        "",
        f"Study: {n} GenFit3K pseudoexperiments (examples/laura_genfit3k) through "
        "`vecampfit.studies.run_study`, seed "
        f"{args.seed}: each generates {args.events} events at Laura++'s generated values "
        "(`generate3k.Generator`, accept-reject with the phi(1020) band proposal) and fits "
        "them with Laura++'s two-stage sequence and HESSE (`genfit3k.Setup.fit`, vector length "
        f"8, float64, analytic gradient). {len(one.ok)}/{n} experiments ran, "
        f"{valid} valid fits, {main_solution} on the main solution. The grid and the "
        f"compiled density are made once per process before the study: {setup_time:.1f} s in "
        "this process, "
        + ", ".join(f"{t:.1f} s" for t in worker_setup.values())
        + f" in the {len(worker_setup)} workers at once ({t_prepare:.1f} s wall).",
        "",
        f"The in-process run (one thread) and the cluster's run alternate, {args.rounds} "
        "rounds; the table has the best round of each (all: in process "
        f"{listing} s; cluster {listing_dask} s). CPU share: the fits' CPU time over "
        "their wall time, i.e. the part of a core each single-threaded process got.",
        "",
        "| run | wall time (s) | per experiment (s) | mean fit time (s) | CPU share |",
        "|---|---|---|---|---|",
        f"| in process, 1 thread | {t_one:.1f} | {t_one / n:.2f} | "
        f"{np.mean(one.column('fit_time')):.2f} | {cpu_share(one):.2f} |",
        f"| LocalCluster, {args.workers} workers x 1 thread | "
        f"{t_dask:.1f} | {t_dask / n:.2f} | {np.mean(dask.column('fit_time')):.2f} | "
        f"{cpu_share(dask):.2f} per worker |",
    ]
    if many is not None:
        lines.append(f"| in process, {threads} OpenMP threads (once, after the rounds) | "
                     f"{t_many:.1f} | {t_many / n:.2f} | "
                     f"{np.mean(many.column('fit_time')):.2f} | {cpu_share(many):.2f} (all threads) |")
    lines += [
        f"| starting the cluster | {t_start:.1f} | | | |",
        f"| preparing its workers (grid, density) | {t_prepare:.1f} | | | |",
        "",
        f"Ratio in process (1 thread) / LocalCluster: {t_one / t_dask:.2f} (above 1: the "
        "cluster is faster)"
        + (f"; {threads} OpenMP threads in process / LocalCluster: {t_many / t_dask:.2f}"
           if many is not None else "")
        + f". Counting the cluster's start and the preparation of its workers (once per "
        f"cluster, not per experiment; this process's own preparation not counted): "
        f"{t_one / (t_start + t_prepare + t_dask):.2f}.",
        "",
        f"The cluster's rows are bit for bit those of the one-thread run in process in every "
        f"round (same seeds; {len(pids)} worker processes ran them).",
    ]
    if many is not None:
        diff = largest_difference(one, many)
        lines.append(f"With {threads} threads in process the largest difference of the fitted "
                     f"values from the one-thread run is {diff:.1e} of their errors"
                     + (" (identical)." if diff == 0 else
                        " (the likelihood's sums are added in another order)."))
    text = "\n".join(lines) + "\n"
    with open(args.output, "w") as f:
        f.write(text)
    print(text)


if __name__ == "__main__":
    # The workers import this module by name (not as __main__) to run the
    # experiments, and keep their grid in its _SETUPS.
    sys.path.insert(0, HERE)
    import bench_studies
    bench_studies.main()
