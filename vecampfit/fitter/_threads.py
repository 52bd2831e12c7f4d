"""How many OpenMP threads a likelihood call uses on a machine shared with
other work.

A parallel region ends when its slowest thread does.  Where every core
already runs something else (a batch node shared with other jobs, a laptop
with a browser), a helper thread takes turns with that work, or with the
main thread itself, and the call waits at the region's end for whichever of
them the scheduler left out: two threads are then no faster than one, and
often slower (``benchmarks/results/threads.md``).  :class:`CoreShare` therefore
gives a call no more threads than there are cores not running anything else,
from the number of tasks the kernel reports as running at that moment (the
fourth field of ``/proc/loadavg``, which counts the calling thread itself):
one count per likelihood call, for all its parallel passes (the data, and
the normalization events where they are evaluated), and the smallest number
of other running tasks over the last four calls, so that a task that runs
for a moment does not cost a thread.

The choice changes nothing but the time: every sum is reduced in a fixed
order of chunks, so that a call's value and gradient are the same to the bit
with any number of threads.

It applies only where the count describes the cores this process runs on
(its affinity mask holds every online CPU) and the library knows how long
its idle helper threads spin (:mod:`vecampfit._openmp`): they sleep at
once (``OMP_WAIT_POLICY=passive``), or, the library's default on Linux,
spin for about :data:`vecampfit._openmp.SPIN_SECONDS` after a region.  A
spinning helper is a running task: for the first half of that time after a
call (a spin cannot end sooner), the helpers the call used are counted out.
A count read later may still see one, and the call then takes a thread
fewer; the smallest count of the last four calls keeps that from lasting.
"""

import contextlib
import os
import time

from .._openmp import LOADAVG as _LOADAVG, WAIT, whole_machine

__all__ = ["CoreShare", "TaskCount", "running_tasks"]

#: Calls whose counts of other running tasks a choice takes the smallest of.
HISTORY = 4

#: The file whose fourth field, ``running/total``, counts the running tasks.
LOADAVG = _LOADAVG


def _parse_running(text):
    try:
        return int(text.split()[3].split(b"/")[0])
    except (IndexError, ValueError):
        return None


def running_tasks(path=LOADAVG):
    """The number of tasks running or ready to run on the machine now.

    Parameters
    ----------
    path : str
        The kernel's load file (``/proc/loadavg``: ``"0.52 0.61 0.70 2/81
        1234"``, the fourth field's numerator).

    Returns
    -------
    int or None
        The count (the calling thread included), or None where the file is
        missing or not in this form.
    """
    with TaskCount(path) as count:
        return count()


class TaskCount:
    """:func:`running_tasks`, read through a descriptor kept open.

    Opening ``/proc/loadavg`` afresh at every likelihood call cost a cached
    D0 call with two threads some 30 microseconds more than the read
    alone (``benchmarks/results/threads.md``), so the file is opened once,
    at the first count, and read with ``pread`` from its start, one system
    call per count.  The descriptor is closed with the object (or by
    :meth:`close`) and not pickled; a copy opens its own.

    Parameters
    ----------
    path : str
        The kernel's load file.
    """

    def __init__(self, path=LOADAVG):
        self.path = path
        self._fd = None             # None: not opened yet; -1: cannot be opened

    def __call__(self):
        """The running tasks now (the calling thread included), or None.

        Returns
        -------
        int or None
        """
        if self._fd is None:
            try:
                self._fd = os.open(self.path, os.O_RDONLY)
            except OSError:
                self._fd = -1
        if self._fd < 0:
            return None
        try:
            return _parse_running(os.pread(self._fd, 256, 0))
        except OSError:
            return None

    def close(self):
        """Close the descriptor (a later count opens it again)."""
        fd, self._fd = self._fd, None
        if fd is not None and fd >= 0:
            os.close(fd)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except (OSError, AttributeError, TypeError):
            pass

    def __getstate__(self):
        return {"path": self.path, "_fd": None}


class CoreShare:
    """The threads of each call: at most ``threads``, and no more than the
    cores that other work leaves free.

    A call on a machine with :math:`n` CPUs, when :math:`r` tasks are
    running (this thread and :math:`h` helper threads of the last call still
    spinning included), has :math:`o = r - 1 - h` other tasks and uses
    :math:`\\max(1, \\min(T, n - \\min_{\\text{last 4 calls}} o))`
    threads, :math:`T` the threads asked for.  :math:`h` is the last call's
    threads less one for half the helpers' spin (:meth:`finished`) after
    that call, 0 after.

    Parameters
    ----------
    threads : int
        The threads asked for (:func:`~vecampfit.fitter.likelihood.resolve_threads`).
    policy : {"share", "fixed"}
        ``"share"``: the rule above, where it applies (module description);
        ``"fixed"``: always ``threads``.
    cpus : int, optional
        Online CPUs (default :func:`os.cpu_count`).
    count : callable, optional
        Returns the running tasks now, or None (default: a :class:`TaskCount`
        of ``/proc/loadavg``).
    applies : bool, optional
        Whether the count describes this process's cores and the library
        knows how its helper threads wait (default: decided from the
        affinity mask and :data:`vecampfit._openmp.WAIT`, see the module
        description).
    spin_seconds : float, optional
        How long an idle helper spins after a region (default
        :data:`vecampfit._openmp.WAIT`'s; 0 where helpers sleep at once).
    clock : callable, optional
        Monotonic seconds (default :func:`time.monotonic`).

    Attributes
    ----------
    threads : int
        The threads asked for.
    active : bool
        Whether calls may use fewer (policy ``"share"`` and the rule applies).
    """

    POLICIES = ("share", "fixed")

    def __init__(self, threads, policy="share", *, cpus=None, count=None, applies=None,
                 spin_seconds=None, clock=None):
        if policy not in self.POLICIES:
            raise ValueError(f"thread_policy must be 'share' or 'fixed', got {policy!r}")
        self.threads = int(threads)
        self.policy = policy
        self._cpus = int(cpus if cpus is not None else (os.cpu_count() or 1))
        self._count = count if count is not None else TaskCount()
        if applies is None:
            applies = WAIT.spin_seconds is not None and whole_machine()
        if spin_seconds is None:
            spin_seconds = WAIT.spin_seconds or 0.0
        self.active = policy == "share" and self.threads > 1 and bool(applies)
        self._counted_out_for = 0.5 * float(spin_seconds)
        self._clock = clock if clock is not None else time.monotonic
        self._others = []
        self._last = 1
        self._spinning = (0, 0.0)       # (helpers, until when they are counted out)
        self._chosen = False

    def __call__(self):
        """The threads for this call (one count of running tasks).

        Returns
        -------
        int
            Between 1 and :attr:`threads`.
        """
        if not self.active:
            return self.threads
        running = self._count()
        if running is None:
            return self.threads
        helpers, until = self._spinning
        if helpers and self._clock() < until:
            running = int(running) - helpers
        self._others.append(max(0, int(running) - 1))
        del self._others[:-HISTORY]
        free = self._cpus - min(self._others)
        self._last = max(1, min(self.threads, free))
        self._chosen = True
        return self._last

    def finished(self):
        """Mark the end of the parallel passes of the call last chosen for:
        its helper threads spin from now on (counted out of the next count
        for half their spin, see the class description)."""
        if self._chosen and self._counted_out_for > 0:
            self._spinning = (self._last - 1, self._clock() + self._counted_out_for)
        self._chosen = False

    @contextlib.contextmanager
    def call(self):
        """The threads for one call's passes (:meth:`__call__`), and
        :meth:`finished` when they are done::

            with share.call() as threads:
                ...
        """
        try:
            yield self()
        finally:
            self.finished()
