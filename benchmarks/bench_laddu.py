"""vecampfit against laddu on the D0 -> K- pi+ pi0 model, in one run.

The same events (100,000 data + 1,000,000 phase-space MC from the example's
generator, ``bench_dz_kmpippiz.py``'s samples), the same model, one thread
each, only the couplings free (magnitudes and phases of the six resonances
and the non-resonant term; rho(770)+ is the reference):

* laddu (``pip install laddu==0.28.1``, a benchmark-only dependency): the
  model written as a laddu expression (``laddu.scalar`` event columns,
  ``laddu.parameter`` couplings, complex arithmetic), ``laddu.NLL`` /
  ``laddu.Likelihood``; ``value`` and ``value_and_gradient`` calls, and the
  set-up (datasets, model compilation, likelihood preparation, which builds
  the accepted-MC normalization statistics);
* vecampfit: the hand-written Cython density (benchmarks/dz_handwritten)
  through ``Likelihood`` with ``cache="always"`` (component amplitudes cached,
  MC integral matrix) and
  ``cache="never"`` (the whole model at every call), value and value with
  gradient; the cached data term at two threads against one.

Checks first that both give the same F = -2 ln L differences between
parameter points.  Then whole fits: one MIGRAD (iminuit, strategy 1, the
same start, the same 14 free couplings, analytic gradient) in each, set-up
included.  Calls are interleaved (contender after contender, repeated) and
medians are reported, since the machine is shared.

Writes ``benchmarks/results/laddu.md``::

    python benchmarks/bench_laddu.py [--repeat 15] [--fits 2]
"""

import math
import os
import statistics
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLE = os.path.join(HERE, "..", "examples", "dz_kmpippiz")
sys.path.insert(0, EXAMPLE)

import bench_dz_kmpippiz as dz  # noqa: E402
from timing import (benchmark_parser, cpu_description, interleaved_samples,  # noqa: E402
                    load_average, medians, write_report)
import common  # noqa: E402
import dz_reference as model  # noqa: E402  (on the path through bench_dz_kmpippiz)

M = model.MASSES
DEG = math.pi / 180
REFERENCE = "RHOP1"


def free_names():
    """The free couplings (the signal fit's first two MIGRADs without background)."""
    return dz.fit_signal.names("A") + dz.fit_signal.names("P")


#: The parameters that move in every call of the vecampfit likelihood (its
#: cached evaluation is chosen from them).
FREE = free_names()


# -- laddu ---------------------------------------------------------------------

def _q(m, ma, mb):
    return math.sqrt((m * m - (ma + mb) ** 2) * (m * m - (ma - mb) ** 2)) / (2 * m)


def laddu_expression(values, form="amplitudes"):
    """The example's model (tests/dz_reference.py) as a laddu expression of the event
    columns ``s_<pair>`` (squared pair mass), ``m_<pair>``, ``q_<pair>``,
    ``p_<pair>`` (model.EVENT_FIELDS); masses, widths and radii fixed at
    ``values``; the couplings ``<R>_A``, ``<R>_P`` (phase in degrees) laddu
    parameters.

    ``form="amplitudes"``: laddu's named amplitudes,
    ``relativistic_breit_wigner_custom(l=J, barrier_factors=True, q_r=1/r)``
    (= 1/(m0^2 - m^2 - i m0 Gamma(m)) with the example's running width) times
    the ratios ``blatt_weisskopf_custom(kind=TENSOR, q_r=1/r)`` at q and q0
    (TENSOR = sqrt(2) r F(q), so its ratio is F(q)/F(q0)), and the same for the
    D form factor; ``form="expression"``: every factor written out with laddu's
    expression arithmetic (sqrt, powers, complex division).
    """
    import laddu as ld
    md = M["md"]
    rd = values["D_R"]
    tensor = ld.BarrierKind.TENSOR

    def coupling(prefix):
        if prefix == REFERENCE:
            return ld.polar_complex(values[f"{prefix}_A"], values[f"{prefix}_P"] * DEG)
        a = ld.parameter(f"{prefix}_A", initial=values[f"{prefix}_A"])
        p = ld.parameter(f"{prefix}_P", initial=values[f"{prefix}_P"])
        return ld.polar_complex(a, p * DEG)

    total = coupling("NR")
    for name, pair, j, *_ in model.RESONANCES:
        a_name, b_name, c_name = model.CHANNELS[pair]
        ma, mb, mc = M[a_name], M[b_name], M[c_name]
        m0, g0, r = values[f"{name}_M"], values[f"{name}_G"], values[f"{name}_R"]
        s = ld.scalar(f"s_{pair}")
        m = ld.scalar(f"m_{pair}")
        q = ld.scalar(f"q_{pair}")
        p = ld.scalar(f"p_{pair}")
        q0 = _q(m0, ma, mb)
        p0sq = (md * md - (m0 + mc) ** 2) * (md * md - (m0 - mc) ** 2) / (4 * md * md)
        if form == "amplitudes":
            bw = ld.relativistic_breit_wigner_custom(s, mass=m0, width=g0, mass1=ma, mass2=mb,
                                                     l=j, barrier_factors=True, q_r=1 / r)
            if j == 0:
                term = coupling(name) * bw
            else:
                # F(q)/F(q0) and F_D(p)/F_D(p0) from TENSOR factors (sqrt(2) r F).
                f_ratio = (ld.blatt_weisskopf_custom(q, l=j, kind=tensor, q_r=1 / r)
                           * (1 / (math.sqrt(2) * r / math.sqrt(1 + (q0 * r) ** 2))))
                if name in model.OMIT_FD0:
                    fd0 = math.sqrt(2) * rd
                else:
                    fd0 = math.sqrt(2) * rd / math.sqrt(1 + p0sq * rd * rd)
                fd = ld.blatt_weisskopf_custom(p, l=j, kind=tensor, q_r=1 / rd) * (1 / fd0)
                ac, bc = model.ANGULAR_PAIRS[pair]
                angular = (ld.scalar(f"s_{ac}") - ld.scalar(f"s_{bc}")
                           + (md ** 2 - mc ** 2) * (mb ** 2 - ma ** 2) / m0 ** 2)
                term = coupling(name) * bw * (f_ratio * fd * angular)
            total = total + term
            continue
        if j == 0:
            f_ratio = None                    # F(q)/F(q0) = 1
            fd = None                         # F_D = 1
        else:
            # F(q)/F(q0) = sqrt(P_1(q0^2 r^2) / P_1(q^2 r^2)), P_1(z^2) = 1 + z^2
            f_ratio = ((1 + (q0 * r) ** 2) / (1 + (q * r) ** 2)).sqrt()
            fd = 1 / (1 + (p * rd) ** 2).sqrt()
            if name not in model.OMIT_FD0:
                fd = fd * math.sqrt(1 + p0sq * rd * rd)
        # Gamma(m) = Gamma0 (q/q0)^(2J+1) (m0/m) F^2(q)/F^2(q0)
        width = g0 * (q * (1 / q0)) ** (2 * j + 1) * (m0 / m)
        if f_ratio is not None:
            width = width * ((1 + (q0 * r) ** 2) / (1 + (q * r) ** 2))
        bw = 1 / ld.complex(m0 * m0 - s, -m0 * width)
        term = coupling(name) * bw
        if f_ratio is not None:
            ac, bc = model.ANGULAR_PAIRS[pair]
            angular = (ld.scalar(f"s_{ac}") - ld.scalar(f"s_{bc}")
                       + (md ** 2 - mc ** 2) * (mb ** 2 - ma ** 2) / m0 ** 2)
            term = term * (f_ratio * fd * angular)
        total = total + term
    return total.norm_sqr()


def read_records(path):
    import uproot
    with uproot.open(path) as f:
        t = f[common.TREE]
        return {b: np.asarray(t[b].array(library="np"), dtype=np.float32)
                for b in common.BRANCHES}


def laddu_dataset(fields):
    import laddu as ld
    cols = {k: np.ascontiguousarray(v, dtype=np.float64) for k, v in fields.items()}
    for pair in model.CHANNELS:
        cols[f"s_{pair}"] = cols[f"m_{pair}"] ** 2
    return ld.Dataset.from_arrays(p4s={}, scalars=cols)


def build_laddu(directory, values, backend, form, threads=1):
    """laddu's likelihood, with the times of its set-up steps."""
    import laddu as ld
    t = {}
    t0 = time.perf_counter()
    data_fields = model.record_fields(read_records(
        os.path.join(directory, "data_signal.root")))
    mc_fields = model.record_fields(read_records(
        os.path.join(directory, "mc_signal.root")))
    t["read"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    data, mc = laddu_dataset(data_fields), laddu_dataset(mc_fields)
    t["datasets"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    mdl = ld.Model(laddu_expression(values, form))
    t["model"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    lk = ld.Likelihood([ld.NLL(mdl, data=data, accepted_mc=mc, name="signal")],
                       execution=ld.Execution(backend, threads=threads, precision="f64"))
    t["likelihood"] = time.perf_counter() - t0
    return lk, mdl, data, t


# -- vecampfit -----------------------------------------------------------------

def build_vecampfit(directory, cache, threads=1):
    t0 = time.perf_counter()
    f = dz.build(directory, 8, "float64", threads, ["--no-background"])
    lk = f.likelihood
    lk.cache = cache
    lk.prepare()
    return f, lk, time.perf_counter() - t0


class Objective:
    """F and its gradient of the free couplings for iminuit, the value of a
    gradient call reused at the same point (as vecampfit's Likelihood does)."""

    def __init__(self, value, value_and_gradient):
        self.value, self.value_and_gradient = value, value_and_gradient
        self.last = None
        self.calls = 0

    def __call__(self, x):
        x = np.asarray(x, dtype=float)
        if self.last is not None and np.array_equal(x, self.last[0]):
            return self.last[1]
        self.calls += 1
        v = self.value(x)
        self.last = (x.copy(), v, None)
        return v

    def grad(self, x):
        x = np.asarray(x, dtype=float)
        if self.last is not None and self.last[2] is not None and np.array_equal(x, self.last[0]):
            return self.last[2]
        self.calls += 1
        v, g = self.value_and_gradient(x)
        g = np.asarray(g, dtype=float)
        self.last = (x.copy(), v, g)
        return g


def vecampfit_objective(lk, names):
    base = lk.initial_values.copy()
    idx = np.array([lk.parameter_index(n) for n in names])

    def full(x):
        y = base.copy()
        y[idx] = x
        return y

    return Objective(lambda x: lk.evaluate(full(x), free=FREE)[0],
                     lambda x: (lambda v: (v[0], v[1][idx]))(
                         lk.evaluate(full(x), True, free=FREE)))


def laddu_objective(lk, names):
    order = [names.index(n) for n in lk.parameter_names]   # laddu's order from ours
    back = np.argsort(order)

    def val(x):
        return lk.value(np.asarray(x)[order])

    def vg(x):
        v, g = lk.value_and_gradient(np.asarray(x)[order])
        return v, np.asarray(g)[back]

    return Objective(val, vg)


def migrad(objective, start, names):
    from iminuit import Minuit
    m = Minuit(objective, start, grad=objective.grad, name=names)
    m.errordef = 1
    m.strategy = 1
    t0 = time.perf_counter()
    m.migrad()
    return m, time.perf_counter() - t0


# -- measurements --------------------------------------------------------------

CPU_RATIO = {}   # case -> process CPU time / wall time (1 for one busy thread)
CPU_MEDIAN = {}  # case -> median process CPU time of a call (s)


def interleaved(cases, repeat):
    """Median wall time (s) of each case, the cases timed one after another
    ``repeat`` times; the median CPU time of the process per call is kept
    in CPU_MEDIAN, the ratio of CPU to wall time in CPU_RATIO."""
    wall, cpu = interleaved_samples(cases, repeat)
    for k in cases:
        CPU_RATIO[k] = sum(cpu[k]) / sum(wall[k])
    CPU_MEDIAN.update(medians(cpu))
    return medians(wall)


def fresh_points_check(directory, calls=40, seed=5):
    """laddu `jit:expression` against vecampfit cached, each call at a new
    random point of the couplings (nothing can be reused between calls);
    prints median CPU times."""
    names = free_names()
    fc, lkc, _ = build_vecampfit(directory, "always")
    values = dict(zip(fc.likelihood.parameters.names, fc.likelihood.parameters.values))
    lk, _, _, _ = build_laddu(directory, values, "jit", "expression")
    order = [names.index(k) for k in lk.parameter_names]
    x = np.array([values[k] for k in names])
    idx = np.array([lkc.parameter_index(k) for k in names])
    rng = np.random.default_rng(seed)
    t = {k: [] for k in ("lv", "vv", "lg", "vg")}
    for _ in range(calls):
        xr = x * (1 + 0.05 * rng.standard_normal(len(x)))
        y = lkc.initial_values.copy()
        y[idx] = xr
        for key, f in (("lv", lambda: lk.value(xr[order])),
                       ("vv", lambda: lkc.evaluate(y, free=FREE)),
                       ("lg", lambda: lk.value_and_gradient(xr[order])),
                       ("vg", lambda: lkc.evaluate(y, True, free=FREE))):
            c0 = time.process_time()
            f()
            t[key].append(time.process_time() - c0)
    m = {k: statistics.median(v) for k, v in t.items()}
    print(f"fresh random points, CPU medians: laddu jit value {m['lv'] * 1e3:.3f} ms, "
          f"vecampfit cached value {m['vv'] * 1e3:.3f} ms, laddu/vecampfit {m['lv'] / m['vv']:.2f}; "
          f"value+gradient laddu {m['lg'] * 1e3:.2f} ms, vecampfit {m['vg'] * 1e3:.3f} ms, "
          f"laddu/vecampfit {m['lg'] / m['vg']:.2f}")


def main(argv=None):
    ap = benchmark_parser(__doc__, data=100000, mc=1000000, repeat=15, fits=2)
    ap.add_argument("--variants", default="cpu:amplitudes,jit:amplitudes,jit:expression",
                    help="laddu variants backend:form, comma-separated (backend cpu, jit or "
                         "auto; form amplitudes or expression, see laddu_expression)")
    ap.add_argument("--directory", default=os.path.join(HERE, "results", "dz_samples"))
    ap.add_argument("--output", default=os.path.join(HERE, "results", "laddu.md"))
    ap.add_argument("--fresh-check", action="store_true",
                    help="only time laddu jit and vecampfit cached at fresh random points")
    args = ap.parse_args(argv)
    import laddu as ld
    d = args.directory
    if args.fresh_check:
        return fresh_points_check(d)
    dz.signal_samples(d, args.data, args.mc)
    load = load_average()
    names = free_names()

    fc, lkc, setup_vc = build_vecampfit(d, "always")
    ff, lkf, setup_vf = build_vecampfit(d, "never")
    table = fc.likelihood.parameters
    values = dict(zip(table.names, table.values))
    backends = args.variants.split(",")
    laddu_lk, setup_l = {}, {}
    for be in backends:
        laddu_lk[be], mdl, data_l, setup_l[be] = build_laddu(d, values, *be.split(":"))
    n_data = lkc.points[0].data_events.n_events
    n_mc = lkc.points[0].norm_events.n_events
    n = n_data + n_mc
    print(f"events: {n_data} data + {n_mc} MC; laddu set-up {setup_l}", flush=True)

    # Two coupling points: the table's values and a shifted one.
    x1 = np.array([values[k] for k in names])
    x2 = x1 * np.where([k.endswith("_A") for k in names], 1.1, 1.0) \
        + np.where([k.endswith("_P") for k in names], 7.0, 0.0)
    ov_c, ov_f = vecampfit_objective(lkc, names), vecampfit_objective(lkf, names)

    # Agreement: per-event density against the numpy model, and F differences.
    ref = model.signal_density(model.record_fields(
        read_records(os.path.join(d, "data_signal.root"))), table.values, M)
    s_l = np.asarray(mdl.evaluate(data_l, parameters=dict(zip(names, x1)), real=True))
    rel_density = float(np.max(np.abs(s_l / ref - 1)))
    checks = {}
    for label, ob in (("vecampfit cached", ov_c), ("vecampfit full", ov_f),
                      *((f"laddu {be}", laddu_objective(laddu_lk[be], names))
                        for be in backends)):
        v1, g1 = ob.value_and_gradient(x1)
        v2, g2 = ob.value_and_gradient(x2)
        checks[label] = (v1, v2, np.asarray(g1), np.asarray(g2))
    dref = checks["vecampfit full"][0] - checks["vecampfit full"][1]
    print("F differences:", {k: v[0] - v[1] for k, v in checks.items()}, flush=True)
    gref = checks["vecampfit full"][2]
    grel = {k: float(np.max(np.abs(v[2] - gref)) / np.max(np.abs(gref)))
            for k, v in checks.items()}

    # Call times, interleaved; the two points alternate so that nothing is
    # reused from the previous call.
    pts = [x1, x2]
    state = {"k": 0}

    def nxt():
        state["k"] ^= 1
        return pts[state["k"]]

    lk_order = [names.index(nm) for nm in laddu_lk[backends[0]].parameter_names]
    lx = [x1[lk_order], x2[lk_order]]
    lstate = {"k": 0}

    def lnxt():
        lstate["k"] ^= 1
        return lx[lstate["k"]]

    full_x = {id(lkc): [], id(lkf): []}
    for lk in (lkc, lkf):
        idx = np.array([lk.parameter_index(k) for k in names])
        for x in pts:
            y = lk.initial_values.copy()
            y[idx] = x
            full_x[id(lk)].append(y)
    vstate = {"k": 0}

    def vnxt(lk):
        vstate["k"] ^= 1
        return full_x[id(lk)][vstate["k"]]

    lkc.threads = 1
    cases = {"vecampfit cached value": lambda: lkc.evaluate(vnxt(lkc), free=FREE),
             "vecampfit cached value+gradient":
                 lambda: lkc.evaluate(vnxt(lkc), True, free=FREE)}
    for be in backends:
        cases[f"laddu {be} value"] = (lambda lk: lambda: lk.value(lnxt()))(laddu_lk[be])
        cases[f"laddu {be} value+gradient"] = \
            (lambda lk: lambda: lk.value_and_gradient(lnxt()))(laddu_lk[be])
    t = interleaved(cases, 3 * args.repeat)
    print(t, flush=True)
    tf = interleaved({"vecampfit full value": lambda: lkf.evaluate(vnxt(lkf), free=FREE),
                      "vecampfit full value+gradient":
                          lambda: lkf.evaluate(vnxt(lkf), True, free=FREE),
                      "laddu value (2)": lambda: laddu_lk[backends[-1]].value(lnxt()),
                      "vecampfit cached value (2)": lambda: lkc.evaluate(vnxt(lkc), free=FREE)},
                     args.repeat)
    print(tf, flush=True)

    # Back to back: each call repeated alone, as inside a fit, where nothing
    # else evicts a contender's stored amplitudes from the caches between its
    # calls (interleaved, vecampfit's 12.8 MB of stored data amplitudes are
    # read from memory after every laddu call).
    def alone(f, n=3 * args.repeat):
        times = []
        for _ in range(n):
            t0 = time.perf_counter()
            f()
            times.append(time.perf_counter() - t0)
        return statistics.median(times)
    tb = {"vecampfit cached value": alone(lambda: lkc.evaluate(vnxt(lkc), free=FREE)),
          "vecampfit cached value+gradient":
              alone(lambda: lkc.evaluate(vnxt(lkc), True, free=FREE))}
    for be in backends:
        tb[f"laddu {be} value"] = alone(lambda: laddu_lk[be].value(lnxt()))
        tb[f"laddu {be} value+gradient"] = alone(lambda: laddu_lk[be].value_and_gradient(lnxt()))
    print(tb, flush=True)

    # Two threads against one on the cached path (the same Likelihood).
    def threaded(threads, gradient):
        def f():
            lkc.threads = threads
            lkc.evaluate(vnxt(lkc), gradient, free=FREE)
        return f
    tt = interleaved({"1 value": threaded(1, False), "2 value": threaded(2, False),
                      "1 grad": threaded(1, True), "2 grad": threaded(2, True)},
                     3 * args.repeat)
    lkc.threads = 1
    print(tt, flush=True)

    # Whole fits: one MIGRAD from the same start, set-up included.
    start = x1 * np.where([k.endswith("_A") for k in names], 1.25, 1.0) \
        + np.where([k.endswith("_P") for k in names], 15.0, 0.0)
    fits = []
    for k in range(args.fits):
        for who in ("vecampfit", *(f"laddu {be}" for be in backends)):
            t0 = time.perf_counter()
            if who == "vecampfit":
                _, lk, _ = build_vecampfit(d, "always")
                ob = vecampfit_objective(lk, names)
            else:
                lk, _, _, _ = build_laddu(d, values, *who.split()[1].split(":"))
                ob = laddu_objective(lk, names)
            setup = time.perf_counter() - t0
            m, tm = migrad(ob, start, names)
            fits.append(dict(who=who, setup=setup, migrad=tm, calls=ob.calls, nfcn=m.nfcn,
                             ngrad=m.ngrad, fval=m.fval, valid=m.valid,
                             values=np.array(m.values)))
            print(fits[-1], flush=True)
            del lk, ob

    ms = 1e3

    def row(label, sec, key):
        c = CPU_MEDIAN[key]
        return (f"| {label} | {sec * ms:.2f} | {sec / n * 1e9:.2f} | {c * ms:.2f} | "
                f"{c / n * 1e9:.2f} | {CPU_RATIO[key]:.2f} |")

    cv, cg = t["vecampfit cached value"], t["vecampfit cached value+gradient"]
    fv, fg = tf["vecampfit full value"], tf["vecampfit full value+gradient"]
    lines = [
        "# D0 -> K- pi+ pi0: vecampfit against laddu\n",
        f"Measured by `python benchmarks/bench_laddu.py --repeat {args.repeat} --fits "
        f"{args.fits} --variants {args.variants}` on "
        f"{cpu_description()}, {os.cpu_count()} CPUs "
        f"(load average before the run {load}; above 0.5 the host was shared); laddu "
        f"{ld.__version__} (`Execution(backend, threads=1, precision='f64')`; variants backend:form "
        f"{', '.join(backends)}, see the last section), vecampfit float64, L = 8, one thread; {n_data} data + {n_mc} "
        f"MC events (`examples/dz_kmpippiz/generate.py --seed 1`).  Times are medians of "
        f"{3 * args.repeat} calls interleaved between the contenders (successive calls "
        f"alternate between two parameter points, so nothing is reused from the previous "
        f"call); ns per event divides by data + MC = {n} events.\n",
        "## The two likelihoods agree\n",
        "Both compute F = -2 sum ln(S_i / sum_j S_j) over the data events i and MC events j "
        "(the same constant terms).  Two points of the 14 free couplings: the table's values "
        "(x1) and x2 (magnitudes x 1.1, phases + 7 degrees).\n",
        "| likelihood | F(x1) | F(x1) - F(x2) | largest gradient difference at x1 "
        "(relative to the largest component) |",
        "|---|---|---|---|"]
    for k, (v1, v2, g1, g2) in checks.items():
        lines.append(f"| {k} | {v1:.6f} | {v1 - v2:.9f} | {grel[k]:.1e} |")
    lines += [
        "",
        f"- laddu's density against the example's numpy model (tests/dz_reference.py) at the data "
        f"events: largest relative difference {rel_density:.1e}",
        "- F(x1) - F(x2), against vecampfit full: " + ", ".join(
            f"{k} {abs(v[0] - v[1] - dref):.1e}" for k, v in checks.items()
            if k != "vecampfit full"),
        "",
        "## Likelihood call (14 couplings free, one thread)\n",
        "| call | wall ms per call | wall ns per event | CPU ms per call | CPU ns per event | "
        "CPU time / wall time |",
        "|---|---|---|---|---|---|"]
    for be in backends:
        lines += [row(f"laddu `{be}` value", t[f"laddu {be} value"], f"laddu {be} value"),
                  row(f"laddu `{be}` value + gradient", t[f"laddu {be} value+gradient"],
                      f"laddu {be} value+gradient")]
    lines += [
        row("vecampfit cached (`cache=\"always\"`) value", cv, "vecampfit cached value"),
        row("vecampfit cached value + gradient", cg, "vecampfit cached value+gradient"),
        row("vecampfit full (`cache=\"never\"`) value", fv, "vecampfit full value"),
        row("vecampfit full value + gradient (all 38 derivatives)", fg,
            "vecampfit full value+gradient"), "",
        "(CPU time / wall time near 1 shows that a contender ran on one thread without "
        "waiting; below 1 it waited for a core, above 1 it used more than one thread.  On "
        "this shared host the process CPU time of a call is the steadier measure of a "
        "one-thread call, so the ratios are given for both.)", "",
        "| laddu variant | time | laddu value / vecampfit cached value (target >= 4x) | "
        "laddu value+gradient / vecampfit cached value+gradient (target >= 10x) | "
        "laddu value / vecampfit full value | laddu value+gradient / vecampfit full "
        "value+gradient |", "|---|---|---|---|---|---|"]
    cm = CPU_MEDIAN
    for be in backends:
        lv, lg = t[f"laddu {be} value"], t[f"laddu {be} value+gradient"]
        lines.append(f"| `{be}` | wall | **{lv / cv:.2f}x** | **{lg / cg:.2f}x** | {lv / fv:.2f}x | "
                     f"{lg / fg:.2f}x |")
        lv, lg = cm[f"laddu {be} value"], cm[f"laddu {be} value+gradient"]
        lines.append(
            f"| `{be}` | CPU | **{lv / cm['vecampfit cached value']:.2f}x** | "
            f"**{lg / cm['vecampfit cached value+gradient']:.2f}x** | "
            f"{lv / cm['vecampfit full value']:.2f}x | "
            f"{lg / cm['vecampfit full value+gradient']:.2f}x |")
    lines += [
        "",
        f"(The full path was timed in a second interleaved set with laddu `{backends[-1]}` "
        f"and the cached path: there laddu value {tf['laddu value (2)'] * ms:.2f} ms, cached "
        f"{tf['vecampfit cached value (2)'] * ms:.2f} ms, full {fv * ms:.2f} ms.)",
        ""]
    for be in backends:
        sl = setup_l[be]
        lines.append(
            f"- set-up, laddu `{be}`: reading the ROOT files and the event columns "
            f"{sl['read'] * ms:.0f} ms, datasets {sl['datasets'] * ms:.0f} ms, model "
            f"compilation {sl['model'] * ms:.0f} ms, likelihood preparation (with the "
            f"normalization statistics of the MC) {sl['likelihood'] * ms:.0f} ms")
    lines += [
        f"- set-up, vecampfit: the example's `fit_signal.build` (reading, event buffers, "
        f"compiled model from the cache) and `prepare` {setup_vc * ms:.0f} ms (cached) / "
        f"{setup_vf * ms:.0f} ms (full); the cache itself is built by the first call "
        f"(included in the fit times below)",
        "",
        "## Calls back to back (as inside a fit)\n",
        "Each contender's call repeated alone (median wall time), so that its stored data "
        "stay in the caches between calls as they do in a fit; interleaved, vecampfit's "
        "cached value call reads its stored amplitudes from memory after every laddu call.\n",
        "| laddu variant | laddu value (ms) | vecampfit cached value (ms) | ratio (target >= 2x) "
        "| laddu value + gradient (ms) | vecampfit cached value + gradient (ms) | ratio "
        "(target >= 8x) |", "|---|---|---|---|---|---|---|",
        *(f"| `{be}` | {tb[f'laddu {be} value'] * ms:.3f} | "
          f"{tb['vecampfit cached value'] * ms:.3f} | "
          f"{tb[f'laddu {be} value'] / tb['vecampfit cached value']:.2f}x | "
          f"{tb[f'laddu {be} value+gradient'] * ms:.3f} | "
          f"{tb['vecampfit cached value+gradient'] * ms:.3f} | "
          f"{tb[f'laddu {be} value+gradient'] / tb['vecampfit cached value+gradient']:.2f}x |"
          for be in backends), "",
        "## Cached data term: two threads against one (vecampfit)\n",
        "| threads | value (ms) | value + gradient (ms) |", "|---|---|---|",
        f"| 1 | {tt['1 value'] * ms:.3f} | {tt['1 grad'] * ms:.3f} |",
        f"| 2 | {tt['2 value'] * ms:.3f} | {tt['2 grad'] * ms:.3f} |", "",
        f"- speed-up of 2 threads: {tt['1 value'] / tt['2 value']:.2f}x (value), "
        f"{tt['1 grad'] / tt['2 grad']:.2f}x (gradient); CPU time / wall time "
        f"{CPU_RATIO['1 value']:.2f} at one thread, {CPU_RATIO['2 value']:.2f} at two (value); "
        f"the stored amplitudes of the data events (16 bytes per event and component) are "
        f"read from memory in every call, and two cores share its bandwidth "
        f"(benchmarks/results/threads.md)",
        "",
        "## Whole fit: one MIGRAD from the same start, set-up included\n",
        "Start: magnitudes x 1.25, phases + 15 degrees from the table's values; iminuit "
        "MIGRAD, strategy 1, analytic gradients; set-up is building the likelihood from the "
        "ROOT files (vecampfit's cache is built in its first MIGRAD call, laddu's MC "
        "statistics in its set-up).\n",
        "| program | set-up (s) | MIGRAD (s) | total (s) | F calls | gradient calls | "
        "F at the minimum | valid |",
        "|---|---|---|---|---|---|---|---|"]
    for r in fits:
        lines.append(f"| {r['who']} | {r['setup']:.2f} | {r['migrad']:.2f} | "
                     f"{r['setup'] + r['migrad']:.2f} | {r['nfcn']} | {r['ngrad']} | "
                     f"{r['fval']:.4f} | {r['valid']} |")
    vf = [r for r in fits if r["who"] == "vecampfit"]
    mv = statistics.median([r["setup"] + r["migrad"] for r in vf])
    mvm = statistics.median([r["migrad"] for r in vf])
    lines.append("")
    for be in backends:
        lf = [r for r in fits if r["who"] == f"laddu {be}"]
        ml = statistics.median([r["setup"] + r["migrad"] for r in lf])
        mlm = statistics.median([r["migrad"] for r in lf])
        dv = float(np.max(np.abs(vf[0]["values"] - lf[0]["values"])))
        lines.append(f"- laddu `{be}` / vecampfit: total {ml / mv:.2f}x, MIGRAD alone "
                     f"{mlm / mvm:.2f}x (medians); minima: F differs by "
                     f"{abs(vf[0]['fval'] - lf[0]['fval']):.1e}, parameters by at most "
                     f"{dv:.1e}")
    lines.append("")
    lines += [
        "## Where the two models differ\n",
        "Nowhere in the formula; the check above shows both at rounding level.  Variant "
        "`amplitudes` (what a laddu user writes): laddu's "
        "`relativistic_breit_wigner_custom(s, mass=m0, width=Gamma0, mass1, mass2, l=J, "
        "barrier_factors=True, q_r=1/r)` is exactly 1/(m0^2 - m^2 - i m0 Gamma(m)) with the "
        "example's running width Gamma0 (q/q0)^(2J+1) (m0/m) F^2(q)/F^2(q0) "
        "(checked numerically); laddu's Breit-Wigner has no F(q)/F(q0) numerator (the "
        "example's form without phase-space factor has), so it is multiplied by "
        "`blatt_weisskopf_custom(q, l=J, kind=TENSOR, q_r=1/r)` divided by its value at q0 "
        "(laddu's TENSOR factor is sqrt(2) r F(q) with the example's F = 1/sqrt(P_J((q r)^2)); "
        "its FULL factor is sqrt(2 z/(1 + z)), z = (q r)^2, which contains q^J and so is "
        "not the example's); the D form factor is the same TENSOR factor at p with "
        "q_r = 1/r_D, divided by its value at p0 (by "
        "sqrt(2) r_D, i.e. F_D(p) itself, for rho(1700)+, whose F_D(p0) the model omits).  laddu has no "
        "covariant/Zemach spin factor, so the spin-1 factor M_AC^2 - M_BC^2 + (M_D^2 - "
        "M_C^2)(M_B^2 - M_A^2)/m0^2 is written with expression arithmetic in both "
        "variants.  Variant `expression`: every factor written with laddu's expression "
        "arithmetic (sqrt, powers, complex division).  The event columns (squared and "
        "unsquared pair masses, breakup momenta q and p) are computed once in numpy for "
        "both programs (`dz_reference.record_fields`), not by laddu from "
        "four-vectors.  Masses, widths and radii are constants in both (fixed in this fit).",
        ""]
    write_report("\n".join(lines) + "\n", args.output)


if __name__ == "__main__":
    main()
