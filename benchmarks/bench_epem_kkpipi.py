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

    python benchmarks/bench_epem_kkpipi.py [--events N] [--lengths 1,2,4,...]
                                           [--output benchmarks/results/epem_kkpipi.md]
"""

import argparse
import os
import platform
import sys

import numpy as np

from timing import best_time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "examples", "epem_kkpipi"))
import common  # noqa: E402
import config  # noqa: E402
import detector  # noqa: E402
import efficiency  # noqa: E402
import model  # noqa: E402

from vecampfit import generation  # noqa: E402
from vecampfit.fitter import Fitter  # noqa: E402
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
    f = Fitter(efficiency.initial_parameters(point), randomize=False, vector_length=length,
               precision=precision, threads=1, verbose=False)
    f.add_point(density, normalization="none").add_data(records)
    return f


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--events", type=int, default=20000)
    p.add_argument("--lengths", default="1,2,4,8,16")
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--output", default=None)
    args = p.parse_args(argv)
    lengths = [int(x) for x in args.lengths.split(",")]
    lines = ["# e+e- -> K K-bar pi pi: signal density and efficiency likelihood",
             "", f"{platform.processor() or platform.machine()}, one thread, "
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
    base = {}
    for length in lengths:
        row = [str(length)]
        for precision in ("float64", "float32"):
            d = common.signal_density_cython(mods, point, precision, length)
            buf = EventBuffer(d, precision, length, "benchmark events", use_fill=False)
            buf.append(fields)
            buf.freeze()
            t = best_time(lambda: d.evaluate(buf, params), args.repeat) / n * 1e9
            tg = best_time(lambda: d.evaluate(buf, params, gradient=True), args.repeat) / n * 1e9
            base.setdefault(precision, t)
            row += [f"{t:.0f}", f"{base[precision] / t:.2f}", f"{t_np / t:.1f}", f"{tg:.0f}"]
        say("| " + " | ".join(row) + " |")
    say(f"\nnumpy form: {t_np:.0f} ns per event (float64)")

    # -- efficiency likelihood with gradient -----------------------------------
    point = config.POINTS["kpkmpippim_2000_mev"]
    records = mc_records(point, args.events)
    x = efficiency.initial_parameters(point).values
    fn = efficiency_fitter(point, records, efficiency.density(point), "float64", 1)
    fn.evaluate(x, True)
    t_np = best_time(lambda: fn.evaluate(x, True), 2) / n * 1e9
    emods = common.compile_efficiency_density(lengths)
    say("")
    say("## Efficiency likelihood with gradient (K+ K- pi+ pi-, 2000 MeV, order 4), "
        "ns per event")
    say("")
    say("| L | float64 | vs L=1 | vs numpy | float32 | vs L=1 | vs numpy |")
    say("|---|---|---|---|---|---|---|")
    base = {}
    for length in lengths:
        row = [str(length)]
        for precision in ("float64", "float32"):
            d = efficiency.density_cython(emods, point, precision, length)
            f = efficiency_fitter(point, records, d, precision, length)
            f.evaluate(x, True)
            t = best_time(lambda: f.evaluate(x, True), args.repeat) / n * 1e9
            base.setdefault(precision, t)
            row += [f"{t:.0f}", f"{base[precision] / t:.2f}", f"{t_np / t:.1f}"]
        say("| " + " | ".join(row) + " |")
    say(f"\nnumpy form: {t_np:.0f} ns per event (float64)")
    if args.output:
        with open(args.output, "w") as fh:
            fh.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
