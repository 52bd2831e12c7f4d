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

Where the value-plus-gradient call's time goes (Lambda_c): the generated
source compiled again, as it is and with the lineshape derivative rows or
all derivative rows set to 0, each with gcc's vectorization report
(``-fopt-info-vec-optimized``), and their likelihood calls timed side by
side (``--no-profile`` skips this).

Calls are interleaved (contender after contender, ``--repeat`` rounds) and
medians of wall and process CPU time are reported, since the machine may be
shared.  Writes ``benchmarks/results/dpd.md``::

    OMP_NUM_THREADS=1 python benchmarks/bench_dpd.py [--data 100000] [--mc 1000000]
        [--repeat 7] [--models lc,lb,compass] [--no-ampform] [--no-profile]
"""

import gc
import os
import platform
import shutil
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

from timing import (benchmark_parser, cpu_description, interleaved_samples, medians,  # noqa: E402
                    write_report)

DATA = os.path.join(ROOT, "tests", "data", "amplitude_serialization")
FILES = {"lc": "lc2ppik-lhcb-2683025.json", "lb": "lb2pkg-lhcb-2765817.json",
         "compass": "x2pipipi-compass-1391643.json"}
PROFILE_MC = 300000   # normalization events of the gradient profile (three likelihoods at once)
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
    wall, cpu = (medians(v) for v in interleaved_samples(cases, repeat))
    return {k: (wall[k], cpu[k]) for k in cases}


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


def vecampfit_setup(key, build_dir, clock):
    """Read, build, compile (fresh cache); returns a dict."""
    from vecampfit.model_format import read_model
    mf = clock("read", read_model, os.path.join(DATA, FILES[key]))
    dist = next(iter(mf.distributions.values()))
    couplings = coupling_names(dist)
    shapes = shape_names(dist)
    am = clock("build", dist.amplitude_model)
    cm = clock("compile", am.compile, (8,), build_dir=build_dir)
    am_s = clock("build (masses, widths free)", dist.amplitude_model, free=couplings + shapes)
    cm_s = clock("compile (masses, widths free)", am_s.compile, (8,), build_dir=build_dir)
    out = dict(dist=dist, am=am, cm=cm, am_s=am_s, cm_s=cm_s, couplings=couplings,
               shapes=shapes)
    if dist.model.two_spins[0] % 2:
        # a polarized parent: couplings and polarization free
        out["am_p"] = clock("build (polarized)", dist.amplitude_model, polarized=True)
        out["cm_p"] = clock("compile (polarized)", out["am_p"].compile, (8,),
                            build_dir=build_dir)
    return out


def oriented(records, seed):
    """The records with an orientation of the decay plane, uniform (alpha,
    cos beta, gamma)."""
    rng = np.random.default_rng(seed)
    n = len(records["sigma1"])
    return dict(records, alpha=rng.uniform(-np.pi, np.pi, n), cos_beta=rng.uniform(-1, 1, n),
                gamma=rng.uniform(-np.pi, np.pi, n))


def polarized_calls(s, data, mc, repeat):
    """Likelihood calls of the polarized model, couplings and Px, Py, Pz free, on the
    full path and from the cached components (the orientation folded in)."""
    data, mc = oriented(data, 3), oriented(mc, 4)
    out = {}
    for cache in ("never", "always"):
        lk = build_likelihood(s["am_p"], s["cm_p"], data, mc, cache=cache)
        names = [p.name for p in lk.parameters if p.step > 0]
        x1 = lk.initial_values.copy()
        x1[[names.index(n) for n in ("Px", "Py", "Pz")]] = (0.2, 0.1, -0.6)
        free = [i for i, p in enumerate(lk.parameters) if p.step > 0]
        x2 = x1.copy()
        x2[free] = x1[free] * 1.01
        t0 = time.process_time()
        f1 = lk.evaluate(x1, free=names)[0]
        out[f"first call {cache}"] = time.process_time() - t0
        out[f"F {cache}"] = f1
        pts, st = [x1, x2], {"k": 0}

        def nxt():
            st["k"] ^= 1
            return pts[st["k"]]
        out[cache] = interleaved(
            {"value": lambda: lk.evaluate(nxt(), free=names),
             "value + gradient": lambda: lk.evaluate(nxt(), True, free=names)}, repeat)
        out["n_free"] = len(names)
        del lk
        gc.collect()
    return out


def build_likelihood(model, compiled, data, mc, cache="never"):
    """``Likelihood(cache=cache)`` of the model's density with the events loaded."""
    from vecampfit.fitter import Likelihood
    lk = Likelihood(compiled.parameter_table(), vector_length=8, threads=1, cache=cache)
    point = lk.add_point(compiled.density("float64", 8, gradient=True))
    point.add_data(data)
    point.add_normalization_events(mc)
    lk.prepare()
    return lk


def vecampfit_measure(s, data, mc, repeat, clock):
    """Intensity and likelihood call times; returns a dict of results."""
    cm, cm_s = s["cm"], s["cm_s"]
    res = {}
    allev = {k: np.concatenate([data[k], mc[k]]) for k in data}
    n = len(allev["sigma1"])
    d_v = cm.density("float64", 8, gradient=False)
    d_v32 = cm.density("float32", 8, gradient=False)
    d_g = cm.density("float64", 8, gradient=True)
    buf_v = d_v.event_buffer(allev, records=True)
    buf_v32 = d_v32.event_buffer(allev, records=True)
    # the gradient written out ((parameters, events) array): the data events only
    n_sub = len(data["sigma1"])
    buf_g = d_g.event_buffer(data, records=True)
    p0 = cm.parameter_vector()
    res["n_events"] = n
    res["n_parameters"] = len(cm.parameters)
    res["n_fields"] = len(cm.event_fields)
    res["n_fields_masses"] = len(cm_s.event_fields)
    res["same_source"] = cm.source_path == cm_s.source_path
    res["components"] = d_g.components is not None
    v64 = d_v.evaluate(buf_v, p0, gradient=False, threads=1)
    v32 = d_v32.evaluate(buf_v32, p0, gradient=False, threads=1)
    res["float32_difference"] = float(np.max(np.abs(v32 / v64 - 1)))
    del v64, v32
    cases = {
        "intensity": lambda: d_v.evaluate(buf_v, p0, gradient=False, threads=1),
        "intensity (float32)": lambda: d_v32.evaluate(buf_v32, p0, gradient=False, threads=1),
        "intensity + gradient (couplings model)":
            lambda: d_g.evaluate(buf_g, p0, gradient=True, threads=1),
    }
    res["density"] = interleaved(cases, max(3, repeat // 2))
    # per-event times of all cases as if over n events (the gradient cases ran on n_sub)
    for k in list(res["density"]):
        if "gradient" in k:
            w_, c_ = res["density"][k]
            res["density"][k] = (w_ * n / n_sub, c_ * n / n_sub)
    # the memory bandwidth one core reaches: a numpy sum over as many bytes
    stream = np.ones(res["n_fields"] * n)
    res["stream"] = interleaved({"sum": lambda: stream.sum()}, 3)["sum"]
    res["stream_bytes"] = stream.nbytes
    del buf_g, buf_v, buf_v32, allev, stream
    # Likelihood calls: alternate between two points (nothing reused).
    for label, model, compiled in (("couplings", s["am"], cm), ("masses", s["am_s"], cm_s)):
        lk = clock(f"likelihood ({label} free): events, prepare", build_likelihood, model,
                   compiled, data, mc)
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
        del lk, cases
        gc.collect()
    # The same calls with the couplings free from the cached components (X_kh of the
    # data events, the normalization matrix), the cache built by a first call.
    lk = build_likelihood(s["am"], cm, data, mc, cache="always")
    names = [p.name for p in lk.parameters if p.step > 0]
    x1 = lk.initial_values.copy()
    free = [i for i, p in enumerate(lk.parameters) if p.step > 0]
    x2 = x1.copy()
    x2[free] = x1[free] * 1.01
    t0 = time.process_time()
    f_cached = lk.evaluate(x1, free=names)[0]
    res["cache_build"] = time.process_time() - t0
    res["F_cached"] = (f_cached, res["F_couplings"][0])
    pts, st = [x1, x2], {"k": 0}

    def nxt_cached():
        st["k"] ^= 1
        return pts[st["k"]]
    res["lk_cached"] = interleaved(
        {"value": lambda: lk.evaluate(nxt_cached(), free=names),
         "value + gradient": lambda: lk.evaluate(nxt_cached(), True, free=names)}, repeat)
    del lk
    gc.collect()
    if "cm_p" in s:
        res["polarized"] = polarized_calls(s, data, mc, repeat)
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
    # a second point: every coupling but the first turned by a phase
    pars2 = {k: v * (np.exp(0.05j * i) if i else 1) for i, (k, v) in enumerate(pars.items())}
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


# -- profile of the gradient ---------------------------------------------------------

def gradient_variants(s, data, mc, build_dir, repeat):
    """Where the value-plus-gradient call's time goes: the generated source
    recompiled with the derivative rows of the lineshape parameters set to 0
    (the C compiler then drops their code), and with every derivative row set
    to 0 (what remains: the value inside the gradient function and the
    fitter's reduction of all rows); likelihood calls of each, interleaved."""
    import re
    from vecampfit.fitter import Density, Likelihood
    from vecampfit.model_compiler import compile_model
    cm, am, dist = s["cm"], s["am"], s["dist"]
    src = open(cm.source_path).read()
    shape = set(dist.shape_parameters)

    def variant(kind):
        out = []
        for line in src.split("\n"):
            m = re.match(r"(\s+g\[PAR_(\w+) \* VECTOR_LENGTH \+ i\]) = ", line)
            if m and (kind == "no derivatives" or m.group(2) in shape):
                line = m.group(1) + " = 0"
            out.append(line)
        return "\n".join(out)
    lines = src.split("\n")
    grad_def = next(k for k, ln in enumerate(lines) if ln.startswith("cdef void density_gradient"))
    dens_def = next(k for k, ln in enumerate(lines) if ln.startswith("cdef void density("))
    loop = "    for i in range(VECTOR_LENGTH):"
    loop_lines = {"density": 1 + next(k for k in range(dens_def, len(lines)) if lines[k] == loop),
                  "density_gradient": 1 + next(k for k in range(grad_def, len(lines))
                                               if lines[k] == loop)}
    modules, compile_times, vectorized = {}, {}, {}
    for kind, label in (("generated", f"generated ({len(cm.parameters)} derivative rows)"),
                        ("no shape", "lineshape derivative rows set to 0"),
                        ("no derivatives", "every derivative row set to 0")):
        name = "lc_" + kind.replace(" ", "_")
        path = os.path.join(build_dir, name + ".pyx")
        info = os.path.join(build_dir, name + ".vecinfo")
        with open(path, "w") as f:
            f.write(src if kind == "generated" else variant(kind))
        t0 = time.perf_counter()
        modules[label] = compile_model(path, [8], name=name, build_dir=build_dir,
                                       extra_compile_args=[f"-fopt-info-vec-optimized={info}"])[8]
        compile_times[label] = time.perf_counter() - t0
        text = open(info).read() if os.path.exists(info) else ""
        vectorized[label] = {fn: f"{name}_L8.pyx:{ln}:" in text and any(
            f"{name}_L8.pyx:{ln}:" in x and "loop vectorized" in x for x in text.split("\n"))
            for fn, ln in loop_lines.items()}
    cases, keep = {}, []
    for label, mod in modules.items():
        d = Density.from_model(mod, "float64", gradient=True,
                               fill_event_buffer=cm.fill_event_buffer, name=label)
        lk = Likelihood(am.parameter_table(), vector_length=8, threads=1, cache="never")
        point = lk.add_point(d)
        point.add_data(data)
        point.add_normalization_events(mc)
        lk.prepare()
        keep.append(lk)
        x1 = lk.initial_values.copy()
        pts = [x1, x1 * 1.01]
        st = {"k": 0}

        def nxt(st=st, pts=pts):
            st["k"] ^= 1
            return pts[st["k"]]
        cases[(label, "value")] = (lambda lk=lk, nxt=nxt: lk.evaluate(nxt()))
        cases[(label, "value + gradient")] = (lambda lk=lk, nxt=nxt: lk.evaluate(nxt(), True))
    return interleaved(cases, repeat), compile_times, vectorized


# -- report ----------------------------------------------------------------------

def ns(t, n):
    return f"{t / n * 1e9:.1f}"


def _one_model_setup(steps):
    """Seconds to read the file, build the model and compile it (the first
    variant, couplings free): what a user's set-up costs."""
    return steps["read"] + steps["build"] + steps["compile"]


def versions():
    out = {}
    for mod in ("vecampfit", "ampform_dpd", "tensorwaves", "jax", "sympy", "numpy"):
        try:
            from importlib.metadata import version
            out[mod] = version(mod.replace("_", "-"))
        except Exception:
            pass
    try:
        import subprocess
        out["commit"] = subprocess.run(["git", "-C", ROOT, "log", "-1", "--format=%h", "--",
                                        "vecampfit"],
                                       capture_output=True, text=True).stdout.strip()
    except Exception:
        pass
    return out


def main(argv=None):
    ap = benchmark_parser(__doc__, data=100000, mc=1000000, repeat=7, models="lc,lb,compass")
    ap.add_argument("--no-ampform", action="store_true")
    ap.add_argument("--no-profile", action="store_true",
                    help="skip the gradient profile (two more compilations of the Lambda_c model)")
    ap.add_argument("--output", default=os.path.join(HERE, "results", "dpd.md"))
    ap.add_argument("--cpu", type=int, default=None,
                    help="run the whole process on this one CPU (JAX's own threads included)")
    args = ap.parse_args(argv)
    if args.cpu is not None:
        os.sched_setaffinity(0, {args.cpu})
    argv = sys.argv[1:] if argv is None else argv
    cmdline = "OMP_NUM_THREADS=1 python benchmarks/bench_dpd.py" + "".join(
        " " + a for a in argv)
    load0 = os.getloadavg()
    from vecampfit.model_format import read_model
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
            s = vecampfit_setup(key, build_dir, clock)
            print(key, "set-up", {k: round(v, 2) for k, v in clock.t.items()}, flush=True)
            r = vecampfit_measure(s, data, mc, args.repeat, clock)
            print(key, "vecampfit", r, flush=True)
            results[key] = dict(setup=dict(clock.t), r=r, couplings=len(s["couplings"]),
                                shape_all=len(s["dist"].shape_parameters),
                                shapes=len(s["shapes"]), masses=masses)
            if key == "lc" and not args.no_ampform:
                aclock = Clock()
                os.environ["XDG_CACHE_HOME"] = os.path.join(tmp_root, "xdg_cache")
                try:
                    a = ampform_setup(os.path.join(DATA, FILES[key]), aclock)
                    ar = ampform_measure(a, data, mc, args.repeat, aclock)
                    ar["compare"] = compare(a, s, data)
                    ar["setup"] = dict(aclock.t)
                    ar["n_couplings"] = len(a["couplings"])
                    results["ampform"] = ar
                    print("ampform", ar["setup"], ar["calls"], flush=True)
                    del a
                    import jax
                    jax.clear_caches()
                except Exception as e:   # report what could be measured
                    import traceback
                    traceback.print_exc()
                    results["ampform_error"] = f"{type(e).__name__}: {e}"
                    results["ampform_partial"] = dict(aclock.t)
            gc.collect()
            if key == "lc" and not args.no_profile:
                n_prof = min(len(mc["sigma1"]), PROFILE_MC)
                results["profile"] = gradient_variants(
                    s, data, {k: v[:n_prof] for k, v in mc.items()}, build_dir, args.repeat)
                results["profile_events"] = (len(data["sigma1"]), n_prof)
                print("profile", results["profile"], flush=True)
            del data, mc, s
            gc.collect()
            # the report so far (a later failure keeps what was measured)
            with open(args.output, "w") as f:
                f.write(report(args, cmdline, results, load0, os.getloadavg()))
    finally:
        shutil.rmtree(tmp_root, ignore_errors=True)
    load1 = os.getloadavg()
    write_report(report(args, cmdline, results, load0, load1), args.output)


def report(args, cmdline, res, load0, load1):
    v = versions()
    n = args.data + args.mc
    out = []
    w = out.append
    w("# Three-body decays with spin from the exchange format: vecampfit against ampform-dpd")
    w("")
    w(f"Measured by `{cmdline}` on {cpu_description()}, {os.cpu_count()} CPUs "
      f"**shared with other jobs** (load average {' '.join(f'{x:.2f}' for x in load0)} at the "
      f"start of the run, {' '.join(f'{x:.2f}' for x in load1)} at its end); Python "
      f"{platform.python_version()}, vecampfit at {v.get('commit', '?')} (float64, L = 8, one "
      f"OpenMP thread{'' if args.cpu is None else f'; the whole process on CPU {args.cpu}'}), "
      f"ampform-dpd {v.get('ampform_dpd', '?')}, tensorwaves "
      f"{v.get('tensorwaves', '?')}, JAX {v.get('jax', '?')} (`XLA_FLAGS="
      f"{os.environ.get('XLA_FLAGS')}`, float64), sympy {v.get('sympy', '?')}.  "
      f"{args.data} data + {args.mc} normalization events per model, both uniform in the "
      f"Dalitz plot (seeds 1 and 2); ns per event divides a call by data + normalization = "
      f"{n} events.  Call times are medians over rounds in which the contenders are timed "
      f"one after another (likelihood calls: {args.repeat} rounds, alternating between two "
      f"parameter points so that nothing is reused; intensities: {max(3, args.repeat // 2)} "
      f"rounds); wall time and the process CPU time of the call are both given.  On this "
      f"shared host a one-thread call often waits for a core (CPU time / wall time below 1), "
      f"so the CPU time is the steadier measure and the ratios are given for both.")
    w("")
    w("Benchmark-only dependencies (not needed by vecampfit or its tests): "
      "`pip install ampform-dpd tensorwaves jax`.")
    w("")
    return "\n".join(out) + "\n" + body(args, res, n)


def findings(w, res, n):
    """What the profile shows, with the numbers of this run."""
    if "profile" not in res or "lc" not in res:
        return
    prof, ctimes, vec = res["profile"]
    n = sum(res["profile_events"])
    labels = list(dict.fromkeys(k[0] for k in prof))
    gen, noshape, nograd = labels

    def ratio(lab):
        return prof[(lab, "value + gradient")][1] / prof[(lab, "value")][1]

    def cost(lab, what="value + gradient"):
        return prof[(lab, what)][1] / n * 1e9
    r = res["lc"]["r"]
    npar = r["n_parameters"]
    shape_cost = cost(gen) - cost(noshape)
    nshape = res["lc"]["shape_all"]
    w("## Findings: why value + gradient is far above 3x the value")
    w("")
    w(f"1. **The lineshape derivatives stop the vectorization of the whole gradient loop.** "
      f"gcc {_gcc_version()} vectorizes the lane loop of the generated `density` "
      f"(`-fopt-info-vec`: {'yes' if vec[gen]['density'] else 'no'}) but not that of "
      f"`density_gradient` ({'yes' if vec[gen]['density_gradient'] else 'no'}: \"couldn't "
      f"vectorize loop ... not vectorized: unsupported use in stmt\").  The same source with "
      f"the derivative rows of the masses and widths set to 0 vectorizes "
      f"({'yes' if vec[noshape]['density_gradient'] else 'no'}) and its value + gradient call "
      f"costs {cost(noshape):.0f} CPU ns/event, {ratio(noshape):.1f}x its value call, against "
      f"{cost(gen):.0f} ns/event ({ratio(gen):.1f}x) with them: the lineshape rows cost "
      f"{shape_cost:.0f} ns/event, {100 * shape_cost / cost(gen):.0f}% of the call, mostly "
      f"because everything else in the loop (the value, the adjoint rotations, the "
      f"{npar - nshape} coupling rows) then "
      f"runs one lane at a time.  The derivative code itself is plain arithmetic (no library "
      f"calls, one division per lineshape), and one row is enough: in a separate test the "
      f"source with only the Lambda(1520) mass row kept (or only its width row, or only the "
      f"three Lambda(1405) rows) did not vectorize either.  A second loop over the lanes for "
      f"the lineshape rows would keep the first one vectorized whatever the rejected "
      f"statement is.")
    diff = cost(noshape) - cost(nograd)
    if abs(diff) < 0.15 * cost(nograd):
        coupling_cost = (f"the {npar - nshape} coupling rows of the vectorized variant cost "
                         f"little: the two calls differ by {diff:.0f} ns/event, within the "
                         f"noise of this shared host")
    else:
        coupling_cost = (f"the {npar - nshape} coupling rows of the vectorized variant add "
                         f"{diff:.0f} ns/event")
    w(f"2. **The couplings' derivatives are cheap once the loop is vectorized.**  With every "
      f"derivative row set to 0 the call costs {cost(nograd):.0f} ns/event "
      f"({ratio(nograd):.1f}x the value); {coupling_cost}.  What remains above the value "
      f"({cost(nograd) - cost(nograd, 'value'):.0f} ns/event) is the value computed again "
      f"inside `density_gradient`, the local gradient array of {npar} x L copied out, and the "
      f"fitter's reduction of all {npar} rows per event (`_kernels.data_sums` / "
      f"`normalization_sums` with `ng = density.n_parameters`).")
    w(f"3. **Every derivative is computed whatever is free.**  The density has all {npar} "
      f"parameters of the file whether or not they are free in the fit (`amplitude_model(free="
      f"...)` only sets the parameter table's steps; the generated source is "
      f"{'the same' if r['same_source'] else 'different'}), and the fitter asks the gradient "
      f"function for all rows: a fit with only the couplings free pays "
      f"{shape_cost:.0f} ns/event for {nshape} lineshape rows (masses, widths and the "
      f"Flatte couplings) it throws away, and computes the rows of the first chain's fixed "
      f"weight too.")
    w("4. The fitter's own work is not the bottleneck: the likelihood value call is as fast "
      "per event as the intensity alone, and the reduction of the rows is part of the "
      f"{cost(nograd) - cost(nograd, 'value'):.0f} ns/event of item 2.")
    w("")
    w("Suggestions, in order of expected gain:")
    w("")
    w(f"- Generate the lineshape derivative rows in a separate lane loop after the first (or "
      f"find and rewrite the statement that defeats gcc's vectorizer), so that the value, the "
      f"adjoint rotations and the coupling rows stay vectorized: the variant without them "
      f"shows {ratio(noshape):.1f}x for couplings-only fits; the lineshape rows, vectorized, "
      f"should then cost a fraction of today's {shape_cost:.0f} ns/event.")
    w("- Compile the gradient for the fit's free parameters only (fixed parameters as "
      "constants, or a run-time mask that skips the lineshape rows and the rows of fixed "
      "couplings), and let the fitter reduce only the free rows; a couplings-only fit would "
      f"then run the {ratio(noshape):.1f}x variant measured above.")
    w("- Describe the components (`component_description`) in the generated density, so that "
      "couplings-only fits can use the fitter's cached path (`cache=\"auto\"`), whose "
      "value and gradient cost a small matrix product per call instead of the model per event.")
    w("")
    for k in ("lb", "compass"):
        if k in res:
            rr = res[k]["r"]
            g = rr["lk_couplings"]["value + gradient"][1] / rr["lk_couplings"]["value"][1]
            w(f"- {TITLES[k]}: value + gradient / value {g:.1f}x (CPU, couplings free) with "
              f"{rr['n_parameters']} derivative rows ({rr['n_parameters'] - res[k]['shape_all']}"
              f" of couplings); not profiled separately.")
    w("")


def _gcc_version():
    import subprocess
    try:
        out = subprocess.run(["gcc", "-dumpfullversion"], capture_output=True, text=True)
        return out.stdout.strip()
    except OSError:
        return "?"


def body(args, res, n):
    out = []
    w = out.append
    lc = res.get("lc")
    a = res.get("ampform")

    def row(*cells):
        w("| " + " | ".join(str(c) for c in cells) + " |")

    def wc(pair):
        wall, cpu = pair
        return f"{ns(wall, n)} | {ns(cpu, n)} | {cpu / wall:.2f}"
    targets = []
    if lc:
        r = lc["r"]
        w(f"## {TITLES['lc']}: per event")
        w("")
        w(f"{r['n_parameters']} density parameters ({lc['couplings']} couplings free: every chain "
          f"weight but the first; {lc['shapes']} lineshape masses and widths), "
          f"{r['n_fields']} event fields.")
        w("")
        row("call", "wall ns/event", "CPU ns/event", "CPU / wall")
        row("---", "---", "---", "---")
        d = r["density"]
        row("vecampfit intensity (`Density.evaluate`)", wc(d["intensity"]))
        row(f"vecampfit intensity in float32 (largest relative difference to float64 "
            f"{r['float32_difference']:.1e})", wc(d["intensity (float32)"]))
        row(f"vecampfit intensity + gradient, all {r['n_parameters']} derivatives written out "
            f"(`Density.evaluate`, timed on the data events)",
            wc(d["intensity + gradient (couplings model)"]))
        for label, title in (("couplings", f"{lc['couplings']} couplings free"),
                             ("masses", f"couplings, masses and widths free "
                                        f"({r['F_masses'][3]} parameters)")):
            L_ = r[f"lk_{label}"]
            row(f"vecampfit likelihood value, {title}", wc(L_["value"]))
            row(f"vecampfit likelihood value + gradient, {title}", wc(L_["value + gradient"]))
        if "lk_cached" in r:
            L_ = r["lk_cached"]
            row(f"vecampfit likelihood value, {lc['couplings']} couplings free, cached "
                f"components", wc(L_["value"]))
            row(f"vecampfit likelihood value + gradient, {lc['couplings']} couplings free, "
                f"cached components", wc(L_["value + gradient"]))
        pol = r.get("polarized")
        if pol:
            for cache, how in (("never", "full path"), ("always", "cached components")):
                for what in ("value", "value + gradient"):
                    row(f"vecampfit likelihood {what}, polarized, {pol['n_free'] - 3} couplings "
                        f"and Px, Py, Pz free, {how}", wc(pol[cache][what]))
        if a:
            row("ampform-dpd + tensorwaves (JAX) intensity", wc(a["calls"]["intensity"]))
            row(f"ampform-dpd + tensorwaves (JAX) likelihood value (`UnbinnedNLL`, "
                f"{a['n_couplings']} complex couplings free)", wc(a["calls"]["likelihood value"]))
        w("")
        for lab, size in (("intensity", 8), ("intensity (float32)", 4)):
            t_ = d[lab][1] / r["n_events"]
            w(f"- {lab}: the event buffer streams {r['n_fields'] * size} bytes per event "
              f"({r['n_fields']} fields of {size} bytes): {r['n_fields'] * size / t_ / 1e9:.1f} "
              f"GB/s at {t_ * 1e9:.1f} CPU ns/event.")
        w(f"- a numpy sum over an array of as many float64 bytes streams "
          f"{r['stream_bytes'] / r['stream'][1] / 1e9:.1f} GB/s on this host (CPU time).")
        w("")
        w("(The likelihood is `vecampfit.fitter.Likelihood(cache=\"never\")`, every call "
          "evaluating the whole model, F = -2 sum ln(S_i / sum_j S_j) over data events i and "
          "normalization events j; the cached rows use `cache=\"always\"` with the couplings "
          "free: the components X_kh of the data events (K H complex numbers per event) and "
          f"the matrix of the normalization events, built by a first call in "
          f"{r['cache_build']:.2f} s of CPU; its F at the file's values "
          f"{r['F_cached'][0]:.6f} against {r['F_cached'][1]:.6f} on the full path.)")
        pol = r.get("polarized")
        if pol:
            w("")
            w("(The polarized rows: the data and normalization events with a uniform "
              "orientation of the decay plane; the cached path stores the components with the "
              "orientation folded in and one normalization matrix per entry of the spin-density "
              f"matrix, built by a first call in {pol['first call always']:.2f} s of CPU; its F "
              f"{pol['F always']:.6f} against {pol['F never']:.6f} on the full path.)")
        w("")
        if a:
            w("### Ratios in this run")
            w("")
            row("ratio", "wall", "CPU", "target", "met")
            row("---", "---", "---", "---", "---")
            for what, num, den, target, cmp in (
                    ("ampform-dpd intensity / vecampfit intensity", a["calls"]["intensity"],
                     d["intensity"], ">= 50x", "ge"),
                    ("ampform-dpd intensity / vecampfit intensity in float32",
                     a["calls"]["intensity"], d["intensity (float32)"], ">= 50x", "ge"),
                    ("ampform-dpd likelihood value / vecampfit likelihood value (couplings free)",
                     a["calls"]["likelihood value"], r["lk_couplings"]["value"], ">= 50x", "ge"),
                    ("ampform-dpd likelihood value / vecampfit likelihood value (couplings free, "
                     "cached components)", a["calls"]["likelihood value"],
                     r["lk_cached"]["value"], ">= 50x", "ge")) + ((
                    ("ampform-dpd likelihood value (unpolarized) / vecampfit likelihood value "
                     "(polarized, couplings and polarization free, cached components)",
                     a["calls"]["likelihood value"], r["polarized"]["always"]["value"],
                     ">= 50x", "ge"),) if r.get("polarized") else ()):
                rw, rc = num[0] / den[0], num[1] / den[1]
                ok = min(rw, rc) >= 50
                row(what, f"{rw:.1f}x", f"{rc:.1f}x", target, "**yes**" if ok else "**no**")
                targets.append((what, f"{rc:.1f}x (CPU), {rw:.1f}x (wall)", target, ok))
        else:
            row("ratio", "wall", "CPU", "target", "met")
            row("---", "---", "---", "---", "---")
        for label, title in (("couplings", "couplings free"),
                             ("cached", "couplings free, cached components: the path "
                              "`cache=\"auto\"` takes when only couplings move"),
                             ("masses", "couplings, masses and widths free")):
            if f"lk_{label}" not in r:
                continue
            L_ = r[f"lk_{label}"]
            rw = L_["value + gradient"][0] / L_["value"][0]
            rc = L_["value + gradient"][1] / L_["value"][1]
            ok = max(rw, rc) <= 3
            row(f"vecampfit likelihood value + gradient / value ({title})", f"{rw:.1f}x",
                f"{rc:.1f}x", "<= 3x", "**yes**" if ok else "**no**")
            targets.append((f"value + gradient / value ({title})",
                            f"{rc:.1f}x (CPU), {rw:.1f}x (wall)", "<= 3x", ok))
        w("")
        f1, v1, f2, nfree, npar = r["F_couplings"]
        w(f"- vecampfit F at the file's values {f1:.6f} (the same from the value and the value "
          f"+ gradient call: {v1:.6f}); at the free couplings x 1.01 (the second point of the "
          f"timed calls): {f2:.6f}")
        if a:
            w(f"- ampform-dpd `UnbinnedNLL` (a negative log-likelihood normalized by the mean "
              f"intensity of the normalization events) at the file's values {a['F'][0]:.6f}, at "
              f"the second point of its timed calls (every coupling but the first turned by "
              f"0.05 k rad) {a['F'][1]:.6f}")
        w("")
        w(f"## {TITLES['lc']}: set-up")
        w("")
        row("step", "seconds")
        row("---", "---")
        for k, t_ in lc["setup"].items():
            row("vecampfit: " + k, f"{t_:.2f}")
        total = sum(t_ for k, t_ in lc["setup"].items() if not k.startswith("likelihood"))
        one = _one_model_setup(lc["setup"])
        row("**vecampfit: reading, building, compiling (every model above)**", f"**{total:.1f}**")
        targets.append(("vecampfit set-up, Lambda_c (read, build, compile in an empty cache)",
                        f"{one:.1f} s (every variant above: {total:.1f} s)", "< 60 s", one < 60))
        if a:
            for k, t_ in a["setup"].items():
                row("ampform-dpd: " + k, f"{t_:.2f}")
            at = sum(a["setup"].values())
            ai = sum(a["setup"][k] for k in ("load_workspace (formulate)", "compile_workspace (jax)",
                                             "first intensity call (JIT) on all events"))
            row("ampform-dpd: the intensity alone (load, compile_workspace, first call)",
                f"{ai:.1f}")
            row("**ampform-dpd: all of the above**", f"**{at:.1f}**")
        w("")
        w("vecampfit's steps: `read_model`; `Distribution.amplitude_model()` (couplings free); "
          "`AmplitudeModel.compile((8,), build_dir=<new empty directory>)` (Cython source "
          "generated, cythonized and compiled with -march=native); the same for the model with "
          "masses and widths free (" + (
          "its generated source is the same, found in the compile cache: fixing or freeing "
          "a parameter does not change the code" if lc["r"]["same_source"] else
          "a different source") + "); for a polarized parent the model of `amplitude_model(polarized=True)` too; then the "
          "likelihoods (event buffers of the data and normalization events, `prepare`).  "
          "ampform-dpd's steps: `load_workspace` (sympy formulation), `compile_workspace("
          "backend=\"jax\")` (unfolding, substituting the parameters, `doit`, lambdify) with "
          "an empty ampform disk cache (`XDG_CACHE_HOME`), the same expression with the "
          "couplings kept as symbols for `create_parametrized_function`, and the first calls "
          "on the events (JAX's tracing and XLA compilation).  ampform-dpd's JAX gradient was "
          "not timed (reported to need minutes of compilation).")
        w("")
        if a:
            c = a["compare"]
            w("## The two intensities agree")
            w("")
            w(f"At the first {len(next(iter(v for k, v in c.items() if not k.startswith('_'))))}"
              f" data events, the file's parameter values:")
            w("")
            row("chains", "largest |vecampfit / ampform-dpd - 1|", "median")
            row("---", "---", "---")
            for k, v in c.items():
                if k.startswith("_"):
                    continue
                row(k, f"{np.max(np.abs(v)):.1e}", f"{np.median(np.abs(v)):.1e}")
            s1, s2, vv, av = c["_sample"]
            w("")
            w("Without the Lambda(1405) chains, at three of these events:")
            w("")
            row("sigma1 (GeV^2)", "sigma2 (GeV^2)", "vecampfit", "ampform-dpd")
            row("---", "---", "---", "---")
            for i in range(len(s1)):
                row(f"{s1[i]:.6f}", f"{s2[i]:.6f}", f"{vv[i]:.12e}", f"{av[i]:.12e}")
            w("")
            w("The Lambda(1405) chains are the model's only multichannel Breit-Wigner "
              "(`L1405_Flatte`); ampform-dpd 0.4.3 writes its width sum without the factor m0 "
              "the format specifies, which is why it misses two of the file's eleven checksums "
              "(vecampfit reproduces all of them, `tests/test_model_format.py`).  With those "
              "two chains' couplings set to zero in both programs the intensities agree to "
              "rounding; with them the difference is that of the lineshape.")
            w("")
        elif "ampform_error" in res:
            w(f"ampform-dpd could not be measured: {res['ampform_error']} (after "
              f"{res.get('ampform_partial')}).")
            w("")
    other = [k for k in ("lb", "compass") if k in res]
    if other:
        w("## The Lambda_b and COMPASS models (vecampfit)")
        w("")
        row("model", "parameters (couplings free)", "event fields", "set-up s (read, build, "
            "compile)", "intensity ns/event (CPU)", "value, couplings free (CPU)",
            "value + gradient, couplings free (CPU)", "value, + masses, widths (CPU)",
            "value + gradient, + masses, widths (CPU)", "gradient / value")
        row(*(["---"] * 10))
        for k in other:
            r = res[k]["r"]
            st = res[k]["setup"]
            total = sum(t_ for kk, t_ in st.items() if not kk.startswith("likelihood"))
            if k == "lb":
                one = _one_model_setup(st)
                targets.append(("vecampfit set-up, Lambda_b (read, build, compile in an empty "
                                "cache)", f"{one:.1f} s (every variant: {total:.1f} s)",
                                "< 120 s", one < 120))
            lcp, lms = r["lk_couplings"], r["lk_masses"]
            row(TITLES[k], f"{r['n_parameters']} ({res[k]['couplings']})", r["n_fields"],
                f"{total:.1f} (compile {st['compile']:.1f})",
                f"{ns(r['density']['intensity'][1], n)}",
                ns(lcp["value"][1], n), ns(lcp["value + gradient"][1], n),
                ns(lms["value"][1], n), ns(lms["value + gradient"][1], n),
                f"{lcp['value + gradient'][1] / lcp['value'][1]:.1f}x / "
                f"{lms['value + gradient'][1] / lms['value'][1]:.1f}x")
        w("")
        w("(CPU ns per event; the set-up sums `read_model`, `amplitude_model` and `compile` in "
          "an empty cache directory for every variant measured: couplings free, masses and "
          "widths free and, for a parent with spin, polarized; `compile` is the first alone; "
          "gradient / value: couplings free / couplings, masses and widths free.)")
        w("")
    if "profile" in res:
        prof, ctimes, vec = res["profile"]
        w("## Where the gradient's time goes (Lambda_c, couplings free)")
        w("")
        nd, nm = res["profile_events"]
        n = nd + nm
        w(f"The generated source compiled again as it is and with changed derivative rows (the "
          f"C compiler drops the code of a row set to 0), with gcc's vectorization report; "
          f"likelihood calls of the three (couplings free) interleaved in one set of rounds, on "
          f"{nd} data + the first {nm} normalization events (three likelihoods in memory at "
          f"once):")
        w("")
        row("density", "value CPU ns/event", "value + gradient CPU ns/event",
            "value + gradient / value (CPU)", "value + gradient / value (wall)",
            "gcc vectorized the lane loop of `density` / `density_gradient`")
        row(*(["---"] * 6))
        labels = list(dict.fromkeys(k[0] for k in prof))
        for lab in labels:
            v_, g_ = prof[(lab, "value")], prof[(lab, "value + gradient")]
            vv = vec.get(lab, {})
            row(lab, ns(v_[1], n), ns(g_[1], n), f"{g_[1] / v_[1]:.1f}x",
                f"{g_[0] / v_[0]:.1f}x",
                " / ".join("yes" if vv.get(fn) else "no" for fn in ("density",
                                                                     "density_gradient")))
        w("")
        w("(The value call runs the same `density` function in all three rows, so the spread of "
          "the value column shows the noise of this shared host.)")
        w("")
    w("## Targets")
    w("")
    row("target", "measured", "goal", "met")
    row("---", "---", "---", "---")
    for what, m, goal, ok in targets:
        row(what, m, goal, "**yes**" if ok else "**no**")
    w("")
    findings(w, res, n)
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    main()
