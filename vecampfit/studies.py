r"""Studies after a fit: pseudoexperiments, pulls, and the solutions of
random-start scans.

A study runs one function, ``experiment(index, seed) -> dict``, many times:
generate a pseudo-data sample from the model at given parameter values and
fit it (or fit the same data from a random start), returning what the user
wants to keep (fitted values, errors, :math:`\mathcal{F}`, status, fit
fractions...).  :func:`run_study` derives one seed per experiment from one
seed (:class:`numpy.random.SeedSequence`), so experiment ``k`` can be redone
alone; runs the experiments in this process or on any
:class:`concurrent.futures.Executor` (:func:`process_executor` makes one
whose workers do not oversubscribe the cores); records an experiment that
raises with its error instead of stopping; and appends every result to a
file as it arrives, so that an interrupted study resumes without redoing
finished experiments.

:func:`pull_summary` gives the mean and width of the pulls
:math:`(\hat p - p_\text{true})/\sigma_{\hat p}` with their errors;
:func:`group_solutions` groups the minima of a random-start scan into
distinct solutions.
"""

import json
import math
import os
import time
from concurrent.futures import ProcessPoolExecutor, as_completed

import numpy as np

__all__ = ["experiment_seeds", "process_executor", "run_study", "StudyTable", "pull_summary",
           "group_solutions"]


def experiment_seeds(seed, n):
    """One integer seed per experiment, derived from ``seed``.

    Parameters
    ----------
    seed : int
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
    """
    from .fitter.likelihood import available_cpus
    cpus = available_cpus()
    workers = int(workers or cpus)
    threads = int(threads_per_worker or max(1, cpus // workers))
    if workers < 1 or threads < 1:
        raise ValueError(f"workers and threads_per_worker must be positive, got {workers}, "
                         f"{threads}")
    return ProcessPoolExecutor(max_workers=workers, initializer=_set_threads,
                               initargs=(threads,))


class StudyTable:
    """The results of a study, one row per experiment.

    Attributes
    ----------
    rows : list of dict
        Per experiment: ``experiment`` (index), ``seed``, ``status``
        (``"ok"`` or ``"failed"``), ``error`` (the exception's text for a
        failed one), ``time`` (s), and the keys the experiment returned.
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
        """The rows of the experiments that raised."""
        return [r for r in self.rows if r["status"] != "ok"]

    def column(self, key):
        """One key of the successful experiments as a numpy array."""
        return np.array([r[key] for r in self.ok])

    def to_records(self):
        """The rows as a list of dicts (``pandas.DataFrame(table.to_records())``)."""
        return [dict(r) for r in self.rows]

    def write_root(self, path, tree="study"):
        """Write the successful rows' numeric columns as a ROOT tree (arrays
        of fixed length become branches of that shape)."""
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


def _run_one(experiment, index, seed):
    t0 = time.perf_counter()
    try:
        result = dict(experiment(index, seed))
        status, error = "ok", ""
    except Exception as exc:  # a failed fit is a result of the study, not its end
        result, status, error = {}, "failed", f"{type(exc).__name__}: {exc}"
    row = {"experiment": index, "seed": seed, "status": status, "error": error,
           "time": time.perf_counter() - t0}
    for key, value in result.items():
        if key in row:
            raise ValueError(f"experiment {index}: the key {key!r} of its result is the runner's")
        row[key] = value.tolist() if isinstance(value, np.ndarray) else value
    return row


def _read_done(path):
    done = {}
    if path is None or not os.path.exists(path):
        return done
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, start=1):
            line = line.strip()
            if not line:
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError:
                # A line cut by an interruption: that experiment runs again.
                continue
            done[int(row["experiment"])] = row
    return done


def run_study(experiment, n, *, seed, executor=None, results=None, progress=True):
    """Run ``experiment(index, seed)`` for ``index`` in ``0 .. n - 1``.

    Parameters
    ----------
    experiment : callable
        ``experiment(index, seed) -> dict``; a module-level function when an
        executor runs it in other processes.  Returned numpy arrays are
        kept as lists.
    n : int
        Number of experiments.
    seed : int
        The study's seed (:func:`experiment_seeds`).
    executor : concurrent.futures.Executor, optional
        Where to run (default: in this process, one after the other).
    results : str or os.PathLike, optional
        A file of results, one JSON line per experiment, appended as each
        experiment ends.  Experiments already in it (with the same seed) are
        not run again.
    progress : bool
        Print a line per finished experiment with the estimated time left.

    Returns
    -------
    StudyTable

    Raises
    ------
    ValueError
        If ``results`` holds an experiment with another seed (a different
        study).
    """
    n = int(n)
    seeds = experiment_seeds(seed, n)
    done = _read_done(results)
    for k, row in done.items():
        if k < n and row["seed"] != seeds[k]:
            raise ValueError(f"{results}: experiment {k} has seed {row['seed']}, this study's is "
                             f"{seeds[k]} (another study's results?)")
    todo = [k for k in range(n) if k not in done]
    rows = [done[k] for k in range(n) if k in done]
    t0 = time.perf_counter()
    out = None
    if results is not None:
        out = open(results, "a+", encoding="utf-8")
        if out.tell() > 0:
            out.seek(out.tell() - 1)
            if out.read(1) != "\n":
                out.write("\n")          # after a line cut by an interruption

    def finished(row):
        rows.append(row)
        if out is not None:
            out.write(json.dumps(row) + "\n")
            out.flush()
        if progress:
            left = len(todo) - (len(rows) - len(done))
            elapsed = time.perf_counter() - t0
            per = elapsed / max(1, len(rows) - len(done))
            print(f"experiment {row['experiment']}: {row['status']}"
                  + (f" ({row['error']})" if row["error"] else "")
                  + f"; {len(rows)}/{n} done, about {per * left:.0f} s left", flush=True)

    try:
        if executor is None:
            for k in todo:
                finished(_run_one(experiment, k, seeds[k]))
        else:
            futures = {executor.submit(_run_one, experiment, k, seeds[k]): k for k in todo}
            for fut in as_completed(futures):
                k = futures[fut]
                try:
                    row = fut.result()
                except Exception as exc:  # the worker itself died
                    row = {"experiment": k, "seed": seeds[k], "status": "failed",
                           "error": f"{type(exc).__name__}: {exc}", "time": math.nan}
                finished(row)
    finally:
        if out is not None:
            out.close()
    return StudyTable(rows)


def pull_summary(table, truth, values="values", errors="errors", names=None):
    """Mean and width of the pulls :math:`(\\hat p - p_0)/\\sigma` per parameter.

    Parameters
    ----------
    table : StudyTable
    truth : array_like or dict
        The generated values (in the order of the ``values`` lists, or by
        name with ``names``).
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
        (:math:`w/\\sqrt{2(n-1)}`), ``n``.
    """
    v = table.column(values)
    e = table.column(errors)
    if names is not None and isinstance(truth, dict):
        t = np.array([truth[name] for name in names], dtype=np.float64)
    else:
        t = np.asarray(truth, dtype=np.float64)
    out = {}
    for k in range(v.shape[1]):
        if not np.all(e[:, k] > 0):
            continue
        p = (v[:, k] - t[k]) / e[:, k]
        n = p.size
        width = float(np.std(p, ddof=1)) if n > 1 else math.nan
        out[names[k] if names is not None else k] = dict(
            mean=float(np.mean(p)), mean_error=width / math.sqrt(n), width=width,
            width_error=width / math.sqrt(2 * (n - 1)) if n > 1 else math.nan, n=n)
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
    distance : callable, optional
        ``distance(a, b) -> float``.

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
