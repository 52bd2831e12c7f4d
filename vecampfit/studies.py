r"""Studies after a fit: pseudoexperiments, pulls, and the solutions of
random-start scans.

A study runs one function, ``experiment(index, seed) -> dict``, many times:
generate a pseudo-data sample from the model at given parameter values and
fit it (or fit the same data from a random start), returning what the user
wants to keep (fitted values, errors, :math:`\mathcal{F}`, status, fit
fractions...).  :func:`run_study` derives one seed per experiment from one
seed (:class:`numpy.random.SeedSequence`), so experiment ``k`` can be redone
alone; runs the experiments in this process or on any
:class:`concurrent.futures.Executor`: a process pool on this machine
(:func:`process_executor`), a dask.distributed cluster, local or on a batch
system (:func:`dask_executor`, or a ``distributed.Client`` given directly),
or the ranks of an MPI job (``mpi4py.futures.MPIPoolExecutor``); records an
experiment that raises, or whose worker dies, with its error instead of
stopping; and appends every result to a file as it arrives, so that an
interrupted study resumes without redoing finished experiments.

:func:`pull_summary` gives the mean and width of the pulls
:math:`(\hat p - p_\text{true})/\sigma_{\hat p}` with their errors and
:func:`plot_pulls` draws them; :func:`group_solutions` groups the minima of
a random-start scan into distinct solutions (:func:`scaled_distance`: points
compared in units of their errors, :func:`propagate_errors`;
:func:`group_fits` does all three for the fits of a scan).
"""

import json
import math
import os
import socket
import time
from collections.abc import Mapping
from concurrent.futures import Executor, ProcessPoolExecutor, as_completed

import numpy as np

__all__ = ["experiment_seeds", "process_executor", "dask_executor", "DaskExecutor", "run_study",
           "StudyTable", "StudyResultError", "ResultsInUseError", "pull_summary", "plot_pulls",
           "group_solutions", "scaled_distance", "propagate_errors", "group_fits"]


class StudyResultError(TypeError):
    """An experiment returned what a study cannot keep: a value that cannot
    be written to the results file, or a key of the runner's own.  The
    message names the experiment and the key.  It stops the study (every
    experiment would return the same kind of result)."""


class ResultsInUseError(RuntimeError):
    """The results file of a study is being written by another study (in
    this or another process); the message names the file and its holder."""


def experiment_seeds(seed, n):
    """One integer seed per experiment, derived from ``seed``.

    Parameters
    ----------
    seed : int
        The study's seed.
    n : int
        Number of experiments.

    Returns
    -------
    list of int
        Experiment ``k``'s seed: the first 64-bit word of the ``k``-th child
        of ``numpy.random.SeedSequence(seed)`` (independent streams; the
        same whatever the number of experiments).
    """
    children = np.random.SeedSequence(int(seed)).spawn(int(n))
    return [int(c.generate_state(1, dtype=np.uint64)[0]) for c in children]


def _set_threads(threads):
    os.environ["OMP_NUM_THREADS"] = str(threads)


def _check_positive(workers, threads, threads_name="threads_per_worker"):
    for name, value in (("workers", workers), (threads_name, threads)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ValueError(f"{name} must be a positive integer, got {value!r}")


def process_executor(workers=None, threads_per_worker=None):
    """A process pool whose workers use ``threads_per_worker`` OpenMP threads.

    Parameters
    ----------
    workers : int, optional
        Number of processes (default: the CPUs available).
    threads_per_worker : int, optional
        OpenMP threads of each worker (default: CPUs // workers, at least
        1), set as ``OMP_NUM_THREADS`` before the worker imports anything,
        so that the fitter in every worker uses that many.

    Returns
    -------
    concurrent.futures.ProcessPoolExecutor

    Notes
    -----
    A worker that dies (killed, or a crash in compiled code) breaks the
    whole pool: the experiments not finished by then are reported as lost
    (:func:`run_study`) and run again when the study resumes.
    :func:`dask_executor` restarts a dead worker and loses only its task.
    """
    from .fitter.likelihood import available_cpus
    cpus = available_cpus()
    workers = workers if workers is not None else cpus
    threads = threads_per_worker if threads_per_worker is not None else \
        max(1, cpus // workers) if isinstance(workers, (int, np.integer)) and workers > 0 else 1
    _check_positive(workers, threads)
    return ProcessPoolExecutor(max_workers=int(workers), initializer=_set_threads,
                               initargs=(int(threads),))


def _is_dask_client(obj):
    if not type(obj).__module__.startswith("distributed"):
        return False
    try:
        from distributed import Client
    except ImportError:  # pragma: no cover - a "distributed" module that is not dask's
        return False
    return isinstance(obj, Client)


class DaskExecutor(Executor):
    """A :class:`concurrent.futures.Executor` on a dask.distributed cluster.

    Made by :func:`dask_executor`; :func:`run_study` makes one itself from
    a ``distributed.Client``.  Tasks are submitted with ``pure=False``
    (every experiment runs, even with equal arguments).

    Attributes
    ----------
    client : distributed.Client
    threads : int or None
        OpenMP threads of every experiment: :func:`run_study` sets
        ``OMP_NUM_THREADS`` to it in the worker process before each
        experiment, which is what the fitter reads when an experiment
        builds its likelihood without ``threads=``
        (:func:`vecampfit.fitter.likelihood.resolve_threads`).  None: the
        workers' own environment.
    """

    def __init__(self, client, threads=None, owned=()):
        if not _is_dask_client(client):
            raise TypeError(f"expected a distributed.Client, got {type(client).__name__}")
        if client.status != "running":
            raise RuntimeError(f"the dask client is {client.status}, not running (closed "
                               "clients cannot run a study)")
        if threads is not None:
            _check_positive(1, threads, "threads")
            threads = int(threads)
        self.client = client
        self.threads = threads
        self._executor = client.get_executor(pure=False)
        self._owned = list(owned)

    def submit(self, fn, /, *args, **kwargs):
        """Run ``fn(*args, **kwargs)`` on a worker; a :class:`concurrent.futures.Future`."""
        if self.client.status != "running":
            raise RuntimeError(f"the dask client is {self.client.status}, not running")
        return self._executor.submit(fn, *args, **kwargs)

    def shutdown(self, wait=True, *, cancel_futures=False):
        """Stop submitting; close the client and cluster if :func:`dask_executor`
        started them (a client given to it stays open)."""
        if cancel_futures:
            wait = False
        self._executor.shutdown(wait=wait)
        for thing in self._owned:
            thing.close()
        self._owned = []


def dask_executor(client_or_address=None, *, workers=None, threads_per_worker=None):
    """An executor on a dask.distributed cluster for :func:`run_study`.

    Parameters
    ----------
    client_or_address : distributed.Client or str, optional
        A running client (for example of a dask-jobqueue ``SLURMCluster``;
        it stays open after the study), or a scheduler's address
        (``"tcp://host:8786"``; the client made here is closed with the
        executor).  None: start a ``distributed.LocalCluster`` of
        ``workers`` worker processes with one task at a time each (its
        dashboard on a free port: ``executor.client.dashboard_link``),
        closed with the executor.
    workers : int, optional
        Worker processes of the local cluster (default: the CPUs available
        // ``threads_per_worker``); only without ``client_or_address``.
    threads_per_worker : int, optional
        OpenMP threads per experiment.  Local cluster: default the CPUs
        available // ``workers`` (at least 1), or 1 when ``workers`` is not
        given either; its worker processes start with ``OMP_NUM_THREADS``
        at this value (before they load any OpenMP runtime).  On every
        cluster :func:`run_study` sets it in the worker before each
        experiment.  None with a client: the workers' environment decides.

    Returns
    -------
    DaskExecutor
        Use it in a ``with`` block, or call ``shutdown()``.

    Raises
    ------
    ImportError
        If dask.distributed is not installed (``pip install vecampfit[cluster]``).
    TypeError
        If ``client_or_address`` is neither a client nor an address.
    RuntimeError
        If the client is closed.
    ValueError
        If ``workers`` or ``threads_per_worker`` is not a positive integer, or
        ``workers`` is given with a client.

    Notes
    -----
    dask's nannies, which run in this process for a local cluster, set
    ``OMP_NUM_THREADS`` in their own process when they start a worker.
    This function restores this process's value after starting the
    cluster, but a nanny that restarts a worker that died sets it again
    (to ``threads_per_worker``): an in-process fit afterwards that builds
    its likelihood without ``threads=`` uses that many threads.
    """
    try:
        import distributed
    except ImportError as exc:
        raise ImportError("dask_executor needs dask.distributed: pip install "
                          "'vecampfit[cluster]' (or 'dask[distributed]')") from exc
    if client_or_address is None:
        from .fitter.likelihood import available_cpus
        cpus = available_cpus()
        if workers is None:
            threads = 1 if threads_per_worker is None else threads_per_worker
            _check_positive(1, threads)
            workers = max(1, cpus // threads)
        threads = threads_per_worker if threads_per_worker is not None else \
            max(1, cpus // workers) if isinstance(workers, (int, np.integer)) and workers > 0 else 1
        _check_positive(workers, threads)
        env = {"OMP_NUM_THREADS": str(int(threads))}
        # A nanny sets its "pre-spawn" variables in its own process (this one)
        # before it spawns a worker, so that they are in effect from the
        # worker's start; this process gets its value back afterwards (see
        # the Notes for restarts).
        saved = os.environ.get("OMP_NUM_THREADS")
        try:
            os.environ["OMP_NUM_THREADS"] = env["OMP_NUM_THREADS"]
            import dask
            with dask.config.set({"distributed.nanny.pre-spawn-environ.OMP_NUM_THREADS":
                                  env["OMP_NUM_THREADS"]}):
                cluster = distributed.LocalCluster(n_workers=int(workers), threads_per_worker=1,
                                                   processes=True, env=env,
                                                   dashboard_address=":0")
        finally:
            if saved is None:
                os.environ.pop("OMP_NUM_THREADS", None)
            else:
                os.environ["OMP_NUM_THREADS"] = saved
        client = distributed.Client(cluster, set_as_default=False)
        return DaskExecutor(client, int(threads), owned=(client, cluster))
    if workers is not None:
        raise ValueError("workers applies to the local cluster only; with a client or an "
                         "address the cluster decides its workers")
    if isinstance(client_or_address, str):
        client = distributed.Client(client_or_address, set_as_default=False)
        return DaskExecutor(client, threads_per_worker, owned=(client,))
    if not _is_dask_client(client_or_address):
        raise TypeError("client_or_address must be a distributed.Client, a scheduler address "
                        f"or None, got {type(client_or_address).__name__}")
    return DaskExecutor(client_or_address, threads_per_worker)


class StudyTable:
    """The results of a study, one row per experiment.

    Attributes
    ----------
    rows : list of dict
        Per experiment: ``experiment`` (index), ``seed``, ``status``
        (``"ok"``, ``"failed"`` or ``"lost"``, see :func:`run_study`),
        ``error`` (the exception's text, empty when ok), ``time`` (wall
        time of the experiment in s; NaN when lost), and the keys the
        experiment returned.
    """

    def __init__(self, rows):
        self.rows = sorted(rows, key=lambda r: r["experiment"])

    def __len__(self):
        return len(self.rows)

    @property
    def ok(self):
        """The rows of the experiments that did not fail."""
        return [r for r in self.rows if r["status"] == "ok"]

    @property
    def failed(self):
        """The rows of the experiments that raised or were lost (status
        ``"failed"`` or ``"lost"``)."""
        return [r for r in self.rows if r["status"] != "ok"]

    def column(self, key):
        """One key of the successful experiments as a numpy array.

        Parameters
        ----------
        key : str
            A key of the rows (same units as the experiment returned).

        Returns
        -------
        numpy.ndarray
            Shape (successful experiments,) or, for lists of one length,
            (successful experiments, length); in the order of the
            experiments.
        """
        return np.array([r[key] for r in self.ok])

    def to_records(self):
        """The rows as a list of dicts (copies), e.g. for
        ``pandas.DataFrame(table.to_records())``.

        Returns
        -------
        list of dict
        """
        return [dict(r) for r in self.rows]

    def write_root(self, path, tree="study"):
        """Write the successful rows' numeric columns as a ROOT tree.

        Parameters
        ----------
        path : str or os.PathLike
            The ROOT file (written with uproot).
        tree : str
            The tree's name.

        Raises
        ------
        ValueError
            If no experiment succeeded.

        Notes
        -----
        Numbers become float64 branches and lists of one length branches
        of that shape, in the experiments' units; other columns (text) are
        left out.
        """
        from .root_io import write_tree
        ok = self.ok
        if not ok:
            raise ValueError("no successful experiment to write")
        columns = {}
        for key in ok[0]:
            values = [r[key] for r in ok]
            try:
                arr = np.asarray(values, dtype=np.float64)
            except (TypeError, ValueError):
                continue
            columns[key] = arr
        write_tree(path, columns, tree)


def _storable(value):
    """``value`` with numpy arrays and scalars (at any depth of lists, tuples
    and dicts) turned into Python lists and numbers."""
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, dict):
        return {k: _storable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_storable(v) for v in value]
    return value


def _run_one(experiment, index, seed, threads=None):
    if threads is not None:
        _set_threads(threads)
    t0 = time.perf_counter()
    try:
        result = experiment(index, seed)
        status, error = "ok", ""
    except Exception as exc:  # a failed fit is a result of the study, not its end
        result, status, error = {}, "failed", f"{type(exc).__name__}: {exc}"
    if not isinstance(result, Mapping):
        raise StudyResultError(f"experiment {index}: returned a {type(result).__name__}, not a "
                               f"dict of results (key -> value)")
    row = {"experiment": index, "seed": seed, "status": status, "error": error,
           "time": time.perf_counter() - t0}
    for key, value in result.items():
        if not isinstance(key, str):
            raise StudyResultError(f"experiment {index}: its result has the key {key!r} "
                                   f"({type(key).__name__}); keys must be strings")
        if key in row:
            raise StudyResultError(f"experiment {index}: the key {key!r} of its result is the "
                                   f"runner's ({', '.join(row)})")
        value = _storable(value)
        try:
            json.dumps(value, allow_nan=True)
        except (TypeError, ValueError) as exc:
            raise StudyResultError(
                f"experiment {index}: the value of key {key!r} of its result cannot be kept in "
                f"the results file (JSON): {exc}; return numbers, strings, lists, dicts or "
                f"numpy arrays") from None
        row[key] = value
    return row


def _holder_path(path):
    return f"{os.fspath(path)}.holder"


def _lock_results(path):
    """Open the results file for appending and lock it against other studies.

    Returns the open file; the lock ends when it is closed.  The holder
    (process, host, start time) is written beside it to ``<path>.holder``
    for the message another study gives.

    Raises
    ------
    ResultsInUseError
        If another study holds the lock.
    """
    out = open(path, "a+", encoding="utf-8")
    try:
        try:
            import fcntl
        except ImportError:              # Windows
            import msvcrt
            try:
                out.seek(0)
                msvcrt.locking(out.fileno(), msvcrt.LK_NBLCK, 1)
                locked = True
            except OSError:
                locked = False
            out.seek(0, os.SEEK_END)
        else:
            try:
                fcntl.flock(out.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                locked = True
            except BlockingIOError:
                locked = False
        if not locked:
            try:
                with open(_holder_path(path), encoding="utf-8") as f:
                    holder = f.read().strip() or "another study"
            except OSError:
                holder = "another study"
            raise ResultsInUseError(
                f"{os.fspath(path)}: the results file is in use by {holder}; two studies "
                f"writing one file would mix their rows: wait for that study to end, or give "
                f"this one another results file")
        try:
            with open(_holder_path(path), "w", encoding="utf-8") as f:
                f.write(f"the study of process {os.getpid()} on {socket.gethostname()}, started "
                        f"{time.strftime('%Y-%m-%d %H:%M:%S')}\n")
        except OSError:
            pass                         # the lock holds without it
    except BaseException:
        out.close()
        raise
    return out


def _unlock_results(out, path):
    try:
        os.remove(_holder_path(path))
    except OSError:
        pass
    out.close()


def _read_done(path):
    done = {}
    if path is None or not os.path.exists(path):
        return done
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError:
                # A line cut by an interruption: that experiment runs again.
                continue
            if row.get("status") == "lost":
                continue
            done[int(row["experiment"])] = row
    return done


class _Progress:
    """A tqdm bar with the estimated time left, or printed lines without tqdm."""

    def __init__(self, n, done, todo, enabled):
        self.n, self.done, self.todo = n, done, todo
        self.count = 0
        self.failed = 0
        self.bar = None
        self.enabled = enabled
        self.t0 = time.perf_counter()
        if enabled:
            try:
                from tqdm.auto import tqdm
            except ImportError:
                tqdm = None
            if tqdm is not None:
                self.bar = tqdm(total=n, initial=done, unit="experiment", desc="study",
                                smoothing=0.1, dynamic_ncols=True)

    def update(self, row):
        self.count += 1
        self.failed += row["status"] != "ok"
        if not self.enabled:
            return
        if self.bar is not None:
            self.bar.set_postfix_str(f"{self.failed} failed", refresh=False)
            self.bar.update(1)
            if row["error"]:
                self.bar.write(f"experiment {row['experiment']}: {row['status']} ({row['error']})")
            return
        left = self.todo - self.count
        per = (time.perf_counter() - self.t0) / self.count
        print(f"experiment {row['experiment']}: {row['status']}"
              + (f" ({row['error']})" if row["error"] else "")
              + f"; {self.done + self.count}/{self.n} done, about {per * left:.0f} s left",
              flush=True)

    def close(self):
        if self.bar is not None:
            self.bar.close()


def _as_executor(executor):
    """The executor to submit to, the OpenMP threads per task, and what to shut
    down afterwards."""
    if executor is None or isinstance(executor, DaskExecutor):
        return executor, getattr(executor, "threads", None), None
    if _is_dask_client(executor):
        ex = DaskExecutor(executor)
        return ex, None, ex
    if isinstance(executor, Executor):
        return executor, None, None
    if callable(getattr(executor, "submit", None)):
        raise TypeError(f"executor must be a concurrent.futures.Executor or a distributed.Client; "
                        f"{type(executor).__name__} has submit() but is not an Executor (wrap "
                        "it, or use its get_executor())")
    raise TypeError(f"executor must be a concurrent.futures.Executor or a distributed.Client, "
                    f"got {type(executor).__name__}")


def run_study(experiment, n, *, seed, executor=None, results=None, progress=True):
    """Run ``experiment(index, seed)`` for ``index`` in ``0 .. n - 1``.

    Parameters
    ----------
    experiment : callable
        ``experiment(index, seed) -> dict``; a module-level function (or a
        picklable object) when an executor runs it in other processes.
        Returned numpy arrays are kept as lists and numpy scalars as Python
        numbers.
    n : int
        Number of experiments.
    seed : int
        The study's seed (:func:`experiment_seeds`).
    executor : concurrent.futures.Executor or distributed.Client, optional
        Where to run (default: in this process, one after the other):
        :func:`process_executor`, :func:`dask_executor`, a
        ``distributed.Client`` (run through :class:`DaskExecutor`, left
        open), ``mpi4py.futures.MPIPoolExecutor``, or any other executor.
        Results do not depend on it: experiment ``k`` gets the same seed
        everywhere.
    results : str or os.PathLike, optional
        A file of results, one JSON line per experiment, appended as each
        experiment ends.  Experiments already in it (with the same seed) are
        not run again; lost ones (below) are.
    progress : bool
        Show the progress with the estimated time left: a tqdm bar (on
        stderr) when tqdm is installed, else a printed line per finished
        experiment.

    Returns
    -------
    StudyTable
        One row per experiment.  ``status`` is ``"ok"``, ``"failed"`` (the
        experiment raised; its error is kept and the experiment is not run
        again on resuming, since its seed makes it fail again) or
        ``"lost"`` (its worker died or the executor failed, e.g. dask's
        ``KilledWorker`` or a broken process pool; not written to
        ``results``, so that resuming runs it again).

    Raises
    ------
    TypeError
        If ``executor`` is neither an executor nor a dask client.
    RuntimeError
        If the dask client is closed.
    ValueError
        If ``results`` holds an experiment with another seed (a different
        study).
    ResultsInUseError
        If another study (in this or another process) is writing
        ``results``: the file is locked for as long as a study runs.
    StudyResultError
        If an experiment returns a value that cannot be kept (not a number,
        string, list, dict, numpy array or numpy scalar) or a key of the
        runner's; the message names the experiment and the key.
    """
    n = int(n)
    executor, threads, own = _as_executor(executor)
    seeds = experiment_seeds(seed, n)
    out = None if results is None else _lock_results(results)
    try:
        done = _read_done(results)
        for k, row in done.items():
            if k < n and row["seed"] != seeds[k]:
                raise ValueError(f"{results}: experiment {k} has seed {row['seed']}, this "
                                 f"study's is {seeds[k]} (another study's results?)")
        if out is not None and out.tell() > 0:
            out.seek(out.tell() - 1)
            if out.read(1) != "\n":
                out.write("\n")          # after a line cut by an interruption
    except BaseException:
        if out is not None:
            _unlock_results(out, results)
        if own is not None:
            own.shutdown(wait=False)
        raise
    todo = [k for k in range(n) if k not in done]
    rows = [done[k] for k in range(n) if k in done]
    bar = _Progress(n, len(rows), len(todo), progress)

    def finished(row):
        rows.append(row)
        if out is not None and row["status"] != "lost":
            out.write(json.dumps(row) + "\n")
            out.flush()
        bar.update(row)

    futures = {}
    try:
        if executor is None:
            for k in todo:
                finished(_run_one(experiment, k, seeds[k]))
        else:
            futures = {executor.submit(_run_one, experiment, k, seeds[k], threads): k
                       for k in todo}
            for fut in as_completed(futures):
                k = futures[fut]
                try:
                    row = fut.result()
                except StudyResultError:
                    raise
                except Exception as exc:  # the worker died, or the executor failed
                    row = {"experiment": k, "seed": seeds[k], "status": "lost",
                           "error": f"{type(exc).__name__}: {exc}", "time": math.nan}
                finished(row)
    finally:
        for fut in futures:
            fut.cancel()             # after an interruption: do not start the others
        bar.close()
        if out is not None:
            _unlock_results(out, results)
        if own is not None:
            own.shutdown(wait=False)
    return StudyTable(rows)


def _truth_matrix(table, truth, names, shape):
    """The true values as an array of ``shape`` (experiments, parameters)."""
    if isinstance(truth, str):
        t = table.column(truth).astype(np.float64)
        if t.shape != shape:
            raise ValueError(f"the truth column {truth!r} has shape {t.shape}, the fitted values "
                             f"{shape}")
        return t
    if isinstance(truth, dict):
        if names is None:
            raise ValueError("truth given by name needs names (the parameters of the values)")
        missing = [name for name in names if name not in truth]
        if missing:
            raise ValueError(f"truth has no value for {missing}")
        t = np.array([truth[name] for name in names], dtype=np.float64)
    else:
        t = np.asarray(truth, dtype=np.float64)
    if t.shape != shape[1:]:
        raise ValueError(f"truth has {t.size} values, the fits {shape[1]} parameters")
    return np.broadcast_to(t, shape)


def _pulls(table, truth, values, errors, names):
    if not table.ok:
        raise ValueError("no successful experiment")
    v = np.atleast_2d(table.column(values).astype(np.float64))
    e = np.atleast_2d(table.column(errors).astype(np.float64))
    if v.shape != e.shape:
        raise ValueError(f"the values have shape {v.shape}, the errors {e.shape}")
    if names is not None and len(names) != v.shape[1]:
        raise ValueError(f"{len(names)} names for {v.shape[1]} parameters")
    return v, e, _truth_matrix(table, truth, names, v.shape)


def pull_summary(table, truth, values="values", errors="errors", names=None):
    """Mean and width of the pulls :math:`(\\hat p - p_0)/\\sigma` per parameter.

    These are the unbinned maximum-likelihood estimates of a Gaussian's
    mean and width from the pulls (the width with the :math:`n - 1` of the
    unbiased variance) and their asymptotic errors.

    Parameters
    ----------
    table : StudyTable
    truth : array_like, dict or str
        The generated values (in the order of the ``values`` lists, or by
        name with ``names``), or the key of a per-experiment list of them
        in the rows.  Same units as the fitted values.
    values, errors : str
        Keys of the fitted values and errors in the rows.
    names : sequence of str, optional
        Parameter names of the ``values`` lists.

    Returns
    -------
    dict
        Per parameter (index or name) with a positive error in every
        experiment: ``mean``, ``mean_error`` (:math:`w/\\sqrt{n}`),
        ``width`` (standard deviation), ``width_error``
        (:math:`w/\\sqrt{2(n-1)}`), ``n`` (all dimensionless: pulls are
        in units of the fitted errors).

    Raises
    ------
    ValueError
        If no experiment succeeded, or the truth does not match the values.
    """
    v, e, t = _pulls(table, truth, values, errors, names)
    out = {}
    for k in range(v.shape[1]):
        if not np.all(e[:, k] > 0):
            continue
        p = (v[:, k] - t[:, k]) / e[:, k]
        n = p.size
        width = float(np.std(p, ddof=1)) if n > 1 else math.nan
        out[names[k] if names is not None else k] = dict(
            mean=float(np.mean(p)), mean_error=width / math.sqrt(n), width=width,
            width_error=width / math.sqrt(2 * (n - 1)) if n > 1 else math.nan, n=n)
    return out


def plot_pulls(table, truth, path, *, values="values", errors="errors", names=None,
               parameters=None, bins=20):
    """Draw the pulls of a study: per parameter a row with the pull histogram
    and its Gaussian, and the fitted values against the truth.

    Left panel: the histogram of the pulls :math:`(\\hat p - p_0)/\\sigma`
    with the Gaussian of :func:`pull_summary` (unbinned maximum likelihood,
    not a fit to the histogram's bins), scaled to the histogram (count per
    bin), and its mean and width with their errors in the legend; the
    standard normal dashed for comparison.  Right panel: with one true
    value per experiment (``truth`` a key of the rows), the fitted values
    with their errors against the true ones and the diagonal; with one true
    value for all, the histogram of the fitted values with the truth and
    the mean fitted error marked around it.

    Parameters
    ----------
    table : StudyTable
    truth : array_like, dict or str
        As for :func:`pull_summary`.
    path : str or os.PathLike
        The figure's file; matplotlib chooses the format by the suffix
        (``.png``, ``.pdf``, ``.svg``...).
    values, errors : str
        Keys of the fitted values and errors in the rows.
    names : sequence of str, optional
        Parameter names of the ``values`` lists (titles, and keys of the
        result).
    parameters : sequence of int or str, optional
        The parameters to draw (indices, or names with ``names``); default:
        all with a positive error in every experiment.
    bins : int
        Bins of the histograms.

    Returns
    -------
    dict
        Per drawn parameter, :func:`pull_summary`'s numbers and ``label``
        (the legend text of the Gaussian).

    Raises
    ------
    ValueError
        If no experiment succeeded, a parameter is unknown or has no
        positive errors, or the truth does not match the values.
    """
    v, e, t = _pulls(table, truth, values, errors, names)
    summary = pull_summary(table, truth, values, errors, names)
    keys = [names[k] if names is not None else k for k in range(v.shape[1])]
    if parameters is None:
        chosen = [k for k in range(v.shape[1]) if keys[k] in summary]
    else:
        chosen = []
        for p in parameters:
            if p in keys:
                k = keys.index(p)
            elif isinstance(p, (int, np.integer)) and 0 <= p < v.shape[1]:
                k = int(p)
            else:
                raise ValueError(f"unknown parameter {p!r} (have {keys})")
            if keys[k] not in summary:
                raise ValueError(f"parameter {keys[k]!r} has no positive error in every "
                                 "experiment: no pulls")
            chosen.append(k)
    if not chosen:
        raise ValueError("no parameter with a positive error in every experiment")
    if isinstance(bins, bool) or not isinstance(bins, (int, np.integer)) or bins < 1:
        raise ValueError(f"bins must be a positive integer, got {bins!r}")
    # A Figure without pyplot: drawn with Agg whatever the session's backend,
    # no window, nothing left in pyplot's state.
    from matplotlib.figure import Figure
    per_experiment = isinstance(truth, str)
    fig = Figure(figsize=(9, 3.2 * len(chosen)), layout="constrained")
    axes = fig.subplots(len(chosen), 2, squeeze=False)
    out = {}
    for row, k in zip(axes, chosen):
        key = keys[k]
        title = str(key) if names is not None else f"parameter {k}"
        s = summary[key]
        pulls = (v[:, k] - t[:, k]) / e[:, k]
        ax = row[0]
        counts, edges, _ = ax.hist(pulls, bins=bins, histtype="step", color="k", label="pulls")
        width = edges[1] - edges[0]
        x = np.linspace(edges[0], edges[-1], 200)
        scale = pulls.size * width / math.sqrt(2 * math.pi)
        label = (f"mean {s['mean']:+.3f} \u00b1 {s['mean_error']:.3f}\n"
                 f"width {s['width']:.3f} \u00b1 {s['width_error']:.3f}")
        if s["n"] > 1 and s["width"] > 0:
            ax.plot(x, scale / s["width"] * np.exp(-0.5 * ((x - s["mean"]) / s["width"]) ** 2),
                    color="C0", label=label)
        ax.plot(x, scale * np.exp(-0.5 * x * x), color="0.5", ls="--", label="N(0, 1)")
        ax.set_xlabel(f"pull of {title}")
        ax.set_ylabel(f"experiments / {width:.2g}")
        ax.legend(fontsize="small")
        ax = row[1]
        if per_experiment:
            ax.errorbar(t[:, k], v[:, k], yerr=e[:, k], fmt=".", color="k", ms=3, lw=0.5)
            lo = min(t[:, k].min(), v[:, k].min())
            hi = max(t[:, k].max(), v[:, k].max())
            ax.plot([lo, hi], [lo, hi], color="C1", label="fitted = true")
            ax.set_xlabel(f"true {title}")
            ax.set_ylabel(f"fitted {title}")
        else:
            ax.hist(v[:, k], bins=bins, histtype="step", color="k", label="fitted values")
            ax.axvline(t[0, k], color="C1", label="true value")
            sigma = float(np.mean(e[:, k]))
            ax.axvspan(t[0, k] - sigma, t[0, k] + sigma, color="C1", alpha=0.15,
                       label="\u00b1 mean fitted error")
            ax.set_xlabel(f"fitted {title}")
            ax.set_ylabel("experiments")
        ax.legend(fontsize="small")
        out[key] = dict(s, label=label)
    fig.suptitle(f"{v.shape[0]} successful experiments of {len(table)}")
    fig.savefig(path)
    return out


def group_solutions(fvals, points, *, f_tolerance=0.1, distance=None):
    """Group the minima of a random-start scan into distinct solutions.

    Two minima are the same solution when their :math:`\\mathcal{F}` differ
    by less than ``f_tolerance`` and, with ``distance``, their points are
    closer than 1 in that metric (for example the parameters divided by
    their errors, after bringing couplings to a canonical form).

    Parameters
    ----------
    fvals : array_like
        :math:`\\mathcal{F}` at each minimum.
    points : array_like, shape (n, p)
        The parameters at each minimum.
    f_tolerance : float
        Largest difference of :math:`\\mathcal{F}` (its units, i.e.
        :math:`-\\ln L` or :math:`-2\\ln L` as the fit defines it) within a
        solution.
    distance : callable, optional
        ``distance(a, b) -> float``, dimensionless (1: the edge of a
        solution).

    Returns
    -------
    list of dict
        Best first: ``fval`` (the lowest of the group), ``delta`` (to the
        best solution), ``count``, ``members`` (indices), ``point`` (of the
        lowest member).
    """
    fvals = np.asarray(fvals, dtype=np.float64)
    points = np.asarray(points, dtype=np.float64)
    order = np.argsort(fvals, kind="stable")
    groups = []
    for i in order:
        for g in groups:
            j = g["members"][0]
            if abs(fvals[i] - fvals[j]) < f_tolerance and \
                    (distance is None or distance(points[i], points[j]) < 1):
                g["members"].append(int(i))
                break
        else:
            groups.append({"members": [int(i)]})
    best = fvals[order[0]] if len(order) else math.nan
    out = []
    for g in groups:
        j = g["members"][0]
        out.append(dict(fval=float(fvals[j]), delta=float(fvals[j] - best),
                        count=len(g["members"]), members=g["members"], point=points[j].copy()))
    return out


def scaled_distance(errors, *, periodic=None, period=360.0, max_distance=1.0):
    """A ``distance(a, b)`` for :func:`group_solutions`: the largest coordinate
    difference in units of its error.

    .. math::

        d(a, b) = \\frac{1}{D} \\max_i \\frac{|\\operatorname{wrap}(a_i - b_i)|}{\\sigma_i},

    with :math:`\\operatorname{wrap}` bringing the differences of periodic
    coordinates (phases) into :math:`[-P/2, P/2)` and leaving the others
    unchanged, so that two points are one solution (:math:`d < 1`) when every
    coordinate agrees within :math:`D` errors.

    Parameters
    ----------
    errors : array_like
        :math:`\\sigma_i > 0`, one per coordinate (the coordinates' units).
    periodic : array_like of bool, optional
        Which coordinates are periodic (default: none).
    period : float
        Their period :math:`P` (default 360, phases in degrees).
    max_distance : float
        :math:`D > 0`.

    Returns
    -------
    callable
        ``distance(a, b) -> float``.

    Raises
    ------
    ValueError
        Errors that are not positive and finite, a ``periodic`` mask of
        another length, or a ``max_distance`` or ``period`` that is not positive.
    """
    errors = np.asarray(errors, dtype=np.float64).reshape(-1)
    if not np.all(np.isfinite(errors) & (errors > 0)):
        raise ValueError(f"errors must be positive numbers, got {errors!r}")
    mask = np.zeros(errors.shape, dtype=bool) if periodic is None else \
        np.asarray(periodic, dtype=bool).reshape(-1)
    if mask.shape != errors.shape:
        raise ValueError(f"periodic: expected {errors.size} flags, got {mask.size}")
    if not (max_distance > 0 and period > 0):
        raise ValueError(f"max_distance and period must be positive, got {max_distance!r}, "
                         f"{period!r}")

    def distance(a, b):
        d = np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64)
        d[mask] = (d[mask] + period / 2) % period - period / 2
        return float(np.max(np.abs(d) / errors)) / max_distance
    return distance


def _wrapped(d, periodic, period):
    d = np.array(d, dtype=np.float64)
    d[periodic] = (d[periodic] + period / 2) % period - period / 2
    return d


def propagate_errors(function, values, covariance, names, *, periodic=None, period=360.0,
                     relative_step=1e-6):
    """Errors of derived coordinates, propagated linearly from a covariance matrix.

    .. math::

        \\sigma_i = \\sqrt{\\textstyle\\sum_{kl} J_{ik} V_{kl} J_{il}}, \\qquad
        J_{ik} = \\frac{y_i(p + h_k e_k) - y_i(p - h_k e_k)}{2 h_k},

    :math:`y = ` ``function(values)``, with :math:`h_k` = ``relative_step``
    :math:`\\max(|p_k|, 10^{-3})` and the differences of periodic coordinates
    (phases) wrapped into :math:`[-P/2, P/2)`.  Parameters whose row of
    :math:`V` is zero (fixed in the fit) are not varied.

    Parameters
    ----------
    function : callable
        ``function(values) -> array`` of the coordinates :math:`y`.
    values : dict
        Parameter name -> value :math:`p`.
    covariance : array_like
        :math:`V`, over ``names`` (the parameters' units squared).
    names : sequence of str
        The parameters of the rows of ``covariance``.
    periodic : array_like of bool, optional
        Which coordinates are periodic (default: none).
    period : float
        Their period :math:`P` (default 360, phases in degrees).
    relative_step : float

    Returns
    -------
    numpy.ndarray
        :math:`\\sigma_i` (the coordinates' units).
    """
    cov = np.asarray(covariance, dtype=np.float64)
    if cov.shape != (len(names), len(names)):
        raise ValueError(f"covariance: expected shape ({len(names)}, {len(names)}), got "
                         f"{cov.shape}")
    y0 = np.asarray(function(values), dtype=np.float64)
    mask = np.zeros(y0.shape, dtype=bool) if periodic is None else np.asarray(periodic, bool)
    jac = np.zeros((y0.size, len(names)))
    for k, n in enumerate(names):
        if np.any(cov[k]):
            h = relative_step * max(abs(values[n]), 1e-3)
            d = np.asarray(function({**values, n: values[n] + h})) - \
                np.asarray(function({**values, n: values[n] - h}))
            jac[:, k] = _wrapped(d, mask, period) / (2 * h)
    return np.sqrt(np.maximum(np.einsum("ik,kl,il->i", jac, cov, jac), 0))


def group_fits(fits, point, names, *, f_tolerance=0.1, max_distance=1.0, periodic=None,
               period=360.0):
    """Group the valid fits of a random-start scan into distinct solutions.

    Every valid minimum is written as ``point(values)`` (a canonical form,
    e.g. :func:`vecampfit.couplings.canonical_couplings` and the other
    parameters); two minima are one solution when their
    :math:`\\mathcal{F}` differ by less than ``f_tolerance`` and every
    coordinate by less than ``max_distance`` times its error at the best
    minimum (:func:`propagate_errors`, :func:`scaled_distance`,
    :func:`group_solutions`).

    Parameters
    ----------
    fits : list of dict
        ``fval``, ``valid``, ``values`` (name -> value) and ``covariance``
        (over ``names``) of each fit.
    point : callable
        ``point(values) -> array``.
    names : sequence of str
    f_tolerance, max_distance : float
    periodic : array_like of bool, optional
        The periodic coordinates of the points (phases), period ``period``.

    Returns
    -------
    list of dict
        Best first, as :func:`group_solutions` (``members`` index ``fits``),
        plus ``frequency`` (count over the valid fits) and ``point_errors``
        (the coordinates' errors at the solution's best member).

    Raises
    ------
    ValueError
        If no fit is valid, or the errors at the best minimum are not
        positive (HESSE failed there).
    """
    valid = [k for k, f in enumerate(fits) if f["valid"]]
    if not valid:
        raise ValueError("no valid fit to group (every MIGRAD or HESSE failed)")
    fvals = np.array([fits[k]["fval"] for k in valid])

    def errors(fit):
        return propagate_errors(point, fit["values"], fit["covariance"], names,
                                periodic=periodic, period=period)
    distance = scaled_distance(errors(fits[valid[int(np.argmin(fvals))]]), periodic=periodic,
                               period=period, max_distance=max_distance)
    out = group_solutions(fvals, [point(fits[k]["values"]) for k in valid],
                          f_tolerance=f_tolerance, distance=distance)
    for s in out:
        s["members"] = [valid[i] for i in s["members"]]
        s.update(frequency=s["count"] / len(valid), point_errors=errors(fits[s["members"][0]]))
    return out
