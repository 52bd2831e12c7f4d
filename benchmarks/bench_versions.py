"""Likelihood calls of this checkout against another version of vecampfit, in one run.

Two child processes, one per version (each its own Python environment with
that version installed, and its source tree for the example models), set up
the same likelihoods once: the D0 -> K- pi+ pi0 and GenFit3K isobar models
of the examples, compiled by each version's own isobar layer, over the same
data and normalization events, one thread.  The driver then asks them in
turn, round after round (the order alternating), for the time of a batch of
calls of each case:

- the full path (``cache="never"``), value and value + gradient;
- the cached path (``cache="always"``, the couplings free), value and
  value + gradient.

A slow spell of the host then falls on both versions alike; the report gives
the median per-call time of each case and version and their ratio, with the
F each version computes (the same events and parameters: they agree to
rounding).  Writes ``benchmarks/results/versions.md``::

    python benchmarks/bench_versions.py --other-python OLD/.venv/bin/python \\
        --other-root OLD [--data 100000] [--mc 1000000] [--repeat 9] [--cpu 1]

where ``OLD`` is a checkout of the other version (``git worktree add OLD
<commit>``) with its environment built as the README says.
"""

import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from timing import benchmark_parser, cpu_description, load_average, write_report  # noqa: E402

#: The example files that build the isobar models, in either version's tree.
MODELS = {
    "D0 -> K- pi+ pi0 (CLEO)": ("dz_kmpippiz", ("isobar_model.py",), {}),
    "B+ -> K+ K+ K- (GenFit3K)": ("laura_genfit3k", ("isobar_model3k.py", "isobar_model.py"),
                                  {"N_PHI": 0.7, "N_F2": 1.3, "N_NR": 2.1}),
}

CASES = ("full value", "full value + gradient", "cached value", "cached value + gradient")


# -- the child: one version ---------------------------------------------------------

def _build(root, folder, files):
    """The example's isobar model (``build()``) from a version's tree."""
    import importlib.util
    path = next(os.path.join(root, "examples", folder, f) for f in files
                if os.path.exists(os.path.join(root, "examples", folder, f)))
    sys.path.insert(0, os.path.dirname(path))
    spec = importlib.util.spec_from_file_location(f"bench_{folder}_model", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.build()


def _calls(model, constants, data, mc, length):
    """The four call kinds of one model (closures) and the parameter point."""
    from vecampfit.fitter import Likelihood
    compiled = model.compile((length,))
    density = compiled.density("float64", length, gradient=True, constants=constants or None)
    table = model.parameter_table()
    names = list(density.parameters)
    table = type(table)([p for p in table if p.name in names]) if len(table) != len(names) \
        else table
    x = np.array([p.value for p in table])
    couplings = [names[k] for k in density.components.coupling_parameters]
    out = {}
    for cache in ("never", "always"):
        lk = Likelihood(table, vector_length=length, threads=1, cache=cache)
        point = lk.add_point(density)
        point.add_data(data)
        point.add_normalization_events(mc)
        lk.prepare()
        free = couplings if cache == "always" else None
        if hasattr(lk, "free_parameters"):          # earlier versions: set on the object
            lk.free_parameters = free

            def call(gradient, lk=lk):
                return lk.evaluate(x, gradient)
        else:
            def call(gradient, lk=lk, free=free):
                return lk.evaluate(x, gradient, free=free)
        kind = "full" if cache == "never" else "cached"
        out[f"{kind} value"] = (lambda call=call: call(False))
        out[f"{kind} value + gradient"] = (lambda call=call: call(True))
    return out


def child(root, events, length, models):
    """Set up, answer ``<model>\t<case>\t<calls>`` lines with the wall and CPU
    seconds of the batch (one JSON line each)."""
    samples = np.load(events)
    calls, first = {}, {}
    for title in models:
        folder, files, constants = MODELS[title]
        model = _build(root, folder, files)
        tag = folder
        data = {v: samples[f"{tag}/data/{v}"] for v in model.variables}
        mc = {v: samples[f"{tag}/mc/{v}"] for v in model.variables}
        for case, f in _calls(model, constants, data, mc, length).items():
            calls[title, case] = f
            first[f"{title}\t{case}"] = float(np.asarray(f()[0] if isinstance(f(), tuple)
                                                         else f()).ravel()[0])
    import vecampfit
    print(json.dumps({"ready": True, "F": first, "file": vecampfit.__file__}), flush=True)
    for line in sys.stdin:
        title, case, n = line.rstrip("\n").split("\t")
        f = calls[title, case]
        t0, c0 = time.perf_counter(), time.process_time()
        for _ in range(int(n)):
            f()
        print(json.dumps({"wall": time.perf_counter() - t0, "cpu": time.process_time() - c0}),
              flush=True)


# -- the driver ---------------------------------------------------------------------

def make_events(path, n_data, n_mc):
    """Phase-space events of both models (this checkout's generator), saved to ``path``."""
    from bench_isobar import phase_space_records
    arrays = {}
    for title, (folder, files, _) in MODELS.items():
        model = _build(os.path.dirname(HERE), folder, files)
        for what, n, seed in (("data", n_data, 1), ("mc", n_mc, 2)):
            for v, x in phase_space_records(model, n, seed).items():
                arrays[f"{folder}/{what}/{v}"] = x
    np.savez(path, **arrays)


class Version:
    """A child process running one version."""

    def __init__(self, label, python, root, events, length, cpu, models):
        env = dict(os.environ, OMP_NUM_THREADS="1")
        cmd = [python, os.path.abspath(__file__), "--child", root, "--events", events,
               "--length", str(length), "--models", ",".join(models)]
        if cpu is not None:
            cmd = ["taskset", "-c", str(cpu)] + cmd
        self.label = label
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True, env=env, cwd=tempfile.gettempdir())
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"{label}: the child process ended during its set-up")
        self.info = json.loads(line)

    def time(self, title, case, n):
        self.proc.stdin.write(f"{title}\t{case}\t{n}\n")
        self.proc.stdin.flush()
        out = json.loads(self.proc.stdout.readline())
        return out["wall"] / n, out["cpu"] / n

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


def main(argv=None):
    ap = benchmark_parser(__doc__, data=100000, mc=1000000, repeat=9)
    ap.add_argument("--other-python", help="the other version's Python")
    ap.add_argument("--other-root", help="the other version's source tree")
    ap.add_argument("--other-label", default="other")
    ap.add_argument("--length", type=int, default=8, help="vector length L")
    ap.add_argument("--batch", type=int, default=3, help="calls per timed batch")
    ap.add_argument("--cpu", type=int, default=None, help="run both versions on this CPU")
    ap.add_argument("--models", default=",".join(MODELS),
                    help="the models to time, comma-separated (default: both)")
    ap.add_argument("--output", default=os.path.join(HERE, "results", "versions.md"))
    ap.add_argument("--child", help=argparse_suppress())
    ap.add_argument("--events", help=argparse_suppress())
    args = ap.parse_args(argv)
    models = [m for m in args.models.split(",") if m]
    unknown = [m for m in models if m not in MODELS]
    if unknown:
        ap.error(f"--models: unknown {unknown} (models: {', '.join(MODELS)})")
    if args.child:
        child(args.child, args.events, args.length, models)
        return
    if not (args.other_python and args.other_root):
        ap.error("--other-python and --other-root are needed")
    load0 = load_average()
    folder = tempfile.mkdtemp(prefix="bench_versions_")
    events = os.path.join(folder, "events.npz")
    make_events(events, args.data, args.mc)
    versions = [Version("this checkout", sys.executable, os.path.dirname(HERE), events,
                        args.length, args.cpu, models),
                Version(args.other_label, args.other_python, os.path.abspath(args.other_root),
                        events, args.length, args.cpu, models)]
    times = {}
    try:
        for r in range(args.repeat):
            order = versions if r % 2 == 0 else versions[::-1]
            for title in models:
                for case in CASES:
                    for v in order:
                        times.setdefault((title, case, v.label), []).append(
                            v.time(title, case, args.batch))
    finally:
        for v in versions:
            v.close()
    write_report(report(args, versions, times, models, load0, load_average()), args.output)


def argparse_suppress():
    import argparse
    return argparse.SUPPRESS


def report(args, versions, times, models, load0, load1):
    n = args.data + args.mc
    this, other = versions
    out = ["# Likelihood calls: this checkout against another version, in one run", "",
           f"{cpu_description()}; one thread{'' if args.cpu is None else f' on CPU {args.cpu}'}; "
           f"load average {load0} at the start, {load1} at the end.  {args.data} data + "
           f"{args.mc} normalization events (phase space), float64, L = {args.length}; "
           f"{args.repeat} rounds of {args.batch} calls per case and version, the two "
           f"versions in alternating order; medians of the CPU time per call.", "",
           f"- this checkout: `{this.info['file']}`",
           f"- {other.label}: `{other.info['file']}`", "",
           f"| model | call | this checkout, ns/event | {other.label}, ns/event | "
           f"this / {other.label} | F (this) | F ({other.label}) |",
           "| --- | --- | --- | --- | --- | --- | --- |"]
    for title in models:
        for case in CASES:
            a = np.median([c for _, c in times[title, case, this.label]])
            b = np.median([c for _, c in times[title, case, other.label]])
            key = f"{title}\t{case}"
            out.append(f"| {title} | {case} | {1e9 * a / n:.2f} | {1e9 * b / n:.2f} | "
                       f"{a / b:.3f} | {this.info['F'][key]:.6f} | "
                       f"{other.info['F'][key]:.6f} |")
    out += ["", "Command: `python benchmarks/bench_versions.py " + " ".join(
        sys.argv[1:]) + "`"]
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    main()
