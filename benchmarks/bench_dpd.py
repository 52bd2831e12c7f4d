"""Three-body decays with spin (the Dalitz-plot decomposition) from the
model-exchange format: vecampfit against ampform-dpd, in one run.

For the LHCb Lambda_c+ -> p K- pi+ model
(``tests/data/amplitude_serialization/lc2ppik-lhcb-2683025.json``), on the
same events (``--data`` data + ``--mc`` normalization events, both uniform
in the Dalitz plot, different seeds), one thread:

* vecampfit: the set-up (reading the file, building the amplitude model,
  generating and compiling its Cython source in a fresh, empty compile
  cache, loading the events into a likelihood); the intensity alone
  (``Density.evaluate``, ns per event, with and without the gradient); a
  :class:`vecampfit.fitter.Likelihood` value call and value-plus-gradient
  call with all couplings free (every chain weight but the first), and
  with the lineshapes' masses and widths free as well;
* ampform-dpd 0.4.3 with tensorwaves' JAX backend (``pip install
  ampform-dpd tensorwaves jax``, a benchmark-only dependency): the model
  built from the same file by ``ampform_dpd.io.serialization``
  (``load_workspace``, ``compile_workspace``), with a fresh, empty ampform
  disk cache; its set-up, the intensity per event, and a likelihood value
  call with the couplings free (``tensorwaves.estimator.UnbinnedNLL`` of a
  parametrized function); JAX single-threaded through ``XLA_FLAGS``;
* both intensities compared at the data events.

For the Lambda_b -> p K- gamma and COMPASS pi- pi+ pi- models: vecampfit's
set-up and compile time, intensity and likelihood calls (couplings free,
and masses and widths free).

Calls are interleaved (contender after contender, ``--repeat`` rounds) and
medians of wall and process CPU time are reported, since the machine may be
shared.  Writes ``benchmarks/results/dpd.md``::

    OMP_NUM_THREADS=1 python benchmarks/bench_dpd.py [--data 100000] [--mc 1000000]
        [--repeat 7] [--models lc,lb,compass] [--no-ampform]
"""

import argparse
import os
import platform
import shutil
import statistics
import sys
import tempfile
import time

# JAX on one thread: set before jax is imported.
os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false "
                                   "intra_op_parallelism_threads=1")
os.environ.setdefault("JAX_ENABLE_X64", "1")

import numpy as np  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

from timing import cpu_description  # noqa: E402

DATA = os.path.join(ROOT, "tests", "data", "amplitude_serialization")
FILES = {"lc": "lc2ppik-lhcb-2683025.json", "lb": "lb2pkg-lhcb-2765817.json",
         "compass": "x2pipipi-compass-1391643.json"}
TITLES = {"lc": "LHCb Lambda_c+ -> p K- pi+", "lb": "LHCb Lambda_b -> p K- gamma",
          "compass": "COMPASS pi- pi+ pi-"}


# -- events ----------------------------------------------------------------------

def dalitz_points(masses, n, seed, chunk=200000):
    """``n`` points uniform in the Dalitz plot (dict sigma1, sigma2, sigma3 in
    GeV^2): uniform in (sigma1, sigma2) over the enclosing rectangle, kept
    where the helicity angle of pair 1 is physical."""
    from vecampfit.dpd import kinematics
    rng = np.random.default_rng(seed)
    m0, m1, m2, m3 = masses
    out = {"sigma1": [], "sigma2": [], "sigma3": []}
    have = 0
    while have < n:
        s1 = rng.uniform((m2 + m3) ** 2, (m0 - m1) ** 2, chunk)
        s2 = rng.uniform((m3 + m1) ** 2, (m0 - m2) ** 2, chunk)
        s3 = m0 ** 2 + m1 ** 2 + m2 ** 2 + m3 ** 2 - s1 - s2
        with np.errstate(invalid="ignore", divide="ignore"):
            c = kinematics.cos_theta(1, (s1, s2, s3), masses)
        ok = np.abs(c) < 1
        for k, v in (("sigma1", s1), ("sigma2", s2), ("sigma3", s3)):
            out[k].append(v[ok])
        have += int(ok.sum())
    return {k: np.concatenate(v)[:n] for k, v in out.items()}


# -- timing ----------------------------------------------------------------------

def interleaved(cases, repeat):
    """Median wall and process-CPU time (s) of each case, the cases timed one
    after another ``repeat`` times.  Returns {case: (wall, cpu)}."""
    wall = {k: [] for k in cases}
    cpu = {k: [] for k in cases}
    for _ in range(repeat):
        for k, f in cases.items():
            c0 = time.process_time()
            t0 = time.perf_counter()
            f()
            wall[k].append(time.perf_counter() - t0)
            cpu[k].append(time.process_time() - c0)
    return {k: (statistics.median(wall[k]), statistics.median(cpu[k])) for k in cases}


class Clock:
    """Named wall-time intervals."""

    def __init__(self):
        self.t = {}

    def __call__(self, name, f, *args, **kw):
        t0 = time.perf_counter()
        r = f(*args, **kw)
        self.t[name] = time.perf_counter() - t0
        return r


# -- vecampfit -------------------------------------------------------------------

def shape_names(dist):
    """The lineshapes' masses and widths (``<function>_mass``, ``_width``)."""
    return [n for n in dist.shape_parameters if n.endswith(("_mass", "_width"))]


def coupling_names(dist):
    """The default free parameters: every chain weight except the first."""
    return [p.name for p in dist.fit_parameters() if not p.fixed]


def vecampfit_setup(key, build_dir, data, mc, clock):
    """Read, build, compile (fresh cache), and the likelihoods; returns a dict."""
    from vecampfit.fitter import Likelihood
    from vecampfit.model_format import read_model
    mf = clock("read", read_model, os.path.join(DATA, FILES[key]))
    dist = next(iter(mf.distributions.values()))
    couplings = coupling_names(dist)
    shapes = shape_names(dist)
    am = clock("build", dist.amplitude_model)
    cm = clock("compile", am.compile, (8,), build_dir=build_dir)
    am_s = clock("build (masses, widths free)", dist.amplitude_model, free=couplings + shapes)
    cm_s = clock("compile (masses, widths free)", am_s.compile, (8,), build_dir=build_dir)
    if data is None:
        return dict(dist=dist, am=am, cm=cm, am_s=am_s, cm_s=cm_s, couplings=couplings,
                    shapes=shapes)
    out = dict(dist=dist, am=am, cm=cm, am_s=am_s, cm_s=cm_s, couplings=couplings,
               shapes=shapes)
    for label, model, compiled in (("couplings", am, cm), ("masses", am_s, cm_s)):
        def build():
            lk = Likelihood(model.parameter_table(), vector_length=8, threads=1,
                            cache="never")
            point = lk.add_point(compiled.density("float64", 8, gradient=True))
            point.add_data(data)
            point.add_normalization_events(mc)
            lk.prepare()
            return lk
        out[f"lk_{label}"] = clock(f"likelihood ({label} free): events, prepare", build)
    return out


def vecampfit_measure(s, data, mc, repeat):
    """Intensity and likelihood call times; returns a dict of results."""
    cm, cm_s = s["cm"], s["cm_s"]
    res = {}
    allev = {k: np.concatenate([data[k], mc[k]]) for k in data}
    n = len(allev["sigma1"])
    d_v = cm.density("float64", 8, gradient=False)
    d_g = cm.density("float64", 8, gradient=True)
    buf_v = d_v.event_buffer(allev, records=True)
    buf_g = d_g.event_buffer(allev, records=True)
    p0 = cm.parameter_vector()
    res["n_events"] = n
    res["n_parameters"] = len(cm.parameters)
    res["n_fields"] = len(cm.event_fields)
    res["n_fields_masses"] = len(cm_s.event_fields)
    res["components"] = d_g.components is not None
    d_sg = cm_s.density("float64", 8, gradient=True)
    buf_sg = d_sg.event_buffer(allev, records=True)
    p0s = cm_s.parameter_vector()
    cases = {
        "intensity": lambda: d_v.evaluate(buf_v, p0, gradient=False, threads=1),
        "intensity + gradient (couplings model)":
            lambda: d_g.evaluate(buf_g, p0, gradient=True, threads=1),
        "intensity (masses, widths free model)":
            lambda: d_sg.evaluate(buf_sg, p0s, gradient=False, threads=1),
        "intensity + gradient (masses, widths free model)":
            lambda: d_sg.evaluate(buf_sg, p0s, gradient=True, threads=1),
    }
    res["density"] = interleaved(cases, max(3, repeat // 2))
    del buf_g, buf_sg
    # Likelihood calls: alternate between two points (nothing reused).
    for label in ("couplings", "masses"):
        lk = s[f"lk_{label}"]
        x1 = lk.initial_values.copy()
        free = [i for i, p in enumerate(lk.parameters) if p.step > 0]
        x2 = x1.copy()
        x2[free] = x1[free] * 1.01
        pts, st = [x1, x2], {"k": 0}

        def nxt():
            st["k"] ^= 1
            return pts[st["k"]]
        f1 = lk.evaluate(x1)[0]
        v1, g1 = lk.evaluate(x1, True)
        res[f"F_{label}"] = (f1, v1, lk.evaluate(x2)[0], len(free), len(x1))
        cases = {"value": lambda: lk.evaluate(nxt()),
                 "value + gradient": lambda: lk.evaluate(nxt(), True)}
        res[f"lk_{label}"] = interleaved(cases, repeat)
    return res


# -- ampform-dpd -----------------------------------------------------------------

def ampform_setup(path, clock):
    """ampform-dpd's workspace, the intensity (file's parameter values) and a
    parametrized intensity with the couplings as parameters."""
    import sympy as sp
    from ampform_dpd.io import cached
    from ampform_dpd.io.serialization import compile_workspace, load_workspace
    from tensorwaves.function.sympy import create_parametrized_function
    ws = clock("load_workspace (formulate)", load_workspace, path)
    name = next(iter(ws.distributions))
    cw = clock("compile_workspace (jax)", compile_workspace, ws, backend="jax", targets=[name])
    model = ws.distributions[name]
    coords = cw.coordinates[name]

    def parametrized():
        expr = cached.unfold(model)
        expr = cached.xreplace(expr, model.variables)
        inv = {str(k): k for k in model.invariants}
        dep_name = (set(inv) - set(coords)).pop()
        dep = inv[dep_name]
        expr = cached.xreplace(expr, {dep: model.invariants[dep].xreplace(model.masses).doit()})
        couplings = {k: v for k, v in model.parameter_defaults.items()
                     if str(k).startswith("c^")}
        fixed = {k: v for k, v in model.parameter_defaults.items() if k not in couplings}
        expr = cached.xreplace(expr, fixed)
        expr = cached.doit(expr)
        return create_parametrized_function(expr, parameters=couplings, backend="jax"), couplings
    pf, couplings = clock("parametrized function (couplings free)", parametrized)
    return dict(ws=ws, cw=cw, name=name, coords=coords, f=cw.functions[name], pf=pf,
                couplings=couplings, sp=sp)


def ampform_measure(a, data, mc, repeat, clock):
    import jax
    from tensorwaves.estimator import UnbinnedNLL
    coords = a["coords"]
    allev = {c: np.concatenate([data[c], mc[c]]) for c in coords}
    f, pf = a["f"], a["pf"]
    res = {}
    clock("first intensity call (JIT) on all events",
          lambda: np.asarray(f(allev)))
    est = UnbinnedNLL(pf, {c: data[c] for c in coords}, {c: mc[c] for c in coords},
                      backend="jax")
    pars = {str(k): complex(v) for k, v in a["couplings"].items()}
    pars2 = {k: v * 1.01 for k, v in pars.items()}
    clock("first likelihood call (JIT)", lambda: float(est(pars)))
    pts, st = [pars, pars2], {"k": 0}

    def nxt():
        st["k"] ^= 1
        return pts[st["k"]]
    res["calls"] = interleaved({"intensity": lambda: np.asarray(f(allev)),
                                "likelihood value": lambda: float(est(nxt()))},
                               max(3, repeat // 2))
    res["F"] = (float(est(pars)), float(est(pars2)))
    res["jax"] = jax.__version__
    return res


def compare(a, s, data, npoints=2000):
    """Intensities at the first data events: the file's values (all chains),
    and with the Lambda(1405) chains (multichannel Breit-Wigner) switched off
    in both."""
    coords = a["coords"]
    ev = {k: v[:npoints] for k, v in data.items()}
    cm = s["cm"]
    out = {}
    v_all = cm.evaluate(ev)
    pf = a["pf"]
    pars = {str(k): complex(v) for k, v in a["couplings"].items()}
    pf.update_parameters(pars)
    a_all = np.asarray(pf({c: ev[c] for c in coords})).real
    out["all chains"] = v_all / a_all - 1
    off = {k: (0.0 if "L1405" in k else v) for k, v in pars.items()}
    pf.update_parameters(off)
    a_off = np.asarray(pf({c: ev[c] for c in coords})).real
    pf.update_parameters(pars)
    vals = {n: (0.0 if n.startswith("L1405_") and not n.startswith("L1405_Flatte")
                else v) for n, v in s["am"].values().items()}
    v_off = cm.evaluate(ev, vals)
    out["without the Lambda(1405) chains"] = v_off / a_off - 1
    out["_sample"] = (ev["sigma1"][:3], ev["sigma2"][:3], v_off[:3], a_off[:3])
    return out


# -- report ----------------------------------------------------------------------

def fmt_ms(t):
    return f"{t * 1e3:.1f}"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=int, default=100000)
    ap.add_argument("--mc", type=int, default=1000000)
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--models", default="lc,lb,compass")
    ap.add_argument("--no-ampform", action="store_true")
    ap.add_argument("--output", default=os.path.join(HERE, "results", "dpd.md"))
    args = ap.parse_args(argv)
    cmdline = "OMP_NUM_THREADS=1 python benchmarks/bench_dpd.py " + " ".join(
        argv if argv is not None else sys.argv[1:])
    load0 = os.getloadavg()
    import vecampfit
    from vecampfit.model_format import read_model
    lines, summary = [], {}
    results = {}
    tmp_root = tempfile.mkdtemp(prefix="bench_dpd_")
    try:
        for key in args.models.split(","):
            dist0 = next(iter(read_model(os.path.join(DATA, FILES[key])).distributions.values()))
            masses = dist0.model.masses
            data = dalitz_points(masses, args.data, 1)
            mc = dalitz_points(masses, args.mc, 2)
            clock = Clock()
            build_dir = os.path.join(tmp_root, key)
            t0 = time.perf_counter()
            s = vecampfit_setup(key, build_dir, data, mc, clock)
            setup_total = time.perf_counter() - t0
            print(key, "set-up", {k: round(v, 2) for k, v in clock.t.items()}, flush=True)
            r = vecampfit_measure(s, data, mc, args.repeat)
            print(key, "vecampfit", r, flush=True)
            results[key] = dict(setup=dict(clock.t), setup_total=setup_total, r=r, s=s)
            if key == "lc" and not args.no_ampform:
                aclock = Clock()
                cache = os.path.join(tmp_root, "xdg_cache")
                os.environ["XDG_CACHE_HOME"] = cache   # a fresh ampform disk cache
                t0 = time.perf_counter()
                try:
                    a = ampform_setup(os.path.join(DATA, FILES[key]), aclock)
                    ar = ampform_measure(a, data, mc, args.repeat, aclock)
                    ar["setup_total"] = time.perf_counter() - t0 - sum(
                        0 for _ in ())
                    ar["compare"] = compare(a, s, data)
                    ar["setup"] = dict(aclock.t)
                    results["ampform"] = ar
                    print("ampform", {k: round(v, 2) for k, v in aclock.t.items()}, ar["calls"],
                          flush=True)
                except Exception as e:   # report what could be measured
                    results["ampform_error"] = f"{type(e).__name__}: {e}"
                    results["ampform_partial"] = dict(aclock.t)
                    print("ampform failed:", results["ampform_error"], flush=True)
            del data, mc
            for k in ("lk_couplings", "lk_masses"):
                s.pop(k, None)
    finally:
        shutil.rmtree(tmp_root, ignore_errors=True)
    load1 = os.getloadavg()
    write_report(args, cmdline, results, load0, load1)


def write_report(args, cmdline, results, load0, load1):
    import vecampfit  # noqa: F401
    out = []
    w = out.append
    w("# Three-body decays with spin from the model-exchange format: vecampfit against ampform-dpd")
    w("")
    w(f"Measured by `{cmdline}` on {cpu_description()}, {os.cpu_count()} CPUs, Python "
      f"{platform.python_version()}, one thread.  The CPUs were **shared with other jobs**: "
      f"load average {' '.join(f'{x:.2f}' for x in load0)} at the start of the run, "
      f"{' '.join(f'{x:.2f}' for x in load1)} at its end.")
    w("")
    w("RESULTS")
    print("\n".join(out))
    print(results.keys())


if __name__ == "__main__":
    main()
