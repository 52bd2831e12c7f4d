"""Tests of vecampfit.studies: seeds, in-process and process-pool runs give
the same results, a failed experiment is reported without losing the
others, an interrupted study resumes, pulls of toy fits, and the grouping
of random-start minima."""

import json
import sys

import numpy as np
import pytest

from vecampfit import studies

sys.path.insert(0, __file__.rsplit("/", 1)[0])
import study_experiments  # noqa: E402


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
