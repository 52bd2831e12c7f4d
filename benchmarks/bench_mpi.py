"""One D0 -> K- pi+ pi0 likelihood over MPI ranks: call times, whole fits and
the communication per call.

The likelihood of ``examples/dz_kmpippiz`` (100,000 data + 1,000,000 MC
events, the background of the background fit, float64, L = 8, the full
model at every call: ``cache="never"``) is built in three configurations, in
one run: 1 rank with 1 thread, 2 ranks with 1 thread each (``mpiexec -n
2``), 1 rank with 2 threads.  For each: the time of a call (value, value and
gradient; best of ``--repeat``, rank 0 driving inside
:func:`vecampfit.fitter.mpi.serve`), a whole fit (amplitudes, then phases and
the background fraction, with the analytic gradient), and the cost of the
communication of a call (the same broadcasts and gathers with the rows of
partial sums of a call, nothing computed).  Writes
``benchmarks/results/mpi.md``::

    python benchmarks/bench_mpi.py [--data 100000] [--mc 1000000] [--repeat 7]

Samples are generated once into ``--directory`` (default
``benchmarks/results/dz_samples``, shared with the other D0 benchmarks).
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import time

import numpy as np

from timing import benchmark_parser, best_time, load_average, write_report

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLE = os.path.join(HERE, "..", "examples", "dz_kmpippiz")
sys.path.insert(0, EXAMPLE)
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "dz_handwritten"))

L = 8


def build(directory, threads, comm, cache="never"):
    """The signal fit of the example, its events spread over ``comm``."""
    import common
    import handwritten
    from vecampfit.fitter import Fitter, Likelihood, read_parameter_file
    rank = 0 if comm is None else comm.Get_rank()
    if comm is not None and rank != 0:
        comm.Barrier()            # rank 0 compiles the models, the others load them
    signal = handwritten.signal_density(handwritten.compile_signal([L]), L, "float64")
    background = common.background_density(L, "float64")
    if comm is not None and rank == 0:
        comm.Barrier()
    likelihood = Likelihood(read_parameter_file(os.path.join(EXAMPLE, "parameters_signal.dat")),
                            vector_length=L, threads=threads, on_invalid="large", cache=cache,
                            comm=comm)
    point = likelihood.add_point(signal)
    point.add_background(background,
                         common.BACKGROUND_FRACTION,
                         read_parameter_file(os.path.join(directory,
                                                          "parameters_background_result.dat")))
    point.load_normalization_file(os.path.join(directory, "mc_signal.root"), common.TREE,
                                  list(common.BRANCHES))
    point.load_data_file(os.path.join(directory, common.data_file_name(-1)), common.TREE,
                         list(common.BRANCHES))
    return Fitter(likelihood, randomize=False, seed=1, verbose=False)


def fit(fitter):
    """Amplitudes, then phases and the background fraction (MIGRAD, gradient)."""
    import common
    import fit_signal
    from vecampfit.fitter import Stage
    fitter.run(Stage(fix_all=True, release=fit_signal.names("A"), ncall=100000),
               Stage(release=[*fit_signal.names("P"), common.BACKGROUND_FRACTION],
                     ncall=100000))


def partial_sum_rows(point):
    """Rows of partial sums shaped as a call with the gradient gathers them
    for ``point`` (the normalization and the data events this rank owns),
    filled with zeros."""
    ng = point.signal.n_parameters
    nb = len(point.backgrounds)
    return (np.zeros((len(point.norm_events.layout.owned), 1 + ng)),
            np.zeros((len(point.data_events.layout.owned), 2 + nb + ng)))


def communicate(mpi, point, rows, message):
    """The collectives of one call with the gradient, nothing computed: the
    broadcast of ``message`` (rank 0's announcement of the call), then the
    normalization and data ``rows`` combined."""
    norm_rows, data_rows = rows
    mpi.comm.bcast(message, root=0)
    mpi.combine(point.norm_events, lambda: (norm_rows, None))
    mpi.combine(point.data_events, lambda: (data_rows, None))


def communication_time(fitter, repeat):
    """Seconds of the collectives of one call with the gradient (announce, the
    normalization and data rows gathered, sums broadcast), nothing computed."""
    lk = fitter.likelihood
    mpi = lk.mpi
    point = lk.points[0]
    rows = partial_sum_rows(point)
    message = ("call", "evaluate", (fitter.initial_values, True), None)
    mpi.comm.Barrier()
    best = best_time(lambda: communicate(mpi, point, rows, message), repeat)
    gathered = mpi.bytes_gathered
    mpi.bytes_gathered = 0
    communicate(mpi, point, rows, message)
    return best, mpi.bytes_gathered, gathered


def breakdown(f, comm, calls):
    """Every rank evaluates ``calls`` times together (no serve): the mean wall
    time of a call and the mean time of this rank's own sums (the ``local``
    step of every combine), gathered on rank 0 as (rank, call ms, sums ms)."""
    lk = f.likelihood
    x = f.initial_values
    spent = [0.0]
    combine = lk._combine

    def timed_combine(buf, local):
        def timed():
            t0 = time.perf_counter()
            try:
                return local()
            finally:
                spent[0] += time.perf_counter() - t0
        return combine(buf, timed)

    lk._combine = timed_combine
    try:
        lk.evaluate(x)
        spent[0] = 0.0
        comm.Barrier()
        t0 = time.perf_counter()
        for _ in range(calls):
            lk.evaluate(x)
        wall = (time.perf_counter() - t0) / calls
    finally:
        lk._combine = combine
    return comm.gather((comm.Get_rank(), wall * 1e3, spent[0] / calls * 1e3), root=0)


def child(args):
    from mpi4py import MPI
    from vecampfit.fitter.mpi import serve
    comm = MPI.COMM_WORLD
    t0 = time.perf_counter()
    f = build(args.directory, args.threads, comm)
    load = time.perf_counter() - t0
    x = f.initial_values
    out = {"ranks": comm.Get_size(), "threads": args.threads, "load_s": load}
    with serve(f) as root:
        if root:
            f.likelihood.evaluate(x)
            v1, g1 = f.likelihood.evaluate(x, gradient=True)
            out["F"] = float(v1).hex()
            out["grad0"] = float(g1[0]).hex()
            n_value, n_gradient = 5 * args.repeat, 2 * args.repeat
            c0 = time.process_time()
            out["value_s"] = best_time(lambda: f.likelihood.evaluate(x), n_value)
            out["value_cpu_s"] = (time.process_time() - c0) / n_value
            c0 = time.process_time()
            out["gradient_s"] = best_time(lambda: f.likelihood.evaluate(x, gradient=True), n_gradient)
            out["gradient_cpu_s"] = (time.process_time() - c0) / n_gradient
            calls0 = f.likelihood.n_calls
            t0 = time.perf_counter()
            fit(f)
            out["fit_s"] = time.perf_counter() - t0
            out["fit_calls"] = f.likelihood.n_calls - calls0
            out["fit_F"] = float(f.minuit.fval).hex()
            out["fit_valid"] = bool(f.minuit.valid)
    out["breakdown"] = breakdown(f, comm, 10 * args.repeat)
    # Communication alone: every rank takes part (outside serve).
    if comm.Get_size() > 1:
        if comm.Get_rank() == 0:
            t, nbytes, _ = communication_time(f, args.repeat * 20)
            comm.bcast(None, root=0)
        else:
            point = f.likelihood.points[0]
            rows = partial_sum_rows(point)
            comm.Barrier()
            for _ in range(args.repeat * 20 + 1):
                communicate(f.likelihood.mpi, point, rows, None)
            comm.bcast(None, root=0)
        if comm.Get_rank() == 0:
            out["comm_s"] = t
            out["comm_bytes"] = nbytes
    if comm.Get_rank() == 0:
        print("RESULT " + json.dumps(out), flush=True)


def launch(args, ranks, threads):
    mpiexec = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    if not os.path.exists(mpiexec):
        mpiexec = shutil.which("mpiexec")
    cmd = [mpiexec, "-n", str(ranks), sys.executable, os.path.abspath(__file__), "--child",
           "--threads", str(threads), "--directory", args.directory, "--repeat",
           str(args.repeat)]
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=os.path.dirname(args.output),
                          env=env, timeout=3600)
    lines = [ln[ln.index("RESULT "):] for ln in proc.stdout.splitlines() if "RESULT " in ln]
    if proc.returncode or not lines:
        raise RuntimeError(f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stdout}\n"
                           f"{proc.stderr}")
    result = json.loads(lines[-1][7:])
    print(result, flush=True)
    return result


def markdown(args, runs, load_before, load_after):
    one, two, thr = runs["1x1"], runs["2x1"], runs["1x2"]
    n = args.data + args.mc
    same = all(r["F"] == one["F"] and r["grad0"] == one["grad0"] for r in runs.values())
    same_fit = all(r["fit_F"] == one["fit_F"] for r in runs.values())
    lines = [
        "# One likelihood over MPI ranks: D0 -> K- pi+ pi0",
        "",
        f"Measured by `python benchmarks/bench_mpi.py --data {args.data} --mc {args.mc} "
        f"--repeat {args.repeat}` on {os.uname().machine}, {os.cpu_count()} CPUs, MPICH "
        f"(shared memory between the ranks); {n} events ({args.data} data + {args.mc} MC), "
        f"float64, L = {L}, the full model at every call (`cache=\"never\"`).  "
        f"Load average before the run {load_before}, after {load_after}: the host is "
        "shared with other work, so the times are noisy (best of the repeated calls).",
        "",
        "## Likelihood call",
        "",
        "| configuration | value (ms) | ns/event | with gradient (ms) | speed-up (value) "
        "| speed-up (gradient) | CPU of rank 0, value (ms) | CPU of rank 0, gradient (ms) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for label, r in (("1 rank, 1 thread", one), ("2 ranks, 1 thread each", two),
                     ("1 rank, 2 threads", thr)):
        lines.append(f"| {label} | {r['value_s'] * 1e3:.2f} | {r['value_s'] / n * 1e9:.2f} | "
                     f"{r['gradient_s'] * 1e3:.2f} | {one['value_s'] / r['value_s']:.2f}x | "
                     f"{one['gradient_s'] / r['gradient_s']:.2f}x | "
                     f"{r['value_cpu_s'] * 1e3:.2f} | {r['gradient_cpu_s'] * 1e3:.2f} |")
    lines += [
        "",
        "Wall times are the best of "
        f"{5 * args.repeat} calls (value) and {2 * args.repeat} calls (gradient); the CPU "
        "time of rank 0 is the mean over those calls (all threads of the process): it "
        "shows the share of the work a rank does, which the load of the machine does not "
        "change as much as the wall time.",
        "",
        f"- F and its gradient have the same bits in the three configurations: {same}",
        f"- communication of one call with the gradient over 2 ranks (parameters broadcast, "
        f"rows of partial sums gathered, sums broadcast; nothing computed): "
        f"{two['comm_s'] * 1e6:.0f} us, {two['comm_bytes']} bytes of rows gathered by rank 0",
        f"- loading the events (files read, each rank its share): "
        f"{one['load_s']:.1f} s on 1 rank, {two['load_s']:.1f} s on 2 ranks",
        "",
        f"Where the time of a call goes (every rank evaluating together, mean of "
        f"{10 * args.repeat} value calls; the sums are the rank's own chunks):",
        "",
        "| configuration | rank | call (ms) | its sums (ms) | rest of the call (ms) |",
        "|---|---|---|---|---|",
    ]
    for label, r in (("1 rank, 1 thread", one), ("2 ranks, 1 thread each", two),
                     ("1 rank, 2 threads", thr)):
        for rank, call, sums in r["breakdown"]:
            lines.append(f"| {label} | {rank} | {call:.2f} | {sums:.2f} | {call - sums:.2f} |")
    lines += [
        "",
        "## Whole fit (amplitudes, then phases and the background fraction; MIGRAD with the "
        "gradient)",
        "",
        "| configuration | wall time (s) | calls | speed-up | valid |",
        "|---|---|---|---|---|",
    ]
    for label, r in (("1 rank, 1 thread", one), ("2 ranks, 1 thread each", two),
                     ("1 rank, 2 threads", thr)):
        lines.append(f"| {label} | {r['fit_s']:.2f} | {r['fit_calls']} | "
                     f"{one['fit_s'] / r['fit_s']:.2f}x | {r['fit_valid']} |")
    lines += ["", f"- the same minimum (bits of F) in the three configurations: {same_fit}", ""]
    return "\n".join(lines)


def main(argv=None):
    ap = benchmark_parser(__doc__, data=100000, mc=1000000, repeat=7, threads=1,
                          directory=os.path.join(HERE, "results", "dz_samples"),
                          output=os.path.join(HERE, "results", "mpi.md"))
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    args.directory = os.path.abspath(args.directory)
    args.output = os.path.abspath(args.output)
    if args.child:
        child(args)
        return
    import bench_dz_kmpippiz
    bench_dz_kmpippiz.study_samples(args.directory, args.data, args.mc)
    load_before = load_average()
    runs = {}
    for key, ranks, threads in (("1x1", 1, 1), ("2x1", 2, 1), ("1x2", 1, 2)):
        runs[key] = launch(args, ranks, threads)
    load_after = load_average()
    write_report(markdown(args, runs, load_before, load_after), args.output)

if __name__ == "__main__":
    main()
