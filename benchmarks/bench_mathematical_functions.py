"""Time the block exp and log of vecampfit.mathematical_functions against numpy's.

Compiles tests/models/mathf_user_model.pyx once per vector length L (as a
user's model, tuned for this CPU unless --portable) and times its whole-array
driver of the block exp and log over N values (default 10^6), float32 and
float64, next to numpy.exp and numpy.log on the same arrays, in one process.
Prints ns per value and the ratio numpy time / block time (above 1: the
block routine is faster).  The driver is single-threaded; numpy too.

    python benchmarks/bench_mathematical_functions.py [--values N] [--repeat R] [--portable] [--lengths 1,2,4,...]
"""

import os

import numpy as np

from timing import benchmark_parser, best_time, cpu_description

from vecampfit import _build_config
from vecampfit.model_compiler import compile_model

HERE = os.path.dirname(os.path.abspath(__file__))
MODEL = os.path.join(HERE, "..", "tests", "models", "mathf_user_model.pyx")


def main():
    ap = benchmark_parser(__doc__, repeat=7, portable=True, values=1_000_000,
                          lengths=",".join(str(x) for x in _build_config.VECTOR_LENGTHS))
    ap.add_argument("--build-dir", default=None, help="model cache directory")
    args = ap.parse_args()
    lengths = [int(x) for x in args.lengths.split(",")]
    mods = compile_model(MODEL, lengths, native=not args.portable, build_dir=args.build_dir)

    n = args.values - args.values % 64
    rng = np.random.default_rng(1)
    # Arguments over the whole range of each function and precision.
    inputs = {
        ("exp", np.float64): lambda: rng.uniform(-700, 700, n),
        ("log", np.float64): lambda: np.exp(rng.uniform(-700, 700, n)),
        ("exp", np.float32): lambda: rng.uniform(-87, 88, n),
        ("log", np.float32): lambda: np.exp(rng.uniform(-87, 88, n)),
    }
    print(f"vecampfit block exp/log vs numpy, {n} values, best of {args.repeat}; "
          f"{cpu_description()}, numpy {np.__version__}, "
          f"{'portable' if args.portable else 'native'} tuning")
    print(f"{'function':8s} {'dtype':8s} {'numpy ns':>9s} " + " ".join(f"{'L=' + str(L):>8s}" for L in lengths))
    for name, code, numpy_fn in (("exp", 0, np.exp), ("log", 1, np.log)):
        for dtype in (np.float32, np.float64):
            x = inputs[name, dtype]().astype(dtype)
            out = np.empty_like(x)
            t_np = best_time(lambda: numpy_fn(x, out=out), args.repeat) / n * 1e9
            times = {}
            for L in lengths:
                mod = mods[L]
                mod.apply(x, x, out, code)      # warm up
                times[L] = best_time(lambda: mod.apply(x, x, out, code), args.repeat) / n * 1e9
            print(f"{name:8s} {np.dtype(dtype).name:8s} {t_np:9.2f} "
                  + " ".join(f"{times[L]:8.2f}" for L in lengths) + "   ns/value")
            print(f"{'':8s} {'':8s} {'ratio':>9s} "
                  + " ".join(f"{t_np / times[L]:8.2f}" for L in lengths) + "   numpy / block")


if __name__ == "__main__":
    main()
