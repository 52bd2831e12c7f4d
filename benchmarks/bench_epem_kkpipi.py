"""Time per event of the e+e- -> K K-bar pi pi signal density and of the efficiency likelihood with gradient.

Compiles examples/epem_kkpipi/signal_density.pyx and efficiency_density.pyx
for each vector length L (as a user's models) and times, in one process and
one thread:

* the 7D signal density alone, and with its gradient (24 parameters), (KS KS
  pi+ pi- at 2000 MeV, all three paths of the K1 decay) over N phase-space
  events, float64 and float32, next to its numpy form (model.signal_density);
* the efficiency likelihood (normalization none) with its explicit gradient
  over N generator-level MC events of K+ K- pi+ pi- at 2000 MeV (order 4),
  float64 and float32, next to the same likelihood on the numpy form
  (efficiency.efficiency_density).

Prints ns per event and the ratios to L = 1 and to numpy.

With ``--simultaneous`` (instead of the above) it times the simultaneous
signal fit of fit_signal_kkpipi.py over the ten process-energy points (samples from
generate_kkpipi.py, the simulation's background polynomial as the fixed
background, as in the example's tests), in one process:

* one likelihood call (all points), value and value with gradient, float64,
  L = ``--simultaneous-length``, at one and at two threads (the same
  Likelihood, thread count switched between interleaved calls), next to the
  numpy form of the same likelihood (the numpy signal and background
  densities through the same fitter; it has no analytic gradient, so its
  "gradient" is the cost of n + 1 value calls of a forward-difference
  gradient, derived, not timed);
* the whole simultaneous fit (fix all, release, MIGRAD, HESSE from the same
  random start) at one thread and at two, interleaved, ``--fits`` times each.

    python benchmarks/bench_epem_kkpipi.py [--events N] [--lengths 1,2,4,...]
                                           [--output benchmarks/results/epem_kkpipi.md]
    python benchmarks/bench_epem_kkpipi.py --simultaneous [--data-events 10000]
                                           [--mc-events 100000] [--fits 2]

With ``--declared`` it times the same ten-point fit with the signal model
declared through vecampfit.cascades (``declared_model.py``, the example's
default) against the hand-written density (``--handwritten``), one thread,
float64, L = ``--simultaneous-length``: the compilation of the declared
models (two modules: the points of one process share one), likelihood calls
(value, value + gradient; interleaved) and the whole fit (fix all, release,
MIGRAD, HESSE from the same random start), alternating, ``--fits`` times
each::

    python benchmarks/bench_epem_kkpipi.py --declared [--data-events 3000]
                                           [--mc-events 30000] [--fits 1]
                                           [--output benchmarks/results/epem_declared.md]
"""

import argparse
import dataclasses
import os
import statistics
import sys
import time

import numpy as np

from timing import (best_time, interleaved_samples, load_average, medians, cpu_description,
                    write_report)

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "examples", "epem_kkpipi"))
import common_kkpipi as common  # noqa: E402
import config  # noqa: E402
import detector  # noqa: E402
import efficiency  # noqa: E402
import model_kkpipi as model  # noqa: E402

from vecampfit import generation  # noqa: E402
from vecampfit.fitter import Fitter, Likelihood  # noqa: E402
from vecampfit.fitter.events import EventBuffer  # noqa: E402


def signal_events(point, n):
    m = point.masses()
    ps = generation.phase_space(point.sqrt_s, [m[k] for k in common.PARTICLES], n, seed=1)
    return common.signal_fields(dict(zip(common.PARTICLES, ps.momenta)), point)


def mc_records(point, n):
    m = point.masses()
    rng = np.random.default_rng(2)
    gen = generation.generate_events(None, point.sqrt_s, [m[k] for k in common.PARTICLES], n,
                                     names=common.PARTICLES, seed=rng)
    ok, rec, w = detector.simulate(gen, m, rng)
    records = {common.GEN_BRANCH[k]: gen[k] for k in common.PARTICLES}
    records.update({common.BRANCH[k]: rec[k] for k in common.PARTICLES})
    records["reconstructed"] = ok
    records["weight"] = w
    return records


def efficiency_fitter(point, records, density, precision, length):
    lk = Likelihood(efficiency.initial_parameters(point), vector_length=length,
                    precision=precision, threads=1)
    lk.add_point(density, normalization="none").add_data(records)
    return Fitter(lk, randomize=False, verbose=False)


def simultaneous_samples(directory, data_events, mc_events, seed=1):
    """The ten points' data and MC (generate_kkpipi.py) and, as background-fit
    results, the simulation's background coefficients."""
    import background
    import fit_signal_kkpipi as fit_signal
    import generate_kkpipi as generate
    from vecampfit.fitter.parameters import write_parameter_file
    points = [dataclasses.replace(p, data_events=data_events, mc_events=mc_events,
                                  background_events=0) for p in config.POINTS.values()]
    os.makedirs(directory, exist_ok=True)
    stamp = os.path.join(directory, f"samples_{data_events}_{mc_events}_{seed}")
    if not os.path.exists(stamp):
        t0 = time.perf_counter()
        for p in points:
            generate.generate_point(p, directory, seed)
            write_parameter_file(os.path.join(directory, f"parameters_background_{p.name}.dat"),
                                 background.initial_parameters(), background.truth())
        open(stamp, "w").close()
        print(f"samples generated in {time.perf_counter() - t0:.0f} s", flush=True)
    return fit_signal.simultaneous_fit_points(points, directory)


CPU = {}   # case -> median process CPU time of a call (s)


def interleaved(cases, repeat):
    """Median wall time (s) of each case, timed one after another ``repeat``
    times; the median process CPU time of a call is kept in CPU."""
    wall, cpu = interleaved_samples(cases, repeat)
    CPU.update(medians(cpu))
    return medians(wall)


def simultaneous(args):
    import background
    import fit_signal_kkpipi as fit_signal
    load = load_average()
    decl = simultaneous_samples(args.directory, args.data_events, args.mc_events)
    length = args.simultaneous_length
    smods = common.compile_signal_density([length])
    bmods = background.compile_density([length])

    def build(threads, numpy=False):
        f = fit_signal.build(decl, None if numpy else smods, None if numpy else bmods,
                             vector_length=length, threads=threads, seed=11, verbose=False)
        f.likelihood.prepare()
        return f

    f = build(1)
    lk = f.likelihood
    free = fit_signal.free_parameter_names(f, decl)
    n_data = sum(fp.data_events.n_events for fp in lk.points)
    n_mc = sum(fp.norm_events.n_events for fp in lk.points)
    n = n_data + n_mc
    x = np.array(f.initial_values, dtype=float)
    idx = [lk.parameters.names.index(k) for k in free]
    x2 = x.copy()
    x2[idx] *= 1.01
    pts, st = [x, x2], {"k": 0}

    def nxt():
        st["k"] ^= 1
        return pts[st["k"]]

    fn = build(1, numpy=True)
    v_c, v_n = lk.evaluate(x, free=free)[0], fn.likelihood.evaluate(x, free=free)[0]
    print(f"F: compiled {v_c:.6f}, numpy {v_n:.6f}", flush=True)

    def call(threads, gradient):
        def g():
            lk.threads = threads
            lk.evaluate(nxt(), gradient, free=free)
        return g
    t = interleaved({"1 value": call(1, False), "1 grad": call(1, True),
                     "2 value": call(2, False), "2 grad": call(2, True)}, args.repeat)
    cpu = dict(CPU)
    t.update({("numpy " + k): v for k, v in interleaved(
        {"value": lambda: fn.likelihood.evaluate(nxt(), free=free), "compiled": call(1, True)},
        max(3, args.repeat // 3)).items()})
    cpu.update({("numpy " + k): v for k, v in CPU.items()})
    del fn
    lk.threads = 1
    print(t, flush=True)

    fits = []
    for k in range(args.fits):
        for threads in (1, 2):
            t0 = time.perf_counter()
            ff = build(threads)
            setup = time.perf_counter() - t0
            # A fit that runs past --fit-max-seconds is stopped (its calls so
            # far and their time are reported); the shared host can make the
            # threaded path very slow.
            deadline = time.perf_counter() + args.fit_max_seconds
            evaluate = ff.likelihood.evaluate

            def bounded(*a, _evaluate=evaluate, _deadline=deadline, **kw):
                if time.perf_counter() > _deadline:
                    raise TimeoutError
                return _evaluate(*a, **kw)
            ff.likelihood.evaluate = bounded
            c0 = time.process_time()
            t0 = time.perf_counter()
            stopped = False
            try:
                fit_signal.run_sequence(ff, decl)
            except TimeoutError:
                stopped = True
            wall = time.perf_counter() - t0
            fits.append(dict(threads=threads, setup=setup, wall=wall,
                             cpu=time.process_time() - c0, calls=ff.likelihood.n_calls,
                             fval=float("nan") if stopped else ff.minuit.fval,
                             valid="stopped" if stopped else ff.minuit.valid))
            print(fits[-1], flush=True)
            del ff

    ns = 1e9 / n
    n_free = len(free)
    lines = [
        "## Simultaneous signal fit (fit_signal_kkpipi.py), ten points\n",
        f"Measured by `"
        f"{'OMP_WAIT_POLICY=' + os.environ['OMP_WAIT_POLICY'] + ' ' if 'OMP_WAIT_POLICY' in os.environ else ''}"
        f"python benchmarks/bench_epem_kkpipi.py --simultaneous --data-events "
        f"{args.data_events} --mc-events {args.mc_events} --fits {args.fits} --repeat "
        f"{args.repeat} --fit-max-seconds {args.fit_max_seconds:.0f}` on "
        f"{cpu_description()}, {os.cpu_count()} CPUs **shared with "
        f"other jobs** (load average before the run {load}; OMP_WAIT_POLICY="
        f"{os.environ.get('OMP_WAIT_POLICY', 'unset')}).  Ten points (K+ K- pi+ pi- and "
        f"KS KS pi+ pi- at five energies), {args.data_events} data and {args.mc_events} "
        f"generator-level MC events each: {n_data} data + {n_mc} reconstructed MC events in "
        f"the likelihood, {n_free} free parameters; float64, L = {length}.  Medians of "
        f"{args.repeat} interleaved calls; successive calls alternate between two "
        f"parameter points.\n",
        "| likelihood call | wall ms | wall ns per event (data + MC) | CPU ms (process) | "
        "CPU / wall |", "|---|---|---|---|---|",
        *(f"| {label} | {t[k] * 1e3:.1f} | {t[k] * ns:.0f} | {cpu[k] * 1e3:.1f} | "
          f"{cpu[k] / t[k]:.2f} |" for label, k in (
              ("compiled, 1 thread, value", "1 value"),
              ("compiled, 1 thread, value + gradient", "1 grad"),
              ("compiled, 2 threads, value", "2 value"),
              ("compiled, 2 threads, value + gradient", "2 grad"),
              ("numpy form, value", "numpy value"),
              ("compiled, 1 thread, value + gradient (interleaved with numpy)",
               "numpy compiled"))),
        f"| numpy form, forward-difference gradient ({n_free} + 1 value calls, derived) | "
        f"{t['numpy value'] * (n_free + 1) * 1e3:.0f} | "
        f"{t['numpy value'] * (n_free + 1) * ns:.0f} | | |", "",
        f"- value + gradient, compiled against the numpy value call: "
        f"{t['numpy value'] / t['numpy compiled']:.1f}x faster (interleaved with it); "
        f"against the numpy forward-difference gradient: "
        f"{t['numpy value'] * (n_free + 1) / t['numpy compiled']:.0f}x",
        f"- two threads against one: {t['1 value'] / t['2 value']:.2f}x (value), "
        f"{t['1 grad'] / t['2 grad']:.2f}x (value + gradient)",
        f"- F at the start: compiled {v_c:.6f}, numpy {v_n:.6f} (difference "
        f"{abs(v_c - v_n):.1e})", "",
        "| threads | set-up (s) | fit wall (s) | fit CPU (s) | calls | F at the minimum | "
        "valid |", "|---|---|---|---|---|---|---|"]
    for r in fits:
        lines.append(f"| {r['threads']} | {r['setup']:.1f} | {r['wall']:.1f} | "
                     f"{r['cpu']:.1f} | {r['calls']} | {r['fval']:.4f} | {r['valid']} |")
    done = [r for r in fits if r["valid"] != "stopped"]
    w1 = [r["wall"] for r in done if r["threads"] == 1]
    w2 = [r["wall"] for r in done if r["threads"] == 2]
    per_call = {th: statistics.median([r["wall"] / max(r["calls"], 1) for r in fits
                                       if r["threads"] == th]) for th in (1, 2)} if fits else {}
    lines.append("")
    if w1 and w2:
        lines.append(f"- whole fit (MIGRAD + HESSE), one thread against two: "
                     f"{statistics.median(w1) / statistics.median(w2):.2f}x (medians of the "
                     f"wall times; the set-up, reading and filling the buffers, is not "
                     f"threaded and not included)")
    if per_call:
        lines.append(f"- wall time per likelihood call inside the fits: "
                     f"{per_call[1] * 1e3:.1f} ms at one thread, {per_call[2] * 1e3:.1f} ms at "
                     f"two ({per_call[1] / per_call[2]:.2f}x)")
    if len(done) < len(fits):
        lines.append(f"- fits marked `stopped` ran past --fit-max-seconds "
                     f"({args.fit_max_seconds:.0f} s) and were stopped; their calls and time "
                     f"so far are shown")
    lines.append("")
    write_report("\n".join(lines) + "\n", args.output, "a" if args.append else "w")


def declared(args):
    """The ten-point fit with the declared model against the hand-written density."""
    import tempfile

    import background
    import fit_signal_kkpipi as fit_signal
    from timing import cpu_description
    load = load_average()
    decl = simultaneous_samples(args.directory, args.data_events, args.mc_events)
    length = args.simultaneous_length
    points = [d.point for d in decl]
    with tempfile.TemporaryDirectory() as cold:
        def cpu_all():
            t = os.times()
            return t.user + t.system + t.children_user + t.children_system
        c0, t0 = cpu_all(), time.perf_counter()
        common.compile_signal_models(points, [length], build_dir=cold)
        compile_wall, compile_cpu = time.perf_counter() - t0, cpu_all() - c0
    signals = {"declared": common.compile_signal_models(points, [length]),
               "hand-written": common.compile_signal_density([length])}
    bmods = background.compile_density([length])

    def build(signal):
        f = fit_signal.build(decl, signals[signal], bmods, vector_length=length, threads=1,
                             seed=11, verbose=False)
        f.likelihood.prepare()
        return f
    fitters = {k: build(k) for k in signals}
    lk = fitters["declared"].likelihood
    free = fit_signal.free_parameter_names(fitters["declared"], decl)
    n = sum(fp.data_events.n_events + fp.norm_events.n_events for fp in lk.points)
    x = np.array(fitters["declared"].initial_values, dtype=float)
    values = {k: f.likelihood.evaluate(x, True, free=free) for k, f in fitters.items()}
    f_diff = abs(values["declared"][0] / values["hand-written"][0] - 1)
    g_diff = (np.max(np.abs(values["declared"][1] - values["hand-written"][1]))
              / np.max(np.abs(values["hand-written"][1])))
    cases = {}
    for k, f in fitters.items():
        cases[k + " value"] = (lambda _l=f.likelihood: _l.evaluate(x, free=free))
        cases[k + " grad"] = (lambda _l=f.likelihood: _l.evaluate(x, True, free=free))
    t = interleaved(cases, args.repeat)
    cpu = dict(CPU)
    del fitters
    fits = []
    for _ in range(args.fits):
        for k in signals:
            t0 = time.perf_counter()
            ff = build(k)
            setup = time.perf_counter() - t0
            c0, t0 = time.process_time(), time.perf_counter()
            fit_signal.run_sequence(ff, decl)
            fits.append(dict(signal=k, setup=setup, wall=time.perf_counter() - t0,
                             cpu=time.process_time() - c0, calls=ff.likelihood.n_calls,
                             fval=ff.minuit.fval, valid=ff.minuit.valid))
            print(fits[-1], flush=True)
            del ff
    lines = [
        "# e+e- -> K K-bar pi pi: the declared signal model against the hand-written one\n",
        f"Measured by `python benchmarks/bench_epem_kkpipi.py --declared --data-events "
        f"{args.data_events} --mc-events {args.mc_events} --fits {args.fits} --repeat "
        f"{args.repeat}` on {cpu_description()}, {os.cpu_count()} CPUs (load average before "
        f"the run {load}).  Ten points (K+ K- pi+ pi- and KS KS pi+ pi- at five energies), "
        f"{n} data + reconstructed MC events in the likelihood, {len(free)} free parameters; "
        f"one thread, float64, L = {length}. The calls and fits give the likelihood the fit's "
        f"free parameters (amplitudes and background fractions), so that the declared "
        f"models evaluate from their cached components (vecampfit.fitter.components with "
        f"two photon-helicity channels); the hand-written density does not describe its "
        f"components and takes the full path.\n",
        f"- Compiling the declared models of the ten points (two modules; the five energies "
        f"of a process share one): {compile_wall:.0f} s wall, {compile_cpu:.0f} s CPU (the "
        f"C compiler's included), into an empty cache.",
        f"- At the fit's start: F of the declared model and of the hand-written density differ "
        f"by {f_diff:.1e} (relative), their gradients by {g_diff:.1e} of the largest "
        f"component.\n",
        "| likelihood call (medians, interleaved) | wall ms | wall ns per event | CPU ms |",
        "|---|---|---|---|",
        *(f"| {k} | {t[k] * 1e3:.1f} | {t[k] / n * 1e9:.0f} | {cpu[k] * 1e3:.1f} |"
          for k in cases), "",
        f"- declared / hand-written, CPU per call: value "
        f"{cpu['declared value'] / cpu['hand-written value']:.2f}, value + gradient "
        f"{cpu['declared grad'] / cpu['hand-written grad']:.2f}\n",
        "| signal density | set-up (s) | fit wall (s) | fit CPU (s) | calls | F at the minimum "
        "| valid |", "|---|---|---|---|---|---|---|",
        *(f"| {r['signal']} | {r['setup']:.1f} | {r['wall']:.1f} | {r['cpu']:.1f} | "
          f"{r['calls']} | {r['fval']:.4f} | {r['valid']} |" for r in fits), ""]
    write_report("\n".join(lines) + "\n", args.output, "a" if args.append else "w")


def length_table(say, lengths, t_np, measure):
    """The rows of a table over the vector ``lengths``, then the numpy time,
    each line given to ``say``.

    Per length and precision (float64, then float32), ``measure(length,
    precision)`` gives the times in ns per event: the first has the columns
    itself, the ratio of the first length's to it and the ratio of numpy's
    ``t_np`` to it; each further one (with the gradient) a column of its own.
    """
    base = {}
    for length in lengths:
        row = [str(length)]
        for precision in ("float64", "float32"):
            t, *more = measure(length, precision)
            base.setdefault(precision, t)
            row += [f"{t:.0f}", f"{base[precision] / t:.2f}", f"{t_np / t:.1f}",
                    *(f"{v:.0f}" for v in more)]
        say("| " + " | ".join(row) + " |")
    say(f"\nnumpy form: {t_np:.0f} ns per event (float64)")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--events", type=int, default=20000)
    p.add_argument("--lengths", default="1,2,4,8,16")
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--output", default=None)
    p.add_argument("--simultaneous", action="store_true",
                   help="time the simultaneous signal fit instead")
    p.add_argument("--declared", action="store_true",
                   help="the declared signal model against the hand-written one instead")
    p.add_argument("--append", action="store_true", help="append to --output")
    p.add_argument("--data-events", type=int, default=10000)
    p.add_argument("--mc-events", type=int, default=100000)
    p.add_argument("--simultaneous-length", type=int, default=8)
    p.add_argument("--fits", type=int, default=2)
    p.add_argument("--fit-max-seconds", type=float, default=300)
    p.add_argument("--directory", default=os.path.join("/tmp", "vecampfit_epem_bench_samples"))
    args = p.parse_args(argv)
    if args.simultaneous:
        return simultaneous(args)
    if args.declared:
        return declared(args)
    lengths = [int(x) for x in args.lengths.split(",")]
    lines = ["# e+e- -> K K-bar pi pi: signal density and efficiency likelihood",
             "", f"{cpu_description()}, one thread, "
             f"{args.events} events, best of {args.repeat}", ""]

    def say(s=""):
        print(s)
        lines.append(s)

    # -- signal density -------------------------------------------------------
    point = config.POINTS["kskspippim_2000_mev"]
    e = point.energy_mev
    fields = signal_events(point, args.events)
    params = model.parameter_vector(e)
    const = point.constants()
    n = args.events
    t_np = best_time(lambda: model.signal_density(fields, params, e, const), 2) / n * 1e9
    mods = common.compile_signal_density(lengths)
    say("## 7D signal density (KS KS pi+ pi-, 2000 MeV), ns per event")
    say("")
    say("| L | float64 | vs L=1 | vs numpy | with gradient | float32 | vs L=1 | vs numpy "
        "| with gradient |")
    say("|---|---|---|---|---|---|---|---|---|")

    def density_times(length, precision):
        d = common.signal_density_cython(mods, point, precision, length)
        buf = EventBuffer(d, precision, length, "benchmark events", use_fill=False)
        buf.append(fields)
        buf.freeze()
        t = best_time(lambda: d.evaluate(buf, params), args.repeat) / n * 1e9
        tg = best_time(lambda: d.evaluate(buf, params, gradient=True), args.repeat) / n * 1e9
        return t, tg
    length_table(say, lengths, t_np, density_times)

    # -- efficiency likelihood with gradient -----------------------------------
    point = config.POINTS["kpkmpippim_2000_mev"]
    records = mc_records(point, args.events)
    x = efficiency.initial_parameters(point).values
    fn = efficiency_fitter(point, records, efficiency.density(point), "float64", 1)
    fn.likelihood.evaluate(x, True)
    t_np = best_time(lambda: fn.likelihood.evaluate(x, True), 2) / n * 1e9
    emods = common.compile_efficiency_density(lengths)
    say("")
    say("## Efficiency likelihood with gradient (K+ K- pi+ pi-, 2000 MeV, order 4), "
        "ns per event")
    say("")
    say("| L | float64 | vs L=1 | vs numpy | float32 | vs L=1 | vs numpy |")
    say("|---|---|---|---|---|---|---|")

    def likelihood_time(length, precision):
        d = efficiency.density_cython(emods, point, precision, length)
        f = efficiency_fitter(point, records, d, precision, length)
        f.likelihood.evaluate(x, True)
        return (best_time(lambda: f.likelihood.evaluate(x, True), args.repeat) / n * 1e9,)
    length_table(say, lengths, t_np, likelihood_time)
    if args.output:
        with open(args.output, "w") as fh:
            fh.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
