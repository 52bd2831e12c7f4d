"""Tests of vecampfit.fitter.mpi: one likelihood over MPI ranks.

A child script builds the same likelihoods of every fit kind (MC, grid,
formula and no normalization, backgrounds, weights, extended, two fit
points with priors, cached components, events loaded from ROOT files with
records filtered by ``map_records``) and prints ``float.hex`` of F and of
every gradient component.  It runs in one process with 1 and 2 threads and
with ``mpiexec -n 2``: every value must have the same bits.  Further
children check a whole fit driven by rank 0 and failures that happen on one
rank only (no hang, the one-process exception type and message).
"""

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pytest

pytest.importorskip("mpi4py")

from vecampfit.model_compiler import compile_model  # noqa: E402

TESTS_DIR = os.path.dirname(os.path.abspath(__file__))
MODELS_DIR = os.path.join(TESTS_DIR, "models")
TIMEOUT = 240


def _mpiexec():
    here = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    return here if os.path.exists(here) else shutil.which("mpiexec")


MPIEXEC = _mpiexec()
pytestmark = pytest.mark.skipif(MPIEXEC is None, reason="no mpiexec")

COMMON = textwrap.dedent('''
    import json, os, sys
    import numpy as np
    sys.path.insert(0, os.environ["VF_TESTS_DIR"])
    from toy_reference import gauss, gauss_gradient, gauss_integral, gauss_integral_gradient
    from vecampfit.fitter import Density, Fitter, Likelihood, FitParameter, ParameterTable
    from vecampfit.fitter.mpi import serve
    from vecampfit.model_compiler import compile_model

    CACHE = os.environ["VF_MODEL_CACHE"]
    MODELS = os.path.join(os.environ["VF_TESTS_DIR"], "models")
    MODE = sys.argv[1]            # "serial" or "mpi"
    THREADS = int(sys.argv[2])
    if MODE == "mpi":
        from mpi4py import MPI
        COMM = MPI.COMM_WORLD
        RANK = COMM.Get_rank()
    else:
        COMM, RANK = None, 0
    TOY = compile_model(f"{MODELS}/fitter_toy_model.pyx", [4], build_dir=CACHE)[4]
    COMPONENTS = compile_model(f"{MODELS}/component_model.pyx", [4], build_dir=CACHE)[4]

    def table(*nv):
        return ParameterTable([FitParameter(n, v, 0.01) for n, v in nv])

    def gauss_block():
        return Density.from_model(TOY, "float64", model="gauss", name="gauss")

    def linear_block():
        return Density.from_model(TOY, "float64", model="linear", name="linear")

    def gauss_python(bad_above=None, raise_above=None):
        def f(ev, p):
            x = ev["x"].astype(np.float64)
            if raise_above is not None and np.any(x > raise_above):
                raise ZeroDivisionError(f"gauss: x = {x[x > raise_above][0]!r} is beyond the model")
            v = gauss(x, p)
            if bad_above is not None:
                v = np.where(x > bad_above, -1.0, v)
            return v

        def fg(ev, p):
            return gauss_gradient(ev["x"].astype(np.float64), p)
        return Density(f, fg, parameters=["mu", "sigma"], event_fields=["x"], name="gauss")

    RNG = np.random.default_rng(7)
    X_DATA = RNG.uniform(0, 1, 5001)      # three chunks of 2048 events (L = 4)
    X_MC = RNG.uniform(0, 1, 20003)     # ten chunks
    W_DATA = RNG.uniform(0.5, 1.5, X_DATA.size)
    W_MC = RNG.uniform(0.2, 2.0, X_MC.size)

    def lk(*nv, **kw):
        return Likelihood(table(*nv), vector_length=4, threads=THREADS, comm=COMM, **kw)
''')

EVALUATE = COMMON + textwrap.dedent('''
    from vecampfit.fitter import _reduction
    if len(sys.argv) > 3:         # chunks per group of the reduction
        _reduction.GROUP_CHUNKS = int(sys.argv[3])
    def hexes(likelihood, x, free=None):
        v, g = likelihood.evaluate(x, gradient=True, free=free)
        v2, _ = likelihood.evaluate(x, free=free)
        return [float(v).hex(), float(v2).hex()] + [float(a).hex() for a in g]

    out = {}
    P4 = np.array([0.45, 0.18, 0.22, 0.1])

    # MC normalization, weights, two backgrounds; data added in two pieces
    # whose boundary is not a chunk boundary.
    L = lk(("mu", .5), ("sigma", .2), ("fb1", .2), ("fb2", .1))
    pt = L.add_point(gauss_block())
    pt.add_background(linear_block(), "fb1", [0.5])
    pt.add_background(linear_block(), "fb2", [-0.7])
    pt.add_data({"x": X_DATA[:3001]}, W_DATA[:3001])
    pt.add_data({"x": X_DATA[3001:]}, W_DATA[3001:])
    pt.add_normalization_events({"x": X_MC}, W_MC)
    out["mc_background"] = hexes(L, P4)

    # Grid normalization, Python density.
    xg, wg = np.polynomial.legendre.leggauss(3000)
    L = lk(("mu", .5), ("sigma", .2))
    pt = L.add_point(gauss_python(), normalization="grid")
    pt.add_data({"x": X_DATA})
    pt.add_normalization_events({"x": (xg + 1) / 2}, wg / 2)
    out["grid_python"] = hexes(L, P4[:2])

    # Formula normalization.
    L = lk(("mu", .5), ("sigma", .2))
    pt = L.add_point(gauss_block(), normalization="formula")
    pt.set_integral_function(gauss_integral, gauss_integral_gradient)
    pt.add_data({"x": X_DATA})
    out["formula"] = hexes(L, P4[:2])

    # No normalization, weights.
    L = lk(("mu", .5), ("sigma", .2))
    pt = L.add_point(gauss_block(), normalization="none")
    pt.add_data({"x": X_DATA}, W_DATA)
    out["none"] = hexes(L, P4[:2])

    # Extended, weighted data (the yield term uses the sum of the weights).
    L = lk(("mu", .5), ("sigma", .2), ("ns", 4000), ("nb", 1000), extended=True)
    pt = L.add_point(gauss_block(), signal_yield="ns")
    pt.add_background(linear_block(), "nb", [0.5])
    pt.add_data({"x": X_DATA}, W_DATA)
    pt.add_normalization_events({"x": X_MC})
    out["extended"] = hexes(L, np.array([0.45, 0.18, 4100.0, 900.0]))

    # Two fit points with priors.
    L = lk(("mu", .5), ("sigma", .2), ("fa", .2), ("fb", .1))
    for frac, sl, c in (("fa", slice(0, 2600), 0.5), ("fb", slice(2600, None), -0.5)):
        pt = L.add_point(gauss_block())
        pt.add_background(linear_block(), frac, [c])
        pt.add_data({"x": X_DATA[sl]})
        pt.add_normalization_events({"x": X_MC[sl]}, W_MC[sl])
    L.add_prior("sigma", 0.2, 0.01, 0.03)
    L.set_prior_function(lambda p: (p[0] - 0.5) ** 2 / 0.04 ** 2,
                         lambda p: np.array([2 * (p[0] - 0.5) / 0.04 ** 2, 0, 0, 0]))
    out["simultaneous_priors"] = hexes(L, P4)

    # Cached components (couplings free), weights and a background.
    P0 = {"M1": 0.77, "G1": 0.15, "M2": 1.3, "G2": 0.2, "A2": 0.8, "P2": 60.0, "R3": 0.3,
          "I3": -0.4}
    M_DATA = RNG.uniform(0.5, 1.6, 4501)
    M_MC = RNG.uniform(0.4, 1.7, 8193)
    L = Likelihood(ParameterTable([FitParameter(n, v, 0.01) for n, v in P0.items()]
                                  + [FitParameter("FB", 0.2, 0.01, 0, 1)]),
                   vector_length=4, threads=THREADS, comm=COMM, cache="always")
    pt = L.add_point(Density.from_model(COMPONENTS, "float64"))
    pt.add_background(Density(lambda ev, p: np.ones_like(ev["m"]), parameters=[],
                              event_fields=["m"], name="flat"), "FB")
    pt.add_data({"m": M_DATA}, RNG.uniform(0.5, 1.5, M_DATA.size))
    pt.add_normalization_events({"m": M_MC}, RNG.uniform(0.5, 2.0, M_MC.size))
    x = np.array(list(P0.values()) + [0.2])
    free = ["A2", "P2", "R3", "I3", "FB"]
    out["cached"] = hexes(L, x, free)
    out["cached_rebuild"] = hexes(L, x + np.r_[0.01, np.zeros(8)], free)
    assert L.signal_evaluator(pt.signal, True, free).__class__.__name__ == "CachedEvaluator"

    # Files: each rank reads its entries; map_records drops MC events
    # (x < 0.05), so records move between ranks after reading; pieces end
    # inside chunks.
    def drop_low(records):
        keep = records["x"] >= 0.05
        return {"x": records["x"][keep]}

    L = lk(("mu", .5), ("sigma", .2), ("fb1", .2))
    pt = L.add_point(gauss_block())
    pt.add_background(linear_block(), "fb1", [0.5])
    pt.load_data_file(os.environ["VF_DATA_FILE"], "tree", ["x"], weight_branch="w",
                      step_size=1000)
    pt.add_data({"x": X_DATA[:777]}, W_DATA[:777])
    pt.load_normalization_file(os.environ["VF_MC_FILE"], "tree", ["x"], map_records=drop_low,
                               step_size=1500)
    pt.load_normalization_file(os.environ["VF_MC_FILE"], "tree", ["x"], step_size=4000)
    # select drops data events with their weights before the records are made.
    pt.load_data_file(os.environ["VF_DATA_FILE"], "tree", ["x"], weight_branch="w",
                      step_size=700, select=lambda a: (a["x"] > 0.2) & (a["w"] < 1.3))
    out["files"] = hexes(L, P4[:3])
    out["files_counts"] = [pt.data_events.weight_sum.hex(), L.points[0].norm_events.layout.total
                          if COMM is not None else L.points[0].norm_events.n_events]

    # The reduction itself, on rows of very different magnitudes (another
    # order or grouping of the additions would give other bits): 40 chunks.
    from vecampfit.fitter.mpi import Communicator
    ROWS = np.random.default_rng(5).standard_normal((40, 4)) * np.logspace(0, 12, 40)[:, None]
    if COMM is None:
        out["rows"] = [float(v).hex() for v in _reduction.reduce_rows(ROWS)]
    else:
        c = Communicator(COMM)
        layout = c.layout(2048)
        layout.split(40 * 2048 - 100)
        c.finish_layout(layout)
        sums, _ = c.combine(type("Buffer", (), {"layout": layout})(),
                            lambda: (ROWS[layout.owned], None))
        out["rows"] = [float(v).hex() for v in sums]

    if RANK == 0:
        print("RESULT " + json.dumps(out))
''')

FIT = COMMON + textwrap.dedent('''
    f = Fitter(Likelihood(table(("mu", .5), ("sigma", .2), ("fb1", .2)), vector_length=4,
                          threads=THREADS, comm=COMM), seed=3, verbose=False)
    pt = f.likelihood.add_point(gauss_block())
    pt.add_background(linear_block(), "fb1", [0.5])
    pt.add_data({"x": X_DATA}, W_DATA)
    pt.add_normalization_events({"x": X_MC})
    out = sys.argv[3]
    with serve(f) as root:
        if root:
            f.migrad()
            f.hesse()
            f.write_results(parameters=out)
            print("RESULT " + json.dumps({"values": [float(v).hex() for v in f.minuit.values],
                                          "errors": [float(v).hex() for v in f.minuit.errors],
                                          "calls": f.likelihood.n_calls}))
    if RANK != 0:
        print(f"RANK {RANK} calls {f.likelihood.n_calls}")
''')

FAIL = COMMON + textwrap.dedent('''
    case = sys.argv[3]
    report = {}
    X_SORTED = np.sort(X_DATA)        # the largest x lie in the last chunk (rank 1)
    if case == "corrupt":
        L = lk(("mu", .5), ("sigma", .2))
        pt = L.add_point(gauss_block(), normalization="none")
        for step in (1000, "100 MB"):
            try:
                pt.load_data_file(os.environ["VF_CORRUPT_FILE"], "tree", ["x"], step_size=step)
            except Exception as exc:
                report[f"load {step}"] = [type(exc).__name__, str(exc)]
        pt.add_data({"x": X_DATA})
        report["after"] = float(L.evaluate([0.45, 0.18])[0]).hex()
    if case == "nonfinite":
        L = lk(("mu", .5), ("sigma", .2))
        pt = L.add_point(gauss_block(), normalization="none")
        pt.add_data({"x": X_DATA[:1000]})
        x = X_DATA.copy()
        x[4500] = np.nan               # in the chunks of rank 1
        try:
            pt.add_data({"x": x})
        except Exception as exc:
            report["add_data"] = [type(exc).__name__, str(exc)]
        pt.add_data({"x": X_DATA[1000:]})
        report["after"] = float(L.evaluate([0.45, 0.18])[0]).hex()
    if case == "map":
        def bad_map(records):
            if np.any(records["x"] > 0.999):
                raise ValueError("x above 0.999: not a valid event record")
            return records
        L = lk(("mu", .5), ("sigma", .2))
        pt = L.add_point(gauss_block(), normalization="none")
        try:
            pt.load_data_file(os.environ["VF_SORTED_FILE"], "tree", ["x"], map_records=bad_map)
        except Exception as exc:
            report["load"] = [type(exc).__name__, str(exc)]
        # The failed file left nothing behind; the likelihood works afterwards.
        pt.add_data({"x": X_DATA})
        report["after"] = float(L.evaluate([0.45, 0.18])[0]).hex()
    elif case in ("invalid", "raises"):
        kw = {"bad_above": 0.999} if case == "invalid" else {"raise_above": 0.999}
        f = Fitter(lk(("mu", .5), ("sigma", .2)), seed=1, verbose=False)
        pt = f.likelihood.add_point(gauss_python(**kw), normalization="formula")
        pt.set_integral_function(gauss_integral, gauss_integral_gradient)
        pt.add_data({"x": X_SORTED})
        with serve(f) as root:
            if root:
                try:
                    f.likelihood.evaluate([0.45, 0.18])
                except Exception as exc:
                    report["evaluate"] = [type(exc).__name__, str(exc)]
                # The ranks still serve after the failure.
                report["integral"] = float(f.likelihood.normalization_integral(
                    f.likelihood.points[0], [0.45, 0.18])).hex()
    elif case == "uncaught":
        f = Fitter(lk(("mu", .5), ("sigma", .2)), seed=1, verbose=False)
        pt = f.likelihood.add_point(gauss_python(bad_above=0.999), normalization="formula")
        pt.set_integral_function(gauss_integral, gauss_integral_gradient)
        pt.add_data({"x": X_SORTED})
        try:
            with serve(f) as root:
                if root:
                    f.migrad()
        except Exception as exc:
            # Every rank leaves the block by rank 0's exception.
            print(f"RANK {RANK} {type(exc).__name__}", flush=True)
            report["migrad"] = [type(exc).__name__, str(exc)]
    elif case == "background":
        L = lk(("mu", .5), ("sigma", .2), ("fb", .1))
        pt = L.add_point(gauss_block())
        pt.add_background(Density(lambda ev, p: np.where(ev["x"] > 0.999, np.nan, 1.0),
                                  parameters=[], event_fields=["x"], name="flat"), "fb")
        pt.add_data({"x": X_SORTED})
        pt.add_normalization_events({"x": X_MC})
        try:
            L.evaluate([0.45, 0.18, 0.1])
        except Exception as exc:
            report["prepare"] = [type(exc).__name__, str(exc)]
    if RANK == 0:
        print("RESULT " + json.dumps(report))
''')


@pytest.fixture(scope="module")
def env(model_cache, tmp_path_factory):
    """Compiled models (so that the ranks only load them) and ROOT files."""
    import uproot
    compile_model(f"{MODELS_DIR}/fitter_toy_model.pyx", [4], build_dir=model_cache)
    compile_model(f"{MODELS_DIR}/component_model.pyx", [4], build_dir=model_cache)
    d = tmp_path_factory.mktemp("mpi_files")
    rng = np.random.default_rng(99)
    files = {}
    for name, n, weighted in (("data", 6007, True), ("mc", 10001, False)):
        path = str(d / f"{name}.root")
        with uproot.recreate(path) as f:
            x = rng.uniform(0, 1, n)
            cols = {"x": x, "w": rng.uniform(0.5, 1.5, n)} if weighted else {"x": x}
            f.mktree("tree", {k: np.float64 for k in cols})
            for a in range(0, n, 2000):      # several baskets
                f["tree"].extend({k: v[a:a + 2000] for k, v in cols.items()})
        files[name] = path
    path = str(d / "sorted.root")
    with uproot.recreate(path) as f:
        f["tree"] = {"x": np.sort(np.random.default_rng(7).uniform(0, 1, 5001))}
    files["sorted"] = path
    # A file whose basket of entries 4000-4999 cannot be decompressed: only
    # the rank reading the second half meets it.
    path = str(d / "corrupt.root")
    with uproot.recreate(path) as f:
        f.mktree("tree", {"x": np.float64})
        x = rng.uniform(0, 1, 5001)
        for a in range(0, 5001, 1000):
            f["tree"].extend({"x": x[a:a + 1000]})
    with uproot.open(path) as f:
        branch = f["tree"]["x"]
        seek = int(branch.member("fBasketSeek")[4])
        size = int(branch.member("fBasketBytes")[4])
    with open(path, "r+b") as f:
        f.seek(seek + size // 2)
        f.write(b"\x13" * (size // 3))
    files["corrupt"] = path
    e = dict(os.environ, VF_TESTS_DIR=TESTS_DIR, VF_MODEL_CACHE=model_cache,
             VF_DATA_FILE=files["data"], VF_MC_FILE=files["mc"], VF_SORTED_FILE=files["sorted"],
             VF_CORRUPT_FILE=files["corrupt"],
             OMP_NUM_THREADS="1")
    return e, d


SCRIPTS = {"evaluate": EVALUATE, "fit": FIT, "fail": FAIL}


def run(env, name, mode, threads, *args, ranks=2):
    e, d = env
    path = d / f"{name}.py"
    path.write_text(SCRIPTS[name])
    cmd = [sys.executable, str(path), mode, str(threads), *map(str, args)]
    if mode == "mpi":
        cmd = [MPIEXEC, "-n", str(ranks)] + cmd
    proc = subprocess.run(cmd, cwd=str(d), env=e, capture_output=True, text=True,
                          timeout=TIMEOUT)
    # The ranks' outputs are merged: output of another rank may precede the
    # result on its line, or follow it there (print writes the text and its
    # newline separately in unbuffered mode).
    lines = [ln[ln.index("RESULT ") + 7:] for ln in proc.stdout.splitlines() if "RESULT " in ln]
    return proc, (json.JSONDecoder().raw_decode(lines[-1])[0] if lines else None)


def _check(proc, result):
    assert result is not None, f"no result (exit {proc.returncode}):\n{proc.stdout}\n{proc.stderr}"


def test_bit_identical_over_ranks_and_threads(env):
    """F and its gradient have the same bits in one process (1 and 2 threads)
    and over 2 ranks (1 and 2 threads each) and 3 ranks, for every fit kind;
    also with groups of 3 chunks in the reduction, so that ranks send the
    sums of whole groups as well as rows of shared ones."""
    runs = {}
    for mode, threads, ranks in (("serial", 1, 1), ("serial", 2, 1), ("mpi", 1, 2),
                                 ("mpi", 2, 2), ("mpi", 1, 3)):
        proc, result = run(env, "evaluate", mode, threads, ranks=ranks)
        _check(proc, result)
        assert proc.returncode == 0, proc.stderr
        runs[(mode, threads, ranks)] = result
    ref = runs[("serial", 1, 1)]
    grouped = {}
    for mode, ranks in (("serial", 1), ("mpi", 2), ("mpi", 3)):
        proc, result = run(env, "evaluate", mode, 1, 3, ranks=ranks)
        _check(proc, result)
        grouped[(mode, ranks)] = result
    for key, result in grouped.items():
        assert result == grouped[("serial", 1)], f"groups of 3 chunks: {key} differs"
    assert set(ref) >= {"mc_background", "grid_python", "formula", "none", "extended",
                        "simultaneous_priors", "cached", "cached_rebuild", "files"}
    for key, result in runs.items():
        for case, values in ref.items():
            assert result[case] == values, f"{case}: {key} differs from one process, 1 thread"
    # The values are those of the likelihood, not constants.
    assert ref["cached"] != ref["cached_rebuild"]
    assert float.fromhex(ref["files_counts"][0]) > 0


def test_fit_driven_by_rank_zero(env, tmp_path):
    """MIGRAD and HESSE on rank 0 while rank 1 serves: the same fitted values
    and errors as one process, the file written once, every rank stops."""
    serial = tmp_path / "serial.dat"
    proc, one = run(env, "fit", "serial", 1, serial)
    _check(proc, one)
    par = tmp_path / "mpi.dat"
    proc, two = run(env, "fit", "mpi", 1, par)
    _check(proc, two)
    assert proc.returncode == 0, proc.stderr
    assert two["values"] == one["values"] and two["errors"] == one["errors"]
    assert two["calls"] == one["calls"] > 5
    assert f"RANK 1 calls {one['calls']}" in proc.stdout
    assert par.read_text() == serial.read_text()


@pytest.mark.parametrize("case", ["corrupt", "map", "nonfinite", "invalid", "raises",
                                  "uncaught", "background"])
def test_failure_on_one_rank(env, case):
    """A failure on rank 1 only (a corrupt basket in its entries, a record
    rejected while reading its entries, a value that is not finite in its
    share of add_data, an exception that ends rank 0's serve block,
    a density invalid at or raising on an event only rank 1 holds, a
    background invalid there) reaches rank 0 as the one-process exception,
    and mpiexec returns (no hang)."""
    proc, one = run(env, "fail", "serial", 1, case)
    _check(proc, one)
    proc, two = run(env, "fail", "mpi", 1, case)
    _check(proc, two)
    assert proc.returncode == 0, proc.stderr
    assert two == one
    assert one, "the failure did not happen"
    first = next(iter(one.values()))
    if case == "invalid":
        assert first[0] == "LikelihoodError"
        # The event lies in the chunks of rank 1 (events 2048 to 5000).
        assert int(re.search(r"at data event (\d+)", first[1]).group(1)) >= 2048
    if case == "raises":
        assert first[0] == "ZeroDivisionError"
    if case == "corrupt":
        for step in ("1000", "100 MB"):
            kind, message = one[f"load {step}"]
            assert kind == "RootReadError" and "branch 'x'" in message
        assert "entries 4000 to 4999" in one["load 1000"][1]
    if case == "nonfinite":
        assert one["add_data"] == ["EventBufferError", "data of fit point 0: event field 'x' is "
                                   "not finite at event 5500 (nan)"]
    if case == "map":
        assert one["load"] == ["ValueError", "x above 0.999: not a valid event record"]
    if case == "background":
        assert first[0] == "LikelihoodError" and "background 1" in first[1]
    if case == "uncaught":
        assert first[0] == "LikelihoodError"
        assert "RANK 0 LikelihoodError" in proc.stdout and "RANK 1 LikelihoodError" in proc.stdout
