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


class Clock:
    """A monotonic clock the test moves (seconds)."""

    def __init__(self):
        self.t = 100.0

    def __call__(self):
        return self.t


def choices(share, n, clock=None, after=5e-5):
    """The threads of ``n`` calls, each marked finished, the next count
    ``after`` seconds later on ``clock``."""
    got = []
    for _ in range(n):
        with share.call() as threads:
            got.append(threads)
        if clock is not None:
            clock.t += after
    return got


def test_helpers_still_spinning_are_counted_out():
    # Two CPUs, helpers that spin 0.2 ms after a call: for 0.1 ms after
    # finished() the call's helper is counted out of the running tasks.
    clock = Clock()
    idle = [1] + [2] * 8          # after the first call the helper spins: main + helper
    share = CoreShare(2, cpus=2, count=counts(idle), applies=True, spin_seconds=2e-4,
                      clock=clock)
    # the next count 50 us after the passes
    assert choices(share, len(idle), clock) == [2] * len(idle)

    # the same counts without the helpers counted out: after four calls the
    # spinning helper reads as other work and costs a thread
    share = CoreShare(2, cpus=2, count=counts(idle), applies=True, spin_seconds=0.0,
                      clock=clock)
    assert choices(share, len(idle), clock) == [2] * 4 + [1] * 5


def test_a_busy_machine_is_seen_through_a_spinning_helper():
    # main + spinning helper + another job: one thread, from the fifth call on
    clock = Clock()
    busy = [1, 3, 3, 3, 3, 2, 2, 2]
    share = CoreShare(2, cpus=2, count=counts(busy), applies=True, spin_seconds=2e-4,
                      clock=clock)
    got = choices(share, len(busy), clock)
    # calls 2-4 still see the idle first call; then the other job (the
    # helper of a one-thread call is not counted out: it did not run)
    assert got == [2, 2, 2, 2, 1, 1, 1, 1]


def test_helpers_are_counted_out_for_half_their_spin_only():
    clock = Clock()
    share = CoreShare(2, cpus=2, count=counts([1, 2, 2]), applies=True, spin_seconds=2e-4,
                      clock=clock)
    with share.call():
        pass
    clock.t += 1.01e-4            # past half the spin: a running task is another's
    assert share() == 2 and share._others[-1] == 1
    share.finished()
    # finished() without a choice before it marks nothing
    share.finished()
    clock.t += 1e-6
    assert share() == 2 and share._others[-1] == 0


def test_likelihood_keeps_its_choice_across_the_same_thread_count(toy_model_l8, monkeypatch):
    from vecampfit.fitter import _threads, likelihood
    from vecampfit.fitter.density import Density

    events = []

    class Recording(_threads.CoreShare):
        def __init__(self, threads, policy="share"):
            super().__init__(threads, policy, cpus=2, count=lambda: 1, applies=True,
                             spin_seconds=2e-4)

        def __call__(self):
            events.append("choose")
            return super().__call__()

        def finished(self):
            events.append("finished")
            super().finished()

    monkeypatch.setattr(likelihood, "CoreShare", Recording)
    table = ParameterTable([FitParameter("mu", 0.3, 0.1), FitParameter("sigma", 1.0, 0.1)])
    lk = Likelihood(table, vector_length=8, threads=2)
    point = lk.add_point(Density.from_model(toy_model_l8, model="gauss", name="gauss"))
    rng = np.random.default_rng(1)
    point.add_data({"x": rng.normal(0.3, 1.0, 5000)})
    point.add_normalization_events({"x": rng.uniform(-5, 5, 20000)})
    share = lk._share
    lk.threads = 2                # the same number: the same choice, its history kept
    assert lk._share is share
    for _ in range(3):
        lk.evaluate([0.25, 1.1], gradient=True)
    # one choice per call, marked finished after its passes
    assert events == ["choose", "finished"] * 3, events
    assert share._spinning[0] == 1
    lk.threads = 1
    assert lk._share is not share and lk._share.threads == 1
