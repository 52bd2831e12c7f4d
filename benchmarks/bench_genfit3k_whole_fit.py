"""The GenFit3K example's whole fit as a user runs it, against Laura++'s time per fit.

``fit3k.py``'s fit of each of Laura++'s own pseudoexperiments (the example's
data folder): Laura++'s two stages (coefficients, then also masses and
widths), HESSE and the fit fractions with their errors
(``genfit3k.Setup.fit``), one thread, float64, the model of
``isobar_model3k.py`` compiled by vecampfit.isobar; the set-up (grid,
compilation from the cache) is shared by the fits and reported apart.
Reports the median process CPU time and wall time of a whole fit and of its
minimization, and their ratio to Laura++'s CPU time per fit of these
pseudoexperiments (``bench_laura_genfit3k.LAURA_SECONDS_PER_FIT``, one
thread; measured with Laura++, not here).  Run it with
``OPENBLAS_NUM_THREADS=1`` for one thread throughout (numpy's linear
algebra in the fit fractions otherwise uses more)::

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_genfit3k_whole_fit.py [--repeat 3]
"""

import argparse
import os
import statistics
import sys
import time

from timing import cpu_description

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "examples", "laura_genfit3k"))

import fit3k  # noqa: E402
import genfit3k  # noqa: E402
from bench_laura_genfit3k import LAURA_SECONDS_PER_FIT  # noqa: E402


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--repeat", type=int, default=3, help="passes over the experiments")
    p.add_argument("--output", default=os.path.join(HERE, "results", "genfit3k_whole_fit.md"))
    args = p.parse_args(argv)
    load = " ".join(f"{v:.2f}" for v in os.getloadavg())
    t0 = time.perf_counter()
    setup = genfit3k.Setup(fit3k.make_parser().parse_args(["--laura", "--threads", "1"]),
                           verbose=False)
    setup_time = time.perf_counter() - t0
    samples = {k: genfit3k.read_events(setup.args.laura_file, k)
               for k in sorted(genfit3k.read_laura_results())}
    cpu, wall, fit_cpu, fit_wall, valid = [], [], [], [], 0
    for _ in range(args.repeat):
        for k, (m13, m23) in samples.items():
            c0, w0 = time.process_time(), time.perf_counter()
            r = setup.fit(m13, m23, seed=k)
            cpu.append(time.process_time() - c0)
            wall.append(time.perf_counter() - w0)
            fit_cpu.append(r["cpu_time"])
            fit_wall.append(r["wall_time"])
            valid += bool(r["valid"])
    med = {name: statistics.median(v) for name, v in
           (("cpu", cpu), ("wall", wall), ("fit_cpu", fit_cpu), ("fit_wall", fit_wall))}
    blas = os.environ.get("OPENBLAS_NUM_THREADS", "unset")
    lines = [
        "# GenFit3K: the whole fit as the example runs it, against Laura++", "",
        f"Measured by `OPENBLAS_NUM_THREADS={blas} python benchmarks/bench_genfit3k_whole_fit.py "
        f"--repeat {args.repeat}` on {cpu_description()} (load average before the run {load}). "
        f"{len(samples)} of Laura++'s pseudoexperiments (5000 events each), {len(cpu)} fits "
        f"({valid} valid); one thread, float64, the grid normalization of the example; set-up "
        f"(grid, unit normalization, compiled model from the cache) {setup_time:.1f} s once.", "",
        f"| per fit (median) | CPU (s) | wall (s) | Laura++ ({LAURA_SECONDS_PER_FIT:.1f} s CPU) "
        f"/ CPU |",
        "|---|---|---|---|",
        f"| minimization (two stages and HESSE) | {med['fit_cpu']:.3f} | {med['fit_wall']:.3f} | "
        f"{LAURA_SECONDS_PER_FIT / med['fit_cpu']:.0f}x |",
        f"| whole fit (with the fit fractions and their errors) | {med['cpu']:.3f} | "
        f"{med['wall']:.3f} | {LAURA_SECONDS_PER_FIT / med['cpu']:.0f}x |", ""]
    text = "\n".join(lines)
    print(text)
    with open(args.output, "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
