"""Time per event of the D0 -> K- pi+ pi0 signal density for every vector length.

Compiles benchmarks/dz_handwritten/signal_density.pyx for each L (as a user's model)
and times the density alone (no likelihood) over N events in float32 and
float64, with and without the gradient, next to the numpy form of the same
model and a hand-written C kernel of the same formula (dz_density_kernel.c,
compiled here with the models' flags), in one process.  Prints ns per event,
the ratio to L = 1 and the ratio of the best L to the C kernel.

    python benchmarks/bench_dz_density.py [--events N] [--portable] [--lengths 1,2,4,...]
                                          [--output benchmarks/results/dz_density.md]

With ``--output``, also writes what it prints into that file as Markdown.
"""

import ctypes
import os
import subprocess
import sys
import tempfile

import numpy as np

from timing import benchmark_parser, best_time, load_average, cpu_description

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "dz_handwritten"))
import handwritten  # noqa: E402
import dz_reference as model  # noqa: E402  (on the path through handwritten)

MASSES = model.MASSES  # PDG 2024, GeV
SIGNAL_CONSTANTS = handwritten.CONSTANTS

from vecampfit import _build_config  # noqa: E402
from vecampfit.fitter import Density  # noqa: E402
from vecampfit.model_compiler import compile_model  # noqa: E402


def dalitz_fields(n, seed=1):
    rng = np.random.default_rng(seed)
    md, mk, mpi, mpi0 = MASSES["md"], MASSES["km"], MASSES["pip"], MASSES["piz"]
    s1, s2 = [], []
    while sum(len(x) for x in s1) < n:
        a = rng.uniform((mk + mpi) ** 2, (md - mpi0) ** 2, n)
        b = rng.uniform((mk + mpi0) ** 2, (md - mpi) ** 2, n)
        with np.errstate(invalid="ignore"):
            f = model.event_buffer_fields(a, b, MASSES)
        ok = np.all([np.isfinite(v) for v in f.values()], axis=0)
        s1.append(a[ok])
        s2.append(b[ok])
    return model.event_buffer_fields(np.concatenate(s1)[:n], np.concatenate(s2)[:n], MASSES)


def c_kernels(native):
    """The hand-written C kernel for float64 and float32, compiled with the
    flags of the models (-O3, -fno-math-errno, -march=native unless portable)."""
    source = os.path.join(HERE, "dz_density_kernel.c")
    folder = tempfile.mkdtemp(prefix="vecampfit_dz_kernel_")
    kernels = {}
    for dtype, define, name in ((np.float64, [], "dz_density_double"),
                                (np.float32, ["-DSINGLE"], "dz_density_float")):
        lib = os.path.join(folder, f"{name}.so")
        flags = ["-O3", "-fno-math-errno", "-shared", "-fPIC"] + (["-march=native"] if native else [])
        subprocess.run([os.environ.get("CC", "cc"), *flags, *define, "-o", lib, source, "-lm"],
                       check=True)
        f = getattr(ctypes.CDLL(lib), name)
        f.restype = None
        kernels[dtype] = f
    return kernels


def run_c_kernel(kernel, columns, params, n):
    """C kernel over contiguous field columns (list of arrays of one dtype)."""
    ctype = ctypes.c_double if columns[0].dtype == np.float64 else ctypes.c_float
    out = np.empty(n, columns[0].dtype)
    pointers = (ctypes.POINTER(ctype) * len(columns))(
        *[c.ctypes.data_as(ctypes.POINTER(ctype)) for c in columns])
    masses = np.array([MASSES["md"], MASSES["km"], MASSES["pip"], MASSES["piz"]])
    par = np.ascontiguousarray(params, dtype=np.float64)

    def call():
        kernel(out.ctypes.data_as(ctypes.POINTER(ctype)), pointers, ctypes.c_long(n),
               par.ctypes.data_as(ctypes.POINTER(ctypes.c_double)),
               masses.ctypes.data_as(ctypes.POINTER(ctypes.c_double)))
        return out
    return call


def main():
    ap = benchmark_parser(__doc__, repeat=5, portable=True, events=200_000,
                          lengths=",".join(str(x) for x in _build_config.VECTOR_LENGTHS))
    ap.add_argument("--output", help="also write the results as Markdown into this file")
    args = ap.parse_args()
    lines = []

    def report(text):
        print(text, flush=True)
        lines.append(text)

    load = load_average()
    lengths = [int(x) for x in args.lengths.split(",")]
    mods = compile_model(handwritten.SOURCE,
                         lengths, native=not args.portable)
    fields = dalitz_fields(args.events)
    d = model.default_parameters()
    params = np.array([d[n] for n in model.parameter_names()])
    n = args.events
    t_numpy = best_time(lambda: model.signal_density(fields, params, MASSES), max(1, args.repeat // 2))
    report(f"events: {n}, native: {not args.portable}; numpy model: {1e9 * t_numpy / n:.1f} ns/event")
    report(f"{'L':>3} {'f64 ns':>8} {'f32 ns':>8} {'f64 grad':>9} {'f32 grad':>9} "
          f"{'f64 x L1':>8} {'f32 x L1':>8} {'numpy/f64':>9}")
    kernels = c_kernels(not args.portable)
    reference = model.signal_density(fields, params, MASSES)
    t_c = {}
    for dtype, key in ((np.float64, "f64"), (np.float32, "f32")):
        columns = [np.ascontiguousarray(fields[f], dtype=dtype) for f in model.EVENT_FIELDS]
        call = run_c_kernel(kernels[dtype], columns, params, n)
        err = np.max(np.abs(call() / reference - 1))
        report(f"C kernel {key}: largest relative difference to the numpy model {err:.1e}")
        t_c[key] = best_time(call, args.repeat) / n * 1e9
    best = {}
    base = {}
    for length in lengths:
        row = {}
        for precision, key in (("float64", "f64"), ("float32", "f32")):
            dens = Density.from_model(mods[length], precision, constants=SIGNAL_CONSTANTS)
            blocks = dens.event_buffer(fields)
            row[key] = best_time(lambda: dens.evaluate(blocks, params), args.repeat) / n * 1e9
            row[key + "g"] = best_time(lambda: dens.evaluate(blocks, params, True),
                                       args.repeat) / n * 1e9
        if length == lengths[0]:
            base = row
        for key in ("f64", "f32"):
            best[key] = min(best.get(key, np.inf), row[key])
        report(f"{length:>3} {row['f64']:8.1f} {row['f32']:8.1f} {row['f64g']:9.1f} {row['f32g']:9.1f} "
              f"{base['f64'] / row['f64']:8.2f} {base['f32'] / row['f32']:8.2f} "
              f"{1e9 * t_numpy / n / row['f64']:9.1f}")
    for key in ("f64", "f32"):
        report(f"hand-written C kernel {key}: {t_c[key]:.1f} ns/event; best Cython L "
              f"{best[key]:.1f} ns/event, {best[key] / t_c[key]:.2f}x the C kernel")
    if args.output:
        os.makedirs(os.path.dirname(os.path.abspath(args.output)), exist_ok=True)
        with open(args.output, "w") as f:
            f.write("# D0 -> K- pi+ pi0: the signal density alone\n\n"
                    f"Measured by `python benchmarks/bench_dz_density.py --events {n} "
                    f"--lengths {args.lengths}{' --portable' if args.portable else ''}` on "
                    f"{cpu_description()}, {os.cpu_count()} CPUs, load "
                    f"average before the run {load}; best of {args.repeat} runs, one thread. "
                    "ns per event; the gradient columns include copying the 38 derivatives "
                    "of every event out of the blocks.\n\n```\n" + "\n".join(lines) + "\n```\n")


if __name__ == "__main__":
    main()
