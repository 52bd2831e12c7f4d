"""Generated isobar densities before and after a change of the generator, in one run.

Builds the D0 -> K- pi+ pi0 (CLEO) and GenFit3K models of the examples'
isobar_model.py and isobar_model3k.py twice, with vecampfit.isobar as it is and with the
vecampfit.isobar of a git revision (default: the last one before the
expression layer), compiles both, checks that values and gradients agree,
and times the density alone (one thread, the calls interleaved round by
round, best round of each) for each precision and vector length.  Prints ns
per event and the ratio now / before at the best L of each.

    python benchmarks/bench_expressions.py [--before REV] [--events N]
        [--lengths 4,8,16] [--repeat 7] [--output benchmarks/results/expressions.md]

Needs git (the old generator is read with ``git archive``).
"""

import importlib.util
import io
import os
import subprocess
import sys
import tarfile
import tempfile

import numpy as np

from bench_isobar import density_call, g3k_events, interleaved_ns, load_example
from timing import benchmark_parser, cpu_description, write_report

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
BEFORE = "2ad9904"


def _isobar_at(rev):
    """vecampfit.isobar of a git revision, as the package ``vecampfit._isobar_<rev>``."""
    data = subprocess.run(["git", "-C", ROOT, "archive", rev, "vecampfit/isobar"],
                          check=True, capture_output=True).stdout
    folder = tempfile.mkdtemp(prefix="isobar_before_")
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        tar.extractall(folder, filter="data")
    path = os.path.join(folder, "vecampfit", "isobar")
    name = f"vecampfit._isobar_{rev}"
    spec = importlib.util.spec_from_file_location(name, os.path.join(path, "__init__.py"),
                                                  submodule_search_locations=[path])
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def dz_setup(n, seed, old):
    from vecampfit import generation
    models = {"now": load_example("dz_kmpippiz", "isobar_model", "dz_isobar_now").build(),
              "before": load_example("dz_kmpippiz", "isobar_model", "dz_isobar_before",
                                     old).build()}
    now = models["now"]
    ev = generation.phase_space(now.parent_mass, [now.daughter_mass(k) for k in range(3)], n,
                                seed=seed)
    s = now.kinematics(dict(zip(now.momenta, ev.momenta))).s
    return ("D0 -> K- pi+ pi0 (CLEO)", models, {"m2_km_pip": s[(0, 1)], "m2_km_piz": s[(0, 2)]},
            now.values(), {})


def g3k_setup(n, seed, old):
    records = g3k_events(n)
    models = {"now": load_example("laura_genfit3k", "isobar_model3k", "g3k_isobar_now").build(),
              "before": load_example("laura_genfit3k", "isobar_model3k", "g3k_isobar_before",
                                     old).build()}
    norm = {"PHI": 0.7, "F2": 1.3, "NR": 2.1}
    return ("B+ -> K+ K+ K- (GenFit3K)", models, records, models["now"].values(),
            {f"N_{k}": v for k, v in norm.items()})


def run(setup, lengths, n, repeat, seed, old, rev):
    title, models, records, x, consts = setup(n, seed, old)
    compiled = {k: m.compile(lengths, name=f"bench_expr_{k}_{abs(hash(title)) % 10 ** 6}")
                for k, m in models.items()}
    rows, agreement = [], []
    for precision in ("float64", "float32"):
        for gradient in (False, True):
            calls = {}
            for length in lengths:
                for label, c in compiled.items():
                    d = c.density(precision, length, gradient=gradient, constants=consts)
                    calls[label, length] = density_call(d, records, x, gradient)
            if precision == "float64":
                for length in lengths:
                    a, b = calls["now", length](), calls["before", length]()
                    a, b = (a, b) if gradient else ((a,), (b,))
                    value = np.max(np.abs(a[0] / b[0] - 1))
                    agreement.append((gradient, length, value,
                                      np.max(np.abs(a[1] - b[1])) / np.max(np.abs(b[1]))
                                      if gradient else None))
            times = interleaved_ns(calls, repeat, n)
            best = {k: min(lengths, key=lambda L: times[k, L]) for k in ("now", "before")}
            rows.append((precision, gradient, times, best))
    return title, rows, agreement


def report(results, lengths, n, repeat, rev):
    out = ["# Generated isobar densities: now against the generator of " + rev, "",
           f"{n} events, one thread, {cpu_description()}, ns per event (best of {repeat} "
           f"interleaved rounds).", ""]
    for title, rows, agreement in results:
        out += [f"## {title}", "",
                "| precision | gradient | " + " | ".join(f"before L={L} | now L={L}"
                                                       for L in lengths)
                + " | best before | best now | now/before |",
                "|" + "---|" * (2 + 2 * len(lengths) + 3)]
        for precision, gradient, t, best in rows:
            cells = " | ".join(f"{t['before', L]:.2f} | {t['now', L]:.2f}" for L in lengths)
            bb, bn = best["before"], best["now"]
            out.append(f"| {precision} | {'yes' if gradient else 'no'} | {cells} | "
                       f"{t['before', bb]:.2f} (L={bb}) | {t['now', bn]:.2f} (L={bn}) | "
                       f"{t['now', bn] / t['before', bb]:.3f} |")
        worst_v = max(a[2] for a in agreement)
        worst_g = max(a[3] for a in agreement if a[3] is not None)
        out += ["", f"float64 agreement over all L: values {worst_v:.1e} (relative), "
                    f"gradients {worst_g:.1e} (relative to the largest).", ""]
    return "\n".join(out)


def main(argv=None):
    ap = benchmark_parser(__doc__, repeat=7, events=200_000, lengths="4,8,16", seed=1,
                          models="dz,g3k", output=None)
    ap.add_argument("--before", default=BEFORE, help="git revision of the old generator")
    args = ap.parse_args(argv)
    lengths = [int(x) for x in args.lengths.split(",")]
    old = _isobar_at(args.before)
    setups = {"dz": dz_setup, "g3k": g3k_setup}
    results = [run(setups[k], lengths, args.events, args.repeat, args.seed, old, args.before)
               for k in args.models.split(",")]
    write_report(report(results, lengths, args.events, args.repeat, args.before) + "\n",
                 args.output)

if __name__ == "__main__":
    main()
