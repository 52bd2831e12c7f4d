"""Pseudoexperiment ensembles in this process and on a dask LocalCluster.

Runs one GenFit3K study (examples/laura_genfit3k) with
:func:`vecampfit.studies.run_study`: each experiment generates a sample of
``--events`` events at Laura++'s generated values with the example's
accept-reject generator (``generate3k.Generator``, the experiment's seed)
and fits it with the example's two-stage sequence and HESSE
(``fit3k.fit_one``, started at the generated values).  The same
``--experiments`` experiments (same seeds) run

1. in this process, one OpenMP thread;
2. in this process, ``--threads`` OpenMP threads (default: all CPUs);
3. on a ``distributed.LocalCluster`` of ``--workers`` worker processes with
   one OpenMP thread each (:func:`vecampfit.studies.dask_executor`).
   Starting the cluster and preparing the workers (each builds the grid
   and loads the compiled density once, as this process did before its
   runs) are timed apart from the study.

and the fitted values of the three runs are compared.  Writes
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

#: Per process: (vector length, model cache) -> (fit3k.Setup, generate3k.Generator).
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
            setup = fit3k.Setup(args, verbose=False)
            gen = generate3k.Generator(setup.masses, setup.records, setup.weights)
            _SETUPS[key] = setup, gen
        return _SETUPS[key]

    def __call__(self, index, seed):
        setup, gen = self.setup()
        m13sq, m23sq = gen.events(self.events, np.random.default_rng(seed))
        r = fit3k.fit_one(setup, m13sq, m23sq)
        return {"values": r["values"], "errors": r["errors"], "fval": float(r["fval"]),
                "valid": bool(r["valid"]), "solution": r["solution"], "calls": int(r["calls"]),
                "fit_time": float(r["wall_time"]), "pid": os.getpid()}


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


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    ap.add_argument("--experiments", type=int, default=40)
    ap.add_argument("--events", type=int, default=5000, help="events per experiment")
    ap.add_argument("--workers", type=int, default=2, help="LocalCluster worker processes")
    ap.add_argument("--threads", type=int, default=None,
                    help="OpenMP threads of the multithreaded in-process run (default: all CPUs)")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--model-cache", default=None)
    ap.add_argument("--output", default=os.path.join(HERE, "results", "studies.md"))
    args = ap.parse_args(argv)
    from vecampfit.fitter.likelihood import available_cpus
    cpus = available_cpus()
    threads = args.threads or cpus
    load = os.getloadavg()
    experiment = GenFit3KExperiment(args.events, model_cache=args.model_cache)
    n = args.experiments

    # Compile (or load) the density and build the grid once before timing, in
    # this process; the workers do it in their first experiment.
    t0 = time.perf_counter()
    experiment.setup()
    setup_time = time.perf_counter() - t0

    os.environ["OMP_NUM_THREADS"] = "1"
    t_one, one = timed_study(experiment, n, args.seed)
    print(f"in process, 1 thread: {t_one:.1f} s", flush=True)
    os.environ["OMP_NUM_THREADS"] = str(threads)
    t_many, many = timed_study(experiment, n, args.seed)
    print(f"in process, {threads} threads: {t_many:.1f} s", flush=True)

    t0 = time.perf_counter()
    executor = studies.dask_executor(workers=args.workers, threads_per_worker=1)
    t_start = time.perf_counter() - t0
    with executor:
        t0 = time.perf_counter()
        worker_setup = executor.client.run(_prepare, experiment)
        t_prepare = time.perf_counter() - t0
        t_dask, dask = timed_study(experiment, n, args.seed, executor)
    t_dask_total = t_start + t_prepare + t_dask
    print(f"LocalCluster, {args.workers} x 1 thread: {t_dask:.1f} s (start {t_start:.1f} s, "
          f"workers prepared in {t_prepare:.1f} s)", flush=True)

    same = all(r1["values"] == r2["values"] for r1, r2 in zip(one.rows, dask.rows))
    diff_threads = largest_difference(one, many)
    pids = sorted({r["pid"] for r in dask.rows})
    fit_one = np.mean(one.column("fit_time"))
    fit_dask = np.mean(dask.column("fit_time"))
    valid = sum(bool(r["valid"]) for r in one.ok)
    main_solution = sum(r["solution"] == "main" for r in one.ok)
    lines = [
        "# Pseudoexperiment ensembles: in process and on a dask LocalCluster",
        "",
        f"Measured by `python benchmarks/bench_studies.py --experiments {n} --workers "
        f"{args.workers}` on {platform.machine()}, {cpus} CPUs shared with other jobs "
        f"(load average before the run {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; the "
        "times are noisy), Python "
        f"{platform.python_version()}.",
        "",
        f"Study: {n} GenFit3K pseudoexperiments (examples/laura_genfit3k) through "
        "`vecampfit.studies.run_study`, seed "
        f"{args.seed}: each generates {args.events} events at Laura++'s generated values "
        "(`generate3k.Generator`, accept-reject with the phi(1020) band proposal) and fits "
        "them with Laura++'s two-stage sequence and HESSE (`fit3k.fit_one`, vector length "
        f"8, float64, analytic gradient). {len(one.ok)}/{n} experiments ran, "
        f"{valid} valid fits, {main_solution} on the main solution. The grid and the "
        f"compiled density are made once per process before the study: {setup_time:.1f} s in "
        "this process, "
        + ", ".join(f"{t:.1f} s" for t in worker_setup.values())
        + f" in the {len(worker_setup)} workers at once ({t_prepare:.1f} s wall).",
        "",
        "| run | wall time (s) | per experiment (s) | mean fit time (s) |",
        "|---|---|---|---|",
        f"| in process, 1 thread | {t_one:.1f} | {t_one / n:.2f} | {fit_one:.2f} |",
        f"| in process, {threads} OpenMP threads | {t_many:.1f} | {t_many / n:.2f} | "
        f"{np.mean(many.column('fit_time')):.2f} |",
        f"| LocalCluster, {args.workers} workers x 1 thread | "
        f"{t_dask:.1f} | {t_dask / n:.2f} | {fit_dask:.2f} |",
        f"| starting the cluster | {t_start:.1f} | | |",
        f"| preparing its workers (grid, density) | {t_prepare:.1f} | | |",
        "",
        f"Speed-up of the study on the LocalCluster over one thread in process: "
        f"{t_one / t_dask:.2f}; over {threads} OpenMP threads in process: "
        f"{t_many / t_dask:.2f}. Counting the cluster's start and the preparation of its "
        f"workers (once per cluster, not per experiment; this process's own preparation not "
        f"counted): {t_one / t_dask_total:.2f} over one thread.",
        "",
        f"The cluster's rows are {'bit for bit' if same else 'NOT'} those of the one-thread "
        f"run in process (same seeds; {len(pids)} worker processes ran them). With "
        f"{threads} threads in process the largest difference of the fitted values from the "
        f"one-thread run is {diff_threads:.1e} of their errors"
        + (" (identical)." if diff_threads == 0 else
           " (the likelihood's sums are added in another order)."),
        "",
    ]
    text = "\n".join(lines)
    with open(args.output, "w") as f:
        f.write(text)
    print(text)


if __name__ == "__main__":
    # The workers import this module by name (not as __main__) to run the
    # experiments, and keep their grid in its _SETUPS.
    sys.path.insert(0, HERE)
    import bench_studies
    bench_studies.main()
