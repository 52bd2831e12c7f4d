"""Tests of vecampfit.fitter._threads: the threads of a call on a machine
shared with other work."""

import os

import numpy as np
import pytest

from vecampfit.fitter import FitParameter, Likelihood, ParameterTable
from vecampfit.fitter._threads import HISTORY, CoreShare, TaskCount, running_tasks


def counts(values):
    it = iter(values)
    return lambda: next(it)


def test_one_thread_while_the_other_core_runs_something():
    # two CPUs; the count includes the calling thread
    share = CoreShare(2, cpus=2, count=counts([2] * 10), applies=True)
    assert [share() for _ in range(10)] == [1] * 10


def test_every_thread_on_an_idle_machine():
    share = CoreShare(4, cpus=8, count=counts([1] * 5), applies=True)
    assert [share() for _ in range(5)] == [4] * 5


def test_threads_of_the_free_cores():
    # 64 CPUs, 60 other tasks: this thread and 3 helpers
    share = CoreShare(16, cpus=64, count=counts([61]), applies=True)
    assert share() == 4
    # more other tasks than cores: still one thread
    share = CoreShare(16, cpus=64, count=counts([200]), applies=True)
    assert share() == 1


def test_a_moment_of_other_work_costs_no_thread():
    # the smallest count of other tasks over the last HISTORY passes decides
    seq = [1, 2, 2, 2, 2, 2, 1]
    share = CoreShare(2, cpus=2, count=counts(seq), applies=True)
    got = [share() for _ in seq]
    assert HISTORY == 4
    # passes 2-4 still see the idle pass 1; pass 5 sees four busy passes
    assert got == [2, 2, 2, 2, 1, 1, 2]


def test_fixed_policy_and_unknown_counts():
    share = CoreShare(2, "fixed", cpus=2, count=counts([5] * 3), applies=True)
    assert not share.active and share() == 2
    share = CoreShare(2, cpus=2, count=lambda: None, applies=True)
    assert share() == 2
    # spinning helpers (or a count of another machine's cores): never fewer
    share = CoreShare(2, cpus=2, count=counts([5] * 3), applies=False)
    assert not share.active and share() == 2
    # one thread asked for: nothing to choose, the count is not even read
    share = CoreShare(1, cpus=2, count=lambda: pytest.fail("read"), applies=True)
    assert share() == 1
    with pytest.raises(ValueError, match="thread_policy must be 'share' or 'fixed'"):
        CoreShare(2, "dynamic")


def test_running_tasks_reads_the_fourth_field(tmp_path):
    f = tmp_path / "loadavg"
    f.write_text("0.52 0.61 0.70 3/81 1234\n")
    assert running_tasks(str(f)) == 3
    f.write_text("0.52 0.61\n")
    assert running_tasks(str(f)) is None
    assert running_tasks(str(tmp_path / "missing")) is None
    if os.path.exists("/proc/loadavg"):
        n = running_tasks()
        print("running tasks now:", n)
        assert n is not None and n >= 1   # this thread runs


def test_task_count_keeps_its_file_open_and_reads_it_afresh(tmp_path):
    import pickle

    f = tmp_path / "loadavg"
    f.write_text("0.52 0.61 0.70 3/81 1234\n")
    count = TaskCount(str(f))
    assert count() == 3
    fd = count._fd
    f.write_text("0.52 0.61 0.70 5/81 1234\n")    # the same file, new content
    assert count() == 5 and count._fd == fd         # read again, not reopened
    copy = pickle.loads(pickle.dumps(count))
    assert copy._fd is None and copy() == 5 and copy._fd != fd
    count.close()
    copy.close()
    with pytest.raises(OSError):
        os.fstat(fd)                                # closed
    missing = TaskCount(str(tmp_path / "missing"))
    assert missing() is None and missing() is None


def test_likelihood_passes_the_choice_to_its_kernels(toy_model_l8, monkeypatch):
    from vecampfit.fitter import _threads, likelihood
    from vecampfit.fitter.density import Density

    seen = []

    class Busy(_threads.CoreShare):
        # a machine whose other core is busy, the choice recorded
        def __init__(self, threads, policy="share"):
            super().__init__(threads, policy, cpus=2, count=lambda: 2, applies=True)

        def __call__(self):
            n = super().__call__()
            seen.append(n)
            return n

    monkeypatch.setattr(likelihood, "CoreShare", Busy)
    values = {}
    for policy in ("share", "fixed"):
        seen.clear()
        table = ParameterTable([FitParameter("mu", 0.3, 0.1), FitParameter("sigma", 1.0, 0.1)])
        lk = Likelihood(table, vector_length=8, threads=2, thread_policy=policy)
        assert lk.thread_policy == policy
        point = lk.add_point(Density.from_model(toy_model_l8, model="gauss", name="gauss"))
        rng = np.random.default_rng(1)
        point.add_data({"x": rng.normal(0.3, 1.0, 5000)})
        point.add_normalization_events({"x": rng.uniform(-5, 5, 20000)})
        values[policy] = lk.evaluate([0.25, 1.1], gradient=True)
        assert seen and set(seen) == ({1} if policy == "share" else {2}), (policy, seen)
    # the same bits with one thread as with two
    assert values["share"][0] == values["fixed"][0]
    assert np.array_equal(values["share"][1], values["fixed"][1])
    with pytest.raises(ValueError, match="thread_policy must be 'share' or 'fixed', got 'x'"):
        Likelihood(ParameterTable([FitParameter("mu", 0.3, 0.1)]), thread_policy="x")
