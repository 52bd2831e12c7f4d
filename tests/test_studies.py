"""Tests of vecampfit.studies: seeds, in-process, process-pool, dask and MPI
runs give the same results, a failed experiment or a killed worker is
reported without losing the others, an interrupted study resumes, the
progress bar, pulls of toy fits and their plot, and the grouping of
random-start minima."""

import json
import math
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

from vecampfit import studies

sys.path.insert(0, __file__.rsplit("/", 1)[0])
import study_experiments  # noqa: E402

TESTS = os.path.dirname(os.path.abspath(__file__))


def same_rows(a, b):
    """The rows of two tables agree in everything but the wall time."""
    assert len(a.rows) == len(b.rows)
    for x, y in zip(a.rows, b.rows):
        assert {k: v for k, v in x.items() if k != "time"} == \
            {k: v for k, v in y.items() if k != "time"}


def test_seeds_are_independent_of_the_number_of_experiments():
    a, b = studies.experiment_seeds(7, 5), studies.experiment_seeds(7, 12)
    assert a == b[:5] and len(set(b)) == 12
    assert studies.experiment_seeds(8, 5) != a


def test_in_process_and_on_a_process_pool_agree(tmp_path):
    local = studies.run_study(study_experiments.gauss_fit, 6, seed=3, progress=False)
    with studies.process_executor(workers=2, threads_per_worker=1) as ex:
        pooled = studies.run_study(study_experiments.gauss_fit, 6, seed=3, executor=ex,
                                   progress=False)
    assert [r["experiment"] for r in pooled.rows] == list(range(6))
    for a, b in zip(local.rows, pooled.rows):
        assert a["status"] == b["status"] and a["seed"] == b["seed"]
        if a["status"] == "ok":
            assert a["values"] == b["values"] and a["fval"] == b["fval"]
    assert [r["experiment"] for r in local.failed] == [3]
    assert "RuntimeError: experiment 3 fails on purpose" in local.failed[0]["error"]
    assert len(local.ok) == 5


POOL_EXPERIMENT = """
import os


def experiment(index, seed):
    if index == 1 and os.getpid() != int(os.environ["STUDY_TEST_PARENT"]):
        os._exit(3)                     # the pool's worker process dies
    return {"value": seed % 983}
"""


def test_a_dead_process_pool_worker_loses_the_unfinished_experiments(tmp_path, monkeypatch):
    (tmp_path / "pool_killing_experiment.py").write_text(POOL_EXPERIMENT)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("STUDY_TEST_PARENT", str(os.getpid()))
    import pool_killing_experiment
    path = tmp_path / "results.jsonl"
    with studies.process_executor(workers=1, threads_per_worker=1) as ex:
        first = studies.run_study(pool_killing_experiment.experiment, 4, seed=8, executor=ex,
                                  results=path, progress=False)
    assert [r["status"] for r in first.rows] == ["ok", "lost", "lost", "lost"]
    assert all(r["error"].startswith("BrokenProcessPool") for r in first.failed)
    assert [json.loads(x)["experiment"] for x in open(path)] == [0]
    again = studies.run_study(pool_killing_experiment.experiment, 4, seed=8, results=path,
                              progress=False)
    assert [r["status"] for r in again.rows] == ["ok"] * 4
    assert [r["value"] for r in again.rows] == [s % 983 for s in studies.experiment_seeds(8, 4)]


def test_an_interrupted_study_resumes(tmp_path):
    path = tmp_path / "results.jsonl"
    calls = []

    def experiment(index, seed):
        calls.append(index)
        return {"value": seed % 1000}

    first = studies.run_study(experiment, 4, seed=1, results=path, progress=False)
    with open(path, "a") as f:
        f.write('{"experiment": 9, "cut')          # a line cut by an interruption
    calls.clear()
    second = studies.run_study(experiment, 6, seed=1, results=path, progress=False)
    assert calls == [4, 5]                          # 0-3 were done
    assert [r["value"] for r in second.rows] == [r["value"] for r in first.rows] + \
        [s % 1000 for s in studies.experiment_seeds(1, 6)[4:]]
    with pytest.raises(ValueError, match="another study's results"):
        studies.run_study(experiment, 6, seed=2, results=path, progress=False)
    lines = [json.loads(x) for x in open(path) if x.strip().endswith("}")]
    assert sorted(r["experiment"] for r in lines) == list(range(6))


def test_a_results_file_in_use_is_refused_naming_the_file_and_holder(tmp_path):
    """Two studies at once on one results file: the second is refused while
    the first runs (their rows would mix), in this process or another."""
    path = tmp_path / "results.jsonl"
    refused = []

    def experiment(index, seed):
        if index == 1:
            with pytest.raises(studies.ResultsInUseError) as err:
                studies.run_study(lambda i, s: {"v": 1}, 3, seed=5, results=path,
                                  progress=False)
            refused.append(str(err.value))
            # From another process as well.
            script = ("import sys; from vecampfit import studies\n"
                      "try:\n"
                      "    studies.run_study(lambda i, s: {'v': 1}, 3, seed=5,\n"
                      "                      results=sys.argv[1], progress=False)\n"
                      "except studies.ResultsInUseError as e:\n"
                      "    print(e)\n")
            # Outside the source tree: ``python -c`` puts the working directory
            # first on sys.path, and the source tree's package is not built.
            other = subprocess.run([sys.executable, "-c", script, str(path)],
                                   capture_output=True, text=True, cwd=tmp_path)
            assert other.returncode == 0, other.stderr
            refused.append(other.stdout)
        return {"value": seed % 1000}

    table = studies.run_study(experiment, 3, seed=4, results=path, progress=False)
    assert [r["status"] for r in table.rows] == ["ok"] * 3
    for message in refused:
        assert str(path) in message and f"process {os.getpid()}" in message
        assert "in use by the study of" in message
    lines = [json.loads(x) for x in open(path)]
    assert [r["seed"] for r in lines] == studies.experiment_seeds(4, 3)
    # Once it has ended, the file is free (and resuming finds every row).
    assert not os.path.exists(f"{path}.holder")
    again = studies.run_study(experiment, 3, seed=4, results=path, progress=False)
    assert [r["value"] for r in again.rows] == [r["value"] for r in table.rows]


def test_numpy_scalars_are_kept_and_unstorable_values_name_experiment_and_key(tmp_path):
    path = tmp_path / "results.jsonl"

    def experiment(index, seed):
        return {"fval": np.float64(1.5) * index, "n": np.int64(index), "ok": np.bool_(True),
                "nested": {"a": [np.float32(0.5), np.arange(2)]}}

    table = studies.run_study(experiment, 2, seed=1, results=path, progress=False)
    assert table.column("fval").tolist() == [0.0, 1.5]
    assert [json.loads(x)["nested"] for x in open(path)] == [{"a": [0.5, [0, 1]]}] * 2

    def bad(index, seed):
        return {"value": 1.0, "fit": object()} if index == 1 else {"value": 1.0}

    with pytest.raises(studies.StudyResultError, match=r"experiment 1: the value of key 'fit' "
                                                       r"of its result cannot be kept"):
        studies.run_study(bad, 3, seed=1, results=tmp_path / "bad.jsonl", progress=False)
    with pytest.raises(studies.StudyResultError, match=r"experiment 0: the key 'seed' of its "
                                                       r"result is the runner's"):
        studies.run_study(lambda i, s: {"seed": 1}, 1, seed=1, progress=False)
    with pytest.raises(studies.StudyResultError, match=r"experiment 0: returned a list, not a "
                                                       r"dict"):
        studies.run_study(lambda i, s: [1.0], 2, seed=1, progress=False)
    # On an executor as well: the study stops instead of losing experiments.
    from concurrent.futures import ThreadPoolExecutor
    with ThreadPoolExecutor(1) as ex:
        with pytest.raises(studies.StudyResultError, match="experiment 1: the value of key 'fit'"):
            studies.run_study(bad, 3, seed=1, executor=ex, progress=False)


@pytest.mark.slow
def test_pulls_of_toy_fits(tmp_path):
    table = studies.run_study(study_experiments.gauss_fit, 60, seed=11, progress=False)
    summary = studies.pull_summary(table, study_experiments.TRUTH, names=["mu", "sigma"])
    for name, s in summary.items():
        print(f"{name}: pull mean {s['mean']:+.3f} +- {s['mean_error']:.3f}, width "
              f"{s['width']:.3f} +- {s['width_error']:.3f} ({s['n']} experiments)")
        assert abs(s["mean"]) < 3 * s["mean_error"]
        assert abs(s["width"] - 1) < 3 * s["width_error"]
    # The summary against numpy on the same numbers.
    v, e = table.column("values"), table.column("errors")
    p = (v[:, 0] - 0.45) / e[:, 0]
    assert summary["mu"]["mean"] == pytest.approx(p.mean(), rel=1e-12)
    assert summary["mu"]["width"] == pytest.approx(p.std(ddof=1), rel=1e-12)
    table.write_root(tmp_path / "study.root")
    import uproot
    with uproot.open(tmp_path / "study.root") as f:
        np.testing.assert_array_equal(f["study"]["fval"].array(library="np"),
                                      table.column("fval"))


def test_group_solutions():
    f = [10.0, 10.05, 530.0, 10.02, 530.04, 900.0]
    pts = np.array([[1, 0], [1.01, 0], [-1, 0], [0.99, 0], [-1, 0.01], [5, 5]])
    sol = studies.group_solutions(f, pts, f_tolerance=0.1)
    assert [s["count"] for s in sol] == [3, 2, 1]
    assert sol[0]["delta"] == 0 and sol[1]["delta"] == pytest.approx(520.0)
    assert sorted(sol[0]["members"]) == [0, 1, 3]
    # With a distance: equal F but far apart are two solutions.
    sol2 = studies.group_solutions([1.0, 1.0], [[0, 0], [3, 0]],
                                   distance=lambda a, b: float(np.abs(a - b).max()))
    assert [s["count"] for s in sol2] == [1, 1]


def test_scaled_distance_against_hand_computed_values():
    d = studies.scaled_distance([0.5, 2.0, 10.0], periodic=[False, False, True])
    # Largest of |0.4|/0.5, |1|/2 and the phase 179 - (-179) = 358 -> -2 degrees: 2/10.
    assert d([1.4, 3.0, 179.0], [1.0, 2.0, -179.0]) == pytest.approx(0.8)
    assert d([1.0, 2.0, 179.0], [1.0, 2.0, -179.0]) == pytest.approx(0.2)
    # Not wrapped without the flag: 358 degrees apart.
    assert studies.scaled_distance([1.0])([179.0], [-179.0]) == pytest.approx(358.0)
    assert studies.scaled_distance([1.0], max_distance=4.0)([3.0], [1.0]) == pytest.approx(0.5)
    assert studies.scaled_distance([1.0], periodic=[True], period=2 * np.pi)(
        [3.0], [-3.0]) == pytest.approx(2 * np.pi - 6.0)
    # It groups: points within the errors are one solution, a phase across +-180 too.
    sol = studies.group_solutions([1.0, 1.0, 1.0], [[0.0, 179.5], [0.3, -179.5], [5.0, 0.0]],
                                  distance=studies.scaled_distance([1.0, 2.0],
                                                                   periodic=[False, True]))
    assert [s["count"] for s in sol] == [2, 1]
    for bad in (dict(errors=[0.0]), dict(errors=[1.0], periodic=[True, False]),
                dict(errors=[1.0], max_distance=0.0)):
        with pytest.raises(ValueError):
            studies.scaled_distance(**bad)


# ---------------------------------------------------------------------------
# dask.distributed
# ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def dask_cluster():
    """A two-worker LocalCluster (one OpenMP thread each) for the module's tests.

    A task that kills its worker is not given to another worker
    (allowed-failures 0), and a worker holds one task at a time
    (worker-saturation 1), so that only the killer is lost."""
    pytest.importorskip("distributed")
    import dask
    saved = os.environ.get("OMP_NUM_THREADS")
    with dask.config.set({"distributed.scheduler.allowed-failures": 0,
                          "distributed.scheduler.worker-saturation": 1.0}):
        ex = studies.dask_executor(workers=2, threads_per_worker=1)
    assert os.environ.get("OMP_NUM_THREADS") == saved     # this process keeps its value
    with ex:
        yield ex
    assert ex.client.status == "closed"


def test_on_a_dask_cluster_the_results_are_those_in_process(dask_cluster):
    assert len(dask_cluster.client.scheduler_info()["workers"]) == 2
    local = studies.run_study(study_experiments.gauss_fit, 6, seed=3, progress=False)
    on_dask = studies.run_study(study_experiments.gauss_fit, 6, seed=3, executor=dask_cluster,
                                progress=False)
    same_rows(local, on_dask)                       # bit for bit, failure included
    assert [r["experiment"] for r in on_dask.failed] == [3]
    assert on_dask.failed[0]["status"] == "failed"
    assert "RuntimeError: experiment 3 fails on purpose" in on_dask.failed[0]["error"]
    # A Client given directly: run through the same executor, and left open.
    by_client = studies.run_study(study_experiments.gauss_fit, 6, seed=3,
                                  executor=dask_cluster.client, progress=False)
    same_rows(local, by_client)
    assert dask_cluster.client.status == "running"


def test_dask_workers_use_the_threads_asked_for(dask_cluster):
    def threads(index, seed):
        from vecampfit.fitter.likelihood import resolve_threads
        return {"environment": os.environ.get("OMP_NUM_THREADS"),
                "fitter": resolve_threads(None), "pid": os.getpid()}

    table = studies.run_study(threads, 4, seed=1, executor=dask_cluster, progress=False)
    assert [r["environment"] for r in table.rows] == ["1"] * 4
    assert [r["fitter"] for r in table.rows] == [1] * 4
    assert os.getpid() not in {r["pid"] for r in table.rows}
    # The runner sets the executor's threads before every experiment.
    two = studies.DaskExecutor(dask_cluster.client, threads=2)
    table = studies.run_study(threads, 2, seed=1, executor=two, progress=False)
    assert [r["fitter"] for r in table.rows] == [2, 2]
    two.shutdown()
    assert dask_cluster.client.status == "running"   # not the executor's to close


def test_a_local_cluster_starts_its_workers_with_the_threads_asked_for():
    pytest.importorskip("distributed")
    saved = os.environ.get("OMP_NUM_THREADS")
    with studies.dask_executor(workers=1, threads_per_worker=2) as ex:
        assert os.environ.get("OMP_NUM_THREADS") == saved
        # In the worker's environment from its start, before any experiment
        # ran there: what OpenMP and BLAS read when they are loaded.
        env = ex.client.run(lambda: os.environ.get("OMP_NUM_THREADS"))
        assert list(env.values()) == ["2"]
        assert ex.threads == 2


def killing_experiment(kill, run):
    """An experiment whose index 5 kills its dask worker when ``kill``, whose
    index 3 raises, and whose rows say in which ``run`` they were made.
    Made here, so that cloudpickle sends it by value (the workers cannot
    import this test module)."""

    def experiment(index, seed):
        if index == 5 and kill:
            from distributed import get_worker
            get_worker()                             # only in a worker
            os._exit(3)                              # the worker process dies
        if index == 3:
            raise ValueError("no convergence")
        return {"value": seed % 997, "run": run}

    return experiment


def test_a_killed_dask_worker_loses_only_its_experiment_which_resumes(dask_cluster, tmp_path):
    # The killer is the last experiment submitted: a worker runs the tasks
    # it holds in the order of submission, so no other experiment waits
    # behind the killer on its worker (with the cluster's allowed-failures
    # of 0, such an experiment would be lost too; by default dask gives it
    # to another worker).
    path = tmp_path / "results.jsonl"
    first = studies.run_study(killing_experiment(True, 1), 6, seed=5, executor=dask_cluster,
                              results=path, progress=False)
    assert [r["status"] for r in first.rows] == ["ok", "ok", "ok", "failed", "ok", "lost"]
    assert first.rows[5]["error"].startswith("KilledWorker")
    assert math.isnan(first.rows[5]["time"])
    assert first.rows[3]["error"] == "ValueError: no convergence"
    seeds = studies.experiment_seeds(5, 6)
    assert [r["value"] for r in first.ok] == [seeds[k] % 997 for k in (0, 1, 2, 4)]
    written = sorted(json.loads(x)["experiment"] for x in open(path))
    assert written == [0, 1, 2, 3, 4]                # the lost one is not in the file
    # The cluster replaces the dead worker; resuming runs only the lost experiment.
    dask_cluster.client.wait_for_workers(2, timeout=60)
    second = studies.run_study(killing_experiment(False, 2), 6, seed=5, executor=dask_cluster,
                               results=path, progress=False)
    assert [r["status"] for r in second.rows] == ["ok", "ok", "ok", "failed", "ok", "ok"]
    assert [r.get("run") for r in second.rows] == [1, 1, 1, None, 1, 2]
    assert second.rows[5]["value"] == seeds[5] % 997
    assert sorted(json.loads(x)["experiment"] for x in open(path)) == list(range(6))


def test_an_interrupted_dask_study_keeps_what_arrived(dask_cluster, tmp_path, monkeypatch):
    path = tmp_path / "results.jsonl"

    def experiment(index, seed):
        return {"value": seed % 991}

    arrived = []
    update = studies._Progress.update

    def interrupt(self, row):
        update(self, row)
        arrived.append(row["experiment"])
        if len(arrived) == 3:
            raise KeyboardInterrupt

    monkeypatch.setattr(studies._Progress, "update", interrupt)
    with pytest.raises(KeyboardInterrupt):
        studies.run_study(experiment, 8, seed=2, executor=dask_cluster, results=path,
                          progress=False)
    monkeypatch.undo()
    assert sorted(json.loads(x)["experiment"] for x in open(path)) == sorted(arrived)
    calls = []

    def counted(index, seed):
        calls.append(index)
        return experiment(index, seed)

    table = studies.run_study(counted, 8, seed=2, results=path, progress=False)
    assert sorted(calls) == sorted(set(range(8)) - set(arrived))
    full = studies.run_study(experiment, 8, seed=2, progress=False)
    same_rows(full, table)


def test_executor_errors(dask_cluster):
    with pytest.raises(TypeError, match="concurrent.futures.Executor or a distributed.Client"):
        studies.run_study(lambda i, s: {}, 2, seed=1, executor=object(), progress=False)

    class Submits:
        def submit(self, fn, *args):
            return fn(*args)

    with pytest.raises(TypeError, match="has submit.. but is not an Executor"):
        studies.run_study(lambda i, s: {}, 2, seed=1, executor=Submits(), progress=False)
    with pytest.raises(TypeError, match="client_or_address must be"):
        studies.dask_executor(42)
    with pytest.raises(ValueError, match="workers must be a positive integer"):
        studies.dask_executor(workers=0)
    with pytest.raises(ValueError, match="threads_per_worker must be a positive integer"):
        studies.dask_executor(workers=1, threads_per_worker=1.5)
    with pytest.raises(ValueError, match="workers applies to the local cluster only"):
        studies.dask_executor(dask_cluster.client, workers=2)
    with pytest.raises(ValueError, match="threads_per_worker must be a positive integer"):
        studies.process_executor(workers=2, threads_per_worker=0)
    with pytest.raises(ValueError, match="threads must be a positive integer, got 0"):
        studies.DaskExecutor(dask_cluster.client, threads=0)
    with pytest.raises(TypeError, match="expected a distributed.Client, got str"):
        studies.DaskExecutor("tcp://localhost:1")
    from distributed import Client
    closed = Client(dask_cluster.client.scheduler.address, set_as_default=False)
    closed.close()
    with pytest.raises(RuntimeError, match="the dask client is closed"):
        studies.run_study(lambda i, s: {}, 2, seed=1, executor=closed, progress=False)
    with pytest.raises(RuntimeError, match="the dask client is closed"):
        studies.dask_executor(closed)


# ---------------------------------------------------------------------------
# mpi4py.futures
# ---------------------------------------------------------------------------

MPI_SCRIPT = """
import json, os, sys
from mpi4py import MPI
from mpi4py.futures import MPIPoolExecutor
import study_experiments
from vecampfit import studies

if __name__ == "__main__":
    with MPIPoolExecutor() as ex:
        table = studies.run_study(study_experiments.gauss_fit, 5, seed=3, executor=ex,
                                  progress=False)
        workers = {ex.submit(os.getpid).result() for _ in range(4)}
    with open(sys.argv[1], "w") as f:
        json.dump({"size": MPI.COMM_WORLD.Get_size(), "workers": len(workers),
                   "here": os.getpid() in workers, "rows": table.rows}, f)
"""


def test_under_mpi_the_results_are_those_in_process(tmp_path):
    pytest.importorskip("mpi4py")
    mpiexec = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    if not os.path.exists(mpiexec):
        mpiexec = shutil.which("mpiexec")
    if mpiexec is None:
        pytest.skip("no mpiexec")
    (tmp_path / "study.py").write_text(MPI_SCRIPT)
    env = dict(os.environ, OMP_NUM_THREADS="1",
               PYTHONPATH=os.pathsep.join([TESTS, os.environ.get("PYTHONPATH", "")]))
    # Launched in tmp_path: from the repository's root the children would
    # import the unbuilt source tree.
    proc = subprocess.run([mpiexec, "-n", "2", sys.executable, "-m", "mpi4py.futures",
                           "study.py", "rows.json"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    got = json.loads((tmp_path / "rows.json").read_text())
    assert got["size"] == 2 and got["workers"] == 1 and not got["here"]   # one worker rank
    local = studies.run_study(study_experiments.gauss_fit, 5, seed=3, progress=False)
    same_rows(local, studies.StudyTable(got["rows"]))


# ---------------------------------------------------------------------------
# Progress
# ---------------------------------------------------------------------------

def test_progress_bar_and_printed_lines(capsys, monkeypatch):
    pytest.importorskip("tqdm")

    def experiment(index, seed):
        if index == 1:
            raise ValueError("bad")
        return {}

    studies.run_study(experiment, 3, seed=1)
    out, err = capsys.readouterr()
    assert "3/3" in err and "1 failed" in err       # the bar, with its time left
    assert "experiment 1: failed (ValueError: bad)" in out + err
    monkeypatch.setitem(sys.modules, "tqdm", None)    # as without tqdm
    monkeypatch.setitem(sys.modules, "tqdm.auto", None)
    studies.run_study(experiment, 3, seed=1)
    out, err = capsys.readouterr()
    assert "experiment 2: ok; 3/3 done, about 0 s left" in out and "3/3" not in err
    studies.run_study(experiment, 3, seed=1, progress=False)
    assert capsys.readouterr() == ("", "")


# ---------------------------------------------------------------------------
# Pull plots
# ---------------------------------------------------------------------------

def synthetic_table(n=200, seed=4):
    """Rows of fits of two parameters with known pull distributions: the
    first pulls N(0.3, 1.2^2), the second N(0, 1); every seventh row failed."""
    rng = np.random.default_rng(seed)
    truth = np.array([2.0, -1.0])
    rows = []
    for k in range(n):
        if k % 7 == 3:
            rows.append({"experiment": k, "seed": k, "status": "failed", "error": "E",
                         "time": 0.0})
            continue
        err = rng.uniform(0.5, 1.5, 2)
        pull = rng.normal([0.3, 0.0], [1.2, 1.0])
        rows.append({"experiment": k, "seed": k, "status": "ok", "error": "", "time": 0.0,
                     "values": (truth + pull * err).tolist(), "errors": err.tolist(),
                     "truth": (truth + rng.normal(0, 0.1, 2)).tolist()})
    return studies.StudyTable(rows), truth


def test_plot_pulls(tmp_path):
    pytest.importorskip("matplotlib")
    from scipy.stats import norm
    table, truth = synthetic_table()
    path = tmp_path / "pulls.png"
    got = studies.plot_pulls(table, dict(a=truth[0], b=truth[1]), path, names=["a", "b"])
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and path.stat().st_size > 10_000
    v, e = table.column("values"), table.column("errors")
    for k, name in enumerate("ab"):
        p = (v[:, k] - truth[k]) / e[:, k]
        n = p.size
        mu, sd = norm.fit(p)                          # unbinned maximum likelihood
        width = sd * math.sqrt(n / (n - 1))
        assert got[name]["n"] == n == 171
        assert got[name]["mean"] == pytest.approx(mu, rel=1e-12)
        assert got[name]["width"] == pytest.approx(width, rel=1e-12)
        assert got[name]["mean_error"] == pytest.approx(width / math.sqrt(n), rel=1e-12)
        assert got[name]["width_error"] == pytest.approx(width / math.sqrt(2 * (n - 1)),
                                                         rel=1e-12)
        assert got[name]["label"] == (f"mean {mu:+.3f} \u00b1 {width / math.sqrt(n):.3f}\n"
                                      f"width {width:.3f} \u00b1 "
                                      f"{width / math.sqrt(2 * (n - 1)):.3f}")
    # The generated pull distributions are recovered.
    assert abs(got["a"]["mean"] - 0.3) < 3 * got["a"]["mean_error"]
    assert abs(got["a"]["width"] - 1.2) < 3 * got["a"]["width_error"]
    assert abs(got["b"]["width"] - 1.0) < 3 * got["b"]["width_error"]
    # One true value per experiment, one parameter, PDF.
    one = studies.plot_pulls(table, "truth", tmp_path / "pulls.pdf", names=["a", "b"],
                             parameters=["b"], bins=12)
    assert list(one) == ["b"] and (tmp_path / "pulls.pdf").read_bytes()[:5] == b"%PDF-"
    t = table.column("truth")[:, 1]
    assert one["b"]["mean"] == pytest.approx(np.mean((v[:, 1] - t) / e[:, 1]), rel=1e-12)
    with pytest.raises(ValueError, match="unknown parameter 'c'"):
        studies.plot_pulls(table, truth, tmp_path / "x.png", names=["a", "b"], parameters=["c"])
    with pytest.raises(ValueError, match="truth has 3 values, the fits 2 parameters"):
        studies.plot_pulls(table, [1, 2, 3], tmp_path / "x.png")
    with pytest.raises(ValueError, match="truth has no value for"):
        studies.pull_summary(table, {"a": 1.0}, names=["a", "b"])
    with pytest.raises(ValueError, match="no successful experiment"):
        studies.plot_pulls(studies.StudyTable(table.failed), truth, tmp_path / "x.png")


def _polar(v):
    c = complex(v["re"], v["im"])
    return np.array([v["m"], abs(c), np.degrees(np.angle(c))])


def test_propagate_errors_against_the_analytic_polar_errors():
    """c = re + i im with uncorrelated errors s: |c| has error s, its phase
    s/|c| radians, also across the +-180 degree cut (wrapped differences);
    a parameter with a zero row is not varied."""
    cov = np.diag([0.003 ** 2, 0.02 ** 2, 0.02 ** 2, 0.0])
    names = ["m", "re", "im", "fixed"]
    for c in (0.6 + 0.8j, -1.0 + 1e-10j):
        v = {"m": 1.5, "re": c.real, "im": c.imag, "fixed": np.nan}
        e = studies.propagate_errors(_polar, v, cov, names, periodic=[False, False, True])
        np.testing.assert_allclose(e, [0.003, 0.02, np.degrees(0.02 / abs(c))], rtol=1e-6)
    # Without wrapping, the phase across the cut is nonsense (so the wrapping is tested).
    v = {"m": 1.5, "re": -1.0, "im": 1e-10, "fixed": 0.0}
    assert studies.propagate_errors(_polar, v, cov, names)[2] > 1e3
    with pytest.raises(ValueError, match="covariance"):
        studies.propagate_errors(_polar, v, cov[:3, :3], names)


def test_group_fits_in_units_of_the_errors():
    cov = np.diag([1e-6, 1e-4, 1e-4])
    names = ["m", "re", "im"]

    def fit(m, c, fval, valid=True):
        return {"fval": fval, "valid": valid, "covariance": cov,
                "values": {"m": m, "re": c.real, "im": c.imag}}
    fits = [fit(1.5, 1j, 10.0), fit(1.5001, 1.0001j, 10.02), fit(1.5, -1j, 530.0),
            fit(1.5, 1j * np.exp(0.5j), 10.01), fit(1.5, 1j, 1.0, valid=False),
            fit(1.5, -1.0 + 1e-9j, 10.0), fit(1.5, -1.0 - 1e-9j, 10.03)]
    sols = studies.group_fits(fits, _polar, names, periodic=[False, False, True])
    # Within the errors: 0 and 1; the rotated coupling at the same F is another
    # solution; the two points across the phase cut are one.
    assert [sorted(s["members"]) for s in sols] == [[0, 1], [5, 6], [3], [2]]
    assert sols[0]["frequency"] == pytest.approx(2 / 6)
    np.testing.assert_allclose(sols[0]["point_errors"], [1e-3, 1e-2, np.degrees(1e-2)],
                               rtol=1e-6)
    assert sols[-1]["delta"] == pytest.approx(520.0)
    # A larger distance joins the rotated coupling (0.5 rad = 28.6 degrees, 50 errors)
    # to the first, not the coupling at 180 degrees (90 degrees away).
    assert len(studies.group_fits(fits, _polar, names, periodic=[False, False, True],
                                  max_distance=60)) == 3
    with pytest.raises(ValueError, match="no valid fit"):
        studies.group_fits(fits[4:5], _polar, names)
