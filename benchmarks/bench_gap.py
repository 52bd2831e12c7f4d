"""Gap between vecampfit's full likelihood path and a hand-written C limit,
D0 -> K- pi+ pi0, in one run.

The limit: ``dz_likelihood_kernel.c``, the whole likelihood value
F = -2 sum_i ln(S_i / I), I = sum_j S_j, over the data events i and the MC
events j (the example's model, the resonance code of ``dz_density_kernel.c``,
fused loops, no array of densities), compiled twice, with
``-O3 -march=native -ffast-math`` and with ``-Ofast -flto -march=native``.
Against it: vecampfit's ``Likelihood.evaluate`` value call with
``cache="never"`` (the whole model at every call), the hand-written Cython
density (benchmarks/dz_handwritten) without background, one thread, at
every vector length L (float64 and float32), then the best L interleaved
with the C kernels.

At the best L the same run also times the likelihood with the density that
``vecampfit.isobar`` generates from ``isobar_model.py``.

To say where a gap comes from, the same run also times the density alone
(``Density.evaluate`` over the same event buffers, no likelihood) against
the C density kernel (``dz_density_kernel.c``, same flags, writing the
densities) over the data + MC events.

Writes ``benchmarks/results/gap.md``::

    python benchmarks/bench_gap.py [--repeat 15] [--lengths 1,2,4,8,16,32,64]

Uses the samples of ``bench_dz_kmpippiz.py`` (generated if missing).
"""

import ctypes
import os
import shlex
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLE = os.path.join(HERE, "..", "examples", "dz_kmpippiz")
sys.path.insert(0, EXAMPLE)

import bench_dz_kmpippiz as dz  # noqa: E402
import bench_laddu  # noqa: E402  (records and fields as read for laddu)
import dz_reference as model  # noqa: E402  (on the path through bench_dz_kmpippiz)
import handwritten  # noqa: E402
from timing import (benchmark_parser, interleaved_samples, load_average, medians,  # noqa: E402
                    cpu_description, write_report)

from vecampfit import _build_config  # noqa: E402

FLAGS = {"-O3 -march=native -ffast-math": ["-O3", "-march=native", "-ffast-math"],
         "-Ofast -flto -march=native": ["-Ofast", "-flto", "-march=native"]}


def compile_kernels(extra=()):
    """{(flags label, dtype): (likelihood function, density function)}, each
    built with its flags and then ``extra``."""
    folder = tempfile.mkdtemp(prefix="vecampfit_gap_")
    out = {}
    for label, flags in FLAGS.items():
        for dtype, define, suffix in ((np.float64, [], "double"), (np.float32, ["-DSINGLE"],
                                                                   "float")):
            tag = "_".join(f.strip("-") for f in flags) + suffix
            lib = os.path.join(folder, f"gap_{tag}.so")
            subprocess.run([os.environ.get("CC", "cc"), *flags, *extra, "-fPIC", "-shared",
                            *define,
                            "-I", HERE, "-o", lib, os.path.join(HERE, "dz_likelihood_kernel.c"),
                            "-lm"], check=True)
            so = ctypes.CDLL(lib)
            like = getattr(so, f"dz_likelihood_{suffix}")
            like.restype = ctypes.c_double
            dens = getattr(so, f"dz_density_{suffix}")
            dens.restype = None
            out[label, dtype] = (like, dens)
    return out


class CColumns:
    """The nine event fields of a sample as contiguous columns for ctypes."""

    def __init__(self, fields, dtype):
        ctype = ctypes.c_double if dtype == np.float64 else ctypes.c_float
        self.cols = [np.ascontiguousarray(fields[f], dtype=dtype) for f in model.EVENT_FIELDS]
        self.n = len(self.cols[0])
        self.ptrs = (ctypes.POINTER(ctype) * 9)(
            *[c.ctypes.data_as(ctypes.POINTER(ctype)) for c in self.cols])
        self.out = np.empty(self.n, dtype)
        self.out_ptr = self.out.ctypes.data_as(ctypes.POINTER(ctype))


MASS = np.array([model.MASSES[k] for k in ("md", "km", "pip", "piz")])


def c_likelihood(fn, data, mc, params):
    par = np.ascontiguousarray(params, dtype=np.float64)
    pp = par.ctypes.data_as(ctypes.POINTER(ctypes.c_double))
    mp = MASS.ctypes.data_as(ctypes.POINTER(ctypes.c_double))
    return lambda: fn(data.ptrs, ctypes.c_long(data.n), mc.ptrs, ctypes.c_long(mc.n), pp, mp)


def c_density(fn, cols, params):
    par = np.ascontiguousarray(params, dtype=np.float64)
    pp = par.ctypes.data_as(ctypes.POINTER(ctypes.c_double))
    mp = MASS.ctypes.data_as(ctypes.POINTER(ctypes.c_double))
    return lambda: fn(cols.out_ptr, cols.ptrs, ctypes.c_long(cols.n), pp, mp)


def interleaved(cases, repeat):
    """Median CPU time and median wall time (s) of each case, the cases timed
    one after another ``repeat`` times."""
    wall, cpu = interleaved_samples(cases, repeat)
    return medians(cpu), medians(wall)


#: vecampfit likelihoods of the best-L comparison: label -> extra options of
#: fit_signal.py (the hand-written density, and the one vecampfit.isobar
#: generates from isobar_model.py).
VARIANTS = {
    "vecampfit likelihood": [],
    "vecampfit likelihood, generated density": ["--isobar"],
}


def build(directory, length, precision, extra=()):
    f = dz.build(directory, length, precision, 1, ["--no-background", *extra])
    lk = f.likelihood
    lk.cache = "never"
    lk.prepare()
    return f, lk


def overhead_check(directory, small_directory, repeat=41):
    """Per-call cost of vecampfit's full path (float64, L = 8, value) that
    does not grow with the events: the call on the small samples of
    ``small_directory`` and on the large ones, interleaved; the intercept of
    the straight line through the two points (CPU medians)."""
    fb, lkb = build(directory, 8, "float64")
    fs, lks = build(small_directory, 8, "float64")
    x = np.array(fb.initial_values, dtype=float)
    nb = lkb.points[0].data_events.n_events + lkb.points[0].norm_events.n_events
    ns_ = lks.points[0].data_events.n_events + lks.points[0].norm_events.n_events
    lkb.evaluate(x)
    lks.evaluate(x)
    cpu, _ = interleaved({"big": lambda: lkb.evaluate(x), "small": lambda: lks.evaluate(x)},
                         repeat)
    per_event = (cpu["big"] - cpu["small"]) / (nb - ns_)
    fixed = cpu["small"] - per_event * ns_
    print(f"full path, float64, L = 8: {cpu['big'] * 1e3:.3f} ms at {nb} events, "
          f"{cpu['small'] * 1e3:.3f} ms at {ns_} events: {per_event * 1e9:.2f} ns per event "
          f"+ {fixed * 1e3:.3f} ms per call ({fixed / nb * 1e9:.2f} ns per event of the "
          f"large sample)")


def main(argv=None):
    ap = benchmark_parser(__doc__, repeat=15,
                          lengths=",".join(str(x) for x in _build_config.VECTOR_LENGTHS),
                          directory=os.path.join(HERE, "results", "dz_samples"),
                          output=os.path.join(HERE, "results", "gap.md"))
    ap.add_argument("--extra-args", default="",
                    help="compiler arguments added to every build, vecampfit's models (through "
                         "VECAMPFIT_COMPILE_ARGS) and the C kernels alike: '-mno-avx512f' "
                         "measures an AVX-512 host as one without it")
    ap.add_argument("--overhead-check", metavar="SMALL_DIRECTORY",
                    help="only measure the per-call cost that does not grow with the events, "
                         "with the samples of SMALL_DIRECTORY (generate.py --events 1000 "
                         "--mc-events 10000) against the large ones")
    args = ap.parse_args(argv)
    d = args.directory
    if args.overhead_check:
        return overhead_check(d, args.overhead_check)
    dz.signal_samples(d)
    load = load_average()
    lengths = [int(x) for x in args.lengths.split(",")]
    extra = shlex.split(args.extra_args)
    if extra:
        os.environ["VECAMPFIT_COMPILE_ARGS"] = args.extra_args
    handwritten.compile_signal(lengths)
    kernels = compile_kernels(extra)
    data_f = model.record_fields(bench_laddu.read_records(
        os.path.join(d, "data_signal.root")))
    mc_f = model.record_fields(bench_laddu.read_records(
        os.path.join(d, "mc_signal.root")))
    cols = {dt: (CColumns(data_f, dt), CColumns(mc_f, dt)) for dt in (np.float64, np.float32)}
    n_data, n_mc = cols[np.float64][0].n, cols[np.float64][1].n
    n = n_data + n_mc

    # The parameter points: the table's values, and the couplings changed.
    f, lk = build(d, 8, "float64")
    names = list(f.likelihood.parameters.names)
    x1 = np.array(f.initial_values, dtype=float)
    x2 = x1.copy()
    for k, nm in enumerate(names):
        if nm.endswith("_A") and not nm.startswith("RHOP1"):
            x2[k] *= 1.1
        elif nm.endswith("_P") and not nm.startswith("RHOP1"):
            x2[k] += 7
    npar = len(model.parameter_names())
    sig_idx = [names.index(nm) for nm in model.parameter_names()]
    p1, p2 = x1[sig_idx], x2[sig_idx]
    del f, lk

    # Agreement of the C kernels with vecampfit.
    checks = []
    for precision, dt in (("float64", np.float64), ("float32", np.float32)):
        f, lk = build(d, 8, precision)
        v1, v2 = lk.evaluate(x1)[0], lk.evaluate(x2)[0]
        for label in FLAGS:
            like = kernels[label, dt][0]
            c1 = c_likelihood(like, *cols[dt], p1)()
            c2 = c_likelihood(like, *cols[dt], p2)()
            checks.append((precision, label, v1, c1, abs(c1 / v1 - 1), (v1 - v2) - (c1 - c2)))
        del f, lk
    for c in checks:
        print("check", c, flush=True)

    # Every L, interleaved with the C kernel of the first flags.
    scan = {}
    for precision, dt in (("float64", np.float64), ("float32", np.float32)):
        label = next(iter(FLAGS))
        like = kernels[label, dt][0]
        for length in lengths:
            f, lk = build(d, length, precision)
            lk.evaluate(x1)
            pts, st = [x1, x2], {"k": 0}

            def nxt():
                st["k"] ^= 1
                return pts[st["k"]]
            cpu, wall = interleaved({"v": lambda: lk.evaluate(nxt()),
                                     "c": c_likelihood(like, *cols[dt], p1)},
                                    max(3, args.repeat // 3))
            scan[precision, length] = (cpu["v"], cpu["c"], wall["v"], wall["c"])
            print(precision, length, scan[precision, length], flush=True)
            del f, lk

    # Best L against both C builds, and the density alone, interleaved.
    final = {}
    fm_checks = {}
    for precision, dt in (("float64", np.float64), ("float32", np.float32)):
        best = min(lengths, key=lambda L: scan[precision, L][0] / scan[precision, L][1])
        built = {label: build(d, best, precision, extra) for label, extra in VARIANTS.items()}
        lk = built["vecampfit likelihood"][1]
        dens = lk.points[0].signal
        bufs = (lk.points[0].data_events, lk.points[0].norm_events)
        agree = {}
        for label, (_, lkv) in built.items():
            agree[label] = abs(lkv.evaluate(x1)[0] / lk.evaluate(x1)[0] - 1)
        fm_checks[precision] = agree
        pts, st = [x1, x2], {"k": 0}

        def nxt():
            st["k"] ^= 1
            return pts[st["k"]]
        cases = {label: (lambda e: lambda: e(nxt()))(lkv.evaluate)
                 for label, (_, lkv) in built.items()}
        for label in FLAGS:
            like, dfn = kernels[label, dt]
            cases[f"C likelihood {label}"] = c_likelihood(like, *cols[dt], p1)
        cases["vecampfit density (data + MC)"] = lambda: [dens.evaluate(b, p1) for b in bufs]
        for label in FLAGS:
            dfn = kernels[label, dt][1]
            dd, dm = (c_density(dfn, c, p1) for c in cols[dt])
            cases[f"C density {label}"] = (lambda a, b: lambda: (a(), b()))(dd, dm)
        cpu, wall = interleaved(cases, args.repeat)
        final[precision] = (best, cpu, wall)
        print(precision, best, cpu, flush=True)
        del built, lk, dens, bufs

    ms, ns = 1e3, 1e9 / n
    lines = [
        "# D0 -> K- pi+ pi0: vecampfit's full likelihood against a hand-written C limit\n",
        f"Measured by `python benchmarks/bench_gap.py --repeat {args.repeat} --lengths "
        f"{args.lengths}" + (f" --extra-args='{args.extra_args}'" if extra else "") +
        f"` on {cpu_description()}" + (f" (every build, vecampfit's and C's, with "
                                 f"`{args.extra_args}` after its flags)" if extra else "") +
        ", "
        f"{os.cpu_count()} CPUs **shared with other jobs** (load average before the run "
        f"{load}), {os.environ.get('CC', 'cc')} "
        f"({subprocess.run([os.environ.get('CC', 'cc'), '--version'], capture_output=True, text=True).stdout.splitlines()[0]}); "
        f"{n_data} data + {n_mc} MC events (`examples/dz_kmpippiz/generate.py --seed 1`), "
        f"signal only, one thread.  vecampfit: `Likelihood.evaluate` value with "
        f"`cache=\"never\"` (the hand-written Cython density of benchmarks/dz_handwritten "
        f"compiled by vecampfit's model compiler with its own flags; at the best L also the "
        f"density that vecampfit.isobar "
        f"generates from `isobar_model.py`).  "
        f"C: `benchmarks/dz_likelihood_kernel.c`.  Times are "
        f"medians of the process CPU time of calls interleaved between the contenders "
        f"(steadier than wall time on a shared host; wall medians are given too); ns per "
        f"event divides by data + MC = {n}.\n",
        "## The same value\n",
        "| precision | C flags | F (vecampfit) | relative difference of F, C against "
        "vecampfit | difference of F(x1) - F(x2), C against vecampfit |",
        "|---|---|---|---|---|"]
    for precision, label, v1, c1, rel, dd in checks:
        lines.append(f"| {precision} | `{label}` | {v1:.6f} | {rel:.1e} | {dd:.1e} |")
    lines += ["", "x2: the couplings of x1 (magnitudes x 1.1, phases + 7 degrees except the "
              "reference).", "",
              "## Every vector length (interleaved with the C kernel, first flags)\n",
              "| precision | L | vecampfit ns/event (CPU) | C ns/event (CPU) | vecampfit / C |",
              "|---|---|---|---|---|"]
    for (precision, length), (v, c, wv, wc) in scan.items():
        lines.append(f"| {precision} | {length} | {v * ns:.2f} | {c * ns:.2f} | "
                     f"{v / c:.2f} |")
    lines += ["", "## Best L against the C limit (interleaved)\n",
              "| precision | best L | call | CPU ms per call | CPU ns/event | wall ms per call | "
              "ratio to the fastest C likelihood (CPU) |",
              "|---|---|---|---|---|---|---|"]
    summary = []
    for precision, (best, cpu, wall) in final.items():
        limit = min(cpu[f"C likelihood {label}"] for label in FLAGS)
        dlimit = min(cpu[f"C density {label}"] for label in FLAGS)
        for k in cpu:
            ref = limit if "likelihood" in k else dlimit
            lines.append(f"| {precision} | {best} | {k} | {cpu[k] * ms:.2f} | {cpu[k] * ns:.2f} | "
                         f"{wall[k] * ms:.2f} | {cpu[k] / ref:.2f} |")
        v = cpu["vecampfit likelihood"]
        vd = cpu["vecampfit density (data + MC)"]
        summary.append(f"- {precision}, at L = {best}: " + "; ".join(
            f"{k[len('vecampfit likelihood'):].strip(', ') or 'hand-written density'} "
            f"**{cpu[k] / limit:.2f}x**" for k in VARIANTS) + " the C limit")
        summary.append(
            f"- {precision}: vecampfit full likelihood at L = {best} is **{v / limit:.2f}x** "
            f"the C limit (target <= 1.15x); its density alone is {vd / dlimit:.2f}x the C "
            f"density kernel; what the likelihood adds to its density: "
            f"{(v - vd) * ns:.2f} ns/event (C: {(limit - dlimit) * ns:+.2f} ns/event, the fused "
            f"kernel against the density kernel that writes its output)")
    lines += ["", "(Ratios of density rows are to the fastest C density kernel.)", ""]
    lines += summary + [""]
    lines += ["Relative difference of F(x1) of each vecampfit likelihood to the first "
              "(hand-written density, default flags):", "",
              "| precision | " + " | ".join(VARIANTS) + " |",
              "|---|" + "---|" * len(VARIANTS)]
    for precision, agree in fm_checks.items():
        lines.append(f"| {precision} | " + " | ".join(f"{agree[k]:.1e}" for k in VARIANTS)
                     + " |")
    lines.append("")
    write_report("\n".join(lines) + "\n", args.output)


if __name__ == "__main__":
    main()
