"""How the library's idle OpenMP threads wait between parallel regions.

The OpenMP runtime reads its environment once, when it is loaded with the
first of vecampfit's compiled modules; :func:`configure` runs before that,
from ``vecampfit/__init__.py``, and sets the environment unless the user
chose a wait policy (``OMP_WAIT_POLICY``) or a spin count
(``GOMP_SPINCOUNT``) already.

Between the parallel regions of a fit the main thread runs Python and
Minuit: a few microseconds between the calls of a MIGRAD fit, some tens
inside a call (``benchmarks/results/threads.md``).  A helper thread that
sleeps at once (``OMP_WAIT_POLICY=passive``) is woken for every region,
which costs tens of microseconds on a virtual machine whose idle CPUs halt;
one that spins without bound (the runtime's own default spins for
milliseconds) takes the core that the main thread or another job needs on a
busy machine.  So where the library can count its own spinning helpers out
of the machine's running tasks (:class:`vecampfit.fitter._threads.CoreShare`:
Linux, ``/proc/loadavg``, every CPU in the affinity mask, GCC's runtime
libgomp), a helper spins for :data:`SPIN_SECONDS` after a region and then
sleeps: ``GOMP_SPINCOUNT`` is that time divided by the time of one turn of
libgomp's spin loop, measured here (:func:`vecampfit._pause.spin_seconds`).
Elsewhere helpers sleep at once (``OMP_WAIT_POLICY=passive``).

The environment, with the marker :data:`MARKER`, passes to child processes
(a process pool, MPI ranks started from Python); a child that finds the
marker matching ``GOMP_SPINCOUNT`` measures the turn again on its own CPU.
"""

import os
import sys
from collections import namedtuple

__all__ = ["MARKER", "SPIN_SECONDS", "WAIT", "WaitPolicy", "configure", "spin_count",
           "whole_machine"]

#: How long an idle helper thread spins before it sleeps, where the library
#: chooses (seconds): more than the main thread's time between the regions
#: of a fit, little beside a likelihood call.
SPIN_SECONDS = 2e-4

#: Environment variable recording a spin count that the library chose:
#: ``"<GOMP_SPINCOUNT>:<SPIN_SECONDS>"``.
MARKER = "VECAMPFIT_OPENMP_SPIN"

#: Turns of the spin loop per measurement, and measurements (the shortest counts).
CALIBRATION_TURNS = 2000
CALIBRATION_REPEATS = 5

#: Fewest and most turns the library sets.
MIN_SPIN_COUNT = 100
MAX_SPIN_COUNT = 10_000_000

LOADAVG = "/proc/loadavg"


class WaitPolicy(namedtuple("WaitPolicy", "kind spin_seconds")):
    """How idle OpenMP threads wait.

    Attributes
    ----------
    kind : {"passive", "spin", "user"}
        ``"passive"``: they sleep at once (the user's ``OMP_WAIT_POLICY=passive``
        or the library's choice); ``"spin"``: they spin for ``spin_seconds``
        and then sleep (the library's ``GOMP_SPINCOUNT``); ``"user"``: as
        the user's ``OMP_WAIT_POLICY`` or ``GOMP_SPINCOUNT`` says, for a time
        the library does not know.
    spin_seconds : float or None
        Seconds a helper spins after a region: 0 (``"passive"``), about
        :data:`SPIN_SECONDS` (``"spin"``), None (``"user"``).
    """

    __slots__ = ()


def spin_count(seconds, turn_seconds):
    """The ``GOMP_SPINCOUNT`` of a spin of ``seconds``.

    Parameters
    ----------
    seconds : float
        The spin's length (s).
    turn_seconds : float
        One turn of the spin loop (s), :func:`vecampfit._pause.spin_seconds`
        of one turn.

    Returns
    -------
    int
        :math:`t / t_1` rounded to the nearest integer, between
        :data:`MIN_SPIN_COUNT` and :data:`MAX_SPIN_COUNT`.
    """
    if not turn_seconds > 0:
        raise ValueError(f"turn_seconds must be positive, got {turn_seconds!r}")
    n = float(seconds) / float(turn_seconds)
    return int(min(MAX_SPIN_COUNT, max(MIN_SPIN_COUNT, round(min(n, 2.0 * MAX_SPIN_COUNT)))))


def _turn_seconds():
    from ._pause import spin_seconds

    spin_seconds(CALIBRATION_TURNS)          # first touch of the loop's page
    return min(spin_seconds(CALIBRATION_TURNS)
               for _ in range(CALIBRATION_REPEATS)) / CALIBRATION_TURNS


def whole_machine():
    """Whether this process may run on every online CPU (its affinity mask).

    Returns
    -------
    bool
    """
    try:
        return len(os.sched_getaffinity(0)) == (os.cpu_count() or 0)
    except AttributeError:
        return False


def _can_count():
    """Whether CoreShare can count running tasks and this build's OpenMP
    runtime is libgomp (whose spin count GOMP_SPINCOUNT sets)."""
    from ._build_config import C_COMPILER, OPENMP

    return (OPENMP and C_COMPILER == "gcc" and sys.platform.startswith("linux")
            and whole_machine() and os.access(LOADAVG, os.R_OK))


def configure(environ=None, *, can_count=None, turn_seconds=None):
    """Set the OpenMP runtime's wait policy in ``environ`` (module description).

    Parameters
    ----------
    environ : mapping, optional
        The environment (default :data:`os.environ`), changed in place.
    can_count : bool, optional
        Whether the library can count its spinning helpers out of the
        machine's running tasks (default: decided from the platform, the
        build and ``/proc/loadavg``).
    turn_seconds : float, optional
        One turn of the spin loop (default: measured).

    Returns
    -------
    WaitPolicy
    """
    env = os.environ if environ is None else environ
    policy = env.get("OMP_WAIT_POLICY", "").strip().lower()
    count = env.get("GOMP_SPINCOUNT")
    marker = env.get(MARKER, "")
    ours = count is not None and marker.partition(":")[0] == count.strip() and not policy
    if (policy or count is not None) and not ours:
        env.pop(MARKER, None)
        if policy == "passive" and count is None:
            return WaitPolicy("passive", 0.0)
        return WaitPolicy("user", None)
    if can_count is None:
        can_count = _can_count()
    if can_count:
        try:
            t1 = _turn_seconds() if turn_seconds is None else turn_seconds
            n = spin_count(SPIN_SECONDS, t1)
        except (ImportError, ValueError):
            n = None
        if n is not None:
            env["GOMP_SPINCOUNT"] = str(n)
            env[MARKER] = f"{n}:{SPIN_SECONDS!r}"
            env.pop("OMP_WAIT_POLICY", None)
            return WaitPolicy("spin", n * t1)
    env.pop("GOMP_SPINCOUNT", None)
    env.pop(MARKER, None)
    env["OMP_WAIT_POLICY"] = "passive"
    return WaitPolicy("passive", 0.0)


#: How this process's idle OpenMP threads wait: :func:`configure` of the
#: environment, once, when vecampfit is imported.
WAIT = configure()
