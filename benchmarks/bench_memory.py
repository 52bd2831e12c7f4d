"""Memory of loading events into the fitter: peak resident memory against
the size of the event buffers.

Two cases, each in a process of its own, whose high-water mark (VmHWM) is
read after the events are loaded from a ROOT file and the fit prepared:

* ``one-field``: N events of one float64 field ``x`` (default 10 M), a
  Python density (the flat field layout);
* ``d0``: N D0 -> K- pi+ pi0 phase-space events (default 5 M) as the data of
  the example's signal fit: the compiled signal density (9 fields) and the
  background polynomial (2 fields), float64.

Each case runs twice: keeping every event of the file, and keeping every
second one (the same chunks are read from the file, half the events are
stored).  The growth of the peak over the memory before loading is
``a * buffers + c``: ``c`` is what does not depend on the number of events
(the interpreter, the libraries, one chunk being read and converted,
bounded by the ``step_size`` of the reading), ``a`` is the cost of the
events themselves, measured as the difference of the two runs divided by
the difference of their buffers (target: at most 1.3).  Writes
``benchmarks/results/memory.md``::

    python benchmarks/bench_memory.py [--one-field 10000000] [--d0 5000000]
"""

import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from timing import cpu_description  # noqa: E402
EXAMPLE = os.path.join(HERE, "..", "examples", "dz_kmpippiz")

CHILD = r"""
import json, os, sys
import numpy as np

def rss(key):
    with open("/proc/self/status") as f:
        return [int(l.split()[1]) * 1024 for l in f if l.startswith(key + ":")][0]

case, path, cache, every = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[5])
thin = None if every == 1 else (lambda arrays: {k: v[::every] for k, v in arrays.items()})
import uproot  # noqa: F401  (imported before the baseline, as a fit does)
from vecampfit.fitter import Density, FitParameter, Likelihood, ParameterTable
if case == "one-field":
    lk = Likelihood(ParameterTable([FitParameter("a", 0.5, 0.1)]), vector_length=8)
    pt = lk.add_point(Density(lambda ev, p: 1 + p[0] * ev["x"], parameters=["a"],
                              event_fields=["x"]), normalization="none")
    load = lambda: pt.load_data_file(path, "tree", ["x"], map_records=thin)
else:
    sys.path.insert(0, sys.argv[4])
    sys.path.insert(0, sys.argv[6])
    import common
    import handwritten
    from vecampfit.fitter import read_parameter_file
    table = read_parameter_file(os.path.join(sys.argv[4], "parameters_signal.dat"))
    lk = Likelihood(table, vector_length=8)
    pt = lk.add_point(handwritten.signal_density(handwritten.compile_signal([8], cache), 8,
                                                 "float64"), normalization="none")
    pt.add_background(common.background_density(8, "float64", cache),
                      common.BACKGROUND_FRACTION,
                      read_parameter_file(os.path.join(sys.argv[4], "parameters_background.dat")))
    load = lambda: pt.load_data_file(path, common.TREE, list(common.BRANCHES), map_records=thin)
before = rss("VmRSS")
load()
loaded = rss("VmHWM")
lk.prepare()
buffers = sum(b.blocks.nbytes if b.blocks is not None else
              sum(a.nbytes for a in b.fields.values()) for b in pt.data.values())
buffers += pt.background_matrix.nbytes
print("BENCH", json.dumps(dict(events=pt.data_events.n_events, before=before, loaded=loaded,
                               prepared=rss("VmHWM"), buffers=buffers)))
"""


def run(case, path, cache, every):
    out = subprocess.run([sys.executable, "-c", CHILD, case, path, cache, EXAMPLE, str(every),
                          os.path.join(HERE, "dz_handwritten")],
                         capture_output=True, text=True, check=True, cwd=EXAMPLE)
    line = [x for x in out.stdout.splitlines() if x.startswith("BENCH ")][-1]
    return json.loads(line[6:])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--one-field", type=int, default=10_000_000, help="events of the first case")
    ap.add_argument("--d0", type=int, default=5_000_000, help="events of the second case")
    ap.add_argument("--directory", default=os.path.join(HERE, "results", "memory_samples"))
    ap.add_argument("--model-cache", default=None)
    ap.add_argument("--output", default=os.path.join(HERE, "results", "memory.md"))
    args = ap.parse_args(argv)
    import numpy as np
    os.makedirs(args.directory, exist_ok=True)
    one = os.path.join(args.directory, f"one_field_{args.one_field}.root")
    if not os.path.exists(one):
        from vecampfit import root_io
        root_io.write_tree(one, {"x": np.random.default_rng(1).uniform(0, 1, args.one_field)})
    d0_dir = os.path.join(args.directory, f"d0_{args.d0}")
    d0 = os.path.join(d0_dir, "mc_signal.root")
    if not os.path.exists(d0):
        sys.path.insert(0, EXAMPLE)
        import generate
        os.makedirs(d0_dir, exist_ok=True)
        generate.main(["--directory", d0_dir, "--events", "1000", "--mc-events", str(args.d0),
                       "--background-events", "1000", "--seed", "1"])
    cache = args.model_cache or ""
    rows = []
    mb = 1 / 2 ** 20
    for case, path in (("one-field", one), ("d0", d0)):
        cache_dir = cache or os.path.join(args.directory, "models")
        half, full = run(case, path, cache_dir, 2), run(case, path, cache_dir, 1)
        slope = ((full["prepared"] - full["before"]) - (half["prepared"] - half["before"])) / \
            (full["buffers"] - half["buffers"])
        for r in (half, full):
            growth = r["prepared"] - r["before"]
            rows.append(f"| {case} | {r['events']:,} | {r['buffers'] * mb:.0f} | "
                        f"{r['before'] * mb:.0f} | {r['loaded'] * mb:.0f} | "
                        f"{r['prepared'] * mb:.0f} | {growth / r['buffers']:.2f} | "
                        f"{slope:.2f} | {(growth - slope * r['buffers']) * mb:.0f} |")
            print(rows[-1], flush=True)
    text = ("# Memory of loading events\n\n"
            f"Measured by `python benchmarks/bench_memory.py --one-field {args.one_field} --d0 "
            f"{args.d0}` on {cpu_description()}; MiB; 'before' is the "
            "resident memory before loading (interpreter, libraries, compiled models), "
            "'loaded' and 'prepared' the peak (VmHWM) after loading and after preparing the "
            "fit; growth = prepared - before = a * buffers + c, with a from the two runs of a "
            "case (every event, every second event of the same file).\n\n"
            "| case | events | event buffers | before | peak loaded | peak prepared | "
            "growth / buffers | a | c |\n|---|---|---|---|---|---|---|---|---|\n"
            + "\n".join(rows) + "\n")
    if args.output:
        os.makedirs(os.path.dirname(os.path.abspath(args.output)), exist_ok=True)
        with open(args.output, "w") as f:
            f.write(text)
    print(text)


if __name__ == "__main__":
    main()
